/* term.h — the terminal: raw mode and its restoration (a named singleton,
 * like base/cancel.h, because signal handlers must reach it).
 *
 * tui_term_enter saves the termios state, switches to raw mode and turns on
 * bracketed paste and the disambiguated keyboard modes (kitty CSI u, xterm
 * modifyOtherKeys). The terminal is put back exactly (tcsetattr with the
 * saved state, modes popped, cursor shown) by tui_term_leave, at exit
 * (atexit), on SIGTERM / SIGHUP (reported through the signal pipe so the UI
 * exits cleanly), on crashes (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT: restore,
 * then die with the same signal), and around Ctrl+Z or an external SIGTSTP
 * (both go through tui_term_suspend).
 */
#ifndef ZERO_UI_TUI_TERM_H
#define ZERO_UI_TUI_TERM_H

#include <stdbool.h>
#include <stddef.h>

#include "base/err.h"

/* Bytes the signal pipe carries. */
enum { TUI_SIG_WINCH = 'W', TUI_SIG_TERM = 'T', TUI_SIG_CONT = 'C', TUI_SIG_TSTP = 'Z' };

int tui_term_enter(int in_fd, int out_fd, zerr *err);
/* Where the cursor is in the live region (rows below its top), after every
 * frame: a crash erases the region before restoring the terminal. */
void tui_term_set_live(int rows_above_cursor);
/* Restores the terminal (idempotent, async-signal-safe parts only). */
void tui_term_leave(void);
/* Raw mode again after tui_term_leave (the terminal was lent to a program
 * the user runs in the foreground, e.g. $EDITOR); -1 when it cannot be
 * set. The caller redraws everything (tui_screen_invalidate). */
int tui_term_resume(void);
/* Ctrl+Z: restore, stop the process group, re-enter raw mode on `fg`. */
void tui_term_suspend(void);
/* Terminal size; 80x24 when unknown. */
void tui_term_size(int *width, int *height);
/* Readable when a signal arrived; read bytes are TUI_SIG_*. */
int tui_term_signal_fd(void);
/* Writes all of s (retrying on EINTR / EAGAIN); -1 on a lost terminal. */
int tui_term_write(const char *s, size_t n);
/* true when the terminal rewraps lines on resize (tmux, VTE, kitty, …). */
bool tui_term_reflows(void);

#endif
