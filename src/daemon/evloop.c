/* evloop.c — the poll() loop; see evloop.h. */
#include "daemon/evloop.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/common.h"

void zev_init(zev_loop *l, const zdmn_clock *clock) {
  memset(l, 0, sizeof *l);
  l->clock = clock;
  l->next_id = 1;
}

void zev_release(zev_loop *l) {
  free(l->w);
  free(l->t);
  free(l->pfd);
  memset(l, 0, sizeof *l);
}

static zev_watch_ *find(zev_loop *l, int fd) {
  for (size_t i = 0; i < l->nw; i++)
    if (l->w[i].fd == fd) return &l->w[i];
  return NULL;
}

void zev_watch(zev_loop *l, int fd, short events, zev_fd_fn fn, void *ud) {
  zev_watch_ *w = find(l, fd);
  if (!w) {
    if (l->nw == l->capw) {
      l->capw = l->capw ? l->capw * 2 : 16;
      l->w = xrealloc(l->w, l->capw * sizeof *l->w);
      l->pfd = xrealloc(l->pfd, l->capw * sizeof *l->pfd);
    }
    w = &l->w[l->nw++];
  }
  *w = (zev_watch_){fd, events, fn, ud};
}

void zev_unwatch(zev_loop *l, int fd) {
  zev_watch_ *w = find(l, fd);
  /* The slot is freed lazily (fd -1) so a running dispatch keeps its indexes. */
  if (w) w->fd = -1;
}

uint64_t zev_timer_at(zev_loop *l, int64_t due_ms, zev_timer_fn fn, void *ud) {
  size_t i = 0;
  while (i < l->nt && l->t[i].id) i++;
  if (i == l->nt) {
    if (l->nt == l->capt) {
      l->capt = l->capt ? l->capt * 2 : 16;
      l->t = xrealloc(l->t, l->capt * sizeof *l->t);
    }
    l->nt++;
  }
  l->t[i] = (zev_timer_){l->next_id++, due_ms, fn, ud};
  return l->t[i].id;
}

void zev_timer_cancel(zev_loop *l, uint64_t id) {
  for (size_t i = 0; id && i < l->nt; i++)
    if (l->t[i].id == id) l->t[i].id = 0;
}

/* Drops the free slots at the end of both tables and compacts the watches
 * (only between dispatches). */
static void compact(zev_loop *l) {
  size_t j = 0;
  for (size_t i = 0; i < l->nw; i++)
    if (l->w[i].fd >= 0) l->w[j++] = l->w[i];
  l->nw = j;
  while (l->nt && !l->t[l->nt - 1].id) l->nt--;
}

static int run_timers(zev_loop *l) {
  int ran = 0;
  int64_t now = l->clock->now_ms(l->clock->ud);
  for (size_t i = 0; i < l->nt; i++) {
    if (!l->t[i].id || l->t[i].due_ms > now) continue;
    zev_timer_ t = l->t[i];
    l->t[i].id = 0; /* one-shot: cleared before the callback may re-arm */
    t.fn(l, t.ud);
    ran++;
  }
  return ran;
}

int zev_run_once(zev_loop *l, int max_wait_ms) {
  compact(l);
  int64_t now = l->clock->now_ms(l->clock->ud);
  int64_t wait = max_wait_ms;
  for (size_t i = 0; i < l->nt; i++) {
    if (!l->t[i].id) continue;
    int64_t d = l->t[i].due_ms - now;
    if (d < 0) d = 0;
    if (wait < 0 || d < wait) wait = d;
  }
  size_t n = l->nw;
  for (size_t i = 0; i < n; i++)
    l->pfd[i] = (struct pollfd){l->w[i].events ? l->w[i].fd : -1, l->w[i].events, 0};
  int pr = poll(l->pfd, n, wait > 0x7fffffff ? 0x7fffffff : (int)wait);
  if (pr < 0 && errno != EINTR) return -1;
  int ran = 0;
  for (size_t i = 0; pr > 0 && i < n; i++) {
    if (!l->pfd[i].revents || l->w[i].fd != l->pfd[i].fd) continue; /* unwatched meanwhile */
    zev_watch_ w = l->w[i];
    w.fn(l, w.fd, l->pfd[i].revents, w.ud);
    ran++;
  }
  return ran + run_timers(l);
}
