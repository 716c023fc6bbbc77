"""A real CrewAI crew (one agent, one task) calling the real fastmcp warehouse server over
stdio through crewai-tools' MCPServerAdapter, its model CrewAI's native OpenAI provider on
the real `openai` client whose transport answers from the script (openai_scripted.py; no
LLM), traced by OpenInference's CrewAI and OpenAI instrumentations.

The server runs under GC_SERVER_PYTHON (the producers venv, with fastmcp 4). Prints one
JSON line per conversation: {"conversation", "trace_id", "output"}."""

import argparse
import json
import os
import sys

os.environ.setdefault("CREWAI_DISABLE_TELEMETRY", "true")
os.environ.setdefault("CREWAI_DISABLE_TRACKING", "true")
os.environ.setdefault("CREWAI_TRACING_ENABLED", "false")

sys.path.insert(0, os.path.dirname(__file__))
import otel_setup  # noqa: E402
import scenarios  # noqa: E402

p = argparse.ArgumentParser()
p.add_argument("--spans-file")
p.add_argument("--seed", default="crewai")
args = p.parse_args()

provider = otel_setup.setup("crewai-agent", args.seed, args.spans_file)

from crewai import LLM, Agent, Crew, Task  # noqa: E402
from crewai_tools import MCPServerAdapter  # noqa: E402
from mcp import StdioServerParameters  # noqa: E402
from openai import OpenAI  # noqa: E402
from openinference.instrumentation.crewai import CrewAIInstrumentor  # noqa: E402
from openinference.instrumentation.openai import OpenAIInstrumentor  # noqa: E402
from opentelemetry import trace  # noqa: E402

import openai_scripted  # noqa: E402

# As Phoenix's CrewAI guide sets it up: the crew's spans from the CrewAI instrumentor,
# the model calls (CrewAI's native OpenAI provider) from the OpenAI one.
CrewAIInstrumentor().instrument(tracer_provider=provider)
OpenAIInstrumentor().instrument(tracer_provider=provider)

tracer = trace.get_tracer("groundcheck-producer")
for conv in scenarios.CONVERSATIONS:
    python, server_args, env = scenarios.warehouse_server(conv, args.seed)
    params = StdioServerParameters(command=python, args=server_args, env=env)
    llm = LLM(model=f"openai/{scenarios.MODEL}", api_key="scripted", base_url="http://model.invalid/v1")
    # The model is the script: CrewAI's own provider, its client's transport replaced.
    llm._client = OpenAI(api_key="scripted", base_url="http://model.invalid/v1",
                         http_client=openai_scripted.client(conv))
    with tracer.start_as_current_span("handle question", attributes=scenarios.root_attributes(conv)) as root:
        trace_id = format(root.get_span_context().trace_id, "032x")
        with MCPServerAdapter(params) as tools:
            agent = Agent(role="analyst", goal="Answer questions from the warehouse",
                          backstory="You answer with the warehouse's tools.", tools=list(tools),
                          llm=llm, verbose=False, max_iter=6)
            task = Task(description=conv["question"], expected_output="The answer.", agent=agent)
            result = Crew(agents=[agent], tasks=[task], verbose=False).kickoff()
            if conv.get("reply"):
                # A crew runs tasks, not conversations: the user's answer to the agent's
                # question goes to the same agent run on its own with the history
                # (Agent.kickoff with messages).
                result = agent.kickoff([
                    {"role": "user", "content": conv["question"]},
                    {"role": "assistant", "content": str(result)},
                    {"role": "user", "content": conv["reply"]},
                ])
    print(json.dumps({"conversation": conv["name"], "trace_id": trace_id, "output": str(result)}), flush=True)
provider.force_flush()
provider.shutdown()
