/* loop.c — the agent loop; see loop.h. */
#include "agent/loop.h"


#include "agent/compaction.h"
#include "agent/judge.h"
#include "agent/net_events.h"
#include "agent/trace.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "base/buf.h"
#include "base/cancel.h"
#include "base/common.h"
#include "net/egress/queue.h"
#include "base/json.h"

void zagent_emit(const zagent *a, const zagent_event *ev) {
  for (size_t i = 0; i < a->nsinks; i++) a->sinks[i]->emit(a->sinks[i], ev);
  if (a->gate && a->gate->observe) a->gate->observe(a->gate->ud, a, ev);
}

int zagent_check_sinks(const zagent *a, zerr *err) {
  for (size_t i = 0; i < a->nsinks; i++)
    if (a->sinks[i]->check && a->sinks[i]->check(a->sinks[i], err) < 0) return -1;
  return 0;
}

static void emit_warning(const zagent *a, const char *message) {
  zagent_event ev = {.kind = ZAEV_WARNING, .warning = {.message = message}};
  zagent_emit(a, &ev);
}

/* One tool call being assembled from the stream. */
typedef struct pending_call {
  int index;
  char *id;
  char *name;
  char *arguments;
  char *signature; /* thought signature (Gemini), may be NULL */
} pending_call;

/* State of one streamed model turn. */
typedef struct turn_state {
  zagent *agent;
  zbuf text;
  zbuf reasoning;
  ZVEC(pending_call) calls;
  char *finish_reason;
  zmsg thinking; /* thinking blocks to replay (only .thinking is used) */
} turn_state;

static void turn_release(turn_state *t) {
  zbuf_release(&t->text);
  zbuf_release(&t->reasoning);
  for (size_t i = 0; i < t->calls.len; i++) {
    free(t->calls.items[i].id);
    free(t->calls.items[i].name);
    free(t->calls.items[i].arguments);
    free(t->calls.items[i].signature);
  }
  zvec_free(&t->calls);
  free(t->finish_reason);
  free(t->thinking.thinking);
}

static int on_provider_event(void *ud, const zprov_event *pe) {
  turn_state *t = ud;
  zagent *a = t->agent;
  switch (pe->kind) {
    case ZPEV_TEXT: {
      zbuf_add(&t->text, pe->text, pe->len);
      zagent_event ev = {.kind = ZAEV_TEXT, .delta = {pe->text, pe->len}};
      zagent_emit(a, &ev);
      break;
    }
    case ZPEV_REASONING: {
      zbuf_add(&t->reasoning, pe->text, pe->len);
      zagent_event ev = {.kind = ZAEV_REASONING, .delta = {pe->text, pe->len}};
      zagent_emit(a, &ev);
      break;
    }
    case ZPEV_TOOL_START:
    case ZPEV_TOOL_ARGS:
      break; /* the whole call arrives with ZPEV_TOOL_END */
    case ZPEV_TOOL_END: {
      pending_call pc = {pe->index, xstrdup(pe->id ? pe->id : ""), xstrdup(pe->name ? pe->name : ""),
                         xstrdup(pe->arguments ? pe->arguments : ""),
                         pe->signature ? xstrdup(pe->signature) : NULL};
      zvec_push(&t->calls, pc);
      break;
    }
    case ZPEV_USAGE: {
      a->usage.prompt_tokens += pe->usage.prompt_tokens;
      a->usage.completion_tokens += pe->usage.completion_tokens;
      a->usage.total_tokens += pe->usage.total_tokens;
      a->usage.cached_tokens += pe->usage.cached_tokens;
      a->usage.reasoning_tokens += pe->usage.reasoning_tokens;
      zcompact_observe_usage(a->compactor, pe->usage.prompt_tokens);
      ztrace_count(a->trace, ZTC_INPUT_TOKENS, pe->usage.prompt_tokens);
      ztrace_count(a->trace, ZTC_CACHED_INPUT_TOKENS, pe->usage.cached_tokens);
      ztrace_count(a->trace, ZTC_OUTPUT_TOKENS, pe->usage.completion_tokens);
      zagent_event ev = {.kind = ZAEV_USAGE, .usage = {.tokens = pe->usage, .model = a->model}};
      zagent_emit(a, &ev);
      break;
    }
    case ZPEV_RETRY: {
      /* The fallback needs its own length: pe->len is 0 when text is NULL. */
      const char *why = pe->text && pe->len ? pe->text : "provider request failed";
      int why_len = pe->text && pe->len ? (int)pe->len : (int)strlen(why);
      zbuf msg = ZBUF_INIT;
      zbuf_addf(&msg, "%.*s; retrying (attempt %d) in %.1f s", why_len, why, pe->attempt,
                (double)pe->delay_ms / 1000.0);
      emit_warning(a, msg.data);
      zbuf_release(&msg);
      break;
    }
    case ZPEV_THINKING:
      zmsg_add_thinking(&t->thinking, pe->text, pe->signature,
                        pe->name && !strcmp(pe->name, "redacted"));
      break;
    case ZPEV_DONE:
      free(t->finish_reason);
      t->finish_reason = pe->finish_reason ? xstrdup(pe->finish_reason) : NULL;
      break;
  }
  return zcancel_requested() ? 1 : 0;
}

/* Records the assistant turn in the conversation and tells the sinks. The
 * streamed text moves into the conversation and final_text borrows it: a
 * long answer is held once, not three times. */
static zmsg *commit_assistant(zagent *a, zconv *conv, turn_state *t) {
  const char *reasoning = t->reasoning.len ? t->reasoning.data : NULL;
  size_t len = t->text.len;
  zmsg *m = zconv_add_assistant_owned(conv, zbuf_detach(&t->text, NULL), reasoning);
  m->thinking = steal_pointer(&t->thinking.thinking);
  zagent_event ev = {.kind = ZAEV_ASSISTANT_MESSAGE,
                     .assistant_message = {.text = m->content,
                                           .len = len,
                                           .reasoning = reasoning,
                                           .thinking = m->thinking}};
  zagent_emit(a, &ev);
  a->final_text = m->content;
  return m;
}

zperm_mode zagent_mode(const zagent *a) { return a->perm ? zperm_engine_mode(a->perm) : a->mode; }

/* Offered to the model: allowed in the mode and not disabled for the run
 * (--enabled-tools / --disabled-tools). */
static bool tool_visible(const ztool *t, void *ud) {
  const zagent *a = ud;
  return zperm_tool_visible(zagent_mode(a), t) && zperm_tool_enabled(a->perm, t->name);
}

/* ---- extra tool sources (MCP; see ztool_source in loop.h) ----------------
 * Kept apart from run_tool_call so the built-in path (permission engine,
 * registry) is untouched: a call reaches a source only when no built-in tool
 * has its name, and the source makes its own permission decision. */

static const ztool_source *source_for(const zagent *a, const char *name) {
  if (!a->nsources || ztool_find(name)) return NULL;
  for (size_t i = 0; i < a->nsources; i++)
    if (a->sources[i].has(a->sources[i].ud, name)) return &a->sources[i];
  return NULL;
}

/* The built-in schemas plus every source's the run allows (a specialist's
 * allow-list: zperm_engine.extra_allowed); a new array when sources exist. */
static json_t *schemas_with_sources(const zagent *a, json_t *builtin) {
  if (!a->nsources) return json_incref(builtin);
  json_t *all = json_copy(builtin);
  for (size_t i = 0; i < a->nsources; i++) {
    json_t *more = a->sources[i].schemas(a->sources[i].ud);
    size_t k;
    json_t *one;
    json_array_foreach(more, k, one) {
      const char *name = zjson_str(one, "name");
      if (name && zperm_tool_enabled(a->perm, name)) json_array_append(all, one);
    }
    json_decref(more);
  }
  return all;
}

static void attach_result_image(zmsg *m, const json_t *meta);

/* After the call's tool_call event: false (and a failed result) when a sink
 * could not keep it (the session on a full disk), so the tool never acts
 * without its record. */
static bool call_recorded(const zagent *a, ztool_result *res) {
  zerr lost = ZERR_INIT;
  if (zagent_check_sinks(a, &lost) == 0) return true;
  ztool_fail(res, "not run: %s", lost.msg);
  return false;
}

/* The gate's before_tool (hooks' veto), after the permission engine allowed
 * the call: false with res filled when a hook blocks it. */
static bool gate_allows(zagent *a, const ztool_call *call, ztool_result *res) {
  return !a->gate || !a->gate->before_tool || a->gate->before_tool(a->gate->ud, a, call, res);
}

static void gate_after(zagent *a, const ztool_call *call, const ztool_result *res) {
  if (a->gate && a->gate->after_tool) a->gate->after_tool(a->gate->ud, a, call, res);
}

static bool decide_call_as(zagent *a, const ztool_call *call, const ztool *tool, bool judge_args,
                           ztool_result *res, ztool_escalation *esc);
static void report_tool_call(zagent *a, zconv *conv, const ztool_call *call, ztool_result *res);

static bool run_source_call(zagent *a, zconv *conv, const ztool_source *src,
                            const ztool_call *call) {
  const ztool *stand_in = src->perm_tool ? src->perm_tool(src->ud, call->name) : NULL;
  if (stand_in) { /* decided like a built-in: the engine, its events, the prompt flow */
    ztool_result res = ZTOOL_RESULT_INIT;
    ztool_escalation esc;
    if (decide_call_as(a, call, stand_in, false, &res, &esc)) {
      src->invoke(src->ud, a, call, &res);
      gate_after(a, call, &res);
    }
    report_tool_call(a, conv, call, &res);
    return !zcancel_requested();
  }
  const char *side = src->side_effect ? src->side_effect(src->ud, call->name) : NULL;
  zagent_event ev = {.kind = ZAEV_TOOL_CALL,
                     .tool_call = {.id = call->id,
                                   .name = call->name,
                                   .arguments = call->arguments,
                                   .side_effect = side ? side : "unknown",
                                   .signature = call->signature}};
  zagent_emit(a, &ev);
  ztool_result res = ZTOOL_RESULT_INIT;
  if (call_recorded(a, &res) && gate_allows(a, call, &res)) {
    src->invoke(src->ud, a, call, &res);
    gate_after(a, call, &res);
  }
  zagent_event rev = {.kind = ZAEV_TOOL_RESULT,
                      .tool_result = {.id = call->id,
                                      .name = call->name,
                                      .ok = !res.is_error,
                                      .output = res.output.data,
                                      .output_len = res.output.len,
                                      .truncated = res.truncated,
                                      .meta = res.meta}};
  zagent_emit(a, &rev);
  if (a->judge) zjudge_tool(a->judge, call, !res.is_error, false);
  zmsg *tm = zconv_add_tool_result(conv, call->id, call->name, res.output.data, res.is_error);
  attach_result_image(tm, res.meta); /* an MCP tool's image, like view_image's */
  ztool_result_release(&res);
  return !zcancel_requested();
}

static void face_warn(void *ud, const char *code, const char *msg) {
  zagent_event w = {.kind = ZAEV_WARNING, .warning = {.message = msg, .code = code}};
  zagent_emit(ud, &w);
}

zperm_face zagent_face(const zagent *a) {
  return (zperm_face){.approve = a->approve, .approve_ud = a->approve_ud, .name = "zero exec",
                      .warn = face_warn, .warn_ud = (void *)a};
}

void zagent_checkpoint_taken(void *agent, int64_t sequence, const char *tool,
                             const char *abs_path) {
  zagent *a = agent;
  if (!a || !abs_path) return;
  json_t *files = json_array();
  json_array_append_new(files, json_string(abs_path));
  zagent_event ev = {.kind = ZAEV_CHECKPOINT,
                     .checkpoint = {.sequence = sequence, .tool = tool, .files = files}};
  zagent_emit(a, &ev);
  json_decref(files);
  if (!a->changed_files) a->changed_files = json_array();
  size_t i;
  json_t *v;
  json_array_foreach(a->changed_files, i, v) {
    if (!strcmp(json_string_value(v), abs_path)) return; /* apply_patch: a file once */
  }
  json_array_append_new(a->changed_files, json_string(abs_path));
}

/* Announces one built-in tool call and decides whether it may run (the
 * permission engine; the prompt flow when the decision is prompt, whose
 * answer may be remembered as a grant). A denial fills res with the reason
 * and the block object. *esc gets what the decision allows this one call
 * beyond the sandbox (nothing when it is denied). */
static bool decide_tool_call(zagent *a, const ztool_call *call, ztool_result *res,
                             ztool_escalation *esc) {
  return decide_call_as(a, call, ztool_find(call->name), true, res, esc);
}

/* decide_tool_call for tool (NULL: unknown), which may be a tool source's
 * stand-in; judge_args: the engine sees the call's arguments (a stand-in's
 * mean nothing to it). */
static bool decide_call_as(zagent *a, const ztool_call *call, const ztool *tool, bool judge_args,
                           ztool_result *res, ztool_escalation *esc) {
  if (a->changed_files) json_array_clear(a->changed_files);
  const char *side = tool ? zside_effect_name(tool->side_effect) : "unknown";
  zagent_event ev = {.kind = ZAEV_TOOL_CALL,
                     .tool_call = {.id = call->id,
                                   .name = call->name,
                                   .arguments = call->arguments,
                                   .side_effect = side,
                                   .signature = call->signature}};
  zagent_emit(a, &ev);
  *esc = (ztool_escalation){false, false};
  if (!call_recorded(a, res)) return false;
  if (!tool) return true; /* ztool_invoke explains the unknown name */

  zperm_engine fallback = {.mode = zagent_mode(a)};
  const zperm_engine *eng = a->perm ? a->perm : &fallback;
  json_t *args = ztool_call_args(tool, call->arguments); /* what the tool will run with */
  const json_t *argobj = judge_args && json_is_object(args) ? args : NULL;
  zperm_decision d = zperm_decide(eng, tool, argobj);
  /* Go zero's permission fields: the tool's default action (as --list-tools
   * shows it), the autonomy level, the rule that decided, the call's risk */
  zperm_decision dflt = zperm_decide(eng, tool, NULL);
  json_t *risk = zperm_risk_json(eng, tool, argobj, &d);
  zagent_event pev = {.permission = {.id = call->id,
                                     .name = call->name,
                                     .side_effect = side,
                                     .reason = d.reason,
                                     .mode = zperm_mode_name(zagent_mode(a)),
                                     .code = d.code,
                                     .permission = zperm_action_name(dflt.action),
                                     .autonomy = zautonomy_name(eng->autonomy),
                                     .decision_reason = d.code,
                                     .risk = risk,
                                     .grant_matched = d.grant_matched}};
  json_t *grant = zperm_grant_json(&d);
  if (d.action == ZPERM_PROMPT) {
    pev.kind = ZAEV_PERMISSION_REQUEST;
    pev.permission.action = "prompt";
    zagent_emit(a, &pev);
    char gvalue[256];
    zapproval_request req = {.call = call};
    zperm_prompt_request(eng, tool, argobj, &d, &req, gvalue, sizeof gvalue);
    zperm_face face = zagent_face(a);
    json_t *answered = zperm_prompt_resolve(&face, eng->grants, &req, &d);
    if (a->approve) {
      json_decref(grant);
      grant = answered;
    }
  }
  json_decref(args);
  *esc = zperm_escalation(&d);
  json_t *block = d.action == ZPERM_DENY ? zperm_block_json(&d) : NULL;
  pev.kind = ZAEV_PERMISSION_DECISION;
  pev.permission.action = zperm_action_name(d.action);
  pev.permission.reason = d.reason;
  pev.permission.code = d.code;
  pev.permission.block = block;
  pev.permission.grant = grant;
  pev.permission.decision_reason = d.code;
  pev.permission.grant_matched = d.grant_matched;
  zagent_emit(a, &pev);
  json_decref(grant);
  json_decref(risk);
  if (d.action == ZPERM_DENY) {
    bool hint = d.allow_hint && d.allow_hint[0] && !strstr(d.reason, d.allow_hint);
    ztool_fail(res, "permission denied for %s [%s]: %s.%s%s", call->name, d.code, d.reason,
               hint ? " To allow it: " : "", hint ? d.allow_hint : "");
    res->meta = json_pack("{s:o}", "block", block); /* steals our reference */
    return false;
  }
  return gate_allows(a, call, res);
}

/* A tool that returned an image (view_image: meta.image {media_type, data})
 * hands it to the model with its result; each provider renders it where its
 * protocol allows (Chat Completions: a user message after the results). */
static void attach_result_image(zmsg *m, const json_t *meta) {
  const json_t *img = json_object_get(meta, "image");
  const char *type = zjson_str(img, "media_type"), *data = zjson_str(img, "data");
  if (m && type && data) zmsg_add_image(m, type, data);
}

/* Reports a finished call and appends its result to conv. */
static void report_tool_call(zagent *a, zconv *conv, const ztool_call *call, ztool_result *res) {
  /* what the edit broke, while the model can still fix it (lsp/lsp.h) */
  if (a->checks && a->checks->after_edit && !res->is_error && json_array_size(a->changed_files))
    a->checks->after_edit(a->checks->ud, a->changed_files, res);
  zagent_event rev = {.kind = ZAEV_TOOL_RESULT,
                      .tool_result = {.id = call->id,
                                      .name = call->name,
                                      .ok = !res->is_error,
                                      .output = res->output.data,
                                      .output_len = res->output.len,
                                      .truncated = res->truncated,
                                      .meta = res->meta}};
  /* what the call changed (checkpoints taken while it ran); a failed call
   * reports none */
  if (!res->is_error && json_array_size(a->changed_files))
    rev.tool_result.changed_files = a->changed_files;
  zagent_emit(a, &rev);
  if (a->judge) zjudge_tool(a->judge, call, !res->is_error, rev.tool_result.changed_files != NULL);
  if (a->changed_files) json_array_clear(a->changed_files);
  zmsg *tm = zconv_add_tool_result(conv, call->id, call->name, res->output.data, res->is_error);
  attach_result_image(tm, res->meta);
  ztool_result_release(res);
}

/* A call that may run alongside others: a built-in tool that only reads. */
static bool parallel_safe(const zagent *a, const ztool_call *call) {
  if (source_for(a, call->name)) return false;
  const ztool *t = ztool_find(call->name);
  return t && t->read_only && t->side_effect == ZSIDE_READ;
}

#define MAX_PARALLEL_TOOLS 8

typedef struct par_job {
  zagent *agent;
  zcancel_scope *cancel; /* the run's cancellation scope (base/cancel.h), or NULL */
  const ztool_call *call;
  bool allowed;
  ztool_escalation esc; /* this call's own (read-only calls never have one) */
  ztool_result res;
} par_job;

static void *par_run(void *arg) {
  par_job *j = arg;
  /* A cancel of this run (not only of the process) stops the call. */
  zcancel_scope *prev = zcancel_enter(j->cancel);
  ztool_invoke_escalated(j->agent->tools, j->call->name, j->call->arguments, j->esc, &j->res);
  zcancel_enter(prev);
  return NULL;
}

/* Runs calls[0..n) — consecutive read-only calls — on up to
 * MAX_PARALLEL_TOOLS threads (reading files is I/O that overlaps well);
 * decisions and results are reported in call order, so the event stream is
 * the same as for serial calls. */
static void run_parallel(zagent *a, zconv *conv, const ztool_call *calls, size_t n) {
  par_job jobs[MAX_PARALLEL_TOOLS];
  pthread_t tids[MAX_PARALLEL_TOOLS];
  bool started[MAX_PARALLEL_TOOLS];
  for (size_t i = 0; i < n; i++) {
    ztool_result init = ZTOOL_RESULT_INIT;
    jobs[i] = (par_job){a, zcancel_current(), &calls[i], false, {false, false}, init};
    jobs[i].allowed = decide_tool_call(a, &calls[i], &jobs[i].res, &jobs[i].esc);
  }
  for (size_t i = 0; i < n; i++) {
    started[i] = false;
    if (!jobs[i].allowed) continue;
    if (i + 1 < n && pthread_create(&tids[i], NULL, par_run, &jobs[i]) == 0) started[i] = true;
    else par_run(&jobs[i]); /* the last one (or a failed thread) runs here */
  }
  for (size_t i = 0; i < n; i++) {
    if (started[i]) pthread_join(tids[i], NULL);
    if (jobs[i].allowed) gate_after(a, &calls[i], &jobs[i].res);
    report_tool_call(a, conv, &calls[i], &jobs[i].res);
  }
}

/* The call a live hook reports for (ztool_live_hook.ud). */
typedef struct live_call {
  zagent *agent;
  const ztool_call *call;
} live_call;

/* ztool_live_hook.output: the running command's newest output becomes a
 * ZAEV_TOOL_OUTPUT of its call (on the loop's thread: commands never run
 * in parallel). */
static void emit_live_output(void *ud, const char *tail, size_t len, int64_t elapsed_ms) {
  const live_call *lc = ud;
  zagent_drain_network(lc->agent); /* the command's connections so far */
  zagent_event ev = {.kind = ZAEV_TOOL_OUTPUT,
                     .tool_output = {.id = lc->call->id,
                                     .name = lc->call->name,
                                     .text = tail,
                                     .len = len,
                                     .elapsed_ms = elapsed_ms}};
  zagent_emit(lc->agent, &ev);
}

/* Decides, runs and reports one tool call; appends its result to conv.
 * Returns false when the run was cancelled during the tool. */
static bool run_tool_call(zagent *a, zconv *conv, const ztool_call *call) {
  const ztool_source *src = source_for(a, call->name); /* MCP and other sources */
  if (src) return run_source_call(a, conv, src, call);
  ztool_result res = ZTOOL_RESULT_INIT;
  ztool_escalation esc;
  if (decide_tool_call(a, call, &res, &esc)) {
    /* this call's own context: its live output reports for it alone */
    live_call lc = {a, call};
    ztool_ctx ctx = *a->tools;
    ctx.live = (ztool_live_hook){emit_live_output, &lc};
    /* connections the proxy decides from here on are this call's */
    if (a->net_events) zeg_queue_set_call(a->net_events, call->id);
    ztool_invoke_escalated(&ctx, call->name, call->arguments, esc, &res);
    if (a->net_events) zeg_queue_set_call(a->net_events, NULL);
    zagent_drain_network(a);
    gate_after(a, call, &res);
  }
  report_tool_call(a, conv, call, &res);
  return !zcancel_requested();
}

/* The compaction the compactor just made, for the output (stream-json
 * "compaction"); the session already holds its own record. */
/* A final answer that did not end normally is said, so a CI log shows that
 * the answer is not whole: the output limit, or the provider's own filter
 * (Chat/Responses content_filter, Gemini safety/recitation/…, Anthropic
 * refusal). */
static void warn_abnormal_finish(const zagent *a, const char *reason) {
  static const char *const filtered[] = {"content_filter", "safety", "recitation", "refusal",
                                         "blocklist", "prohibited_content", "spii",
                                         "image_safety", "malformed_function_call"};
  if (!reason) return;
  if (!strcmp(reason, "length")) {
    emit_warning(a, "the answer was cut off: the model reached its output token limit (finish "
                    "reason \"length\"); ask it to continue with zero exec --resume, or raise the "
                    "model's maxOutputTokens");
    return;
  }
  for (size_t i = 0; i < sizeof filtered / sizeof filtered[0]; i++) {
    if (strcmp(reason, filtered[i])) continue;
    char msg[256];
    snprintf(msg, sizeof msg,
             "the provider stopped the answer early (finish reason \"%s\"); it may be empty "
             "or incomplete", reason);
    emit_warning(a, msg);
    return;
  }
}

static void emit_compaction(const zagent *a) {
  const zcompactor *c = a->compactor;
  zagent_event ev = {.kind = ZAEV_COMPACTION,
                     .compaction = {.method = c->last_method,
                                    .reason = c->last_reason,
                                    .tokens_before = c->last_before,
                                    .tokens_after = c->last_after}};
  zagent_emit(a, &ev);
}

/* Runs the tool calls of the assistant message at conv->items[idx]:
 * consecutive read-only calls in parallel, the others one by one. Returns
 * ZRUN_SUCCESS when every call ran, ZRUN_INTERRUPTED when the run was
 * cancelled, ZRUN_ERROR (err set) when the session could not record a call,
 * ZRUN_HALTED when a guardrail fired. */
static zrun_status run_tool_calls(zagent *a, zconv *conv, size_t idx, zerr *err) {
  size_t ncalls = conv->items[idx].ncalls;
  int64_t began = ztrace_begin(a->trace);
  ztrace_count(a->trace, ZTC_TOOL_CALLS, (int64_t)ncalls);
  zrun_status st = ZRUN_SUCCESS;
  for (size_t i = 0; i < ncalls && st == ZRUN_SUCCESS;) {
    /* No tool runs whose call the session could not record. */
    if (zagent_check_sinks(a, err) < 0) {
      st = ZRUN_ERROR;
      break;
    }
    /* Two or more consecutive read-only calls run in parallel. */
    size_t run = 0;
    while (i + run < ncalls && run < MAX_PARALLEL_TOOLS &&
           parallel_safe(a, &conv->items[idx].calls[i + run]))
      run++;
    if (run >= 2) {
      ztool_call batch[MAX_PARALLEL_TOOLS];
      memcpy(batch, conv->items[idx].calls + i, run * sizeof *batch);
      run_parallel(a, conv, batch, run);
      i += run;
      if (zcancel_requested()) st = ZRUN_INTERRUPTED;
    } else {
      ztool_call call = conv->items[idx].calls[i];
      if (!run_tool_call(a, conv, &call)) st = ZRUN_INTERRUPTED;
      i++;
    }
    if (st == ZRUN_SUCCESS && a->judge->halted) st = ZRUN_HALTED;
  }
  ztrace_end(a->trace, "tool_execution", began);
  if (st != ZRUN_ERROR && a->gate && a->gate->after_batch)
    a->gate->after_batch(a->gate->ud, a, conv, idx);
  return st;
}

/* Compaction before a request, when the compactor is on. */
static void compact_before_request(zagent *a, zconv *conv, json_t *turn_tools) {
  if (!a->compactor) return;
  int64_t began = ztrace_begin(a->trace);
  zerr cerr = ZERR_INIT;
  int crc = zcompact_before_request(a->compactor, conv, a->system_prompt, turn_tools, &cerr);
  if (crc < 0 && !zcancel_requested()) emit_warning(a, cerr.msg);
  if (crc > 0) {
    emit_compaction(a);
    ztrace_end(a->trace, "compaction", began);
    ztrace_count(a->trace, ZTC_COMPACTION_COUNT, 1);
  }
}

/* The conditions that end a run before its next request: a signal, a lost
 * session record, maxTurns. ZRUN_SUCCESS = go on. */
static zrun_status before_request(zagent *a, zerr *err) {
  if (zcancel_requested()) return ZRUN_INTERRUPTED;
  /* Nothing is sent that the session could not record (the user's message
   * included): a full disk stops the run here, resumable. */
  if (zagent_check_sinks(a, err) < 0) return ZRUN_ERROR;
  if (a->turns >= a->max_turns) {
    zerr_set(err, ZE_INTERNAL,
             "maxTurns (%d) reached while the model still had work to do; continue with "
             "zero exec --resume, or raise --max-turns / maxTurns",
             a->max_turns);
    return ZRUN_INCOMPLETE;
  }
  return ZRUN_SUCCESS;
}

/* One streamed request into t. Returns the provider's rc; a request the
 * compactor recovered from a context-length error returns 1 (the same turn
 * again, not counted twice). */
static int stream_turn(zagent *a, zconv *conv, json_t *turn_tools, turn_state *t, zerr *err) {
  ztrace_prefix(a->trace, a->turns, a->system_prompt, turn_tools);
  int64_t began = ztrace_begin(a->trace);
  zprov_request req = {.system = a->system_prompt, .conv = conv, .tools = turn_tools};
  int rc = zprovider_stream(a->provider, &req, on_provider_event, t, err);
  ztrace_end(a->trace, "generation", began);
  ztrace_count(a->trace, ZTC_MODEL_REQUESTS, 1);
  if (rc < 0 && a->compactor && !t->text.len && !t->calls.len && zcompact_is_context_error(err) &&
      zcompact_recover(a->compactor, conv, a->system_prompt, turn_tools) > 0) {
    emit_compaction(a);
    ztrace_count(a->trace, ZTC_COMPACTION_COUNT, 1);
    zerr_clear(err);
    return 1;
  }
  return rc;
}

/* The trace's task state after a turn (nothing when tracing is off). */
static void trace_turn(const zagent *a, const char *status, const char *decision) {
  ztrace_task_state(a->trace, a->turns, a->tools ? a->tools->plan : NULL, status, decision);
}

/* A final answer: the completion gate decides whether the run ends.
 * Returns true to run another turn (a nudge was sent). */
static bool judge_final(zagent *a, zconv *conv, zrun_status *status, zerr *err) {
  zgate_action act = zjudge_final(a->judge, conv);
  static const char *const decisions[] = {[ZGATE_ACCEPT] = "complete",
                                          [ZGATE_CONTINUE] = "uncertain",
                                          [ZGATE_VERIFY] = "uncertain",
                                          [ZGATE_INCOMPLETE] = "incomplete"};
  trace_turn(a,
             act == ZGATE_ACCEPT       ? "complete"
             : act == ZGATE_INCOMPLETE ? "incomplete"
                                       : "running",
             decisions[act]);
  if (act == ZGATE_CONTINUE || act == ZGATE_VERIFY) return true;
  if (act == ZGATE_INCOMPLETE) {
    zerr_set(err, ZE_INTERNAL, "%s", a->judge->why.data);
    *status = ZRUN_INCOMPLETE;
  }
  return false;
}

/* A final answer the completion gate accepted: a stop hook (the gate of
 * ext/ext.h) may ask for more, bounded by that gate. Returns true after
 * adding its message as the next user turn. */
static bool stop_hook_continues(zagent *a, zconv *conv, zrun_status st) {
  if (st != ZRUN_SUCCESS || !a->gate || !a->gate->on_stop) return false;
  char *more = a->gate->on_stop(a->gate->ud, a);
  if (!more) return false;
  zconv_add_user(conv, more);
  zagent_event um = {.kind = ZAEV_USER_MESSAGE,
                     .user_message = {.text = more, .len = strlen(more)}};
  zagent_emit(a, &um);
  free(more);
  return true;
}

/* Records the assistant turn with its calls; returns how many calls it
 * asked for. */
static size_t commit_turn(zagent *a, zconv *conv, turn_state *t) {
  zmsg *m = commit_assistant(a, conv, t);
  for (size_t i = 0; i < t->calls.len; i++) {
    zmsg_add_call(m, t->calls.items[i].id, t->calls.items[i].name, t->calls.items[i].arguments);
    zmsg_set_last_call_signature(m, t->calls.items[i].signature);
  }
  if (m->ncalls) zjudge_turn(a->judge, m);
  return m->ncalls;
}

/* One turn: request, stream, commit, tools. ZRUN_SUCCESS with *more = true
 * to go on. */
static zrun_status run_turn(zagent *a, zconv *conv, json_t *schemas, bool *more, zerr *err) {
  *more = false;
  /* Per turn: a source's tool list may change (MCP list_changed). */
  json_t *turn_tools = schemas_with_sources(a, schemas);
  /* Compaction may rewrite the messages final_text borrows from. */
  a->final_text = NULL;
  compact_before_request(a, conv, turn_tools);
  turn_state t = {.agent = a, .text = ZBUF_INIT, .reasoning = ZBUF_INIT};
  int rc = stream_turn(a, conv, turn_tools, &t, err);
  json_decref(turn_tools);
  if (rc > 0) {
    turn_release(&t);
    a->turns--;
    *more = true;
    return ZRUN_SUCCESS;
  }
  if (rc < 0) {
    /* Keep whatever the model said before the failure. */
    if (t.text.len || t.reasoning.len) commit_assistant(a, conv, &t);
    turn_release(&t);
    return (err && err->kind == ZE_CANCELLED) || zcancel_requested() ? ZRUN_INTERRUPTED
                                                                     : ZRUN_ERROR;
  }
  if (!t.calls.len) warn_abnormal_finish(a, t.finish_reason);
  size_t ncalls = commit_turn(a, conv, &t);
  turn_release(&t);
  zrun_status st = ZRUN_SUCCESS;
  if (ncalls == 0) {
    *more = judge_final(a, conv, &st, err) || stop_hook_continues(a, conv, st);
    return st;
  }
  if (a->judge->halted) {
    st = ZRUN_HALTED;
  } else {
    /* conv may grow (realloc) while results are appended: index, not pointer. */
    st = run_tool_calls(a, conv, conv->len - 1, err);
  }
  trace_turn(a, st == ZRUN_HALTED ? "halted" : "running", "");
  *more = st == ZRUN_SUCCESS;
  return st;
}

zrun_status zagent_run(zagent *a, zconv *conv, zerr *err) {
  json_t *schemas = ztool_schemas(tool_visible, a);
  zjudge judge;
  zjudge_init(&judge, a);
  a->judge = &judge;
  zrun_status status = ZRUN_SUCCESS;
  bool more = true;
  while (more) {
    zagent_drain_network(a); /* a background command's connections */
    status = before_request(a, err);
    if (status != ZRUN_SUCCESS) break;
    a->turns++;
    status = run_turn(a, conv, schemas, &more, err);
  }
  zagent_drain_network(a);
  if (status == ZRUN_INTERRUPTED) zerr_set(err, ZE_CANCELLED, "run cancelled by signal");
  if (status == ZRUN_HALTED) zerr_set(err, ZE_INTERNAL, "%s", judge.why.data);
  a->judge = NULL;
  zjudge_release(&judge);
  json_decref(schemas);
  return status;
}

void zagent_release(zagent *a) {
  a->final_text = NULL;
  json_decref(a->changed_files);
  a->changed_files = NULL;
}
