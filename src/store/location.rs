//! Where input lives: a local path or an `s3://bucket/prefix`, either one optionally ending
//! in a glob (`traces/2026-11-*/*.jsonl`), and the listing of the files it names.
//!
//! Listing is always through `object_store`, local or remote, so the rest of the code has
//! one path. Files and folders whose name starts with `.` or `_` are skipped: our own
//! temporary files start with `.`, and `_SUCCESS`-style markers with `_`.

use std::sync::Arc;

use datafusion::execution::object_store::ObjectStoreUrl;
use futures::TryStreamExt;
use object_store::path::Path;
use object_store::{ObjectMeta, ObjectStore, ObjectStoreExt};
use url::Url;

use crate::error::{Error, Result};

#[derive(Debug, Clone)]
pub struct Location {
    /// `file:///` or `s3://bucket`: the key of the object store.
    pub store_url: ObjectStoreUrl,
    /// Path inside the store, without the glob part.
    pub prefix: Path,
    /// Glob over the path below `prefix`; `*` stays within one folder, `**` crosses them.
    pub glob: Option<glob::Pattern>,
}

/// A listed file, with the URL a ListingTable takes and the name errors give.
#[derive(Debug, Clone)]
pub struct Listed {
    pub meta: ObjectMeta,
    pub url: String,
    pub display: String,
}

/// `a/b/../c` as `a/c`: object_store refuses `..` segments, and a user's relative paths
/// have them. Lexical, like Python's `os.path.normpath`: a `..` after a symlink means the
/// link's parent, not its target's.
pub fn lexical(p: &std::path::Path) -> std::path::PathBuf {
    use std::path::Component;
    let mut out = std::path::PathBuf::new();
    for c in p.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

impl Location {
    pub fn parse(s: &str) -> Result<Self> {
        let (base, glob) = split_glob(s);
        let glob = glob
            .map(|g| {
                glob::Pattern::new(g).map_err(|e| Error::Config(format!("bad glob in {s}: {e}")))
            })
            .transpose()?;
        if let Some(rest) = base.strip_prefix("s3://") {
            let (bucket, key) = rest.split_once('/').unwrap_or((rest, ""));
            if bucket.is_empty() {
                return Err(Error::Config(format!("{s}: no bucket name")));
            }
            let store_url = ObjectStoreUrl::parse(format!("s3://{bucket}"))?;
            return Ok(Self {
                store_url,
                prefix: Path::from(key.trim_end_matches('/')),
                glob,
            });
        }
        if base.contains("://") {
            return Err(Error::Config(format!(
                "{s}: only local paths and s3:// are supported"
            )));
        }
        let base = if base.is_empty() { "." } else { base };
        let abs = lexical(&std::path::absolute(base).map_err(|e| Error::io(base, e))?);
        let prefix = Path::from_absolute_path(&abs)
            .map_err(|e| Error::Config(format!("{}: {e}", abs.display())))?;
        Ok(Self {
            store_url: ObjectStoreUrl::local_filesystem(),
            prefix,
            glob,
        })
    }

    pub fn is_local(&self) -> bool {
        self.store_url.as_str().starts_with("file:")
    }

    /// The location `rel` below this one (only meaningful without a glob).
    pub fn join(&self, rel: &str) -> Self {
        let rel = Path::from(rel);
        let mut parts: Vec<_> = self.prefix.parts().collect();
        parts.extend(rel.parts());
        Self {
            store_url: self.store_url.clone(),
            prefix: Path::from_iter(parts),
            glob: None,
        }
    }

    /// How a path in this store reads in messages: a filesystem path or an s3:// URL.
    pub fn display(&self, p: &Path) -> String {
        if self.is_local() {
            format!("/{p}")
        } else {
            format!("{}/{p}", self.store_url.as_str().trim_end_matches('/'))
        }
    }

    pub fn url_of(&self, p: &Path) -> String {
        format!("{}{p}", self.store_url.as_str())
    }

    /// The object this location names exactly, if it is one.
    pub async fn head(&self, store: &Arc<dyn ObjectStore>) -> Option<Listed> {
        if self.glob.is_some() {
            return None;
        }
        match store.head(&self.prefix).await {
            Ok(meta) => Some(self.listed(meta)),
            Err(_) => None,
        }
    }

    /// Every file at or below this location that the glob (if any) matches, in path order.
    pub async fn list(&self, store: &Arc<dyn ObjectStore>) -> Result<Vec<Listed>> {
        // A name with an extension is most likely one object: ask for it first. Asking for a
        // folder as an object is wasted (and some S3 servers answer it with retried 500s).
        let looks_like_file = self.prefix.filename().is_some_and(|n| n.contains('.'));
        if looks_like_file && let Some(one) = self.head(store).await {
            return Ok(vec![one]);
        }
        let listed = self.list_below(store).await;
        if matches!(&listed, Ok(v) if !v.is_empty()) || looks_like_file {
            return listed;
        }
        match self.head(store).await {
            Some(one) => Ok(vec![one]),
            None => listed,
        }
    }

    async fn list_below(&self, store: &Arc<dyn ObjectStore>) -> Result<Vec<Listed>> {
        let options = glob::MatchOptions {
            require_literal_separator: true,
            ..Default::default()
        };
        let depth = self.prefix.parts().count();
        let mut out: Vec<ObjectMeta> = store
            .list(Some(&self.prefix))
            .try_filter(|meta| {
                let rel: Vec<_> = meta.location.parts().skip(depth).collect();
                let hidden = rel
                    .iter()
                    .any(|p| p.as_ref().starts_with('.') || p.as_ref().starts_with('_'));
                let rel = rel.iter().map(|p| p.as_ref()).collect::<Vec<_>>().join("/");
                let matched = self
                    .glob
                    .as_ref()
                    .is_none_or(|g| g.matches_with(&rel, options));
                futures::future::ready(!hidden && matched)
            })
            .try_collect()
            .await
            .map_err(|e| Error::store(format!("cannot list {}", self.display(&self.prefix)), e))?;
        out.sort_by(|a, b| a.location.cmp(&b.location));
        Ok(out.into_iter().map(|m| self.listed(m)).collect())
    }

    fn listed(&self, meta: ObjectMeta) -> Listed {
        Listed {
            url: self.url_of(&meta.location),
            display: self.display(&meta.location),
            meta,
        }
    }
}

/// Splits `dir/sub/*.jsonl` into (`dir/sub`, `*.jsonl`) at the last `/` before the first
/// glob character.
fn split_glob(s: &str) -> (&str, Option<&str>) {
    let Some(first) = s.find(['*', '?', '[']) else {
        return (s, None);
    };
    match s[..first].rfind('/') {
        Some(slash) => (&s[..slash], Some(&s[slash + 1..])),
        None => ("", Some(s)),
    }
}

/// Key a store is registered under: `s3://bucket`.
pub fn store_key(url: &Url) -> String {
    format!("{}://{}", url.scheme(), url.host_str().unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_globs() {
        assert_eq!(split_glob("a/b/*.jsonl"), ("a/b", Some("*.jsonl")));
        assert_eq!(
            split_glob("a/2026-*/x/*.jsonl"),
            ("a", Some("2026-*/x/*.jsonl"))
        );
        assert_eq!(split_glob("*.jsonl"), ("", Some("*.jsonl")));
        assert_eq!(split_glob("a/b"), ("a/b", None));
    }

    #[test]
    fn parses_s3() {
        let l = Location::parse("s3://bucket/traces/2026/*.jsonl").unwrap();
        assert_eq!(l.store_url.as_str(), "s3://bucket/");
        assert_eq!(l.prefix.as_ref(), "traces/2026");
        assert_eq!(l.glob.unwrap().as_str(), "*.jsonl");
        assert_eq!(l.store_url.as_str(), "s3://bucket/");
        assert!(Location::parse("s3:///x").is_err());
        assert!(Location::parse("gs://b/x").is_err());
    }

    #[test]
    fn parent_segments_are_resolved() {
        let l = Location::parse("/tmp/a/../b/./c.jsonl").unwrap();
        assert_eq!(l.prefix.as_ref(), "tmp/b/c.jsonl");
        let l = Location::parse("/tmp/a/../b/*.jsonl").unwrap();
        assert_eq!(l.prefix.as_ref(), "tmp/b");
    }
}
