/* relay.c — splice-based two-way relay; see relay.h. */
#include "net/egress/relay.h"

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdbool.h>
#include <sys/socket.h>
#include <unistd.h>

/* A pipe starts at the kernel's default size (64 KiB), so an idle or small
 * connection costs little kernel memory and little of the user's pipe
 * quota (fs.pipe-user-pages-soft, which the sandboxed commands share). A
 * direction that has moved RELAY_BULK is a bulk transfer: its pipe grows to
 * RELAY_BIG, and each splice moves 16 times more per system call. */
#define RELAY_CHUNK (1 << 16)
#define RELAY_BULK (4u << 20)
#define RELAY_BIG (1 << 20)

/* One direction: src -> pipe -> dst. pending: bytes in the pipe. */
typedef struct relay_dir {
  int src, dst;
  int pipe[2];
  size_t pending;
  size_t chunk; /* the pipe's size: the most the pipe is given to hold */
  bool grew;    /* the pipe was offered RELAY_BIG once */
  bool full;    /* the pipe holds its chunk (or has no room): wait for dst, not src */
  bool drained; /* src gave less than asked: poll before pulling again */
  bool blocked; /* dst took less than offered: poll before pushing again */
  bool eof;     /* src has ended */
  bool done;    /* eof and the pipe drained: dst's writing half is shut */
  uint64_t moved;
} relay_dir;

/* Pulls what src has into the pipe, up to the pipe's chunk: a pipe counts
 * buffers, not bytes, so without the cap it would take in several times
 * its size while dst is slow, in pieces as small as each segment that
 * arrives. 1 when bytes came, 0 when none (yet), -1 on an error. */
static int dir_in(relay_dir *d) {
  if (d->pending >= d->chunk) {
    d->full = true;
    return 0;
  }
  size_t room = d->chunk - d->pending;
  ssize_t n = splice(d->src, NULL, d->pipe[1], NULL, room, SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
  if (n > 0) {
    d->pending += (size_t)n;
    d->drained = (size_t)n < room;
    return 1;
  }
  d->drained = true;
  if (n == 0) d->eof = true;
  else if (errno != EAGAIN && errno != EINTR) return -1;
  /* EAGAIN while src was readable: the pipe is what is full. */
  else if (d->pending) d->full = true;
  return 0;
}

/* Pushes the pipe's bytes to dst; shuts dst's writing half once src has
 * ended and everything went out. 1 when bytes went, 0 when none, -1 on an
 * error. */
static int dir_out(relay_dir *d) {
  int r = 0;
  if (d->pending) {
    ssize_t n =
        splice(d->pipe[0], NULL, d->dst, NULL, d->pending, SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
    d->blocked = n < 0 || (size_t)n < d->pending;
    if (n > 0) {
      d->pending -= (size_t)n;
      d->moved += (uint64_t)n;
      d->full = false;
      r = 1;
      if (!d->grew && d->moved >= RELAY_BULK) {
        /* Once, best effort: over the quota or the limit it stays as it is. */
        d->grew = true;
        int sz = fcntl(d->pipe[1], F_SETPIPE_SZ, RELAY_BIG);
        if (sz > RELAY_CHUNK) d->chunk = (size_t)sz;
      }
    } else if (n < 0 && errno != EAGAIN && errno != EINTR) {
      return -1;
    }
  }
  if (d->eof && !d->pending && !d->done) {
    shutdown(d->dst, SHUT_WR);
    d->done = true;
  }
  return r;
}

/* Moves what can move now, both ways along the pipe, until src has no more
 * or dst takes no more: one wake-up of poll moves a burst, not one pipe's
 * worth, and no call is made that the last one said would find nothing. */
static int dir_pump(relay_dir *d) {
  d->drained = d->blocked = false;
  for (int progress = 1; progress && !d->done;) {
    int in = d->eof || d->full || d->drained ? 0 : dir_in(d);
    if (in < 0) return -1;
    int out = d->blocked ? 0 : dir_out(d);
    if (out < 0) return -1;
    progress = in > 0 || out > 0;
  }
  return 0;
}

static void set_nonblock(int fd) {
  int fl = fcntl(fd, F_GETFL);
  if (fl >= 0) fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

/* Waits for the next event of both directions and moves what it can. 1 to
 * go on, 0 when both ended, -1 on an error or stop. */
static int relay_step(relay_dir d[2], int stop_fd) {
  struct pollfd pf[5];
  int n = 0, idx[4] = {-1, -1, -1, -1};
  for (int i = 0; i < 2; i++) {
    if (d[i].done) continue;
    if (!d[i].eof && !d[i].full) {
      idx[i] = n;
      pf[n++] = (struct pollfd){.fd = d[i].src, .events = POLLIN};
    }
    if (d[i].pending) {
      idx[2 + i] = n;
      pf[n++] = (struct pollfd){.fd = d[i].dst, .events = POLLOUT};
    }
  }
  if (d[0].done && d[1].done) return 0;
  int stop = -1;
  if (stop_fd >= 0) {
    stop = n;
    pf[n++] = (struct pollfd){.fd = stop_fd, .events = POLLIN};
  }
  if (poll(pf, (nfds_t)n, -1) < 0) return errno == EINTR ? 1 : -1;
  if (stop >= 0 && pf[stop].revents) return -1;
  for (int i = 0; i < 2; i++) {
    if (idx[2 + i] >= 0 && (pf[idx[2 + i]].revents & (POLLERR | POLLHUP)) &&
        !(pf[idx[2 + i]].revents & POLLOUT))
      return -1; /* the receiver is gone: the bytes can go nowhere */
    bool woke = (idx[i] >= 0 && pf[idx[i]].revents) || (idx[2 + i] >= 0 && pf[idx[2 + i]].revents);
    if (woke && dir_pump(&d[i]) < 0) return -1;
  }
  return 1;
}

int zeg_relay(int a, int b, int stop_fd, uint64_t *a_to_b, uint64_t *b_to_a) {
  relay_dir d[2] = {{.src = a, .dst = b, .pipe = {-1, -1}, .chunk = RELAY_CHUNK},
                    {.src = b, .dst = a, .pipe = {-1, -1}, .chunk = RELAY_CHUNK}};
  int rc = -1;
  if (pipe2(d[0].pipe, O_CLOEXEC | O_NONBLOCK) < 0 || pipe2(d[1].pipe, O_CLOEXEC | O_NONBLOCK) < 0)
    goto out;
  set_nonblock(a);
  set_nonblock(b);
  /* A relay must not add Nagle's wait to what it passes on: each side
   * already decided when to send (no-op on a Unix socket). */
  int one = 1;
  setsockopt(a, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  setsockopt(b, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  /* a is on loopback, where nothing is lost and no queue builds: the
   * system's congestion control (BBR paces each send with a timer) only
   * costs CPU there. Reno, which every user may pick, sends at once. The
   * upstream leg keeps the system's choice: it crosses the real network. */
  static const char reno[] = "reno";
  setsockopt(a, IPPROTO_TCP, TCP_CONGESTION, reno, sizeof reno - 1);
  while ((rc = relay_step(d, stop_fd)) > 0) {
  }
out:
  for (int i = 0; i < 2; i++)
    for (int k = 0; k < 2; k++)
      if (d[i].pipe[k] >= 0) close(d[i].pipe[k]);
  if (a_to_b) *a_to_b = d[0].moved;
  if (b_to_a) *b_to_a = d[1].moved;
  return rc;
}
