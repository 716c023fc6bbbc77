//! `groundcheck gen`: a synthetic project of any size.

use std::process::ExitCode;

use clap::Args as ClapArgs;

/// Write a deterministic synthetic project (cases, traces, context, snapshots) for
/// benchmarks: tasks alternate between the demo's two servers; questions from five
/// families (counts with joins and CTEs, sums, window-function rankings, pipeline,
/// tickets), grounded and ungrounded SQL, retries, clarifications, paginated results,
/// missing and stale as_of, users of four roles. Each task has at most one defect (a
/// forbidden field or another definition, a CRM id, a fan-out or an unfollowed page, the
/// wrong window or stale data, a service credential) and its case's `label` is the label
/// that follows, so `report` shows how far the scorer agrees. Same seed, same bytes.
#[derive(Debug, ClapArgs)]
pub struct Args {
    /// How many tasks (each a case answered by one server).
    #[arg(long)]
    tasks: u64,

    /// Seed of the generator: the same seed and task count give the same bytes.
    #[arg(long, default_value_t = 0)]
    seed: u64,

    /// The project folder to write.
    #[arg(long)]
    pub(crate) out: std::path::PathBuf,

    /// No progress bar.
    #[arg(long)]
    quiet: bool,
}

pub async fn run(args: Args) -> anyhow::Result<ExitCode> {
    let bar = (!args.quiet).then(|| {
        let b = indicatif::ProgressBar::new(args.tasks);
        b.set_style(
            indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} tasks {per_sec} {eta}")
                .expect("template"),
        );
        b
    });
    groundcheck::synth::generate(args.tasks, args.seed, &args.out, &|n| {
        if let Some(b) = &bar {
            b.set_position(n);
        }
    })?;
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    eprintln!("wrote {} tasks to {}", args.tasks, args.out.display());
    Ok(ExitCode::SUCCESS)
}
