"""Captures the surface of published MCP server versions for the drift corpus: each
version installed from its registry as it was when published (npm: `--before` its
publish time, so dependencies resolve as they did then; PyPI: uv's `--exclude-newer`),
started over stdio and read by the official MCP Python SDK client: initialize (server
info, capabilities, instructions), tools/list, prompts/list, resources/list and
resources/templates/list, every page. One file per version:
tests/fixtures/drift-corpus/SERVER/VERSION.json ({"server", "version", "package",
"installed", "initialize", "tools", "prompts", "resources", "resourceTemplates"}), which
`groundcheck drift` reads as a tools/list result. `--control` captures a version a
second time from a fresh install (SERVER/VERSION.control.json): identical controls.

  python capture.py [--only SERVER] [--control] [--jobs 3]

Run with the `openllmetry` venv's python (mcp 1.x); installs are cached under
~/.cache/groundcheck/drift-corpus."""

import argparse
import asyncio
import concurrent.futures
import datetime
import json
import os
import shutil
import subprocess
import sys
import tempfile

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(ROOT, "tests/fixtures/drift-corpus")
CACHE = os.path.expanduser("~/.cache/groundcheck/drift-corpus")

# server: (registry, package, args, env, versions)
SERVERS = {
    "filesystem": ("npm", "@modelcontextprotocol/server-filesystem", ["{tmp}"], {},
                   ["0.6.2", "2025.1.14", "2025.3.28", "2025.7.1", "2025.7.29", "2025.8.18", "2025.8.21",
                    "2025.11.25", "2025.12.18", "2026.1.14", "2026.7.4", "2026.7.10", "2026.8.31"]),
    "memory": ("npm", "@modelcontextprotocol/server-memory", [], {"MEMORY_FILE_PATH": "{tmp}/memory.json"},
               ["0.6.2", "2025.4.25", "2025.8.4", "2025.9.25", "2025.11.25", "2026.1.26", "2026.7.4", "2026.8.31"]),
    "everything": ("npm", "@modelcontextprotocol/server-everything", ["stdio"], {},
                   ["2025.7.1", "2025.7.29", "2025.8.4", "2025.8.18", "2025.9.12", "2025.9.25", "2025.11.25",
                    "2025.12.18", "2026.1.14", "2026.1.26", "2026.7.4", "2026.8.18", "2026.8.31"]),
    "sequential-thinking": ("npm", "@modelcontextprotocol/server-sequential-thinking", [], {},
                            ["0.6.2", "2025.7.1", "2025.11.25", "2025.12.18", "2026.7.4", "2026.8.31"]),
    "time": ("pypi", "mcp-server-time", ["--local-timezone", "UTC"], {},
             ["0.6.2", "2025.7.1", "2025.8.4", "2025.9.25", "2026.1.26", "2026.6.4", "2026.7.10", "2026.8.18",
              "2026.10.10", "2026.10.19"]),
    "fetch": ("pypi", "mcp-server-fetch", [], {},
              ["0.6.2", "2025.1.17", "2025.4.7", "2026.6.4", "2026.7.10", "2026.8.18", "2026.10.10", "2026.10.24"]),
}


def published(registry, package, version):
    if registry == "npm":
        times = json.loads(subprocess.run(["npm", "view", package, "time", "--json"], capture_output=True,
                                          text=True, check=True).stdout)
        return times[version]
    # The simple index (PEP 691 JSON) names each file's upload time.
    index = json.loads(subprocess.run(
        ["curl", "-sf", "-H", "Accept: application/vnd.pypi.simple.v1+json",
         f"https://pypi.org/simple/{package}/"], capture_output=True, text=True, check=True).stdout)
    stem = package.replace("-", "_")
    times = [f["upload-time"] for f in index["files"]
             if f["filename"].startswith(f"{stem}-{version}-") or f["filename"] == f"{stem}-{version}.tar.gz"]
    return min(times)


def install(registry, package, version, fresh):
    """(command, argv prefix, what was installed)."""
    when = published(registry, package, version)
    t = datetime.datetime.fromisoformat(when.replace("Z", "+00:00")) + datetime.timedelta(minutes=5)
    before = t.strftime("%Y-%m-%dT%H:%M:%SZ")
    d = os.path.join(CACHE, registry, f"{package.replace('/', '+')}@{version}" + ("-control" if fresh else ""))
    if fresh and os.path.exists(d):
        shutil.rmtree(d)
    if registry == "npm":
        entry = os.path.join(d, "node_modules", package, "package.json")
        if not os.path.exists(entry):
            os.makedirs(d, exist_ok=True)
            subprocess.run(["npm", "install", "--prefix", d, "--no-audit", "--no-fund", "--loglevel", "error",
                            f"--before={before}", f"{package}@{version}"] + (["--prefer-online"] if fresh else []),
                           check=True, stdout=subprocess.DEVNULL)
        meta = json.load(open(entry))
        b = meta["bin"]
        rel = b if isinstance(b, str) else next(iter(b.values()))
        return ["node", os.path.join(d, "node_modules", package, rel)], {"before": before}
    py = os.path.join(d, "bin", "python")
    if not os.path.exists(py):
        uv = shutil.which("uv") or os.path.join(os.path.dirname(sys.executable), "uv")
        subprocess.run([uv, "venv", "-q", "--python", sys.executable, d], check=True)
        subprocess.run([uv, "pip", "install", "-q", "--python", py, "--exclude-newer", before,
                        f"{package}=={version}"] + (["--refresh"] if fresh else []), check=True)
    module = package.replace("-", "_")
    return [py, "-m", module], {"exclude_newer": before}


def dump(x):
    return x.model_dump(mode="json", by_alias=True, exclude_none=True)


async def read(cmd, args, env):
    params = StdioServerParameters(command=cmd[0], args=cmd[1:] + args, env={**os.environ, **env})
    async with stdio_client(params) as (r, w):
        async with ClientSession(r, w) as s:
            init = await s.initialize()
            caps = init.capabilities
            out = {"initialize": dump(init), "tools": [], "prompts": [], "resources": [], "resourceTemplates": []}

            async def pages(call, key):
                cursor = None
                while True:
                    res = await call(cursor) if cursor else await call()
                    out[key].extend(dump(x) for x in getattr(res, key))
                    cursor = res.nextCursor
                    if not cursor:
                        break

            if caps.tools:
                await pages(lambda c=None: s.list_tools(cursor=c) if c else s.list_tools(), "tools")
            if caps.prompts:
                await pages(lambda c=None: s.list_prompts(cursor=c) if c else s.list_prompts(), "prompts")
            if caps.resources:
                await pages(lambda c=None: s.list_resources(cursor=c) if c else s.list_resources(), "resources")
                await pages(lambda c=None: s.list_resource_templates(cursor=c) if c else s.list_resource_templates(),
                            "resourceTemplates")
            return out


def capture(server, version, control):
    registry, package, args, env, _ = SERVERS[server]
    cmd, installed = install(registry, package, version, control)
    with tempfile.TemporaryDirectory() as tmp:
        args = [a.replace("{tmp}", tmp) for a in args]
        env = {k: v.replace("{tmp}", tmp) for k, v in env.items()}
        got = asyncio.run(asyncio.wait_for(read(cmd, args, env), 120))
    doc = {"server": server, "version": version, "package": package, "registry": registry,
           "installed": installed, **got}
    os.makedirs(os.path.join(OUT, server), exist_ok=True)
    path = os.path.join(OUT, server, f"{version}{'.control' if control else ''}.json")
    with open(path + ".tmp", "w") as f:
        json.dump(doc, f, indent=1, sort_keys=True)
        f.write("\n")
    os.replace(path + ".tmp", path)
    return path, len(doc["tools"])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--only")
    ap.add_argument("--control", action="store_true", help="capture the last version again, freshly installed")
    ap.add_argument("--jobs", type=int, default=3)
    a = ap.parse_args()
    jobs = []
    for server, (_, _, _, _, versions) in SERVERS.items():
        if a.only and server != a.only:
            continue
        for v in ([versions[-1]] if a.control else versions):
            jobs.append((server, v, a.control))
    failed = 0
    with concurrent.futures.ThreadPoolExecutor(a.jobs) as ex:
        futs = {ex.submit(capture, *j): j for j in jobs}
        for f in concurrent.futures.as_completed(futs):
            try:
                path, n = f.result()
                print(f"{os.path.relpath(path, ROOT)}: {n} tools", flush=True)
            except Exception as e:  # noqa: BLE001
                failed += 1
                print(f"{futs[f]}: FAILED {e!r}", file=sys.stderr, flush=True)
    sys.exit(1 if failed else 0)


main()
