/* hook_run.c — running one hook; see hook_run.h.
 *
 * The story of one hook run:
 *   1. its argv becomes a zspawn_cmd in the workspace; zexec_spawn passes it
 *      through the run's spawner (sandbox, scrubbed environment) and starts
 *      it in a process group of its own with a stdin pipe;
 *   2. the payload (secret values redacted) is written to stdin and stdin is
 *      closed, all before the hook's deadline;
 *   3. the process waits in a private table (not the model's sessions) until
 *      it exits or the deadline passes; then its group is killed;
 *   4. its output is parsed as the answer (the whole output, or its last
 *      line when something was printed before the JSON).
 */
#include "ext/hook_run.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/common.h"
#include "base/json.h"
#include "base/secrets.h"
#include "base/time.h"
#include "exec/proc.h"
#include "ext/hook_runner.h"

#define HOOK_OUTPUT_MAX (64u << 10) /* what is kept of a hook's output */

/* The JSON answer in out: the whole text, else its last non-blank line. */
static json_t *parse_answer(const char *out) {
  const char *s = out;
  while (*s == ' ' || *s == '\n' || *s == '\r' || *s == '\t') s++;
  if (!*s) return NULL;
  json_t *j = json_loads(s, JSON_DISABLE_EOF_CHECK, NULL);
  if (json_is_object(j)) return j;
  json_decref(j);
  size_t n = strlen(s);
  while (n && (s[n - 1] == '\n' || s[n - 1] == '\r' || s[n - 1] == ' ')) n--;
  size_t start = n;
  while (start && s[start - 1] != '\n') start--;
  j = json_loadb(s + start, n - start, 0, NULL);
  if (json_is_object(j)) return j;
  json_decref(j);
  return NULL;
}

/* Reads the answer's block decision and reason (Go zero's and Claude Code's
 * spellings). */
static void read_decision(zhook_outcome *o) {
  const json_t *a = o->answer;
  const char *decision = zjson_str(a, "decision");
  const json_t *hso = json_object_get(a, "hookSpecificOutput");
  const char *perm = zjson_str(hso, "permissionDecision");
  const char *reason = zjson_str(a, "reason");
  if (!reason) reason = zjson_str(hso, "permissionDecisionReason");
  bool block = (decision && (!strcmp(decision, "block") || !strcmp(decision, "deny"))) ||
               (perm && !strcmp(perm, "deny"));
  if (block) {
    o->block = true;
    free(o->reason);
    o->reason = xstrdup(reason && *reason ? reason : "the hook blocked it (no reason given)");
  }
}

static void finish_outcome(zhook_outcome *o, const zhook *h) {
  o->answer = parse_answer(o->output);
  if (o->timed_out) {
    o->failed = o->block = true;
    zbuf b = ZBUF_INIT;
    zbuf_addf(&b, "hook %s timed out after %d ms and was killed", h->id, h->timeout_ms);
    o->reason = zbuf_detach(&b, NULL);
    return;
  }
  if (o->exit_code != 0) {
    o->failed = o->block = true;
    zbuf b = ZBUF_INIT;
    if (o->signal) zbuf_addf(&b, "hook %s was killed by signal %d", h->id, o->signal);
    else zbuf_addf(&b, "hook %s exited with status %d", h->id, o->exit_code);
    /* Claude Code's exit 2: stderr is the reason. The output is short. */
    size_t n = strlen(o->output);
    while (n && (o->output[n - 1] == '\n' || o->output[n - 1] == ' ')) n--;
    if (n) zbuf_addf(&b, ": %.*s", (int)(n > 2000 ? 2000 : n), o->output);
    o->reason = zbuf_detach(&b, NULL);
    read_decision(o);
    return;
  }
  read_decision(o);
}

/* h did not start, for why: it fails (closed, on a gating event). */
static void not_started(zhook_outcome *o, const zhook *h, const char *why) {
  o->failed = o->block = true;
  zbuf b = ZBUF_INIT;
  zbuf_addf(&b, "hook %s could not start: %s (fix \"command\" in %s)", h->id, why, h->source);
  o->reason = zbuf_detach(&b, NULL);
  if (!o->output) o->output = xstrdup("");
}

/* Runs h in a sandbox of its own (the spawner's), payload on its stdin. */
static void run_spawned(const zhook *h, struct zspawner *spawner, const char *cwd,
                        const zbuf *payload, zhook_outcome *out) {
  memset(out, 0, sizeof *out);
  out->exit_code = -1;
  int64_t start = ztime_mono_ms();
  int64_t deadline = start + h->timeout_ms;
  zspawn_cmd cmd = {.argv = strvec_dup_array(h->argv), .cwd = cwd ? xstrdup(cwd) : NULL,
                    .read_paths = h->read_paths ? strvec_dup_array((char *const *)h->read_paths)
                                                : NULL};
  zexec_opts eo = {.tty = false, .stdin_open = true};
  zexec_child child;
  zerr err = ZERR_INIT;
  if (zexec_spawn(spawner, &cmd, &eo, &child, &err) < 0) {
    not_started(out, h, err.msg);
    out->duration_ms = ztime_mono_ms() - start;
    return;
  }
  out->started = true;
  (void)zhook_write_before(child.in_fd, payload->data, payload->len, deadline);
  close(child.in_fd);
  child.in_fd = -1;

  zexec_table *t = zexec_table_new();
  zexec_proc *p = zexec_table_add(t, &child, false, h->id, NULL);
  zexec_wait_end end = zexec_proc_wait(p, deadline, NULL);
  if (end != ZEXEC_EXITED) {
    out->timed_out = end == ZEXEC_YIELDED;
    zexec_proc_kill(p, 200); /* the whole group: nothing it started lingers */
  }
  zbuf text = ZBUF_INIT;
  uint64_t dropped = 0;
  zexec_proc_take_output(p, &text, &dropped);
  if (text.len > HOOK_OUTPUT_MAX) zbuf_setlen(&text, zutf8_boundary(text.data, HOOK_OUTPUT_MAX));
  zutf8_sanitize(&text);
  out->output = zbuf_detach(&text, NULL);
  if (!out->output) out->output = xstrdup("");
  int code = -1, sig = 0;
  if (end == ZEXEC_EXITED && zexec_proc_exited(p, &code, &sig)) {
    out->exit_code = sig ? -1 : code;
    out->signal = sig;
  }
  if (end == ZEXEC_CANCELLED) {
    out->exit_code = -1;
    out->signal = 0;
  }
  zexec_table_remove(t, p);
  zexec_table_free(t);
  out->duration_ms = ztime_mono_ms() - start;
}

void zhook_run_in(const zhook *h, zhook_runner *runner, struct zspawner *spawner, const char *cwd,
                  const char *stdin_json, zhook_outcome *out) {
  zbuf payload = ZBUF_INIT;
  zbuf_addstr(&payload, stdin_json ? stdin_json : "{}");
  zbuf_addch(&payload, '\n');
  zsecret_redact_values(&payload); /* a hook never sees zero's credentials */
  if (!runner || zhook_runner_run(runner, h->argv, cwd, h->timeout_ms, payload.data, out) < 0)
    run_spawned(h, spawner, cwd, &payload, out);
  zbuf_release(&payload);
  if (!out->started && !out->reason) {
    char *why = out->output;
    out->output = NULL;
    not_started(out, h, why && *why ? why : "no command");
    free(why);
    return;
  }
  if (out->started) finish_outcome(out, h);
}

void zhook_run(const zhook *h, struct zspawner *spawner, const char *cwd, const char *stdin_json,
               zhook_outcome *out) {
  zhook_run_in(h, NULL, spawner, cwd, stdin_json, out);
}

void zhook_outcome_release(zhook_outcome *o) {
  free(o->output);
  free(o->reason);
  json_decref(o->answer);
  memset(o, 0, sizeof *o);
}
