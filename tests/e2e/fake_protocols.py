"""fake_protocols.py — the streaming formats of the OpenAI Responses API,
the Anthropic Messages API and the Gemini API, byte for byte as those
services send them, built from the same scripted turns fake_server.py uses
for Chat Completions (text, reasoning, tool_calls, usage, stream_error, …).

Each builder returns a list of SSE event byte strings (one per event) so the
server can chunk, cut or hang them exactly like Chat Completions streams.
Python 3 standard library only.
"""

import json
import time

import fake_anthropic


def _dumps(obj):
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


def _split(text, piece):
    if not text:
        return []
    if piece and piece > 0:
        return [text[i:i + piece] for i in range(0, len(text), piece)]
    out, cur = [], ""
    for ch in text:
        cur += ch
        if ch in " \n":
            out.append(cur)
            cur = ""
    if cur:
        out.append(cur)
    return out


def _args(call):
    a = call.get("arguments", {})
    return a if isinstance(a, str) else _dumps(a)


def _counts(turn, request, text, reasoning, calls):
    u = dict(turn.get("usage") or {})
    prompt_chars = len(_dumps(request))
    comp_chars = len(text) + len(reasoning) + sum(len(_args(c)) for c in calls)
    prompt = u.get("prompt_tokens", max(1, prompt_chars // 4))
    completion = u.get("completion_tokens", max(1, comp_chars // 4))
    return (prompt, completion, u.get("cached_tokens", 0), u.get("reasoning_tokens", 0),
            u.get("total_tokens", prompt + completion))


# --------------------------------------------------------------- Responses

def responses_events(turn, index, request):
    def ev(obj):
        return ("event: %s\ndata: %s\n\n" % (obj["type"], _dumps(obj))).encode("utf-8")

    model = request.get("model") or "fake-model"
    text = turn.get("text", "")
    reasoning = turn.get("reasoning", "")
    calls = turn.get("tool_calls") or []
    piece = turn.get("text_piece", 0)
    rid = "resp_fake%d" % index
    seq = [0]

    def nx(obj):
        obj["sequence_number"] = seq[0]
        seq[0] += 1
        return ev(obj)

    base = {"id": rid, "object": "response", "created_at": int(time.time()), "status": "in_progress",
            "model": model, "output": [], "usage": None, "error": None,
            "incomplete_details": None}
    out = [nx({"type": "response.created", "response": dict(base)}),
           nx({"type": "response.in_progress", "response": dict(base)})]
    oi = 0
    output = []
    if reasoning:
        rs = {"id": "rs_fake%d" % index, "type": "reasoning", "summary": []}
        out.append(nx({"type": "response.output_item.added", "output_index": oi, "item": rs}))
        out.append(nx({"type": "response.reasoning_summary_part.added", "item_id": rs["id"],
                       "output_index": oi, "summary_index": 0,
                       "part": {"type": "summary_text", "text": ""}}))
        for r in _split(reasoning, piece):
            out.append(nx({"type": "response.reasoning_summary_text.delta", "item_id": rs["id"],
                           "output_index": oi, "summary_index": 0, "delta": r}))
        out.append(nx({"type": "response.reasoning_summary_text.done", "item_id": rs["id"],
                       "output_index": oi, "summary_index": 0, "text": reasoning}))
        done = dict(rs, summary=[{"type": "summary_text", "text": reasoning}])
        out.append(nx({"type": "response.output_item.done", "output_index": oi, "item": done}))
        output.append(done)
        oi += 1
    if text:
        mid = "msg_fake%d" % index
        item = {"id": mid, "type": "message", "status": "in_progress", "content": [],
                "role": "assistant"}
        out.append(nx({"type": "response.output_item.added", "output_index": oi, "item": item}))
        out.append(nx({"type": "response.content_part.added", "item_id": mid, "output_index": oi,
                       "content_index": 0,
                       "part": {"type": "output_text", "annotations": [], "text": ""}}))
        for t in _split(text, piece):
            out.append(nx({"type": "response.output_text.delta", "item_id": mid,
                           "output_index": oi, "content_index": 0, "delta": t, "logprobs": []}))
        out.append(nx({"type": "response.output_text.done", "item_id": mid, "output_index": oi,
                       "content_index": 0, "text": text, "logprobs": []}))
        part = {"type": "output_text", "annotations": [], "text": text}
        out.append(nx({"type": "response.content_part.done", "item_id": mid, "output_index": oi,
                       "content_index": 0, "part": part}))
        done = dict(item, status="completed", content=[part])
        out.append(nx({"type": "response.output_item.done", "output_index": oi, "item": done}))
        output.append(done)
        oi += 1
    frag = int(turn.get("args_fragment", 7)) or 7
    for i, call in enumerate(calls):
        fid = "fc_fake%d_%d" % (index, i)
        cid = call.get("id", "call_%d_%d" % (index, i))
        if call.get("custom"):
            # A freeform (custom) tool call, e.g. Codex's apply_patch: the
            # input is raw text, streamed as custom_tool_call_input deltas.
            ctid = "ctc_fake%d_%d" % (index, i)
            inp = call.get("input", "")
            item = {"id": ctid, "type": "custom_tool_call", "status": "in_progress",
                    "call_id": cid, "name": call.get("name", ""), "input": ""}
            out.append(nx({"type": "response.output_item.added", "output_index": oi, "item": item}))
            for j in range(0, len(inp), frag):
                out.append(nx({"type": "response.custom_tool_call_input.delta", "item_id": ctid,
                               "output_index": oi, "delta": inp[j:j + frag]}))
            out.append(nx({"type": "response.custom_tool_call_input.done", "item_id": ctid,
                           "output_index": oi, "input": inp}))
            done = dict(item, status="completed", input=inp)
            out.append(nx({"type": "response.output_item.done", "output_index": oi, "item": done}))
            output.append(done)
            oi += 1
            continue
        args = _args(call)
        item = {"id": fid, "type": "function_call", "status": "in_progress", "arguments": "",
                "call_id": cid, "name": call.get("name", "")}
        out.append(nx({"type": "response.output_item.added", "output_index": oi, "item": item}))
        for j in range(0, len(args), frag):
            out.append(nx({"type": "response.function_call_arguments.delta", "item_id": fid,
                           "output_index": oi, "delta": args[j:j + frag]}))
        out.append(nx({"type": "response.function_call_arguments.done", "item_id": fid,
                       "output_index": oi, "arguments": args}))
        done = dict(item, status="completed", arguments=args)
        out.append(nx({"type": "response.output_item.done", "output_index": oi, "item": done}))
        output.append(done)
        oi += 1
    if "stream_error" in turn:
        err = turn["stream_error"]
        if isinstance(err, str):
            err = {"code": "server_error", "message": err}
        out.append(nx({"type": "response.failed",
                       "response": dict(base, status="failed", error=err, output=output)}))
        return out
    prompt, completion, cached, reasoning_t, total = _counts(turn, request, text, reasoning, calls)
    usage = {"input_tokens": prompt, "input_tokens_details": {"cached_tokens": cached},
             "output_tokens": completion,
             "output_tokens_details": {"reasoning_tokens": reasoning_t},
             "total_tokens": total}
    if turn.get("finish_reason") in ("length", "content_filter"):
        reason = {"length": "max_output_tokens"}.get(turn["finish_reason"], "content_filter")
        out.append(nx({"type": "response.incomplete", "response": dict(
            base, status="incomplete", output=output, usage=usage,
            incomplete_details={"reason": reason})}))
    elif not turn.get("no_finish"):
        out.append(nx({"type": "response.completed",
                       "response": dict(base, status="completed", output=output, usage=usage)}))
    return out


# --------------------------------------------------------------- Anthropic

def anthropic_events(turn, index, request, issued=None):
    """issued (fake_anthropic.new_issued()) records the signatures and the
    tool_use ids sent, for the checks of what comes back."""
    def ev(obj):
        return ("event: %s\ndata: %s\n\n" % (obj["type"], _dumps(obj))).encode("utf-8")

    model = request.get("model") or "fake-model"
    text = turn.get("text", "")
    reasoning = turn.get("reasoning", "")
    calls = turn.get("tool_calls") or []
    # A known model answers as the request's thinking asks: no thinking block
    # when thinking is off, an empty text (a signature only) when omitted.
    mode = fake_anthropic.thinking_mode(request)
    if mode == "off":
        reasoning = ""
    shown = "" if mode == "omitted" else reasoning
    piece = turn.get("text_piece", 0)
    prompt, completion, cached, _r, _t = _counts(turn, request, text, reasoning, calls)
    cache_write = (turn.get("usage") or {}).get("cache_write_tokens", 0)
    uncached = max(0, prompt - cached - cache_write)
    out = [ev({"type": "message_start", "message": {
        "id": "msg_fake%d" % index, "type": "message", "role": "assistant", "model": model,
        "content": [], "stop_reason": None, "stop_sequence": None,
        "usage": {"input_tokens": uncached, "cache_creation_input_tokens": cache_write,
                  "cache_read_input_tokens": cached, "output_tokens": 1}}})]
    bi = 0
    if reasoning:
        out.append(ev({"type": "content_block_start", "index": bi,
                       "content_block": {"type": "thinking", "thinking": "", "signature": ""}}))
        for r in _split(shown, piece) if shown else []:
            out.append(ev({"type": "content_block_delta", "index": bi,
                           "delta": {"type": "thinking_delta", "thinking": r}}))
        sig = turn.get("signature", "EqQBCkYIBxgCKkBfakeSignature%d" % index)
        if issued is not None:
            issued["signatures"][sig] = shown
            for i, call in enumerate(calls):
                issued["thought_calls"].add(call.get("id", "toolu_fake%d_%d" % (index, i)))
        out.append(ev({"type": "content_block_delta", "index": bi,
                       "delta": {"type": "signature_delta", "signature": sig}}))
        out.append(ev({"type": "content_block_stop", "index": bi}))
        bi += 1
    if text:
        out.append(ev({"type": "content_block_start", "index": bi,
                       "content_block": {"type": "text", "text": ""}}))
        first = True
        for t in _split(text, piece):
            if first and turn.get("keepalive"):
                out.append(ev({"type": "ping"}))
            first = False
            out.append(ev({"type": "content_block_delta", "index": bi,
                           "delta": {"type": "text_delta", "text": t}}))
        out.append(ev({"type": "content_block_stop", "index": bi}))
        bi += 1
    frag = int(turn.get("args_fragment", 7)) or 7
    for i, call in enumerate(calls):
        cid = call.get("id", "toolu_fake%d_%d" % (index, i))
        out.append(ev({"type": "content_block_start", "index": bi, "content_block": {
            "type": "tool_use", "id": cid, "name": call.get("name", ""), "input": {}}}))
        args = _args(call)
        out.append(ev({"type": "content_block_delta", "index": bi,
                       "delta": {"type": "input_json_delta", "partial_json": ""}}))
        for j in range(0, len(args), frag):
            out.append(ev({"type": "content_block_delta", "index": bi,
                           "delta": {"type": "input_json_delta", "partial_json": args[j:j + frag]}}))
        out.append(ev({"type": "content_block_stop", "index": bi}))
        bi += 1
    if "stream_error" in turn:
        err = turn["stream_error"]
        if isinstance(err, str):
            err = {"type": "overloaded_error", "message": err}
        out.append(ev({"type": "error", "error": err}))
        return out
    stop = {"length": "max_tokens"}.get(turn.get("finish_reason"),
                                         "tool_use" if calls else "end_turn")
    if turn.get("finish_reason") in ("refusal", "pause_turn", "stop_sequence"):
        stop = turn["finish_reason"]  # Anthropic's own stop reasons, sent as is
    out.append(ev({"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None},
                   "usage": {"output_tokens": completion}}))
    if not turn.get("no_finish"):
        out.append(ev({"type": "message_stop"}))
    return out


# --------------------------------------------------------------- Gemini

def gemini_events(turn, index, request, model):
    def ev(obj):
        return ("data: " + _dumps(obj) + "\r\n\r\n").encode("utf-8")

    text = turn.get("text", "")
    reasoning = turn.get("reasoning", "")
    calls = turn.get("tool_calls") or []
    piece = turn.get("text_piece", 0)
    rid = "fakeResp%d" % index

    def resp(parts, finish=None, usage=None):
        cand = {"content": {"parts": parts, "role": "model"}, "index": 0}
        if finish:
            cand["finishReason"] = finish
        o = {"candidates": [cand]}
        if usage:
            o["usageMetadata"] = usage
        o["modelVersion"] = model
        o["responseId"] = rid
        return o

    out = []
    for r in _split(reasoning, piece):
        out.append(ev(resp([{"text": r, "thought": True}])))
    for t in _split(text, piece):
        out.append(ev(resp([{"text": t}])))
    parts = []
    for i, call in enumerate(calls):
        args = call.get("arguments", {})
        if isinstance(args, str):
            try:
                args = json.loads(args)
            except ValueError:
                args = {}
        p = {"functionCall": {"name": call.get("name", ""), "args": args}}
        if "id" in call:
            p["functionCall"]["id"] = call["id"]
        p["thoughtSignature"] = call.get("signature", "CiQBfakeThoughtSig%d_%d" % (index, i))
        parts.append(p)
    if "stream_error" in turn:
        err = turn["stream_error"]
        if isinstance(err, str):
            err = {"code": 503, "message": err, "status": "UNAVAILABLE"}
        out.append(ev({"error": err}))
        return out
    prompt, completion, cached, reasoning_t, total = _counts(turn, request, text, reasoning, calls)
    usage = {"promptTokenCount": prompt, "candidatesTokenCount": completion - reasoning_t,
             "totalTokenCount": total,
             "promptTokensDetails": [{"modality": "TEXT", "tokenCount": prompt}]}
    if cached:
        usage["cachedContentTokenCount"] = cached
    if reasoning_t:
        usage["thoughtsTokenCount"] = reasoning_t
    finish = {"length": "MAX_TOKENS"}.get(turn.get("finish_reason"), "STOP")
    fr = turn.get("finish_reason") or ""
    if fr.isupper():
        finish = fr  # Gemini's own reasons (SAFETY, RECITATION, …), sent as is
    if turn.get("no_finish"):
        finish = None
    if parts or finish:
        out.append(ev(resp(parts, finish, usage)))
    return out


# --------------------------------------------------------------- errors

def gemini_schema_problems(request):
    """What the real Gemini API refuses in functionDeclarations (400
    INVALID_ARGUMENT), in its own words: an OBJECT schema without
    properties, "required" naming an undeclared property, JSON Schema
    keywords outside its OpenAPI subset."""
    problems = []

    def walk(node, where):
        if not isinstance(node, dict):
            return
        for k in ("additionalProperties", "$schema", "$id"):
            if k in node:
                problems.append('Invalid JSON payload received. Unknown name "%s" at \'%s\': '
                                "Cannot find field." % (k, where))
        props = node.get("properties")
        if str(node.get("type", "")).lower() == "object" and not props:
            problems.append("%s.properties: should be non-empty for OBJECT type" % where)
        for j, name in enumerate(node.get("required") or []):
            if not isinstance(props, dict) or name not in props:
                problems.append("%s.required[%d]: property is not defined" % (where, j))
        for name, sub in (props or {}).items() if isinstance(props, dict) else []:
            walk(sub, "%s.properties[%s]" % (where, name))
        if "items" in node:
            walk(node["items"], where + ".items")

    for t, tool in enumerate((request or {}).get("tools") or []):
        for i, decl in enumerate(tool.get("functionDeclarations") or []):
            if "parameters" in decl:
                walk(decl["parameters"], "GenerateContentRequest.tools[%d].function_declarations"
                                         "[%d].parameters" % (t, i))
    return problems


def error_body(protocol, status, msg, typ, turn):
    if protocol == "anthropic":
        t = {429: "rate_limit_error", 529: "overloaded_error", 401: "authentication_error",
             404: "not_found_error", 400: "invalid_request_error"}.get(status, "api_error")
        err = turn.get("error", {"type": t, "message": msg})
        return {"type": "error", "error": err}
    if protocol == "gemini":
        st = {429: "RESOURCE_EXHAUSTED", 503: "UNAVAILABLE", 400: "INVALID_ARGUMENT",
              401: "UNAUTHENTICATED", 403: "PERMISSION_DENIED", 404: "NOT_FOUND"}.get(
                  status, "INTERNAL")
        err = turn.get("error", {"code": status, "message": msg, "status": st})
        return {"error": err}
    return {"error": turn.get("error", {"message": msg, "type": typ, "param": None,
                                        "code": None})}


def keepalive_bytes(protocol):
    if protocol == "anthropic":
        return b'event: ping\ndata: {"type": "ping"}\n\n'
    return b": keep-alive\n\n"
