"""A real LangGraph ReAct agent (langgraph.prebuilt.create_react_agent) calling the real
fastmcp warehouse server over stdio through langchain-mcp-adapters, its model
langchain-openai's ChatOpenAI on the real `openai` client whose transport answers from the
script (openai_scripted.py; no LLM), traced by OpenInference's LangChain instrumentation
(`--instrumentation openinference`, the default) or OpenLLMetry's
(`--instrumentation openllmetry`, with content capture on, its default).

The server runs under GC_SERVER_PYTHON (the producers venv, with fastmcp 4). Prints one
JSON line per conversation: {"conversation", "trace_id"}."""

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
p.add_argument("--seed", default="langgraph")
p.add_argument("--instrumentation", choices=["openinference", "openllmetry"], default="openinference")
args = p.parse_args()

provider = otel_setup.setup("langgraph-agent", args.seed, args.spans_file)

from langchain_mcp_adapters.client import MultiServerMCPClient  # noqa: E402
from langchain_openai import ChatOpenAI  # noqa: E402
from langgraph.prebuilt import create_react_agent  # noqa: E402
from opentelemetry import trace  # noqa: E402

import openai_scripted  # noqa: E402

if args.instrumentation == "openinference":
    from openinference.instrumentation.langchain import LangChainInstrumentor
else:
    from opentelemetry.instrumentation.langchain import LangchainInstrumentor as LangChainInstrumentor
LangChainInstrumentor().instrument(tracer_provider=provider)


async def main():
    tracer = trace.get_tracer("groundcheck-producer")
    for conv in scenarios.CONVERSATIONS:
        python, server_args, env = scenarios.warehouse_server(conv, args.seed)
        client = MultiServerMCPClient({conv["server"]: {
            "transport": "stdio", "command": python, "args": server_args, "env": env,
        }})
        model = ChatOpenAI(model=scenarios.MODEL, api_key="scripted",
                           base_url="http://model.invalid/v1",
                           http_async_client=openai_scripted.async_client(conv))
        with tracer.start_as_current_span("handle question", attributes=scenarios.root_attributes(conv)) as root:
            trace_id = format(root.get_span_context().trace_id, "032x")
            tools = await client.get_tools()
            agent = create_react_agent(model, tools, prompt="Answer from the warehouse.")
            result = await agent.ainvoke({"messages": [{"role": "user", "content": conv["question"]}]})
            if conv.get("reply"):
                result = await agent.ainvoke(
                    {"messages": result["messages"] + [{"role": "user", "content": conv["reply"]}]})
        print(json.dumps({"conversation": conv["name"], "trace_id": trace_id,
                          "output": result["messages"][-1].content}), flush=True)
    provider.force_flush()
    provider.shutdown()


asyncio.run(main())
