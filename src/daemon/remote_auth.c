/* remote_auth.c — what both ends of the remote bridge share: the token, the
 * address, the token frame; see remote.h and remote_auth.h. */
#include "daemon/remote_auth.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/common.h"
#include "base/fs.h"
#include "base/hash.h"
#include "base/num.h"
#include "base/time.h"
#include "daemon/frame.h"

#define TOKEN_FILE_MAX 4096

/* s without surrounding white space, as a new string. */
static char *trimmed(const char *s, size_t n) {
  while (n > 0 && isspace((unsigned char)*s)) s++, n--;
  while (n > 0 && isspace((unsigned char)s[n - 1])) n--;
  return xstrndup(s, n);
}

char *zdmn_remote_token_from_env(zerr *err) {
  const char *inline_tok = getenv(ZDMN_REMOTE_TOKEN_ENV);
  const char *file = getenv(ZDMN_REMOTE_TOKEN_FILE_ENV);
  char *tok = NULL;
  if (inline_tok && *inline_tok) {
    tok = trimmed(inline_tok, strlen(inline_tok));
  } else if (file && *file) {
    zbuf b = ZBUF_INIT;
    if (zfs_read_file(file, &b, TOKEN_FILE_MAX, err) < 0) {
      zerr_prefix(err, "%s", ZDMN_REMOTE_TOKEN_FILE_ENV);
      zbuf_release(&b);
      return NULL;
    }
    tok = trimmed(b.data, b.len);
    zbuf_release(&b);
  }
  /* Nothing this process starts may inherit the token or its file's name. */
  unsetenv(ZDMN_REMOTE_TOKEN_ENV);
  unsetenv(ZDMN_REMOTE_TOKEN_FILE_ENV);
  if (tok && *tok) return tok;
  free(tok);
  zerr_set(err, ZE_CONFIG, "no token: set %s, or %s to a file holding it (an empty one is refused)",
           ZDMN_REMOTE_TOKEN_ENV, ZDMN_REMOTE_TOKEN_FILE_ENV);
  return NULL;
}

int zdmn_remote_split_addr(const char *addr, char **host, char **port, zerr *err) {
  const char *colon = strrchr(addr, ':');
  const char *h = addr;
  size_t hn = colon ? (size_t)(colon - addr) : 0;
  if (colon && *h == '[') {
    if (hn < 2 || h[hn - 1] != ']') colon = NULL;
    h++, hn -= 2;
  } else if (colon && memchr(h, ':', hn)) {
    colon = NULL; /* a bare IPv6 address needs brackets */
  }
  const char *pp = colon ? colon + 1 : "";
  long pn = 0;
  if (!colon || strspn(pp, "0123456789") != strlen(pp) || !znum_long(&pp, 1, 65535, &pn) || *pp)
    return zerr_set(err, ZE_USAGE, "bad address \"%s\": expected HOST:PORT (IPv6: [ADDR]:PORT)",
                    addr);
  *host = xstrndup(h, hn);
  *port = xstrdup(colon + 1);
  return 0;
}

bool zdmn_remote_token_equal(const char *a, const char *b) {
  unsigned char da[ZSHA256_LEN], db[ZSHA256_LEN];
  if (zsha256(a, strlen(a), da, NULL) < 0 || zsha256(b, strlen(b), db, NULL) < 0) return false;
  /* Every byte is looked at whatever differs: the time says nothing. */
  volatile unsigned char diff = 0;
  for (size_t i = 0; i < ZSHA256_LEN; i++) diff |= (unsigned char)(da[i] ^ db[i]);
  return diff == 0;
}

int zdmn_remote_send(ztls_conn *t, const json_t *msg, int64_t deadline, zerr *err) {
  zbuf out = ZBUF_INIT;
  int rc = zdmn_frame_encode_ctrl(&out, msg, err);
  if (rc == 0) rc = ztls_write_all(t, out.data, out.len, deadline, err);
  zbuf_release(&out);
  return rc;
}

json_t *zdmn_remote_recv(ztls_conn *t, int64_t deadline, zerr *err) {
  unsigned char h[ZDMN_FRAME_HEADER];
  if (ztls_read_exact(t, h, sizeof h, deadline, err) < 0) return NULL;
  uint32_t n = (uint32_t)h[0] << 24 | (uint32_t)h[1] << 16 | (uint32_t)h[2] << 8 | h[3];
  if (h[4] != ZDMN_KIND_CTRL) {
    zerr_set(err, ZE_INVALID, "expected a control frame, got kind %u", h[4]);
    return NULL;
  }
  if (n > ZDMN_REMOTE_AUTH_MAX) {
    zerr_set(err, ZE_TOO_LARGE, "a token frame of %u bytes (the cap is %u)", n,
             ZDMN_REMOTE_AUTH_MAX);
    return NULL;
  }
  char *body = xmalloc(n + 1);
  json_t *msg = NULL;
  if (ztls_read_exact(t, body, n, deadline, err) == 0) {
    msg = json_loadb(body, n, JSON_REJECT_DUPLICATES, NULL);
    if (!json_is_object(msg)) {
      json_decref(msg);
      msg = NULL;
      zerr_set(err, ZE_INVALID, "the token frame is not a JSON object");
    }
  } else if (err && err->kind == ZE_NOT_FOUND) {
    zerr_set(err, ZE_INVALID, "truncated frame: the peer closed the connection");
  }
  free(body);
  return msg;
}
