//! `--out s3://bucket/prefix`: a verb writes its outputs into a local staging folder as it
//! would into a local `--out`; when it succeeds they are published as a set. First every
//! file is uploaded under a hidden staging prefix (`PREFIX/.groundcheck-upload-PID-TIME/`,
//! which listings skip): a cut there leaves the earlier set whole. Then a marker
//! (`PREFIX/.groundcheck-set.json`) is written, each file is renamed to its final key
//! (object_store's rename: copy, then delete), and the marker is removed last. A project
//! read while the marker is there (an upload cut between its renames) is refused with a
//! sentence (engine::session). What the verb removed in its folder (a stale rejects.jsonl
//! of an earlier run) is deleted from the bucket before the marker goes. A failed or
//! interrupted verb uploads nothing; the staging
//! folder is removed either way, and ones a killed process left are removed at the next
//! start (output::set::reap_staging), as are staging prefixes older than a day.

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
        crate::output::set::reap_staging();
        std::fs::create_dir_all(&local).map_err(|e| Error::io(local.display(), e))?;
        crate::output::track_temporary(&local);
        crate::output::set::stage(&local);
        Ok(Staging {
            local,
            store,
            prefix: loc.prefix,
            display: display.trim_end_matches('/').to_string(),
        })
    }

    fn key(&self, name: &str) -> Result<ObjectPath> {
        let joined = if self.prefix.as_ref().is_empty() {
            name.to_string()
        } else {
            format!("{}/{name}", self.prefix)
        };
        ObjectPath::parse(&joined)
            .map_err(|e| Error::Input(format!("{}/{name}: {e}", self.display)))
    }

    /// Publishes every staged file (in path order) as a set (see the module's comment);
    /// returns the final keys as URLs. Nothing staged is an error: the verb wrote nothing.
    pub async fn upload(&self) -> Result<Vec<String>> {
        let mut files = Vec::new();
        walk(&self.local, &mut files)?;
        files.sort();
        self.reap_uploads().await;
        let stage = format!(
            ".groundcheck-upload-{}-{}",
            std::process::id(),
            chrono::Utc::now().format("%Y%m%dT%H%M%S%f")
        );
        let cannot =
            |url: &str, e: object_store::Error| Error::store(format!("cannot write {url}"), e);
        let mut staged = Vec::new();
        for f in &files {
            let rel = f
                .strip_prefix(&self.local)
                .map_err(|e| Error::Input(e.to_string()))?
                .to_string_lossy()
                .replace('\\', "/");
            let url = format!("{}/{rel}", self.display);
            let tmp = self.key(&format!("{stage}/{rel}"))?;
            let target = self.key(&rel)?;
            let bytes = std::fs::read(f).map_err(|e| Error::io(f.display(), e))?;
            if let Err(e) = self.store.put(&tmp, bytes.into()).await {
                self.remove_stage(&stage).await;
                return Err(cannot(&url, e));
            }
            staged.push((tmp, target, url));
        }
        let marker = self.key(crate::output::set::JOURNAL)?;
        let doc = serde_json::json!({
            "pid": std::process::id(),
            "staged": stage,
            "files": staged.iter().map(|(_, t, _)| t.to_string()).collect::<Vec<_>>(),
        });
        if let Err(e) = self.store.put(&marker, doc.to_string().into()).await {
            self.remove_stage(&stage).await;
            return Err(cannot(
                &format!("{}/{}", self.display, crate::output::set::JOURNAL),
                e,
            ));
        }
        let mut done = Vec::new();
        for (tmp, target, url) in staged {
            // A failure here leaves the marker: readers refuse the mix until a rerun.
            self.store
                .rename(&tmp, &target)
                .await
                .map_err(|e| cannot(&url, e))?;
            done.push(url);
        }
        // What the verb removed (a stale rejects.jsonl) goes too, unless it wrote it anew.
        for rel in crate::output::set::staged_removals() {
            if files.iter().any(|f| {
                f.strip_prefix(&self.local)
                    .is_ok_and(|r| r == Path::new(&rel))
            }) {
                continue;
            }
            let key = self.key(&rel)?;
            match self.store.delete(&key).await {
                Ok(()) | Err(object_store::Error::NotFound { .. }) => {}
                Err(e) => return Err(cannot(&format!("{}/{rel}", self.display), e)),
            }
        }
        self.store.delete(&marker).await.map_err(|e| {
            cannot(
                &format!("{}/{}", self.display, crate::output::set::JOURNAL),
                e,
            )
        })?;
        Ok(done)
    }

    async fn remove_stage(&self, stage: &str) {
        use futures::TryStreamExt;
        let Ok(prefix) = self.key(stage) else { return };
        let keys: Vec<_> = self
            .store
            .list(Some(&prefix))
            .map_ok(|m| m.location)
            .try_collect()
            .await
            .unwrap_or_default();
        for k in keys {
            let _ = self.store.delete(&k).await;
        }
    }

    /// Staging prefixes of uploads that were cut more than a day ago (a younger one may be
    /// another live upload's).
    async fn reap_uploads(&self) {
        use futures::TryStreamExt;
        let Ok(listed) = self
            .store
            .list_with_delimiter(Some(&self.prefix).filter(|p| !p.as_ref().is_empty()))
            .await
        else {
            return;
        };
        let day_ago = chrono::Utc::now() - chrono::Duration::days(1);
        for dir in listed.common_prefixes {
            let Some(name) = dir.filename() else { continue };
            if !name.starts_with(".groundcheck-upload-") {
                continue;
            }
            let metas: Vec<_> = self
                .store
                .list(Some(&dir))
                .try_collect()
                .await
                .unwrap_or_default();
            if metas.iter().all(|m| m.last_modified < day_ago) {
                for m in metas {
                    let _ = self.store.delete(&m.location).await;
                }
            }
        }
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
