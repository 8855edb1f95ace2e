/* task.c — the sub-agent tools; see task.h. */
#include "subagent/task.h"

#include <assert.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "agent/tool_table.h"
#include "base/common.h"
#include "base/ids.h"
#include "base/json.h"
#include "base/strvec.h"
#include "base/time.h"
#include "base/path.h"
#include "session/store.h"
#include "subagent/child.h"
#include "subagent/defs.h"
#include "subagent/runtime.h"
#include "subagent/worktree.h"

#define STOP_GRACE_MS 1000
#define IDLE_TIMEOUT_MS (10 * 60 * 1000) /* a child silent this long is hung */
#define MAX_WAIT_MS (10 * 60 * 1000)

/* ---- depth ------------------------------------------------------------------ */

static int env_int(const char *name, int lo, int hi, int def) {
  const char *v = getenv(name);
  if (!v || !*v) return def;
  char *end;
  errno = 0;
  long n = strtol(v, &end, 10);
  return errno || *end || n < lo || n > hi ? def : (int)n;
}

int zsub_depth(void) { return env_int("ZERO_SUBAGENT_DEPTH", 0, 64, 0); }
int zsub_max_depth(void) { return env_int("ZERO_SUBAGENT_MAX_DEPTH", 1, 8, 2); }

/* ---- schemas ---------------------------------------------------------------- */

static const char TASK_SCHEMA[] =
    "{\"type\":\"object\",\"properties\":{"
    "\"description\":{\"type\":\"string\",\"description\":\"a short (3-5 word) label\"},"
    "\"prompt\":{\"type\":\"string\",\"description\":\"the whole task: the sub-agent sees "
    "nothing else of this conversation\"},"
    "\"agent\":{\"type\":\"string\",\"description\":\"the specialist (default general)\"},"
    "\"background\":{\"type\":\"boolean\",\"description\":\"return a task id at once; poll "
    "with task_output\"},"
    "\"resume\":{\"type\":\"string\",\"description\":\"continue the sub-agent session with "
    "this id\"},"
    "\"isolation\":{\"type\":\"string\",\"enum\":[\"none\",\"worktree\"],\"description\":"
    "\"worktree: the sub-agent works in a git worktree of its own (parallel writers never "
    "collide); the result names its branch and diff stat\"}},"
    "\"required\":[\"description\",\"prompt\"],\"additionalProperties\":false}";

static const char OUTPUT_SCHEMA[] =
    "{\"type\":\"object\",\"properties\":{"
    "\"task_id\":{\"type\":\"string\"},"
    "\"wait_ms\":{\"type\":\"integer\",\"description\":\"wait up to this long for the end "
    "(default 0: report at once)\"}},"
    "\"required\":[\"task_id\"],\"additionalProperties\":false}";

static const char STOP_SCHEMA[] =
    "{\"type\":\"object\",\"properties\":{\"task_id\":{\"type\":\"string\"}},"
    "\"required\":[\"task_id\"],\"additionalProperties\":false}";

static const char ASK_SCHEMA[] = "{\"type\":\"object\",\"properties\":{"
                                 "\"question\":{\"type\":\"string\"},"
                                 "\"choices\":{\"type\":\"array\",\"items\":{\"type\":\"string\"},"
                                 "\"description\":\"optional answers to pick from\"}},"
                                 "\"required\":[\"question\"],\"additionalProperties\":false}";

/* task runs a child; the rest only report. */
static const ztool_def TOOLS[] = {
    {"task", NULL, TASK_SCHEMA, "shell"},
    {"task_output",
     "The progress or final answer of a background task (task with background: true).",
     OUTPUT_SCHEMA, "none"},
    {"task_stop", "Stop a background task and everything it started.", STOP_SCHEMA, "none"},
    {"ask_user",
     "Ask the user a question (optionally with choices) when you cannot proceed without their "
     "decision. Without a user the answer says so: then proceed on your best judgement.",
     ASK_SCHEMA, "none"},
};

static bool tool_allowed(void *ud, const char *name) {
  const zsub_runtime *r = ud;
  if (zsub_swarm_tool(name) && !zsub_swarm_offered(r, name)) return false;
  /* a member always has its mailbox, whatever its definition lists */
  if (!strcmp(name, "swarm_send") || !strcmp(name, "swarm_inbox"))
    if (getenv("ZERO_SWARM_MEMBER")) return true;
  if (!r->restricted) return true;
  for (char **a = r->allowed; a && *a; a++)
    if (!strcmp(*a, name)) return true;
  return false;
}

/* The description of task: the specialists, so the model knows whom to ask. */
static char *task_description(const zsub_runtime *r) {
  zbuf b = ZBUF_INIT;
  zbuf_addstr(&b, "Delegate a focused job to a sub-agent with its own context and tools; you "
                  "get back only its final answer. Specialists:\n");
  zsub_defs d;
  zsub_defs_load(&d, r->workspace);
  for (size_t i = 0; i < d.n; i++)
    if (!d.v[i].error)
      zbuf_addf(&b, "- %s: %s\n", d.v[i].name, d.v[i].description ? d.v[i].description : "");
  zsub_defs_release(&d);
  return zbuf_detach(&b, NULL);
}

/* The one description TOOLS leaves open: task's. */
static const char *tool_description(void *ud, const ztool_def *d, char **owned) {
  (void)d;
  return *owned = task_description(ud);
}

/* ---- events to the parent's sinks ------------------------------------------ */

static void emit_start(zagent *a, const char *call_id, const char *agent, const char *child_id,
                       const char *description) {
  zagent_event ev = {.kind = ZAEV_SUBAGENT_START,
                     .subagent = {.call_id = call_id,
                                  .agent = agent,
                                  .child_session_id = child_id,
                                  .description = description}};
  zagent_emit(a, &ev);
}

static void emit_child_event(zagent *a, const char *call_id, const char *agent,
                             const char *child_id, const json_t *child_ev) {
  zagent_event ev = {.kind = ZAEV_SUBAGENT_EVENT,
                     .subagent = {.call_id = call_id,
                                  .agent = agent,
                                  .child_session_id = child_id,
                                  .event = child_ev}};
  zagent_emit(a, &ev);
}

static void emit_end(zagent *a, const char *call_id, const char *agent, const zsub_outcome *o,
                     const char *status, const char *message) {
  zagent_event ev = {.kind = ZAEV_SUBAGENT_END,
                     .subagent = {.call_id = call_id,
                                  .agent = agent,
                                  .child_session_id = o->session_id,
                                  .status = status,
                                  .message = message,
                                  .exit_code = o->exit_code,
                                  .usage = o->usage}};
  zagent_emit(a, &ev);
  /* The hooks' observer (ext/ext.c) fires subagentStop on this event. */
}

/* ---- the result --------------------------------------------------------------- */

static json_t *usage_meta(const zusage *u) {
  return json_pack("{s:I, s:I, s:I, s:I, s:I}", "promptTokens", (json_int_t)u->prompt_tokens,
                   "completionTokens", (json_int_t)u->completion_tokens, "totalTokens",
                   (json_int_t)u->total_tokens, "cachedInputTokens", (json_int_t)u->cached_tokens,
                   "reasoningTokens", (json_int_t)u->reasoning_tokens);
}

/* The status a finished child is reported with. */
static const char *outcome_status(const zsub_outcome *o, const zsub_child *c, bool stopped,
                                  bool idle) {
  if (stopped) return "stopped";
  if (idle) return "timeout";
  if (o->malformed) return "malformed";
  if (!o->ended) return "crashed";
  if (o->exit_code == 0 && o->final_text) return "success";
  (void)c;
  return o->status ? o->status : "error";
}

/* Fills res from a finished child: its final answer alone, or an error that
 * says what happened and where its session is. */
static void outcome_result(const char *agent, const zsub_outcome *o, const zsub_child *c,
                           const char *status, ztool_result *res) {
  res->meta = json_pack("{s:s, s:s, s:s?, s:o, s:i}", "agent", agent, "status", status, "sessionId",
                        o->session_id, "usage", usage_meta(&o->usage), "toolCalls", o->tool_calls);
  if (!strcmp(status, "success")) {
    zbuf_addstr(&res->output, o->final_text);
    return;
  }
  res->is_error = true;
  zbuf_addf(&res->output, "sub-agent \"%s\" did not finish (%s): ", agent, status);
  if (!strcmp(status, "stopped")) zbuf_addstr(&res->output, "it was stopped");
  else if (!strcmp(status, "timeout"))
    zbuf_addstr(&res->output, "it printed nothing for too long and was stopped");
  else if (!strcmp(status, "malformed"))
    zbuf_addstr(&res->output, "its output was not stream-json; it was stopped");
  else if (o->error) zbuf_addstr(&res->output, o->error);
  else {
    zbuf_addstr(&res->output, "the child process ");
    zsub_child_describe_exit(c, &res->output);
  }
  if (o->diag.len && !o->ended) zbuf_addf(&res->output, "\nits last output:\n%s", o->diag.data);
  if (o->session_id)
    zbuf_addf(&res->output, "\nIts session %s stays readable (zero sessions show %s).",
              o->session_id, o->session_id);
}

/* ---- starting a child ------------------------------------------------------- */

/* A session the parent may resume: one of its own children. */
static int check_resume(const zsub_runtime *r, const char *id, ztool_result *res) {
  if (!zid_is_safe(id)) return ztool_fail(res, "resume: \"%s\" is not a session id", id);
  char *root = zsession_root();
  char *dir = zpath_join(root, id);
  char *file = zpath_join(dir, "metadata.json");
  zerr err = ZERR_INIT;
  json_t *m = zjson_load_file(file, &err);
  free(file);
  free(dir);
  free(root);
  const char *parent = m ? zjson_str(m, "parentSessionId") : NULL;
  bool mine = parent && r->session_id && !strcmp(parent, r->session_id);
  json_decref(m);
  if (!mine)
    return ztool_fail(res,
                      "resume: session %s is not a sub-agent session of this run (resume only "
                      "the sessionId a task of this session returned)",
                      id);
  return 0;
}

int zsub_task_parse(const zsub_runtime *r, const json_t *args, task_req *q, ztool_result *res) {
  q->description = zjson_str_or(args, "description", "");
  q->prompt = zjson_str(args, "prompt");
  q->agent = zjson_str_or(args, "agent", "general");
  q->resume = zjson_str(args, "resume");
  q->background = zjson_bool_or(args, "background", false);
  if (!q->prompt || !q->prompt[0]) return ztool_fail(res, "task needs a prompt: the whole job");
  if (r->depth >= r->max_depth)
    return ztool_fail(res,
                      "task refused: this run is a sub-agent at depth %d and the limit is %d, "
                      "so it cannot delegate further; do the work yourself",
                      r->depth, r->max_depth);
  zsub_defs_load(&q->defs, r->workspace);
  q->def = zsub_defs_find(&q->defs, q->agent);
  if (!q->def) {
    zbuf names = ZBUF_INIT;
    for (size_t i = 0; i < q->defs.n; i++)
      zbuf_addf(&names, "%s%s", i ? ", " : "", q->defs.v[i].name);
    ztool_fail(res, "unknown agent \"%s\"; the specialists are: %s (zero agents list)", q->agent,
               names.data ? names.data : "");
    zbuf_release(&names);
    return -1;
  }
  if (q->def->error)
    return ztool_fail(res, "agent \"%s\" (%s) cannot be used: %s", q->def->name, q->def->source,
                      q->def->error);
  if (q->resume && check_resume(r, q->resume, res) < 0) return -1;
  char uuid[ZID_UUID_LEN];
  zid_uuid7(uuid);
  snprintf(q->child_id, sizeof q->child_id, "sub-%s", uuid);
  const char *iso = zjson_str(args, "isolation");
  if (iso && strcmp(iso, "worktree") && strcmp(iso, "none"))
    return ztool_fail(res, "isolation must be \"worktree\" or \"none\", not \"%s\"", iso);
  if (iso ? !strcmp(iso, "worktree") : q->def->worktree) zwt_new_name("sub", q->worktree);
  if (q->worktree[0] && q->resume)
    return ztool_fail(res, "a resumed sub-agent keeps the checkout it had: give isolation only "
                           "to a new task");
  return 0;
}

static int task_start(const zsub_runtime *r, const zagent *a, const task_req *q, zsub_child *c,
                      ztool_result *res) {
  const zsub_def *d = q->def;
  assert(d); /* task_prepare found it, or the call ended there */
  zsub_launch l = {.self_exe = r->self_exe,
                   .workspace = r->workspace,
                   .add_dirs = (const char *const *)r->add_dirs,
                   .n_add_dirs = r->n_add_dirs,
                   .agent = d->name,
                   .session_id = q->resume ? NULL : q->child_id,
                   .resume_id = q->resume,
                   .parent_session = q->resume ? NULL : r->session_id,
                   .provider = r->provider,
                   .model = d->model ? d->model : r->model,
                   .reasoning_effort =
                       d->reasoning_effort ? d->reasoning_effort : r->reasoning_effort,
                   .mode = zsub_child_mode(zagent_mode(a), d->permission_mode),
                   .autonomy = a->perm ? a->perm->autonomy : ZAUTO_LOW,
                   .offline = r->offline,
                   .depth = r->depth + 1,
                   .worktree = q->worktree[0] ? q->worktree : NULL,
                   .env = q->env,
                   .prompt = q->prompt};
  zerr err = ZERR_INIT;
  if (zsub_child_start(&l, c, &err) < 0)
    return ztool_fail(res, "cannot start the sub-agent: %s", err.msg);
  return 0;
}

/* ---- the child's worktree ----------------------------------------------------- */

/* Adds what a child with a worktree left there to its result: meta
 * "worktree" {name, path, branch, base, dirty, ahead, changed, stat, kept}
 * and, in the text, where its changes are (the orchestrator merges them). */
static void worktree_report(const zsub_runtime *r, const char *name, ztool_result *res) {
  if (!name || !name[0]) return;
  zwt w;
  zerr err = ZERR_INIT;
  if (zwt_open(r->workspace, name, &w, &err) < 0) {
    /* removed at the child's end: it changed nothing (or never made it) */
    if (res->meta)
      json_object_set_new(res->meta, "worktree",
                          json_pack("{s:s, s:b, s:b}", "name", name, "kept", 0, "changed", 0));
    if (!res->is_error)
      zbuf_addstr(&res->output, "\n\n(Its worktree held no changes and was removed.)");
    return;
  }
  zwt_state st;
  if (zwt_inspect(&w, &st, &err) == 0) {
    json_t *j = zwt_json(&w, &st);
    json_object_set_new(j, "kept", json_true());
    if (res->meta) json_object_set_new(res->meta, "worktree", j);
    else json_decref(j);
    zbuf_addf(&res->output, "\n\nIts changes are in the worktree %s on branch %s:\n%s", w.path,
              w.branch, st.stat.data ? st.stat.data : "");
  }
  zwt_state_release(&st);
  zwt_release(&w);
}

/* ---- a task the call waits for ------------------------------------------------ */

typedef struct sync_run {
  zagent *a;
  const char *call_id;
  const char *agent;
  zsub_outcome o;
  zsub_relay_ctx relay;
} sync_run;

/* A request of a child the worker waits for: the parent's engine may judge
 * it (relay.h). */
static void sync_relay(void *ud, zsub_child *c, const char *line, size_t len) {
  sync_run *s = ud;
  zsub_relay_answer(&s->relay, c->relay_fd, line, len);
}

static void sync_line(void *ud, const char *line, size_t len, bool diag) {
  sync_run *s = ud;
  if (diag) {
    zsub_outcome_diag(&s->o, line, len);
    return;
  }
  json_t *ev = zsub_outcome_line(&s->o, line, len);
  if (!ev) return;
  const char *type = zjson_str_or(ev, "type", "");
  /* Text deltas stay in the child's session: the card shows steps. */
  if (strcmp(type, "text") && strcmp(type, "reasoning"))
    emit_child_event(s->a, s->call_id, s->agent, s->o.session_id, ev);
  json_decref(ev);
}

static void task_wait(zsub_runtime *r, zagent *a, const ztool_call *call, task_req *q,
                      ztool_result *res) {
  zsub_child c;
  if (task_start(r, a, q, &c, res) < 0) return;
  sync_run s = {.a = a, .call_id = call->id, .agent = q->def->name};
  s.relay = (zsub_relay_ctx){.a = a,
                             .agent = q->def->name,
                             .on_worker = true,
                             .ask = r->ask,
                             .ask_ud = r->ask_ud,
                             .serial = &r->relay_mu};
  c.on_relay = sync_relay;
  c.relay_ud = &s;
  s.o.session_id = xstrdup(q->resume ? q->resume : q->child_id);
  emit_start(a, call->id, q->def->name, s.o.session_id, q->description);
  bool stopped = false, idle = false;
  int64_t last = ztime_mono_ms();
  for (;;) {
    zsub_pump_end e = zsub_child_pump(&c, 1000, true, sync_line, &s);
    if (e == ZSUB_EOF) break;
    if (e == ZSUB_MORE) last = ztime_mono_ms();
    bool hung = ztime_mono_ms() - last >= r->idle_ms;
    if (e == ZSUB_CANCELLED || hung || s.o.malformed) {
      stopped = e == ZSUB_CANCELLED;
      idle = hung;
      zsub_child_stop(&c, STOP_GRACE_MS);
      break;
    }
  }
  zsub_child_reap(&c, true);
  const char *status = outcome_status(&s.o, &c, stopped, idle);
  outcome_result(q->def->name, &s.o, &c, status, res);
  worktree_report(r, q->worktree, res);
  emit_end(a, call->id, q->def->name, &s.o, status, res->is_error ? res->output.data : NULL);
  zsub_child_release(&c);
  zsub_outcome_release(&s.o);
}

/* ---- background tasks ----------------------------------------------------------- */

/* A background child's request, on its reader thread: only the parent's
 * user answers (relay.h), one request at a time. */
static void bg_relay(void *ud, zsub_child *c, const char *line, size_t len) {
  bg_task *t = ud;
  zsub_relay_answer(&t->relay, c->relay_fd, line, len);
}

static void bg_line(void *ud, const char *line, size_t len, bool diag) {
  bg_task *t = ud;
  pthread_mutex_lock(&t->mu);
  if (diag) zsub_outcome_diag(&t->outcome, line, len);
  else json_decref(zsub_outcome_line(&t->outcome, line, len));
  pthread_mutex_unlock(&t->mu);
}

/* The reader: folds the child's stream until it ends (or hangs, or prints
 * garbage), then reaps it. The only thread that reads the child's output. */
static void *bg_reader(void *arg) {
  bg_task *t = arg;
  int idle_ms = t->idle_ms;
  int64_t last = ztime_mono_ms();
  for (;;) {
    zsub_pump_end e = zsub_child_pump(&t->child, 1000, false, bg_line, t);
    if (e == ZSUB_EOF) break;
    if (e == ZSUB_MORE) last = ztime_mono_ms();
    pthread_mutex_lock(&t->mu);
    bool bad = t->outcome.malformed, stop = t->stop_asked;
    pthread_mutex_unlock(&t->mu);
    if (stop) break;
    if (bad || ztime_mono_ms() - last >= idle_ms) {
      pthread_mutex_lock(&t->mu);
      t->idle_killed = !bad;
      pthread_mutex_unlock(&t->mu);
      zsub_child_stop(&t->child, STOP_GRACE_MS);
      break;
    }
  }
  pthread_mutex_lock(&t->mu);
  bool stop = t->stop_asked;
  pthread_mutex_unlock(&t->mu);
  if (stop) zsub_child_stop(&t->child, STOP_GRACE_MS);
  zsub_child_reap(&t->child, true); /* this thread alone reaps: no pid is reused under us */
  pthread_mutex_lock(&t->mu);
  t->done = true;
  pthread_cond_broadcast(&t->cv);
  pthread_mutex_unlock(&t->mu);
  return NULL;
}

/* The i-th task a user watching the run sees: the background tasks, then
 * the started swarm members (team set to the member's team, else NULL);
 * NULL past the last. r->bg_mu held. */
static bg_task *watched_task_at(const zsub_runtime *r, size_t i, const char **team) {
  const char *member;
  *team = NULL;
  if (i < r->nbg) return r->bg[i];
  return zsub_swarm_task_at_locked(r, i - r->nbg, team, &member);
}

static bg_task *bg_find(zsub_runtime *r, const char *id) {
  for (size_t i = 0; id && i < r->nbg; i++)
    if (!strcmp(r->bg[i]->id, id)) return r->bg[i];
  return NULL;
}

/* The background task or swarm member with id ("bg-N": one counter for
 * both), or NULL. r->bg_mu held. */
static bg_task *watched_find(const zsub_runtime *r, const char *id) {
  const char *team;
  bg_task *t;
  for (size_t i = 0; id && (t = watched_task_at(r, i, &team)); i++)
    if (!strcmp(t->id, id)) return t;
  return NULL;
}

/* Removes the oldest finished task to make room; false when all run.
 * r->bg_mu held. */
static bool bg_make_room(zsub_runtime *r) {
  if (r->nbg < MAX_BACKGROUND) return true;
  for (size_t i = 0; i < r->nbg; i++) {
    pthread_mutex_lock(&r->bg[i]->mu);
    bool done = r->bg[i]->done;
    pthread_mutex_unlock(&r->bg[i]->mu);
    if (!done) continue;
    zsub_bg_free(r->bg[i]);
    // NOLINTNEXTLINE(bugprone-sizeof-expression): an array of pointers
    memmove(&r->bg[i], &r->bg[i + 1], (r->nbg - i - 1) * sizeof r->bg[0]);
    r->nbg--;
    return true;
  }
  return false;
}

bg_task *zsub_bg_launch(zsub_runtime *r, zagent *a, const char *call_id, const task_req *q,
                        ztool_result *res) {
  bg_task *t = xcalloc(1, sizeof *t);
  if (task_start(r, a, q, &t->child, res) < 0) {
    free(t);
    return NULL;
  }
  snprintf(t->id, sizeof t->id, "bg-%d", ++r->bg_started);
  t->agent = xstrdup(q->def->name);
  t->description = xstrdup(q->description);
  snprintf(t->worktree, sizeof t->worktree, "%s", q->worktree);
  t->call_id = xstrdup(call_id ? call_id : "");
  t->outcome.session_id = xstrdup(q->resume ? q->resume : q->child_id);
  t->idle_ms = r->idle_ms;
  t->relay = (zsub_relay_ctx){.a = a,
                              .agent = t->agent,
                              .on_worker = false,
                              .ask = r->ask,
                              .ask_ud = r->ask_ud,
                              .serial = &r->relay_mu};
  t->child.on_relay = bg_relay;
  t->child.relay_ud = t;
  pthread_mutex_init(&t->mu, NULL);
  pthread_cond_init(&t->cv, NULL);
  if (pthread_create(&t->reader, NULL, bg_reader, t) != 0) {
    zsub_child_stop(&t->child, 0);
    zsub_child_reap(&t->child, true);
    t->joined = true;
    zsub_bg_free(t);
    ztool_fail(res, "cannot start a reader thread for the background task");
    return NULL;
  }
  emit_start(a, call_id, t->agent, t->outcome.session_id, t->description);
  return t;
}

static void task_background(zsub_runtime *r, zagent *a, const ztool_call *call, task_req *q,
                            ztool_result *res) {
  pthread_mutex_lock(&r->bg_mu);
  bool room = bg_make_room(r);
  pthread_mutex_unlock(&r->bg_mu);
  if (!room) {
    ztool_fail(res, "%d background tasks are running; stop one with task_stop first",
               MAX_BACKGROUND);
    return;
  }
  bg_task *t = zsub_bg_launch(r, a, call->id, q, res);
  if (!t) return;
  pthread_mutex_lock(&r->bg_mu);
  r->bg[r->nbg++] = t;
  pthread_mutex_unlock(&r->bg_mu);
  zbuf_addf(&res->output,
            "Started background task %s (agent %s, session %s). Poll it with task_output "
            "{\"task_id\": \"%s\"}; stop it with task_stop.",
            t->id, t->agent, t->outcome.session_id, t->id);
  res->meta = json_pack("{s:s, s:s, s:s, s:s}", "taskId", t->id, "agent", t->agent, "sessionId",
                        t->outcome.session_id, "status", "running");
}

void zsub_bg_free(bg_task *t) {
  if (!t->joined) pthread_join(t->reader, NULL);
  zsub_child_release(&t->child);
  zsub_outcome_release(&t->outcome);
  pthread_mutex_destroy(&t->mu);
  pthread_cond_destroy(&t->cv);
  free(t->agent);
  free(t->description);
  free(t->call_id);
  free(t);
}

/* Waits until t is done or wait_ms passed. Called with t->mu held. */
void zsub_bg_wait_locked(bg_task *t, int64_t wait_ms) {
  if (wait_ms <= 0) return;
  struct timespec until = ztime_realtime_after(wait_ms);
  while (!t->done)
    if (pthread_cond_timedwait(&t->cv, &t->mu, &until) == ETIMEDOUT) break;
}

/* The report of a task: progress while it runs; the final answer (and the
 * one subagent_end) once done. Called with t->mu held. */
const char *zsub_bg_status_locked(const bg_task *t) {
  return outcome_status(&t->outcome, &t->child, t->stop_asked, t->idle_killed);
}

void zsub_bg_report_locked(const zsub_runtime *r, zagent *a, bg_task *t, ztool_result *res) {
  if (!t->done) {
    zbuf_addf(&res->output, "Task %s (agent %s) is still running: %d tool call%s so far%s%s.",
              t->id, t->agent, t->outcome.tool_calls, t->outcome.tool_calls == 1 ? "" : "s",
              t->outcome.step ? ", now " : "", t->outcome.step ? t->outcome.step : "");
    res->meta = json_pack("{s:s, s:s, s:s, s:i}", "taskId", t->id, "agent", t->agent, "status",
                          "running", "toolCalls", t->outcome.tool_calls);
    return;
  }
  const char *status = outcome_status(&t->outcome, &t->child, t->stop_asked, t->idle_killed);
  outcome_result(t->agent, &t->outcome, &t->child, status, res);
  json_object_set_new(res->meta, "taskId", json_string(t->id));
  worktree_report(r, t->worktree, res);
  if (!t->end_reported) { /* a poll racing the exit reports it once */
    t->end_reported = true;
    emit_end(a, t->call_id, t->agent, &t->outcome, status, res->is_error ? res->output.data : NULL);
  }
}

static void task_output(zsub_runtime *r, zagent *a, const ztool_call *call, const json_t *args,
                        ztool_result *res) {
  bg_task *t = bg_find(r, zjson_str(args, "task_id"));
  if (!t) {
    ztool_fail(res, "no background task \"%s\" in this run", zjson_str_or(args, "task_id", ""));
    return;
  }
  int64_t wait = zjson_int_or(args, "wait_ms", 0);
  if (wait > MAX_WAIT_MS) wait = MAX_WAIT_MS;
  pthread_mutex_lock(&t->mu);
  zsub_bg_wait_locked(t, wait);
  zsub_bg_report_locked(r, a, t, res);
  pthread_mutex_unlock(&t->mu);
}

/* Asks the reader to stop the child and waits for it to be reaped. */
void zsub_bg_stop(bg_task *t) {
  pthread_mutex_lock(&t->mu);
  t->stop_asked = !t->done || t->stop_asked;
  pthread_mutex_unlock(&t->mu);
  if (!t->joined) pthread_join(t->reader, NULL);
  t->joined = true;
}

static void task_stop(zsub_runtime *r, zagent *a, const ztool_call *call, const json_t *args,
                      ztool_result *res) {
  bg_task *t = bg_find(r, zjson_str(args, "task_id"));
  if (!t) {
    ztool_fail(res, "no background task \"%s\" in this run", zjson_str_or(args, "task_id", ""));
    return;
  }
  bool was_done;
  pthread_mutex_lock(&t->mu);
  was_done = t->done;
  pthread_mutex_unlock(&t->mu);
  if (!was_done) zsub_bg_stop(t);
  pthread_mutex_lock(&t->mu);
  zsub_bg_report_locked(r, a, t, res);
  pthread_mutex_unlock(&t->mu);
  if (was_done) return;
  ztool_result_release(res);
  *res = (ztool_result)ZTOOL_RESULT_INIT;
  zbuf_addf(&res->output, "Stopped task %s (agent %s) and every process it started.", t->id,
            t->agent);
  res->meta = json_pack("{s:s, s:s}", "taskId", t->id, "status", "stopped");
}

/* ---- ask_user ------------------------------------------------------------------ */

static void ask_user(zsub_runtime *r, zagent *a, const ztool_call *call, const json_t *args,
                     ztool_result *res) {
  const char *q = zjson_str(args, "question");
  if (!q || !q[0]) {
    ztool_fail(res, "ask_user needs a question");
    return;
  }
  const json_t *choices = json_object_get(args, "choices");
  zagent_event ev = {.kind = ZAEV_QUESTION,
                     .question = {.id = call->id,
                                  .question = q,
                                  .choices = json_is_array(choices) ? choices : NULL}};
  zagent_emit(a, &ev);
  char *answer = r->ask ? r->ask(r->ask_ud, q, ev.question.choices) : NULL;
  if (!answer) {
    zbuf_addstr(&res->output, "No user is available to answer (a headless run). Proceed on your "
                              "best judgement and say what you assumed.");
    res->meta = json_pack("{s:b}", "answered", 0);
    return;
  }
  zbuf_addstr(&res->output, answer);
  res->meta = json_pack("{s:b}", "answered", 1);
  free(answer);
}

/* ---- the source --------------------------------------------------------------- */

static void task_run(zsub_runtime *r, zagent *a, const ztool_call *call, const json_t *args,
                     ztool_result *res) {
  task_req q = {0};
  if (zsub_task_parse(r, args, &q, res) == 0) {
    if (q.background) task_background(r, a, call, &q, res);
    else task_wait(r, a, call, &q, res);
  }
  zsub_defs_release(&q.defs);
}

static void src_invoke(void *ud, zagent *a, const ztool_call *call, ztool_result *res) {
  zsub_runtime *r = ud;
  const ztool_call *c = call;
  json_error_t jerr;
  const char *text = c->arguments && c->arguments[0] ? c->arguments : "{}";
  json_t *args = json_loads(text, 0, &jerr);
  if (!json_is_object(args)) {
    json_decref(args);
    ztool_fail(res, "%s: the arguments are not a JSON object (%s)", c->name, jerr.text);
    return;
  }
  if (zsub_swarm_tool(c->name)) zsub_swarm_invoke(r, a, c, args, res);
  else if (!strcmp(c->name, "task")) task_run(r, a, c, args, res);
  else if (!strcmp(c->name, "task_output")) task_output(r, a, c, args, res);
  else if (!strcmp(c->name, "ask_user")) ask_user(r, a, c, args, res);
  else task_stop(r, a, c, args, res);
  json_decref(args);
}

static char *dup_or_null(const char *s) { return s ? xstrdup(s) : NULL; }

zsub_runtime *zsub_runtime_new(const zsub_runtime_opts *o) {
  zsub_runtime *r = xcalloc(1, sizeof *r);
  r->self_exe = zpath_self_exe();
  if (!r->self_exe) r->self_exe = xstrdup("zero");
  r->workspace = xstrdup(o->workspace);
  r->add_dirs = xcalloc(o->n_add_dirs + 1, sizeof *r->add_dirs);
  for (size_t i = 0; i < o->n_add_dirs; i++) r->add_dirs[i] = xstrdup(o->add_dirs[i]);
  r->n_add_dirs = o->n_add_dirs;
  r->offline = o->offline;
  r->session_id = dup_or_null(o->session_id);
  r->provider = dup_or_null(o->provider);
  r->model = dup_or_null(o->model);
  r->reasoning_effort = dup_or_null(o->reasoning_effort);
  r->restricted = o->restricted;
  r->allowed = strvec_dup_array((char *const *)o->allowed);
  r->depth = zsub_depth();
  r->max_depth = zsub_max_depth();
  r->ask = o->ask;
  r->ask_ud = o->ask_ud;
  r->idle_ms = env_int("ZERO_SUBAGENT_IDLE_MS", 1, MAX_WAIT_MS * 6, IDLE_TIMEOUT_MS);
  r->max_team_size = o->max_team_size > 0 ? o->max_team_size : 4;
  r->swarm_enabled = o->swarm;
  pthread_mutex_init(&r->relay_mu, NULL);
  pthread_mutex_init(&r->bg_mu, NULL);
  /* task's tools then the swarm's, one table */
  size_t n = 0;
  for (size_t i = 0; i < ZARRAY_LEN(TOOLS); i++) r->defs[n++] = TOOLS[i];
  for (size_t i = 0; i < zsub_swarm_ndefs && n < ZARRAY_LEN(r->defs); i++)
    r->defs[n++] = zsub_swarm_defs[i];
  r->table = (ztool_table_spec){.defs = r->defs,
                                .n = n,
                                .offered = tool_allowed,
                                .describe = tool_description,
                                .invoke = src_invoke,
                                .once = true};
  r->source = ztool_table_init(&r->tools, &r->table, r);
  return r;
}

const ztool_source *zsub_runtime_source(zsub_runtime *r) { return &r->source; }

void zsub_runtime_set_session(zsub_runtime *r, const char *session_id) {
  free(r->session_id);
  r->session_id = dup_or_null(session_id);
}

/* Reports t's end through a unless it was reported (t->mu held). */
static void report_end_once_locked(const zsub_runtime *r, zagent *a, bg_task *t) {
  if (t->end_reported) return;
  ztool_result res = ZTOOL_RESULT_INIT;
  zsub_bg_report_locked(r, a, t, &res);
  ztool_result_release(&res);
}

void zsub_runtime_end_tasks(zsub_runtime *r, zagent *a) {
  for (size_t i = 0; r && i < r->nbg; i++) {
    bg_task *t = r->bg[i];
    zsub_bg_stop(t); /* one still running ends with the run: stopped and reaped */
    pthread_mutex_lock(&t->mu);
    report_end_once_locked(r, a, t); /* never polled to its end: reported here, once */
    pthread_mutex_unlock(&t->mu);
  }
}

/* ---- for a user who watches the run ------------------------------------------- */

/* One row of zsub_runtime_tasks; team is NULL for a background task. */
static json_t *task_row(bg_task *t, const char *team) {
  pthread_mutex_lock(&t->mu);
  const char *status = t->done ? zsub_bg_status_locked(t) : "running";
  json_t *row = json_pack("{s:s, s:s, s:s, s:s, s:i, s:s?, s:s?, s:s?}", "id", t->id, "agent",
                          t->agent, "description", t->description, "status", status, "toolCalls",
                          t->outcome.tool_calls, "step", t->done ? NULL : t->outcome.step,
                          "sessionId", t->outcome.session_id, "team", team);
  pthread_mutex_unlock(&t->mu);
  return row;
}

json_t *zsub_runtime_tasks(zsub_runtime *r) {
  json_t *out = json_array();
  pthread_mutex_lock(&r->bg_mu);
  const char *team;
  bg_task *t;
  for (size_t i = 0; (t = watched_task_at(r, i, &team)); i++)
    json_array_append_new(out, task_row(t, team));
  pthread_mutex_unlock(&r->bg_mu);
  return out;
}

int zsub_runtime_stop_task(zsub_runtime *r, zagent *a, const char *id) {
  /* bg_mu for the whole stop: the worker frees only finished tasks, and
   * only under it, so t stays valid while this waits for its end. */
  pthread_mutex_lock(&r->bg_mu);
  bg_task *t = watched_find(r, id);
  if (!t) {
    pthread_mutex_unlock(&r->bg_mu);
    return -1;
  }
  pthread_mutex_lock(&t->mu);
  bool was_done = t->done;
  if (!was_done) {
    /* Its reader stops the group and reaps the child; the worker may join
     * that thread (task_stop), so this one waits for its end instead. */
    t->stop_asked = true;
    while (!t->done) pthread_cond_wait(&t->cv, &t->mu);
  }
  if (a && !was_done) report_end_once_locked(r, a, t);
  pthread_mutex_unlock(&t->mu);
  pthread_mutex_unlock(&r->bg_mu);
  return was_done ? 1 : 0;
}

void zsub_runtime_report_stopped(zsub_runtime *r, zagent *a) {
  if (!r) return;
  pthread_mutex_lock(&r->bg_mu);
  const char *team;
  bg_task *t;
  for (size_t i = 0; (t = watched_task_at(r, i, &team)); i++) {
    pthread_mutex_lock(&t->mu);
    if (t->done && t->stop_asked) report_end_once_locked(r, a, t);
    pthread_mutex_unlock(&t->mu);
  }
  pthread_mutex_unlock(&r->bg_mu);
}

void zsub_runtime_free(zsub_runtime *r) {
  if (!r) return;
  for (size_t i = 0; i < r->nbg; i++) {
    zsub_bg_stop(r->bg[i]);
    zsub_bg_free(r->bg[i]);
  }
  zsub_swarm_free(r->swarm); /* members stop with the run, like background tasks */
  free(r->self_exe);
  free(r->workspace);
  strvec_free_array(r->add_dirs);
  free(r->session_id);
  free(r->provider);
  free(r->model);
  free(r->reasoning_effort);
  strvec_free_array(r->allowed);
  ztool_table_release(&r->tools);
  pthread_mutex_destroy(&r->relay_mu);
  pthread_mutex_destroy(&r->bg_mu);
  free(r);
}
