//! The object stores every context reads and writes through: S3 stores built per bucket
//! on first use from the AWS environment, and the store of empty tables.

use std::sync::Arc;

use datafusion::execution::object_store::{DefaultObjectStoreRegistry, ObjectStoreRegistry};
use object_store::ObjectStore;
use url::Url;

use crate::error::Error;
use crate::store::location::store_key;

/// Where a table the project lacks is read from: a Parquet file of no rows in a store
/// that every machine builds the same way (the registry below), so that the table plans
/// like the others and can be sent to a cluster (an EmptyTable or MemTable cannot; a
/// listing of no files gives a stage of no partitions, which Ballista's joins reject).
pub fn empty_url(table: &str) -> String {
    format!("groundcheck-empty://none/{table}.parquet")
}

static EMPTY_STORE: std::sync::LazyLock<Arc<dyn ObjectStore>> = std::sync::LazyLock::new(|| {
    let store = object_store::memory::InMemory::new();
    let tables = crate::model::all_tables()
        .into_iter()
        .map(|t| (t.name, t.schema.clone()))
        .chain([(
            crate::model::EXTERNAL_POLICY,
            crate::model::external_policy_schema(),
        )]);
    for (name, schema) in tables {
        let mut bytes = Vec::new();
        let written = parquet::arrow::ArrowWriter::try_new(&mut bytes, schema, None)
            .and_then(|w| w.close().map(|_| ()));
        if written.is_ok() {
            let path = object_store::path::Path::from(format!("{name}.parquet"));
            // InMemory answers at once: no runtime needed.
            let _ = futures::executor::block_on(object_store::ObjectStoreExt::put(
                &store,
                &path,
                bytes.into(),
            ));
        }
    }
    Arc::new(store)
});

/// Builds an S3 store per bucket on first use, from the standard AWS environment
/// (`AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_REGION`, `AWS_ENDPOINT`,
/// `AWS_ALLOW_HTTP`, …). Path-style requests unless `AWS_VIRTUAL_HOSTED_STYLE_REQUEST`.
#[derive(Debug, Default)]
pub struct S3Registry {
    inner: DefaultObjectStoreRegistry,
}

impl ObjectStoreRegistry for S3Registry {
    fn register_store(
        &self,
        url: &Url,
        store: Arc<dyn ObjectStore>,
    ) -> Option<Arc<dyn ObjectStore>> {
        self.inner.register_store(url, store)
    }

    fn get_store(&self, url: &Url) -> datafusion::error::Result<Arc<dyn ObjectStore>> {
        if let Ok(store) = self.inner.get_store(url) {
            return Ok(store);
        }
        if url.scheme() == "groundcheck-empty" {
            return Ok(Arc::clone(&EMPTY_STORE));
        }
        if url.scheme() != "s3" {
            return self.inner.get_store(url);
        }
        let bucket = url.host_str().unwrap_or_default();
        // A few quick retries, not object_store's three minutes: a server that is gone
        // should be an error the user reads while it still matters.
        let retry = object_store::RetryConfig {
            max_retries: 4,
            retry_timeout: std::time::Duration::from_secs(30),
            ..Default::default()
        };
        let store = object_store::aws::AmazonS3Builder::from_env()
            .with_bucket_name(bucket)
            .with_retry(retry)
            .build()
            .map_err(|e| Error::Config(format!("s3://{bucket}: {e}")))?;
        let store: Arc<dyn ObjectStore> = Arc::new(store);
        let key = Url::parse(&store_key(url)).map_err(|e| Error::Input(e.to_string()))?;
        self.inner.register_store(&key, store.clone());
        Ok(store)
    }
}

/// The store for `url` (`file:///`, `s3://bucket`), from a registry of its own.
pub fn store_for(
    url: &datafusion::execution::object_store::ObjectStoreUrl,
) -> crate::Result<Arc<dyn ObjectStore>> {
    Ok(S3Registry::default().get_store(AsRef::<Url>::as_ref(url))?)
}
