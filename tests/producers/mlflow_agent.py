"""An agent traced by MLflow Tracing (mlflow-tracing, the SDK without the server): the
real `openai` client under `mlflow.openai.autolog()` (its CHAT_MODEL spans), a tool loop
of our own as MLflow documents it (`mlflow.start_span(name=TOOL, span_type=TOOL)` with
the arguments as inputs and the MCP result as outputs, inside an AGENT span), and the
official MCP Python SDK client calling the real fastmcp warehouse server over stdio. The
model answers from the script (openai_scripted.py; no LLM).

MLflow writes its own span convention (`mlflow.spanType`, `mlflow.spanInputs`,
`mlflow.spanOutputs`, `mlflow.chat.tokenUsage`, …). It is set up as its docs say for an
OpenTelemetry backend: OTEL_EXPORTER_OTLP_TRACES_ENDPOINT (MLflow then exports OTLP
instead of writing to a tracking server; here a local sink that acknowledges) and
MLFLOW_USE_DEFAULT_TRACER_PROVIDER=false (its spans join the application's trace), so
they also go through the file exporter of otel_setup.py: the same spans the OTLP exporter
sends.

The server runs under GC_SERVER_PYTHON (the producers venv, with fastmcp 4). Prints one
JSON line per conversation: {"conversation", "trace_id", "output"}."""

import argparse
import asyncio
import json
import os
import sys

import http.server  # noqa: E402
import threading  # noqa: E402


class Sink(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *a):
        pass


p = argparse.ArgumentParser()
p.add_argument("--spans-file")
p.add_argument("--seed", default="mlflow")
p.add_argument("--mlflow", metavar="URL",
               help="a real MLflow tracking server to export to (its OTLP endpoint, experiment 0) "
                    "instead of a local sink")
args = p.parse_args()

if args.mlflow:
    os.environ["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"] = args.mlflow.rstrip("/") + "/v1/traces"
    os.environ["OTEL_EXPORTER_OTLP_TRACES_HEADERS"] = "x-mlflow-experiment-id=0"
else:
    sink = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Sink)
    threading.Thread(target=sink.serve_forever, daemon=True).start()
    os.environ["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"] = f"http://127.0.0.1:{sink.server_address[1]}/v1/traces"
os.environ["OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"] = "http/protobuf"
os.environ["MLFLOW_USE_DEFAULT_TRACER_PROVIDER"] = "false"
sys.path.insert(0, os.path.dirname(__file__))
import otel_setup  # noqa: E402
import scenarios  # noqa: E402

provider = otel_setup.setup("mlflow-agent", args.seed, args.spans_file)

import mlflow  # noqa: E402
import openai  # noqa: E402
from mcp import ClientSession, StdioServerParameters  # noqa: E402
from mcp.client.stdio import stdio_client  # noqa: E402
from mlflow.entities import SpanType  # noqa: E402
from opentelemetry import trace  # noqa: E402

import openai_scripted  # noqa: E402

mlflow.openai.autolog()
# MLflow sets up its span processors on the first span it starts; the first trace then
# came out broken (no AGENT span, the others without parents). Set up before any span.
mlflow.tracing.enable()


async def run(conv, session, tools):
    client = openai.AsyncOpenAI(api_key="scripted", base_url="http://model.invalid/v1",
                                http_client=openai_scripted.async_client(conv))
    messages = [{"role": "system", "content": "Answer from the warehouse."}]
    # The user's answer to a clarifying question is a second agent run with the history.
    for said in [conv["question"]] + ([conv["reply"]] if conv.get("reply") else []):
        messages.append({"role": "user", "content": said})
        output = await run_once(client, session, tools, messages, said)
    return output


async def run_once(client, session, tools, messages, said):
    with mlflow.start_span(name="agent", span_type=SpanType.AGENT) as agent:
        agent.set_inputs({"question": said})
        while True:
            reply = await client.chat.completions.create(model=scenarios.MODEL, messages=messages,
                                                         tools=tools)
            msg = reply.choices[0].message
            messages.append(msg.model_dump(exclude_none=True))
            if not msg.tool_calls:
                agent.set_outputs(msg.content)
                return msg.content
            for call in msg.tool_calls:
                arguments = json.loads(call.function.arguments)
                with mlflow.start_span(name=call.function.name, span_type=SpanType.TOOL) as span:
                    span.set_inputs(arguments)
                    result = await session.call_tool(call.function.name, arguments)
                    span.set_outputs(result.model_dump(mode="json", by_alias=True, exclude_none=True))
                text = "".join(c.text for c in result.content if c.type == "text")
                messages.append({"role": "tool", "tool_call_id": call.id, "content": text})


async def main():
    tracer = trace.get_tracer("groundcheck-producer")
    for conv in scenarios.CONVERSATIONS:
        python, server_args, env = scenarios.warehouse_server(conv, args.seed)
        if args.mlflow:
            # The MCP server exports its spans to the same store, as a deployed one would:
            # MLflow puts them in the agent's trace (the context travels in the request).
            env = {**env, "OTEL_EXPORTER_OTLP_ENDPOINT": args.mlflow}
        params = StdioServerParameters(command=python, args=server_args, env=env)
        with tracer.start_as_current_span("handle question", attributes=scenarios.root_attributes(conv)) as root:
            trace_id = format(root.get_span_context().trace_id, "032x")
            async with stdio_client(params) as (r, w):
                async with ClientSession(r, w) as session:
                    await session.initialize()
                    listed = await session.list_tools()
                    tools = [{"type": "function", "function": {"name": t.name, "description": t.description or "",
                                                               "parameters": t.input_schema}}
                             for t in listed.tools]
                    output = await run(conv, session, tools)
        print(json.dumps({"conversation": conv["name"], "trace_id": trace_id, "output": output}), flush=True)
    provider.force_flush()
    provider.shutdown()


asyncio.run(main())
