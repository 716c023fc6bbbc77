#!/usr/bin/env python3
"""groundcheck locally beside groundcheck on a Ballista cluster, in one run (issue 11).

For each size: `groundcheck gen` writes a project and `groundcheck ingest` makes it
Parquet; then `groundcheck report` (label every task, then the report) runs
  local    in one process
  cluster  on `groundcheck scheduler` + two `groundcheck executor` processes on this
           machine (--partitions 4)
timed by wall clock, with the peak resident memory of the client (GNU time) and of each
executor (VmHWM). Checks that both wrote the same bytes. With --write, appends the table
to benches/RESULTS.md.

    python3 benches/cluster.py --sizes 1000,10000 [--write]

Builds groundcheck in release. On one machine the cluster is expected to be slower (every
shuffle crosses Arrow Flight and disk): the point is the same bytes and the way past one
machine's memory.
"""
import argparse
import datetime
import filecmp
import os
import platform
import socket
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def timed(cmd):
    """Wall seconds and peak RSS (MiB) of cmd, via GNU time."""
    with tempfile.NamedTemporaryFile("r", suffix=".time") as t:
        start = time.monotonic()
        subprocess.run(["/usr/bin/time", "-f", "%M", "-o", t.name] + cmd, check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wall = time.monotonic() - start
        return wall, int(open(t.name).read().strip().splitlines()[-1]) / 1024


def vm_hwm(pid):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return 0.0


def wait_port(port):
    for _ in range(400):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.05)
    raise SystemExit(f"nothing listens on {port}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="1000,10000")
    ap.add_argument("--seed", default="7")
    ap.add_argument("--write", action="store_true")
    args = ap.parse_args()
    target = os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target"))
    subprocess.run(["cargo", "build", "--release", "--quiet"], cwd=ROOT, check=True)
    gc = os.path.join(target, "release", "groundcheck")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in [int(s) for s in args.sizes.split(",")]:
            gen, pq = os.path.join(tmp, f"gen{n}"), os.path.join(tmp, f"pq{n}")
            subprocess.run([gc, "gen", "--tasks", str(n), "--seed", args.seed, "--out", gen],
                           check=True, stderr=subprocess.DEVNULL)
            subprocess.run([gc, "ingest", "-q", "--data", gen, "--out", pq], check=True,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            local_out, cluster_out = os.path.join(tmp, f"local{n}"), os.path.join(tmp, f"cluster{n}")
            local = timed([gc, "report", "-q", "--data", pq, "--out", local_out])
            port = free_port()
            logs = open(os.path.join(tmp, "cluster.log"), "w")
            procs = [subprocess.Popen([gc, "scheduler", "--bind", f"127.0.0.1:{port}"],
                                      stderr=logs, stdout=logs)]
            wait_port(port)
            for _ in range(2):
                procs.append(subprocess.Popen(
                    [gc, "executor", "--scheduler", f"127.0.0.1:{port}", "--port", str(free_port()),
                     "--grpc-port", str(free_port()), "--concurrent-tasks", "2",
                     "--work-dir", tempfile.mkdtemp(dir=tmp)], stderr=logs, stdout=logs))
            try:
                cluster = timed([gc, "report", "-q", "--data", pq, "--cluster", f"df://127.0.0.1:{port}",
                                 "--partitions", "4", "--out", cluster_out])
                executors = [vm_hwm(p.pid) for p in procs[1:]]
            finally:
                for p in procs:
                    p.kill()
                    p.wait()
            same = all(filecmp.cmp(os.path.join(local_out, f), os.path.join(cluster_out, f), shallow=False)
                       for f in ["labels.jsonl", "labels.parquet", "report.json", "report.parquet"])
            rows.append((n, local, cluster, executors, same))
            print(f"{n} tasks: local {local[0]:.1f} s / {local[1]:.0f} MiB, cluster {cluster[0]:.1f} s "
                  f"(client {cluster[1]:.0f} MiB, executors {' + '.join(f'{e:.0f}' for e in executors)} MiB), "
                  f"same bytes: {same}", flush=True)
    machine = f"{os.cpu_count()} cores ({platform.processor() or platform.machine()}), Linux {platform.release()}"
    try:
        mem = int(open("/proc/meminfo").readline().split()[1]) / 1024 / 1024
        machine += f", {mem:.0f} GiB"
    except OSError:
        pass
    table = [f"## {datetime.date.today()} — cluster beside local: {machine}", "",
             "`python3 benches/cluster.py`: `report` (label + report) over the same Parquet, in one "
             "process and on a scheduler with two executors on this machine (`--partitions 4`).", "",
             "| tasks | local s | local peak MiB | cluster s | client peak MiB | executors peak MiB | cluster / local | same bytes |",
             "|---:|---:|---:|---:|---:|---:|---:|---|"]
    for n, local, cluster, executors, same in rows:
        table.append(f"| {n} | {local[0]:.1f} | {local[1]:.0f} | {cluster[0]:.1f} | {cluster[1]:.0f} | "
                     f"{' + '.join(f'{e:.0f}' for e in executors)} | {cluster[0] / local[0]:.1f}x | {same} |")
    print("\n".join(table))
    if args.write:
        with open(os.path.join(HERE, "RESULTS.md"), "a") as f:
            f.write("\n" + "\n".join(table) + "\n")
    if not all(r[4] for r in rows):
        sys.exit("the cluster wrote different bytes")


if __name__ == "__main__":
    main()
