/* frame.c — the control protocol's codec; see frame.h. */
#include "daemon/frame.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/common.h"
#include "base/fs.h"
#include "base/json.h"
#include "base/time.h"

int zdmn_frame_encode(zbuf *out, uint8_t kind, const void *payload, size_t len, zerr *err) {
  if (len > ZDMN_FRAME_MAX)
    return zerr_set(err, ZE_TOO_LARGE, "control frame of %zu bytes exceeds the %u-byte cap", len,
                    ZDMN_FRAME_MAX);
  uint8_t h[ZDMN_FRAME_HEADER] = {(uint8_t)(len >> 24), (uint8_t)(len >> 16), (uint8_t)(len >> 8),
                                  (uint8_t)len, kind};
  zbuf_add(out, h, sizeof h);
  if (len) zbuf_add(out, payload, len);
  return 0;
}

int zdmn_frame_encode_ctrl(zbuf *out, const json_t *msg, zerr *err) {
  zbuf body = ZBUF_INIT;
  zjson_dump_to(msg, &body);
  int rc = zdmn_frame_encode(out, ZDMN_KIND_CTRL, body.data, body.len, err);
  zbuf_release(&body);
  return rc;
}

int zdmn_frame_parse(const uint8_t *buf, size_t len, uint8_t *kind, const uint8_t **payload,
                     uint32_t *plen, size_t *consumed, zerr *err) {
  if (len < ZDMN_FRAME_HEADER) return 0;
  uint32_t n = (uint32_t)buf[0] << 24 | (uint32_t)buf[1] << 16 | (uint32_t)buf[2] << 8 | buf[3];
  /* The cap is judged on the header alone: the payload is never buffered. */
  if (n > ZDMN_FRAME_MAX)
    return zerr_set(err, ZE_TOO_LARGE, "control frame of %u bytes exceeds the %u-byte cap", n,
                    ZDMN_FRAME_MAX);
  if (len - ZDMN_FRAME_HEADER < n) return 0;
  *kind = buf[4];
  *payload = buf + ZDMN_FRAME_HEADER;
  *plen = n;
  *consumed = ZDMN_FRAME_HEADER + (size_t)n;
  return 1;
}

json_t *zdmn_ctrl_decode(uint8_t kind, const uint8_t *payload, size_t len, zerr *err) {
  if (kind != ZDMN_KIND_CTRL) {
    zerr_set(err, ZE_INVALID, "unexpected frame kind %u (want a control frame)", kind);
    return NULL;
  }
  json_t *msg = json_loadb((const char *)payload, len, JSON_REJECT_DUPLICATES, NULL);
  if (!json_is_object(msg) || !zjson_str(msg, "type")) {
    json_decref(msg);
    zerr_set(err, ZE_INVALID, "control frame is not a JSON object with a string \"type\"");
    return NULL;
  }
  return msg;
}

int zdmn_write_ctrl(int fd, const json_t *msg, zerr *err) {
  zbuf out = ZBUF_INIT;
  int rc = zdmn_frame_encode_ctrl(&out, msg, err);
  if (rc == 0 && zfs_write_all(fd, out.data, out.len) < 0)
    rc = zerr_errno(err, ZE_IO, "cannot write to the daemon");
  zbuf_release(&out);
  return rc;
}

/* Reads exactly n bytes before deadline (-1: none). Returns n, the count
 * read before end-of-file, or -1 (errno; ETIMEDOUT at the deadline). */
static ssize_t read_full(int fd, uint8_t *p, size_t n, int64_t deadline) {
  size_t got = 0;
  while (got < n) {
    if (deadline >= 0) {
      int64_t left = deadline - ztime_mono_ms();
      struct pollfd pfd = {fd, POLLIN, 0};
      int pr = left > 0 ? poll(&pfd, 1, (int)left) : 0;
      if (pr < 0 && errno == EINTR) continue;
      if (pr == 0) {
        errno = ETIMEDOUT;
        return -1;
      }
    }
    ssize_t r = read(fd, p + got, n - got);
    if (r < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (r < 0) return -1;
    if (r == 0) break;
    got += (size_t)r;
  }
  return (ssize_t)got;
}

json_t *zdmn_read_ctrl(int fd, int timeout_ms, zerr *err) {
  int64_t deadline = timeout_ms < 0 ? -1 : ztime_mono_ms() + timeout_ms;
  uint8_t h[ZDMN_FRAME_HEADER];
  ssize_t r = read_full(fd, h, sizeof h, deadline);
  if (r < 0) {
    zerr_errno(err, errno == ETIMEDOUT ? ZE_TIMEOUT : ZE_IO, "cannot read from the daemon");
    return NULL;
  }
  if (r == 0) {
    zerr_set(err, ZE_NOT_FOUND, "the daemon closed the connection");
    return NULL;
  }
  if ((size_t)r < sizeof h) {
    zerr_set(err, ZE_INVALID, "truncated frame: the connection ended inside a frame header");
    return NULL;
  }
  uint32_t n = (uint32_t)h[0] << 24 | (uint32_t)h[1] << 16 | (uint32_t)h[2] << 8 | h[3];
  /* The header alone says whether the frame fits: checked before allocating. */
  if (n > ZDMN_FRAME_MAX) {
    zerr_set(err, ZE_TOO_LARGE, "control frame of %u bytes exceeds the %u-byte cap", n,
             ZDMN_FRAME_MAX);
    return NULL;
  }
  uint8_t *body = xmalloc(n ? n : 1);
  r = read_full(fd, body, n, deadline);
  json_t *msg = NULL;
  if (r < 0)
    zerr_errno(err, errno == ETIMEDOUT ? ZE_TIMEOUT : ZE_IO, "cannot read from the daemon");
  else if ((size_t)r < n)
    zerr_set(err, ZE_INVALID, "truncated frame: %zd of %u payload bytes before the end", r, n);
  else msg = zdmn_ctrl_decode(h[4], body, n, err);
  free(body);
  return msg;
}

int zdmn_negotiate_version(const json_t *hello) {
  json_t *v = json_object_get(hello, "version");
  if (!json_is_integer(v) || json_integer_value(v) <= 0) return 0;
  json_int_t c = json_integer_value(v);
  return c < ZDMN_PROTO_VERSION ? (int)c : ZDMN_PROTO_VERSION;
}
