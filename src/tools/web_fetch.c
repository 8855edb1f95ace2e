/* web_fetch.c — fetches a public URL and returns it as readable text.
 *
 * Only public addresses: before each request (the first and every redirect,
 * at most WEB_MAX_REDIRECTS) the host is resolved and every address must be
 * public (webutil.h); the request is then pinned to the checked address
 * (CURLOPT_RESOLVE) and the socket callback checks the address really
 * connected to, so DNS rebinding cannot slip a private address in. Through a
 * proxy (HTTPS_PROXY / HTTP_PROXY / ALL_PROXY, honoured by libcurl) the proxy
 * resolves the name; the pre-check still refuses names that resolve to a
 * private address here. Under network "scoped" each of those hosts is
 * first decided by the sandbox's egress lists (ztool_ctx.host_guard), before
 * it is resolved.
 */
#include <arpa/inet.h>
#include <curl/curl.h>
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base/cancel.h"
#include "base/common.h"
#include "base/json.h"
#include "net/curl_loader.h"
#include "net/http.h"
#include "tools/tools_internal.h"
#include "tools/webutil.h"

#define WEB_DEFAULT_MAX (256u << 10)
#define WEB_MAX_MAX (2u << 20)
#define WEB_MAX_REDIRECTS 5
#define WEB_TIMEOUT_MS 30000

static const char web_fetch_schema[] =
    "{\"type\":\"object\",\"properties\":{"
    "\"url\":{\"type\":\"string\",\"minLength\":1,\"description\":\"http:// or https:// URL of "
    "a public page.\"},"
    "\"max_bytes\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":2097152,\"description\":"
    "\"Most bytes of the response body to read (default 262144).\"},"
    "\"format\":{\"type\":\"string\",\"enum\":[\"auto\",\"raw\",\"markdown\"],\"description\":"
    "\"auto (default): HTML becomes markdown, other text is returned as is; raw: the body as "
    "is; markdown: convert as HTML.\"}"
    "},\"required\":[\"url\"],\"additionalProperties\":false}";

static bool allow_loopback(void) {
  /* For the test suite's local server only; documented in docs/tools.md. */
  const char *v = getenv("ZERO_WEB_FETCH_ALLOW_LOOPBACK");
  return v && !strcmp(v, "1");
}

typedef struct fetch {
  zbuf body;
  size_t max;
  bool cut;
  bool refused;
  bool proxied;    /* the socket goes to a proxy, whose address may be private */
  char why[256];
} fetch;

static size_t on_body(char *p, size_t size, size_t n, void *ud) {
  fetch *f = ud;
  size_t len = size * n;
  if (f->body.len + len > f->max) {
    zbuf_add(&f->body, p, f->max - f->body.len);
    f->cut = true;
    return 0; /* stop the transfer: we have what we may keep */
  }
  zbuf_add(&f->body, p, len);
  return len;
}

static curl_socket_t on_open(void *ud, curlsocktype purpose, struct curl_sockaddr *addr) {
  fetch *f = ud;
  (void)purpose;
  const char *why = zweb_address_refusal(&addr->addr, allow_loopback());
  if (why && !f->proxied) {
    f->refused = true;
    snprintf(f->why, sizeof f->why, "%s", why);
    return CURL_SOCKET_BAD;
  }
  return socket(addr->family, addr->socktype | SOCK_CLOEXEC, addr->protocol);
}

/* true when NO_PROXY (or no_proxy) names host: "*", or host itself or a
 * domain it is in ("example.com" and ".example.com" both cover
 * "www.example.com"), as curl reads it; then curl connects directly. */
static bool no_proxy_for(const char *host) {
  const char *v = getenv("NO_PROXY");
  if (!v || !v[0]) v = getenv("no_proxy");
  if (!v) return false;
  size_t hl = strlen(host);
  while (*v) {
    while (*v == ',' || *v == ' ') v++;
    const char *e = v;
    while (*e && *e != ',' && *e != ' ') e++;
    size_t n = (size_t)(e - v);
    const char *d = v;
    if (n && d[0] == '.') d++, n--;
    if (n == 1 && d[0] == '*') return true;
    if (n && n <= hl && strncasecmp(host + hl - n, d, n) == 0 &&
        (n == hl || host[hl - n - 1] == '.'))
      return true;
    v = e;
  }
  return false;
}

/* The proxy for scheme from the environment, or NULL. The request uses
 * exactly this one (CURLOPT_PROXY), so the address checks and the
 * connection agree: libcurl by itself ignores HTTP_PROXY in upper case,
 * which would have connected directly while zero believed a proxy did. */
static const char *proxy_for(const char *scheme) {
  const char *names[] = {!strcmp(scheme, "https") ? "https_proxy" : "http_proxy",
                         !strcmp(scheme, "https") ? "HTTPS_PROXY" : "HTTP_PROXY", "all_proxy",
                         "ALL_PROXY"};
  for (size_t i = 0; i < ZARRAY_LEN(names); i++) {
    const char *v = getenv(names[i]);
    if (v && v[0]) return v;
  }
  return NULL;
}

/* Resolves bare (the URL's host without brackets) and checks that every
 * address is public; *resolve gets the pin for CURLOPT_RESOLVE unless
 * proxied or an address literal. Behind a proxy a name only it can resolve
 * passes. -1 with the refusal in err. */
static int resolve_public(const char *url, const char *bare, const char *port, bool proxied,
                          char **resolve, zbuf *err) {
  struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM};
  struct addrinfo *ai = NULL;
  int gai = getaddrinfo(bare, port, &hints, &ai);
  if (gai != 0 && proxied) {
    /* Behind a proxy the proxy resolves names; where only it can (no DNS
     * here), there is nothing to check: the proxy is the boundary then. An
     * address literal always resolves, so it was checked. */
    return 0;
  }
  if (gai != 0) {
    zbuf_addf(err, "cannot resolve %s: %s", bare, gai_strerror(gai));
    return -1;
  }
  char first[INET6_ADDRSTRLEN] = "";
  for (struct addrinfo *a = ai; a; a = a->ai_next) {
    const char *why = zweb_address_refusal(a->ai_addr, allow_loopback());
    char txt[INET6_ADDRSTRLEN] = "";
    getnameinfo(a->ai_addr, a->ai_addrlen, txt, sizeof txt, NULL, 0, NI_NUMERICHOST);
    if (why) {
      zbuf_addf(err,
                "refusing to fetch %s: %s resolves to %s, a %s address. web_fetch only "
                "reaches public internet addresses",
                url, bare, txt, why);
      freeaddrinfo(ai);
      return -1;
    }
    if (!first[0]) snprintf(first, sizeof first, "%s", txt);
  }
  freeaddrinfo(ai);
  unsigned char ipbuf[16];
  bool literal = inet_pton(AF_INET, bare, ipbuf) == 1 || inet_pton(AF_INET6, bare, ipbuf) == 1;
  if (!proxied && !literal) { /* an address literal needs no pinning */
    zbuf r = ZBUF_INIT;
    if (strchr(first, ':')) zbuf_addf(&r, "%s:%s:[%s]", bare, port, first);
    else zbuf_addf(&r, "%s:%s:%s", bare, port, first);
    *resolve = zbuf_detach(&r, NULL);
  }
  return 0;
}

/* Parses url and checks its host; on success *resolve gets "host:port:addr"
 * for CURLOPT_RESOLVE (NULL behind a proxy). Error text in err. */
static int check_url(const ztool_host_guard *guard, const char *url, char **resolve, bool *proxied,
                     char **proxy_out, zbuf *err) {
  *resolve = NULL;
  *proxy_out = NULL;
  CURLU *u = curl_url();
  if (!u) {
    zbuf_addstr(err, "cannot load libcurl; install libcurl4");
    return -1;
  }
  char *scheme = NULL, *host = NULL, *port = NULL;
  int rc = -1;
  /* The scheme first: file:///etc/passwd has no host, and "no host" would
   * hide the real reason. */
  if (curl_url_set(u, CURLUPART_URL, url, 0) != CURLUE_OK ||
      curl_url_get(u, CURLUPART_SCHEME, &scheme, 0) != CURLUE_OK) {
    zbuf_addf(err, "%s is not a valid URL; give a full http:// or https:// URL", url);
    goto out;
  }
  if (strcasecmp(scheme, "http") && strcasecmp(scheme, "https")) {
    zbuf_addf(err, "only http and https URLs can be fetched, not %s:", scheme);
    goto out;
  }
  if (curl_url_get(u, CURLUPART_HOST, &host, 0) != CURLUE_OK) {
    zbuf_addf(err, "%s has no host name; give a full http:// or https:// URL", url);
    goto out;
  }
  curl_url_get(u, CURLUPART_PORT, &port, CURLU_DEFAULT_PORT);
  /* [::1] comes back with its brackets. */
  char bare[256];
  size_t hl = strlen(host);
  if (hl >= 2 && host[0] == '[' && host[hl - 1] == ']') snprintf(bare, sizeof bare, "%.*s", (int)(hl - 2), host + 1);
  else snprintf(bare, sizeof bare, "%s", host);
  char blocked[1024];
  int portn = port ? (int)strtol(port, NULL, 10) : 0; /* libcurl gave digits */
  if (guard->refused && guard->refused(guard->ud, bare, portn, blocked, sizeof blocked)) {
    /* before any lookup: a denied host is not even resolved */
    zbuf_addf(err, "refusing to fetch %s: %s", url, blocked);
    goto out;
  }
  *proxied = proxy_for(scheme) && !no_proxy_for(bare);
  if (*proxied) *proxy_out = xstrdup(proxy_for(scheme));
  if (resolve_public(url, bare, port, *proxied, resolve, err) < 0) goto out;
  rc = 0;
out:
  if (rc < 0) {
    free(*proxy_out);
    *proxy_out = NULL;
  }
  curl_free(scheme);
  curl_free(host);
  curl_free(port);
  curl_url_cleanup(u);
  return rc;
}

/* One request (no redirects followed). Returns the HTTP status or -1. */
static long request(const char *url, const char *resolve, const char *proxy, fetch *f,
                    char **location, char **ctype, zbuf *err) {
  CURL *h = curl_easy_init();
  CURLM *m = curl_multi_init();
  if (!h || !m) {
    zerr e = ZERR_INIT;
    zcurl_load(&e);
    zbuf_addf(err, "cannot use libcurl: %s", e.msg[0] ? e.msg : "initialisation failed");
    if (h) curl_easy_cleanup(h);
    if (m) curl_multi_cleanup(m);
    return -1;
  }
  struct curl_slist *res = resolve ? curl_slist_append(NULL, resolve) : NULL;
  curl_easy_setopt(h, CURLOPT_URL, url);
  curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L);
  curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
  curl_easy_setopt(h, CURLOPT_WRITEDATA, f);
  curl_easy_setopt(h, CURLOPT_OPENSOCKETFUNCTION, on_open);
  curl_easy_setopt(h, CURLOPT_OPENSOCKETDATA, f);
  curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, (long)WEB_TIMEOUT_MS);
  curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, 10000L);
  curl_easy_setopt(h, CURLOPT_ACCEPT_ENCODING, "");
  curl_easy_setopt(h, CURLOPT_USERAGENT, "zero/" ZERO_VERSION " (web_fetch)");
  curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
  /* the same CA certificates as zero's other requests (net/http.h) */
  if (zhttp_ca_file()) curl_easy_setopt(h, CURLOPT_CAINFO, zhttp_ca_file());
  if (zhttp_ca_dir()) curl_easy_setopt(h, CURLOPT_CAPATH, zhttp_ca_dir());
  if (res) curl_easy_setopt(h, CURLOPT_RESOLVE, res);
  /* Exactly the proxy check_url decided on; "" = none (curl's own reading
   * of the environment could differ). */
  curl_easy_setopt(h, CURLOPT_PROXY, proxy ? proxy : "");
  curl_multi_add_handle(m, h);
  int running = 1;
  CURLcode code = CURLE_OK;
  bool cancelled = false;
  while (running) {
    curl_multi_perform(m, &running);
    if (!running) break;
    struct curl_waitfd extra = {zcancel_fd(), CURL_WAIT_POLLIN, 0};
    curl_multi_poll(m, zcancel_fd() >= 0 ? &extra : NULL, zcancel_fd() >= 0 ? 1 : 0, 1000, NULL);
    if (zcancel_requested()) {
      cancelled = true;
      break;
    }
  }
  int left;
  CURLMsg *msg;
  while ((msg = curl_multi_info_read(m, &left)))
    if (msg->msg == CURLMSG_DONE) code = msg->data.result;
  long status = -1;
  if (cancelled) {
    zbuf_addstr(err, "cancelled");
  } else if (f->refused) {
    zbuf_addf(err, "refusing to fetch %s: it connects to a %s address. web_fetch only reaches "
                   "public internet addresses", url, f->why);
  } else if (code != CURLE_OK && !(code == CURLE_WRITE_ERROR && f->cut)) {
    zbuf_addf(err, "fetching %s failed: %s", url, curl_easy_strerror(code));
    if (code == CURLE_PEER_FAILED_VERIFICATION || code == CURLE_SSL_CACERT_BADFILE ||
        code == CURLE_SSL_CONNECT_ERROR)
      zbuf_addf(err,
                " (zero trusts the CA certificates of %s; a private CA goes in "
                "network.caBundle of the user config, or SSL_CERT_FILE)",
                zhttp_ca_file() ? zhttp_ca_file() : "the system");
  } else {
    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
    char *loc = NULL, *ct = NULL;
    curl_easy_getinfo(h, CURLINFO_REDIRECT_URL, &loc);
    curl_easy_getinfo(h, CURLINFO_CONTENT_TYPE, &ct);
    *location = loc ? xstrdup(loc) : NULL;
    *ctype = ct ? xstrdup(ct) : NULL;
  }
  curl_multi_remove_handle(m, h);
  curl_easy_cleanup(h);
  curl_multi_cleanup(m);
  curl_slist_free_all(res);
  return status;
}

static bool is_html(const char *ctype, const zbuf *body) {
  if (ctype) return strcasestr(ctype, "html") != NULL;
  return body->len && (strcasestr(body->data, "<html") || strcasestr(body->data, "<!doctype html"));
}

static bool is_text(const char *ctype) {
  if (!ctype) return true;
  return !strncasecmp(ctype, "text/", 5) || strcasestr(ctype, "json") ||
         strcasestr(ctype, "xml") || strcasestr(ctype, "javascript") ||
         strcasestr(ctype, "yaml") || strcasestr(ctype, "markdown");
}

static int run_web_fetch(const ztool_ctx *ctx, const json_t *args, ztool_result *res) {
  const char *url0 = zjson_str(args, "url");
  size_t max = (size_t)zjson_int_or(args, "max_bytes", WEB_DEFAULT_MAX);
  const char *format = zjson_str_or(args, "format", "auto");
  zerr lerr = ZERR_INIT;
  if (zcurl_load(&lerr) < 0) return ztool_fail(res, "web_fetch: %s", lerr.msg);

  cleanup_free char *url = xstrdup(url0);
  fetch f = {ZBUF_INIT, max, false, false, false, ""};
  char *ctype = NULL;
  long status = -1;
  int hops = 0;
  zbuf err = ZBUF_INIT;
  json_t *chain = json_array();
  for (;;) {
    char *resolve = NULL, *location = NULL, *proxy = NULL;
    bool proxied = false;
    if (check_url(&ctx->host_guard, url, &resolve, &proxied, &proxy, &err) < 0) {
      status = -1; /* a refused redirect target fails the whole fetch */
      break;
    }
    f.proxied = proxied;
    zbuf_reset(&f.body);
    f.cut = f.refused = false;
    free(ctype);
    ctype = NULL;
    status = request(url, resolve, proxy, &f, &location, &ctype, &err);
    free(resolve);
    free(proxy);
    json_array_append_new(chain, json_string(url));
    if (status < 0) break;
    if (status >= 300 && status < 400 && location) {
      if (++hops > WEB_MAX_REDIRECTS) {
        zbuf_addf(&err, "too many redirects (more than %d) starting at %s", WEB_MAX_REDIRECTS, url0);
        free(location);
        status = -1;
        break;
      }
      free(url);
      url = location;
      continue;
    }
    free(location);
    break;
  }
  int rc = 0;
  if (status < 0) {
    rc = ztool_fail(res, "web_fetch: %s.", err.data);
  } else if (status >= 400) {
    rc = ztool_fail(res, "web_fetch: %s answered HTTP %ld.", url, status);
    if (f.body.len) {
      zbuf_addstr(&res->output, " The response said:\n");
      zt_utf8_append(&res->output, f.body.data, f.body.len > 2000 ? 2000 : f.body.len);
    }
  } else if (strcmp(format, "raw") && !is_text(ctype) && !is_html(ctype, &f.body)) {
    rc = ztool_fail(res, "web_fetch: %s is %s, not text; web_fetch returns text and HTML only.",
                    url, ctype ? ctype : "binary");
  } else {
    bool html = !strcmp(format, "markdown") || (!strcmp(format, "auto") && is_html(ctype, &f.body));
    zbuf text = ZBUF_INIT;
    if (html) {
      zweb_html_to_markdown(f.body.data, f.body.len, &text);
    } else {
      zt_utf8_append(&text, f.body.data, f.body.len);
    }
    zbuf_addf(&res->output, "URL: %s\nStatus: %ld\nContent-Type: %s\n\n", url, status,
              ctype ? ctype : "unknown");
    zbuf_add(&res->output, text.data, text.len);
    if (f.cut) {
      zbuf_addf(&res->output, "\n\n[truncated: only the first %zu bytes were read; pass a larger "
                              "max_bytes (up to %u) to read more]", max, WEB_MAX_MAX);
      res->truncated = true;
    }
    zbuf_release(&text);
    res->meta = json_object();
    json_object_set_new(res->meta, "url", json_string(url));
    json_object_set_new(res->meta, "status", json_integer(status));
    json_object_set_new(res->meta, "bytes", json_integer((json_int_t)f.body.len));
    json_object_set_new(res->meta, "redirects", json_incref(chain));
  }
  json_decref(chain);
  free(ctype);
  zbuf_release(&err);
  zbuf_release(&f.body);
  return rc;
}

const ztool ztool_def_web_fetch = {
    .name = "web_fetch",
    .description =
        "Fetch a public web page (http/https) and return it as readable text: HTML becomes "
        "markdown, other text is returned as is. Private, loopback, link-local and cloud "
        "metadata addresses are refused. Use it for documentation and references.",
    .parameters_json = web_fetch_schema,
    .side_effect = ZSIDE_NETWORK,
    .read_only = true,
    .run = run_web_fetch,
};
