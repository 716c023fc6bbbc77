"""A scripted OpenAI Chat Completions endpoint for agents built on the real `openai`
client (or any OpenAI-compatible client on httpx): an `httpx.MockTransport` handler that
answers each request with the conversation's next scripted turn, counted by the assistant
messages already in the request. No LLM; the agent library, its client and its
instrumentation are the real ones."""

import json

import httpx

import scenarios


def handler(conv):
    def answer(request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        done = sum(1 for m in body["messages"] if m.get("role") == "assistant")
        turn = conv["turns"][min(done, len(conv["turns"]) - 1)]
        message = {"role": "assistant", "content": turn.get("answer") or turn.get("text")}
        if "calls" in turn:
            message["tool_calls"] = [
                {"id": c["id"], "type": "function",
                 "function": {"name": c["tool"], "arguments": json.dumps(c["arguments"])}}
                for c in turn["calls"]
            ]
        usage = {"prompt_tokens": turn["input_tokens"], "completion_tokens": turn["output_tokens"],
                 "total_tokens": turn["input_tokens"] + turn["output_tokens"]}
        if body.get("stream"):
            return httpx.Response(200, headers={"content-type": "text/event-stream"},
                                  content=stream(done, message, usage, "calls" in turn))
        return httpx.Response(200, json={
            "id": f"chatcmpl-{done}", "object": "chat.completion", "created": 1764576000,
            "model": scenarios.MODEL,
            "choices": [{"index": 0, "message": message,
                         "finish_reason": "tool_calls" if "calls" in turn else "stop"}],
            "usage": usage,
        })
    return answer


def stream(done, message, usage, calls) -> bytes:
    """The same reply as Server-Sent Events of chat.completion.chunk (a client that asks
    for `stream: true`): the text, each tool call whole at its index, then the finish
    reason with the usage."""
    def chunk(delta, finish=None, with_usage=False):
        c = {"id": f"chatcmpl-{done}", "object": "chat.completion.chunk", "created": 1764576000,
             "model": scenarios.MODEL,
             "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
        if with_usage:
            c["usage"] = usage
        return "data: " + json.dumps(c) + "\n\n"
    out = [chunk({"role": "assistant", "content": message.get("content") or ""})]
    for i, tc in enumerate(message.get("tool_calls", [])):
        out.append(chunk({"tool_calls": [{"index": i, **tc}]}))
    out.append(chunk({}, "tool_calls" if calls else "stop", with_usage=True))
    out.append("data: [DONE]\n\n")
    return "".join(out).encode()


def async_client(conv) -> httpx.AsyncClient:
    return httpx.AsyncClient(transport=httpx.MockTransport(handler(conv)))


def client(conv) -> httpx.Client:
    return httpx.Client(transport=httpx.MockTransport(handler(conv)))
