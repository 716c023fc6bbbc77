// A real TypeScript agent: the Vercel AI SDK 7 (`ai`'s generateText with its tool loop)
// calling the real fastmcp warehouse server over stdio through @ai-sdk/mcp, traced by
// @ai-sdk/otel's OpenTelemetry integration on the OpenTelemetry JS SDK (`--telemetry
// genai`, the GenAI conventions, or `legacy`, the SDK's classic `ai.*` spans through its
// LegacyOpenTelemetry integration). The model is the
// SDK's own MockLanguageModelV4 answering from the script (no LLM); the client, the
// protocol and the instrumentation are the real libraries.
//
// It plays tests/producers/scenarios.py (read through GC_SERVER_PYTHON, which also runs
// the server), writes every span to FILE.pb as the Collector's file exporter does (a
// 4-byte big-endian length, then an OTLP ExportTraceServiceRequest), and prints one JSON
// line per conversation: {"conversation", "trace_id", "output"}.
//
// Usage: node agent.mjs --spans-file FILE [--seed S] [--telemetry genai|legacy]

import { execFileSync } from "node:child_process";
import { appendFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

import { createMCPClient } from "@ai-sdk/mcp";
import { Experimental_StdioMCPTransport as StdioTransport } from "@ai-sdk/mcp/mcp-stdio";
import { LegacyOpenTelemetry, OpenTelemetry } from "@ai-sdk/otel";
import { context, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { ProtobufTraceSerializer } from "@opentelemetry/otlp-transformer";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { SimpleSpanProcessor, TracerProvider } from "@opentelemetry/sdk-trace";
import { generateText, stepCountIs } from "ai";
import { MockLanguageModelV4 } from "ai/test";

const here = dirname(fileURLToPath(import.meta.url));
const arg = (name, dflt) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : dflt;
};
const spansFile = arg("--spans-file");
const seed = arg("--seed", "vercel-ai");
const python = process.env.GC_SERVER_PYTHON ?? "python3";
const telemetry = arg("--telemetry", "genai");

// The scenarios and how to start the server for each, from the Python that defines them.
const plan = JSON.parse(
  execFileSync(python, [
    "-c",
    `import json, sys
sys.path.insert(0, ${JSON.stringify(join(here, ".."))})
import scenarios
out = []
for c in scenarios.CONVERSATIONS:
    py, args, env = scenarios.warehouse_server(c, ${JSON.stringify(seed)})
    out.append({"conv": c, "server": {"command": py, "args": args, "env": env},
                "root": scenarios.root_attributes(c)})
print(json.dumps({"model": scenarios.MODEL, "plan": out}))`,
  ]).toString(),
);

// Deterministic ids (a case names its source trace by id): a seeded xorshift.
function seededIds(s) {
  let x = 0x9e3779b9;
  for (const ch of s) x = Math.imul(x ^ ch.charCodeAt(0), 0x01000193) >>> 0;
  const next = () => {
    x ^= x << 13; x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5; x >>>= 0;
    return x;
  };
  const hex = (words) => Array.from({ length: words }, () => next().toString(16).padStart(8, "0")).join("");
  return { generateTraceId: () => hex(4), generateSpanId: () => hex(2) };
}

class FileExporter {
  export(spans, done) {
    const body = ProtobufTraceSerializer.serializeRequest(spans);
    const len = Buffer.alloc(4);
    len.writeUInt32BE(body.length);
    appendFileSync(`${spansFile}.pb`, Buffer.concat([len, Buffer.from(body)]));
    done({ code: 0 });
  }
  shutdown() { return Promise.resolve(); }
  forceFlush() { return Promise.resolve(); }
}

context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
const provider = new TracerProvider({
  resource: resourceFromAttributes({ "service.name": "vercel-ai-agent" }),
  idGenerator: seededIds(seed),
  spanProcessors: [new SimpleSpanProcessor({ exporter: new FileExporter() })],
});
trace.setGlobalTracerProvider(provider);
const tracer = trace.getTracer("groundcheck-producer");

function scripted(turns) {
  return new MockLanguageModelV4({
    provider: "scripted",
    modelId: plan.model,
    doGenerate: async ({ prompt }) => {
      const done = prompt.filter((m) => m.role === "assistant").length;
      const turn = turns[Math.min(done, turns.length - 1)];
      const content = [];
      const text = turn.answer ?? turn.text;
      if (text) content.push({ type: "text", text });
      for (const c of turn.calls ?? []) {
        content.push({ type: "tool-call", toolCallId: c.id, toolName: c.tool, input: JSON.stringify(c.arguments) });
      }
      return {
        content,
        finishReason: { unified: turn.calls ? "tool-calls" : "stop", raw: undefined },
        usage: {
          inputTokens: { total: turn.input_tokens, noCache: turn.input_tokens, cacheRead: undefined, cacheWrite: undefined },
          outputTokens: { total: turn.output_tokens, text: turn.output_tokens, reasoning: undefined },
        },
        response: { id: `resp-${done}`, modelId: plan.model, timestamp: new Date(0) },
        warnings: [],
      };
    },
  });
}

for (const { conv, server, root: rootAttrs } of plan.plan) {
  const client = await createMCPClient({ transport: new StdioTransport(server), protocolVersionDiscovery: false });
  const tools = await client.tools();
  const root = tracer.startSpan("handle question", { attributes: rootAttrs });
  const traceId = root.spanContext().traceId;
  let output = "";
  try {
    // The user's answer to a clarifying question is a second call with the conversation so far.
    let messages = [];
    for (const said of [conv.question, ...(conv.reply ? [conv.reply] : [])]) {
      messages.push({ role: "user", content: said });
      const result = await context.with(trace.setSpan(context.active(), root), () =>
        generateText({
          model: scripted(conv.turns),
          system: "Answer from the warehouse.",
          messages,
          tools,
          stopWhen: stepCountIs(10),
          telemetry: {
            isEnabled: true,
            integrations: [telemetry === "legacy" ? new LegacyOpenTelemetry() : new OpenTelemetry()],
          },
        }),
      );
      messages = [...messages, ...result.response.messages];
      output = result.text;
    }
  } finally {
    root.end();
    await client.close();
  }
  console.log(JSON.stringify({ conversation: conv.name, trace_id: traceId, output: output.trim() }));
}
await provider.forceFlush();
await provider.shutdown();
