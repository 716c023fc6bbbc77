"""A real Strands agent (strands-agents) calling the real fastmcp warehouse server over
stdio through Strands' own MCPClient, its model Strands' OpenAIModel on the real `openai`
client whose transport answers from the script (openai_scripted.py; no LLM), traced by
Strands' own OpenTelemetry GenAI spans. `--semconv legacy` (the default) puts the
messages in per-message span events (conventions 1.36); `--semconv latest` sets
OTEL_SEMCONV_STABILITY_OPT_IN=gen_ai_latest_experimental, which puts them in
`gen_ai.client.inference.operation.details` events and the tool's arguments and result in
span attributes.

The server runs under GC_SERVER_PYTHON (the producers venv: Strands pins an older MCP SDK
than fastmcp 4 needs). Prints one JSON line per conversation: {"conversation",
"trace_id"}."""

import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
import otel_setup  # noqa: E402
import scenarios  # noqa: E402

p = argparse.ArgumentParser()
p.add_argument("--spans-file")
p.add_argument("--seed", default="strands")
p.add_argument("--semconv", choices=["legacy", "latest"], default="legacy")
args = p.parse_args()
if args.semconv == "latest":
    os.environ["OTEL_SEMCONV_STABILITY_OPT_IN"] = "gen_ai_latest_experimental"

provider = otel_setup.setup("strands-agent", args.seed, args.spans_file)

from mcp import StdioServerParameters, stdio_client  # noqa: E402
from openai import AsyncOpenAI  # noqa: E402
from opentelemetry import trace  # noqa: E402
from strands import Agent  # noqa: E402
from strands.models.openai import OpenAIModel  # noqa: E402
from strands.tools.mcp import MCPClient  # noqa: E402

import openai_scripted  # noqa: E402

tracer = trace.get_tracer("groundcheck-producer")
for conv in scenarios.CONVERSATIONS:
    python, server_args, env = scenarios.warehouse_server(conv, args.seed)
    params = StdioServerParameters(command=python, args=server_args, env=env)
    mcp = MCPClient(lambda: stdio_client(params))
    client = AsyncOpenAI(api_key="scripted", base_url="http://model.invalid/v1",
                         http_client=openai_scripted.async_client(conv))
    model = OpenAIModel(client=client, model_id=scenarios.MODEL, stream=False)
    with tracer.start_as_current_span("handle question", attributes=scenarios.root_attributes(conv)) as root:
        trace_id = format(root.get_span_context().trace_id, "032x")
        with mcp:
            agent = Agent(model=model, tools=mcp.list_tools_sync(), callback_handler=None,
                          system_prompt="Answer from the warehouse.")
            result = agent(conv["question"])
            if conv.get("reply"):
                result = agent(conv["reply"])
    print(json.dumps({"conversation": conv["name"], "trace_id": trace_id, "output": str(result).strip()}), flush=True)
provider.force_flush()
provider.shutdown()
