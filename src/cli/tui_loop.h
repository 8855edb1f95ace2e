/* tui_loop.h — /loop in the TUI: a prompt or slash command run again every
 * interval, or at the pace the model asks for, while zero is open; never
 * over a running turn. The rules are at the top of tui_loop.c; the user's
 * view in docs/tui.md. Everything here runs on the UI thread.
 */
#ifndef ZERO_CLI_TUI_LOOP_H
#define ZERO_CLI_TUI_LOOP_H

#include <stdbool.h>
#include <stdint.h>

#include "base/buf.h"

#define TUI_LOOP_MIN_INTERVAL_S 10 /* /loop 10s: a test or a quick watch */
#define TUI_LOOP_MAX_INTERVAL_S (24 * 3600)
#define TUI_LOOP_PACE_MIN_S 60 /* the model's choice is clamped to 1 min .. 1 h */
#define TUI_LOOP_PACE_MAX_S 3600
#define TUI_LOOP_PACE_DEFAULT_S 600 /* the model named no pace */

/* The loop of a TUI (one at most). */
typedef struct tui_loop {
  bool active;
  char *what;        /* the prompt or slash command line each run sends; owned */
  int64_t every_s;   /* the interval, or 0: the model sets the pace */
  double next_at;    /* tui_now() seconds of the next run */
  double started_at; /* of the last run */
  bool in_turn;      /* the running job is the loop's run: its end schedules the next */
  bool firing;       /* a run is being started (tui_loop_decorate adds the note) */
  int runs;
  char label[96]; /* the status line's text (status.loop points here) */
} tui_loop;

struct tui_controller;

/* /loop [INTERVAL] WHAT | stop | (nothing: what runs). */
void tui_loop_command(struct tui_controller *c, const char *arg);
/* Starts the run that is due, when the worker and the main conversation
 * are idle. Called on every pass of the UI loop. */
void tui_loop_tick(struct tui_controller *c);
/* A job ended (joined): a loop run's end sets when the next is due. */
void tui_loop_turn_done(struct tui_controller *c);
/* The text of a turn being started: a model-paced run gets the note that
 * asks for a `next loop:` line. */
void tui_loop_decorate(struct tui_controller *c, zbuf *text);
/* The UI loop's poll timeout with a loop active (at most a second, so the
 * countdown moves and a due run starts); timeout unchanged otherwise. */
int tui_loop_timeout_ms(const struct tui_controller *c, int timeout);
/* Points the status line at the loop's state (or at nothing). */
void tui_loop_status(struct tui_controller *c);
void tui_loop_release(struct tui_controller *c);

#endif
