/* test_egress_relay.c — the egress proxy's byte pump (net/egress/relay.h)
 * over real loopback TCP: a bulk transfer arrives whole and in order both
 * ways, each EOF is passed on, the counts are right, the client's leg runs
 * reno; and while the receiver is slow the relay holds no more than its
 * pipe's size (it used to pull the sender's segments into a 1 MiB pipe
 * until it held several MiB). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <arpa/inet.h>
#include <dirent.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "net/egress/relay.h"

#define BULK (24u << 20)
#define PIPE_MAX (1u << 20) /* relay.c's RELAY_BIG: the most a pipe may hold */

static unsigned char pattern_byte(uint64_t i) { return (unsigned char)(i * 7 + (i >> 16)); }

/* Two connected loopback TCP sockets: *near is the accepted end. */
static void tcp_pair(int *far, int *near) {
  int l = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  socklen_t len = sizeof sa;
  assert_int_equal(bind(l, (struct sockaddr *)&sa, sizeof sa), 0);
  assert_int_equal(listen(l, 1), 0);
  assert_int_equal(getsockname(l, (struct sockaddr *)&sa, &len), 0);
  *far = socket(AF_INET, SOCK_STREAM, 0);
  assert_int_equal(connect(*far, (struct sockaddr *)&sa, sizeof sa), 0);
  *near = accept(l, NULL, NULL);
  assert_true(*near >= 0);
  close(l);
}

typedef struct relay_run {
  int a, b;
  uint64_t a_to_b, b_to_a;
  int rc;
} relay_run;

static void *relay_main(void *arg) {
  relay_run *r = arg;
  r->rc = zeg_relay(r->a, r->b, -1, &r->a_to_b, &r->b_to_a);
  return NULL;
}

typedef struct writer {
  int fd;
  uint64_t n;
} writer;

/* Writes n pattern bytes to fd, then ends its writing half. */
static void *writer_main(void *arg) {
  writer *w = arg;
  unsigned char buf[1 << 16];
  for (uint64_t off = 0; off < w->n;) {
    size_t k = w->n - off < sizeof buf ? (size_t)(w->n - off) : sizeof buf;
    for (size_t i = 0; i < k; i++) buf[i] = pattern_byte(off + i);
    ssize_t s = send(w->fd, buf, k, MSG_NOSIGNAL);
    if (s <= 0) break;
    off += (uint64_t)s;
  }
  shutdown(w->fd, SHUT_WR);
  return NULL;
}

/* The most bytes any pipe of this process holds now (the relay's pipes are
 * the only ones the test has). */
static size_t pipe_bytes_max(void) {
  size_t most = 0;
  DIR *d = opendir("/proc/self/fd");
  if (!d) return 0;
  for (struct dirent *e; (e = readdir(d));) {
    char path[300], link[64];
    snprintf(path, sizeof path, "/proc/self/fd/%s", e->d_name);
    ssize_t n = readlink(path, link, sizeof link - 1);
    if (n <= 0) continue;
    link[n] = '\0';
    int held = 0;
    if (!strncmp(link, "pipe:", 5) &&
        ioctl((int)strtol(e->d_name, NULL, 10), FIONREAD, &held) == 0 && (size_t)held > most)
      most = (size_t)held;
  }
  closedir(d);
  return most;
}

/* Reads up to want bytes from fd, checking them against the pattern from
 * *off on. Returns how many came (0 at EOF). */
static size_t read_checked(int fd, uint64_t *off, size_t want) {
  unsigned char buf[1 << 16];
  ssize_t n = recv(fd, buf, want < sizeof buf ? want : sizeof buf, 0);
  assert_true(n >= 0);
  for (ssize_t i = 0; i < n; i++)
    if (buf[i] != pattern_byte(*off + (uint64_t)i))
      fail_msg("byte %llu differs", (unsigned long long)(*off + i));
  *off += (uint64_t)n;
  return (size_t)n;
}

static void test_bulk_both_ways_arrives_whole(void **state) {
  (void)state;
  int client, a, server, b;
  tcp_pair(&client, &a);
  tcp_pair(&server, &b);
  relay_run r = {.a = a, .b = b};
  writer down = {.fd = server, .n = BULK}, up = {.fd = client, .n = BULK / 3};
  pthread_t rt, wd, wu;
  pthread_create(&rt, NULL, relay_main, &r);
  pthread_create(&wd, NULL, writer_main, &down);
  pthread_create(&wu, NULL, writer_main, &up);
  uint64_t got_down = 0, got_up = 0;
  bool down_done = false, up_done = false;
  while (!down_done || !up_done) {
    if (!down_done) down_done = read_checked(client, &got_down, 1 << 16) == 0;
    if (!up_done) up_done = read_checked(server, &got_up, 1 << 16) == 0;
  }
  pthread_join(wd, NULL);
  pthread_join(wu, NULL);
  pthread_join(rt, NULL);
  assert_int_equal(r.rc, 0);
  assert_int_equal(got_down, BULK);
  assert_int_equal(got_up, BULK / 3);
  assert_int_equal(r.b_to_a, BULK);
  assert_int_equal(r.a_to_b, BULK / 3);
  /* the client's loopback leg does without the system's pacing */
  char cc[16] = "";
  socklen_t cl = sizeof cc - 1;
  assert_int_equal(getsockopt(a, IPPROTO_TCP, TCP_CONGESTION, cc, &cl), 0);
  assert_string_equal(cc, "reno");
  close(client);
  close(server);
  close(a);
  close(b);
}

static void nap_ms(long ms) {
  struct timespec ts = {.tv_sec = 0, .tv_nsec = ms * 1000000L};
  nanosleep(&ts, NULL);
}

static void test_slow_receiver_bounds_what_the_pipe_holds(void **state) {
  (void)state;
  int client, a, server, b;
  tcp_pair(&client, &a);
  tcp_pair(&server, &b);
  relay_run r = {.a = a, .b = b};
  writer w = {.fd = server, .n = BULK};
  pthread_t rt, wt;
  pthread_create(&rt, NULL, relay_main, &r);
  pthread_create(&wt, NULL, writer_main, &w);
  uint64_t got = 0;
  /* Past the point where the relay grows its pipe for a bulk transfer. */
  while (got < (8u << 20)) assert_true(read_checked(client, &got, 1 << 16) > 0);
  /* Then a slow reader: the sender keeps sending, the relay must wait. */
  size_t most = 0;
  for (int i = 0; i < 150; i++) {
    nap_ms(2);
    size_t held = pipe_bytes_max();
    if (held > most) most = held;
    assert_true(read_checked(client, &got, 16384) > 0);
  }
  while (read_checked(client, &got, 1 << 16) > 0) {
  }
  shutdown(client, SHUT_WR);
  pthread_join(wt, NULL);
  pthread_join(rt, NULL);
  assert_int_equal(r.rc, 0);
  assert_int_equal(got, BULK);
  if (most > PIPE_MAX) fail_msg("the relay held %zu bytes in a pipe of at most %u", most, PIPE_MAX);
  close(client);
  close(server);
  close(a);
  close(b);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_bulk_both_ways_arrives_whole),
      cmocka_unit_test(test_slow_receiver_bounds_what_the_pipe_holds),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
