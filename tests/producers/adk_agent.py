"""A real Google ADK agent (google-adk) calling the real fastmcp warehouse server over
stdio through ADK's own McpToolset, traced by ADK's own OpenTelemetry spans
(`--instrumentation adk`: `invoke_agent`, `generate_content`, `execute_tool X`, with
OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=SPAN_ONLY: content as span
attributes) or by OpenInference's Google ADK instrumentor (`--instrumentation
openinference`: on ADK 2.13 it emits no LLM span, so the tests do not use it). The
model is a BaseLlm subclass that answers from the script (no LLM); the runner, the MCP client, the protocol and the instrumentation are the
real libraries.

The server runs under GC_SERVER_PYTHON (the producers venv, with fastmcp 4). Prints one
JSON line per conversation: {"conversation", "trace_id", "output"}."""

import argparse
import asyncio
import json
import os
import sys
from typing import AsyncGenerator

sys.path.insert(0, os.path.dirname(__file__))
import otel_setup  # noqa: E402
import scenarios  # noqa: E402

p = argparse.ArgumentParser()
p.add_argument("--spans-file")
p.add_argument("--seed", default="adk")
p.add_argument("--instrumentation", choices=["adk", "openinference"], default="adk")
args = p.parse_args()

if args.instrumentation == "adk":
    # ADK's semconv-aligned spans (its default schema) carry no content unless asked; a
    # user who wants the calls' arguments and results in the trace sets this.
    os.environ["OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"] = "SPAN_ONLY"
provider = otel_setup.setup("adk-agent", args.seed, args.spans_file)
if args.instrumentation == "openinference":
    from openinference.instrumentation.google_adk import GoogleADKInstrumentor

    GoogleADKInstrumentor().instrument(tracer_provider=provider)

from google.adk.agents import LlmAgent  # noqa: E402
from google.adk.models.base_llm import BaseLlm  # noqa: E402
from google.adk.models.llm_request import LlmRequest  # noqa: E402
from google.adk.models.llm_response import LlmResponse  # noqa: E402
from google.adk.runners import InMemoryRunner  # noqa: E402
from google.adk.tools.mcp_tool import McpToolset, StdioConnectionParams  # noqa: E402
from google.genai import types  # noqa: E402
from mcp import StdioServerParameters  # noqa: E402
from opentelemetry import trace  # noqa: E402


class Scripted(BaseLlm):
    """The conversation's next scripted turn, counted by the model turns already in the
    request."""

    turns: list

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        done = sum(1 for c in llm_request.contents if c.role == "model")
        turn = self.turns[min(done, len(self.turns) - 1)]
        parts = []
        if turn.get("answer") or turn.get("text"):
            parts.append(types.Part(text=turn.get("answer") or turn.get("text")))
        for c in turn.get("calls", []):
            parts.append(types.Part(function_call=types.FunctionCall(
                id=c["id"], name=c["tool"], args=c["arguments"])))
        yield LlmResponse(
            content=types.Content(role="model", parts=parts),
            usage_metadata=types.GenerateContentResponseUsageMetadata(
                prompt_token_count=turn["input_tokens"],
                candidates_token_count=turn["output_tokens"],
                total_token_count=turn["input_tokens"] + turn["output_tokens"]),
            model_version=scenarios.MODEL,
        )


async def main():
    tracer = trace.get_tracer("groundcheck-producer")
    for conv in scenarios.CONVERSATIONS:
        python, server_args, env = scenarios.warehouse_server(conv, args.seed)
        toolset = McpToolset(connection_params=StdioConnectionParams(
            server_params=StdioServerParameters(command=python, args=server_args, env=env),
            timeout=30))
        agent = LlmAgent(name="warehouse_agent", model=Scripted(model=scenarios.MODEL, turns=conv["turns"]),
                         instruction="Answer from the warehouse.", tools=[toolset])
        runner = InMemoryRunner(agent=agent, app_name="groundcheck-producer")
        session = await runner.session_service.create_session(
            app_name="groundcheck-producer", user_id=scenarios.USER)
        output = ""
        with tracer.start_as_current_span("handle question", attributes=scenarios.root_attributes(conv)) as root:
            trace_id = format(root.get_span_context().trace_id, "032x")
            # The user's answer to a clarifying question is the next message of the session.
            for said in [conv["question"]] + ([conv["reply"]] if conv.get("reply") else []):
                message = types.Content(role="user", parts=[types.Part(text=said)])
                async for event in runner.run_async(user_id=scenarios.USER, session_id=session.id,
                                                    new_message=message):
                    if event.is_final_response() and event.content and event.content.parts:
                        output = "".join(p.text or "" for p in event.content.parts)
        await toolset.close()
        await runner.close()
        print(json.dumps({"conversation": conv["name"], "trace_id": trace_id, "output": output.strip()}), flush=True)
    provider.force_flush()
    provider.shutdown()


asyncio.run(main())
