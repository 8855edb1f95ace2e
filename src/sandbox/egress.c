/* egress.c — rules, proxy and environment for network "scoped"; see
 * egress.h. */
#include "sandbox/egress.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/common.h"
#include "base/path.h"
#include "net/egress/inspect.h"

static int fill(zeg_list *l, const zsb_strv *s, zerr *err) {
  for (size_t i = 0; i < s->n; i++)
    if (zeg_list_add(l, s->v[i], err) < 0) return -1;
  return 0;
}

int zsb_egress_rules(const zsb_policy *p, zeg_rules *out, zerr *err) {
  memset(out, 0, sizeof *out);
  out->narrowed = p->project_narrows;
  if (fill(&out->allow, &p->allowed_domains, err) < 0 ||
      fill(&out->deny, &p->denied_domains, err) < 0 ||
      fill(&out->narrow, &p->project_domains, err) < 0) {
    zeg_rules_release(out);
    return -1;
  }
  return 0;
}

/* The proxy's zeg_event_fn (ud: the zsb_egress): a refusal is one line on
 * zero's stderr, which says how to allow the host, and so is an allowed
 * connection that failed (unreachable, an upstream certificate that does
 * not verify); connections that worked are silent there. Then the run's
 * own hook sees every event. */
static void on_proxy_event(void *ud, const zeg_event *e) {
  const zsb_egress *eg = ud;
  if (!e->allowed && !strcmp(e->proto, "https")) {
    /* a request inside an allowed tunnel: no list would allow it */
    fprintf(stderr, "[zero] egress proxy refused a request to %s:%d: %s\n", e->host, e->port,
            e->reason);
  } else if (!e->allowed && !strcmp(e->kind, "network_decision")) {
    char text[1024];
    zeg_denial_text(e->host[0] ? e->host : "?", e->port, e->reason, text, sizeof text);
    fprintf(stderr, "[zero] %s", text);
  } else if (e->allowed && e->reason[0]) {
    fprintf(stderr, "[zero] egress proxy: %s:%d: %s\n", e->host, e->port, e->reason);
  }
  if (eg->hooks.on_event) eg->hooks.on_event(eg->hooks.ud, e);
}

/* <runtime base>/.egress, made 0700 when missing; NULL with err when it is
 * not a directory of ours. Caller frees. */
static char *socket_dir(const zsb_policy *p, zerr *err) {
  const char *slash = strrchr(p->runtime_dir, '/');
  if (!slash || slash == p->runtime_dir) {
    zerr_set(err, ZE_INTERNAL, "runtime dir %s has no parent", p->runtime_dir);
    return NULL;
  }
  cleanup_free char *base = xstrndup(p->runtime_dir, (size_t)(slash - p->runtime_dir));
  char *dir = zpath_join(base, ".egress");
  struct stat st;
  if (mkdir(dir, 0700) < 0 && errno != EEXIST) {
    zerr_errno(err, ZE_IO, "cannot create %s for the egress proxy (is the directory writable?)",
               dir);
    free(dir);
    return NULL;
  }
  if (lstat(dir, &st) < 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid() ||
      (st.st_mode & 077)) {
    zerr_set(err, ZE_IO, "%s is not a private directory of yours; remove it and retry", dir);
    free(dir);
    return NULL;
  }
  return dir;
}

char *zsb_egress_file(const char *socket_path, const char *suffix) {
  size_t n = strlen(socket_path);
  if (n > 5 && !strcmp(socket_path + n - 5, ".sock")) n -= 5;
  char *out = xmalloc(n + strlen(suffix) + 2);
  snprintf(out, n + strlen(suffix) + 2, "%.*s.%s", (int)n, socket_path, suffix);
  return out;
}

static const char *const ca_suffixes[] = {"ca.pem", "bundle.pem", "key.pem", NULL};

static void remove_ca_files(const char *socket_path) {
  for (const char *const *s = ca_suffixes; *s; s++) {
    cleanup_free char *f = zsb_egress_file(socket_path, *s);
    unlink(f);
  }
}

/* The CAs a sandboxed command trusted without inspection, copied into its
 * bundle: network.caBundle, else SSL_CERT_FILE, else OpenSSL's default
 * file. OpenSSL is loaded. */
static const char *system_bundle(const zsb_policy *p) {
  if (p->ca_bundle) return p->ca_bundle;
  const char *env = getenv(zossl.X509_get_default_cert_file_env());
  return env && *env ? env : zossl.X509_get_default_cert_file();
}

/* sandbox.inspectTLS: the run's CA, its files beside the socket, and the
 * inspector the proxy uses. -1 with err (nothing left behind). */
static int start_inspection(zsb_egress *eg, const zsb_policy *p, const char *socket_path,
                            zerr *err) {
  zeg_ca *ca = zeg_ca_new(err);
  if (!ca) return -1;
  cleanup_free char *cert = zsb_egress_file(socket_path, "ca.pem");
  cleanup_free char *bundle = zsb_egress_file(socket_path, "bundle.pem");
  cleanup_free char *key = zsb_egress_file(socket_path, "key.pem");
  zeg_ca_files f = {.cert = cert, .bundle = bundle, .key = key, .system_bundle = system_bundle(p)};
  if (zeg_ca_write_files(ca, &f, err) < 0) {
    zeg_ca_free(ca);
    remove_ca_files(socket_path);
    return -1;
  }
  eg->inspect = zeg_inspector_new(ca, p->ca_bundle, err);
  if (!eg->inspect) {
    remove_ca_files(socket_path);
    return -1;
  }
  return 0;
}

int zsb_egress_start(zsb_egress *eg, const zsb_policy *p, const zsb_egress_hooks *hooks,
                     zerr *err) {
  zsb_egress_hooks none = {0};
  if (!hooks) hooks = &none;
  if (eg->proxy) return 0;
  zeg_rules rules;
  if (zsb_egress_rules(p, &rules, err) < 0) return -1;
  cleanup_free char *dir = socket_dir(p, err);
  if (!dir) {
    zeg_rules_release(&rules);
    return -1;
  }
  static unsigned counter; /* several proxies of one process (tests) get distinct sockets */
  char name[64];
  snprintf(name, sizeof name, "%ld-%u.sock", (long)getpid(), __atomic_add_fetch(&counter, 1,
                                                                                 __ATOMIC_RELAXED));
  char *path = zpath_join(dir, name);
  const char *hosts = getenv("ZERO_EGRESS_HOSTS");
  eg->hooks = *hooks;
  zeg_proxy_opts o = {.rules = &rules,
                      .socket_path = path,
                      .hosts_file = hosts,
                      .on_event = on_proxy_event,
                      .ud = eg,
                      .ask = hooks->ask,
                      .ask_ud = hooks->ask_ud};
  if (p->inspect_tls && start_inspection(eg, p, path, err) < 0) {
    zeg_rules_release(&rules);
    free(path);
    return -1;
  }
  o.inspect = eg->inspect;
  eg->proxy = zeg_proxy_start(&o, err);
  zeg_rules_release(&rules);
  if (!eg->proxy) {
    remove_ca_files(path);
    zeg_inspector_free(eg->inspect);
    eg->inspect = NULL;
    free(path);
    zerr_prefix(err, "network \"scoped\" needs zero's egress proxy, which cannot start; the "
                     "command was not run");
    return -1;
  }
  eg->socket_path = path;
  return 0;
}

void zsb_egress_stop(zsb_egress *eg) {
  zeg_proxy_stop(eg->proxy);
  if (eg->inspect && eg->socket_path) remove_ca_files(eg->socket_path);
  zeg_inspector_free(eg->inspect);
  free(eg->socket_path);
  memset(eg, 0, sizeof *eg);
}

int zsb_egress_guard_init(zsb_egress_guard *g, const zsb_policy *p, zeg_ask_fn ask, void *ask_ud,
                          zerr *err) {
  memset(g, 0, sizeof *g);
  g->ask = ask;
  g->ask_ud = ask_ud;
  return zsb_egress_rules(p, &g->rules, err);
}

void zsb_egress_guard_release(zsb_egress_guard *g) { zeg_rules_release(&g->rules); }

bool zsb_egress_host_refused(void *ud, const char *host, int port, char *why, size_t cap) {
  zsb_egress_guard *g = ud;
  char h[ZEG_HOST_MAX], reason[512] = "";
  if (!zeg_host_normalize(host, h, sizeof h)) {
    snprintf(why, cap, "%s is not a host name the sandbox's egress lists can judge", host);
    return true;
  }
  zeg_verdict v = zeg_rules_decide(&g->rules, h, port, reason, sizeof reason);
  if (v == ZEG_UNKNOWN && g->ask && g->ask(g->ask_ud, h, port)) v = ZEG_ALLOW;
  if (v == ZEG_ALLOW) return false;
  zeg_denial_text(h, port, reason[0] ? reason : "refused", why, cap);
  return true;
}

static const char *const proxy_names[] = {"HTTP_PROXY", "http_proxy", "HTTPS_PROXY",
                                          "https_proxy", "ALL_PROXY", "all_proxy",
                                          "NO_PROXY", "no_proxy", NULL};

/* The variables that name the CA bundle for the tools that read one. */
static const char *const ca_names[] = {
    "SSL_CERT_FILE", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE",      "GIT_SSL_CAINFO",
    "PIP_CERT",      "CARGO_HTTP_CAINFO",  "NODE_EXTRA_CA_CERTS", NULL};

static bool named(const char *kv, const char *const *names) {
  size_t n = strcspn(kv, "=");
  for (const char *const *p = names; *p; p++)
    if (strlen(*p) == n && !strncmp(kv, *p, n)) return true;
  return false;
}

bool zsb_egress_env_name(const char *kv, bool inspect) {
  return named(kv, proxy_names) || (inspect && named(kv, ca_names));
}

void zsb_egress_env(strvec *e, const char *socket_path, bool inspect) {
  char http[64], socks[64];
  snprintf(http, sizeof http, "http://127.0.0.1:%d", ZEG_SANDBOX_PORT);
  snprintf(socks, sizeof socks, "socks5h://127.0.0.1:%d", ZEG_SANDBOX_PORT);
  for (const char *const *p = proxy_names; *p; p++) {
    const char *v = strstr(*p, "NO_") || strstr(*p, "no_") ? "localhost,127.0.0.1,::1"
                    : strstr(*p, "ALL") || strstr(*p, "all") ? socks
                                                             : http;
    strvec_pushf(e, "%s=%s", *p, v);
  }
  if (!inspect) return;
  cleanup_free char *bundle = zsb_egress_file(socket_path, "bundle.pem");
  cleanup_free char *cert = zsb_egress_file(socket_path, "ca.pem");
  for (const char *const *p = ca_names; *p; p++)
    strvec_pushf(e, "%s=%s", *p, strcmp(*p, "NODE_EXTRA_CA_CERTS") ? bundle : cert);
}
