/* tui_loop.c — /loop: a prompt or slash command run again and again while
 * the TUI is open (docs/tui.md).
 *
 *   /loop INTERVAL WHAT   WHAT now, then every INTERVAL (cron's @every
 *                         syntax: 30s, 5m, 1h30m; 10 s to 24 h)
 *   /loop WHAT            WHAT now; the model says when to run it again
 *   /loop stop            ends the loop
 *   /loop                 says what runs and when
 *
 * WHAT is a prompt, or a slash command line (a custom command such as
 * /babysit-prs, or a built-in); it is checked when the loop starts.
 *
 * Runs never overlap a turn: a run that comes due while a turn runs (the
 * loop's own, the user's, a queued message) waits for the worker to be idle
 * (and for the main conversation: not while a /btw side question or a /plan
 * review is open). With a fixed interval the next run is due INTERVAL after
 * the previous one started (at once after its end when it took longer).
 *
 * The model's pace: each run's prompt gets a note asking the model to end its
 * answer with a line `next loop: DURATION`; the last such line (any case) of the run's
 * last answer sets the wait, clamped to 1 min .. 1 h; no line (or a bad one)
 * waits 10 min. The note and the marker are plain text: any provider, no
 * tool schema added to every request.
 */
#include "cli/tui_loop.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/common.h"
#include "cli/tui_controller.h"
#include "cron/expr.h"
#include "ext/commands.h"

#define LOOP_MARKER "next loop:"

static const char LOOP_NOTE[] =
    "\n\n(This message runs again on a loop. End your answer with one line `" LOOP_MARKER
    " DURATION` — for example `" LOOP_MARKER
    " 15m` — saying when it should run next: sooner while something is changing, later when "
    "nothing is; from 1m to 1h.)";

/* "1h30m", "5m", "45s". */
static void fmt_span(char *out, size_t n, int64_t s) {
  if (s < 0) s = 0;
  int64_t h = s / 3600, m = s % 3600 / 60, sec = s % 60;
  size_t at = 0;
  if (h) at += (size_t)snprintf(out + at, n - at, "%lldh", (long long)h);
  if (m && at < n) at += (size_t)snprintf(out + at, n - at, "%lldm", (long long)m);
  if ((sec || !at) && at < n) snprintf(out + at, n - at, "%llds", (long long)sec);
}

static void loop_clear(tui_controller *c) {
  free(c->loop.what);
  memset(&c->loop, 0, sizeof c->loop);
}

/* Whether WHAT, a slash command line, names a command a loop may run. */
static bool loop_command_ok(tui_controller *c, const char *what) {
  char name[128];
  size_t n = strcspn(what, " \n");
  snprintf(name, sizeof name, "%.*s", (int)n, what);
  const tui_command *cmd = tui_command_find(name);
  if (cmd && (!strcmp(cmd->name, "/loop") || !strcmp(cmd->name, "/quit"))) {
    tui_say(c, "✗ /loop cannot repeat %s.", name);
    return false;
  }
  if (cmd || (c->rs.have_ext && zcmds_find(&c->rs.ext.commands, name + 1))) return true;
  tui_say(c, "✗ /loop: unknown command %s (/help lists them).", name);
  return false;
}

/* The interval word, when arg starts with one: 1 parsed into *every_s, 0
 * not a duration (arg is all prompt), -1 a bad one (said). */
static int loop_interval(tui_controller *c, const char *arg, int64_t *every_s, size_t *len) {
  *len = strcspn(arg, " \n");
  if (*len == 0 || *len > 32 || arg[0] < '0' || arg[0] > '9') return 0;
  char word[33];
  snprintf(word, sizeof word, "%.*s", (int)*len, arg);
  zerr err = ZERR_INIT;
  if (zcron_duration_parse(word, "/loop interval", every_s, &err) < 0) {
    tui_say(c, "✗ %s", err.msg);
    return -1;
  }
  if (*every_s < TUI_LOOP_MIN_INTERVAL_S || *every_s > TUI_LOOP_MAX_INTERVAL_S) {
    tui_say(c, "✗ /loop interval %s: give 10s to 24h.", word);
    return -1;
  }
  return 1;
}

static void loop_show(tui_controller *c) {
  if (!c->loop.active) {
    tui_say(c, "No loop runs. /loop 5m PROMPT (or /COMMAND) runs it every 5 minutes; /loop "
               "PROMPT lets the model pick the pace; /loop stop ends a loop.");
    return;
  }
  char every[32], span[32];
  fmt_span(every, sizeof every, c->loop.every_s);
  fmt_span(span, sizeof span, (int64_t)(c->loop.next_at - tui_now() + 0.999));
  zbuf l = ZBUF_INIT;
  zbuf_addf(&l, "↻ Loop: %s %s%s, %d run%s so far", c->loop.what,
            c->loop.every_s ? "every " : "at the model's pace", c->loop.every_s ? every : "",
            c->loop.runs, c->loop.runs == 1 ? "" : "s");
  if (c->loop.in_turn) zbuf_addstr(&l, "; one runs now.");
  else zbuf_addf(&l, "; next in %s.", span);
  tui_say(c, "%s", l.data);
  zbuf_release(&l);
}

void tui_loop_command(tui_controller *c, const char *arg) {
  if (!*arg) {
    loop_show(c);
    return;
  }
  if (!strcmp(arg, "stop")) {
    if (!c->loop.active) tui_say(c, "No loop runs.");
    else tui_say(c, "↻ Loop stopped after %d run%s.", c->loop.runs, c->loop.runs == 1 ? "" : "s");
    loop_clear(c);
    return;
  }
  int64_t every = 0;
  size_t len = 0;
  int has = loop_interval(c, arg, &every, &len);
  if (has < 0) return;
  const char *what = has ? arg + len : arg;
  while (*what == ' ') what++;
  if (!*what) {
    tui_say(c, "✗ /loop %s: say what to run (a prompt or a /command).", arg);
    return;
  }
  if (what[0] == '/' && !loop_command_ok(c, what)) return;
  bool replaced = c->loop.active;
  loop_clear(c);
  c->loop.active = true;
  c->loop.what = xstrdup(what);
  c->loop.every_s = every;
  c->loop.next_at = tui_now(); /* the first run now (or once the running turn ends) */
  char span[32];
  fmt_span(span, sizeof span, every);
  tui_say(c, "↻ Loop%s: %s %s%s; /loop stop ends it.", replaced ? " replaced" : "", c->loop.what,
          every ? "every " : "at the model's pace (1m to 1h)", every ? span : "");
}

/* The wait the run's answer asked for: the last `next loop: D` line of the
 * last assistant message, clamped; 0 when there is none (or it is bad). */
static int64_t model_pace(const tui_controller *c) {
  const char *text = NULL;
  for (size_t i = c->conv.len; i-- > 0 && !text;)
    if (c->conv.items[i].role == ZROLE_ASSISTANT && c->conv.items[i].content)
      text = c->conv.items[i].content;
  const char *at = NULL;
  for (const char *p = text; p && (p = strcasestr(p, LOOP_MARKER)); p++) at = p;
  if (!at) return 0;
  at += strlen(LOOP_MARKER);
  while (*at == ' ' || *at == '`' || *at == '*') at++;
  char word[33];
  size_t n = 0; /* the duration's characters: "15m", "1h30m" */
  while (n < sizeof word - 1 && at[n] && strchr("0123456789smhd", at[n])) n++;
  snprintf(word, sizeof word, "%.*s", (int)n, at);
  int64_t s = 0;
  zerr err = ZERR_INIT;
  if (!n || zcron_duration_parse(word, "next loop", &s, &err) < 0) return 0;
  if (s < TUI_LOOP_PACE_MIN_S) s = TUI_LOOP_PACE_MIN_S;
  if (s > TUI_LOOP_PACE_MAX_S) s = TUI_LOOP_PACE_MAX_S;
  return s;
}

/* The run that started at started_at is over: when the next one is due. */
static void loop_schedule(tui_controller *c, bool turn_ended) {
  c->loop.in_turn = false;
  double now = tui_now();
  char span[32];
  if (c->loop.every_s) {
    c->loop.next_at = c->loop.started_at + (double)c->loop.every_s;
    if (c->loop.next_at < now) c->loop.next_at = now;
    return;
  }
  int64_t pace = turn_ended ? model_pace(c) : 0;
  bool chosen = pace > 0;
  if (!chosen) pace = TUI_LOOP_PACE_DEFAULT_S;
  c->loop.next_at = now + (double)pace;
  fmt_span(span, sizeof span, pace);
  tui_say(c, "↻ Loop: next run in %s (%s).", span,
          chosen ? "the model's choice" : "no `next loop:` line in the answer: the default");
}

void tui_loop_tick(tui_controller *c) {
  if (!c->loop.active || c->loop.in_turn || c->quit) return;
  if (c->worker.running || c->app.queue.len || c->app.prompt.active || c->app.status.side_chat ||
      (c->spec.state != TUI_SPEC_OFF && c->spec.state != TUI_SPEC_DRAFTING))
    return;
  double now = tui_now();
  if (now < c->loop.next_at) return;
  c->loop.runs++;
  c->loop.started_at = now;
  tui_blank_line(c);
  tui_say(c, "↻ Loop run %d: %s", c->loop.runs, c->loop.what);
  /* the command may end the loop (it cannot be /loop, but a copy is safer) */
  char *what = xstrdup(c->loop.what);
  c->loop.firing = true;
  if (what[0] == '/') tui_command_run(c, what);
  else tui_turn_start(c, what);
  c->loop.firing = false;
  free(what);
  if (!c->loop.active) return;
  if (c->worker.running) c->loop.in_turn = true;
  else loop_schedule(c, false); /* a command without a turn, or a turn that did not start */
}

void tui_loop_turn_done(tui_controller *c) {
  if (c->loop.active && c->loop.in_turn) loop_schedule(c, true);
}

void tui_loop_decorate(tui_controller *c, zbuf *text) {
  if (c->loop.active && c->loop.firing && !c->loop.every_s) zbuf_addstr(text, LOOP_NOTE);
}

int tui_loop_timeout_ms(const tui_controller *c, int timeout) {
  if (!c->loop.active) return timeout;
  /* the status line's countdown moves once a second */
  return timeout < 0 || timeout > 1000 ? 1000 : timeout;
}

void tui_loop_status(tui_controller *c) {
  if (!c->loop.active) {
    c->app.status.loop = NULL;
    return;
  }
  char every[32], span[32];
  fmt_span(every, sizeof every, c->loop.every_s);
  double left = c->loop.next_at - tui_now();
  fmt_span(span, sizeof span, (int64_t)(left + 0.999));
  const char *pace = c->loop.every_s ? every : "model-paced";
  if (c->loop.in_turn)
    snprintf(c->loop.label, sizeof c->loop.label, "↻ loop %s · run %d", pace, c->loop.runs);
  else if (left <= 0)
    snprintf(c->loop.label, sizeof c->loop.label, "↻ loop %s · due after this turn", pace);
  else snprintf(c->loop.label, sizeof c->loop.label, "↻ loop %s · next in %s", pace, span);
  c->app.status.loop = c->loop.label;
}

void tui_loop_release(tui_controller *c) {
  loop_clear(c);
  c->app.status.loop = NULL;
}
