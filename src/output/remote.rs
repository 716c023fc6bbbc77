//! `--out s3://bucket/prefix`: a verb writes its outputs into a local staging folder as it
//! would into a local `--out`; when it succeeds, each file goes to the bucket under a
//! temporary key and is then renamed to its final key (object_store's rename: copy, then
//! delete), so readers never see half an output. A failed or interrupted verb uploads
//! nothing, and the staging folder is removed either way.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use object_store::path::Path as ObjectPath;
use object_store::{ObjectStore, ObjectStoreExt};

use crate::error::{Error, Result};
use crate::store::location::Location;

/// Whether `--out` names an object store rather than a local folder.
pub fn is_remote(out: &Path) -> bool {
    out.to_str().is_some_and(|s| s.contains("://"))
}

pub struct Staging {
    /// Where the verb writes.
    pub local: PathBuf,
    store: Arc<dyn ObjectStore>,
    prefix: ObjectPath,
    display: String,
}

impl Staging {
    /// The store named by `out` (credentials as for reading: AWS_* variables) and a fresh
    /// staging folder.
    pub fn new(out: &Path) -> Result<Staging> {
        let display = out.display().to_string();
        let loc = Location::parse(&display)?;
        let store = crate::store::registry::store_for(&loc.store_url)
            .map_err(|e| Error::Input(format!("--out {display}: {e}")))?;
        let local = std::env::temp_dir().join(format!(
            "groundcheck-out-{}-{}",
            std::process::id(),
            chrono::Utc::now().format("%Y%m%dT%H%M%S%f")
        ));
        std::fs::create_dir_all(&local).map_err(|e| Error::io(local.display(), e))?;
        crate::output::track_temporary(&local);
        Ok(Staging {
            local,
            store,
            prefix: loc.prefix,
            display: display.trim_end_matches('/').to_string(),
        })
    }

    /// Uploads every staged file (in path order), each through a temporary key; returns
    /// the final keys as URLs. Nothing staged is an error: the verb wrote nothing.
    pub async fn upload(&self) -> Result<Vec<String>> {
        let mut files = Vec::new();
        walk(&self.local, &mut files)?;
        files.sort();
        let mut done = Vec::new();
        for f in files {
            let rel = f
                .strip_prefix(&self.local)
                .map_err(|e| Error::Input(e.to_string()))?
                .to_string_lossy()
                .replace('\\', "/");
            let key = |name: &str| -> Result<ObjectPath> {
                let joined = if self.prefix.as_ref().is_empty() {
                    name.to_string()
                } else {
                    format!("{}/{name}", self.prefix)
                };
                ObjectPath::parse(&joined)
                    .map_err(|e| Error::Input(format!("{}/{name}: {e}", self.display)))
            };
            let target = key(&rel)?;
            let tmp = key(&format!("{rel}.groundcheck-tmp-{}", std::process::id()))?;
            let bytes = std::fs::read(&f).map_err(|e| Error::io(f.display(), e))?;
            let url = format!("{}/{rel}", self.display);
            self.store
                .put(&tmp, bytes.into())
                .await
                .map_err(|e| Error::Input(format!("cannot write {url}: {e}")))?;
            self.store
                .rename(&tmp, &target)
                .await
                .map_err(|e| Error::Input(format!("cannot write {url}: {e}")))?;
            done.push(url);
        }
        Ok(done)
    }
}

impl Drop for Staging {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.local);
    }
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> Result<()> {
    let entries = std::fs::read_dir(dir).map_err(|e| Error::io(dir.display(), e))?;
    for e in entries {
        let e = e.map_err(|e| Error::io(dir.display(), e))?;
        let p = e.path();
        let name = e.file_name().to_string_lossy().to_string();
        // Hidden work files (temporary names, chunk folders) are not outputs.
        if name.starts_with('.') {
            continue;
        }
        if p.is_dir() {
            walk(&p, out)?;
        } else {
            out.push(p);
        }
    }
    Ok(())
}
