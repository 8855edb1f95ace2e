/* relay.c — a sub-agent's prompts and questions, answered by its parent;
 * see relay.h. */
#include "subagent/relay.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/cancel.h"
#include "base/common.h"
#include "base/json.h"
#include "tools/tool.h"

/* ---- the wire ---------------------------------------------------------------------- */

/* Writes o (stolen) as one line. send(MSG_NOSIGNAL): a vanished peer is an
 * error, not a SIGPIPE. */
static int send_line(int fd, json_t *o) {
  char *s = json_dumps(o, JSON_COMPACT);
  json_decref(o);
  if (!s) return -1;
  size_t n = strlen(s);
  s[n] = '\n'; /* json_dumps' terminator becomes the line's end */
  const char *p = s;
  size_t left = n + 1;
  int rc = 0;
  while (left) {
    ssize_t w = send(fd, p, left, MSG_NOSIGNAL);
    if (w < 0 && errno == EINTR) continue;
    if (w < 0 && errno == EAGAIN) {
      struct pollfd pf = {fd, POLLOUT, 0};
      (void)poll(&pf, 1, 1000);
      continue;
    }
    if (w <= 0) {
      rc = -1;
      break;
    }
    p += w;
    left -= (size_t)w;
  }
  free(s);
  return rc;
}

/* Reads one answer line (the child's side: blocking, watching zero's
 * cancellation). NULL when the parent is gone, the run was cancelled or the
 * line is not a JSON object. */
static json_t *recv_line(int fd) {
  zbuf b = ZBUF_INIT;
  json_t *o = NULL;
  for (;;) {
    struct pollfd fds[2] = {{fd, POLLIN, 0}, {zcancel_fd(), POLLIN, 0}};
    int pr = poll(fds, 2, -1);
    if (pr < 0 && errno != EINTR) break;
    if (zcancel_requested()) break;
    if (pr <= 0 || !(fds[0].revents & (POLLIN | POLLHUP | POLLERR))) continue;
    char chunk[4096];
    ssize_t n = read(fd, chunk, sizeof chunk);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n <= 0) break;
    zbuf_add(&b, chunk, (size_t)n);
    char *nl = memchr(b.data, '\n', b.len);
    if (!nl) {
      if (b.len > ZSUB_RELAY_LINE_MAX) break;
      continue;
    }
    o = zjson_parse_line(b.data, (size_t)(nl - b.data));
    if (!json_is_object(o)) {
      json_decref(o);
      o = NULL;
    }
    break;
  }
  zbuf_release(&b);
  return o;
}

/* ---- the child's side --------------------------------------------------------------- */

bool zsub_uplink_take(zsub_uplink *u) {
  memset(u, 0, sizeof *u);
  u->fd = -1;
  pthread_mutex_init(&u->mu, NULL);
  const char *v = getenv(ZSUB_RELAY_ENV);
  if (!v) return false;
  char *end;
  errno = 0;
  long fd = strtol(v, &end, 10);
  bool ok = !errno && !*end && fd > 2 && fd < 1024;
  unsetenv(ZSUB_RELAY_ENV); /* nothing this run starts sees it */
  struct stat st;
  if (!ok || fstat((int)fd, &st) < 0 || !S_ISSOCK(st.st_mode)) return false;
  if (fcntl((int)fd, F_SETFD, FD_CLOEXEC) < 0) return false;
  u->fd = (int)fd;
  return true;
}

/* Sends req and waits for its answer, one exchange at a time. */
static json_t *exchange(zsub_uplink *u, json_t *req) {
  pthread_mutex_lock(&u->mu);
  json_t *ans = send_line(u->fd, req) == 0 ? recv_line(u->fd) : NULL;
  pthread_mutex_unlock(&u->mu);
  return ans;
}

zapproval zsub_uplink_approve(void *ud, const zapproval_request *req) {
  zsub_uplink *u = ud;
  const ztool_call *c = req->call;
  json_t *rq =
      json_pack("{s:s, s:s?, s:s, s:s, s:s?, s:s?, s:b, s:b, s:b, s:i, s:s?, s:s?, s:s?, s:s?}",
                "type", "approval", "callId", c ? c->id : NULL, "tool", c && c->name ? c->name : "",
                "arguments", c && c->arguments ? c->arguments : "", "code", req->code, "reason",
                req->reason, "escalateNetwork", req->escalate_network, "escalateUnsandboxed",
                req->escalate_unsandboxed, "canRemember", req->can_remember, "grantKind",
                req->grant_kind, "grantTool", req->grant_tool, "grantValue", req->grant_value,
                "mcpServer", req->mcp_server, "mcpTool", req->mcp_tool);
  json_t *ans = rq ? exchange(u, rq) : NULL;
  free(u->note);
  u->note = NULL;
  zapproval out = {.action = ZPERM_DENY, .scope = 0};
  if (!ans) {
    u->note = xstrdup("the parent run did not answer this sub-agent's request (it ended, or "
                      "the run was cancelled)");
  } else {
    const char *note = zjson_str(ans, "note");
    if (note) u->note = xstrdup(note);
    if (json_is_true(json_object_get(ans, "allow"))) {
      out.action = ZPERM_ALLOW;
      json_int_t scope = zjson_int_or(ans, "scope", 0);
      out.scope = scope >= 0 && scope <= 2 ? (int)scope : 0;
    }
  }
  out.note = u->note;
  json_decref(ans);
  return out;
}

char *zsub_uplink_ask(void *ud, const char *question, const json_t *choices) {
  zsub_uplink *u = ud;
  json_t *rq = json_pack("{s:s, s:s}", "type", "question", "question", question);
  if (!rq) return NULL;
  if (json_is_array(choices)) json_object_set(rq, "choices", (json_t *)choices);
  json_t *ans = exchange(u, rq);
  const char *a = zjson_str(ans, "answer");
  char *out = a ? xstrdup(a) : NULL;
  json_decref(ans);
  return out;
}

void zsub_uplink_release(zsub_uplink *u) {
  if (u->fd >= 0) close(u->fd);
  u->fd = -1;
  free(u->note);
  u->note = NULL;
  pthread_mutex_destroy(&u->mu);
}

/* ---- the parent's side ---------------------------------------------------------------- */

static void reply(int fd, bool allow, int scope, const char *note) {
  (void)send_line(fd, json_pack("{s:b, s:i, s:s?, s:n}", "allow", allow, "scope", scope, "note",
                                note, "answer"));
}

/* The parent's engine on the child's call: ALLOW (covering the escalation
 * the child asks for), DENY, or PROMPT (the user decides). */
static zperm_action engine_verdict(const zsub_relay_ctx *x, const ztool *t, const json_t *rq,
                                   zbuf *why) {
  zperm_engine fallback = {.mode = zagent_mode(x->a)};
  const zperm_engine *eng = x->a->perm ? x->a->perm : &fallback;
  const char *mcp = zjson_str(rq, "mcpServer");
  const char *text = zjson_str_or(rq, "arguments", "");
  json_t *args = mcp ? zjson_parse_line(text, strlen(text)) : ztool_call_args(t, text);
  zperm_call c = {.tool = t,
                  .args = json_is_object(args) ? args : NULL,
                  .mcp_server = mcp,
                  .mcp_tool = zjson_str(rq, "mcpTool")};
  zperm_decision d = zperm_decide_call(eng, &c);
  json_decref(args);
  bool want_net = json_is_true(json_object_get(rq, "escalateNetwork"));
  bool want_out = json_is_true(json_object_get(rq, "escalateUnsandboxed"));
  if (d.action == ZPERM_DENY) zbuf_addf(why, "the parent's policy denies it: %s", d.reason);
  if (d.action != ZPERM_ALLOW) return d.action;
  /* an allow without the escalation the child needs is no answer to it */
  if ((want_net && !d.escalate_network) || (want_out && !d.escalate_unsandboxed))
    return ZPERM_PROMPT;
  return ZPERM_ALLOW;
}

/* The parent's user's answer through its approver (the TUI's modal). */
static void ask_approver(const zsub_relay_ctx *x, const ztool *t, const json_t *rq, int fd) {
  ztool_call call = {.id = (char *)zjson_str_or(rq, "callId", ""),
                     .name = (char *)t->name,
                     .arguments = (char *)zjson_str_or(rq, "arguments", "")};
  char reason[768];
  snprintf(reason, sizeof reason, "sub-agent %s: %s", x->agent ? x->agent : "?",
           zjson_str_or(rq, "reason", "asks for approval"));
  zapproval_request req = {.tool = t,
                           .call = &call,
                           .code = zjson_str_or(rq, "code", "needs_approval"),
                           .reason = reason,
                           .escalate_network = json_is_true(json_object_get(rq, "escalateNetwork")),
                           .escalate_unsandboxed =
                               json_is_true(json_object_get(rq, "escalateUnsandboxed")),
                           .can_remember = json_is_true(json_object_get(rq, "canRemember")),
                           .grant_kind = (int)zjson_int_or(rq, "grantKind", 0),
                           .grant_tool = zjson_str(rq, "grantTool"),
                           .grant_value = zjson_str(rq, "grantValue"),
                           .mcp_server = zjson_str(rq, "mcpServer"),
                           .mcp_tool = zjson_str(rq, "mcpTool")};
  if (x->serial) pthread_mutex_lock(x->serial);
  zapproval ans = x->a->approve(x->a->approve_ud, &req);
  char *note = ans.note ? xstrdup(ans.note) : NULL; /* valid until the next call only */
  if (x->serial) pthread_mutex_unlock(x->serial);
  bool allow = ans.action == ZPERM_ALLOW;
  reply(fd, allow, allow ? ans.scope : 0, note);
  free(note);
}

static void answer_approval(const zsub_relay_ctx *x, int fd, const json_t *rq) {
  const char *name = zjson_str_or(rq, "tool", "");
  const char *mcp = zjson_str(rq, "mcpServer");
  const ztool *builtin = mcp ? NULL : ztool_find(name);
  /* an MCP tool (or one the parent does not know): a stand-in that may
   * change things, which the engine judges by its grants alone */
  ztool standin = {.name = name, .side_effect = ZSIDE_NETWORK};
  const ztool *t = builtin ? builtin : &standin;
  if (x->on_worker) {
    zbuf why = ZBUF_INIT;
    zperm_action v = engine_verdict(x, t, rq, &why);
    if (v != ZPERM_PROMPT) {
      reply(fd, v == ZPERM_ALLOW, 0,
            v == ZPERM_ALLOW ? "allowed by the parent's policy" : why.data);
      zbuf_release(&why);
      return;
    }
    zbuf_release(&why);
  }
  if (!x->a->approve) {
    reply(fd, false, 0,
          "no user is available to approve a sub-agent's request (the parent runs headless), "
          "so it is denied");
    return;
  }
  ask_approver(x, t, rq, fd);
}

static void answer_question(const zsub_relay_ctx *x, int fd, const json_t *rq) {
  const char *q = zjson_str_or(rq, "question", "");
  const json_t *choices = json_object_get(rq, "choices");
  if (!json_is_array(choices)) choices = NULL;
  if (x->on_worker) { /* the parent's own question event: a driver answers it on -i */
    zagent_event ev = {.kind = ZAEV_QUESTION,
                       .question = {.id = zjson_str_or(rq, "callId", ""),
                                    .question = q,
                                    .choices = choices}};
    zagent_emit(x->a, &ev);
  }
  char *a = NULL;
  if (x->ask) {
    if (x->serial) pthread_mutex_lock(x->serial);
    a = x->ask(x->ask_ud, q, choices);
    if (x->serial) pthread_mutex_unlock(x->serial);
  }
  (void)send_line(fd, json_pack("{s:s?, s:b}", "answer", a, "allow", 0));
  free(a);
}

void zsub_relay_answer(const zsub_relay_ctx *x, int fd, const char *line, size_t len) {
  json_t *rq = zjson_parse_line(line, len);
  const char *type = zjson_str(rq, "type");
  if (type && !strcmp(type, "approval")) answer_approval(x, fd, rq);
  else if (type && !strcmp(type, "question")) answer_question(x, fd, rq);
  else reply(fd, false, 0, "the parent could not read this sub-agent's request");
  json_decref(rq);
}
