/* floor_relay.c — the floor under any userspace relay, for bench/egress/run.
 *
 * A TCP relay with nothing but the relaying: it listens on 127.0.0.1:LISTEN,
 * connects each client to 127.0.0.1:UPSTREAM and moves the bytes both ways
 * with blocking splice(2) through a pipe, one thread per direction — no
 * policy, no parsing, no poll. What a download costs through it over the
 * direct one is what one more loopback TCP hop costs on this machine, the
 * part of zero's proxy overhead no relay can avoid.
 *
 *   floor_relay LISTEN_PORT UPSTREAM_PORT    (prints "ready" once listening)
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

typedef struct pump {
  int from, to;
} pump;

/* Moves from -> to until from ends, then shuts to's writing half. */
static void *pump_main(void *arg) {
  pump *p = arg;
  int pp[2];
  if (pipe2(pp, O_CLOEXEC) < 0) return NULL;
  fcntl(pp[1], F_SETPIPE_SZ, 1 << 20);
  for (;;) {
    ssize_t n = splice(p->from, NULL, pp[1], NULL, 1 << 20, SPLICE_F_MOVE);
    if (n <= 0) break;
    while (n > 0) {
      ssize_t w = splice(pp[0], NULL, p->to, NULL, (size_t)n, SPLICE_F_MOVE);
      if (w <= 0) goto out;
      n -= w;
    }
  }
out:
  shutdown(p->to, SHUT_WR);
  close(pp[0]);
  close(pp[1]);
  return NULL;
}

static int dial(int port) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port),
                           .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  if (fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof sa) < 0) {
    close(fd);
    return -1;
  }
  return fd;
}

static int upstream_port;

static void *conn_main(void *arg) {
  int client = (int)(intptr_t)arg;
  int up = dial(upstream_port);
  if (up >= 0) {
    pump down = {up, client}, upward = {client, up};
    pthread_t t;
    if (pthread_create(&t, NULL, pump_main, &down) == 0) {
      pump_main(&upward);
      pthread_join(t, NULL);
    }
    close(up);
  }
  close(client);
  return NULL;
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: floor_relay LISTEN_PORT UPSTREAM_PORT\n");
    return 2;
  }
  upstream_port = (int)strtol(argv[2], NULL, 10);
  int lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  int one = 1;
  setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  struct sockaddr_in sa = {.sin_family = AF_INET,
                           .sin_port = htons((uint16_t)strtol(argv[1], NULL, 10)),
                           .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  if (bind(lfd, (struct sockaddr *)&sa, sizeof sa) < 0 || listen(lfd, 128) < 0) {
    perror("floor_relay: listen");
    return 1;
  }
  printf("ready\n");
  fflush(stdout);
  for (;;) {
    int c = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
    if (c < 0) continue;
    pthread_t t;
    if (pthread_create(&t, NULL, conn_main, (void *)(intptr_t)c) != 0) close(c);
    else pthread_detach(t);
  }
}
