/* client.c — an MCP client; see client.h. */
#include "mcp/client.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "base/buf.h"
#include "base/common.h"
#include "base/json.h"
#include "base/log.h"
#include "base/time.h"
#include "base/url.h"
#include "mcp/jsonrpc.h"
#include "mcp/transport.h"

#define INBOX_MAX 256 /* unclaimed responses kept; older ones are dropped */

static const char *const supported_versions[] = {"2025-11-25", "2025-06-18", "2025-03-26",
                                                 "2024-11-05"};

bool zmcp_protocol_supported(const char *v) {
  if (!v) return false;
  for (size_t i = 0; i < ZARRAY_LEN(supported_versions); i++)
    if (!strcmp(v, supported_versions[i])) return true;
  return false;
}

typedef ZVEC(zrpc_msg) msg_vec;
typedef ZVEC(char *) str_vec;

static msg_vec *inbox(zmcp_client *c) { return c->inbox; }
static str_vec *outbox(zmcp_client *c) { return c->outbox; }

/* ---- incoming messages ---------------------------------------------------- */

static json_t *roots_result(zmcp_client *c) {
  json_t *roots = json_array();
  const char *ws = c->opts.workspace;
  for (size_t i = 0; i <= c->opts.n_roots; i++) {
    const char *dir = i == 0 ? ws : c->opts.roots[i - 1];
    if (!dir) continue;
    char *uri = zurl_from_path(dir);
    const char *base = strrchr(dir, '/');
    json_array_append_new(roots, json_pack("{s:s, s:s}", "uri", uri, "name",
                                           base && base[1] ? base + 1 : dir));
    free(uri);
  }
  return json_pack("{s:o}", "roots", roots);
}

static void queue_out(zmcp_client *c, zbuf *msg) {
  char *s = zbuf_detach(msg, NULL);
  zvec_push(outbox(c), s);
}

static void on_notification(zmcp_client *c, zrpc_msg *m) {
  if (!strcmp(m->method, "notifications/tools/list_changed")) {
    c->tools_stale = true;
  } else if (!strcmp(m->method, "notifications/resources/updated") ||
             !strcmp(m->method, "notifications/resources/list_changed") ||
             !strcmp(m->method, "notifications/prompts/list_changed")) {
    /* Resources and prompts are not cached here (each list is asked for
     * when wanted), so a change needs no refresh: only the caller's notice. */
    if (c->opts.on_notice) c->opts.on_notice(c->opts.notice_ud, c->cfg->name, m->method, m->params);
  } else if (!strcmp(m->method, "notifications/progress") && c->opts.on_progress) {
    json_t *p = m->params;
    json_t *prog = json_object_get(p, "progress"), *tot = json_object_get(p, "total");
    c->opts.on_progress(c->opts.progress_ud, c->cfg->name,
                        json_is_number(prog) ? json_number_value(prog) : 0,
                        json_is_number(tot) ? json_number_value(tot) : -1,
                        zjson_str(p, "message"));
  }
  /* notifications/message (logs), cancelled, …: nothing to do. */
}

static void on_server_request(zmcp_client *c, zrpc_msg *m) {
  zbuf out = ZBUF_INIT;
  if (!strcmp(m->method, "ping")) {
    zrpc_build_result(&out, m->id, NULL);
  } else if (!strcmp(m->method, "roots/list")) {
    json_t *r = roots_result(c);
    zrpc_build_result(&out, m->id, r);
    json_decref(r);
  } else if (!strcmp(m->method, "elicitation/create") && c->opts.on_elicit) {
    json_t *r = c->opts.on_elicit(c->opts.elicit_ud, c->cfg->name, m->params);
    zrpc_build_result(&out, m->id, r);
    json_decref(r);
  } else if (!strcmp(m->method, "sampling/createMessage") && c->opts.on_sample) {
    zmcp_refusal why = {ZRPC_INTERNAL_ERROR, "sampling failed"};
    json_t *r = c->opts.on_sample(c->opts.sample_ud, c->cfg->name, m->params, &why);
    if (r) zrpc_build_result(&out, m->id, r);
    else zrpc_build_error(&out, m->id, why.code, why.message);
    json_decref(r);
  } else {
    char msg[256];
    snprintf(msg, sizeof msg, "zero does not support the request \"%.120s\"", m->method);
    zrpc_build_error(&out, m->id, ZRPC_METHOD_NOT_FOUND, msg);
  }
  if (c->cfg->type == ZMCP_HTTP) {
    /* Streamable HTTP: the request may have come in the reply to one of our
     * POSTs, which the server finishes only once it has this answer: it goes
     * out now (the transport sends it on a connection of its own). */
    /* Best effort: a server that refuses our answer has not broken the
     * session (it will fail the request it asked for if it cared). */
    zerr ignore = ZERR_INIT;
    c->t->ops->send(c->t, out.data, out.len, c->timeout_ms, &ignore);
    zbuf_release(&out);
    return;
  }
  queue_out(c, &out);
}

static int on_message(void *ud, zrpc_msg *m) {
  zmcp_client *c = ud;
  switch (m->kind) {
    case ZRPC_RESPONSE:
    case ZRPC_ERROR: {
      c->t->responses++;
      msg_vec *in = inbox(c);
      if (in->len >= INBOX_MAX) {
        zrpc_msg_release(&in->items[0]);
        memmove(in->items, in->items + 1, (in->len - 1) * sizeof *in->items);
        in->len--;
      }
      zvec_push(in, *m);
      return 0; /* ownership moved into the inbox */
    }
    case ZRPC_NOTIFICATION: on_notification(c, m); break;
    case ZRPC_REQUEST: on_server_request(c, m); break;
    case ZRPC_ORPHAN:
      /* Nothing waits for it (e.g. a "reply" to a notification): the
       * TypeScript SDK ignores it too; a bug report may need to see it. */
      zlog("mcp", "server \"%s\" sent a reply without an id; dropped", c->cfg->name);
      break;
  }
  zrpc_msg_release(m);
  return 0;
}

static void set_failure(zmcp_client *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void set_failure(zmcp_client *c, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *msg = xstrvfmt(fmt, ap);
  va_end(ap);
  free(c->failure);
  c->failure = msg;
}

static int deliver(void *ud, const char *json, size_t len) {
  zmcp_client *c = ud;
  zerr err = ZERR_INIT;
  if (zrpc_parse(json, len, on_message, c, &err) < 0) {
    /* json is not NUL-terminated (a line inside the read buffer): print len bytes at most. */
    set_failure(c, "MCP server \"%s\" sent an invalid message (%s): %.*s%s", c->cfg->name,
                err.msg, (int)(len > 200 ? 200 : len), json, len > 200 ? "…" : "");
    return -1;
  }
  return 0;
}

/* ---- sending --------------------------------------------------------------- */

/* "…; its stderr said:\n<tail>" appended when the server wrote any. */
static void add_stderr(zmcp_client *c, zerr *err) {
  const char *tail = zmcp_client_stderr(c);
  if (!tail || !err) return;
  size_t used = strlen(err->msg);
  snprintf(err->msg + used, sizeof err->msg - used, "; its stderr said:\n%s", tail);
}

/* Fails when the client is already unusable. */
static int check_alive(zmcp_client *c, zerr *err) {
  if (!c->failure) return 0;
  return zerr_set(err, ZE_PROVIDER, "%s", c->failure);
}

/* Marks the client dead with err's message (plus stderr). */
static int die(zmcp_client *c, zerr *err) {
  if (err && err->kind != ZE_CANCELLED) {
    if (c->failure) {
      /* A delivery failure already explained itself better. */
      snprintf(err->msg, sizeof err->msg, "%s", c->failure);
      err->kind = ZE_PROVIDER;
    }
    add_stderr(c, err);
    if (!c->failure) set_failure(c, "%s", err->msg);
  }
  return -1;
}

/* timeout_ms: how long an HTTP exchange may sit idle (a request's answer
 * comes in the POST's own reply); for stdio, how long a write may block. */
static int send_text_within(zmcp_client *c, const char *s, size_t n, int timeout_ms, zerr *err) {
  if (c->t->ops->send(c->t, s, n, timeout_ms, err) < 0) {
    /* An HTTP request that timed out leaves the session usable: only that
     * exchange is over. A stdio server that stopped reading is stuck. */
    if (err && err->kind == ZE_TIMEOUT && c->cfg->type != ZMCP_STDIO) return -1;
    /* A forgotten session: send_request starts a new one. */
    if (c->t->session_lost && c->ready && !c->reconnecting) return -1;
    return die(c, err);
  }
  if (c->failure) return zerr_set(err, ZE_PROVIDER, "%s", c->failure);
  return 0;
}

static int send_text(zmcp_client *c, const char *s, size_t n, zerr *err) {
  return send_text_within(c, s, n, c->timeout_ms, err);
}

static int flush_outbox(zmcp_client *c, zerr *err) {
  str_vec *o = outbox(c);
  /* Sending may deliver more requests (HTTP): take the current batch first. */
  while (o->len) {
    char *s = o->items[0];
    memmove(o->items, o->items + 1, (o->len - 1) * sizeof *o->items);
    o->len--;
    int rc = send_text(c, s, strlen(s), err);
    free(s);
    if (rc < 0) return -1;
  }
  return 0;
}

static int send_notification(zmcp_client *c, const char *method, json_t *params, zerr *err) {
  zbuf b = ZBUF_INIT;
  zrpc_build_notification(&b, method, params);
  int rc = send_text(c, b.data, b.len, err);
  zbuf_release(&b);
  return rc;
}

/* Tells the server to stop working on request id. Never for initialize (the
 * only request sent before its answer sets protocol_version): the spec
 * forbids cancelling it; the connection is dropped instead. */
static void send_cancelled(zmcp_client *c, int64_t id, const char *reason) {
  if (!c->protocol_version) return;
  zerr ignore = ZERR_INIT;
  json_t *p = json_pack("{s:I, s:s}", "requestId", (json_int_t)id, "reason", reason);
  send_notification(c, "notifications/cancelled", p, &ignore);
  json_decref(p);
}

static int reinitialize(zmcp_client *c, zerr *err);

/* Sends a request; returns its id, or -1. Steals params. timeout_ms: the
 * request's own timeout (0 = the server's timeoutMs). */
static int64_t send_request(zmcp_client *c, const char *method, json_t *params, int timeout_ms,
                            zerr *err) {
  if (check_alive(c, err) < 0) {
    json_decref(params);
    return -1;
  }
  int64_t id = ++c->next_id;
  zbuf b = ZBUF_INIT;
  zrpc_build_request(&b, id, method, params);
  int allowed = timeout_ms > 0 ? timeout_ms : c->timeout_ms;
  int rc = send_text_within(c, b.data, b.len, allowed, err);
  if (rc < 0 && c->t->session_lost && c->ready && !c->reconnecting) {
    /* Streamable HTTP: the server forgot the session (restarted, expired
     * it). The spec wants a new one: initialize again, then send the request
     * once more, under a new id. */
    c->t->session_lost = false;
    c->reconnecting = true;
    zbuf why = ZBUF_INIT;
    zbuf_addstr(&why, err ? err->msg : "");
    rc = reinitialize(c, err);
    c->reconnecting = false;
    if (rc == 0) {
      id = ++c->next_id;
      zbuf_reset(&b);
      zrpc_build_request(&b, id, method, params);
      rc = send_text_within(c, b.data, b.len, allowed, err);
    } else if (err) {
      char inner[sizeof err->msg];
      snprintf(inner, sizeof inner, "%s", err->msg);
      snprintf(err->msg, sizeof err->msg, "%s, and starting a new session failed: %s", why.data,
               inner);
      if (!c->failure) set_failure(c, "%s", err->msg);
    }
    zbuf_release(&why);
  }
  json_decref(params);
  zbuf_release(&b);
  if (rc < 0 && err && err->kind == ZE_TIMEOUT && c->cfg->type != ZMCP_STDIO) {
    /* HTTP: the answer did not come within the request's timeout. */
    send_cancelled(c, id, "timed out");
    zerr_set(err, ZE_TIMEOUT,
             "MCP server \"%s\" did not answer %s within %d ms; raise \"%s\" for it in the "
             "config if it is just slow",
             c->cfg->name, method, allowed, c->ready ? "timeoutMs" : "startupTimeoutMs");
  } else if (rc < 0 && err && err->kind == ZE_CANCELLED) {
    /* HTTP: the user cancelled while the POST was waiting for the answer
     * (which comes in the POST's own SSE stream): the server still runs it. */
    send_cancelled(c, id, "cancelled by the user");
    zerr_set(err, ZE_CANCELLED, "the %s request to MCP server \"%s\" was cancelled", method,
             c->cfg->name);
  }
  return rc < 0 ? -1 : id;
}

/* Takes the answer to id out of the inbox, if it is there. */
static bool take_answer(zmcp_client *c, int64_t id, zrpc_msg *out) {
  msg_vec *in = inbox(c);
  for (size_t i = 0; i < in->len; i++) {
    json_t *mid = in->items[i].id;
    if (json_is_integer(mid) && json_integer_value(mid) == id) {
      *out = in->items[i];
      memmove(in->items + i, in->items + i + 1, (in->len - i - 1) * sizeof *in->items);
      in->len--;
      return true;
    }
  }
  return false;
}

/* Waits for the answer to request id. */
static int await_answer(zmcp_client *c, int64_t id, const char *method, int timeout_ms,
                        int64_t deadline, json_t **result, zerr *err) {
  long long allowed = timeout_ms > 0 ? timeout_ms : c->timeout_ms;
  if (!deadline) deadline = ztime_mono_ms() + allowed;
  else allowed = deadline - ztime_mono_ms();
  for (;;) {
    if (flush_outbox(c, err) < 0) return -1;
    zrpc_msg m;
    if (take_answer(c, id, &m)) {
      int rc = 0;
      if (m.kind == ZRPC_ERROR) {
        if (!c->protocol_version && !c->init_error) c->init_error = json_incref(m.error);
        cleanup_free char *text = zrpc_error_text(m.error);
        rc = zerr_set(err, ZE_PROVIDER, "MCP server \"%s\" answered %s with %s", c->cfg->name,
                      method, text);
      } else if (result) {
        *result = json_incref(m.result);
      }
      zrpc_msg_release(&m);
      return rc;
    }
    if (check_alive(c, err) < 0) return -1;
    int64_t left = deadline - ztime_mono_ms();
    if (left <= 0) {
      send_cancelled(c, id, "timed out");
      return zerr_set(err, ZE_TIMEOUT,
                      "MCP server \"%s\" did not answer %s within %lld ms; raise \"%s\" for "
                      "it in the config if it is just slow",
                      c->cfg->name, method, allowed,
                      c->ready ? "timeoutMs" : "startupTimeoutMs");
    }
    int rc = c->t->ops->pump(c->t, left > 1000 ? 1000 : (int)left, err);
    if (rc < 0) {
      if (err && err->kind == ZE_CANCELLED) {
        send_cancelled(c, id, "cancelled by the user");
        return zerr_set(err, ZE_CANCELLED, "the %s request to MCP server \"%s\" was cancelled",
                        method, c->cfg->name);
      }
      return die(c, err);
    }
  }
}

int zmcp_request(zmcp_client *c, const char *method, json_t *params, int timeout_ms,
                 json_t **result, zerr *err) {
  if (result) *result = NULL;
  int64_t id = send_request(c, method, params, timeout_ms, err);
  if (id < 0) return -1;
  return await_answer(c, id, method, timeout_ms, 0, result, err);
}

/* ---- lifecycle -------------------------------------------------------------- */

zmcp_client *zmcp_client_new(const zmcp_server_cfg *cfg, const zmcp_client_opts *opts) {
  zmcp_client *c = xcalloc(1, sizeof *c);
  c->cfg = cfg;
  if (opts) c->opts = *opts;
  /* The roots answer may be asked for at any time: keep our own copy. */
  c->workspace_copy = c->opts.workspace ? xstrdup(c->opts.workspace) : NULL;
  c->opts.workspace = c->workspace_copy;
  c->roots_copy = xcalloc(c->opts.n_roots + 1, sizeof *c->roots_copy);
  for (size_t i = 0; i < c->opts.n_roots; i++) c->roots_copy[i] = xstrdup(c->opts.roots[i]);
  c->opts.roots = (const char *const *)c->roots_copy;
  c->inbox = xcalloc(1, sizeof(msg_vec));
  c->outbox = xcalloc(1, sizeof(str_vec));
  c->timeout_ms = cfg->timeout_ms > 0 ? cfg->timeout_ms : ZMCP_DEFAULT_TIMEOUT_MS;
  c->t = cfg->type == ZMCP_STDIO ? zmcp_stdio_new(cfg, c->opts.workspace, c->opts.spawner)
                                 : zmcp_http_new(cfg, cfg->type == ZMCP_SSE);
  c->t->deliver = deliver;
  c->t->deliver_ud = c;
  return c;
}

static void free_tools(zmcp_client *c) {
  for (size_t i = 0; i < c->n_tools; i++) {
    free(c->tools[i].name);
    free(c->tools[i].description);
    json_decref(c->tools[i].input_schema);
  }
  free(c->tools);
  c->tools = NULL;
  c->n_tools = 0;
}

const zmcp_tool *zmcp_find_tool(const zmcp_client *c, const char *name) {
  for (size_t i = 0; i < c->n_tools; i++)
    if (!strcmp(c->tools[i].name, name)) return &c->tools[i];
  return NULL;
}

bool zmcp_can_subscribe(const zmcp_client *c) {
  return json_is_true(json_object_get(json_object_get(c->server_caps, "resources"), "subscribe"));
}

int zmcp_resource_subscribe(zmcp_client *c, const char *uri, bool on, zerr *err) {
  if (!zmcp_can_subscribe(c))
    return zerr_set(err, ZE_USAGE,
                    "MCP server \"%s\" offers no resource subscriptions (its resources "
                    "capability has no \"subscribe\")",
                    c->cfg->name);
  json_t *r = NULL;
  int rc = zmcp_request(c, on ? "resources/subscribe" : "resources/unsubscribe",
                        json_pack("{s:s}", "uri", uri), 0, &r, err);
  json_decref(r);
  return rc;
}

/* Appends the tools of one tools/list page; returns nextCursor (borrowed) or NULL. */
static const char *add_tool_page(zmcp_client *c, json_t *result, zmcp_tool **tools, size_t *n) {
  json_t *arr = json_object_get(result, "tools");
  size_t i;
  json_t *t;
  json_array_foreach(arr, i, t) {
    const char *name = zjson_str(t, "name");
    if (!name || !name[0]) continue;
    json_t *schema = json_object_get(t, "inputSchema");
    *tools = xrealloc(*tools, (*n + 1) * sizeof **tools);
    zmcp_tool *d = &(*tools)[(*n)++];
    d->name = xstrdup(name);
    d->description = xstrdup(zjson_str_or(t, "description", ""));
    d->input_schema = json_is_object(schema) ? json_deep_copy(schema)
                                             : json_pack("{s:s}", "type", "object");
    d->read_only = zjson_bool_or(json_object_get(t, "annotations"), "readOnlyHint", false);
  }
  return zjson_str(result, "nextCursor");
}

static int finish_tool_list(zmcp_client *c, json_t *first, zerr *err) {
  zmcp_tool *tools = NULL;
  size_t n = 0;
  json_t *page = first;
  int rc = 0;
  for (int pages = 0;; pages++) {
    const char *cursor = add_tool_page(c, page, &tools, &n);
    if (!cursor || !cursor[0] || pages > 1000) break;
    json_t *next = NULL;
    rc = zmcp_request(c, "tools/list", json_pack("{s:s}", "cursor", cursor), 0, &next, err);
    if (page != first) json_decref(page);
    page = next;
    if (rc < 0) break;
  }
  if (page && page != first) json_decref(page);
  if (rc < 0) {
    for (size_t i = 0; i < n; i++) {
      free(tools[i].name);
      free(tools[i].description);
      json_decref(tools[i].input_schema);
    }
    free(tools);
    return -1;
  }
  free_tools(c);
  c->tools = tools;
  c->n_tools = n;
  return 0;
}

void zmcp_client_poll(zmcp_client *c) {
  /* What a tool call changed (tools/list_changed) may come just after the
   * call's answer: on Streamable HTTP on the event stream, a connection of
   * its own that may lag by a moment; over stdio in a write of its own,
   * which a busy machine may schedule a little later. Give it that moment
   * once after a call (it is over as soon as anything arrives). */
  int wait_ms = !c->call_ended ? 0 : c->cfg->type == ZMCP_HTTP ? 50 : 20;
  c->call_ended = false;
  zmcp_client_wait(c, wait_ms);
}

int zmcp_client_wait(zmcp_client *c, int wait_ms) {
  if (!c->ready || c->failure) return -1;
  zerr err = ZERR_INIT;
  /* A bounded number of rounds: a server that never stops talking cannot
   * keep the caller here. */
  for (int round = 0; round < 64; round++) {
    int rc = c->t->ops->pump(c->t, round ? 0 : wait_ms, &err);
    if (rc < 0) {
      /* stdio: the server is gone (EOF) or sent garbage: say so from now on.
       * HTTP: no event stream (none offered, or it ended) is no failure. */
      if (c->cfg->type == ZMCP_STDIO && err.kind != ZE_CANCELLED) die(c, &err);
      break;
    }
    if (rc == 0) break;
  }
  zerr ignore = ZERR_INIT;
  if (!c->failure) flush_outbox(c, &ignore);
  return c->failure ? -1 : 0;
}

int zmcp_refresh_tools(zmcp_client *c, zerr *err) {
  c->tools_stale = false;
  if (c->server_caps && !json_object_get(c->server_caps, "tools")) {
    free_tools(c);
    return 0;
  }
  json_t *r = NULL;
  if (zmcp_request(c, "tools/list", NULL, 0, &r, err) < 0) return -1;
  int rc = finish_tool_list(c, r, err);
  json_decref(r);
  return rc;
}

static json_t *initialize_params(const zmcp_client *c, const char *version) {
  json_t *p =
      json_pack("{s:s, s:{s:{s:b}}, s:{s:s, s:s}}", "protocolVersion", version, "capabilities",
                "roots", "listChanged", 1, "clientInfo", "name", "zero", "version", ZERO_VERSION);
  json_t *caps = json_object_get(p, "capabilities");
  if (c->opts.on_elicit) json_object_set_new(caps, "elicitation", json_object());
  if (c->opts.on_sample) json_object_set_new(caps, "sampling", json_object());
  return p;
}

static int startup_ms(const zmcp_client *c) {
  return c->cfg->startup_timeout_ms > 0 ? c->cfg->startup_timeout_ms
                                        : ZMCP_DEFAULT_STARTUP_TIMEOUT_MS;
}

/* What is left of the start-up time (at least 1 ms): over HTTP the whole
 * exchange happens in send(), so the start-up deadline must bound it there. */
static int left_ms(int64_t deadline) {
  int64_t left = deadline - ztime_mono_ms();
  return left > 0 ? (int)left : 1;
}

/* Phase one: start the transport and send initialize. */
static int begin_connect(zmcp_client *c, zerr *err) {
  if (c->t->ops->start(c->t, err) < 0) return die(c, err);
  c->pending_init = send_request(c, "initialize", initialize_params(c, ZMCP_PROTOCOL_VERSION),
                                 startup_ms(c), err);
  return c->pending_init < 0 ? -1 : 0;
}

/* A server that does not speak the revision asked for may refuse
 * initialize with an error whose data lists the revisions it supports
 * ({"supported": [...], "requested": ...}, as in the spec's lifecycle
 * section): the newest of those zero speaks, or NULL. */
static const char *fallback_version(const json_t *error) {
  json_t *supported = json_object_get(json_object_get(error, "data"), "supported");
  for (size_t i = 0; i < ZARRAY_LEN(supported_versions); i++) {
    size_t j;
    json_t *v;
    json_array_foreach(supported, j, v) {
      if (json_is_string(v) && !strcmp(json_string_value(v), supported_versions[i]))
        return supported_versions[i];
    }
  }
  return NULL;
}

/* Phase two: the initialize answer, initialized, and tools/list sent. */
static int continue_connect(zmcp_client *c, int64_t deadline, zerr *err) {
  json_t *r = NULL;
  int arc = await_answer(c, c->pending_init, "initialize", 0, deadline, &r, err);
  const char *older = arc < 0 && c->init_error && !c->init_retried
                          ? fallback_version(c->init_error) : NULL;
  if (older && strcmp(older, ZMCP_PROTOCOL_VERSION) != 0) {
    /* Once only: ask again in a revision the server named. */
    c->init_retried = true;
    json_decref(c->init_error);
    c->init_error = NULL;
    zerr_clear(err);
    c->pending_init =
        send_request(c, "initialize", initialize_params(c, older), left_ms(deadline), err);
    if (c->pending_init < 0) return -1;
    arc = await_answer(c, c->pending_init, "initialize", 0, deadline, &r, err);
  }
  if (arc < 0) return -1;
  const char *v = zjson_str(r, "protocolVersion");
  if (!zmcp_protocol_supported(v)) {
    zerr_set(err, ZE_PROVIDER,
             "MCP server \"%s\" speaks protocol revision %s, which zero does not support "
             "(zero speaks %s down to 2024-11-05); update the server or zero",
             c->cfg->name, v ? v : "(none given)", ZMCP_PROTOCOL_VERSION);
    json_decref(r);
    set_failure(c, "%s", err->msg);
    return -1;
  }
  c->protocol_version = xstrdup(v);
  free(c->t->protocol_version);
  c->t->protocol_version = xstrdup(v);
  json_t *info = json_object_get(r, "serverInfo");
  c->server_name = xstrdup(zjson_str_or(info, "name", c->cfg->name));
  c->server_version = xstrdup(zjson_str_or(info, "version", ""));
  const char *instr = zjson_str(r, "instructions");
  c->instructions = instr ? xstrdup(instr) : NULL;
  json_t *caps = json_object_get(r, "capabilities");
  c->server_caps = json_is_object(caps) ? json_incref(caps) : json_object();
  json_decref(r);
  if (send_notification(c, "notifications/initialized", NULL, err) < 0) return -1;
  c->ready = true;
  c->pending_list = 0;
  if (json_object_get(c->server_caps, "tools")) {
    c->tools_stale = false; /* the list we are about to fetch is fresh */
    c->pending_list = send_request(c, "tools/list", NULL, left_ms(deadline), err);
    if (c->pending_list < 0) return -1;
  }
  return 0;
}

/* Phase three: the tool list. */
static int finish_connect(zmcp_client *c, int64_t deadline, zerr *err) {
  if (!c->pending_list) return 0;
  json_t *r = NULL;
  if (await_answer(c, c->pending_list, "tools/list", 0, deadline, &r, err) < 0) return -1;
  int rc = finish_tool_list(c, r, err);
  json_decref(r);
  return rc;
}

static int64_t startup_deadline(zmcp_client *c) { return ztime_mono_ms() + startup_ms(c); }

/* A new session with a server that forgot ours: what connecting does after
 * the transport has started (initialize, initialized, tools/list). */
static int reinitialize(zmcp_client *c, zerr *err) {
  free(c->protocol_version);
  c->protocol_version = NULL;
  free(c->t->protocol_version);
  c->t->protocol_version = NULL;
  free(c->server_name);
  free(c->server_version);
  free(c->instructions);
  c->server_name = c->server_version = c->instructions = NULL;
  json_decref(c->server_caps);
  c->server_caps = NULL;
  json_decref(c->init_error);
  c->init_error = NULL;
  c->init_retried = false;
  c->ready = false;
  zerr_clear(err);
  int64_t deadline = startup_deadline(c);
  c->pending_init = send_request(c, "initialize", initialize_params(c, ZMCP_PROTOCOL_VERSION),
                                 startup_ms(c), err);
  if (c->pending_init < 0 || continue_connect(c, deadline, err) < 0 ||
      finish_connect(c, deadline, err) < 0)
    return -1;
  return 0;
}

static void fail_connect(zmcp_client *c, zerr *err) {
  c->ready = false;
  if (err->kind == ZE_TIMEOUT) add_stderr(c, err);
  if (!c->failure || err->kind == ZE_TIMEOUT) set_failure(c, "%s", err->msg);
}

int zmcp_client_connect(zmcp_client *c, zerr *err) {
  int64_t deadline = startup_deadline(c);
  if (begin_connect(c, err) < 0 || continue_connect(c, deadline, err) < 0 ||
      finish_connect(c, deadline, err) < 0) {
    fail_connect(c, err);
    return -1;
  }
  return 0;
}

/* A remote server's whole connect runs on a thread of its own: an HTTP
 * exchange blocks in send(), so the phases below cannot interleave it. The
 * thread touches only its client; zmcp_start_all joins it. */
typedef struct remote_start {
  zmcp_client *c;
  pthread_t thread;
  bool started;
} remote_start;

static void *remote_main(void *arg) {
  remote_start *r = arg;
  zerr err = ZERR_INIT;
  zmcp_client_connect(r->c, &err);
  return NULL;
}

size_t zmcp_start_all(zmcp_client **cs, size_t n) {
  /* Every process starts (and every remote connect begins) before any answer
   * is awaited, so start-up costs the slowest server, not the sum of all. */
  bool *ok = xcalloc(n ? n : 1, sizeof *ok);
  int64_t *deadline = xcalloc(n ? n : 1, sizeof *deadline);
  remote_start *remote = xcalloc(n ? n : 1, sizeof *remote);
  for (size_t i = 0; i < n; i++) {
    if (cs[i]->cfg->type == ZMCP_STDIO) continue;
    remote[i].c = cs[i];
    remote[i].started = pthread_create(&remote[i].thread, NULL, remote_main, &remote[i]) == 0;
    if (!remote[i].started) remote_main(&remote[i]); /* no thread: connect here */
  }
  for (size_t i = 0; i < n; i++) {
    if (remote[i].c) continue;
    zerr err = ZERR_INIT;
    deadline[i] = startup_deadline(cs[i]);
    ok[i] = begin_connect(cs[i], &err) == 0;
    if (!ok[i]) fail_connect(cs[i], &err);
  }
  for (size_t i = 0; i < n; i++) {
    zerr err = ZERR_INIT;
    if (!remote[i].c && ok[i] && continue_connect(cs[i], deadline[i], &err) < 0) {
      ok[i] = false;
      fail_connect(cs[i], &err);
    }
  }
  size_t ready = 0;
  for (size_t i = 0; i < n; i++) {
    zerr err = ZERR_INIT;
    if (remote[i].c) {
      if (remote[i].started) pthread_join(remote[i].thread, NULL);
      ok[i] = cs[i]->ready && !cs[i]->failure;
    } else if (ok[i] && finish_connect(cs[i], deadline[i], &err) < 0) {
      ok[i] = false;
      fail_connect(cs[i], &err);
    }
    if (ok[i]) ready++;
  }
  free(ok);
  free(deadline);
  free(remote);
  return ready;
}

int zmcp_call_tool(zmcp_client *c, const char *tool, const json_t *args, int timeout_ms,
                   json_t **result, zerr *err) {
  *result = NULL;
  int64_t id = c->next_id + 1; /* the id send_request will use: also the progress token */
  json_t *params = json_pack("{s:s, s:{s:I}}", "name", tool, "_meta", "progressToken",
                             (json_int_t)id);
  if (args)
    json_object_set(params, "arguments", (json_t *)args);
  else
    json_object_set_new(params, "arguments", json_object());
  /* A tool call may take long: the server's timeoutMs when set, else 10 min. */
  if (timeout_ms <= 0)
    timeout_ms = c->cfg->timeout_ms > 0 ? c->cfg->timeout_ms : ZMCP_CALL_TIMEOUT_MS;
  int64_t sent = send_request(c, "tools/call", params, timeout_ms, err);
  c->call_ended = true;
  if (sent < 0) return -1;
  return await_answer(c, sent, "tools/call", timeout_ms, 0, result, err);
}

const char *zmcp_client_stderr(zmcp_client *c) {
  return c->t && c->t->ops->diagnostics ? c->t->ops->diagnostics(c->t) : NULL;
}

void zmcp_close_all(zmcp_client **cs, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (cs[i] && cs[i]->t) cs[i]->t->ops->begin_shutdown(cs[i]->t);
  long long deadline = ztime_mono_ms() + 300; /* then SIGTERM: many servers only end on a signal */
  for (size_t i = 0; i < n; i++)
    if (cs[i] && cs[i]->t) cs[i]->t->ops->finish_shutdown(cs[i]->t, deadline);
}

void zmcp_client_close(zmcp_client *c) { zmcp_close_all(&c, 1); }

void zmcp_client_set_roots(zmcp_client *c, const char *const *roots, size_t n) {
  for (size_t i = 0; i < c->opts.n_roots; i++) free(c->roots_copy[i]);
  free(c->roots_copy);
  c->roots_copy = xcalloc(n + 1, sizeof *c->roots_copy);
  for (size_t i = 0; i < n; i++) c->roots_copy[i] = xstrdup(roots[i]);
  c->opts.roots = (const char *const *)c->roots_copy;
  c->opts.n_roots = n;
  if (!c->ready || c->failure) return;
  /* Best effort: a server that misses it still gets the new list when it
   * asks roots/list again. */
  zerr ignore = ZERR_INIT;
  send_notification(c, "notifications/roots/list_changed", NULL, &ignore);
}

void zmcp_client_free(zmcp_client *c) {
  if (!c) return;
  if (c->t) c->t->ops->destroy(c->t);
  msg_vec *in = inbox(c);
  for (size_t i = 0; i < in->len; i++) zrpc_msg_release(&in->items[i]);
  zvec_free(in);
  free(in);
  str_vec *o = outbox(c);
  for (size_t i = 0; i < o->len; i++) free(o->items[i]);
  zvec_free(o);
  free(o);
  free_tools(c);
  free(c->protocol_version);
  free(c->server_name);
  free(c->server_version);
  free(c->instructions);
  json_decref(c->server_caps);
  json_decref(c->init_error);
  free(c->failure);
  free(c->workspace_copy);
  for (size_t i = 0; i < c->opts.n_roots; i++) free(c->roots_copy[i]);
  free(c->roots_copy);
  free(c);
}
