"""A real openai-agents agent calling the real fastmcp warehouse server over stdio
(`agents.mcp.MCPServerStdio`), its model the real `AsyncOpenAI` client whose HTTP
transport answers chat.completions from the script (openai_scripted.py; no LLM), traced by OpenInference's
openai-agents instrumentation (exclusive: nothing goes to OpenAI's trace backend).

Prints one JSON line per conversation: {"conversation", "trace_id"}."""

import argparse
import asyncio
import json
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
import otel_setup  # noqa: E402
import scenarios  # noqa: E402

p = argparse.ArgumentParser()
p.add_argument("--spans-file")
p.add_argument("--seed", default="openai-agents")
args = p.parse_args()

provider = otel_setup.setup("openai-agents-agent", args.seed, args.spans_file)

from agents import Agent, OpenAIChatCompletionsModel, Runner  # noqa: E402
from agents.mcp import MCPServerStdio  # noqa: E402
from openai import AsyncOpenAI  # noqa: E402
from openinference.instrumentation.openai_agents import OpenAIAgentsInstrumentor  # noqa: E402
from opentelemetry import trace  # noqa: E402

import openai_scripted  # noqa: E402

OpenAIAgentsInstrumentor().instrument(tracer_provider=provider)


async def main():
    tracer = trace.get_tracer("groundcheck-producer")
    for conv in scenarios.CONVERSATIONS:
        client = AsyncOpenAI(
            api_key="scripted", base_url="http://model.invalid/v1",
            http_client=openai_scripted.async_client(conv),
        )
        server = MCPServerStdio(
            params={
                "command": sys.executable,
                "args": [os.path.join(os.path.dirname(__file__), "warehouse_server.py")],
                "env": {**os.environ, "GC_SERVER_NAME": conv["server"],
                 # Span ids are seeded per server process: unique across processes.
                 "GC_ID_SEED": f"{args.seed}-{conv['name']}"},
            },
            name=conv["server"],
        )
        with tracer.start_as_current_span("handle question", attributes=scenarios.root_attributes(conv)) as root:
            trace_id = format(root.get_span_context().trace_id, "032x")
            async with server:
                agent = Agent(
                    name="analyst",
                    instructions="Answer from the warehouse.",
                    model=OpenAIChatCompletionsModel(model=scenarios.MODEL, openai_client=client),
                    mcp_servers=[server],
                )
                result = await Runner.run(agent, conv["question"])
                if conv.get("reply"):
                    result = await Runner.run(
                        agent, result.to_input_list() + [{"role": "user", "content": conv["reply"]}])
        print(json.dumps({"conversation": conv["name"], "trace_id": trace_id, "output": result.final_output}), flush=True)
    provider.force_flush()
    provider.shutdown()


asyncio.run(main())
