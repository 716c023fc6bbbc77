//! Label + report end to end (issue 8): a generated project of 10k and 100k tasks, ingested
//! to Parquet once, then labeled in chunks and reported, as `groundcheck report` does.
//!
//!     cargo bench --bench end_to_end
//!
//! One iteration at 100k tasks takes about 9 s on 2 cores: criterion's minimum of 10
//! samples makes this a few minutes. Side by side with DuckDB: benches/side_by_side.py.

use std::path::Path;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use groundcheck::engine::ingest;
use groundcheck::eval::labels::{Labeler, Options};
use groundcheck::eval::report;
use groundcheck::{Session, SessionOptions};

fn project(tasks: u64, dir: &Path, rt: &tokio::runtime::Runtime) {
    let jsonl = dir.join("jsonl");
    groundcheck::synth::generate(tasks, 1, &jsonl, &|_| {}).unwrap();
    rt.block_on(async {
        let session = Session::open(SessionOptions {
            data: jsonl.to_string_lossy().into_owned(),
            ..Default::default()
        })
        .await
        .unwrap();
        ingest::ingest(&session, &dir.join("pq"), &Default::default(), None)
            .await
            .unwrap();
    });
}

async fn label_and_report(data: &Path, out: &Path) -> usize {
    let labeler = Labeler::open(SessionOptions {
        data: data.to_string_lossy().into_owned(),
        ..Default::default()
    })
    .await
    .unwrap();
    let opts = Options {
        allow_empty: true,
        chunk_steps: 250_000,
        ..Default::default()
    };
    labeler.write(out, &opts, &|_, _, _| {}).await.unwrap();
    let labels = report::over_labels(&out.join("labels.parquet"), None)
        .await
        .unwrap();
    let (_, report) = report::report(&labels).await.unwrap();
    groundcheck::engine::query::row_count(&report)
}

fn bench(c: &mut Criterion) {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let mut g = c.benchmark_group("label_report");
    g.sample_size(10);
    for tasks in [10_000u64, 100_000] {
        let dir = tempfile::tempdir().unwrap();
        project(tasks, dir.path(), &rt);
        let (pq, out) = (dir.path().join("pq"), dir.path().join("out"));
        g.throughput(Throughput::Elements(tasks));
        g.bench_function(format!("{tasks}_tasks"), |b| {
            b.iter(|| rt.block_on(label_and_report(&pq, &out)))
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
