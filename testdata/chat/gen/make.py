# Writes the layer0-*.sse streams of testdata/chat: Chat Completions streams
# in the shapes the servers document, written by this project (see
# README.md). Run from testdata/chat: python3 gen/make.py
import json, random

random.seed(22)

def dumps(o):
    return json.dumps(o, separators=(",", ":"), ensure_ascii=False)

def write(name, chunks, done=True, ascii=False):
    with open(name, "w", encoding="utf-8") as f:
        for c in chunks:
            js = json.dumps(c, separators=(",", ":"), ensure_ascii=ascii)
            f.write("data: " + js + "\n\n")
        if done:
            f.write("data: [DONE]\n\n")

def words(s):
    out, cur = [], ""
    for ch in s:
        if ch == " " and cur:
            out.append(cur); cur = ""
        cur += ch
    if cur: out.append(cur)
    return out

ALPHA = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
def obf(): return "".join(random.choice(ALPHA) for _ in range(random.randint(1, 14)))

# --- vLLM: reasoning_content, return_token_ids (token_ids per choice, prompt_token_ids first) ---
def vllm():
    env = {"id": "chatcmpl-9b1f0c6e2a7d4e55b1c0f3a8d2e4c6b1", "object": "chat.completion.chunk", "created": 1764633600, "model": "Qwen/Qwen3-8B"}
    ch = lambda delta, fin=None, extra=None: dict(env, choices=[dict({"index": 0, "delta": delta, "logprobs": None, "finish_reason": fin}, **(extra or {}))])
    out = [dict(ch({"role": "assistant", "content": ""}), prompt_token_ids=[151644, 872, 198, 3838, 374, 220, 17, 10, 17, 30, 151645, 198, 151644, 77091, 198])]
    tid = 40000
    for w in words("Okay, the user asks for 2+2. That is 4."):
        tid = (tid * 7 + 13) % 151000
        out.append(ch({"reasoning_content": w}, extra={"token_ids": [tid]}))
    out.append(ch({"reasoning_content": "\n"}, extra={"token_ids": [198, 151668]}))
    for w in words("2 + 2 = 4. 🙂"):
        tid = (tid * 7 + 13) % 151000
        out.append(ch({"content": w}, extra={"token_ids": [tid]}))
    out.append(ch({"content": ""}, "stop", {"stop_reason": None, "token_ids": [151645]}))
    out.append(dict(env, choices=[], usage={"prompt_tokens": 15, "total_tokens": 43, "completion_tokens": 28, "prompt_tokens_details": None}))
    # Python's json.dumps escapes as ensure_ascii does: the emoji as a surrogate pair
    write("layer0-vllm-reasoning.sse", out, ascii=True)

    env2 = dict(env, id="chatcmpl-c04e1f7b8a2d4b6f9e3a1c5d7b9f2e4a", model="meta-llama/Llama-3.1-8B-Instruct")
    out = [dict(env2, choices=[{"index": 0, "delta": {"role": "assistant", "content": ""}, "logprobs": None, "finish_reason": None}])]
    for w in words("Paris is the capital"):
        out.append(dict(env2, choices=[{"index": 0, "delta": {"content": w}, "logprobs": None, "finish_reason": None}]))
    out.append({"error": {"object": "error", "message": "The decoder prompt (length 131073) is longer than the maximum model length of 131072.", "type": "BadRequestError", "param": None, "code": 400}})
    write("layer0-vllm-error.sse", out)

# --- SGLang: every delta field present, null when unused; matched_stop ---
def sglang():
    env = {"id": "6f3a0c1e9b2d4f7a8c5e1b3d9f0a2c4e", "object": "chat.completion.chunk", "created": 1764633601, "model": "deepseek-ai/DeepSeek-R1"}
    d = lambda role=None, content=None, rc=None: {"role": role, "content": content, "reasoning_content": rc, "tool_calls": None}
    ch = lambda delta, fin=None, ms=None: dict(env, choices=[{"index": 0, "delta": delta, "logprobs": None, "finish_reason": fin, "matched_stop": ms}], usage=None)
    out = [ch(d(role="assistant", content=""))]
    for w in words("The user greets me; reply briefly."):
        out.append(ch(d(rc=w)))
    for w in words("Hello! How can I help you today?"):
        out.append(ch(d(content=w)))
    out.append(ch(d(), "stop", 1))
    out.append(dict(env, choices=[], usage={"prompt_tokens": 9, "total_tokens": 31, "completion_tokens": 22, "prompt_tokens_details": None, "reasoning_tokens": 8}))
    write("layer0-sglang.sse", out)

# --- llama.cpp server: its own key order, reasoning_content, final chunk with usage and timings ---
def llamacpp():
    base = lambda choices, **kw: dict({"choices": choices, "created": 1764633602, "id": "chatcmpl-Qm3kT9vB2xR7nLp4sW8yZ1cD6fH0jK5e", "model": "gpt-3.5-turbo", "system_fingerprint": "b6840-5cdb27e9", "object": "chat.completion.chunk"}, **kw)
    out = [base([{"finish_reason": None, "index": 0, "delta": {"role": "assistant", "content": None}}])]
    for w in words("Let me count the letters."):
        out.append(base([{"finish_reason": None, "index": 0, "delta": {"reasoning_content": w}}]))
    for w in words("There are three r's in \"strawberry\"."):
        out.append(base([{"finish_reason": None, "index": 0, "delta": {"content": w}}]))
    out.append(base([{"finish_reason": "stop", "index": 0, "delta": {}}],
        usage={"completion_tokens": 17, "prompt_tokens": 14, "total_tokens": 31},
        timings={"cache_n": 0, "prompt_n": 14, "prompt_ms": 38.912, "prompt_per_token_ms": 2.7794285714285714, "prompt_per_second": 359.78618421052636, "predicted_n": 17, "predicted_ms": 190.337, "predicted_per_token_ms": 11.196294117647059, "predicted_per_second": 89.3152671314563}))
    write("layer0-llamacpp.sse", out)

# --- Ollama: role in every chunk, reasoning (gpt-oss), usage at the end ---
def ollama():
    env = {"id": "chatcmpl-417", "object": "chat.completion.chunk", "created": 1764633603, "model": "gpt-oss:20b", "system_fingerprint": "fp_ollama"}
    ch = lambda delta, fin=None: dict(env, choices=[{"index": 0, "delta": dict({"role": "assistant"}, **delta), "finish_reason": fin}])
    out = []
    for w in words("User wants a haiku about rain. Keep it 5-7-5."):
        out.append(ch({"content": "", "reasoning": w}))
    for w in words("Soft rain on the roof,\nwhispers to the sleeping town —\npuddles hold the sky."):
        out.append(ch({"content": w}))
    out.append(ch({"content": ""}, "stop"))
    out.append(dict(env, choices=[], usage={"prompt_tokens": 72, "completion_tokens": 41, "total_tokens": 113}))
    write("layer0-ollama.sse", out)

# --- OpenAI API shapes ---
def openai():
    env = {"id": "chatcmpl-CXk2Jv7mQ9rT1sYb4nLw8eZ3aPdF", "object": "chat.completion.chunk", "created": 1764633604, "model": "gpt-4.1-2025-04-14", "service_tier": "default", "system_fingerprint": "fp_b3f1157249"}
    def ch(choices, **kw):
        c = dict(env, choices=choices, usage=None, **kw)
        c["obfuscation"] = obf()
        return c
    c0 = lambda delta, fin=None, lp=None, i=0: {"index": i, "delta": delta, "logprobs": lp, "finish_reason": fin}
    # obfuscation, include_usage with details, service_tier, an unknown field
    out = [ch([c0({"role": "assistant", "content": "", "refusal": None, "annotations": []})])]
    for w in words("Here is a short answer: the Moon is about 384,400 km away — “roughly” 1.28 light-seconds."):
        out.append(ch([c0({"content": w})]))
    out.append(ch([c0({}, "stop")], future_field={"kind": "not yet specified", "n": 1.50}))
    u = dict(env, choices=[], usage={"prompt_tokens": 1843, "completion_tokens": 27, "total_tokens": 1870, "prompt_tokens_details": {"cached_tokens": 1536, "audio_tokens": 0}, "completion_tokens_details": {"reasoning_tokens": 0, "audio_tokens": 0, "accepted_prediction_tokens": 0, "rejected_prediction_tokens": 0}})
    u["obfuscation"] = obf()
    out.append(u)
    write("layer0-openai-obfuscation.sse", out)

    # logprobs with top_logprobs
    out = [ch([c0({"role": "assistant", "content": "", "refusal": None}, lp={"content": [], "refusal": None})])]
    for w in words("Yes, it is."):
        b = list(w.encode())
        tops = [{"token": w, "logprob": -0.0001, "bytes": b}, {"token": w.strip() or "x", "logprob": -9.5, "bytes": list((w.strip() or "x").encode())}]
        out.append(ch([c0({"content": w}, lp={"content": [{"token": w, "logprob": round(-random.random() / 3, 8), "bytes": b, "top_logprobs": tops}], "refusal": None})]))
    out.append(ch([c0({}, "stop")]))
    write("layer0-openai-logprobs-top.sse", out)

    # parallel tool calls
    out = [ch([c0({"role": "assistant", "content": None, "tool_calls": [{"index": 0, "id": "call_7QmZ3xKp1vRt9sLw2nYb4cDe", "type": "function", "function": {"name": "get_weather", "arguments": ""}}], "refusal": None})])]
    for a in ['{"lo', 'cation', '": "Par', 'is, Fr', 'ance"}']:
        out.append(ch([c0({"tool_calls": [{"index": 0, "function": {"arguments": a}}]})]))
    out.append(ch([c0({"tool_calls": [{"index": 1, "id": "call_Bv8nQ2mX5kLp7rTz1sWy3eHa", "type": "function", "function": {"name": "get_time", "arguments": ""}}]})]))
    for a in ['{"ti', 'mezone', '": "Euro', 'pe/Paris"}']:
        out.append(ch([c0({"tool_calls": [{"index": 1, "function": {"arguments": a}}]})]))
    out.append(ch([c0({}, "tool_calls")]))
    write("layer0-openai-parallel-tools.sse", out)

    # n = 2, interleaved; choice 1 stops for length, choice 0 on the content filter
    out = [ch([c0({"role": "assistant", "content": "", "refusal": None}, i=0)]), ch([c0({"role": "assistant", "content": "", "refusal": None}, i=1)])]
    a, b = words("Red sky at night, sailor's delight."), words("Blue the sea and")
    for k in range(max(len(a), len(b))):
        if k < len(a): out.append(ch([c0({"content": a[k]}, i=0)]))
        if k < len(b): out.append(ch([c0({"content": b[k]}, i=1)]))
        if k == len(b) - 1: out.append(ch([c0({}, "length", i=1)]))
    out.append(ch([c0({}, "content_filter", i=0)]))
    write("layer0-openai-n2.sse", out)

    # refusal, and the legacy function_call
    out = [ch([c0({"role": "assistant", "content": None, "refusal": ""})])]
    for w in words("I'm sorry, I can't help with that."):
        out.append(ch([c0({"refusal": w})]))
    out.append(ch([c0({}, "stop")]))
    write("layer0-openai-refusal.sse", out)

    out = [ch([c0({"role": "assistant", "content": None, "function_call": {"name": "lookup", "arguments": ""}})])]
    for a in ['{"q":', ' "ANTH', ' wire"}']:
        out.append(ch([c0({"function_call": {"arguments": a}})]))
    out.append(ch([c0({}, "function_call")]))
    write("layer0-openai-function-call.sse", out)

    # an error mid-stream: the API ends with the error chunk, no [DONE]
    out = [ch([c0({"role": "assistant", "content": "", "refusal": None})])]
    for w in words("The first three primes are"):
        out.append(ch([c0({"content": w})]))
    out.append({"error": {"message": "The server had an error while processing your request. Sorry about that!", "type": "server_error", "param": None, "code": None}})
    write("layer0-openai-error.sse", out, done=False)

vllm(); sglang(); llamacpp(); ollama(); openai()
