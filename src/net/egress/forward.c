/* forward.c — the in-sandbox forwarder: hands each client to the proxy; see
 * forward.h. */
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
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

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

int zeg_forward_pass(int client, const char *socket_path) {
  int up = connect_proxy(socket_path);
  if (up < 0) return -1;
  char mark = ZEG_PASS_MARK;
  struct iovec iov = {.iov_base = &mark, .iov_len = 1};
  union {
    struct cmsghdr h;
    char buf[CMSG_SPACE(sizeof(int))];
  } ctl;
  memset(&ctl, 0, sizeof ctl);
  struct msghdr m = {.msg_iov = &iov,
                     .msg_iovlen = 1,
                     .msg_control = ctl.buf,
                     .msg_controllen = sizeof ctl.buf};
  struct cmsghdr *c = CMSG_FIRSTHDR(&m);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN(sizeof(int));
  memcpy(CMSG_DATA(c), &client, sizeof client);
  ssize_t n;
  do n = sendmsg(up, &m, MSG_NOSIGNAL);
  while (n < 0 && errno == EINTR);
  close(up);
  return n == 1 ? 0 : -1;
}

/* The forwarder's loop: never returns. One process serves every client of
 * the sandbox in turn; a pass is a few system calls, so nobody waits long. */
static void forward_loop(int lfd, const char *path) {
  signal(SIGPIPE, SIG_IGN);
  for (;;) {
    int c = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
    if (c < 0) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      if (errno == EMFILE || errno == ENFILE) {
        usleep(10000); /* the proxy frees ours as it takes them */
        continue;
      }
      _exit(1);
    }
    if (zeg_forward_pass(c, path) < 0) {
      static const char msg[] =
          "HTTP/1.1 502 Bad Gateway\r\nContent-Length: 42\r\nConnection: close\r\n\r\n"
          "zero: the egress proxy is not reachable.\n\n";
      if (send(c, msg, sizeof msg - 1, MSG_NOSIGNAL | MSG_DONTWAIT) < 0) {
        /* the client is gone too */
      }
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
