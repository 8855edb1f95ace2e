/* evloop.h — a small poll() event loop (Redis's ae.c idea, one thread):
 * file descriptors with a callback each, and one-shot timers on an injected
 * clock.
 *
 * Life cycle: zev_init; zev_watch the descriptors (again to change the
 * events; zev_unwatch before closing one); zev_timer_at for deadlines;
 * zev_run_once in a loop until the owner decides to stop; zev_release.
 * Callbacks may watch, unwatch and add or cancel timers, including their
 * own. No allocation per iteration once the tables have grown.
 */
#ifndef ZERO_DAEMON_EVLOOP_H
#define ZERO_DAEMON_EVLOOP_H

#include <poll.h>
#include <stddef.h>
#include <stdint.h>

#include "daemon/retry.h"

typedef struct zev_loop zev_loop;
typedef void (*zev_fd_fn)(zev_loop *l, int fd, short revents, void *ud);
typedef void (*zev_timer_fn)(zev_loop *l, void *ud);

typedef struct zev_watch_ {
  int fd; /* -1: free slot */
  short events;
  zev_fd_fn fn;
  void *ud;
} zev_watch_;

typedef struct zev_timer_ {
  uint64_t id; /* 0: free slot */
  int64_t due_ms;
  zev_timer_fn fn;
  void *ud;
} zev_timer_;

struct zev_loop {
  const zdmn_clock *clock; /* borrowed */
  zev_watch_ *w;
  size_t nw, capw;
  zev_timer_ *t;
  size_t nt, capt;
  uint64_t next_id;
  struct pollfd *pfd; /* scratch, capw slots */
};

void zev_init(zev_loop *l, const zdmn_clock *clock);
void zev_release(zev_loop *l);
/* Adds fd or changes its events/callback (events 0: kept, but not polled). */
void zev_watch(zev_loop *l, int fd, short events, zev_fd_fn fn, void *ud);
void zev_unwatch(zev_loop *l, int fd);
/* A one-shot timer at due_ms on the loop's clock; returns its id (> 0). */
uint64_t zev_timer_at(zev_loop *l, int64_t due_ms, zev_timer_fn fn, void *ud);
void zev_timer_cancel(zev_loop *l, uint64_t id);
/* Waits up to max_wait_ms (-1: until something happens) or the next timer,
 * then runs the callbacks of what is ready and of the timers that are due.
 * Returns the number of callbacks run, or -1 when poll failed (not EINTR). */
int zev_run_once(zev_loop *l, int max_wait_ms);

#endif
