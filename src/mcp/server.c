/* server.c — the MCP server's protocol core and its stdio transport; see
 * server.h. */
#include "mcp/server.h"

#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/common.h"
#include "base/json.h"
#include "base/log.h"
#include "base/time.h"
#include "mcp/client.h"

static const char *const LEVELS[] = {"debug", "info",     "notice", "warning",
                                     "error", "critical", "alert",  "emergency"};

/* A server->client request waiting for its answer. */
typedef struct ask {
  int64_t id;
  json_t *result, *error; /* set when answered */
  bool done;
  struct ask *next;
} ask;

struct zmcp_session {
  const zmcp_catalog *cat;
  pthread_mutex_t mu; /* guards everything below */
  pthread_cond_t answered;
  char protocol[16];
  json_t *client_caps; /* initialize's capabilities */
  int min_level;       /* index in LEVELS; 0 until logging/setLevel */
  int64_t next_ask_id;
  ask *asks;
  bool closed;
};

struct zmcp_call {
  zmcp_session *s;
  const zmcp_reply_ops *ops;
  void *ud;
  json_t *progress_token; /* borrowed from the request */
};

zmcp_session *zmcp_session_new(const zmcp_catalog *cat) {
  zmcp_session *s = xcalloc(1, sizeof *s);
  s->cat = cat;
  pthread_mutex_init(&s->mu, NULL);
  pthread_cond_init(&s->answered, NULL);
  s->next_ask_id = 1;
  return s;
}

void zmcp_session_close(zmcp_session *s) {
  pthread_mutex_lock(&s->mu);
  s->closed = true;
  pthread_cond_broadcast(&s->answered);
  pthread_mutex_unlock(&s->mu);
}

void zmcp_session_free(zmcp_session *s) {
  if (!s) return;
  assert(!s->asks); /* every ask unlinks itself before its call returns */
  json_decref(s->client_caps);
  pthread_cond_destroy(&s->answered);
  pthread_mutex_destroy(&s->mu);
  free(s);
}

const char *zmcp_session_protocol(const zmcp_session *s) {
  return s->protocol[0] ? s->protocol : NULL;
}

static int level_index(const char *name) {
  for (size_t i = 0; name && i < ZARRAY_LEN(LEVELS); i++)
    if (!strcmp(name, LEVELS[i])) return (int)i;
  return -1;
}

static void send_msg(zmcp_call *c, zbuf *msg) {
  if (c->ops && c->ops->send) (void)c->ops->send(c->ud, msg->data, msg->len);
  zbuf_release(msg);
}

void zmcp_call_log(zmcp_call *c, const char *level, const char *logger, json_t *data) {
  int li = level_index(level);
  assert(li >= 0);
  pthread_mutex_lock(&c->s->mu);
  bool wanted = li >= c->s->min_level;
  pthread_mutex_unlock(&c->s->mu);
  if (!wanted) return;
  json_t *p = json_pack("{s:s, s:O}", "level", level, "data", data ? data : json_null());
  if (logger) json_object_set_new(p, "logger", json_string(logger));
  zbuf msg = ZBUF_INIT;
  zrpc_build_notification(&msg, "notifications/message", p);
  json_decref(p);
  send_msg(c, &msg);
}

void zmcp_call_progress(zmcp_call *c, double progress, double total, const char *message) {
  if (!c->progress_token) return;
  json_t *p = json_pack("{s:O, s:f}", "progressToken", c->progress_token, "progress", progress);
  if (total > 0) json_object_set_new(p, "total", json_real(total));
  if (message) json_object_set_new(p, "message", json_string(message));
  zbuf msg = ZBUF_INIT;
  zrpc_build_notification(&msg, "notifications/progress", p);
  json_decref(p);
  send_msg(c, &msg);
}

bool zmcp_call_client_has(const zmcp_call *c, const char *capability) {
  pthread_mutex_lock(&c->s->mu);
  bool has = json_object_get(c->s->client_caps, capability) != NULL;
  pthread_mutex_unlock(&c->s->mu);
  return has;
}

static void unlink_ask(zmcp_session *s, ask *a) {
  for (ask **pp = &s->asks; *pp; pp = &(*pp)->next)
    if (*pp == a) {
      *pp = a->next;
      return;
    }
}

json_t *zmcp_call_ask(zmcp_call *c, const char *method, json_t *params, int timeout_ms, zerr *err) {
  if (!c->ops || !c->ops->can_ask) {
    zerr_set(err, ZE_INVALID, "the client cannot answer requests over this transport");
    return NULL;
  }
  zmcp_session *s = c->s;
  ask a = {0};
  pthread_mutex_lock(&s->mu);
  if (s->closed) {
    pthread_mutex_unlock(&s->mu);
    zerr_set(err, ZE_CANCELLED, "the MCP session ended");
    return NULL;
  }
  a.id = s->next_ask_id++;
  a.next = s->asks;
  s->asks = &a;
  pthread_mutex_unlock(&s->mu);

  zbuf msg = ZBUF_INIT;
  zrpc_build_request(&msg, a.id, method, params);
  bool sent = c->ops->send(c->ud, msg.data, msg.len) == 0;
  zbuf_release(&msg);

  struct timespec until = ztime_realtime_after(timeout_ms);
  pthread_mutex_lock(&s->mu);
  int rc = 0;
  while (sent && !a.done && !s->closed && rc != ETIMEDOUT)
    rc = pthread_cond_timedwait(&s->answered, &s->mu, &until);
  unlink_ask(s, &a);
  bool closed = s->closed;
  pthread_mutex_unlock(&s->mu);
  if (!sent) zerr_set(err, ZE_IO, "the client could not be reached");
  else if (!a.done && closed) zerr_set(err, ZE_CANCELLED, "the MCP session ended");
  else if (!a.done)
    zerr_set(err, ZE_TIMEOUT, "the client did not answer %s in %d ms", method, timeout_ms);
  else if (a.error) {
    char *t = zrpc_error_text(a.error);
    zerr_set(err, ZE_PROVIDER, "the client refused %s: %s", method, t);
    free(t);
  }
  json_decref(a.error);
  if (!a.done || a.error) {
    json_decref(a.result);
    return NULL;
  }
  return a.result;
}

bool zmcp_call_detach(zmcp_call *c, int retry_ms) {
  if (!c->ops || !c->ops->detach) return false;
  c->ops->detach(c->ud, retry_ms);
  return true;
}

/* A response from the client: hand it to the ask waiting for its id. */
static void deliver(zmcp_session *s, const zrpc_msg *m) {
  if (!json_is_integer(m->id)) return;
  pthread_mutex_lock(&s->mu);
  for (ask *a = s->asks; a; a = a->next)
    if (a->id == json_integer_value(m->id) && !a->done) {
      /* Copies, not references: the asking thread owns its answer alone,
       * and this message is freed here while that thread reads it (a
       * shared jansson tree would hang on refcounts across threads). */
      a->result = m->result ? json_deep_copy(m->result) : NULL;
      a->error = m->error ? json_deep_copy(m->error) : NULL;
      a->done = true;
      pthread_cond_broadcast(&s->answered);
      break;
    }
  pthread_mutex_unlock(&s->mu);
}

static json_t *initialize(zmcp_session *s, const json_t *params) {
  const char *v = zjson_str(params, "protocolVersion");
  const char *chosen = zmcp_protocol_supported(v) ? v : ZMCP_PROTOCOL_VERSION;
  json_t *caps = s->cat->capabilities ? s->cat->capabilities(s->cat->ud) : json_object();
  json_object_set_new(caps, "logging", json_object());
  pthread_mutex_lock(&s->mu);
  snprintf(s->protocol, sizeof s->protocol, "%s", chosen);
  json_decref(s->client_caps);
  json_t *cc = json_object_get(params, "capabilities");
  s->client_caps = json_is_object(cc) ? json_incref(cc) : json_object();
  pthread_mutex_unlock(&s->mu);
  json_t *r = json_pack("{s:s, s:o, s:{s:s, s:s}}", "protocolVersion", chosen, "capabilities", caps,
                        "serverInfo", "name", s->cat->name, "version", s->cat->version);
  if (s->cat->instructions)
    json_object_set_new(r, "instructions", json_string(s->cat->instructions));
  return r;
}

static void handle_request(zmcp_session *s, const zrpc_msg *m, const zmcp_reply_ops *ops, void *ud,
                           zbuf *out) {
  json_t *params = json_is_object(m->params) ? m->params : NULL;
  if (!strcmp(m->method, "initialize")) {
    json_t *r = initialize(s, params);
    zrpc_build_result(out, m->id, r);
    json_decref(r);
    return;
  }
  if (!strcmp(m->method, "ping")) {
    zrpc_build_result(out, m->id, NULL);
    return;
  }
  if (!strcmp(m->method, "logging/setLevel")) {
    int li = level_index(zjson_str(params, "level"));
    if (li < 0) {
      zrpc_build_error(out, m->id, ZRPC_INVALID_PARAMS,
                       "\"level\" must be one of debug, info, notice, warning, error, "
                       "critical, alert, emergency");
      return;
    }
    pthread_mutex_lock(&s->mu);
    s->min_level = li;
    pthread_mutex_unlock(&s->mu);
    zrpc_build_result(out, m->id, NULL);
    return;
  }
  zmcp_call c = {.s = s,
                 .ops = ops,
                 .ud = ud,
                 .progress_token =
                     json_object_get(json_object_get(params, "_meta"), "progressToken")};
  int code = 0;
  char msg[512] = "";
  json_t *r = s->cat->request(s->cat->ud, &c, m->method, params, &code, msg, sizeof msg);
  if (code) {
    if (!msg[0])
      snprintf(msg, sizeof msg, "method \"%.100s\" is not supported by %s", m->method,
               s->cat->name);
    zrpc_build_error(out, m->id, code, msg);
  } else {
    zrpc_build_result(out, m->id, r);
  }
  json_decref(r);
}

void zmcp_session_handle(zmcp_session *s, zrpc_msg *m, const zmcp_reply_ops *ops, void *ud,
                         zbuf *out) {
  if (m->kind == ZRPC_REQUEST) handle_request(s, m, ops, ud, out);
  else if (m->kind == ZRPC_RESPONSE || m->kind == ZRPC_ERROR) deliver(s, m);
  else if (m->kind == ZRPC_ORPHAN) zlog("mcp", "a client sent a reply without an id; dropped");
  /* Notifications (initialized, cancelled, roots changes) need no answer. */
  zrpc_msg_release(m);
}

/* ---- stdio ------------------------------------------------------------------ */

typedef struct stdio_state {
  zmcp_session *s;
  FILE *out;
  bool write_failed;
} stdio_state;

static int stdio_write(stdio_state *st, const char *json, size_t len) {
  if (fwrite(json, 1, len, st->out) != len || fputc('\n', st->out) == EOF || fflush(st->out) != 0)
    st->write_failed = true;
  return st->write_failed ? -1 : 0;
}

static int stdio_send(void *ud, const char *json, size_t len) { return stdio_write(ud, json, len); }

/* One reader thread answers requests in order, so nothing can answer an ask
 * while a request runs: asks are refused over stdio (can_ask false). */
static const zmcp_reply_ops STDIO_OPS = {.send = stdio_send, .detach = NULL, .can_ask = false};

static int stdio_on_msg(void *ud, zrpc_msg *m) {
  stdio_state *st = ud;
  zbuf out = ZBUF_INIT;
  zmcp_session_handle(st->s, m, &STDIO_OPS, st, &out);
  if (out.len) (void)stdio_write(st, out.data, out.len);
  zbuf_release(&out);
  return 0;
}

static int stdio_on_line(void *ud, const char *line, size_t len) {
  stdio_state *st = ud;
  zerr err = ZERR_INIT;
  if (zrpc_parse(line, len, stdio_on_msg, st, &err) < 0) {
    zbuf out = ZBUF_INIT;
    zrpc_build_error(&out, NULL, err.kind == ZE_INVALID && strstr(err.msg, "malformed")
                                     ? ZRPC_PARSE_ERROR : ZRPC_INVALID_REQUEST, err.msg);
    (void)stdio_write(st, out.data, out.len);
    zbuf_release(&out);
  }
  return st->write_failed ? -1 : 0;
}

int zmcp_serve_stdio(int in_fd, FILE *out, const zmcp_catalog *cat, zerr *err) {
  stdio_state st = {.s = zmcp_session_new(cat), .out = out};
  zrpc_framer f = ZRPC_FRAMER_INIT;
  char buf[65536];
  int rc = 0;
  for (;;) {
    ssize_t r = read(in_fd, buf, sizeof buf);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) {
      rc = zerr_errno(err, ZE_IO, "reading the MCP client's messages");
      break;
    }
    if (r == 0) break; /* the client closed stdin: clean shutdown */
    int fr = zrpc_framer_feed(&f, buf, (size_t)r, stdio_on_line, &st, err);
    if (fr < 0 && st.write_failed) {
      rc = zerr_set(err, ZE_IO, "writing to the MCP client failed (stdout closed)");
      break;
    }
    if (fr < 0) {
      /* Oversized message: answer once, then stop (the stream is out of step). */
      zbuf o = ZBUF_INIT;
      zrpc_build_error(&o, NULL, ZRPC_INVALID_REQUEST, err->msg);
      (void)stdio_write(&st, o.data, o.len);
      zbuf_release(&o);
      rc = -1;
      break;
    }
  }
  zrpc_framer_release(&f);
  zmcp_session_close(st.s);
  zmcp_session_free(st.s);
  return rc;
}
