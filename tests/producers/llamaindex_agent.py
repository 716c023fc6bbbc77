"""A real LlamaIndex agent (llama-index-core's FunctionAgent) calling the real fastmcp
warehouse server over stdio through llama-index-tools-mcp (McpToolSpec on BasicMCPClient,
which opens a session, so a server process, per call), its model LlamaIndex's OpenAILike
on the real `openai` client whose transport answers from the script (openai_scripted.py;
no LLM), traced by OpenInference's LlamaIndex instrumentor. llama-index-tools-mcp hands
the model `str(CallToolResult)` (a Python repr); the TOOL span's output is the ToolOutput,
whose `raw_output` keeps the CallToolResult itself (the importer reads that).

The server runs under GC_SERVER_PYTHON (the producers venv, with fastmcp 4). Prints one
JSON line per conversation: {"conversation", "trace_id", "output"}."""

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
p.add_argument("--seed", default="llamaindex")
args = p.parse_args()

provider = otel_setup.setup("llamaindex-agent", args.seed, args.spans_file)

from openinference.instrumentation.llama_index import LlamaIndexInstrumentor  # noqa: E402

LlamaIndexInstrumentor().instrument(tracer_provider=provider)

from llama_index.core.agent.workflow import FunctionAgent  # noqa: E402
from llama_index.core.memory import ChatMemoryBuffer  # noqa: E402
from llama_index.llms.openai_like import OpenAILike  # noqa: E402
from llama_index.tools.mcp import BasicMCPClient, McpToolSpec  # noqa: E402
from opentelemetry import trace  # noqa: E402

import openai_scripted  # noqa: E402


async def main():
    tracer = trace.get_tracer("groundcheck-producer")
    for conv in scenarios.CONVERSATIONS:
        python, server_args, env = scenarios.warehouse_server(conv, args.seed)
        # A server process per call: each seeds its span ids apart.
        env = {**env, "GC_ID_PER_PROCESS": "1"}
        client = BasicMCPClient(python, args=server_args, env=env)
        tools = await McpToolSpec(client=client).to_tool_list_async()
        llm = OpenAILike(model=scenarios.MODEL, api_key="scripted", api_base="http://model.invalid/v1",
                         is_chat_model=True, is_function_calling_model=True, context_window=200000,
                         http_client=openai_scripted.client(conv),
                         async_http_client=openai_scripted.async_client(conv))
        agent = FunctionAgent(tools=tools, llm=llm, system_prompt="Answer from the warehouse.")
        with tracer.start_as_current_span("handle question", attributes=scenarios.root_attributes(conv)) as root:
            trace_id = format(root.get_span_context().trace_id, "032x")
            # One memory for both runs: the user's answer to a clarifying question is the
            # next run's message, after the conversation so far.
            memory = ChatMemoryBuffer.from_defaults()
            result = await agent.run(user_msg=conv["question"], memory=memory)
            if conv.get("reply"):
                result = await agent.run(user_msg=conv["reply"], memory=memory)
        print(json.dumps({"conversation": conv["name"], "trace_id": trace_id, "output": str(result).strip()}), flush=True)
    provider.force_flush()
    provider.shutdown()


asyncio.run(main())
