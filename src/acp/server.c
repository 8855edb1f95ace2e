/* server.c — the ACP agent: requests, sessions, the prompt worker; see
 * server.h. */
#include "acp/server.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "acp/client_io.h"
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

typedef struct acp_server acp_server;
typedef struct acp_session acp_session;

/* The sink that turns the loop's events into session/update notifications
 * of its session. */
typedef struct acp_sink {
  zsink base;
  acp_session *sess;
} acp_sink;

/* A prompt: its request id and content. */
typedef struct acp_job {
  json_t *id; /* owned */
  zbuf text;
  json_t *images;  /* owned */
  zperm_mode mode; /* the session's mode when the prompt starts */
} acp_job;

/* One open ACP session: a run assembly, its conversation and what the
 * client's files and terminals look like to its tools. Sessions share
 * nothing but the connection; several stay open at once, and their prompts
 * run at once, each on the session's own thread in its own cancellation
 * scope (base/cancel.h), so session/cancel of one stops that one alone. */
struct acp_session {
  acp_session *next;
  acp_server *srv;
  zrun_setup rs;
  zconv conv;
  /* The session's zperm_mode (session/set_mode, from the reader): the next
   * prompt starts with it, and the running one decides its next tool calls
   * with it (zperm_engine.live_mode). */
  atomic_int mode;
  zsink *recorder, *task;
  acp_sink sink;
  zacp_client_io io;
  json_t *mcp_servers; /* session/new's mcpServers as zero's extra servers (owned) */
  bool titled;
  zcancel_scope *cancel; /* the prompts' scope (owned) */
  /* The prompt thread. running (guarded by srv->mu) is true from the
   * prompt's start until just before it is answered; joinable until the
   * reader joins the thread (before the next prompt, or at close). */
  bool running;
  bool joinable;
  pthread_t thread;
  acp_job *job; /* the prompt the thread runs (the thread frees it) */
  zagent agent; /* the prompt thread's */
};

/* The client's capabilities from initialize. */
typedef struct acp_client_caps {
  bool read, write, terminal;
} acp_client_caps;

/* At most this many sessions stay open; the least recently used idle one
 * is closed (its history stays in the store) to make room. */
#define ACP_MAX_SESSIONS 16

struct acp_server {
  zacp_conn conn;
  zperm_mode default_mode;
  acp_client_caps caps;
  acp_session *sessions; /* most recently used first (the reader's alone) */
  /* Guards each session's running flag and the cancel of its scope: a
   * cancel and a prompt's start are ordered. */
  pthread_mutex_t mu;
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

static void send_update(acp_session *s, json_t *update) {
  zacp_notify(&s->srv->conn, "session/update",
              json_pack("{s:s, s:o}", "sessionId", s->rs.store.session->id, "update", update));
}

static void send_updates(acp_session *s, json_t *updates) {
  size_t i;
  json_t *u;
  json_array_foreach(updates, i, u) send_update(s, json_incref(u));
  json_decref(updates);
}

/* ---- the sink -------------------------------------------------------------- */

static void sink_emit(zsink *base, const zagent_event *ev) {
  acp_session *s = ((acp_sink *)base)->sess;
  /* The agent runs a command's call alone: a terminal the editor opens
   * for it is shown in this call. */
  if (ev->kind == ZAEV_TOOL_CALL) zacp_client_io_note_call(&s->io, ev->tool_call.id);
  send_updates(s, zacp_updates_for_event(ev, &s->rs.tools));
}

static int sink_finish(zsink *base) {
  return ((acp_sink *)base)->sess->srv->conn.write_failed ? -1 : 0;
}

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
  acp_session *s = ud;
  zapproval ans = {.action = ZPERM_DENY, .scope = ZGRANT_ONCE, .note = "cancelled by the user"};
  if (zcancel_requested()) return ans;
  json_t *tc =
      zacp_tool_call_json(req->call->id, req->call->name, req->call->arguments, &s->rs.tools);
  json_object_del(tc, "status");
  json_t *params = json_pack("{s:s, s:o, s:o}", "sessionId", s->rs.store.session->id, "toolCall",
                             tc, "options", permission_options(req->can_remember));
  bool aborted = false;
  json_t *res = zacp_call(&s->srv->conn, "session/request_permission", params, s, &aborted);
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

/* Waits for s's prompt thread, which has ended its prompt or is ending
 * it (the reader's: before a new prompt and before closing). */
static void session_join(acp_session *s) {
  if (!s->joinable) return;
  pthread_join(s->thread, NULL);
  s->joinable = false;
}

static void session_close(acp_session *s) {
  if (!s) return;
  session_join(s);
  zagent_release(&s->agent);
  zcancel_scope_free(s->cancel);
  if (s->recorder) {
    s->recorder->finish(s->recorder);
    s->recorder->destroy(s->recorder);
  }
  if (s->task) s->task->destroy(s->task);
  zrun_setup_release(&s->rs);
  zconv_release(&s->conv);
  zacp_client_io_release(&s->io);
  json_decref(s->mcp_servers);
  free(s);
}

/* The JSON-RPC error for a setup failure: a provider without a key or
 * profile is "authentication required" (the client shows authMethods). */
static int setup_error_code(const zerr *err) {
  return err->kind == ZE_CONFIG ? ZACP_AUTH_REQUIRED : ZACP_INTERNAL_ERROR;
}

/* An ACP list of {name, value} as a JSON object. */
static json_t *name_values(const json_t *list) {
  json_t *o = json_object();
  size_t i;
  const json_t *nv;
  json_array_foreach(list, i, nv) {
    const char *n = zjson_str(nv, "name"), *v = zjson_str(nv, "value");
    if (n && v) json_object_set_new(o, n, json_string(v));
  }
  return o;
}

/* session/new's mcpServers (stdio {name, command, args, env}, http / sse
 * {type, name, url, headers}) as zero's extra servers
 * (zmcp_start_opts.extra_servers), started by zero's MCP manager through
 * the session's sandbox like any configured server. NULL when none. */
static json_t *mcp_servers_json(const json_t *list, const char *cwd) {
  if (!json_array_size(list)) return NULL;
  json_t *out = json_object();
  size_t i;
  const json_t *m;
  json_array_foreach(list, i, m) {
    const char *name = zjson_str(m, "name");
    const char *type = zjson_str_or(m, "type", "stdio");
    if (!name || !name[0]) continue;
    json_t *server;
    if (!strcmp(type, "http") || !strcmp(type, "sse")) {
      server = json_pack("{s:s, s:s, s:o}", "type", type, "url", zjson_str_or(m, "url", ""),
                         "headers", name_values(json_object_get(m, "headers")));
    } else {
      const json_t *args = json_object_get(m, "args");
      server = json_pack("{s:s, s:s, s:O, s:o}", "type", "stdio", "command",
                         zjson_str_or(m, "command", ""), "args",
                         json_is_array(args) ? args : json_array(), "env",
                         name_values(json_object_get(m, "env")));
      if (!json_is_array(args)) json_decref(json_object_get(server, "args"));
    }
    json_object_set_new(out, name,
                        json_pack("{s:o, s:s, s:s}", "server", server, "origin",
                                  "the editor (session/new mcpServers)", "dir", cwd));
  }
  return out;
}

/* Opens the run assembly for cwd: a new session, or resume_id's. NULL with
 * err on failure. */
static acp_session *session_open(acp_server *srv, const char *cwd, const char *resume_id,
                                 const json_t *mcp_servers, zerr *err) {
  acp_session *s = xcalloc(1, sizeof *s);
  s->srv = srv;
  s->rs = (zrun_setup)ZRUN_SETUP_INIT;
  s->conv = (zconv)ZCONV_INIT;
  atomic_init(&s->mode, (int)srv->default_mode);
  s->sink = (acp_sink){.base = {.emit = sink_emit, .finish = sink_finish, .destroy = sink_destroy},
                       .sess = s};
  s->io = (zacp_client_io){.conn = &srv->conn,
                           .owner = s,
                           .tools = &s->rs.tools,
                           .can_read = srv->caps.read,
                           .can_write = srv->caps.write,
                           .can_terminal = srv->caps.terminal};
  zacp_client_io_init(&s->io);
  s->mcp_servers = mcp_servers_json(mcp_servers, cwd);
  s->rs.opts.extra_mcp_servers = s->mcp_servers;
  s->cancel = zcancel_scope_new();
  if (!s->cancel) {
    zerr_set(err, ZE_INTERNAL, "too many sessions at once: close one first");
    session_close(s);
    return NULL;
  }
  zconfig_flags flags = {0};
  /* Never chdir: other sessions' prompts run meanwhile, in other places. */
  if (zrun_setup_workspace_at(&s->rs, cwd, err) < 0 || zrun_setup_sandbox(&s->rs, err) < 0 ||
      zrun_setup_provider(&s->rs, &flags, err) < 0 ||
      zrun_setup_session(&s->rs, resume_id != NULL, resume_id, "", &s->conv, warn_stderr, NULL,
                         err) < 0) {
    session_close(s);
    return NULL;
  }
  s->io.session_id = s->rs.store.session->id;
  s->io.policy = &s->rs.sandbox.policy;
  s->titled = resume_id != NULL;
  zrun_setup_tools(&s->rs, (zperm_mode)atomic_load(&s->mode), ZAUTO_LOW);
  s->recorder = zrecorder_new(s->rs.store.session, stderr);
  s->task = ztask_sink_new(&s->rs.store.task, s->rs.plan);
  if (zrun_setup_mcp(&s->rs, warn_stderr, NULL, err) < 0) {
    session_close(s);
    return NULL;
  }
  zrun_setup_compaction(&s->rs, stderr);
  return s;
}

/* The open session with id sid (moved to the front: most recently used),
 * or NULL. */
static acp_session *session_find(acp_server *srv, const char *sid) {
  for (acp_session **pp = &srv->sessions; sid && *pp; pp = &(*pp)->next) {
    acp_session *s = *pp;
    if (strcmp(s->rs.store.session->id, sid) != 0) continue;
    *pp = s->next;
    s->next = srv->sessions;
    srv->sessions = s;
    return s;
  }
  return NULL;
}

static bool session_idle(acp_server *srv, const acp_session *s) {
  pthread_mutex_lock(&srv->mu);
  bool idle = !s->running;
  pthread_mutex_unlock(&srv->mu);
  return idle;
}

/* Closes and unlinks s (idle). */
static void session_drop(acp_server *srv, acp_session *s) {
  for (acp_session **pp = &srv->sessions; *pp; pp = &(*pp)->next)
    if (*pp == s) {
      *pp = s->next;
      break;
    }
  session_close(s);
}

/* Keeps at most ACP_MAX_SESSIONS - 1 open before one more opens. */
static void make_room(acp_server *srv) {
  size_t n = 0;
  acp_session *last_idle = NULL;
  for (acp_session *s = srv->sessions; s; s = s->next) {
    n++;
    if (session_idle(srv, s)) last_idle = s;
  }
  if (n >= ACP_MAX_SESSIONS && last_idle) session_drop(srv, last_idle);
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
  acp_session *open = load ? session_find(srv, sid) : NULL;
  if (open && !session_idle(srv, open)) {
    zacp_respond_error(&srv->conn, id, ZACP_INVALID_REQUEST,
                       "a prompt of this session is running: cancel it before loading it again");
    return;
  }
  if (open) session_drop(srv, open); /* loaded again: from the store, as the client expects */
  make_room(srv);
  zerr err = ZERR_INIT;
  acp_session *s = session_open(srv, cwd, sid, json_object_get(params, "mcpServers"), &err);
  if (!s) {
    zacp_respond_error(&srv->conn, id,
                       load && err.kind == ZE_USAGE ? ZACP_NOT_FOUND : setup_error_code(&err),
                       err.msg);
    return;
  }
  s->next = srv->sessions;
  srv->sessions = s;
  if (load) send_updates(s, zacp_updates_for_history(&s->conv, &s->rs.tools));
  json_t *res = json_pack("{s:o}", "modes", modes_json((zperm_mode)atomic_load(&s->mode)));
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

static void job_free(acp_job *j) {
  if (!j) return;
  json_decref(j->id);
  zbuf_release(&j->text);
  json_decref(j->images);
  free(j);
}

/* Runs s's prompt j to its end on the session's thread and answers it. */
static void run_job(acp_session *s, acp_job *j) {
  acp_server *srv = s->srv;
  zerr err = ZERR_INIT;
  add_user_message(s, &j->text, j->images);
  zrun_setup_tools(&s->rs, j->mode, ZAUTO_LOW);
  s->rs.perm.live_mode = &s->mode; /* session/set_mode reaches the next call */
  s->rs.tools.backend = zacp_client_io_backend(&s->io);
  zrun_setup_system_prompt(&s->rs, j->mode);
  zagent_release(&s->agent);
  memset(&s->agent, 0, sizeof s->agent);
  zrun_setup_agent(&s->rs, &s->agent);
  zsink *sinks[3] = {&s->sink.base, s->recorder, s->task};
  s->agent.sinks = sinks;
  s->agent.nsinks = 3;
  s->agent.approve = acp_approve;
  s->agent.approve_ud = s;
  zrun_status st = zagent_run(&s->agent, &s->conv, &err);
  if (zcancel_requested() && st != ZRUN_SUCCESS) st = ZRUN_INTERRUPTED;
  zacp_client_io_note_call(&s->io, NULL);
  zrun_setup_save_task(&s->rs);
  zerr ferr = ZERR_INIT;
  zsession_flush(s->rs.store.session, &ferr);
  s->agent.sinks = NULL;
  s->agent.nsinks = 0;
  const char *reason = stop_reason(st);
  /* Idle from here: the client may send the next prompt once answered. */
  pthread_mutex_lock(&srv->mu);
  s->running = false;
  pthread_mutex_unlock(&srv->mu);
  if (reason) zacp_respond(&srv->conn, j->id, json_pack("{s:s}", "stopReason", reason));
  else zacp_respond_error(&srv->conn, j->id, ZACP_INTERNAL_ERROR, err.msg);
}

/* The session's prompt thread: one prompt, in the session's scope. */
static void *prompt_thread(void *ud) {
  acp_session *s = ud;
  acp_job *j = s->job;
  zcancel_scope *prev = zcancel_enter(s->cancel);
  run_job(s, j);
  zcancel_enter(prev);
  job_free(j);
  return NULL;
}

/* Starts j (owned) on s's thread. The caller answers j's request when this
 * fails (false, *why set). */
static bool start_prompt(acp_server *srv, acp_session *s, acp_job *j, const char **why) {
  pthread_mutex_lock(&srv->mu);
  bool busy = s->running;
  pthread_mutex_unlock(&srv->mu);
  if (busy) {
    *why = "a prompt of this session is already running";
    return false;
  }
  session_join(s); /* the previous prompt's thread, already answered */
  j->mode = (zperm_mode)atomic_load(&s->mode);
  s->job = j;
  pthread_mutex_lock(&srv->mu);
  zcancel_scope_reset(s->cancel); /* a cancel from now on is this prompt's */
  s->running = true;
  pthread_mutex_unlock(&srv->mu);
  if (pthread_create(&s->thread, NULL, prompt_thread, s) == 0) {
    s->joinable = true;
    return true;
  }
  pthread_mutex_lock(&srv->mu);
  s->running = false;
  pthread_mutex_unlock(&srv->mu);
  s->job = NULL;
  *why = "cannot start the prompt's thread";
  return false;
}

static void handle_prompt(acp_server *srv, const json_t *id, const json_t *params) {
  acp_session *s = session_find(srv, zjson_str(params, "sessionId"));
  if (!s) {
    zacp_respond_error(&srv->conn, id, ZACP_NOT_FOUND,
                       "no such session open: session/new or session/load it first");
    return;
  }
  acp_job *j = xcalloc(1, sizeof *j);
  j->text = (zbuf)ZBUF_INIT;
  j->images = json_array();
  j->id = json_deep_copy(id);
  const char *why = NULL;
  if (prompt_content(json_object_get(params, "prompt"), &j->text, j->images, &why) < 0) {
    zacp_respond_error(&srv->conn, id, ZACP_INVALID_PARAMS, why);
    job_free(j);
    return;
  }
  if (start_prompt(srv, s, j, &why)) return;
  zacp_respond_error(&srv->conn, id, ZACP_INVALID_REQUEST, why);
  job_free(j);
}

static void handle_set_mode(acp_server *srv, const json_t *id, const json_t *params) {
  zperm_mode m;
  zerr err = ZERR_INIT;
  acp_session *s = session_find(srv, zjson_str(params, "sessionId"));
  if (!s) {
    zacp_respond_error(&srv->conn, id, ZACP_NOT_FOUND, "no such session open");
    return;
  }
  if (zperm_mode_parse(zjson_str_or(params, "modeId", ""), &m, &err) < 0 || !mode_offered(m)) {
    zacp_respond_error(&srv->conn, id, ZACP_INVALID_PARAMS,
                       "unknown mode: zero acp offers ask, accept-edits, auto and plan");
    return;
  }
  /* A running prompt decides its next tool call with it (the call being
   * decided now keeps the mode it was decided with); the next prompt
   * starts with it. */
  atomic_store(&s->mode, (int)m);
  zacp_respond(&srv->conn, id, NULL);
  send_update(s, json_pack("{s:s, s:s}", "sessionUpdate", "current_mode_update", "currentModeId",
                           zperm_mode_name(m)));
}

/* Cancels s's running prompt, if any: its model stream, command and client
 * requests stop; other sessions' prompts go on. */
static void cancel_session(acp_server *srv, acp_session *s) {
  pthread_mutex_lock(&srv->mu);
  if (s->running) {
    zcancel_scope_request(s->cancel);
    zacp_conn_abort_calls(&srv->conn, s);
  }
  pthread_mutex_unlock(&srv->mu);
}

/* session/cancel (a notification: the prompt answers "cancelled"). */
static void handle_cancel(acp_server *srv, const json_t *params) {
  acp_session *s = session_find(srv, zjson_str(params, "sessionId"));
  if (s) cancel_session(srv, s);
}

/* initialize: zero's capabilities; the client's fs and terminal offers are
 * remembered for the sessions opened after it. */
static void handle_initialize(acp_server *srv, const json_t *id, const json_t *params) {
  const json_t *cc = json_object_get(params, "clientCapabilities");
  const json_t *fs = json_object_get(cc, "fs");
  srv->caps = (acp_client_caps){.read = zjson_bool_or(fs, "readTextFile", false),
                                .write = zjson_bool_or(fs, "writeTextFile", false),
                                .terminal = zjson_bool_or(cc, "terminal", false)};
  json_t *caps = json_pack("{s:b, s:{s:b, s:b, s:b}, s:{s:b, s:b}}", "loadSession", 1,
                           "promptCapabilities", "image", 1, "audio", 0, "embeddedContext", 1,
                           "mcpCapabilities", "http", 1, "sse", 1);
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
  if (!strcmp(method, "session/cancel")) handle_cancel(srv, params);
  if (!id) return; /* other notifications: nothing to do */
  if (!strcmp(method, "initialize")) handle_initialize(srv, id, params);
  else if (!strcmp(method, "authenticate")) zacp_respond(&srv->conn, id, NULL);
  else if (!strcmp(method, "session/new")) handle_open(srv, id, params, false);
  else if (!strcmp(method, "session/load")) handle_open(srv, id, params, true);
  else if (!strcmp(method, "session/prompt")) handle_prompt(srv, id, params);
  else if (!strcmp(method, "session/set_mode")) handle_set_mode(srv, id, params);
  else zacp_respond_error(&srv->conn, id, ZACP_METHOD_NOT_FOUND, "method not found");
}

/* Input ended: the running prompts are cancelled, their threads joined,
 * every session closed. */
static void shutdown_server(acp_server *srv) {
  for (acp_session *s = srv->sessions; s; s = s->next) cancel_session(srv, s);
  zacp_conn_close(&srv->conn);
  while (srv->sessions) {
    acp_session *s = srv->sessions;
    srv->sessions = s->next;
    session_close(s);
  }
}

int zacp_serve(int in_fd, FILE *out, zperm_mode mode) {
  acp_server srv;
  memset(&srv, 0, sizeof srv);
  zacp_conn_init(&srv.conn, out);
  pthread_mutex_init(&srv.mu, NULL);
  srv.default_mode = mode_offered(mode) ? mode : ZPERM_ASK;
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
  shutdown_server(&srv);
  bool failed = srv.conn.write_failed;
  pthread_mutex_destroy(&srv.mu);
  zacp_conn_release(&srv.conn);
  return failed ? -1 : 0;
}
