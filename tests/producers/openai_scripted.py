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
        return httpx.Response(200, json={
            "id": f"chatcmpl-{done}", "object": "chat.completion", "created": 1764576000,
            "model": scenarios.MODEL,
            "choices": [{"index": 0, "message": message,
                         "finish_reason": "tool_calls" if "calls" in turn else "stop"}],
            "usage": {"prompt_tokens": turn["input_tokens"], "completion_tokens": turn["output_tokens"],
                      "total_tokens": turn["input_tokens"] + turn["output_tokens"]},
        })
    return answer


def async_client(conv) -> httpx.AsyncClient:
    return httpx.AsyncClient(transport=httpx.MockTransport(handler(conv)))


def client(conv) -> httpx.Client:
    return httpx.Client(transport=httpx.MockTransport(handler(conv)))
