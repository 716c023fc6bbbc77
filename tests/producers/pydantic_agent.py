"""A real pydantic-ai agent (scripted FunctionModel: no LLM) calling the real fastmcp
warehouse server over stdio, traced by pydantic-ai's own OpenTelemetry GenAI spans
(`--instrumentation genai`), by OpenInference's pydantic-ai span processor
(`--instrumentation openinference`) or by Pydantic Logfire's SDK (`--instrumentation
logfire`: its own tracer provider, `instrument_pydantic_ai` and `instrument_mcp`),
exported over OTLP/HTTP and to files.

The model is scripted; the protocol, the client, the server and the instrumentation are
the real libraries. Each conversation's trace id is fixed by the seeded id generator and
printed as JSON lines (`{"conversation", "trace_id"}`) on stdout, so a test can write
cases whose source_trace names it."""

import argparse
import asyncio
import json
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
import otel_setup  # noqa: E402
import scenarios  # noqa: E402

p = argparse.ArgumentParser()
p.add_argument("--instrumentation", choices=["genai", "openinference", "logfire"], default="genai")
p.add_argument("--spans-file", help="also write spans to FILE.jsonl / FILE.pb")
p.add_argument("--seed", default="pydantic-ai")
args = p.parse_args()

first = []
if args.instrumentation == "openinference":
    from openinference.instrumentation.pydantic_ai import OpenInferenceSpanProcessor

    first.append(OpenInferenceSpanProcessor())
if args.instrumentation == "logfire":
    # Pydantic Logfire's SDK as its users set it up, sending nowhere but our exporter:
    # its own tracer provider, pydantic-ai and MCP instrumented by logfire.
    import logfire

    logfire.configure(
        send_to_logfire=False, console=False, service_name="pydantic-ai-agent",
        additional_span_processors=[otel_setup.file_processor(args.spans_file)],
        advanced=logfire.AdvancedOptions(id_generator=otel_setup.SeededIds(args.seed)),
    )
    logfire.instrument_pydantic_ai()
    logfire.instrument_mcp()
    provider = logfire
else:
    provider = otel_setup.setup("pydantic-ai-agent", args.seed, args.spans_file, first)

from opentelemetry import trace  # noqa: E402
from pydantic_ai import Agent  # noqa: E402
from pydantic_ai.mcp import MCPToolset  # noqa: E402
from pydantic_ai.messages import (  # noqa: E402
    ModelResponse,
    TextPart,
    ToolCallPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel  # noqa: E402
from pydantic_ai.usage import RequestUsage  # noqa: E402

from fastmcp.client.transports import StdioTransport  # noqa: E402


def scripted(conv):
    def model(messages, info: AgentInfo) -> ModelResponse:
        # One scripted turn per model request: the turn is the number of requests so far.
        done = sum(1 for m in messages if isinstance(m, ModelResponse))
        turn = conv["turns"][min(done, len(conv["turns"]) - 1)]
        usage = RequestUsage(input_tokens=turn["input_tokens"], output_tokens=turn["output_tokens"])
        if "answer" in turn:
            return ModelResponse(parts=[TextPart(turn["answer"])], usage=usage, model_name=scenarios.MODEL)
        parts = [TextPart(turn["text"])] if turn.get("text") else []
        parts += [ToolCallPart(c["tool"], c["arguments"], tool_call_id=c["id"]) for c in turn["calls"]]
        return ModelResponse(parts=parts, usage=usage, model_name=scenarios.MODEL)

    return model


async def main():
    if args.instrumentation != "logfire":
        Agent.instrument_all(True)
    tracer = trace.get_tracer("groundcheck-producer")
    for conv in scenarios.CONVERSATIONS:
        server = StdioTransport(
            command=sys.executable,
            args=[os.path.join(os.path.dirname(__file__), "warehouse_server.py")],
            env={**os.environ, "GC_SERVER_NAME": conv["server"],
                 # Span ids are seeded per server process: unique across processes.
                 "GC_ID_SEED": f"{args.seed}-{conv['name']}"},
        )
        # pydantic-ai gives the server 5 s to start and answer the handshake: a cold venv
        # (Python compiling the server's imports) on a loaded CI machine took longer.
        toolset = MCPToolset(server, init_timeout=60)
        agent = Agent(FunctionModel(scripted(conv), model_name=scenarios.MODEL), toolsets=[toolset])
        # The application's own root span, as a service handling one request would open;
        # the case tie rides on it when the scenario asks (the documented attribute).
        with tracer.start_as_current_span("handle question", attributes=scenarios.root_attributes(conv)) as root:
            trace_id = format(root.get_span_context().trace_id, "032x")
            async with agent:
                result = await agent.run(conv["question"])
                if conv.get("reply"):
                    result = await agent.run(conv["reply"], message_history=result.all_messages())
        print(json.dumps({"conversation": conv["name"], "trace_id": trace_id, "output": result.output}), flush=True)
    provider.force_flush()
    provider.shutdown()


asyncio.run(main())
