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
from mcp.shared.exceptions import McpError

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(ROOT, "tests/fixtures/drift-corpus")
CACHE = os.path.expanduser("~/.cache/groundcheck/drift-corpus")

# server: (registry, package, args, env, versions). Six servers from the first corpus, then
# nineteen more (TypeScript, Python and C#); the text review is tuned on the servers not in
# HELD_OUT and its rates are reported on HELD_OUT (written to split.tsv with the captures).
# Keys are dummies: the servers list their tools without calling their services.
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
    "playwright": ("npm", "@playwright/mcp", [], {},
                   ["0.0.10", "0.0.20", "0.0.30", "0.0.40", "0.0.50", "0.0.60", "0.0.70", "0.0.86"]),
    "context7": ("npm", "@upstash/context7-mcp", [], {},
                 ["1.0.0", "1.0.14", "1.0.33", "2.0.0", "3.0.0", "4.0.0", "4.1.1"]),
    "github": ("npm", "@modelcontextprotocol/server-github", [], {"GITHUB_PERSONAL_ACCESS_TOKEN": "dummy"},
               ["0.6.2", "2025.1.23", "2025.3.19", "2025.3.28", "2025.4.8"]),
    "firecrawl": ("npm", "firecrawl-mcp", [], {"FIRECRAWL_API_KEY": "fc-dummy"},
                  ["1.3.0", "1.12.0", "2.0.2", "3.1.13", "3.11.0", "3.26.0"]),
    "kubernetes": ("npm", "mcp-server-kubernetes", [], {}, ["2.9.6", "4.1.2", "4.1.7"]),
    "slack": ("npm", "@modelcontextprotocol/server-slack", [], {"SLACK_BOT_TOKEN": "xoxb-dummy", "SLACK_TEAM_ID": "T0"},
              ["2025.1.17", "2025.4.25"]),
    "git": ("pypi", "mcp-server-git", [], {},
            ["0.6.2", "2025.7.1", "2025.11.25", "2026.1.14", "2026.6.4", "2026.10.19"]),
    "aws-documentation": ("pypi", "awslabs.aws-documentation-mcp-server", [], {},
                          ["0.1.0", "1.0.0", "1.1.0", "1.1.15", "1.2.0", "1.2.3"]),
    "duckduckgo": ("pypi", "duckduckgo-mcp-server", [], {}, ["0.1.0", "0.3.0", "0.5.0", "0.7.0"]),
    "sqlite": ("pypi", "mcp-server-sqlite", ["--db-path", "{tmp}/t.db"], {}, ["0.5.0", "0.6.2", "2025.1.14", "2025.4.25"]),
    # Held out: never looked at while the text review was tuned.
    "tavily": ("npm", "tavily-mcp", [], {"TAVILY_API_KEY": "tvly-dummy"}, ["0.1.4", "0.2.3", "0.2.10", "0.2.16", "0.2.22"]),
    "exa": ("npm", "exa-mcp-server", [], {"EXA_API_KEY": "dummy"}, ["0.1.1", "2.1.1", "3.0.5", "3.2.1", "3.4.1"]),
    "notion": ("npm", "@notionhq/notion-mcp-server", [], {"NOTION_TOKEN": "ntn_dummy"},
               ["1.8.0", "1.9.1", "2.0.0", "2.2.1", "2.5.2"]),
    "chrome-devtools": ("npm", "chrome-devtools-mcp", [], {},
                        ["0.2.6", "0.6.0", "0.10.1", "0.17.0", "0.26.0", "1.5.0", "1.11.0"]),
    "desktop-commander": ("npm", "@wonderwhy-er/desktop-commander", [], {},
                          ["0.1.19", "0.2.3", "0.2.16", "0.2.30", "0.2.44", "0.2.52"]),
    "azure": ("npm", "@azure/mcp", ["server", "start"], {}, ["2.0.5", "3.0.0-beta.25", "3.0.0-beta.46"]),
    "arxiv": ("pypi", "arxiv-mcp-server", ["--storage-path", "{tmp}"], {}, ["0.2.0", "0.3.0", "0.4.0", "0.6.0", "0.8.2"]),
    "motherduck": ("pypi", "mcp-server-motherduck", ["--db-path", ":memory:"], {}, ["0.3", "0.5.1", "0.7.0", "1.0.0", "1.1.0"]),
    "aws-pricing": ("pypi", "awslabs.aws-pricing-mcp-server", [], {}, ["1.0.1", "1.0.15", "1.0.30", "1.1.1"]),
    # Servers written in Chinese (2026-12-06): how the review, and text-language above all,
    # reads a server whose own language is not English. Held out.
    "howtocook": ("npm", "howtocook-mcp", [], {}, ["0.2.1", "0.2.2"]),
    "amap": ("npm", "@amap/amap-maps-mcp-server", [], {"AMAP_MAPS_API_KEY": "dummy"}, ["0.0.8"]),
    "baidu-map": ("npm", "@baidumap/mcp-server-baidu-map", [], {"BAIDU_MAP_API_KEY": "dummy"}, ["1.0.5"]),
    # Captured 2026-12-07, after the text model's block was chosen, and measured once:
    # the latest version of servers nobody here had read (no pairs, so no verdicts to
    # check by hand; their strings count as held-out benign wording). Held out. Tried and
    # left out, as they cannot start here without the network beyond the registries:
    # server-puppeteer and @executeautomation/playwright-mcp-server (a browser download),
    # @stripe/mcp (forwards to mcp.stripe.com), mcp-mermaid and server-everart (their
    # installs fetch more), mcp-server-qdrant (connects to Qdrant's model host at start).
    "brave-search": ("npm", "@modelcontextprotocol/server-brave-search", [], {"BRAVE_API_KEY": "dummy"}, ["0.6.2"]),
    "google-maps": ("npm", "@modelcontextprotocol/server-google-maps", [], {"GOOGLE_MAPS_API_KEY": "dummy"}, ["0.6.2"]),
    "gitlab": ("npm", "@modelcontextprotocol/server-gitlab", [], {"GITLAB_PERSONAL_ACCESS_TOKEN": "dummy"},
               ["2025.4.25"]),
    "youtube-transcript": ("npm", "@kimtaeyoon83/mcp-server-youtube-transcript", [], {}, ["0.1.1"]),
    "aws-kb-retrieval": ("npm", "@modelcontextprotocol/server-aws-kb-retrieval", [],
                         {"AWS_ACCESS_KEY_ID": "dummy", "AWS_SECRET_ACCESS_KEY": "dummy", "AWS_REGION": "us-east-1"},
                         ["0.6.2"]),
    "sentry": ("npm", "@sentry/mcp-server", ["--access-token=dummy"], {}, ["0.39.0"]),
    "hubspot": ("npm", "@hubspot/mcp-server", [], {"PRIVATE_APP_ACCESS_TOKEN": "dummy"}, ["0.4.0"]),
    "excel": ("pypi", "excel-mcp-server", ["stdio"], {"EXCEL_FILES_PATH": "{tmp}"}, ["2.2.2"]),
    "wikipedia": ("pypi", "wikipedia-mcp", [], {}, ["2.0.1"]),
    "calculator": ("pypi", "mcp-server-calculator", [], {}, ["0.2.1"]),
    "obsidian": ("pypi", "mcp-obsidian", [], {"OBSIDIAN_API_KEY": "dummy"}, ["0.2.3"]),
    "pandoc": ("pypi", "mcp-pandoc", [], {}, ["0.11.1"]),
    # Captured 2026-12-07 (thirty-eighth session), latest version each, and split before
    # anyone read them by the first byte of SHA-256(name): even tunes, odd is held out.
    # The tune half gives the rules' false stops on new servers something to be tuned on;
    # the held-out half is measured once. Tried and left out: @supabase/mcp-server-supabase
    # (fetches its API at start), @neondatabase/mcp-server-neon and @heroku/mcp-server (the
    # installs as of their publish time fail or miss a module), markitdown-mcp (a dependency
    # published minutes after it), mcp-server-docker and mcp-text-editor (need Python 3.12
    # and 3.13; the capture runs 3.11).
    "mongodb": ("npm", "mongodb-mcp-server", [], {}, ["3.0.4"]),
    "airtable": ("npm", "airtable-mcp-server", [], {"AIRTABLE_API_KEY": "dummy"}, ["1.14.0"]),
    "figma": ("npm", "figma-developer-mcp", ["--stdio"], {"FIGMA_API_KEY": "dummy"}, ["0.13.2"]),
    "code-runner": ("npm", "mcp-server-code-runner", [], {}, ["0.1.8"]),
    "lara": ("npm", "@translated/lara-mcp", [], {"LARA_ACCESS_KEY_ID": "dummy", "LARA_ACCESS_KEY_SECRET": "dummy"},
             ["1.0.6"]),
    "taskmanager": ("npm", "@kazuph/mcp-taskmanager", [], {}, ["1.1.1"]),
    "linear": ("npm", "@tacticlaunch/mcp-linear", [], {"LINEAR_API_TOKEN": "dummy"}, ["1.4.3"]),
    "shopify-dev": ("npm", "@shopify/dev-mcp", [], {}, ["1.16.0"]),
    "blender": ("pypi", "blender-mcp", [], {}, ["2.0.0"]),
    "clickhouse": ("pypi", "mcp-clickhouse", [], {"CLICKHOUSE_HOST": "localhost", "CLICKHOUSE_USER": "default",
                                                  "CLICKHOUSE_PASSWORD": ""}, ["0.7.0"]),
    "cloudwatch": ("pypi", "awslabs.cloudwatch-mcp-server", [], {"AWS_REGION": "us-east-1"}, ["0.3.1"]),
    "dynamodb": ("pypi", "awslabs.dynamodb-mcp-server", [], {"AWS_REGION": "us-east-1"}, ["2.1.8"]),
    "atlassian": ("pypi", "mcp-atlassian", [], {"JIRA_URL": "https://example.atlassian.net", "JIRA_USERNAME": "a@b.c",
                                               "JIRA_API_TOKEN": "dummy", "CONFLUENCE_URL": "https://example.atlassian.net/wiki",
                                               "CONFLUENCE_USERNAME": "a@b.c", "CONFLUENCE_API_TOKEN": "dummy"},
                  ["0.23.1"]),
    "yfinance": ("pypi", "yfinance-mcp", [], {}, ["0.1.2"]),
    "tree-sitter": ("pypi", "mcp-server-tree-sitter", [], {}, ["0.7.0"]),
    "neo4j-cypher": ("pypi", "mcp-neo4j-cypher", [], {"NEO4J_URI": "bolt://localhost:7687", "NEO4J_PASSWORD": "dummy"},
                     ["0.6.0"]),
}
# The split lives in the corpus (split.tsv) so the Rust tests read the same one.
HELD_OUT = ["tavily", "exa", "notion", "chrome-devtools", "desktop-commander", "azure", "arxiv", "motherduck",
            "aws-pricing", "howtocook", "amap", "baidu-map", "brave-search", "google-maps", "gitlab",
            "youtube-transcript", "aws-kb-retrieval", "sentry", "hubspot", "excel", "wikipedia",
            "calculator", "obsidian", "pandoc", "figma", "lara", "linear", "dynamodb", "atlassian",
            "yfinance", "tree-sitter", "neo4j-cypher"]


def published(registry, package, version):
    if registry == "npm":
        times = json.loads(subprocess.run(["npm", "view", package, "time", "--json"], capture_output=True,
                                          text=True, check=True).stdout)
        return times[version]
    # The simple index (PEP 691 JSON) names each file's upload time.
    index = json.loads(subprocess.run(
        ["curl", "-sf", "-H", "Accept: application/vnd.pypi.simple.v1+json",
         f"{os.environ.get('PIP_INDEX_URL', 'https://pypi.org/simple').rstrip('/')}/{package}/"],
        capture_output=True, text=True, check=True).stdout)
    stem = package.replace("-", "_").replace(".", "_")
    times = [f["upload-time"] for f in index["files"]
             if f["filename"].lower().startswith(f"{stem}-{version}-".lower())
             or f["filename"].lower() in (f"{stem}-{version}.tar.gz".lower(), f"{package}-{version}.tar.gz")]
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
    script = os.path.join(d, "bin", package)
    if os.path.exists(script):
        return [script], {"exclude_newer": before}
    return [py, "-m", package.replace("-", "_")], {"exclude_newer": before}


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
                    try:
                        res = await call(cursor) if cursor else await call()
                    except McpError as e:
                        # A capability offered but the list not implemented (some servers
                        # declare resources without templates): recorded as empty.
                        if e.error.code == -32601:
                            return
                        raise
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
    ap.add_argument("--refresh", action="store_true", help="capture again versions already captured")
    a = ap.parse_args()
    jobs = []
    for server, (_, _, _, _, versions) in SERVERS.items():
        if a.only and server != a.only:
            continue
        for v in ([versions[-1]] if a.control else versions):
            done = os.path.join(OUT, server, f"{v}{'.control' if a.control else ''}.json")
            if a.refresh or not os.path.exists(done):
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
    with open(os.path.join(OUT, "split.tsv"), "w") as f:
        f.write("# server\tsplit: the text review is tuned on 'tune' and measured on 'held-out'\n")
        for server in sorted(SERVERS):
            f.write(f"{server}\t{'held-out' if server in HELD_OUT else 'tune'}\n")
    sys.exit(1 if failed else 0)


main()
