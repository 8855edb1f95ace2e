/* test_agent_loop.c — the agent loop against a scripted fake provider and a
 * recording sink: answers, tool round trips, permissions per mode, limits,
 * provider failures, cancellation, usage and retries. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <ftw.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "agent/loop.h"
#include "exec/spawn.h"
#include "perm/grants.h"
#include "base/buf.h"
#include "base/cancel.h"
#include "base/common.h"
#include "base/json.h"

/* ---- the scripted fake provider ---------------------------------------- */

/* One scripted provider event. cancel_before requests cancellation just
 * before the event is delivered (a signal arriving mid-stream). */
typedef struct fake_ev {
  zprov_event_kind kind;
  const char *text;
  const char *id;
  const char *name;
  const char *args;
  zusage usage;
  int attempt;
  int64_t delay_ms;
  bool cancel_before;
} fake_ev;

#define FAKE_MAX_EVS 8
#define FAKE_MAX_TURNS 8

/* One model turn: events in order, then either DONE or a failure. */
typedef struct fake_turn {
  fake_ev evs[FAKE_MAX_EVS];
  zerr_kind fail;        /* ZE_OK = succeed */
  const char *fail_msg;
  int fail_status;
} fake_turn;

typedef struct fake_provider {
  zprovider base;
  const fake_turn *turns;
  size_t nturns;
  size_t calls;
  /* What each request carried: a deep copy of the conversation, the tool
   * schemas and the system prompt. */
  zconv seen_conv[FAKE_MAX_TURNS];
  json_t *seen_tools[FAKE_MAX_TURNS];
  char *seen_system[FAKE_MAX_TURNS];
} fake_provider;

static void copy_conv(zconv *dst, const zconv *src) {
  for (size_t i = 0; i < src->len; i++) {
    const zmsg *m = &src->items[i];
    zmsg *c;
    switch (m->role) {
      case ZROLE_USER:
        zconv_add_user(dst, m->content);
        break;
      case ZROLE_ASSISTANT:
        c = zconv_add_assistant(dst, m->content, m->reasoning);
        for (size_t k = 0; k < m->ncalls; k++)
          zmsg_add_call(c, m->calls[k].id, m->calls[k].name, m->calls[k].arguments);
        break;
      case ZROLE_TOOL:
        zconv_add_tool_result(dst, m->tool_call_id, m->tool_name, m->content, m->is_error);
        break;
    }
  }
}

static int fake_stream(zprovider *p, const zprov_request *req, zprov_event_fn fn, void *ud,
                       zerr *err) {
  fake_provider *fp = (fake_provider *)p;
  if (fp->calls >= fp->nturns || fp->calls >= FAKE_MAX_TURNS) {
    fail_msg("provider called %zu times, script has %zu turns", fp->calls + 1, fp->nturns);
  }
  size_t n = fp->calls++;
  copy_conv(&fp->seen_conv[n], req->conv);
  fp->seen_tools[n] = req->tools ? json_deep_copy(req->tools) : NULL;
  fp->seen_system[n] = req->system ? xstrdup(req->system) : NULL;

  const fake_turn *t = &fp->turns[n];
  for (size_t i = 0; i < FAKE_MAX_EVS && (t->evs[i].kind || t->evs[i].text || t->evs[i].id ||
                                          t->evs[i].cancel_before);
       i++) {
    const fake_ev *fe = &t->evs[i];
    if (fe->cancel_before) zcancel_request();
    zprov_event ev = {.kind = fe->kind, .text = fe->text, .len = fe->text ? strlen(fe->text) : 0,
                      .index = 0, .id = fe->id, .name = fe->name, .arguments = fe->args,
                      .usage = fe->usage, .attempt = fe->attempt, .delay_ms = fe->delay_ms};
    if (fn(ud, &ev) != 0) return zerr_set(err, ZE_CANCELLED, "fake: stream aborted");
  }
  if (t->fail != ZE_OK) {
    zerr_set(err, t->fail, "%s", t->fail_msg ? t->fail_msg : "fake failure");
    if (err) err->http_status = t->fail_status;
    return -1;
  }
  zprov_event done = {.kind = ZPEV_DONE, .finish_reason = "stop"};
  if (fn(ud, &done) != 0) return zerr_set(err, ZE_CANCELLED, "fake: stream aborted");
  return 0;
}

static void fake_destroy(zprovider *p) { (void)p; }

static const zprovider_vtbl fake_vtbl = {"fake", fake_stream, fake_destroy};

/* ZPEV_TEXT is 0, so a text event is recognised by its text. */
#define TEXT(s) {.kind = ZPEV_TEXT, .text = (s)}
#define CALL(cid, tool, a) {.kind = ZPEV_TOOL_END, .id = (cid), .name = (tool), .args = (a)}

/* ---- the recording sink -------------------------------------------------- */

typedef struct rec_event {
  zagent_event_kind kind;
  char *text, *id, *name, *arguments, *side_effect, *action, *reason, *mode, *model;
  char *block, *grant, *code; /* JSON dumps of the decision's block / grant */
  bool ok;
  zusage usage;
} rec_event;

typedef struct rec_sink {
  zsink base;
  ZVEC(rec_event) evs;
  /* check fails once this many assistant messages were emitted (0 = never),
   * or always when lost is set: a recorder on a full disk */
  int fail_after_assistant;
  int fail_after_call; /* … or once this many tool_call events were emitted */
  bool lost;
} rec_sink;

static char *dup_or_null(const char *s) { return s ? xstrdup(s) : NULL; }

/* Flattens the fields the tests read from each kind's payload. */
static void rec_flatten(rec_event *e, const zagent_event *ev) {
  switch (ev->kind) {
    case ZAEV_TEXT:
    case ZAEV_REASONING:
      e->text =
          ev->delta.len ? xstrndup(ev->delta.text, ev->delta.len) : dup_or_null(ev->delta.text);
      break;
    case ZAEV_ASSISTANT_MESSAGE: {
      const zev_assistant_message *m = &ev->assistant_message;
      e->text = m->text && m->len ? xstrndup(m->text, m->len) : dup_or_null(m->text);
      break;
    }
    case ZAEV_TOOL_CALL:
      e->id = dup_or_null(ev->tool_call.id);
      e->name = dup_or_null(ev->tool_call.name);
      e->arguments = dup_or_null(ev->tool_call.arguments);
      e->side_effect = dup_or_null(ev->tool_call.side_effect);
      break;
    case ZAEV_PERMISSION_REQUEST:
    case ZAEV_PERMISSION_DECISION: {
      const zev_permission *p = &ev->permission;
      e->id = dup_or_null(p->id);
      e->name = dup_or_null(p->name);
      e->side_effect = dup_or_null(p->side_effect);
      e->action = dup_or_null(p->action);
      e->reason = dup_or_null(p->reason);
      e->mode = dup_or_null(p->mode);
      e->code = dup_or_null(p->code);
      if (p->block) e->block = json_dumps(p->block, JSON_COMPACT | JSON_SORT_KEYS);
      if (p->grant) e->grant = json_dumps(p->grant, JSON_COMPACT | JSON_SORT_KEYS);
      break;
    }
    case ZAEV_TOOL_RESULT: {
      const zev_tool_result *t = &ev->tool_result;
      e->id = dup_or_null(t->id);
      e->name = dup_or_null(t->name);
      e->ok = t->ok;
      e->text =
          t->output && t->output_len ? xstrndup(t->output, t->output_len) : dup_or_null(t->output);
      break;
    }
    case ZAEV_USAGE:
      e->usage = ev->usage.tokens;
      e->model = dup_or_null(ev->usage.model);
      break;
    case ZAEV_WARNING:
      e->text = dup_or_null(ev->warning.message);
      e->code = dup_or_null(ev->warning.code);
      break;
    case ZAEV_ERROR:
      e->text = dup_or_null(ev->error.message);
      e->code = dup_or_null(ev->error.code);
      break;
    default: break;
  }
}

static void rec_emit(zsink *s, const zagent_event *ev) {
  rec_sink *r = (rec_sink *)s;
  rec_event e = {.kind = ev->kind};
  rec_flatten(&e, ev);
  zvec_push(&r->evs, e);
}

static int rec_finish(zsink *s) { (void)s; return 0; }

static size_t count_ev(const rec_sink *r, zagent_event_kind kind);

static int rec_check(zsink *s, zerr *err) {
  rec_sink *r = (rec_sink *)s;
  if (r->fail_after_assistant &&
      count_ev(r, ZAEV_ASSISTANT_MESSAGE) >= (size_t)r->fail_after_assistant)
    r->lost = true;
  if (r->fail_after_call && count_ev(r, ZAEV_TOOL_CALL) >= (size_t)r->fail_after_call)
    r->lost = true;
  return r->lost ? zerr_set(err, ZE_IO, "could not record the session (disk full)") : 0;
}
static void rec_destroy(zsink *s) { (void)s; }

/* Index of the first event of kind at or after from, or -1. */
static long find_ev(const rec_sink *r, zagent_event_kind kind, size_t from) {
  for (size_t i = from; i < r->evs.len; i++)
    if (r->evs.items[i].kind == kind) return (long)i;
  return -1;
}

static size_t count_ev(const rec_sink *r, zagent_event_kind kind) {
  size_t n = 0;
  for (size_t i = 0; i < r->evs.len; i++) n += r->evs.items[i].kind == kind;
  return n;
}

/* ---- fixture ------------------------------------------------------------- */

typedef struct fx {
  char root[64];
  char *ws;
  ztool_ctx ctx;
  json_t *plan;
  fake_provider fp;
  rec_sink sink;
  zsink *sinks[1];
  zagent agent;
  zconv conv;
  zerr err;
} fx;

static int setup(void **state) {
  fx *f = xcalloc(1, sizeof *f);
  snprintf(f->root, sizeof f->root, "/tmp/zero-loop-XXXXXX");
  if (!mkdtemp(f->root)) return -1;
  f->ws = realpath(f->root, NULL);
  f->plan = json_array();
  f->ctx.workspace = f->ws;
  f->ctx.plan = f->plan;
  f->fp.base.vt = &fake_vtbl;
  f->sink.base.emit = rec_emit;
  f->sink.base.finish = rec_finish;
  f->sink.base.destroy = rec_destroy;
  f->sink.base.check = rec_check;
  f->sinks[0] = &f->sink.base;
  f->agent.provider = &f->fp.base;
  f->agent.system_prompt = "you are a test";
  f->agent.tools = &f->ctx;
  f->agent.mode = ZPERM_AUTO;
  f->agent.max_turns = 10;
  f->agent.sinks = f->sinks;
  f->agent.nsinks = 1;
  f->agent.model = "fake-model";
  zconv_add_user(&f->conv, "do the thing");
  zerr init = ZERR_INIT;
  f->err = init;
  zcancel_reset();
  *state = f;
  return 0;
}

static int rm_cb(const char *p, const struct stat *sb, int flag, struct FTW *ftw) {
  (void)sb; (void)flag; (void)ftw;
  return remove(p);
}

static int teardown(void **state) {
  fx *f = *state;
  zcancel_reset();
  for (size_t i = 0; i < FAKE_MAX_TURNS; i++) {
    zconv_release(&f->fp.seen_conv[i]);
    json_decref(f->fp.seen_tools[i]);
    free(f->fp.seen_system[i]);
  }
  for (size_t i = 0; i < f->sink.evs.len; i++) {
    rec_event *e = &f->sink.evs.items[i];
    free(e->text); free(e->id); free(e->name); free(e->arguments); free(e->side_effect);
    free(e->action); free(e->reason); free(e->mode); free(e->model);
    free(e->block); free(e->grant); free(e->code);
  }
  zvec_free(&f->sink.evs);
  zagent_release(&f->agent);
  zconv_release(&f->conv);
  nftw(f->root, rm_cb, 16, FTW_DEPTH | FTW_PHYS);
  json_decref(f->plan);
  free(f->ws);
  free(f);
  return 0;
}

static void script(fx *f, const fake_turn *turns, size_t n) {
  f->fp.turns = turns;
  f->fp.nturns = n;
}

static zrun_status run(fx *f) { return zagent_run(&f->agent, &f->conv, &f->err); }

static char *ws_path(fx *f, const char *rel) {
  size_t n = strlen(f->ws) + strlen(rel) + 2;
  char *p = xmalloc(n);
  snprintf(p, n, "%s/%s", f->ws, rel);
  return p;
}

static void write_ws(fx *f, const char *rel, const char *content) {
  cleanup_free char *p = ws_path(f, rel);
  FILE *fp = fopen(p, "w");
  assert_non_null(fp);
  fputs(content, fp);
  fclose(fp);
}

static bool ws_exists(fx *f, const char *rel) {
  cleanup_free char *p = ws_path(f, rel);
  return access(p, F_OK) == 0;
}

static bool tools_have(const json_t *tools, const char *name) {
  size_t i;
  json_t *t;
  json_array_foreach(tools, i, t) if (!strcmp(zjson_str_or(t, "name", ""), name)) return true;
  return false;
}

#define assert_contains(hay, needle)                                              \
  do {                                                                            \
    const char *h_ = (hay);                                                       \
    if (!h_ || !strstr(h_, (needle)))                                             \
      fail_msg("\"%s\" does not contain \"%s\"", h_ ? h_ : "(null)", (needle));   \
  } while (0)

/* ---- tests --------------------------------------------------------------- */

static void test_plain_answer_succeeds_and_appends_assistant(void **state) {
  fx *f = *state;
  fake_turn turns[] = {{.evs = {TEXT("Hel"), TEXT("lo.")}}};
  script(f, turns, 1);

  assert_int_equal(run(f), ZRUN_SUCCESS);
  assert_int_equal(f->err.kind, ZE_OK);
  assert_string_equal(f->agent.final_text, "Hello.");
  assert_int_equal(f->agent.turns, 1);
  assert_int_equal(f->fp.calls, 1);

  /* The request carried the system prompt and the user message only. */
  assert_string_equal(f->fp.seen_system[0], "you are a test");
  assert_int_equal(f->fp.seen_conv[0].len, 1);
  assert_int_equal(f->fp.seen_conv[0].items[0].role, ZROLE_USER);
  assert_string_equal(f->fp.seen_conv[0].items[0].content, "do the thing");
  /* Auto mode offers every tool, write and shell included. */
  assert_true(tools_have(f->fp.seen_tools[0], "read_file"));
  assert_true(tools_have(f->fp.seen_tools[0], "write_file"));
  assert_true(tools_have(f->fp.seen_tools[0], "exec_command"));

  assert_int_equal(f->conv.len, 2);
  assert_int_equal(f->conv.items[1].role, ZROLE_ASSISTANT);
  assert_string_equal(f->conv.items[1].content, "Hello.");
  assert_int_equal(f->conv.items[1].ncalls, 0);

  /* Deltas stream out, then the whole message; no tool events. */
  assert_int_equal(f->sink.evs.len, 3);
  assert_int_equal(f->sink.evs.items[0].kind, ZAEV_TEXT);
  assert_string_equal(f->sink.evs.items[0].text, "Hel");
  assert_int_equal(f->sink.evs.items[1].kind, ZAEV_TEXT);
  assert_string_equal(f->sink.evs.items[1].text, "lo.");
  assert_int_equal(f->sink.evs.items[2].kind, ZAEV_ASSISTANT_MESSAGE);
  assert_string_equal(f->sink.evs.items[2].text, "Hello.");
}

static void test_reasoning_is_kept_on_the_assistant_message(void **state) {
  fx *f = *state;
  fake_turn turns[] = {{.evs = {{.kind = ZPEV_REASONING, .text = "thinking"}, TEXT("answer")}}};
  script(f, turns, 1);
  assert_int_equal(run(f), ZRUN_SUCCESS);
  assert_string_equal(f->conv.items[1].reasoning, "thinking");
  assert_string_equal(f->conv.items[1].content, "answer");
  assert_int_equal(f->sink.evs.items[0].kind, ZAEV_REASONING);
  assert_string_equal(f->sink.evs.items[0].text, "thinking");
}

static void test_tool_round_trip_reads_file_and_feeds_result_back(void **state) {
  fx *f = *state;
  write_ws(f, "notes.txt", "alpha line\nbeta line\n");
  fake_turn turns[] = {
      {.evs = {TEXT("Let me look."),
               {.kind = ZPEV_TOOL_START, .id = "call_1", .name = "read_file"},
               {.kind = ZPEV_TOOL_ARGS, .text = "{\"path\":"},
               CALL("call_1", "read_file", "{\"path\":\"notes.txt\"}")}},
      {.evs = {TEXT("It says alpha and beta.")}},
  };
  script(f, turns, 2);

  assert_int_equal(run(f), ZRUN_SUCCESS);
  assert_int_equal(f->fp.calls, 2);
  assert_int_equal(f->agent.turns, 2);
  assert_string_equal(f->agent.final_text, "It says alpha and beta.");

  /* Second request: user, assistant with the call, tool result. */
  const zconv *c = &f->fp.seen_conv[1];
  assert_int_equal(c->len, 3);
  assert_int_equal(c->items[1].role, ZROLE_ASSISTANT);
  assert_string_equal(c->items[1].content, "Let me look.");
  assert_int_equal(c->items[1].ncalls, 1);
  assert_string_equal(c->items[1].calls[0].id, "call_1");
  assert_string_equal(c->items[1].calls[0].name, "read_file");
  assert_string_equal(c->items[1].calls[0].arguments, "{\"path\":\"notes.txt\"}");
  assert_int_equal(c->items[2].role, ZROLE_TOOL);
  assert_string_equal(c->items[2].tool_call_id, "call_1");
  assert_string_equal(c->items[2].tool_name, "read_file");
  assert_int_equal(c->items[2].is_error, 0);
  assert_contains(c->items[2].content, "alpha line");
  assert_contains(c->items[2].content, "beta line");

  /* The final conversation also holds the closing answer. */
  assert_int_equal(f->conv.len, 4);
  assert_int_equal(f->conv.items[3].role, ZROLE_ASSISTANT);

  /* TOOL_CALL, then the allow decision, then an ok result, in that order. */
  long call = find_ev(&f->sink, ZAEV_TOOL_CALL, 0);
  assert_true(call >= 0);
  long dec = find_ev(&f->sink, ZAEV_PERMISSION_DECISION, (size_t)call);
  long res = find_ev(&f->sink, ZAEV_TOOL_RESULT, (size_t)call);
  assert_true(dec > call);
  assert_true(res > dec);
  rec_event *ec = &f->sink.evs.items[call];
  assert_string_equal(ec->id, "call_1");
  assert_string_equal(ec->name, "read_file");
  assert_string_equal(ec->side_effect, "read");
  assert_string_equal(ec->arguments, "{\"path\":\"notes.txt\"}");
  rec_event *ed = &f->sink.evs.items[dec];
  assert_string_equal(ed->action, "allow");
  assert_string_equal(ed->mode, "auto");
  rec_event *er = &f->sink.evs.items[res];
  assert_true(er->ok);
  assert_string_equal(er->id, "call_1");
  assert_contains(er->text, "beta line");
  assert_int_equal(count_ev(&f->sink, ZAEV_PERMISSION_REQUEST), 0);
  /* The assistant message is reported before its calls run. */
  long asst = find_ev(&f->sink, ZAEV_ASSISTANT_MESSAGE, 0);
  assert_true(asst >= 0 && asst < call);
}

static void test_two_calls_in_one_turn_each_get_a_result(void **state) {
  fx *f = *state;
  write_ws(f, "a.txt", "AAA\n");
  write_ws(f, "b.txt", "BBB\n");
  fake_turn turns[] = {
      {.evs = {CALL("c1", "read_file", "{\"path\":\"a.txt\"}"),
               CALL("c2", "read_file", "{\"path\":\"b.txt\"}")}},
      {.evs = {TEXT("done")}},
  };
  script(f, turns, 2);
  assert_int_equal(run(f), ZRUN_SUCCESS);
  const zconv *c = &f->fp.seen_conv[1];
  assert_int_equal(c->len, 4);
  assert_int_equal(c->items[1].ncalls, 2);
  assert_string_equal(c->items[2].tool_call_id, "c1");
  assert_contains(c->items[2].content, "AAA");
  assert_string_equal(c->items[3].tool_call_id, "c2");
  assert_contains(c->items[3].content, "BBB");
}

static void test_malformed_arguments_give_error_result_and_loop_continues(void **state) {
  fx *f = *state;
  fake_turn turns[] = {
      {.evs = {CALL("call_bad", "read_file", "{\"path\": ")}},
      {.evs = {TEXT("sorry")}},
  };
  script(f, turns, 2);

  assert_int_equal(run(f), ZRUN_SUCCESS);
  assert_int_equal(f->fp.calls, 2);
  const zconv *c = &f->fp.seen_conv[1];
  assert_int_equal(c->len, 3);
  assert_int_equal(c->items[2].role, ZROLE_TOOL);
  assert_string_equal(c->items[2].tool_call_id, "call_bad");
  assert_int_equal(c->items[2].is_error, 1);
  assert_contains(c->items[2].content, "invalid arguments");

  long res = find_ev(&f->sink, ZAEV_TOOL_RESULT, 0);
  assert_true(res >= 0);
  assert_false(f->sink.evs.items[res].ok);
  assert_string_equal(f->agent.final_text, "sorry");
}

/* Read-only calls in a row run at once: each waits (up to 2 s) in the read
 * guard until another call is inside it too; rdv_max is the most calls
 * inside the guard at one moment. */
static pthread_mutex_t rdv_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t rdv_cv = PTHREAD_COND_INITIALIZER;
static int rdv_inside, rdv_max;

static bool rendezvous(void *ud, const char *abs) {
  (void)ud;
  (void)abs;
  pthread_mutex_lock(&rdv_mu);
  rdv_inside++;
  if (rdv_inside > rdv_max) rdv_max = rdv_inside;
  pthread_cond_broadcast(&rdv_cv);
  struct timespec until;
  clock_gettime(CLOCK_REALTIME, &until);
  until.tv_sec += 2;
  while (rdv_max < 2 && pthread_cond_timedwait(&rdv_cv, &rdv_mu, &until) == 0) {
  }
  /* Leaving: rdv_max counts calls inside at the same moment, so calls run
   * one after another never reach 2. */
  rdv_inside--;
  pthread_mutex_unlock(&rdv_mu);
  return false;
}

static void test_consecutive_read_only_calls_run_in_parallel_in_order(void **state) {
  fx *f = *state;
  write_ws(f, "a.txt", "needle a\n");
  write_ws(f, "b.txt", "needle b\n");
  rdv_inside = rdv_max = 0;
  f->ctx.read_guard.denied = rendezvous;
  fake_turn turns[] = {
      {.evs = {CALL("c1", "grep", "{\"pattern\":\"needle a\"}"),
               CALL("c2", "grep", "{\"pattern\":\"needle b\"}"),
               CALL("c3", "read_file", "{\"path\":\"a.txt\"}")}},
      {.evs = {TEXT("done")}},
  };
  script(f, turns, 2);
  assert_int_equal(run(f), ZRUN_SUCCESS);
  f->ctx.read_guard.denied = NULL;
  assert_true(rdv_max >= 2);
  const zconv *c = &f->fp.seen_conv[1];
  assert_int_equal(c->len, 5);
  assert_string_equal(c->items[2].tool_call_id, "c1");
  assert_string_equal(c->items[2].content, "a.txt");
  assert_string_equal(c->items[3].tool_call_id, "c2");
  assert_string_equal(c->items[3].content, "b.txt");
  assert_string_equal(c->items[4].tool_call_id, "c3");
  assert_contains(c->items[4].content, "needle a");
}

static void test_unknown_tool_is_an_error_result_without_permission_events(void **state) {
  fx *f = *state;
  fake_turn turns[] = {
      {.evs = {CALL("call_x", "no_such_tool", "{}")}},
      {.evs = {TEXT("ok")}},
  };
  script(f, turns, 2);
  assert_int_equal(run(f), ZRUN_SUCCESS);
  long call = find_ev(&f->sink, ZAEV_TOOL_CALL, 0);
  assert_true(call >= 0);
  assert_string_equal(f->sink.evs.items[call].side_effect, "unknown");
  assert_int_equal(count_ev(&f->sink, ZAEV_PERMISSION_DECISION), 0);
  long res = find_ev(&f->sink, ZAEV_TOOL_RESULT, 0);
  assert_false(f->sink.evs.items[res].ok);
  assert_int_equal(f->fp.seen_conv[1].items[2].is_error, 1);
}

static void test_max_turns_reached_is_incomplete(void **state) {
  fx *f = *state;
  write_ws(f, "n.txt", "x\n");
  fake_turn turns[] = {
      {.evs = {CALL("c1", "read_file", "{\"path\":\"n.txt\"}")}},
      {.evs = {CALL("c2", "read_file", "{\"path\":\"n.txt\"}")}},
      {.evs = {TEXT("never reached")}},
  };
  script(f, turns, 3);
  f->agent.max_turns = 2;

  assert_int_equal(run(f), ZRUN_INCOMPLETE);
  assert_int_equal(f->fp.calls, 2);
  assert_int_equal(f->agent.turns, 2);
  assert_contains(f->err.msg, "maxTurns");
  assert_contains(f->err.msg, "--resume");
  assert_contains(f->err.msg, "2");
  /* The last call still ran: the conversation ends with its result. */
  assert_int_equal(f->conv.len, 5);
  assert_int_equal(f->conv.items[4].role, ZROLE_TOOL);
  assert_string_equal(f->conv.items[4].tool_call_id, "c2");
}

static void test_max_turns_one_with_plain_answer_succeeds(void **state) {
  fx *f = *state;
  fake_turn turns[] = {{.evs = {TEXT("quick")}}};
  script(f, turns, 1);
  f->agent.max_turns = 1;
  assert_int_equal(run(f), ZRUN_SUCCESS);
  assert_string_equal(f->agent.final_text, "quick");
}

static void test_provider_error_propagates_and_keeps_partial_text(void **state) {
  fx *f = *state;
  fake_turn turns[] = {{.evs = {TEXT("partial ans")}, .fail = ZE_PROVIDER,
                        .fail_msg = "fake: HTTP 500 from the server; try again later",
                        .fail_status = 500}};
  script(f, turns, 1);

  assert_int_equal(run(f), ZRUN_ERROR);
  assert_int_equal(f->err.kind, ZE_PROVIDER);
  assert_int_equal(f->err.http_status, 500);
  assert_string_equal(f->err.msg, "fake: HTTP 500 from the server; try again later");
  assert_int_equal(f->conv.len, 2);
  assert_int_equal(f->conv.items[1].role, ZROLE_ASSISTANT);
  assert_string_equal(f->conv.items[1].content, "partial ans");
  long asst = find_ev(&f->sink, ZAEV_ASSISTANT_MESSAGE, 0);
  assert_true(asst >= 0);
  assert_string_equal(f->sink.evs.items[asst].text, "partial ans");
}

static void test_provider_error_without_text_adds_no_message(void **state) {
  fx *f = *state;
  fake_turn turns[] = {{.fail = ZE_TIMEOUT, .fail_msg = "fake: no data for 300 s"}};
  script(f, turns, 1);
  assert_int_equal(run(f), ZRUN_ERROR);
  assert_int_equal(f->err.kind, ZE_TIMEOUT);
  assert_int_equal(f->conv.len, 1);
  assert_int_equal(count_ev(&f->sink, ZAEV_ASSISTANT_MESSAGE), 0);
}

static void test_cancel_before_run_is_interrupted_without_request(void **state) {
  fx *f = *state;
  fake_turn turns[] = {{.evs = {TEXT("never")}}};
  script(f, turns, 1);
  assert_int_equal(zcancel_install(), 0);
  zcancel_request();

  assert_int_equal(run(f), ZRUN_INTERRUPTED);
  assert_int_equal(f->err.kind, ZE_CANCELLED);
  assert_int_equal(f->fp.calls, 0);
  assert_int_equal(f->conv.len, 1);
}

/* The session lost the user's message (a full disk): nothing is sent. */
static void test_lost_record_stops_before_the_request(void **state) {
  fx *f = *state;
  fake_turn turns[] = {{.evs = {TEXT("never")}}};
  script(f, turns, 1);
  f->sink.lost = true;
  assert_int_equal(run(f), ZRUN_ERROR);
  assert_int_equal(f->err.kind, ZE_IO);
  assert_contains(f->err.msg, "could not record the session");
  assert_int_equal(f->fp.calls, 0);
  assert_int_equal(f->conv.len, 1);
}

/* The model's turn with a write could not be recorded: the write never runs
 * and no further request is made. */
static void test_lost_record_mid_turn_runs_no_tool(void **state) {
  fx *f = *state;
  fake_turn turns[] = {
      {.evs = {CALL("w1", "write_file", "{\"path\":\"new.txt\",\"content\":\"hello\"}")}},
      {.evs = {TEXT("written")}},
  };
  script(f, turns, 2);
  f->sink.fail_after_assistant = 1;
  assert_int_equal(run(f), ZRUN_ERROR);
  assert_int_equal(f->err.kind, ZE_IO);
  assert_false(ws_exists(f, "new.txt"));
  assert_int_equal(f->fp.calls, 1);
  assert_int_equal(count_ev(&f->sink, ZAEV_TOOL_RESULT), 0);
}

/* The call itself could not be recorded: the tool does not act. */
static void test_unrecorded_call_is_not_run(void **state) {
  fx *f = *state;
  fake_turn turns[] = {
      {.evs = {CALL("w1", "write_file", "{\"path\":\"new.txt\",\"content\":\"hello\"}")}},
      {.evs = {TEXT("written")}},
  };
  script(f, turns, 2);
  f->sink.fail_after_call = 1;
  assert_int_equal(run(f), ZRUN_ERROR);
  assert_false(ws_exists(f, "new.txt"));
  assert_int_equal(f->fp.calls, 1);
  long res = find_ev(&f->sink, ZAEV_TOOL_RESULT, 0);
  assert_true(res >= 0);
  assert_false(f->sink.evs.items[res].ok);
  assert_contains(f->sink.evs.items[res].text, "not run: could not record the session");
}

static void test_cancel_while_streaming_is_interrupted_with_partial_text(void **state) {
  fx *f = *state;
  fake_turn turns[] = {
      {.evs = {TEXT("par"), {.kind = ZPEV_TEXT, .text = "tial", .cancel_before = true},
               TEXT(" never seen"), CALL("c1", "read_file", "{\"path\":\"x\"}")}},
      {.evs = {TEXT("no second turn")}},
  };
  script(f, turns, 2);
  assert_int_equal(zcancel_install(), 0);

  assert_int_equal(run(f), ZRUN_INTERRUPTED);
  assert_int_equal(f->err.kind, ZE_CANCELLED);
  assert_int_equal(f->fp.calls, 1);
  assert_int_equal(f->conv.len, 2);
  assert_string_equal(f->conv.items[1].content, "partial");
  assert_int_equal(f->conv.items[1].ncalls, 0);
  assert_int_equal(count_ev(&f->sink, ZAEV_TOOL_CALL), 0);
}

static void test_cancel_after_call_streamed_drops_the_turn(void **state) {
  fx *f = *state;
  /* The signal lands after the call streamed but before the turn ended: the
   * stream is aborted, the half-received call never runs. */
  fake_turn turns[] = {
      {.evs = {CALL("c1", "exec_command", "{\"cmd\":\"touch ran.txt\"}"),
               {.kind = ZPEV_USAGE, .cancel_before = true}}},
      {.evs = {TEXT("no second turn")}},
  };
  script(f, turns, 2);
  f->agent.mode = ZPERM_UNSAFE;
  assert_int_equal(zcancel_install(), 0);
  assert_int_equal(run(f), ZRUN_INTERRUPTED);
  assert_int_equal(f->err.kind, ZE_CANCELLED);
  assert_int_equal(f->fp.calls, 1);
  assert_int_equal(count_ev(&f->sink, ZAEV_TOOL_CALL), 0);
  assert_false(ws_exists(f, "ran.txt"));
  assert_int_equal(f->conv.len, 1);
}

static void on_alarm(int sig) {
  (void)sig;
  zcancel_request();
}

static void test_cancel_during_tool_stops_before_next_request(void **state) {
  fx *f = *state;
  f->agent.mode = ZPERM_UNSAFE;
  fake_turn turns[] = {
      {.evs = {CALL("c1", "exec_command", "{\"cmd\":\"sleep 20\"}")}},
      {.evs = {TEXT("no second turn")}},
  };
  script(f, turns, 2);
  assert_int_equal(zcancel_install(), 0);
  struct sigaction sa = {.sa_handler = on_alarm}, old;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGALRM, &sa, &old);
  struct itimerval it = {.it_value = {.tv_sec = 0, .tv_usec = 200000}};
  setitimer(ITIMER_REAL, &it, NULL);

  time_t t0 = time(NULL);
  zrun_status st = run(f);
  struct itimerval off = {0};
  setitimer(ITIMER_REAL, &off, NULL);
  sigaction(SIGALRM, &old, NULL);

  assert_int_equal(st, ZRUN_INTERRUPTED);
  assert_int_equal(f->err.kind, ZE_CANCELLED);
  assert_true(time(NULL) - t0 < 10);
  assert_int_equal(f->fp.calls, 1);
  /* The interrupted call still has its result in the conversation. */
  assert_int_equal(f->conv.len, 3);
  assert_int_equal(f->conv.items[2].role, ZROLE_TOOL);
  assert_string_equal(f->conv.items[2].tool_call_id, "c1");
  assert_int_equal(count_ev(&f->sink, ZAEV_TOOL_RESULT), 1);
}

static void test_plan_mode_denies_write_and_hides_write_tools(void **state) {
  fx *f = *state;
  f->agent.mode = ZPERM_PLAN;
  fake_turn turns[] = {
      {.evs = {CALL("w1", "write_file", "{\"path\":\"new.txt\",\"content\":\"x\"}")}},
      {.evs = {TEXT("I would write new.txt")}},
  };
  script(f, turns, 2);

  assert_int_equal(run(f), ZRUN_SUCCESS);
  assert_false(ws_exists(f, "new.txt"));

  const json_t *tools = f->fp.seen_tools[0];
  assert_non_null(tools);
  assert_true(tools_have(tools, "read_file"));
  assert_true(tools_have(tools, "list_directory"));
  assert_true(tools_have(tools, "update_plan"));
  assert_false(tools_have(tools, "write_file"));
  assert_false(tools_have(tools, "edit_file"));
  assert_false(tools_have(tools, "exec_command"));

  long dec = find_ev(&f->sink, ZAEV_PERMISSION_DECISION, 0);
  assert_true(dec >= 0);
  rec_event *d = &f->sink.evs.items[dec];
  assert_string_equal(d->action, "deny");
  assert_string_equal(d->mode, "plan");
  assert_string_equal(d->side_effect, "write");
  assert_contains(d->reason, "plan mode");
  long res = find_ev(&f->sink, ZAEV_TOOL_RESULT, (size_t)dec);
  assert_true(res > dec);
  assert_false(f->sink.evs.items[res].ok);
  assert_contains(f->sink.evs.items[res].text, "permission denied");
  assert_int_equal(f->fp.seen_conv[1].items[2].is_error, 1);
}

static void test_ask_mode_requests_then_denies_write(void **state) {
  fx *f = *state;
  f->agent.mode = ZPERM_ASK;
  fake_turn turns[] = {
      {.evs = {CALL("w1", "write_file", "{\"path\":\"new.txt\",\"content\":\"x\"}")}},
      {.evs = {TEXT("ok")}},
  };
  script(f, turns, 2);

  assert_int_equal(run(f), ZRUN_SUCCESS);
  assert_false(ws_exists(f, "new.txt"));
  long req = find_ev(&f->sink, ZAEV_PERMISSION_REQUEST, 0);
  assert_true(req >= 0);
  assert_string_equal(f->sink.evs.items[req].action, "prompt");
  assert_string_equal(f->sink.evs.items[req].mode, "ask");
  long dec = find_ev(&f->sink, ZAEV_PERMISSION_DECISION, (size_t)req);
  assert_true(dec > req);
  assert_string_equal(f->sink.evs.items[dec].action, "deny");
  /* a file change names the narrowest mode that allows it (issue 22 A2) */
  assert_contains(f->sink.evs.items[dec].reason, "--permission-mode accept-edits");
  long res = find_ev(&f->sink, ZAEV_TOOL_RESULT, (size_t)dec);
  assert_true(res > dec);
  assert_false(f->sink.evs.items[res].ok);
}

/* The interactive approver (the TUI) answers prompts: its yes runs the
 * tool, its no (with the user's note) goes back to the model. */
typedef struct approver_log {
  int calls;
  zperm_action answer;
  zgrant_scope scope;
  const char *note;
  char last_value[256];  /* the grant the request offered */
  bool last_can_remember;
  char last_code[32];
} approver_log;

static zapproval scripted_approver(void *ud, const zapproval_request *req) {
  approver_log *log = ud;
  log->calls++;
  assert_string_equal(req->tool->name, req->call->name);
  assert_non_null(req->reason);
  assert_non_null(req->code);
  snprintf(log->last_value, sizeof log->last_value, "%s", req->grant_value ? req->grant_value : "");
  snprintf(log->last_code, sizeof log->last_code, "%s", req->code);
  log->last_can_remember = req->can_remember;
  return (zapproval){.action = log->answer, .scope = log->scope, .note = log->note};
}

static void test_ask_mode_approver_allows(void **state) {
  fx *f = *state;
  f->agent.mode = ZPERM_ASK;
  approver_log log = {.answer = ZPERM_ALLOW};
  f->agent.approve = scripted_approver;
  f->agent.approve_ud = &log;
  fake_turn turns[] = {
      {.evs = {CALL("w1", "write_file", "{\"path\":\"new.txt\",\"content\":\"x\"}")}},
      {.evs = {TEXT("ok")}},
  };
  script(f, turns, 2);
  assert_int_equal(run(f), ZRUN_SUCCESS);
  assert_int_equal(log.calls, 1);
  assert_true(ws_exists(f, "new.txt"));
  long dec = find_ev(&f->sink, ZAEV_PERMISSION_DECISION, 0);
  assert_string_equal(f->sink.evs.items[dec].action, "allow");
}

static void test_ask_mode_approver_denies_with_note(void **state) {
  fx *f = *state;
  f->agent.mode = ZPERM_ASK;
  approver_log log = {.answer = ZPERM_DENY, .note = "use docs/ instead"};
  f->agent.approve = scripted_approver;
  f->agent.approve_ud = &log;
  fake_turn turns[] = {
      {.evs = {CALL("w1", "write_file", "{\"path\":\"new.txt\",\"content\":\"x\"}")}},
      {.evs = {TEXT("ok")}},
  };
  script(f, turns, 2);
  assert_int_equal(run(f), ZRUN_SUCCESS);
  assert_false(ws_exists(f, "new.txt"));
  long res = find_ev(&f->sink, ZAEV_TOOL_RESULT, 0);
  assert_false(f->sink.evs.items[res].ok);
  assert_contains(f->fp.seen_conv[1].items[2].content, "use docs/ instead");
}

/* Ask mode with the engine and grants: a "session" answer is remembered as a
 * path grant, so the second write to the same file is not asked again; both
 * decisions carry the grant (source user, then saved). */
static void test_session_answer_remembers_a_grant_for_the_run(void **state) {
  fx *f = *state;
  f->agent.mode = ZPERM_ASK;
  zgrants grants = {0};
  zperm_engine eng = {.mode = ZPERM_ASK, .tools = &f->ctx, .grants = &grants};
  f->agent.perm = &eng;
  approver_log log = {.answer = ZPERM_ALLOW, .scope = ZGRANT_SESSION};
  f->agent.approve = scripted_approver;
  f->agent.approve_ud = &log;
  fake_turn turns[] = {
      {.evs = {CALL("w1", "write_file", "{\"path\":\"a.txt\",\"content\":\"1\"}")}},
      {.evs = {CALL("w2", "write_file", "{\"path\":\"a.txt\",\"content\":\"2\"}")}},
      {.evs = {CALL("w3", "write_file", "{\"path\":\"b.txt\",\"content\":\"3\"}")}},
      {.evs = {TEXT("ok")}},
  };
  script(f, turns, 4);
  assert_int_equal(run(f), ZRUN_SUCCESS);
  assert_int_equal(log.calls, 2); /* a.txt once, b.txt (not covered) once */
  assert_true(log.last_can_remember);
  assert_contains(log.last_value, "/b.txt");
  assert_int_equal(count_ev(&f->sink, ZAEV_PERMISSION_REQUEST), 2);
  long d1 = find_ev(&f->sink, ZAEV_PERMISSION_DECISION, 0);
  assert_non_null(f->sink.evs.items[d1].grant);
  assert_contains(f->sink.evs.items[d1].grant, "\"source\":\"user\"");
  assert_contains(f->sink.evs.items[d1].grant, "\"scope\":\"session\"");
  assert_contains(f->sink.evs.items[d1].grant, "\"kind\":\"path\"");
  assert_contains(f->sink.evs.items[d1].grant, "/a.txt");
  long d2 = find_ev(&f->sink, ZAEV_PERMISSION_DECISION, (size_t)d1 + 1);
  assert_string_equal(f->sink.evs.items[d2].action, "allow");
  assert_contains(f->sink.evs.items[d2].grant, "\"source\":\"saved\"");
  assert_int_equal(grants.n, 2);
  zgrants_release(&grants);
}

/* "always" saves the grant to the grants file; a "deny always" answer is a
 * deny grant, and the denial's block reaches the decision event. */
static void test_always_answer_saves_the_grant(void **state) {
  fx *f = *state;
  f->agent.mode = ZPERM_ASK;
  char path[128];
  snprintf(path, sizeof path, "%s/grants.json", f->root);
  zgrants grants = {0};
  zerr err = ZERR_INIT;
  assert_int_equal(zgrants_load(&grants, path, "/nonexistent/mcp-permissions.json", &err), 0);
  zperm_engine eng = {.mode = ZPERM_ASK, .tools = &f->ctx, .grants = &grants};
  f->agent.perm = &eng;
  approver_log log = {.answer = ZPERM_DENY, .scope = ZGRANT_ALWAYS, .note = "not that file"};
  f->agent.approve = scripted_approver;
  f->agent.approve_ud = &log;
  fake_turn turns[] = {
      {.evs = {CALL("w1", "write_file", "{\"path\":\"c.txt\",\"content\":\"1\"}")}},
      {.evs = {TEXT("ok")}},
  };
  script(f, turns, 2);
  assert_int_equal(run(f), ZRUN_SUCCESS);
  long d1 = find_ev(&f->sink, ZAEV_PERMISSION_DECISION, 0);
  assert_string_equal(f->sink.evs.items[d1].action, "deny");
  assert_string_equal(f->sink.evs.items[d1].code, "user_denied");
  assert_contains(f->sink.evs.items[d1].block, "\"code\":\"user_denied\"");
  assert_contains(f->sink.evs.items[d1].block, "not that file");
  assert_contains(f->sink.evs.items[d1].grant, "\"action\":\"deny\"");
  assert_contains(f->sink.evs.items[d1].grant, "\"scope\":\"always\"");
  zgrants_release(&grants);
  /* the file now holds the deny grant; a new run is refused without asking */
  zgrants again = {0};
  assert_int_equal(zgrants_load(&again, path, "/nonexistent/mcp-permissions.json", &err), 0);
  assert_int_equal(again.n, 1);
  assert_false(again.v[0].allow);
  eng.grants = &again;
  zperm_decision d;
  json_t *args = json_pack("{s:s, s:s}", "path", "c.txt", "content", "2");
  d = zperm_decide(&eng, ztool_find("write_file"), args);
  json_decref(args);
  assert_int_equal(d.action, ZPERM_DENY);
  assert_string_equal(d.code, "grant_denied");
  zgrants_release(&again);
}

/* Headless (no approver): the prompt becomes a denial whose block (code,
 * reason, recoverable, what would allow it) is on the decision event. */
static void test_headless_denial_carries_the_block(void **state) {
  fx *f = *state;
  f->agent.mode = ZPERM_ASK;
  fake_turn turns[] = {
      {.evs = {CALL("w1", "write_file", "{\"path\":\"n.txt\",\"content\":\"x\"}")}},
      {.evs = {TEXT("ok")}},
  };
  script(f, turns, 2);
  assert_int_equal(run(f), ZRUN_SUCCESS);
  long dec = find_ev(&f->sink, ZAEV_PERMISSION_DECISION, 0);
  assert_string_equal(f->sink.evs.items[dec].action, "deny");
  assert_non_null(f->sink.evs.items[dec].block);
  assert_contains(f->sink.evs.items[dec].block, "\"recoverable\":true");
  assert_contains(f->sink.evs.items[dec].block, "\"allow\":");
  assert_null(f->sink.evs.items[dec].grant);
}

static void test_ask_mode_allows_reads_without_request(void **state) {
  fx *f = *state;
  f->agent.mode = ZPERM_ASK;
  write_ws(f, "r.txt", "readable\n");
  fake_turn turns[] = {
      {.evs = {CALL("r1", "read_file", "{\"path\":\"r.txt\"}")}},
      {.evs = {TEXT("ok")}},
  };
  script(f, turns, 2);
  assert_int_equal(run(f), ZRUN_SUCCESS);
  assert_int_equal(count_ev(&f->sink, ZAEV_PERMISSION_REQUEST), 0);
  long dec = find_ev(&f->sink, ZAEV_PERMISSION_DECISION, 0);
  assert_string_equal(f->sink.evs.items[dec].action, "allow");
  assert_contains(f->fp.seen_conv[1].items[2].content, "readable");
}

static void test_auto_mode_writes_file(void **state) {
  fx *f = *state;
  fake_turn turns[] = {
      {.evs = {CALL("w1", "write_file", "{\"path\":\"new.txt\",\"content\":\"hello\"}")}},
      {.evs = {TEXT("written")}},
  };
  script(f, turns, 2);
  assert_int_equal(run(f), ZRUN_SUCCESS);
  assert_true(ws_exists(f, "new.txt"));
  long res = find_ev(&f->sink, ZAEV_TOOL_RESULT, 0);
  assert_true(f->sink.evs.items[res].ok);
}

static void test_exec_command_denied_in_auto_mode(void **state) {
  fx *f = *state;
  fake_turn turns[] = {
      {.evs = {CALL("e1", "exec_command", "{\"cmd\":\"touch ran.txt\"}")}},
      {.evs = {TEXT("ok")}},
  };
  script(f, turns, 2);
  assert_int_equal(run(f), ZRUN_SUCCESS);
  assert_false(ws_exists(f, "ran.txt"));
  long dec = find_ev(&f->sink, ZAEV_PERMISSION_DECISION, 0);
  assert_true(dec >= 0);
  assert_string_equal(f->sink.evs.items[dec].action, "deny");
  assert_string_equal(f->sink.evs.items[dec].side_effect, "shell");
  assert_contains(f->sink.evs.items[dec].reason, "--auto high");
  assert_int_equal(f->fp.seen_conv[1].items[2].is_error, 1);
  assert_contains(f->fp.seen_conv[1].items[2].content, "--auto high");
}

static void test_exec_command_allowed_in_unsafe_mode(void **state) {
  fx *f = *state;
  f->agent.mode = ZPERM_UNSAFE;
  fake_turn turns[] = {
      {.evs = {CALL("e1", "exec_command", "{\"cmd\":\"touch ran.txt && echo marker-42\"}")}},
      {.evs = {TEXT("ok")}},
  };
  script(f, turns, 2);
  assert_int_equal(run(f), ZRUN_SUCCESS);
  assert_true(ws_exists(f, "ran.txt"));
  long dec = find_ev(&f->sink, ZAEV_PERMISSION_DECISION, 0);
  assert_string_equal(f->sink.evs.items[dec].action, "allow");
  assert_string_equal(f->sink.evs.items[dec].mode, "unsafe");
  long res = find_ev(&f->sink, ZAEV_TOOL_RESULT, 0);
  assert_true(f->sink.evs.items[res].ok);
  assert_contains(f->sink.evs.items[res].text, "marker-42");
}

static void test_usage_is_summed_across_turns(void **state) {
  fx *f = *state;
  write_ws(f, "n.txt", "x\n");
  fake_turn turns[] = {
      {.evs = {CALL("c1", "read_file", "{\"path\":\"n.txt\"}"),
               {.kind = ZPEV_USAGE, .usage = {10, 5, 15, 4, 1}}}},
      {.evs = {TEXT("done"), {.kind = ZPEV_USAGE, .usage = {20, 7, 27, 0, 3}}}},
  };
  script(f, turns, 2);
  assert_int_equal(run(f), ZRUN_SUCCESS);
  assert_int_equal(f->agent.usage.prompt_tokens, 30);
  assert_int_equal(f->agent.usage.completion_tokens, 12);
  assert_int_equal(f->agent.usage.total_tokens, 42);
  assert_int_equal(f->agent.usage.cached_tokens, 4);
  assert_int_equal(f->agent.usage.reasoning_tokens, 4);
  /* Each report is also an event carrying that turn's numbers and the model. */
  assert_int_equal(count_ev(&f->sink, ZAEV_USAGE), 2);
  long u1 = find_ev(&f->sink, ZAEV_USAGE, 0);
  long u2 = find_ev(&f->sink, ZAEV_USAGE, (size_t)u1 + 1);
  assert_int_equal(f->sink.evs.items[u1].usage.prompt_tokens, 10);
  assert_int_equal(f->sink.evs.items[u2].usage.prompt_tokens, 20);
  assert_string_equal(f->sink.evs.items[u2].model, "fake-model");
}

static void test_retry_becomes_warning(void **state) {
  fx *f = *state;
  fake_turn turns[] = {{.evs = {{.kind = ZPEV_RETRY, .text = "HTTP 503 from fake", .attempt = 2,
                                 .delay_ms = 1500},
                                TEXT("fine")}}};
  script(f, turns, 1);
  assert_int_equal(run(f), ZRUN_SUCCESS);
  long w = find_ev(&f->sink, ZAEV_WARNING, 0);
  assert_true(w >= 0);
  const char *msg = f->sink.evs.items[w].text;
  assert_contains(msg, "HTTP 503 from fake");
  assert_contains(msg, "attempt 2");
  assert_contains(msg, "1.5 s");
  /* A retry is not an answer: the text is only what came after it. */
  assert_string_equal(f->agent.final_text, "fine");
}

static void test_retry_without_text_still_says_what_failed(void **state) {
  fx *f = *state;
  fake_turn turns[] = {{.evs = {{.kind = ZPEV_RETRY, .attempt = 3, .delay_ms = 250},
                                TEXT("fine")}}};
  script(f, turns, 1);
  assert_int_equal(run(f), ZRUN_SUCCESS);
  long w = find_ev(&f->sink, ZAEV_WARNING, 0);
  assert_true(w >= 0);
  assert_contains(f->sink.evs.items[w].text, "provider request failed");
  assert_contains(f->sink.evs.items[w].text, "attempt 3");
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

/* Hole 2: an approved escalation belongs to its call. The spawner records
 * what each request it wraps asks for (and refuses it, so nothing runs):
 * an approved require_escalated call that fails before it spawns (its
 * workdir does not exist) leaves nothing behind, so the plain command after
 * it is an ordinary sandboxed request; the next approved escalation reaches
 * its own request only. */
typedef struct wrap_log {
  zspawner base;
  int n;
  bool network[8], unsandboxed[8];
} wrap_log;

static int recording_wrap(zspawner *s, zspawn_cmd *cmd, zerr *err) {
  wrap_log *w = (wrap_log *)s;
  if (w->n < 8) {
    w->network[w->n] = cmd->network;
    w->unsandboxed[w->n] = cmd->unsandboxed;
  }
  w->n++;
  return zerr_set(err, ZE_IO, "recorded, not run");
}

static void test_escalation_travels_with_its_call_only(void **state) {
  fx *f = *state;
  wrap_log w = {.base = {.wrap = recording_wrap}};
  f->ctx.spawner = &w.base;
  zperm_engine eng = {.mode = ZPERM_AUTO, .tools = &f->ctx, .sandbox_active = true};
  f->agent.mode = ZPERM_AUTO;
  f->agent.perm = &eng;
  approver_log log = {.answer = ZPERM_ALLOW, .scope = ZGRANT_ONCE};
  f->agent.approve = scripted_approver;
  f->agent.approve_ud = &log;
  fake_turn turns[] = {
      {.evs = {CALL("e1", "exec_command",
                    "{\"cmd\":\"touch /tmp/x\",\"workdir\":\"no-such-dir\","
                    "\"sandbox_permissions\":\"require_escalated\"}")}},
      {.evs = {CALL("e2", "exec_command", "{\"cmd\":\"touch marker\"}")}},
      {.evs = {CALL("e3", "exec_command",
                    "{\"cmd\":\"echo hi\",\"sandbox_permissions\":"
                    "\"with_additional_permissions\"}")}},
      {.evs = {CALL("e4", "exec_command", "{\"cmd\":\"echo plain\"}")}},
      {.evs = {TEXT("ok")}},
  };
  script(f, turns, 5);
  assert_int_equal(run(f), ZRUN_SUCCESS);
  assert_int_equal(log.calls, 2); /* the two escalations were asked */
  assert_int_equal(w.n, 3);       /* e1 never reached the spawner */
  assert_false(w.unsandboxed[0]); /* e2: plain, in the sandbox */
  assert_false(w.network[0]);
  assert_true(w.network[1]);      /* e3: its own network */
  assert_false(w.unsandboxed[1]);
  assert_false(w.network[2]);     /* e4: plain again */
  assert_false(w.unsandboxed[2]);
  f->ctx.spawner = NULL;
}

int main(void) {
  const struct CMUnitTest tests[] = {
      T(test_plain_answer_succeeds_and_appends_assistant),
      T(test_reasoning_is_kept_on_the_assistant_message),
      T(test_tool_round_trip_reads_file_and_feeds_result_back),
      T(test_two_calls_in_one_turn_each_get_a_result),
      T(test_malformed_arguments_give_error_result_and_loop_continues),
      T(test_consecutive_read_only_calls_run_in_parallel_in_order),
      T(test_lost_record_stops_before_the_request),
      T(test_lost_record_mid_turn_runs_no_tool),
      T(test_unrecorded_call_is_not_run),
      T(test_unknown_tool_is_an_error_result_without_permission_events),
      T(test_session_answer_remembers_a_grant_for_the_run),
      T(test_escalation_travels_with_its_call_only),
      T(test_always_answer_saves_the_grant),
      T(test_headless_denial_carries_the_block),
      T(test_max_turns_reached_is_incomplete),
      T(test_max_turns_one_with_plain_answer_succeeds),
      T(test_provider_error_propagates_and_keeps_partial_text),
      T(test_provider_error_without_text_adds_no_message),
      T(test_cancel_before_run_is_interrupted_without_request),
      T(test_cancel_while_streaming_is_interrupted_with_partial_text),
      T(test_cancel_after_call_streamed_drops_the_turn),
      T(test_cancel_during_tool_stops_before_next_request),
      T(test_plan_mode_denies_write_and_hides_write_tools),
      T(test_ask_mode_requests_then_denies_write),
      T(test_ask_mode_approver_allows),
      T(test_ask_mode_approver_denies_with_note),
      T(test_ask_mode_allows_reads_without_request),
      T(test_auto_mode_writes_file),
      T(test_exec_command_denied_in_auto_mode),
      T(test_exec_command_allowed_in_unsafe_mode),
      T(test_usage_is_summed_across_turns),
      T(test_retry_becomes_warning),
      T(test_retry_without_text_still_says_what_failed),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
