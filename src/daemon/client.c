/* client.c — the daemon's client side; see client.h. */
#include "daemon/client.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "base/json.h"
#include "daemon/frame.h"

int zdmn_client_dial(const zdmn_paths *p, zerr *err) {
  if (zdmn_socket_check(p, err) < 0) return -1;
  struct sockaddr_un sa = {.sun_family = AF_UNIX};
  memcpy(sa.sun_path, p->socket, strlen(p->socket) + 1); /* length checked by zdmn_paths_init */
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return zerr_errno(err, ZE_IO, "cannot create a socket");
  if (connect(fd, (struct sockaddr *)&sa, sizeof sa) < 0) {
    int e = errno;
    close(fd);
    errno = e;
    /* A socket file nobody listens on: a daemon that died without cleaning. */
    return zerr_errno(err, ZE_NOT_FOUND, "no daemon listens on %s", p->socket);
  }
  return fd;
}

int zdmn_client_connect(const zdmn_paths *p, zerr *err) {
  int fd = zdmn_client_dial(p, err);
  return fd < 0 ? -1 : zdmn_client_handshake(fd, err);
}

int zdmn_client_handshake(int fd, zerr *err) {
  json_t *hello = json_pack("{s:s, s:i}", "type", "hello", "version", ZDMN_PROTO_VERSION);
  int rc = zdmn_write_ctrl(fd, hello, err);
  json_decref(hello);
  json_t *reply = rc < 0 ? NULL : zdmn_read_ctrl(fd, ZDMN_CLIENT_HANDSHAKE_MS, err);
  if (reply && strcmp(zjson_str(reply, "type"), "hello_ok") != 0) {
    zerr_set(err, ZE_INVALID, "the daemon refused the handshake: %s",
             zjson_str_or(reply, "message", zjson_str(reply, "type")));
    rc = -1;
  } else if (reply && zjson_int_or(reply, "version", 0) != ZDMN_PROTO_VERSION) {
    zerr_set(err, ZE_INVALID, "the daemon speaks protocol version %lld, this zero %d",
             (long long)zjson_int_or(reply, "version", 0), ZDMN_PROTO_VERSION);
    rc = -1;
  } else if (!reply) {
    rc = -1;
  }
  json_decref(reply);
  if (rc < 0) {
    close(fd);
    return -1;
  }
  return fd;
}

zdmn_stream_end zdmn_client_stream(int fd, void (*on_line)(void *ud, const char *line, size_t len),
                                   void *ud, int *exit_code, zbuf *message, zerr *err) {
  *exit_code = -1;
  for (;;) {
    json_t *m = zdmn_read_ctrl(fd, -1, err);
    if (!m) return ZDMN_STREAM_BROKEN;
    const char *type = zjson_str(m, "type");
    zdmn_stream_end end = ZDMN_STREAM_BROKEN;
    bool over = true;
    if (!strcmp(type, "data")) {
      json_t *line = json_object_get(m, "line");
      if (json_is_string(line)) on_line(ud, json_string_value(line), json_string_length(line));
      over = false;
    } else if (!strcmp(type, "ack")) {
      over = false;
    } else if (!strcmp(type, "end") || !strcmp(type, "error")) {
      end = !strcmp(type, "end") ? ZDMN_STREAM_DONE : ZDMN_STREAM_FAILED;
      *exit_code = (int)zjson_int_or(m, "exitCode", -1);
      zbuf_addstr(message, zjson_str_or(m, "message", ""));
    } else {
      zerr_set(err, ZE_INVALID, "unexpected message \"%s\" from the daemon", type);
    }
    json_decref(m);
    if (over) return end;
  }
}
