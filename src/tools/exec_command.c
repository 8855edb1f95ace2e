/* exec_command.c — runs a shell command; a command still running at its
 * yield time becomes a session the model continues with write_stdin.
 *
 * The story, in order:
 *   1. the command is described as a zspawn_cmd (/bin/sh -c CMD in workdir)
 *      and started by zexec_spawn, which passes it through the sandbox's
 *      spawner first; the child gets its own session and process group, a
 *      PTY when tty is set, else /dev/null for stdin and one pipe for
 *      stdout+stderr.
 *   2. the process joins the process table (src/exec/proc.h) and is waited
 *      on until it exits, the yield time, its hard timeout, or cancellation.
 *   3. the result is the new output (the newest 2 MiB are kept per process;
 *      an "earlier output truncated" notice appears once), cut to
 *      max_output_tokens with the full text spilled to a file, then the exit
 *      code or signal and which workspace files changed — or, while still
 *      running, the session id.
 * Permission and sandboxing decisions are made before this tool is called.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "base/common.h"
#include "base/json.h"
#include "base/redact.h"
#include "base/strvec.h"
#include "base/time.h"
#include "exec/proc.h"
#include "exec/snapshot.h"
#include "tools/output.h"
#include "tools/tools_internal.h"

#define EXEC_DEFAULT_YIELD_MS 10000
#define EXEC_MAX_TIMEOUT_MS 600000
#define EXEC_DEFAULT_TOKENS 10000
#define EXEC_EDITOR_TIMEOUT_MS 120000 /* an editor's terminal: no session to yield to */

static const char exec_command_schema[] =
    "{\"type\":\"object\",\"properties\":{"
    "\"cmd\":{\"type\":\"string\",\"description\":\"Shell command, run as /bin/sh -c CMD. "
    "stdout and stderr are captured together.\"},"
    "\"workdir\":{\"type\":\"string\",\"description\":\"Directory to run in, relative to the "
    "workspace root. Default: the workspace root.\"},"
    "\"yield_time_ms\":{\"type\":\"integer\",\"minimum\":250,\"maximum\":30000,\"description\":"
    "\"How long to wait for the command before returning. A command still running then keeps "
    "running as a session: its id is returned, continue with write_stdin. Default 10000.\"},"
    "\"max_output_tokens\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":200000,"
    "\"description\":\"Most output to return, in tokens (about 4 bytes each); longer output "
    "keeps its beginning and end and is saved whole to a file. Default 10000.\"},"
    "\"tty\":{\"type\":\"boolean\",\"description\":\"Run on a pseudo-terminal so the command "
    "can be driven interactively with write_stdin (REPLs, prompts). Default false: stdin is "
    "empty.\"},"
    "\"timeout_ms\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":600000,\"description\":"
    "\"Kill the command (and everything it started) after this many milliseconds instead of "
    "returning a session.\"},"

    /* Escalation requests (Go zero's names). The tool itself ignores them:
     * the permission engine reads them from the call's arguments before the
     * tool runs (docs/sandbox.md, step 7) and, once approved, the decision's
     * escalation reaches this call's spawn request only (ztool_ctx.escalation). */
    "\"sandbox_permissions\":{\"type\":\"string\",\"enum\":[\"use_default\","
    "\"with_additional_permissions\",\"require_escalated\"],\"description\":\"use_default "
    "(the default): run in the sandbox (workspace writes, no network). "
    "with_additional_permissions: ask the user to run it with the network. "
    "require_escalated: ask the user to run it outside the sandbox. Give a "
    "justification.\"},"
    "\"additional_permissions\":{\"type\":\"object\",\"description\":\"With "
    "with_additional_permissions: what is needed, e.g. {\\\"network\\\": true}.\"},"
    "\"justification\":{\"type\":\"string\",\"description\":\"Why the command needs more "
    "than the sandbox; shown to the user.\"},"
    "\"prefix_rule\":{\"type\":\"array\",\"items\":{\"type\":\"string\"},\"description\":"
    "\"Command prefix the user may approve for the rest of the session or always, e.g. "
    "[\\\"npm\\\", \\\"install\\\"]; it must cover every command of cmd.\"}"
    "},\"required\":[\"cmd\"],\"additionalProperties\":false}";

/* What a session remembers between calls. */
typedef struct exec_session {
  zsnap *before;        /* workspace before the command; NULL = not tracked */
  char *workspace;
  int64_t started_ms;
  int64_t hard_deadline; /* 0 = none */
} exec_session;

static void session_free(void *ud) {
  exec_session *s = ud;
  zsnap_free(s->before);
  free(s->workspace);
  free(s);
}

static size_t max_output_bytes(const json_t *args) {
  int64_t tokens = zjson_int_or(args, "max_output_tokens", EXEC_DEFAULT_TOKENS);
  return (size_t)tokens * ZT_BYTES_PER_TOKEN;
}

/* Hands the live hook the newest output of p when there is new output since
 * *seen (the total already shown), redacted as a result would be. */
static void report_live(const ztool_ctx *ctx, zexec_proc *p, int64_t started_ms, uint64_t *seen) {
  uint64_t total = zexec_proc_total_output(p);
  if (total == *seen) return;
  *seen = total;
  zbuf raw = ZBUF_INIT, tail = ZBUF_INIT;
  zexec_proc_peek_tail(p, ZTOOL_LIVE_TAIL, &raw);
  /* The cut may fall inside a character or a secret: start after the first
   * line break when the tail was cut (the display shows whole lines). */
  const char *s = raw.data;
  size_t n = raw.len;
  const char *nl = n == ZTOOL_LIVE_TAIL ? memchr(s, '\n', n) : NULL;
  if (nl) {
    n -= (size_t)(nl + 1 - s);
    s = nl + 1;
  }
  zt_utf8_append(&tail, s, n);
  zredact(&tail);
  if (tail.len) ctx->live.output(ctx->live.ud, tail.data, tail.len, ztime_mono_ms() - started_ms);
  zbuf_release(&raw);
  zbuf_release(&tail);
}

/* zexec_proc_wait up to deadline, in slices of ZTOOL_LIVE_INTERVAL_MS when
 * the call has a live hook, reporting the output between slices. The slices
 * change nothing else: a process still running at a slice's end is waited
 * on again, and one that exited is drained to its end within one wait. */
static zexec_wait_end wait_live(const ztool_ctx *ctx, zexec_proc *p, int64_t deadline,
                                int64_t started_ms, bool *lingering) {
  if (!ctx->live.output) return zexec_proc_wait(p, deadline, lingering);
  uint64_t seen = zexec_proc_total_output(p); /* what an earlier call already returned */
  for (;;) {
    int64_t slice = ztime_mono_ms() + ZTOOL_LIVE_INTERVAL_MS;
    zexec_wait_end end = zexec_proc_wait(p, slice < deadline ? slice : deadline, lingering);
    if (end != ZEXEC_YIELDED || slice >= deadline) return end;
    report_live(ctx, p, started_ms, &seen);
  }
}

int zt_exec_wait_and_report(const ztool_ctx *ctx, const char *tool, zexec_proc *p,
                            int64_t yield_deadline, size_t max_bytes, ztool_result *res) {
  zexec_table *table = zexec_table_default();
  exec_session *s = zexec_proc_userdata(p);
  int64_t deadline = yield_deadline;
  bool hard = s->hard_deadline && s->hard_deadline <= yield_deadline;
  if (hard) deadline = s->hard_deadline;
  bool lingering = false;
  zexec_wait_end end = wait_live(ctx, p, deadline, s->started_ms, &lingering);
  bool timed_out = false;
  if (end == ZEXEC_YIELDED && hard) {
    zexec_proc_kill(p, ZEXEC_KILL_GRACE_MS);
    timed_out = true;
    end = ZEXEC_EXITED;
  } else if (end == ZEXEC_CANCELLED) {
    zexec_proc_kill(p, ZEXEC_KILL_GRACE_MS);
  }
  int64_t now = ztime_mono_ms();
  int64_t duration = now - s->started_ms;

  zbuf raw = ZBUF_INIT;
  uint64_t dropped = 0;
  zexec_proc_take_output(p, &raw, &dropped);
  uint64_t total = zexec_proc_total_output(p);
  zbuf text = ZBUF_INIT;
  if (dropped)
    zbuf_addf(&text, "[earlier output truncated: %llu bytes were not kept; only the newest "
                     "2 MiB of a process's output are]\n",
              (unsigned long long)dropped);
  zt_utf8_append(&text, raw.data, raw.len);
  zbuf_release(&raw);
  size_t cap = zt_output_cap(ctx);
  if (max_bytes > cap - cap / 8) max_bytes = cap - cap / 8; /* room for the status lines */
  bool cut = zt_budget_cut(tool, &text, max_bytes, NULL);
  zbuf *out = &res->output;
  zbuf_add(out, text.data, text.len);
  zbuf_release(&text);
  if (out->len && !zbuf_ends_with(out, "\n")) zbuf_addch(out, '\n');

  res->meta = json_object();
  int id = zexec_proc_id(p);
  if (end == ZEXEC_YIELDED) {
    if (out->len == 0) zbuf_addstr(out, "(no new output)\n");
    zbuf_addf(out,
              "[still running after %lld ms as session %d; call write_stdin with session_id "
              "%d to wait for more output (empty chars) or send input (\"\\u0003\" "
              "interrupts)]",
              (long long)duration, id, id);
    json_object_set_new(res->meta, "session_id", json_integer(id));
    json_object_set_new(res->meta, "running", json_true());
  } else {
    if (out->len == 0) zbuf_addstr(out, total ? "(no new output)\n" : "(no output)\n");
    int code = -1, sig = 0;
    zexec_proc_exited(p, &code, &sig);
    /* Changed files before the status line: the last line stays the status. */
    if (s->before) {
      zsnap *after = zsnap_take(s->workspace);
      zbuf changes = ZBUF_INIT;
      json_t *diff = zsnap_diff(s->before, after, &changes);
      if (changes.len) {
        zbuf_addstr(out, "[files changed]\n");
        zbuf_add(out, changes.data, changes.len);
        zbuf_addch(out, '\n');
      }
      if (diff) json_object_set_new(res->meta, "files", diff);
      zbuf_release(&changes);
      zsnap_free(after);
    }
    if (end == ZEXEC_CANCELLED) {
      zbuf_addf(out,
                "[cancelled by the user; the command and every process it started were "
                "killed]\ncancelled after %lld ms",
                (long long)duration);
    } else if (timed_out) {
      zbuf_addf(out,
                "[the command did not finish within its %lld ms timeout, so it and every "
                "process it started were killed; omit timeout_ms to let a long command keep "
                "running as a session]\ntimed out after %lld ms",
                (long long)(s->hard_deadline - s->started_ms),
                (long long)(s->hard_deadline - s->started_ms));
    } else {
      if (lingering)
        zbuf_addstr(out, "[the shell exited but background processes kept its output open; "
                         "they were stopped. To leave a process running, redirect its output, "
                         "e.g. `cmd > out.log 2>&1 &`]\n");
      if (sig) zbuf_addf(out, "killed by signal %d", sig);
      else zbuf_addf(out, "exit code: %d", code);
    }
    json_object_set_new(res->meta, "exit_code", json_integer(code));
    if (sig) json_object_set_new(res->meta, "signal", json_integer(sig));
    res->is_error = end == ZEXEC_CANCELLED || timed_out || code != 0;
    zexec_table_remove(table, p);
  }
  json_object_set_new(res->meta, "timed_out", json_boolean(timed_out));
  json_object_set_new(res->meta, "cancelled", json_boolean(end == ZEXEC_CANCELLED));
  json_object_set_new(res->meta, "duration_ms", json_integer(duration));
  json_object_set_new(res->meta, "output_bytes", json_integer((json_int_t)total));
  json_object_set_new(res->meta, "truncated", json_boolean(cut || dropped));
  res->truncated = cut || dropped;
  return res->is_error ? -1 : 0;
}

/* The command in a terminal the editor owns (ctx->backend->run_command):
 * prepared exactly as zexec_spawn would start it (the sandbox's wrap, the
 * credential scrub), then handed over whole; the result reads like a local
 * run's. No session survives it (the editor's terminal takes no write_stdin):
 * the call waits up to its timeout. s is consumed. */
static int run_in_editor(const ztool_ctx *ctx, zspawn_cmd *sc, const char *cmd, int64_t timeout_ms,
                         exec_session *s, ztool_result *res) {
  zerr err = ZERR_INIT;
  int rc = 0;
  if (timeout_ms <= 0) timeout_ms = EXEC_EDITOR_TIMEOUT_MS;
  ztool_command_result cr = {.output = ZBUF_INIT, .exit_code = -1};
  if (zexec_prepare(ctx->spawner, sc, false, &err) < 0 ||
      ctx->backend->run_command(ctx->backend->ud, sc, cmd, timeout_ms, &cr, &err) < 0) {
    zspawn_cmd_finish(sc);
    zspawn_cmd_release(sc);
    session_free(s);
    zbuf_release(&cr.output);
    return ztool_fail(res, "exec_command: %s", err.msg);
  }
  zspawn_cmd_finish(sc); /* the terminal's command has exited: the sandbox lets go */
  zspawn_cmd_release(sc);
  zbuf text = ZBUF_INIT;
  zt_utf8_append(&text, cr.output.data, cr.output.len);
  bool cut =
      zt_budget_cut("exec_command", &text, zt_output_cap(ctx) - zt_output_cap(ctx) / 8, NULL);
  zbuf *out = &res->output;
  zbuf_add(out, text.data, text.len);
  zbuf_release(&text);
  if (out->len && !zbuf_ends_with(out, "\n")) zbuf_addch(out, '\n');
  if (out->len == 0) zbuf_addstr(out, "(no output)\n");
  res->meta = json_object();
  if (s->before) {
    zsnap *after = zsnap_take(s->workspace);
    zbuf changes = ZBUF_INIT;
    json_t *diff = zsnap_diff(s->before, after, &changes);
    if (changes.len) zbuf_addf(out, "[files changed]\n%s\n", changes.data);
    if (diff) json_object_set_new(res->meta, "files", diff);
    zbuf_release(&changes);
    zsnap_free(after);
  }
  int64_t duration = ztime_mono_ms() - s->started_ms;
  if (cr.cancelled)
    zbuf_addf(out, "[cancelled by the user; the command was killed]\ncancelled after %lld ms",
              (long long)duration);
  else if (cr.timed_out)
    zbuf_addf(out,
              "[the command did not finish within its %lld ms timeout and was killed]\n"
              "timed out after %lld ms",
              (long long)timeout_ms, (long long)timeout_ms);
  else if (cr.signal) zbuf_addf(out, "killed by signal %d", cr.signal);
  else zbuf_addf(out, "exit code: %d", cr.exit_code);
  json_object_set_new(res->meta, "exit_code", json_integer(cr.exit_code));
  if (cr.signal) json_object_set_new(res->meta, "signal", json_integer(cr.signal));
  json_object_set_new(res->meta, "timed_out", json_boolean(cr.timed_out));
  json_object_set_new(res->meta, "cancelled", json_boolean(cr.cancelled));
  json_object_set_new(res->meta, "duration_ms", json_integer(duration));
  json_object_set_new(res->meta, "terminal", json_true());
  json_object_set_new(res->meta, "truncated", json_boolean(cut || cr.truncated));
  res->truncated = cut || cr.truncated;
  res->is_error = cr.cancelled || cr.timed_out || cr.exit_code != 0;
  rc = res->is_error ? -1 : 0;
  zbuf_release(&cr.output);
  session_free(s);
  return rc;
}

static int run_exec_command(const ztool_ctx *ctx, const json_t *args, ztool_result *res) {
  const char *cmd = zjson_str(args, "cmd");
  const char *workdir_arg = zjson_str(args, "workdir");
  bool tty = zjson_bool_or(args, "tty", false);
  bool has_timeout = json_object_get(args, "timeout_ms") != NULL;
  int64_t timeout_ms = zjson_int_or(args, "timeout_ms", ctx->exec_timeout_ms);
  if (timeout_ms > EXEC_MAX_TIMEOUT_MS) timeout_ms = EXEC_MAX_TIMEOUT_MS;
  /* An explicit timeout without a yield time means "wait for it, up to the
   * timeout" (the behaviour before sessions existed). */
  int64_t yield_ms = zjson_int_or(args, "yield_time_ms",
                                  has_timeout ? timeout_ms : EXEC_DEFAULT_YIELD_MS);

  const char *p = cmd;
  while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') p++;
  if (!*p) return ztool_fail(res, "exec_command: cmd is empty; give a shell command to run.");

  cleanup_free char *workdir = ztool_resolve_path(ctx, workdir_arg);
  cleanup_free char *wd_display = zt_display_path(ctx, workdir);
  struct stat wst;
  if (stat(workdir, &wst) < 0)
    return ztool_fail(res, "exec_command: workdir %s does not exist; omit workdir to run in "
                           "the workspace root.", wd_display);
  if (!S_ISDIR(wst.st_mode))
    return ztool_fail(res, "exec_command: workdir %s is not a directory.", wd_display);

  exec_session *s = xcalloc(1, sizeof *s);
  if (ctx->workspace && ctx->workspace[0]) {
    s->workspace = xstrdup(ctx->workspace);
    s->before = zsnap_take(ctx->workspace);
  }
  /* The call's own escalation (approved for this call alone) goes into its
   * own spawn request; the spawner keeps nothing between commands. */
  strvec shell = STRVEC_INIT;
  strvec_pushl(&shell, "/bin/sh", "-c", cmd, NULL);
  zspawn_cmd sc = {.argv = strvec_detach(&shell), .envp = NULL, .cwd = xstrdup(workdir),
                   .network = ctx->escalation.network,
                   .unsandboxed = ctx->escalation.unsandboxed};
  s->started_ms = ztime_mono_ms();
  /* An interactive (tty) command stays in zero's process table: write_stdin
   * drives it, which an editor's terminal does not offer. */
  if (ctx->backend && ctx->backend->run_command && !tty)
    return run_in_editor(ctx, &sc, cmd, timeout_ms, s, res);
  zexec_opts opts = {.tty = tty, .stdin_open = false};
  zexec_child child;
  zerr err = ZERR_INIT;
  if (zexec_spawn(ctx->spawner, &sc, &opts, &child, &err) < 0) {
    session_free(s);
    return ztool_fail(res, "exec_command: %s", err.msg);
  }
  if (timeout_ms > 0) s->hard_deadline = s->started_ms + timeout_ms;
  int evicted = 0;
  zexec_proc *proc = zexec_table_add(zexec_table_default(), &child, tty, cmd, &evicted);
  zexec_proc_set_userdata(proc, s, session_free);
  int rc = zt_exec_wait_and_report(ctx, "exec_command", proc, s->started_ms + yield_ms,
                                   max_output_bytes(args), res);
  if (evicted)
    zbuf_addf(&res->output,
              "\n[session %d was stopped to make room: at most %d processes are kept]",
              evicted, ZEXEC_MAX_LIVE);
  return rc;
}

const ztool ztool_def_exec_command = {
    .name = "exec_command",
    .description =
        "Run a shell command (/bin/sh -c) in the workspace, or in workdir, and return its "
        "combined stdout and stderr followed by \"exit code: N\" and the workspace files it "
        "created, modified or deleted. A command still running after yield_time_ms keeps "
        "running as a session: the result gives its session_id; use write_stdin to wait for "
        "more output, send input (with tty: true) or interrupt it. Use it to build, test and "
        "inspect; prefer read_file, grep, glob and apply_patch for files.",
    .parameters_json = exec_command_schema,
    .side_effect = ZSIDE_SHELL,
    .read_only = false,
    .run = run_exec_command,
};
