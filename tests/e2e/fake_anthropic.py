"""What the fake model server knows of the Anthropic Messages API's thinking
rules, per model, so a request the real API refuses is refused here too.

Sources (checked 2026-12-02): platform.claude.com/docs build-with-claude/
thinking, /adaptive-thinking, /extended-thinking, /effort and
/thinking-tool-workflows. The 400 body for a budget on an adaptive-only model
and the max_tokens / budget one are the real API's words as users quoted them;
the others follow the API's validation style and are marked APPROX.

A model unknown here (the tests' "claude-test") gets no thinking checks, so
scripts written before these rules keep working.
"""

import re

# How each model thinks: "budget" (thinking.type enabled + budget_tokens
# only), "both" (adaptive recommended, a budget deprecated but accepted),
# "adaptive" (adaptive only; off unless asked), "adaptive-on" (adaptive only;
# thinks even when the request says nothing, display defaults to "omitted").
# Then the output_config.effort levels it takes (None: no effort parameter).
_X = ("low", "medium", "high", "xhigh", "max")
MODELS = {
    "claude-fable-5-1": ("adaptive-on", _X),
    "claude-fable-5": ("adaptive-on", _X),
    "claude-opus-5-5": ("adaptive-on", _X),
    "claude-opus-5": ("adaptive-on", _X),
    "claude-sonnet-5-5": ("adaptive-on", _X),
    "claude-sonnet-5": ("adaptive-on", _X),
    "claude-haiku-5-5": ("adaptive-on", _X),
    "claude-opus-4-8": ("adaptive", _X),
    "claude-opus-4-7": ("adaptive", _X),
    "claude-opus-4-6": ("both", ("low", "medium", "high", "max")),
    "claude-sonnet-4-6": ("both", ("low", "medium", "high", "max")),
    "claude-opus-4-5": ("budget", ("low", "medium", "high")),
    "claude-sonnet-4-5": ("budget", None),
    "claude-haiku-4-5": ("budget", None),
    "claude-sonnet-4": ("budget", None),
    "claude-3-7-sonnet": ("budget", None),
}

ENABLED_REFUSED = ('"thinking.type.enabled" is not supported for this model. Use '
                   '"thinking.type.adaptive" and "output_config.effort" to control thinking '
                   'behavior.')
BUDGET_OVER_MAX = ("`max_tokens` must be greater than `thinking.budget_tokens`. Please consult "
                   "our documentation at https://docs.claude.com/en/docs/build-with-claude/"
                   "extended-thinking#max-tokens-and-context-window-size")


def model_rules(model):
    """(style, efforts) for a model id or its dated snapshot (…-20260528);
    None when the model is not one the fake knows."""
    return MODELS.get(re.sub(r"-\d{8}$", "", model or ""))


def new_issued():
    """What the fake sent, to check what comes back: signature -> the
    thinking text sent with it, and the tool_use ids of answers that
    thought."""
    return {"signatures": {}, "thought_calls": set()}


def thinking_mode(request):
    """How the model answers this request's thinking: None (unknown model:
    as scripted), "off" (no thinking block), "summarized" (the text) or
    "omitted" (an empty text, only the signature)."""
    rules = model_rules(request.get("model"))
    if rules is None:
        return None
    style = rules[0]
    th = request.get("thinking") or {}
    typ = th.get("type")
    if typ == "enabled":
        return "summarized"
    if typ == "adaptive":
        default = "omitted" if style in ("adaptive", "adaptive-on") else "summarized"
        return th.get("display", default)
    if style == "adaptive-on" and typ != "disabled":
        return "omitted"
    return "off"


def _replay_problem(request, issued):
    """The real API's refusal of a tool loop whose thinking was dropped or
    altered, or None."""
    msgs = request.get("messages") or []
    for mi, m in enumerate(msgs):
        if m.get("role") != "assistant" or not isinstance(m.get("content"), list):
            continue
        for bi, b in enumerate(m["content"]):
            if b.get("type") == "thinking":
                sig = b.get("signature")
                signed = issued["signatures"]
                if sig not in signed or signed[sig] != b.get("thinking"):
                    return "messages.%d.content.%d: Invalid `signature` in `thinking` block" % (
                        mi, bi)
    # With thinking on, the assistant turn that opened the current tool loop
    # must start with the thinking block the model sent.
    if thinking_mode(request) in (None, "off") or len(msgs) < 2:
        return None
    last, prev = msgs[-1], msgs[-2]
    content = prev.get("content") if prev.get("role") == "assistant" else None
    is_loop = isinstance(last.get("content"), list) and any(
        isinstance(b, dict) and b.get("type") == "tool_result" for b in last["content"])
    if not is_loop or not isinstance(content, list) or not content:
        return None
    sent = [b for b in content if b.get("type") == "tool_use"]
    if not any(b.get("id") in issued["thought_calls"] for b in sent):
        return None
    if content[0].get("type") not in ("thinking", "redacted_thinking"):
        return ("messages.%d.content.0.type: Expected `thinking` or `redacted_thinking`, but "
                "found `%s`. When `thinking` is enabled, a final `assistant` message must start "
                "with a thinking block (preceeding the lastmost set of `tool_use` and "
                "`tool_result` blocks). We recommend you include thinking blocks from previous "
                "turns. To avoid this requirement, disable `thinking`. Please consult our "
                "documentation at https://docs.claude.com/en/docs/build-with-claude/"
                "extended-thinking" % (len(msgs) - 2, content[0].get("type")))
    return None


def request_problem(request, issued):
    """The 400 error message the real API gives this request, or None."""
    rules = model_rules(request.get("model"))
    th = request.get("thinking")
    oc = request.get("output_config")
    if rules is not None:
        style, efforts = rules
        typ = (th or {}).get("type")
        if typ == "enabled" and style in ("adaptive", "adaptive-on"):
            return ENABLED_REFUSED
        if typ == "adaptive" and style == "budget":
            # APPROX: the style of the API's refusals of unsupported values.
            return '"thinking.type.adaptive" is not supported for this model. Use ' \
                   '"thinking.type.enabled" with "thinking.budget_tokens".'
        if typ == "disabled" and style == "adaptive-on":
            # APPROX
            return '"thinking.type.disabled" is not supported for this model.'
        effort = (oc or {}).get("effort") if isinstance(oc, dict) else None
        if oc is not None and efforts is None:
            return "output_config.effort: This model does not support the effort parameter."  # APPROX
        if effort is not None and effort not in efforts:
            # APPROX (pydantic's literal_error wording, which the API uses).
            return "output_config.effort: Input should be %s" % (
                ", ".join("'%s'" % e for e in efforts[:-1]) + " or '%s'" % efforts[-1])
    if isinstance(th, dict):
        typ = th.get("type")
        extra = set(th) - {"enabled": {"type", "budget_tokens", "display"},
                           "adaptive": {"type", "display"},
                           "disabled": {"type"}}.get(typ, {"type"})
        if typ not in ("enabled", "adaptive", "disabled"):
            return "thinking.type: Input tag '%s' found using 'type' does not match any of the " \
                   "expected tags: 'adaptive', 'disabled', 'enabled'" % typ
        if extra:
            return "thinking.%s.%s: Extra inputs are not permitted" % (typ, sorted(extra)[0])
        if "display" in th and th["display"] not in ("summarized", "omitted"):
            return "thinking.%s.display: Input should be 'summarized' or 'omitted'" % typ
        if typ == "enabled":
            budget = th.get("budget_tokens")
            if not isinstance(budget, int) or budget < 1024:
                return "thinking.enabled.budget_tokens: Input should be greater than or equal " \
                       "to 1024"
            if request.get("max_tokens", 0) <= budget:
                return BUDGET_OVER_MAX
    return _replay_problem(request, issued)
