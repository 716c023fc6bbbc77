"""A real smolagents ToolCallingAgent calling the real fastmcp warehouse server over
stdio through smolagents' own MCPClient, its model smolagents' OpenAIModel on the real
`openai` client whose transport answers from the script (openai_scripted.py; no LLM),
traced by OpenInference's smolagents instrumentation. smolagents ends every run by calling
its own `final_answer` tool: the scripted answer turn becomes that call.

The server runs under GC_SERVER_PYTHON (the producers venv, with fastmcp 4). Prints one
JSON line per conversation: {"conversation", "trace_id"}."""

import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
import otel_setup  # noqa: E402
import scenarios  # noqa: E402

p = argparse.ArgumentParser()
p.add_argument("--spans-file")
p.add_argument("--seed", default="smolagents")
args = p.parse_args()

provider = otel_setup.setup("smolagents-agent", args.seed, args.spans_file)

from mcp import StdioServerParameters  # noqa: E402
from openai import OpenAI  # noqa: E402
from openinference.instrumentation.smolagents import SmolagentsInstrumentor  # noqa: E402
from opentelemetry import trace  # noqa: E402
from smolagents import MCPClient, OpenAIModel, ToolCallingAgent  # noqa: E402

import openai_scripted  # noqa: E402

SmolagentsInstrumentor().instrument(tracer_provider=provider)


def as_final_answer(conv):
    """smolagents answers through its final_answer tool: the script's answer turn is that
    call (the same text, the same tokens)."""
    turns = []
    for i, t in enumerate(conv["turns"]):
        if "answer" in t:
            t = {"calls": [{"tool": "final_answer", "id": f"call_final_{i}",
                            "arguments": {"answer": t["answer"]}}],
                 "input_tokens": t["input_tokens"], "output_tokens": t["output_tokens"]}
        turns.append(t)
    return {**conv, "turns": turns}


tracer = trace.get_tracer("groundcheck-producer")
for conv in scenarios.CONVERSATIONS:
    python, server_args, env = scenarios.warehouse_server(conv, args.seed)
    params = StdioServerParameters(command=python, args=server_args, env=env)
    client = OpenAI(api_key="scripted", base_url="http://model.invalid/v1",
                    http_client=openai_scripted.client(as_final_answer(conv)))
    model = OpenAIModel(model_id=scenarios.MODEL, client=client)
    with tracer.start_as_current_span("handle question", attributes=scenarios.root_attributes(conv)) as root:
        trace_id = format(root.get_span_context().trace_id, "032x")
        with MCPClient(params, structured_output=True) as tools:
            agent = ToolCallingAgent(tools=tools, model=model, verbosity_level=0, max_steps=6)
            result = agent.run(conv["question"])
            if conv.get("reply"):
                # The same agent, its memory kept: the user's answer is the next task.
                result = agent.run(conv["reply"], reset=False)
    print(json.dumps({"conversation": conv["name"], "trace_id": trace_id, "output": str(result)}), flush=True)
provider.force_flush()
provider.shutdown()
