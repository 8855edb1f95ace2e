/* forward.c — the in-sandbox TCP → Unix socket forwarder; see forward.h. */
#include "net/egress/forward.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "net/egress/relay.h"

int zeg_forward_listen(int port, zerr *err) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return zerr_errno(err, ZE_IO, "egress forwarder: socket");
  int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port),
                           .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  if (bind(fd, (struct sockaddr *)&sa, sizeof sa) < 0 || listen(fd, 128) < 0) {
    zerr_errno(err, ZE_IO, "egress forwarder: cannot listen on 127.0.0.1:%d", port);
    close(fd);
    return -1;
  }
  return fd;
}

static int connect_proxy(const char *path) {
  struct sockaddr_un sa = {.sun_family = AF_UNIX};
  if (strlen(path) >= sizeof sa.sun_path) return -1;
  memcpy(sa.sun_path, path, strlen(path) + 1);
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof sa) < 0) {
    close(fd);
    fd = -1;
  }
  return fd;
}

/* One client: a child of the forwarder, which relays and exits. */
static void serve_one(int client, const char *path) {
  int up = connect_proxy(path);
  if (up < 0) {
    static const char msg[] =
        "HTTP/1.1 502 Bad Gateway\r\nContent-Length: 42\r\nConnection: close\r\n\r\n"
        "zero: the egress proxy is not reachable.\n\n";
    if (send(client, msg, sizeof msg - 1, MSG_NOSIGNAL) < 0) {
      /* the client is gone too */
    }
    _exit(1);
  }
  _exit(zeg_relay(client, up, -1, NULL, NULL) == 0 ? 0 : 1);
}

/* The forwarder's loop: never returns. */
static void forward_loop(int lfd, const char *path) {
  signal(SIGCHLD, SIG_IGN); /* clients' children are reaped by the kernel */
  signal(SIGPIPE, SIG_IGN);
  for (;;) {
    int c = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
    if (c < 0) {
      if (errno == EINTR || errno == ECONNABORTED || errno == EMFILE) continue;
      _exit(1);
    }
    pid_t pid = fork();
    if (pid == 0) {
      close(lfd);
      serve_one(c, path);
    }
    close(c);
  }
}

int zeg_forward_spawn(int listen_fd, const char *socket_path, int (*confine)(void *ud), void *ud,
                      zerr *err) {
  fflush(NULL);
  pid_t mid = fork();
  if (mid < 0) return zerr_errno(err, ZE_IO, "egress forwarder: fork");
  if (mid == 0) {
    if (fork() != 0) _exit(0); /* the forwarder is reparented to the sandbox's init */
    setsid();
    int null = open("/dev/null", O_RDWR | O_CLOEXEC);
    /* No pipe of the command's stays open in here: zero reads its output
     * until every writer is gone. */
    for (int i = 0; i < 3 && null >= 0; i++) dup2(null, i);
    if (confine && confine(ud) < 0) _exit(1);
    forward_loop(listen_fd, socket_path);
  }
  int st;
  while (waitpid(mid, &st, 0) < 0 && errno == EINTR) {
  }
  return 0;
}
