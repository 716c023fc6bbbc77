//! `label` and `report` on a Ballista cluster: a real scheduler and two executors, each
//! its own `groundcheck` process on 127.0.0.1, reading a generated project (Parquet) from
//! the loopback S3 server. The outputs must be byte-identical to the local run's, also
//! when one executor is killed in the middle of a query.
//!
//! Its own test binary, its tests run one at a time (the `cluster` test group in
//! .config/nextest.toml, and `LOCK` under plain `cargo test`). They pass on a loaded
//! machine too: the first runs beside a CPU hog on every core, and the scheduler's
//! timeouts are the ones sized for load. A frozen cluster must end the verb with a
//! sentence, not a wait.

#[allow(dead_code)]
#[path = "../it/s3_server.rs"]
mod s3_server;
#[allow(dead_code)]
#[path = "../it/support.rs"]
mod support;

use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use s3_server::{S3Server, start};
use support::{copy_dir, run};

static LOCK: Mutex<()> = Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    LOCK.lock().unwrap_or_else(|e| e.into_inner())
}

/// A process the test started in its own process group, killed (with whatever it
/// started) when dropped.
struct Proc(Child);

impl Drop for Proc {
    fn drop(&mut self) {
        support::kill_group(self.0.id());
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A busy loop on every core for as long as it lives: the cluster must work on a loaded
/// machine (heartbeats late, planning slow).
fn cpu_hog() -> Vec<Proc> {
    let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
    (0..cores)
        .map(|_| {
            Proc(
                Command::new("sh")
                    .args(["-c", "while :; do :; done"])
                    .process_group(0)
                    .spawn()
                    .expect("start a busy loop"),
            )
        })
        .collect()
}

/// `groundcheck ingest` of the project `data` into Parquet at `out`.
fn ingest(dir: &Path, data: &Path, out: &Path) {
    support::ok(
        dir,
        &[
            "ingest",
            "-q",
            "--data",
            data.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ],
    );
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Starts `groundcheck ARGS` with the S3 environment, its log in `log`.
fn spawn(s3: &S3Server, log: &Path, args: &[&str]) -> Proc {
    let mut c = Command::new(env!("CARGO_BIN_EXE_groundcheck"));
    c.args(args)
        .env("RUST_LOG", "info")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(log).unwrap())
        .process_group(0);
    Proc(s3.env(&mut c).spawn().expect("start groundcheck"))
}

/// How many lines of `log` contain `what`.
fn count(log: &Path, what: &str) -> usize {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .filter(|l| l.contains(what))
        .count()
}

/// Waits (bounded: 2400 x 50 ms) until `log` has more than `after` lines with `what`.
fn wait_for(log: &Path, what: &str, after: usize) {
    let seen = (0..2400).any(|_| {
        count(log, what) > after || {
            std::thread::sleep(Duration::from_millis(50));
            false
        }
    });
    assert!(seen, "no {what:?} in {}", log.display());
}

fn files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    [
        "labels.jsonl",
        "labels.parquet",
        "report.json",
        "report.parquet",
    ]
    .iter()
    .map(|f| (f.to_string(), std::fs::read(dir.join(f)).unwrap()))
    .collect()
}

/// Seconds without a heartbeat before the scheduler takes an executor for dead. The
/// scheduler answers no heartbeat while it plans (46 s for the labels plan on a loaded
/// 2-core machine), so this is well above that; a killed executor is noticed through its
/// failed task launches and fetches first.
const EXECUTOR_TIMEOUT: &str = "90";

/// The same for the dead-executor job, which runs without the hog: its plan takes a few
/// seconds, so 20 s keeps a wide margin and the killed executor is taken for dead soon.
const KILL_EXECUTOR_TIMEOUT: &str = "20";

/// How long a cluster verb may take in these tests before it is killed and the test
/// fails naming it.
const VERB_LIMIT: Duration = Duration::from_secs(600);

/// A scheduler and `n` executors (heartbeat every second) on free loopback ports, with
/// their logs in `logs`; returns when every executor has registered.
fn cluster(
    s3: &S3Server,
    logs: &Path,
    n: usize,
    scheduler_flags: &[&str],
) -> (Proc, Vec<(Option<Proc>, std::path::PathBuf)>, String) {
    let port = free_port();
    let bind = format!("127.0.0.1:{port}");
    std::fs::create_dir_all(logs).unwrap();
    let sched_log = logs.join("scheduler.log");
    let mut args = vec!["scheduler", "--bind", &bind];
    args.extend_from_slice(scheduler_flags);
    let scheduler = spawn(s3, &sched_log, &args);
    wait_for(&sched_log, "listening", 0);
    let mut executors = Vec::new();
    for i in 0..n {
        let (p, g) = (free_port().to_string(), free_port().to_string());
        let work = logs.join(format!("work{i}"));
        std::fs::create_dir_all(&work).unwrap();
        let log = logs.join(format!("executor{i}.log"));
        let proc_ = spawn(
            s3,
            &log,
            &[
                "executor",
                "--scheduler",
                &bind,
                "--port",
                &p,
                "--grpc-port",
                &g,
                "--heartbeat",
                "1",
                "--concurrent-tasks",
                "2",
                "--work-dir",
                work.to_str().unwrap(),
            ],
        );
        executors.push((Some(proc_), log));
    }
    // Every one registered before the first job, so each can be given its tasks.
    for (_, log) in &executors {
        wait_for(log, "Executor registration succeed", 0);
    }
    (scheduler, executors, format!("df://{bind}"))
}

/// A generated project of `tasks` tasks as Parquet in the bucket at `lake/gen`.
fn project(s3: &S3Server, dir: &Path, tasks: &str) -> &'static str {
    let gen_dir = dir.join("gen");
    let r = run(
        dir,
        &[
            "gen",
            "--tasks",
            tasks,
            "--seed",
            "11",
            "--out",
            gen_dir.to_str().unwrap(),
        ],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    let pq = dir.join("pq");
    ingest(dir, &gen_dir, &pq);
    copy_dir(&pq, &s3.root.path().join("lake/gen"));
    "s3://lake/gen"
}

/// `groundcheck report -q ARGS` started in its own process group, its stderr piped.
fn spawn_report(s3: &S3Server, args: &[&str]) -> Child {
    s3.env(
        Command::new(env!("CARGO_BIN_EXE_groundcheck"))
            .args(["report", "-q"])
            .args(args),
    )
    .stdin(Stdio::null())
    .stdout(Stdio::null())
    .stderr(Stdio::piped())
    .process_group(0)
    .spawn()
    .expect("start groundcheck report")
}

/// Waits for `job` to end within `limit` (else kills it and fails), its stderr.
fn wait_job(mut job: Child, limit: Duration) -> (std::process::ExitStatus, String) {
    let started = Instant::now();
    let status = loop {
        if let Some(s) = job.try_wait().unwrap() {
            break s;
        }
        if started.elapsed() > limit {
            support::kill_group(job.id());
            let _ = job.wait();
            panic!("the cluster verb did not end within {} s", limit.as_secs());
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let mut err = String::new();
    if let Some(mut e) = job.stderr.take() {
        use std::io::Read;
        let _ = e.read_to_string(&mut err);
    }
    (status, err)
}

#[test]
fn label_and_report_on_a_cluster_equal_the_local_run_and_survive_a_dead_executor() {
    let _serial = serial();
    let Some(s3) = start() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    eprintln!(
        "cluster test folder (logs/ holds the servers' logs): {}",
        dir.display()
    );
    let data = project(&s3, dir, "300");
    let (_scheduler, executors, cluster) = cluster(
        &s3,
        &dir.join("logs"),
        2,
        &["--executor-timeout", EXECUTOR_TIMEOUT],
    );

    // Local and cluster runs of the same verbs over the same S3 project.
    for verb in ["label", "report"] {
        let local = dir.join(format!("local-{verb}"));
        s3.ok(
            dir,
            &[verb, "-q", "--data", data, "--out", local.to_str().unwrap()],
        );
        let remote = dir.join(format!("cluster-{verb}"));
        // Every core busy beside the cluster report (which labels too): it still
        // finishes, with the same bytes.
        let _hog = (verb == "report").then(cpu_hog);
        s3.ok(
            dir,
            &[
                verb,
                "-q",
                "--data",
                data,
                "--cluster",
                &cluster,
                "--partitions",
                "4",
                "--out",
                remote.to_str().unwrap(),
            ],
        );
        if verb == "report" {
            assert_eq!(
                files(&local),
                files(&remote),
                "report on the cluster differs"
            );
        } else {
            for f in ["labels.jsonl", "labels.parquet"] {
                assert!(
                    std::fs::read(local.join(f)).unwrap() == std::fs::read(remote.join(f)).unwrap(),
                    "{f} on the cluster differs"
                );
            }
        }
    }
    // Both executors took part (4 partitions, 2 task slots each).
    for (_, log) in &executors {
        assert!(
            count(log, "Execute task") > 0,
            "{} ran no task",
            log.display()
        );
    }

    // Kill the executor that takes the first task of a new job: the scheduler runs its
    // work again on the other, and the result is the same. On a cluster of its own,
    // without the CPU hog: the scheduler stops waiting on the dead executor's tasks only
    // when it takes it for dead, and the timeout sized for planning under load would
    // make that wait a minute and a half.
    drop(executors);
    drop(_scheduler);
    let (_scheduler, mut executors, cluster) = crate::cluster(
        &s3,
        &dir.join("logs-kill"),
        2,
        &["--executor-timeout", KILL_EXECUTOR_TIMEOUT],
    );
    let killed = dir.join("killed");
    let before: Vec<usize> = executors
        .iter()
        .map(|(_, log)| count(log, "Execute task"))
        .collect();
    let mut job = spawn_report(
        &s3,
        &[
            "--data",
            data,
            "--cluster",
            &cluster,
            "--partitions",
            "4",
            "--out",
            killed.to_str().unwrap(),
        ],
    );
    let first = (0..2400)
        .find_map(|_| {
            let busy = executors
                .iter()
                .zip(&before)
                .position(|((_, log), n)| count(log, "Execute task") > *n);
            if busy.is_none() {
                std::thread::sleep(Duration::from_millis(50));
            }
            busy
        })
        .expect("no executor was given a task of the job within 2 minutes");
    let victim = executors[first].0.take().unwrap();
    drop(victim);
    assert!(
        job.try_wait().unwrap().is_none(),
        "the job ended before an executor could be killed under it"
    );
    let survivor = &executors[1 - first].1;
    let survivor_before = count(survivor, "Execute task");
    let (status, stderr) = wait_job(job, VERB_LIMIT);
    assert!(status.success(), "{stderr}");
    assert_eq!(files(&dir.join("local-report")), files(&killed));
    assert!(
        count(survivor, "Execute task") > survivor_before,
        "{} ran nothing after the other executor died",
        survivor.display()
    );
}

#[test]
fn a_cluster_needs_parquet_and_keeps_the_oracle_local() {
    let _serial = serial();
    let tmp = tempfile::tempdir().unwrap();
    let demo = support::demo();
    let r = run(
        tmp.path(),
        &[
            "label",
            "--data",
            demo.to_str().unwrap(),
            "--cluster",
            "df://127.0.0.1:1",
        ],
    );
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.contains("table cases is JSON lines at")
            && r.stderr.contains("a cluster reads Parquet"),
        "{}",
        r.stderr
    );
}

#[test]
fn standalone_equals_local() {
    let _serial = serial();
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let pq = dir.join("pq");
    ingest(dir, &support::demo(), &pq);
    for (name, extra) in [
        ("local", vec![]),
        ("standalone", vec!["--standalone", "--partitions", "2"]),
    ] {
        let mut args = vec!["report", "-q", "--data", pq.to_str().unwrap(), "--out"];
        let out = dir.join(name);
        args.push(out.to_str().unwrap());
        args.extend(extra);
        let r = run(dir, &args);
        assert_eq!(r.code, 0, "{}", r.stderr);
    }
    assert_eq!(files(&dir.join("local")), files(&dir.join("standalone")));
    // The oracle's findings live in memory on this machine: not with a cluster.
    let r = run(
        dir,
        &[
            "label",
            "--data",
            pq.to_str().unwrap(),
            "--standalone",
            "--policy-oracle",
            "true",
            "--out",
            dir.join("o").to_str().unwrap(),
        ],
    );
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.contains("--policy-oracle runs on this machine"),
        "{}",
        r.stderr
    );
}

#[test]
fn an_unreachable_scheduler_is_one_sentence() {
    let _serial = serial();
    // Ballista's client reports a refused connection as tonic's debug dump.
    let tmp = tempfile::tempdir().unwrap();
    let r = support::run(
        tmp.path(),
        &[
            "sql",
            "--data",
            ".",
            "--cluster",
            "df://127.0.0.1:1",
            "SELECT 1",
        ],
    );
    // The cluster is upstream: exit 3.
    assert_eq!(r.code, 3, "{}", r.stderr);
    assert_eq!(
        r.stderr.trim_end(),
        "error: cannot reach the Ballista scheduler at 127.0.0.1:1: Connection refused \
         (start one with `groundcheck scheduler`, or check --cluster)"
    );
}

#[test]
fn a_frozen_cluster_ends_the_verb_with_a_sentence() {
    let _serial = serial();
    let Some(s3) = start() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let data = project(&s3, dir, "300");
    // Executors taken for dead after 5 s without a heartbeat; a running job then waits
    // 5 s for one to come back before the scheduler fails it.
    let (_scheduler, executors, cluster) = cluster(
        &s3,
        &dir.join("logs"),
        1,
        &["--executor-timeout", "5", "--no-executor-grace", "5"],
    );
    let log = &executors[0].1;
    let before = count(log, "Execute task");
    let job = spawn_report(
        &s3,
        &[
            "--data",
            data,
            "--cluster",
            &cluster,
            "--cluster-wait",
            "10",
            "--out",
            dir.join("frozen").to_str().unwrap(),
        ],
    );
    // Freeze the executor once it runs a task of the job.
    wait_for(log, "Execute task", before);
    let pid = executors[0].0.as_ref().unwrap().0.id() as i32;
    // SAFETY: kill(2) on the executor's process group; no memory is touched.
    unsafe {
        libc::kill(-pid, libc::SIGSTOP);
    }
    let frozen_at = Instant::now();
    let (status, stderr) = wait_job(job, Duration::from_secs(240));
    let took = frozen_at.elapsed();
    // SAFETY: as above; the executor is then killed by its Proc's drop.
    unsafe {
        libc::kill(-pid, libc::SIGCONT);
    }
    assert_eq!(status.code(), Some(3), "{stderr}");
    let said = stderr.trim_end();
    assert!(
        said.lines().count() == 1
            && said.starts_with("error: ")
            && (said.contains("no executor alive on the Ballista scheduler")
                || said.contains("lost every executor")),
        "not one sentence about the executors: {said}"
    );
    // Its outputs are not written.
    assert!(!dir.join("frozen/report.json").exists());
    eprintln!(
        "the frozen cluster ended the verb {} s after the freeze",
        took.as_secs()
    );
    // Thawed, the executor the scheduler took for dead joins the cluster again (it
    // registers anew), and the next job runs on it to the end.
    let job = spawn_report(
        &s3,
        &[
            "--data",
            data,
            "--cluster",
            &cluster,
            "--cluster-wait",
            "60",
            "--out",
            dir.join("thawed").to_str().unwrap(),
        ],
    );
    let (status, stderr) = wait_job(job, Duration::from_secs(300));
    assert_eq!(status.code(), Some(0), "after the thaw: {stderr}");
    assert!(dir.join("thawed/report.json").exists());
    eprintln!(
        "after the thaw: {} registration(s) of the executor, {} re-registration(s) logged",
        count(log, "Executor registration succeed"),
        count(log, "registering again")
    );
}
