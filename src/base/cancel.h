/* cancel.h — process-wide cancellation (the one named singleton for signals).
 *
 * SIGINT / SIGTERM set a flag and make zcancel_fd() readable (self-pipe), so a
 * poll loop (curl_multi_poll extra fds, a child-process wait) wakes at once.
 * Everything long-running checks zcancel_requested() or polls zcancel_fd().
 */
#ifndef ZERO_BASE_CANCEL_H
#define ZERO_BASE_CANCEL_H

#include <stdbool.h>

/* Installs the SIGINT/SIGTERM handlers (SA_RESTART off) and creates the pipe.
 * Idempotent. Returns 0, or -1 if the pipe could not be made. */
int zcancel_install(void);
/* true once a cancelling signal arrived or zcancel_request() was called. */
bool zcancel_requested(void);
/* The signal that cancelled (SIGINT / SIGTERM), 0 when requested otherwise. */
int zcancel_signal(void);
/* Read end of the self-pipe: readable once cancelled; -1 before install. */
int zcancel_fd(void);
/* Requests cancellation from code (async-signal-safe). */
void zcancel_request(void);
/* Clears the request (tests; the TUI between turns). */
void zcancel_reset(void);

#endif
