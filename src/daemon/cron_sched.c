/* cron_sched.c — the daemon's scheduler (contract in cron_sched.h). */
#include "daemon/cron_sched.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <time.h>
#include <unistd.h>

#include "base/common.h"
#include "base/fs.h"

static int64_t loop_now_ms(const zev_loop *l) { return l->clock->now_ms(l->clock->ud); }

static void on_timer(zev_loop *l, void *ud) {
  (void)l;
  zdmn_cron *c = ud;
  c->timer = 0;
  zdmn_cron_check(c);
}

/* cron.json changed (or something else in its directory: checked anyway,
 * it is a cheap read). */
static void on_watch(zev_loop *l, int fd, short revents, void *ud) {
  (void)l;
  (void)revents;
  char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
  bool ours = false;
  ssize_t n;
  while ((n = read(fd, buf, sizeof buf)) > 0) {
    for (char *p = buf; p < buf + n;) {
      const struct inotify_event *ev = (const struct inotify_event *)p;
      if (ev->len && !strcmp(ev->name, "cron.json")) ours = true;
      p += sizeof *ev + ev->len;
    }
  }
  if (ours) zdmn_cron_check(ud);
}

/* Logs message unless it is the problem logged last (a broken file would
 * otherwise fill the log once a minute). NULL: the problem is gone. */
static void log_problem(zdmn_cron *c, const char *message) {
  if (message && c->last_error && !strcmp(message, c->last_error)) return;
  free(c->last_error);
  c->last_error = message ? xstrdup(message) : NULL;
  if (message) c->hooks.log(c->hooks.ud, message);
}

void zdmn_cron_check(zdmn_cron *c) {
  if (!c->loop) return;
  time_t now = time(NULL);
  strvec running = STRVEC_INIT;
  c->hooks.running(c->hooks.ud, &running);
  zerr err = ZERR_INIT;
  /* One read of cron.json per look: the claim also says when to look next. */
  time_t next = -1;
  if (zcron_store_claim_due(c->path, now, NULL, (const char *const *)running.v, c->hooks.fire,
                            c->hooks.ud, &next, &err) < 0) {
    zbuf m = ZBUF_INIT;
    zbuf_addf(&m, "cron: %s", err.msg);
    log_problem(c, m.data);
    zbuf_release(&m);
  } else {
    log_problem(c, NULL);
  }
  /* Next look: the earliest due time, a minute at most away. A schedule
   * left due because its run goes on is looked at again when that run ends
   * (the daemon calls zdmn_cron_check). */
  strvec_clear(&running);
  int64_t wait = ZDMN_CRON_RECHECK_MS;
  if (next >= 0 && (int64_t)(next - time(NULL)) * 1000 < wait)
    wait = (int64_t)(next - time(NULL)) * 1000 + 50;
  if (wait < 1000) wait = 1000;
  if (c->timer) zev_timer_cancel(c->loop, c->timer);
  c->timer = zev_timer_at(c->loop, loop_now_ms(c->loop) + wait, on_timer, c);
}

void zdmn_cron_start(zdmn_cron *c, zev_loop *l, const char *path, const zdmn_cron_hooks *hooks) {
  memset(c, 0, sizeof *c);
  c->loop = l;
  c->path = xstrdup(path);
  c->hooks = *hooks;
  c->watch_fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  if (c->watch_fd >= 0) {
    char *dir = xstrdup(path);
    char *slash = strrchr(dir, '/');
    if (slash && slash != dir) *slash = '\0';
    /* The directory may not exist yet: made now (0700, as zero's config dir
     * is) so that the first `zero cron add` is seen. */
    zerr ignored = ZERR_INIT;
    if (zfs_mkdir_p(dir, 0700, &ignored) < 0 ||
        inotify_add_watch(c->watch_fd, dir, IN_CLOSE_WRITE | IN_MOVED_TO) < 0) {
      close(c->watch_fd);
      c->watch_fd = -1;
    }
    free(dir);
  }
  if (c->watch_fd >= 0) zev_watch(l, c->watch_fd, POLLIN, on_watch, c);
  zdmn_cron_check(c);
}

void zdmn_cron_stop(zdmn_cron *c) {
  if (!c->loop) return;
  if (c->timer) zev_timer_cancel(c->loop, c->timer);
  if (c->watch_fd >= 0) {
    zev_unwatch(c->loop, c->watch_fd);
    close(c->watch_fd);
  }
  free(c->path);
  free(c->last_error);
  memset(c, 0, sizeof *c);
  c->watch_fd = -1;
}
