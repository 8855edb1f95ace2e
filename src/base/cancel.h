/* cancel.h — cancellation: process-wide (the one named singleton for
 * signals) and per run (scopes).
 *
 * SIGINT / SIGTERM set a flag and make zcancel_fd() readable (self-pipe), so a
 * poll loop (curl_multi_poll extra fds, a child-process wait) wakes at once.
 * Everything long-running checks zcancel_requested() or polls zcancel_fd().
 *
 * Scopes: a face that runs several runs at once in one process (`zero acp`:
 * one prompt per session, each on its own thread) gives each run a scope and
 * enters it on the run's thread. Inside a scope the same four calls mean
 * "this run": zcancel_requested() is true when the scope or the process is
 * cancelled, zcancel_fd() is the scope's own pipe (readable in both cases),
 * zcancel_request() / zcancel_reset() act on the scope alone. So the code a
 * run executes (provider stream, command wait, MCP call, language server)
 * stays written against this header and needs no handle passed down, and
 * cancelling one run leaves the others going. A thread the run starts for
 * its own work (parallel tool calls) enters the same scope
 * (zcancel_current() before pthread_create, zcancel_enter() in the thread).
 *
 * A scope's pipe is never closed: the signal handler writes to every scope's
 * pipe, and a closed-then-reused descriptor would take its byte. Released
 * scopes are reused, so a process holds at most ZCANCEL_MAX_SCOPES pipes.
 */
#ifndef ZERO_BASE_CANCEL_H
#define ZERO_BASE_CANCEL_H

#include <stdbool.h>

/* Installs the SIGINT/SIGTERM handlers (SA_RESTART off) and creates the pipe.
 * Idempotent. Returns 0, or -1 if the pipe could not be made. */
int zcancel_install(void);
/* true once a cancelling signal arrived or zcancel_request() was called
 * (in a scope: for the process or for the scope). */
bool zcancel_requested(void);
/* The signal that cancelled (SIGINT / SIGTERM), 0 when requested otherwise. */
int zcancel_signal(void);
/* Read end of the self-pipe (in a scope: the scope's), readable once
 * zcancel_requested() holds; -1 before install outside a scope. Never read
 * from it: only zcancel_reset drains it. */
int zcancel_fd(void);
/* Requests cancellation from code (async-signal-safe). In a scope: the
 * scope's run only. */
void zcancel_request(void);
/* Clears the request (tests; the TUI between turns). In a scope: the
 * scope's only (a process-wide cancel stays). */
void zcancel_reset(void);

/* ---- scopes ------------------------------------------------------------- */

/* At most this many scopes exist at once (ACP keeps 16 sessions open). */
#define ZCANCEL_MAX_SCOPES 64

typedef struct zcancel_scope zcancel_scope;

/* A scope for one run, not cancelled. NULL when ZCANCEL_MAX_SCOPES are in
 * use or no pipe could be made. Release with zcancel_scope_free. */
zcancel_scope *zcancel_scope_new(void);
/* Gives the scope back for reuse. No thread may still be inside it. */
void zcancel_scope_free(zcancel_scope *s);
/* Cancels s's run from any thread (session/cancel): its zcancel_requested()
 * turns true and its zcancel_fd() readable. */
void zcancel_scope_request(zcancel_scope *s);
/* Clears s's request (a new run starts in it). Not concurrently with
 * zcancel_scope_request on s: the caller orders the two (ACP: one lock). */
void zcancel_scope_reset(zcancel_scope *s);
/* true when s's run was cancelled (by itself, another thread or the
 * process). */
bool zcancel_scope_requested(const zcancel_scope *s);
/* Makes s (NULL: none) the calling thread's scope; returns the one it
 * replaces, to restore when the run ends. */
zcancel_scope *zcancel_enter(zcancel_scope *s);
/* The calling thread's scope, or NULL. */
zcancel_scope *zcancel_current(void);

#endif
