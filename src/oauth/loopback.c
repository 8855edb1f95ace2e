/* loopback.c — the authorization code flow with PKCE and its one-shot
 * loopback redirect listener (RFC 8252 §7.3); see oauth.h. Shared by MCP
 * logins (oauth.c) and provider logins (provider.c). */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "base/cancel.h"
#include "base/common.h"
#include "base/fs.h"
#include "base/time.h"
#include "oauth/http.h"
#include "oauth/oauth.h"

/* Decodes %XX and '+' in place. */
static void urldecode(char *s) {
  char *w = s;
  for (char *r = s; *r; r++) {
    if (*r == '+') {
      *w++ = ' ';
    } else if (*r == '%' && r[1] && r[2]) {
      char hex[3] = {r[1], r[2], 0};
      char *end;
      long v = strtol(hex, &end, 16);
      if (*end || v == 0) {
        *w++ = *r;
        continue;
      }
      *w++ = (char)v;
      r += 2;
    } else {
      *w++ = *r;
    }
  }
  *w = '\0';
}

int zoauth_loopback_listen(int *port, zerr *err) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return zerr_errno(err, ZE_IO, "cannot create the OAuth callback socket");
  struct sockaddr_in a = {.sin_family = AF_INET,
                          .sin_port = 0,
                          .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  socklen_t al = sizeof a;
  if (bind(fd, (struct sockaddr *)&a, sizeof a) < 0 || listen(fd, 8) < 0 ||
      getsockname(fd, (struct sockaddr *)&a, &al) < 0) {
    zerr_errno(err, ZE_IO, "cannot listen on 127.0.0.1 for the OAuth callback");
    close(fd);
    return -1;
  }
  *port = ntohs(a.sin_port);
  return fd;
}

static void respond(int fd, int status, const char *title, const char *text) {
  zbuf page = ZBUF_INIT, r = ZBUF_INIT;
  zbuf_addf(&page,
            "<!doctype html><meta charset=utf-8><title>zero</title>"
            "<h1>%s</h1><p>%s</p>\n",
            title, text);
  zbuf_addf(&r,
            "HTTP/1.1 %d %s\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: %zu\r\n"
            "Cache-Control: no-store\r\nConnection: close\r\n\r\n%s",
            status,
            status == 200   ? "OK"
            : status == 404 ? "Not Found"
                            : "Bad Request",
            page.len, page.data);
  if (zfs_write_all(fd, r.data, r.len) < 0) {
    /* the browser closed the connection: the login goes on without its page */
  }
  zbuf_release(&page);
  zbuf_release(&r);
}

/* The value of key in a query string (decoded), or NULL. Caller frees. */
static char *query_param(const char *query, const char *key) {
  size_t kl = strlen(key);
  for (const char *p = query; p && *p;) {
    const char *e = p + strcspn(p, "&");
    if ((size_t)(e - p) > kl && !strncmp(p, key, kl) && p[kl] == '=') {
      char *v = xstrndup(p + kl + 1, (size_t)(e - p - kl - 1));
      urldecode(v);
      return v;
    }
    p = *e ? e + 1 : e;
  }
  return NULL;
}

/* Reads one request head from a connection (bounded). */
static char *read_request(int fd, int64_t deadline) {
  zbuf b = ZBUF_INIT;
  char buf[1024];
  while (b.len < 16384) {
    int64_t left = deadline - ztime_mono_ms();
    if (left <= 0) break;
    struct pollfd p = {fd, POLLIN, 0};
    if (poll(&p, 1, left > 5000 ? 5000 : (int)left) <= 0) break;
    ssize_t n = read(fd, buf, sizeof buf);
    if (n <= 0) break;
    zbuf_add(&b, buf, (size_t)n);
    if (strstr(b.data, "\r\n\r\n") || strstr(b.data, "\n\n")) return zbuf_detach(&b, NULL);
  }
  zbuf_release(&b);
  return NULL;
}

/* Answers one connection to the listener: 0 when it was not the redirect
 * (a stray request, answered and ignored), 1 with *code when it carried
 * the code, -1 with err when it carried a refusal or a wrong state. */
static int serve_callback(int c, const char *state, char **code, zerr *err) {
  cleanup_free char *req = read_request(c, ztime_mono_ms() + 10000);
  if (!req) return 0;
  /* "GET /callback?code=…&state=… HTTP/1.1" */
  if (strncmp(req, "GET ", 4) != 0) {
    respond(c, 400, "Bad request", "zero expected the authorization redirect here.");
    return 0;
  }
  char *target = req + 4;
  target[strcspn(target, " \r\n")] = '\0';
  char *query = strchr(target, '?');
  if (query) *query++ = '\0';
  if (strcmp(target, "/callback") != 0) {
    respond(c, 404, "Not found", "This is zero's OAuth callback; nothing else lives here.");
    return 0;
  }
  cleanup_free char *got_state = query_param(query, "state");
  cleanup_free char *error = query_param(query, "error");
  cleanup_free char *desc = query_param(query, "error_description");
  cleanup_free char *got_code = query_param(query, "code");
  if (!got_state || strcmp(got_state, state) != 0) {
    respond(c, 400, "Authorization refused",
            "The state parameter does not match this login; zero ignored the answer. Log "
            "in again.");
    return zerr_set(err, ZE_PROVIDER,
                    "the authorization redirect carried a %s state; the login was refused "
                    "(possible cross-site request forgery); log in again",
                    got_state ? "wrong" : "missing");
  }
  if (error) {
    respond(c, 400, "Authorization failed",
            "The authorization server refused; see zero's "
            "terminal.");
    return zerr_set(err, ZE_PROVIDER, "the authorization server refused: %.100s%s%.300s", error,
                    desc ? ": " : "", desc ? desc : "");
  }
  if (!got_code || !got_code[0]) {
    respond(c, 400, "Authorization failed", "The redirect carried no code.");
    return zerr_set(err, ZE_PROVIDER, "the authorization redirect carried no code");
  }
  respond(c, 200, "zero is authorized", "You can close this tab and return to the terminal.");
  *code = steal_pointer(&got_code);
  return 1;
}

int zoauth_loopback_await(int lfd, const char *state, int timeout_ms, char **code, zerr *err) {
  int64_t deadline = ztime_mono_ms() + timeout_ms;
  for (;;) {
    int64_t left = deadline - ztime_mono_ms();
    if (left <= 0)
      return zerr_set(err, ZE_TIMEOUT,
                      "no authorization arrived within %d s; log in again and open the URL "
                      "zero prints",
                      timeout_ms / 1000);
    struct pollfd p[2] = {{lfd, POLLIN, 0}, {zcancel_fd(), POLLIN, 0}};
    int np = zcancel_fd() >= 0 ? 2 : 1;
    if (zcancel_requested()) return zerr_set(err, ZE_CANCELLED, "login cancelled");
    if (poll(p, (nfds_t)np, left > 1000 ? 1000 : (int)left) <= 0) continue;
    if (zcancel_requested()) return zerr_set(err, ZE_CANCELLED, "login cancelled");
    if (!(p[0].revents & POLLIN)) continue;
    cleanup_fd int c = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
    if (c < 0) continue;
    int rc = serve_callback(c, state, code, err);
    if (rc != 0) return rc < 0 ? -1 : 0;
  }
}

int zoauth_code_flow(const zoauth_code_req *r, int lfd, const zoauth_login_opts *o,
                     zoauth_tokens *t, zerr *err) {
  char challenge[ZOAUTH_CHALLENGE_LEN + 1];
  cleanup_free char *verifier = zoauth_random_string(48); /* 64 characters (RFC 7636 §4.1) */
  cleanup_free char *state = zoauth_random_string(24);
  cleanup_free char *code = NULL;
  if (zoauth_pkce_challenge(verifier, challenge, err) < 0) return -1;
  zbuf url = ZBUF_INIT;
  zbuf_addstr(&url, r->authorization_endpoint);
  zbuf_addch(&url, strchr(r->authorization_endpoint, '?') ? '&' : '?');
  zbuf q = ZBUF_INIT;
  zoauth_form_add(&q, "response_type", "code");
  zoauth_form_add(&q, "client_id", r->client_id);
  zoauth_form_add(&q, "redirect_uri", r->redirect_uri);
  zoauth_form_add(&q, "code_challenge", challenge);
  zoauth_form_add(&q, "code_challenge_method", "S256");
  zoauth_form_add(&q, "state", state);
  zoauth_form_add(&q, "scope", r->scope);
  zoauth_form_add(&q, "resource", r->resource);
  zbuf_add(&url, q.data, q.len);
  zbuf_release(&q);
  o->show_url(o->ud, url.data);
  zbuf_release(&url);
  if (zoauth_loopback_await(lfd, state, o->timeout_ms > 0 ? o->timeout_ms : ZOAUTH_LOGIN_TIMEOUT_MS,
                            &code, err) < 0)
    return -1;
  zbuf form = ZBUF_INIT;
  zoauth_form_add(&form, "grant_type", "authorization_code");
  zoauth_form_add(&form, "code", code);
  zoauth_form_add(&form, "redirect_uri", r->redirect_uri);
  zoauth_form_add(&form, "client_id", r->client_id);
  zoauth_form_add(&form, "code_verifier", verifier);
  zoauth_form_add(&form, "resource", r->resource);
  int rc = zoauth_token_request(r->token_endpoint, form.data, r->client_id, r->client_secret,
                                r->auth_method, t, NULL, err);
  zbuf_release(&form);
  return rc;
}
