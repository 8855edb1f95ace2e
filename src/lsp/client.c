/* client.c — see client.h. */
#include "lsp/client.h"

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/cancel.h"
#include "base/common.h"
#include "base/json.h"
#include "base/strvec.h"
#include "base/time.h"
#include "base/url.h"
#include "exec/proc.h"
#include "exec/reaper.h"
#include "exec/spawn.h"
#include "mcp/jsonrpc.h"

#define STDERR_TAIL 4096     /* bytes of stderr kept */
#define STOP_GRACE_MS 500    /* shutdown answer, then exit, each */

/* ---- the process ---------------------------------------------------------- */

/* The absolute paths the user's config names (command and arguments): the
 * sandbox keeps them readable even where it hides the host's copy. */
static char **config_paths(const zlsp_server_cfg *cfg) {
  strvec out = STRVEC_INIT;
  for (char **a = cfg->argv; a && *a; a++)
    if ((*a)[0] == '/') strvec_push(&out, *a);
  return strvec_detach(&out);
}

#define STDERR_HEAD 300     /* bytes of the start of stderr kept */

static void tail_add(zlsp_client *c, const char *data, size_t n) {
  if (c->err_head.len < STDERR_HEAD) {
    size_t take = STDERR_HEAD - c->err_head.len < n ? STDERR_HEAD - c->err_head.len : n;
    zbuf_add(&c->err_head, data, take);
    data += take;
    n -= take;
  }
  zbuf_add(&c->err_tail, data, n);
  if (c->err_tail.len > STDERR_TAIL) zbuf_consume(&c->err_tail, c->err_tail.len - STDERR_TAIL);
}

static void drain_stderr(zlsp_client *c) {
  char buf[4096];
  while (c->child.err_fd >= 0) {
    ssize_t r = read(c->child.err_fd, buf, sizeof buf);
    if (r > 0) {
      tail_add(c, buf, (size_t)r);
    } else if (r < 0 && errno == EINTR) {
      continue;
    } else {
      if (r == 0) {
        close(c->child.err_fd);
        c->child.err_fd = -1;
      }
      return;
    }
  }
}

/* Appends b's bytes from `from` on, newlines as spaces, trailing blanks cut. */
static void add_flat(zbuf *out, const zbuf *b, size_t from) {
  size_t n = b->len;
  while (n > from && (b->data[n - 1] == '\n' || b->data[n - 1] == '\r' || b->data[n - 1] == ' '))
    n--;
  for (size_t i = from; i < n; i++)
    zbuf_addch(out, b->data[i] == '\n' || b->data[i] == '\r' ? ' ' : b->data[i]);
}

char *zlsp_client_stderr_tail(const zlsp_client *c) {
  zbuf out = ZBUF_INIT;
  zbuf_addstr(&out, "");
  add_flat(&out, &c->err_head, 0);
  if (c->err_tail.len) {
    zbuf_addstr(&out, " … ");
    add_flat(&out, &c->err_tail, c->err_tail.len > 200 ? c->err_tail.len - 200 : 0);
  }
  return zbuf_detach(&out, NULL);
}

/* Marks the client dead with err saying why (its exit and stderr). */
static int died(zlsp_client *c, const char *what, zerr *err) {
  c->dead = true;
  drain_stderr(c);
  cleanup_free char *tail = zlsp_client_stderr_tail(c);
  zerr_set(err, ZE_IO, "language server %s %s%s%s", c->cfg->name, what, *tail ? ": " : "", tail);
  return -1;
}

/* Observes (without reaping) whether the leader has exited. */
static bool exited(const zlsp_client *c) {
  return zexec_peek_exit(c->child.pid, false, NULL) != 0; /* -1: gone already */
}

static void reap(zlsp_client *c) {
  if (c->child.pid <= 0) return;
  zexec_peek_exit(c->child.pid, true, NULL); /* waits; reaps nothing */
  zreaper_forget(c->child.pid); /* while the id cannot be reused yet */
  while (waitpid(c->child.pid, NULL, 0) < 0 && errno == EINTR) {
  }
  c->child.pid = -1;
  if (c->child.on_exit) c->child.on_exit(c->child.on_exit_ud); /* the sandbox's placeholders */
  c->child.on_exit = NULL;
}

/* ---- messages in ------------------------------------------------------------ */

static void send_raw(zlsp_client *c, const json_t *msg, zerr *err);

static void answer_request(zlsp_client *c, zrpc_msg *m) {
  json_t *reply = json_pack("{s:s, s:O}", "jsonrpc", "2.0", "id", m->id);
  if (!strcmp(m->method, "workspace/configuration")) {
    /* No settings of our own: one null per item asked for. */
    json_t *items = json_object_get(m->params, "items"), *res = json_array();
    for (size_t i = 0; i < json_array_size(items); i++) json_array_append_new(res, json_null());
    json_object_set_new(reply, "result", res);
  } else if (!strcmp(m->method, "client/registerCapability") ||
             !strcmp(m->method, "client/unregisterCapability") ||
             !strcmp(m->method, "window/workDoneProgress/create") ||
             !strcmp(m->method, "window/showMessageRequest") ||
             !strcmp(m->method, "workspace/diagnostic/refresh")) {
    json_object_set_new(reply, "result", json_null());
  } else {
    json_object_set_new(reply, "error", json_pack("{s:i, s:s}", "code", ZRPC_METHOD_NOT_FOUND,
                                                  "message", "method not supported by zero"));
  }
  zerr ignore = ZERR_INIT;
  send_raw(c, reply, &ignore);
  json_decref(reply);
}

static void store_diagnostics(zlsp_client *c, const json_t *params) {
  const char *uri = zjson_str(params, "uri");
  json_t *items = json_object_get(params, "diagnostics");
  if (!uri || !json_is_array(items)) return;
  json_t *version = json_object_get(params, "version");
  c->publish_seq++;
  json_object_set_new(c->diags, uri,
                      json_pack("{s:O, s:O, s:I}", "items", items, "version",
                                json_is_integer(version) ? version : json_null(), "seq",
                                (json_int_t)c->publish_seq));
}

static int on_body(void *ud, const char *body, size_t len) {
  zlsp_client *c = ud;
  json_t *root = json_loadb(body, len, 0, NULL);
  zrpc_msg m;
  zerr err = ZERR_INIT;
  if (!root) return 0; /* a body that is not JSON: skipped, the frame itself was sound */
  if (zrpc_classify(root, &m, &err) < 0) {
    json_decref(root);
    return 0;
  }
  switch (m.kind) {
  case ZRPC_RESPONSE:
  case ZRPC_ERROR:
    if (json_is_integer(m.id) && json_integer_value(m.id) == c->awaited_id && !c->response)
      c->response = json_incref(m.root);
    break;
  case ZRPC_REQUEST:
    answer_request(c, &m);
    break;
  case ZRPC_NOTIFICATION:
    if (!strcmp(m.method, "textDocument/publishDiagnostics")) store_diagnostics(c, m.params);
    break;
  case ZRPC_ORPHAN:
  default:
    break;
  }
  zrpc_msg_release(&m);
  return 0;
}

/* Reads and dispatches everything the server's stdout holds now. Returns
 * 0, or -1 with err when it ended or sent a malformed frame. */
static int read_available(zlsp_client *c, zerr *err) {
  char buf[65536];
  for (;;) {
    ssize_t r = read(c->child.out_fd, buf, sizeof buf);
    if (r > 0) {
      if (zlsp_framer_feed(&c->framer, buf, (size_t)r, on_body, c, err) < 0) {
        char what[300];
        snprintf(what, sizeof what, "sent a malformed message (%s)", err->msg);
        return died(c, what, err);
      }
      continue;
    }
    if (r < 0 && errno == EINTR) continue;
    if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return 0;
    return died(c, exited(c) ? "exited" : "closed its output", err);
  }
}

/* Reads what the server has written, waiting up to timeout_ms for the
 * first bytes. Returns 0, or -1 with err when the server died or zero was
 * cancelled. */
static int pump(zlsp_client *c, int timeout_ms, zerr *err) {
  if (c->dead || c->child.out_fd < 0)
    return zerr_set(err, ZE_IO, "language server %s is not running", c->cfg ? c->cfg->name : "");
  if (zcancel_requested()) return zerr_set(err, ZE_CANCELLED, "cancelled");
  struct pollfd p[3];
  nfds_t n = 0;
  p[n++] = (struct pollfd){c->child.out_fd, POLLIN, 0};
  if (c->child.err_fd >= 0) p[n++] = (struct pollfd){c->child.err_fd, POLLIN, 0};
  if (zcancel_fd() >= 0) p[n++] = (struct pollfd){zcancel_fd(), POLLIN, 0};
  int pr = poll(p, n, timeout_ms < 0 ? 0 : timeout_ms);
  if (pr < 0 && errno != EINTR) return zerr_errno(err, ZE_IO, "waiting for a language server");
  if (pr <= 0) return 0;
  drain_stderr(c);
  if (read_available(c, err) < 0) return -1;
  if (zcancel_requested()) return zerr_set(err, ZE_CANCELLED, "cancelled");
  return 0;
}

/* ---- messages out --------------------------------------------------------- */

static int send_bytes(zlsp_client *c, const char *data, size_t len, zerr *err);

static int send_msg(zlsp_client *c, const json_t *msg, zerr *err) {
  cleanup_zbuf zbuf frame = ZBUF_INIT;
  zlsp_frame_json(&frame, msg);
  return send_bytes(c, frame.data, frame.len, err);
}

/* Writes data whole. While the server's input is full, its output is read
 * (a server blocked writing to us would never read on). */
static int write_frame(zlsp_client *c, const char *data, size_t len, zerr *err) {
  if (c->dead || c->child.in_fd < 0)
    return zerr_set(err, ZE_IO, "language server %s is not running", c->cfg ? c->cfg->name : "");
  size_t off = 0;
  int64_t deadline = ztime_mono_ms() + 10000;
  while (off < len) {
    ssize_t w = write(c->child.in_fd, data + off, len - off);
    if (w > 0) {
      off += (size_t)w;
      continue;
    }
    if (w < 0 && errno == EINTR) continue;
    if (w < 0 && errno == EAGAIN) {
      if (ztime_mono_ms() > deadline) {
        c->dead = true;
        return zerr_set(err, ZE_TIMEOUT, "language server %s stopped reading its input",
                        c->cfg->name);
      }
      struct pollfd p[2] = {{c->child.in_fd, POLLOUT, 0}, {c->child.out_fd, POLLIN, 0}};
      if (poll(p, 2, 100) > 0 && (p[1].revents & (POLLIN | POLLHUP)) && pump(c, 0, err) < 0)
        return -1;
      continue;
    }
    return died(c, "stopped reading its input", err);
  }
  return 0;
}

/* Sends one framed message. Reading while a frame is half written may take
 * a request of the server's, whose answer is sent from inside that read:
 * it waits in c->deferred and follows the frame, so frames never
 * interleave (an answer spliced into a didOpen corrupted both). */
static int send_bytes(zlsp_client *c, const char *data, size_t len, zerr *err) {
  if (c->writing) {
    zbuf_add(&c->deferred, data, len);
    return 0;
  }
  c->writing = true;
  int rc = write_frame(c, data, len, err);
  while (rc == 0 && c->deferred.len) {
    zbuf next = c->deferred; /* answers queued meanwhile go to a fresh one */
    c->deferred = (zbuf)ZBUF_INIT;
    rc = write_frame(c, next.data, next.len, err);
    zbuf_release(&next);
  }
  zbuf_reset(&c->deferred);
  c->writing = false;
  return rc;
}

static void send_raw(zlsp_client *c, const json_t *msg, zerr *err) { send_msg(c, msg, err); }

static int notify(zlsp_client *c, const char *method, json_t *params, zerr *err) {
  json_t *msg = json_pack("{s:s, s:s, s:o}", "jsonrpc", "2.0", "method", method, "params",
                          params ? params : json_object());
  int rc = send_msg(c, msg, err);
  json_decref(msg);
  return rc;
}

int zlsp_client_request(zlsp_client *c, const char *method, json_t *params, int timeout_ms,
                        json_t **result, zerr *err) {
  *result = NULL;
  int64_t id = ++c->next_id;
  json_t *msg = json_pack("{s:s, s:I, s:s}", "jsonrpc", "2.0", "id", (json_int_t)id, "method",
                          method);
  if (params) json_object_set_new(msg, "params", params); /* shutdown has none */
  json_decref(c->response);
  c->response = NULL;
  c->awaited_id = id;
  int rc = send_msg(c, msg, err);
  json_decref(msg);
  int64_t deadline = ztime_mono_ms() + timeout_ms;
  while (rc == 0 && !c->response) {
    int64_t left = deadline - ztime_mono_ms();
    if (left <= 0) {
      rc = zerr_set(err, ZE_TIMEOUT, "language server %s did not answer %s within %d ms",
                    c->cfg->name, method, timeout_ms);
      break;
    }
    rc = pump(c, (int)left, err);
  }
  c->awaited_id = 0;
  if (rc < 0) return -1;
  json_t *e = json_object_get(c->response, "error");
  if (e) {
    cleanup_free char *text = zrpc_error_text(e);
    zerr_set(err, ZE_PROVIDER, "language server %s refused %s: %s", c->cfg->name, method, text);
    rc = -1;
  } else {
    *result = json_incref(json_object_get(c->response, "result"));
    if (!*result) *result = json_null();
  }
  json_decref(c->response);
  c->response = NULL;
  return rc;
}

/* ---- start and stop --------------------------------------------------------- */

static json_t *initialize_params(const zlsp_client *c) {
  char *uri = zurl_from_path(c->root);
  const char *base = strrchr(c->root, '/');
  json_t *caps = json_pack(
      "{s:{s:{s:b, s:b}, s:{s:b}, s:{s:b}, s:{s:b}, s:{s:b}},"
      " s:{s:b, s:b}, s:{s:[s]}}",
      "textDocument", "publishDiagnostics", "relatedInformation", false, "versionSupport", true,
      "synchronization", "didSave", false, "definition", "linkSupport", false, "references",
      "dynamicRegistration", false, "hover", "dynamicRegistration", false, "workspace",
      "configuration", true, "workspaceFolders", true, "general", "positionEncodings", "utf-16");
  /* processId null: a server that watches its client's pid (pyright does)
   * would look for zero's pid in the sandbox's own pid namespace, find none
   * and exit. zero's watchdog (exec/reaper.h) ends servers with zero. */
  json_t *p = json_pack("{s:n, s:{s:s}, s:s, s:s, s:o, s:[{s:s, s:s}]}", "processId",
                        "clientInfo", "name", "zero", "rootPath", c->root, "rootUri",
                        uri, "capabilities", caps, "workspaceFolders", "uri", uri, "name",
                        base && base[1] ? base + 1 : c->root);
  free(uri);
  return p;
}

int zlsp_client_start(zlsp_client *c, const zlsp_server_cfg *cfg, const char *root,
                      struct zspawner *spawner, int timeout_ms, zerr *err) {
  memset(c, 0, sizeof *c);
  c->cfg = cfg;
  c->root = xstrdup(root);
  c->child.pid = -1;
  c->child.in_fd = c->child.out_fd = c->child.err_fd = -1;
  c->diags = json_object();
  c->text_frame = (zbuf)ZBUF_INIT;
  c->deferred = (zbuf)ZBUF_INIT;
  /* A write to a server that has exited must fail with EPIPE, not kill zero. */
  signal(SIGPIPE, SIG_IGN);
  zspawn_cmd cmd = {.argv = strvec_dup_array(cfg->argv), .cwd = xstrdup(root),
                    .read_paths = config_paths(cfg)};
  zexec_opts o = {.stdin_open = true, .own_stderr = true};
  zexec_child ch;
  if (zexec_spawn(spawner, &cmd, &o, &ch, err) < 0) {
    zerr_prefix(err, "language server %s could not start", cfg->name);
    c->dead = true;
    return -1;
  }
  c->child = ch;
  fcntl(c->child.in_fd, F_SETFL, fcntl(c->child.in_fd, F_GETFL) | O_NONBLOCK);
  int64_t t0 = ztime_mono_ms();
  json_t *res = NULL;
  if (zlsp_client_request(c, "initialize", initialize_params(c), timeout_ms, &res, err) < 0) {
    zerr_prefix(err, "language server %s could not start", cfg->name);
    zlsp_client_stop(c);
    c->dead = true;
    return -1;
  }
  c->init_ms = ztime_mono_ms() - t0;
  const char *sname = zjson_str(json_object_get(res, "serverInfo"), "name");
  if (sname) c->server_name = xstrdup(sname);
  json_decref(res);
  if (notify(c, "initialized", json_object(), err) < 0) {
    zlsp_client_stop(c);
    c->dead = true;
    return -1;
  }
  return 0;
}

bool zlsp_client_alive(const zlsp_client *c) { return c->child.pid > 0 && !c->dead; }

void zlsp_client_stop(zlsp_client *c) {
  if (c->child.pid > 0 && !c->dead) {
    zerr ignore = ZERR_INIT;
    json_t *res = NULL;
    if (zlsp_client_request(c, "shutdown", NULL, STOP_GRACE_MS, &res, &ignore) == 0)
      notify(c, "exit", NULL, &ignore);
    json_decref(res);
  }
  if (c->child.in_fd >= 0) close(c->child.in_fd);
  c->child.in_fd = -1;
  if (c->child.pid > 0) {
    int64_t end = ztime_mono_ms() + STOP_GRACE_MS;
    while (!exited(c) && ztime_mono_ms() < end) ztime_sleep_ms(10, NULL);
    /* The leader is at most a zombie: -pid is still its group (and under
     * bwrap, the whole sandbox dies with its leader). */
    if (!exited(c)) kill(-c->child.pid, SIGKILL);
    reap(c);
  }
  if (c->child.out_fd >= 0) close(c->child.out_fd);
  if (c->child.err_fd >= 0) close(c->child.err_fd);
  c->child.out_fd = c->child.err_fd = -1;
  zlsp_framer_release(&c->framer);
  json_decref(c->response);
  json_decref(c->diags);
  zbuf_release(&c->err_tail);
  zbuf_release(&c->err_head);
  zbuf_release(&c->text_frame);
  zbuf_release(&c->deferred);
  free(c->root);
  free(c->server_name);
  const zlsp_server_cfg *cfg = c->cfg;
  memset(c, 0, sizeof *c);
  c->cfg = cfg;
  c->child.pid = -1;
  c->child.in_fd = c->child.out_fd = c->child.err_fd = -1;
  c->dead = true;
}

/* ---- documents ---------------------------------------------------------------- */

/* Room kept before a text frame's body for its header ("Content-Length: "
 * + up to 20 digits + CRLF CRLF). */
#define TEXT_FRAME_HEAD 48

/* A didOpen / didChange carrying a whole file, written straight into the
 * frame: the text is escaped once (zjson_str_body_to) instead of copied into
 * a jansson string, validated, then dumped — a third of the CPU for a large
 * file. The body goes into c->text_frame after room for the header, which is
 * written in front of it once the length is known: the text is copied once,
 * into storage kept from the last edit. A fresh buffer per edit cost a big
 * file (216 KiB) ~110 page faults — most of zero's CPU per round trip on a
 * virtual machine (bench/lsp). language_id NULL = didChange. */
static int send_text(zlsp_client *c, const char *uri, const char *language_id, int version,
                     const char *text, size_t len, zerr *err) {
  zbuf *f = &c->text_frame;
  zbuf_reset(f);
  zbuf_grow(f, TEXT_FRAME_HEAD + len + len / 16 + strlen(uri) + 160);
  zbuf_setlen(f, TEXT_FRAME_HEAD);
  zbuf_addf(f,
            "{\"jsonrpc\":\"2.0\",\"method\":\"textDocument/%s\",\"params\":{"
            "\"textDocument\":{\"uri\":\"",
            language_id ? "didOpen" : "didChange");
  if (!zjson_str_body_to(f, uri, strlen(uri)))
    return zerr_set(err, ZE_INVALID, "the file's path is not valid UTF-8");
  if (language_id) {
    zbuf_addstr(f, "\",\"languageId\":\"");
    zjson_str_body_to(f, language_id, strlen(language_id));
    zbuf_addf(f, "\",\"version\":%d,\"text\":\"", version);
  } else {
    zbuf_addf(f, "\",\"version\":%d},\"contentChanges\":[{\"text\":\"", version);
  }
  if (!zjson_str_body_to(f, text, len))
    return zerr_set(err, ZE_INVALID, "the file is not valid UTF-8 text");
  zbuf_addstr(f, language_id ? "\"}}}" : "\"}]}}");
  char head[TEXT_FRAME_HEAD];
  int hn = snprintf(head, sizeof head, "Content-Length: %zu\r\n\r\n", f->len - TEXT_FRAME_HEAD);
  assert(hn > 0 && hn <= TEXT_FRAME_HEAD);
  char *start = f->data + TEXT_FRAME_HEAD - hn;
  memcpy(start, head, (size_t)hn);
  return send_bytes(c, start, (size_t)hn + f->len - TEXT_FRAME_HEAD, err);
}

int zlsp_client_open(zlsp_client *c, const char *uri, const char *language_id, int version,
                     const char *text, size_t len, zerr *err) {
  return send_text(c, uri, language_id, version, text, len, err);
}

int zlsp_client_change(zlsp_client *c, const char *uri, int version, const char *text,
                       size_t len, zerr *err) {
  return send_text(c, uri, NULL, version, text, len, err);
}

int zlsp_client_close_doc(zlsp_client *c, const char *uri, zerr *err) {
  return notify(c, "textDocument/didClose", json_pack("{s:{s:s}}", "textDocument", "uri", uri),
                err);
}

int64_t zlsp_client_seq(const zlsp_client *c) { return c->publish_seq; }

const json_t *zlsp_client_wait_diagnostics(zlsp_client *c, const char *uri, int version,
                                           int64_t after, int timeout_ms, zerr *err) {
  int64_t deadline = ztime_mono_ms() + timeout_ms;
  for (;;) {
    const json_t *d = json_object_get(c->diags, uri);
    const json_t *v = json_object_get(d, "version");
    if (d && zjson_int_or(d, "seq", 0) > after && (!json_is_integer(v) || json_integer_value(v) == version))
      return json_object_get(d, "items");
    int64_t left = deadline - ztime_mono_ms();
    if (left <= 0) {
      zerr_set(err, ZE_TIMEOUT, "language server %s sent no diagnostics within %d ms",
               c->cfg->name, timeout_ms);
      return NULL;
    }
    if (pump(c, (int)left, err) < 0) return NULL;
  }
}
