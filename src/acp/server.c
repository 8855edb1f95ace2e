/* server.c — the ACP agent: requests, sessions, the prompt worker; see
 * server.h. */
#include "acp/server.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "acp/rpc.h"
#include "acp/updates.h"
#include "agent/recorder.h"
#include "agent/task_state.h"
#include "base/buf.h"
#include "base/cancel.h"
#include "base/common.h"
#include "base/json.h"
#include "cli/run_setup.h"
#include "net/http.h"
#include "perm/prompt.h"

/* One open ACP session: a run assembly and its conversation. */
typedef struct acp_session {
  zrun_setup rs;
  zconv conv;
  zperm_mode mode; /* what the next prompt runs with (session/set_mode) */
  zsink *recorder, *task;
  bool titled;
} acp_session;

typedef struct acp_server acp_server;

/* The sink that turns the loop's events into session/update notifications. */
typedef struct acp_sink {
  zsink base;
  acp_server *srv;
} acp_sink;

struct acp_server {
  zacp_conn conn;
  zperm_mode default_mode;
  acp_session *sess;
  acp_sink sink;
  /* The prompt in flight (the worker owns agent and prompt_id while busy). */
  pthread_mutex_t mu;
  bool busy;
  bool worker_joinable;
  pthread_t worker;
  json_t *prompt_id;
  zagent agent;
};

static const struct {
  zperm_mode mode;
  const char *name, *description;
} MODES[] = {
    {ZPERM_ASK, "Ask", "Ask before edits and commands"},
    {ZPERM_ACCEPT_EDITS, "Accept edits", "Edit the workspace without asking; ask before commands"},
    {ZPERM_AUTO, "Auto", "Edit the workspace and run sandboxed commands without asking"},
    {ZPERM_PLAN, "Plan", "Read-only: explore and plan, change nothing"},
};

static json_t *modes_json(zperm_mode current) {
  json_t *avail = json_array();
  for (size_t i = 0; i < ZARRAY_LEN(MODES); i++)
    json_array_append_new(avail,
                          json_pack("{s:s, s:s, s:s}", "id", zperm_mode_name(MODES[i].mode), "name",
                                    MODES[i].name, "description", MODES[i].description));
  return json_pack("{s:s, s:o}", "currentModeId", zperm_mode_name(current), "availableModes",
                   avail);
}

static bool mode_offered(zperm_mode m) {
  for (size_t i = 0; i < ZARRAY_LEN(MODES); i++)
    if (MODES[i].mode == m) return true;
  return false;
}

static void send_update(acp_server *srv, json_t *update) {
  const char *sid = srv->sess && srv->sess->rs.store.session ? srv->sess->rs.store.session->id : "";
  zacp_notify(&srv->conn, "session/update",
              json_pack("{s:s, s:o}", "sessionId", sid, "update", update));
}

static void send_updates(acp_server *srv, json_t *updates) {
  size_t i;
  json_t *u;
  json_array_foreach(updates, i, u) send_update(srv, json_incref(u));
  json_decref(updates);
}

/* ---- the sink -------------------------------------------------------------- */

static void sink_emit(zsink *s, const zagent_event *ev) {
  acp_sink *as = (acp_sink *)s;
  send_updates(as->srv, zacp_updates_for_event(ev, as->srv->sess->rs.workspace));
}

static int sink_finish(zsink *s) { return ((acp_sink *)s)->srv->conn.write_failed ? -1 : 0; }

static void sink_destroy(zsink *s) { (void)s; }

/* ---- the approver ------------------------------------------------------------ */

static const char *const OPT_ALLOW_ONCE = "allow-once", *const OPT_ALLOW_ALWAYS = "allow-always",
                         *const OPT_REJECT_ONCE = "reject-once";

static json_t *permission_options(bool can_remember) {
  json_t *o = json_array();
  json_array_append_new(o, json_pack("{s:s, s:s, s:s}", "optionId", OPT_ALLOW_ONCE, "name",
                                     "Allow once", "kind", "allow_once"));
  if (can_remember)
    json_array_append_new(o, json_pack("{s:s, s:s, s:s}", "optionId", OPT_ALLOW_ALWAYS, "name",
                                       "Always allow", "kind", "allow_always"));
  json_array_append_new(o, json_pack("{s:s, s:s, s:s}", "optionId", OPT_REJECT_ONCE, "name",
                                     "Reject", "kind", "reject_once"));
  return o;
}

/* The approver seam (perm/prompt.h): the client answers. "Always" is
 * zero's ZGRANT_ALWAYS (saved by the permission module); a cancelled or
 * failed question is a denial. */
static zapproval acp_approve(void *ud, const zapproval_request *req) {
  acp_server *srv = ud;
  zapproval ans = {.action = ZPERM_DENY, .scope = ZGRANT_ONCE, .note = "cancelled by the user"};
  if (zcancel_requested()) return ans;
  json_t *tc = zacp_tool_call_json(req->call->id, req->call->name, req->call->arguments,
                                   srv->sess->rs.workspace);
  json_object_del(tc, "status");
  json_t *params = json_pack("{s:s, s:o, s:o}", "sessionId", srv->sess->rs.store.session->id,
                             "toolCall", tc, "options", permission_options(req->can_remember));
  bool aborted = false;
  json_t *res = zacp_call(&srv->conn, "session/request_permission", params, &aborted);
  const json_t *outcome = json_object_get(res, "outcome");
  const char *picked = !strcmp(zjson_str_or(outcome, "outcome", ""), "selected")
                           ? zjson_str_or(outcome, "optionId", "")
                           : "";
  if (!strcmp(picked, OPT_ALLOW_ONCE) || !strcmp(picked, OPT_ALLOW_ALWAYS)) {
    ans.action = ZPERM_ALLOW;
    ans.scope = !strcmp(picked, OPT_ALLOW_ALWAYS) ? ZGRANT_ALWAYS : ZGRANT_ONCE;
    ans.note = NULL;
  } else if (!strcmp(picked, OPT_REJECT_ONCE)) {
    ans.note = NULL; /* "denied by the user" */
  }
  json_decref(res);
  return ans;
}

/* ---- sessions -------------------------------------------------------------- */

static void warn_stderr(void *ud, const char *msg) {
  (void)ud;
  fprintf(stderr, "zero acp: %s\n", msg);
}

static void session_close(acp_session *s) {
  if (!s) return;
  if (s->recorder) {
    s->recorder->finish(s->recorder);
    s->recorder->destroy(s->recorder);
  }
  if (s->task) s->task->destroy(s->task);
  zrun_setup_release(&s->rs);
  zconv_release(&s->conv);
  free(s);
}

/* The JSON-RPC error for a setup failure: a provider without a key or
 * profile is "authentication required" (the client shows authMethods). */
static int setup_error_code(const zerr *err) {
  return err->kind == ZE_CONFIG ? ZACP_AUTH_REQUIRED : ZACP_INTERNAL_ERROR;
}

/* Opens the run assembly for cwd: a new session, or resume_id's. NULL with
 * err on failure. */
static acp_session *session_open(acp_server *srv, const char *cwd, const char *resume_id,
                                 zerr *err) {
  acp_session *s = xcalloc(1, sizeof *s);
  s->rs = (zrun_setup)ZRUN_SETUP_INIT;
  s->conv = (zconv)ZCONV_INIT;
  s->mode = srv->default_mode;
  zconfig_flags flags = {0};
  if (zrun_setup_workspace(&s->rs, cwd, NULL, 0, err) < 0 || zrun_setup_sandbox(&s->rs, err) < 0 ||
      zrun_setup_provider(&s->rs, &flags, err) < 0 ||
      zrun_setup_session(&s->rs, resume_id != NULL, resume_id, "", &s->conv, warn_stderr, NULL,
                         err) < 0) {
    session_close(s);
    return NULL;
  }
  s->titled = resume_id != NULL;
  zrun_setup_tools(&s->rs, s->mode, ZAUTO_LOW);
  s->recorder = zrecorder_new(s->rs.store.session, stderr);
  s->task = ztask_sink_new(&s->rs.store.task, s->rs.plan);
  if (zrun_setup_mcp(&s->rs, warn_stderr, NULL, err) < 0) {
    session_close(s);
    return NULL;
  }
  zrun_setup_compaction(&s->rs, stderr);
  return s;
}

static bool is_busy(acp_server *srv) {
  pthread_mutex_lock(&srv->mu);
  bool b = srv->busy;
  pthread_mutex_unlock(&srv->mu);
  return b;
}

/* session/new and session/load. */
static void handle_open(acp_server *srv, const json_t *id, const json_t *params, bool load) {
  const char *cwd = zjson_str(params, "cwd");
  const char *sid = load ? zjson_str(params, "sessionId") : NULL;
  if (!cwd || cwd[0] != '/' || (load && !sid)) {
    zacp_respond_error(&srv->conn, id, ZACP_INVALID_PARAMS,
                       load ? "session/load needs sessionId and an absolute cwd"
                            : "session/new needs an absolute cwd");
    return;
  }
  if (is_busy(srv)) {
    zacp_respond_error(&srv->conn, id, ZACP_INVALID_REQUEST,
                       "a prompt is running: cancel it before opening another session");
    return;
  }
  session_close(srv->sess);
  srv->sess = NULL;
  zerr err = ZERR_INIT;
  acp_session *s = session_open(srv, cwd, sid, &err);
  if (!s) {
    zacp_respond_error(&srv->conn, id,
                       load && err.kind == ZE_USAGE ? ZACP_NOT_FOUND : setup_error_code(&err),
                       err.msg);
    return;
  }
  srv->sess = s;
  if (load) send_updates(srv, zacp_updates_for_history(&s->conv, s->rs.workspace));
  json_t *res = json_pack("{s:o}", "modes", modes_json(s->mode));
  if (!load) json_object_set_new(res, "sessionId", json_string(s->rs.store.session->id));
  zacp_respond(&srv->conn, id, res);
}

/* ---- prompts --------------------------------------------------------------- */

/* The prompt's content blocks as the user message's text (text, resource
 * links, embedded text resources) and images. 0, or -1 with a reason. */
static int prompt_content(const json_t *blocks, zbuf *text, json_t *images, const char **why) {
  size_t i;
  const json_t *b;
  json_array_foreach(blocks, i, b) {
    const char *type = zjson_str_or(b, "type", "");
    if (text->len && strcmp(type, "image") != 0) zbuf_addstr(text, "\n\n");
    if (!strcmp(type, "text")) {
      zbuf_addstr(text, zjson_str_or(b, "text", ""));
    } else if (!strcmp(type, "resource_link")) {
      zbuf_addf(text, "[%s](%s)", zjson_str_or(b, "name", "file"), zjson_str_or(b, "uri", ""));
    } else if (!strcmp(type, "resource")) {
      const json_t *r = json_object_get(b, "resource");
      zbuf_addf(text, "<context uri=\"%s\">\n%s\n</context>", zjson_str_or(r, "uri", ""),
                zjson_str_or(r, "text", ""));
    } else if (!strcmp(type, "image")) {
      const char *mt = zjson_str(b, "mimeType"), *data = zjson_str(b, "data");
      if (!mt || !data) {
        *why = "an image block needs mimeType and data";
        return -1;
      }
      json_array_append_new(images, json_pack("{s:s, s:s}", "media_type", mt, "data", data));
    } else {
      *why = "unsupported content block (zero takes text, resource_link, resource, image)";
      return -1;
    }
  }
  return 0;
}

static const char *stop_reason(zrun_status st) {
  switch (st) {
    case ZRUN_SUCCESS: return "end_turn";
    case ZRUN_INCOMPLETE: return "max_turn_requests";
    case ZRUN_INTERRUPTED: return "cancelled";
    default: return NULL;
  }
}

static void *prompt_worker(void *ud) {
  acp_server *srv = ud;
  acp_session *s = srv->sess;
  zerr err = ZERR_INIT;
  zrun_setup_tools(&s->rs, s->mode, ZAUTO_LOW);
  zrun_setup_system_prompt(&s->rs, s->mode);
  zagent_release(&srv->agent);
  memset(&srv->agent, 0, sizeof srv->agent);
  zrun_setup_agent(&s->rs, &srv->agent);
  zsink *sinks[3] = {&srv->sink.base, s->recorder, s->task};
  srv->agent.sinks = sinks;
  srv->agent.nsinks = 3;
  srv->agent.approve = acp_approve;
  srv->agent.approve_ud = srv;
  zrun_status st = zagent_run(&srv->agent, &s->conv, &err);
  if (zcancel_requested() && st != ZRUN_SUCCESS) st = ZRUN_INTERRUPTED;
  zrun_setup_save_task(&s->rs);
  zerr ferr = ZERR_INIT;
  zsession_flush(s->rs.store.session, &ferr);
  const char *reason = stop_reason(st);
  if (reason) zacp_respond(&srv->conn, srv->prompt_id, json_pack("{s:s}", "stopReason", reason));
  else zacp_respond_error(&srv->conn, srv->prompt_id, ZACP_INTERNAL_ERROR, err.msg);
  srv->agent.sinks = NULL;
  srv->agent.nsinks = 0;
  pthread_mutex_lock(&srv->mu);
  json_decref(srv->prompt_id);
  srv->prompt_id = NULL;
  srv->busy = false;
  pthread_mutex_unlock(&srv->mu);
  return NULL;
}

static void join_worker(acp_server *srv) {
  if (!srv->worker_joinable) return;
  pthread_join(srv->worker, NULL);
  srv->worker_joinable = false;
}

/* Adds the user's message to the conversation and the session record. */
static void add_user_message(acp_session *s, const zbuf *text, const json_t *images) {
  const char *t = text->data ? text->data : "";
  zmsg *m = zconv_add_user(&s->conv, t);
  size_t i;
  const json_t *im;
  json_array_foreach(images, i, im) {
    zmsg_add_image(m, zjson_str(im, "media_type"), zjson_str(im, "data"));
  }
  json_t *meta = json_array_size(images) ? json_pack("{s:O}", "images", images) : NULL;
  zagent_event start = {.kind = ZAEV_RUN_START,
                        .run_start = {.session_id = s->rs.store.session->id,
                                      .cwd = s->rs.workspace,
                                      .provider = s->rs.model.rp.name,
                                      .model = s->rs.model.rp.model,
                                      .api_model = s->rs.model.rp.model}};
  s->recorder->emit(s->recorder, &start);
  zagent_event um = {.kind = ZAEV_USER_MESSAGE,
                     .user_message = {.text = t, .len = text->len, .meta = meta}};
  s->recorder->emit(s->recorder, &um);
  json_decref(meta);
  if (!s->titled) {
    char title[81];
    zrun_title_from_prompt(t, text->len, title);
    zerr err = ZERR_INIT;
    if (zsession_set_meta(s->rs.store.session, "title", json_string(title), &err) < 0)
      fprintf(stderr, "zero acp: %s\n", err.msg);
    s->titled = true;
  }
}

static void handle_prompt(acp_server *srv, const json_t *id, const json_t *params) {
  acp_session *s = srv->sess;
  const char *sid = zjson_str(params, "sessionId");
  if (!s || !sid || strcmp(sid, s->rs.store.session->id) != 0) {
    zacp_respond_error(&srv->conn, id, ZACP_NOT_FOUND,
                       "no such session open: session/new or "
                       "session/load it first");
    return;
  }
  if (is_busy(srv)) {
    zacp_respond_error(&srv->conn, id, ZACP_INVALID_REQUEST, "a prompt is already running");
    return;
  }
  zbuf text = ZBUF_INIT;
  json_t *images = json_array();
  const char *why = NULL;
  if (prompt_content(json_object_get(params, "prompt"), &text, images, &why) < 0) {
    zacp_respond_error(&srv->conn, id, ZACP_INVALID_PARAMS, why);
  } else {
    join_worker(srv);
    add_user_message(s, &text, images);
    zcancel_reset();
    pthread_mutex_lock(&srv->mu);
    srv->busy = true;
    srv->prompt_id = json_deep_copy(id);
    pthread_mutex_unlock(&srv->mu);
    if (pthread_create(&srv->worker, NULL, prompt_worker, srv) != 0) {
      srv->busy = false;
      zacp_respond_error(&srv->conn, id, ZACP_INTERNAL_ERROR, "cannot start the prompt's thread");
    } else {
      srv->worker_joinable = true;
    }
  }
  zbuf_release(&text);
  json_decref(images);
}

static void handle_set_mode(acp_server *srv, const json_t *id, const json_t *params) {
  zperm_mode m;
  zerr err = ZERR_INIT;
  if (!srv->sess) {
    zacp_respond_error(&srv->conn, id, ZACP_NOT_FOUND, "no session open");
    return;
  }
  if (zperm_mode_parse(zjson_str_or(params, "modeId", ""), &m, &err) < 0 || !mode_offered(m)) {
    zacp_respond_error(&srv->conn, id, ZACP_INVALID_PARAMS,
                       "unknown mode: zero acp offers ask, accept-edits, auto and plan");
    return;
  }
  /* The running prompt keeps its mode; the next one starts with this. */
  srv->sess->mode = m;
  zacp_respond(&srv->conn, id, NULL);
}

static void handle_cancel(acp_server *srv) {
  if (!is_busy(srv)) return;
  zcancel_request();
  zacp_conn_abort_calls(&srv->conn);
}

static void handle_initialize(acp_server *srv, const json_t *id) {
  json_t *caps = json_pack("{s:b, s:{s:b, s:b, s:b}, s:{s:b, s:b}}", "loadSession", 1,
                           "promptCapabilities", "image", 1, "audio", 0, "embeddedContext", 1,
                           "mcpCapabilities", "http", 0, "sse", 0);
  json_t *auth = json_pack(
      "[{s:s, s:s, s:s}]", "id", "zero-provider", "name", "Configure a model provider",
      "description",
      "Run `zero setup --provider NAME` in a terminal (or export the provider's API key) and "
      "restart the agent");
  zacp_respond(&srv->conn, id,
               json_pack("{s:i, s:o, s:o, s:{s:s, s:s, s:s}}", "protocolVersion",
                         ZACP_PROTOCOL_VERSION, "agentCapabilities", caps, "authMethods", auth,
                         "agentInfo", "name", "zero", "title", "zero", "version", ZERO_VERSION));
}

static void dispatch(acp_server *srv, const json_t *msg) {
  const char *method = zjson_str(msg, "method");
  const json_t *id = json_object_get(msg, "id");
  const json_t *params = json_object_get(msg, "params");
  if (!method) {
    zacp_conn_deliver(&srv->conn, msg);
    return;
  }
  if (!strcmp(method, "session/cancel")) handle_cancel(srv);
  if (!id) return; /* other notifications: nothing to do */
  if (!strcmp(method, "initialize")) handle_initialize(srv, id);
  else if (!strcmp(method, "authenticate")) zacp_respond(&srv->conn, id, NULL);
  else if (!strcmp(method, "session/new")) handle_open(srv, id, params, false);
  else if (!strcmp(method, "session/load")) handle_open(srv, id, params, true);
  else if (!strcmp(method, "session/prompt")) handle_prompt(srv, id, params);
  else if (!strcmp(method, "session/set_mode")) handle_set_mode(srv, id, params);
  else zacp_respond_error(&srv->conn, id, ZACP_METHOD_NOT_FOUND, "method not found");
}

int zacp_serve(int in_fd, FILE *out, zperm_mode mode) {
  acp_server srv;
  memset(&srv, 0, sizeof srv);
  zacp_conn_init(&srv.conn, out);
  pthread_mutex_init(&srv.mu, NULL);
  srv.default_mode = mode_offered(mode) ? mode : ZPERM_ASK;
  srv.sink = (acp_sink){.base = {.emit = sink_emit, .finish = sink_finish, .destroy = sink_destroy},
                        .srv = &srv};
  zcancel_install();
  zhttp_global_init();
  FILE *in = fdopen(dup(in_fd), "r");
  char *line = NULL;
  size_t cap = 0;
  ssize_t n;
  while (in && (n = getline(&line, &cap, in)) >= 0) {
    json_error_t jerr;
    json_t *msg = json_loadb(line, (size_t)n, 0, &jerr);
    if (!json_is_object(msg)) {
      if (n > 1) zacp_respond_error(&srv.conn, NULL, ZACP_PARSE_ERROR, "not a JSON-RPC message");
    } else {
      dispatch(&srv, msg);
    }
    json_decref(msg);
  }
  free(line);
  if (in) fclose(in);
  /* Input ended: stop a running prompt and close the session. */
  if (is_busy(&srv)) zcancel_request();
  zacp_conn_close(&srv.conn);
  join_worker(&srv);
  zagent_release(&srv.agent);
  session_close(srv.sess);
  bool failed = srv.conn.write_failed;
  pthread_mutex_destroy(&srv.mu);
  zacp_conn_release(&srv.conn);
  return failed ? -1 : 0;
}
