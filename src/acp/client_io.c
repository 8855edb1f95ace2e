/* client_io.c — fs/... and terminal/... of an ACP client as the tools'
 * backend; see client_io.h. */
#include "acp/client_io.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "base/cancel.h"
#include "base/common.h"
#include "base/json.h"
#include "base/time.h"
#include "exec/spawn.h"

/* What an editor's terminal keeps of a command's output (bytes). */
#define TERMINAL_OUTPUT_LIMIT (1024 * 1024)
/* How long zero waits for a client's answer to a file request. */
#define FS_CALL_TIMEOUT_MS 30000

/* The second look: a read the read guard denies (as written or where its
 * symlinks lead) never reaches the client. */
static bool read_refused(const zacp_client_io *io, const char *abs) {
  const ztool_read_guard *g = &io->tools->read_guard;
  if (!g->denied) return false;
  if (g->denied(g->ud, abs)) return true;
  cleanup_free char *real = realpath(abs, NULL);
  return real && g->denied(g->ud, real);
}

/* A file request the editor did not answer as asked: what it said (msg),
 * else whether the call was cancelled or got no answer. Returns -1. */
static int editor_failed(zerr *err, const char *what, zacp_call_end end, const char *msg) {
  return zerr_set(err, ZE_IO, "%s: %s", what,
                  msg                        ? msg
                  : end == ZACP_CALL_ABORTED ? "cancelled"
                                             : "no answer");
}

static int io_read_text(void *ud, const char *abs, zbuf *out, zerr *err) {
  zacp_client_io *io = ud;
  if (abs[0] != '/' || read_refused(io, abs))
    return zerr_set(err, ZE_INVALID, "reading %s is denied by the sandbox policy", abs);
  zacp_call_end end;
  char *msg = NULL;
  json_t *res = zacp_call_ex(io->conn, "fs/read_text_file",
                             json_pack("{s:s, s:s}", "sessionId", io->session_id, "path", abs),
                             io->owner, ztime_mono_ms() + FS_CALL_TIMEOUT_MS, &end, &msg);
  const json_t *content = json_object_get(res, "content");
  int rc = 0;
  if (json_is_string(content)) {
    zbuf_add(out, json_string_value(content), json_string_length(content));
  } else {
    rc = editor_failed(err, "the editor did not give the text", end, msg);
  }
  free(msg);
  json_decref(res);
  return rc;
}

static int io_write_text(void *ud, const char *abs, const char *text, size_t len, zerr *err) {
  zacp_client_io *io = ud;
  if (abs[0] != '/' || !ztool_path_writable(io->tools, abs))
    return zerr_set(err, ZE_INVALID, "%s is outside the workspace and --add-dir roots", abs);
  if (io->policy && !zsb_policy_may_write(io->policy, abs))
    return zerr_set(err, ZE_INVALID,
                    "%s is protected (zero's or the agents' config, git config or hooks, a "
                    "credential, or a denyWrite path)",
                    abs);
  zacp_call_end end;
  char *msg = NULL;
  json_t *params =
      json_pack("{s:s, s:s, s:s%}", "sessionId", io->session_id, "path", abs, "content", text, len);
  json_t *res = zacp_call_ex(io->conn, "fs/write_text_file", params, io->owner,
                             ztime_mono_ms() + FS_CALL_TIMEOUT_MS, &end, &msg);
  int rc = 0;
  if (end != ZACP_CALL_OK) rc = editor_failed(err, "the editor did not write it", end, msg);
  free(msg);
  json_decref(res);
  return rc;
}

json_t *zacp_terminal_params(const char *session_id, char *const argv[], char *const envp[],
                             const char *cwd) {
  json_t *args = json_array();
  /* env -i: the editor's own environment never reaches the command; it
   * gets exactly the environment zero's exec would have given it. */
  json_array_append_new(args, json_string("-i"));
  for (char *const *e = envp; e && *e; e++)
    if (strchr(*e, '=') && (*e)[0] != '=' && (*e)[0] != '-')
      json_array_append_new(args, json_string(*e));
  for (char *const *a = argv; a && *a; a++) json_array_append_new(args, json_string(*a));
  json_t *p =
      json_pack("{s:s, s:s, s:o, s:[], s:i}", "sessionId", session_id, "command", "/usr/bin/env",
                "args", args, "env", "outputByteLimit", TERMINAL_OUTPUT_LIMIT);
  if (cwd) json_object_set_new(p, "cwd", json_string(cwd));
  return p;
}

/* A terminal request that needs no answer beyond "done" (kill, release). */
static void terminal_cmd(zacp_client_io *io, const char *method, const char *tid) {
  zacp_call_end end;
  json_t *r = zacp_call_ex(io->conn, method,
                           json_pack("{s:s, s:s}", "sessionId", io->session_id, "terminalId", tid),
                           NULL, ztime_mono_ms() + FS_CALL_TIMEOUT_MS, &end, NULL);
  json_decref(r);
}

static int signal_number(const char *name) {
  if (!name) return 0;
  if (!strncmp(name, "SIG", 3)) name += 3;
  for (int s = 1; s < NSIG; s++) {
    const char *abbrev = sigabbrev_np(s);
    if (abbrev && !strcmp(abbrev, name)) return s;
  }
  return SIGKILL;
}

/* Shows terminal tid in the tool call now running. */
static void embed_terminal(zacp_client_io *io, const char *tid) {
  pthread_mutex_lock(&io->mu);
  char *call = io->call_id ? xstrdup(io->call_id) : NULL;
  pthread_mutex_unlock(&io->mu);
  if (!call) return;
  json_t *u = json_pack("{s:s, s:s, s:s, s:[{s:s, s:s}]}", "sessionUpdate", "tool_call_update",
                        "toolCallId", call, "status", "in_progress", "content", "type", "terminal",
                        "terminalId", tid);
  zacp_notify(io->conn, "session/update",
              json_pack("{s:s, s:o}", "sessionId", io->session_id, "update", u));
  free(call);
}

/* Waits for terminal tid to exit until the deadline or a cancel; kills it
 * in those cases. Fills out's status. */
static void terminal_wait(zacp_client_io *io, const char *tid, int64_t timeout_ms,
                          ztool_command_result *out) {
  zacp_call_end end = ZACP_CALL_ABORTED;
  json_t *st = NULL;
  if (!zcancel_requested())
    st = zacp_call_ex(io->conn, "terminal/wait_for_exit",
                      json_pack("{s:s, s:s}", "sessionId", io->session_id, "terminalId", tid),
                      io->owner, ztime_mono_ms() + timeout_ms, &end, NULL);
  if (end == ZACP_CALL_OK) {
    const json_t *code = json_object_get(st, "exitCode");
    out->signal = signal_number(zjson_str(st, "signal"));
    out->exit_code = json_is_integer(code) && !out->signal ? (int)json_integer_value(code) : -1;
  } else {
    out->timed_out = end == ZACP_CALL_TIMEOUT;
    out->cancelled = !out->timed_out;
    terminal_cmd(io, "terminal/kill", tid);
  }
  json_decref(st);
}

static int io_run_command(void *ud, const zspawn_cmd *cmd, const char *shown, int64_t timeout_ms,
                          ztool_command_result *out, zerr *err) {
  zacp_client_io *io = ud;
  (void)shown;
  zacp_call_end end;
  char *msg = NULL;
  json_t *params = zacp_terminal_params(io->session_id, cmd->argv, cmd->envp, cmd->cwd);
  json_t *created = zacp_call_ex(io->conn, "terminal/create", params, io->owner,
                                 ztime_mono_ms() + FS_CALL_TIMEOUT_MS, &end, &msg);
  const char *tid = zjson_str(created, "terminalId");
  if (!tid) {
    zerr_set(err, ZE_IO, "the editor did not open a terminal: %s",
             msg                        ? msg
             : end == ZACP_CALL_ABORTED ? "cancelled"
                                        : "no answer");
    free(msg);
    json_decref(created);
    return -1;
  }
  embed_terminal(io, tid);
  terminal_wait(io, tid, timeout_ms, out);
  json_t *o = zacp_call_ex(io->conn, "terminal/output",
                           json_pack("{s:s, s:s}", "sessionId", io->session_id, "terminalId", tid),
                           NULL, ztime_mono_ms() + FS_CALL_TIMEOUT_MS, &end, NULL);
  const json_t *text = json_object_get(o, "output");
  if (json_is_string(text))
    zbuf_add(&out->output, json_string_value(text), json_string_length(text));
  out->truncated = zjson_bool_or(o, "truncated", false);
  json_decref(o);
  terminal_cmd(io, "terminal/release", tid);
  json_decref(created);
  return 0;
}

void zacp_client_io_init(zacp_client_io *io) {
  pthread_mutex_init(&io->mu, NULL);
  io->backend = (ztool_backend){.read_text = io->can_read ? io_read_text : NULL,
                                .write_text = io->can_write ? io_write_text : NULL,
                                .run_command = io->can_terminal ? io_run_command : NULL,
                                .ud = io};
}

void zacp_client_io_release(zacp_client_io *io) {
  free(io->call_id);
  io->call_id = NULL;
  pthread_mutex_destroy(&io->mu);
}

const ztool_backend *zacp_client_io_backend(zacp_client_io *io) {
  return io->can_read || io->can_write || io->can_terminal ? &io->backend : NULL;
}

void zacp_client_io_note_call(zacp_client_io *io, const char *call_id) {
  pthread_mutex_lock(&io->mu);
  free(io->call_id);
  io->call_id = call_id ? xstrdup(call_id) : NULL;
  pthread_mutex_unlock(&io->mu);
}
