/* cron_sched.h — the daemon's scheduler for `zero cron` (src/cron/): it
 * claims the schedules that are due and hands each run to the daemon as an
 * ordinary session.
 *
 * When it looks: once at start (so a run missed while no daemon ran starts
 * now, once), at the next due time over every schedule (a loop timer, at
 * most ZDMN_CRON_RECHECK_MS away, so a clock change is noticed), and
 * whenever cron.json is written (inotify on its directory: `zero cron add
 * --run-now` runs at once). A schedule whose previous run is still queued
 * or running is left due until that run ends: runs of one schedule never
 * overlap.
 *
 * Life cycle: zdmn_cron_start (after the loop exists); the loop's callbacks
 * do the rest; zdmn_cron_stop when the daemon drains (no new runs).
 */
#ifndef ZERO_DAEMON_CRON_SCHED_H
#define ZERO_DAEMON_CRON_SCHED_H

#include <stdint.h>

#include "base/strvec.h"
#include "cron/store.h"
#include "daemon/evloop.h"

#define ZDMN_CRON_RECHECK_MS 60000

typedef struct zdmn_cron_hooks {
  zcron_fire_fn fire;                         /* a claimed run: make it a session */
  void (*running)(void *ud, strvec *ids);     /* schedules whose run is not over */
  void (*log)(void *ud, const char *message); /* the daemon's log */
  void *ud;
} zdmn_cron_hooks;

typedef struct zdmn_cron {
  zev_loop *loop; /* borrowed */
  char *path;     /* cron.json, owned */
  int watch_fd;   /* inotify, or -1 */
  uint64_t timer;
  zdmn_cron_hooks hooks;
  char *last_error; /* the last problem logged (logged again only when it changes) */
} zdmn_cron;

/* Starts scheduling the schedules in path (copied) and runs the first check
 * now. Never fails: without inotify it only wakes on its timer. */
void zdmn_cron_start(zdmn_cron *c, zev_loop *l, const char *path, const zdmn_cron_hooks *hooks);

/* Claims what is due now and re-arms the timer (also what the timer and the
 * watch call). */
void zdmn_cron_check(zdmn_cron *c);

/* Stops: no further runs are claimed. Safe on a scheduler never started
 * (all zero) and twice. */
void zdmn_cron_stop(zdmn_cron *c);

#endif
