/* cmd_auth.c — `zero auth`: OAuth logins to model providers (and a view of
 * every stored OAuth login, MCP servers' included).
 *   login [--device] [--scope S] [--timeout SECONDS] NAME
 *   logout NAME | status [--json] [NAME] | refresh [--watch] [--json] NAME
 * NAME is a provider name (oauth/provider.h), or a store key "mcp:<server>"
 * / "provider:<name>" where a command works on the store alone (logout,
 * status, refresh). The flows and the store are src/oauth/'s; see
 * docs/auth.md. Tokens are never printed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/cancel.h"
#include "base/common.h"
#include "base/json.h"
#include "base/opts.h"
#include "base/strvec.h"
#include "cli/cli.h"
#include "cli/commands.h"
#include "oauth/oauth.h"
#include "oauth/provider.h"

static const char AUTH_USAGE[] =
    "Usage: zero auth <command> [args]\n"
    "\n"
    "Commands:\n"
    "  login NAME [--device] [--scope S] [--timeout SECONDS]\n"
    "                          sign in to OAuth provider NAME (browser with a loopback\n"
    "                          redirect, or --device: a code to enter elsewhere)\n"
    "  logout NAME             forget NAME's tokens (NAME or mcp:SERVER)\n"
    "  status [NAME] [--json]  the stored logins: expiry, scopes, refreshable\n"
    "  refresh NAME [--watch] [--json]\n"
    "                          renew NAME's access token now (--watch: keep it fresh\n"
    "                          until interrupted)\n"
    "Providers are defined by ZERO_OAUTH_<NAME>_* variables or auth.providers in the\n"
    "user config; see docs/auth.md.\n";

enum { AU_HELP = 1, AU_JSON, AU_DEVICE, AU_SCOPE, AU_WATCH, AU_TIMEOUT };

static const zopt AUTH_OPTS[] = {
    {AU_DEVICE, "device", 0, ZOPT_FLAG, 0, NULL,
     "login: the device flow (no browser here, e.g. over SSH)", "Flags"},
    {AU_SCOPE, "scope", 0, ZOPT_VALUE, 0, "S", "login: the scopes to ask for", NULL},
    {AU_TIMEOUT, "timeout", 0, ZOPT_VALUE, 0, "SECONDS", "login: how long to wait for the browser",
     NULL},
    {AU_WATCH, "watch", 0, ZOPT_FLAG, 0, NULL, "refresh: keep refreshing before each expiry", NULL},
    {AU_JSON, "json", 0, ZOPT_FLAG, 0, NULL, "status, refresh: print JSON", NULL},
    {AU_HELP, "help", 'h', ZOPT_FLAG, 0, NULL, "show this help", NULL},
};

const zopt_spec zcli_auth_opts = {.command = "auth",
                                  .opts = AUTH_OPTS,
                                  .n_opts = ZARRAY_LEN(AUTH_OPTS),
                                  .unknown = "unknown or incomplete option"};

/* A usage error of zero auth (printf message, then the short usage; exit 2). */
#define fail(...) zcli_usage_errorf("auth", __VA_ARGS__)

/* What a subcommand was given. */
typedef struct auth_args {
  const char *name;
  const char *scope, *timeout;
  bool json, device, watch, helped;
} auth_args;

/* Parses argv allowing the AU_* flags in `allowed` (a bit per id) and at
 * most one NAME; takes says what the subcommand takes, for the error. */
static int parse_args(int argc, char **argv, unsigned allowed, const char *takes, auth_args *a) {
  zopt_parser pp;
  zopt_hit hit;
  zerr err = ZERR_INIT;
  int rc;
  memset(a, 0, sizeof *a);
  zopt_init(&pp, &zcli_auth_opts, argc, argv);
  while ((rc = zopt_next(&pp, &hit, &err)) > 0) {
    if (hit.id == AU_HELP) {
      fputs(AUTH_USAGE, stdout);
      fputc('\n', stdout);
      zopt_print_flags(stdout, &zcli_auth_opts);
      a->helped = true;
      return ZEXIT_SUCCESS;
    }
    if (hit.id == ZOPT_ARG && !a->name) {
      a->name = hit.value;
    } else if (hit.id != ZOPT_ARG && (allowed & (1u << hit.id))) {
      if (hit.id == AU_JSON) a->json = true;
      else if (hit.id == AU_DEVICE) a->device = true;
      else if (hit.id == AU_WATCH) a->watch = true;
      else if (hit.id == AU_SCOPE) a->scope = hit.value;
      else if (hit.id == AU_TIMEOUT) a->timeout = hit.value;
    } else {
      return fail("%s; unexpected \"%s\"", takes, hit.word);
    }
  }
  return rc < 0 ? fail("%s", err.msg) : 0;
}

/* The store key NAME means: itself when it is one ("mcp:x", "provider:x"),
 * else "provider:NAME". Caller frees. */
static char *store_key(const char *name) {
  if (!strncmp(name, "mcp:", 4) || !strncmp(name, "provider:", 9)) return xstrdup(name);
  return zoauth_provider_key(name);
}

/* ---- login ---- */

static void show_url(void *ud, const char *url) {
  (void)ud;
  printf("Open this URL in your browser to authorize zero:\n\n  %s\n\n", url);
  fflush(stdout);
  fputs("Waiting for the authorization (Ctrl-C to stop)…\n", stderr);
}

void zcli_show_device_code(void *ud, const zoauth_device_code *d) {
  (void)ud;
  printf("On any device, open:\n\n  %s\n\nand enter the code:  %s\n\n", d->verification_uri,
         d->user_code);
  if (d->verification_uri_complete)
    printf("(or open %s, which carries the code)\n\n", d->verification_uri_complete);
  fflush(stdout);
  long mins = (long)(d->expires_at - (int64_t)time(NULL) + 59) / 60;
  fprintf(stderr, "Waiting for the approval (the code expires in %ld min; Ctrl-C to stop)…\n",
          mins);
}

static void note(void *ud, const char *msg) {
  (void)ud;
  fprintf(stderr, "%s\n", msg);
}

static int login_cmd(void *ctx, int argc, char **argv) {
  auth_args a;
  unsigned allowed = (1u << AU_DEVICE) | (1u << AU_SCOPE) | (1u << AU_TIMEOUT);
  int rc = parse_args(argc, argv, allowed,
                      "login takes NAME [--device] [--scope S] "
                      "[--timeout SECONDS]",
                      &a);
  if (rc || a.helped) return rc;
  if (!a.name) return fail("login needs a provider NAME");
  if (!strncmp(a.name, "mcp:", 4))
    return fail("MCP servers log in with `zero mcp login %s`", a.name + 4);
  int timeout_s = 0;
  if (a.timeout) {
    char *end;
    long t = strtol(a.timeout, &end, 10);
    if (*end || t < 1 || t > 86400)
      return fail("--timeout wants whole seconds, not \"%s\"", a.timeout);
    timeout_s = (int)t;
  }
  zerr err = ZERR_INIT;
  zoauth_provider p;
  if (zoauth_provider_load(a.name, &p, &err) < 0) {
    fprintf(stderr, "zero auth: %s\n", err.msg);
    return err.kind == ZE_USAGE ? ZEXIT_USAGE : ZEXIT_PROVIDER;
  }
  zcancel_install();
  zoauth_provider_login_opts o = {.device = a.device,
                                  .scope = a.scope,
                                  .show_code = zcli_show_device_code,
                                  .ui = {.timeout_ms = timeout_s * 1000,
                                         .show_url = show_url,
                                         .note = note}};
  if (zoauth_provider_login(&p, &o, &err) < 0) {
    fprintf(stderr, "zero auth: login to \"%s\" failed: %s\n", a.name, err.msg);
    rc = zexit_for_error_or(err.kind, ZEXIT_PROVIDER);
  } else {
    cleanup_free char *path = zoauth_store_path();
    printf("Logged in to \"%s\"; tokens saved in %s\n", a.name, path);
    rc = ZEXIT_SUCCESS;
  }
  zoauth_provider_release(&p);
  return rc;
}

/* ---- logout ---- */

static int logout_cmd(void *ctx, int argc, char **argv) {
  auth_args a;
  int rc = parse_args(argc, argv, 0, "logout takes NAME", &a);
  if (rc || a.helped) return rc;
  if (!a.name) return fail("logout needs a NAME");
  cleanup_free char *key = store_key(a.name);
  zerr err = ZERR_INIT;
  int r = zoauth_store_delete(key, &err);
  if (r < 0) {
    fprintf(stderr, "zero auth: %s\n", err.msg);
    return ZEXIT_INTERNAL;
  }
  printf(r ? "Logged out of \"%s\" (its tokens are deleted)\n" : "\"%s\" had no stored tokens\n",
         a.name);
  return ZEXIT_SUCCESS;
}

/* ---- status ---- */

/* One entry as status shows it (never a token). New reference. */
static json_t *entry_status(const char *key, const zoauth_tokens *t, int64_t now) {
  json_t *o = json_object();
  const char *colon = strchr(key, ':');
  json_object_set_new(o, "key", json_string(key));
  json_object_set_new(o, "kind", json_stringn(key, colon ? (size_t)(colon - key) : 0));
  json_object_set_new(o, "name", json_string(colon ? colon + 1 : key));
  if (t->expires_at) {
    json_object_set_new(o, "expiresAt", json_integer(t->expires_at));
    json_object_set_new(o, "expired", json_boolean(t->expires_at <= now));
  }
  bool cc = t->grant_type && !strcmp(t->grant_type, "client_credentials");
  json_object_set_new(o, "refreshable",
                      json_boolean((t->refresh_token || cc) && t->token_endpoint));
  if (t->scope) json_object_set_new(o, "scope", json_string(t->scope));
  if (t->token_endpoint) json_object_set_new(o, "tokenEndpoint", json_string(t->token_endpoint));
  return o;
}

static void print_status_line(const json_t *o, int64_t now) {
  printf("%-28s ", zjson_str(o, "key"));
  json_int_t at = zjson_int_or(o, "expiresAt", 0);
  if (!at) printf("valid (no expiry given)");
  else if (at <= now) printf("expired");
  else if (at - now < 3600) printf("valid, expires in %lld min", (long long)((at - now + 59) / 60));
  else printf("valid, expires in %lld h", (long long)((at - now) / 3600));
  printf(", %s", json_is_true(json_object_get(o, "refreshable")) ? "refreshable" : "no refresh");
  const char *scope = zjson_str(o, "scope");
  if (scope) printf(", scope: %s", scope);
  putchar('\n');
}

static int status_cmd(void *ctx, int argc, char **argv) {
  auth_args a;
  int rc = parse_args(argc, argv, 1u << AU_JSON, "status takes [NAME] [--json]", &a);
  if (rc || a.helped) return rc;
  zerr err = ZERR_INIT;
  char **keys = NULL;
  if (a.name) {
    keys = xcalloc(2, sizeof *keys);
    keys[0] = store_key(a.name);
  } else if (!(keys = zoauth_store_keys(&err))) {
    fprintf(stderr, "zero auth: %s\n", err.msg);
    return ZEXIT_INTERNAL;
  }
  int64_t now = (int64_t)time(NULL);
  json_t *list = json_array();
  rc = ZEXIT_SUCCESS;
  for (char **k = keys; *k; k++) {
    zoauth_tokens t;
    zerr lerr = ZERR_INIT;
    if (zoauth_store_load(*k, &t, &lerr) < 0) {
      if (!a.json) fprintf(stderr, "zero auth: %s\n", lerr.msg);
      rc = lerr.kind == ZE_NOT_FOUND ? ZEXIT_PROVIDER : ZEXIT_INTERNAL;
      continue;
    }
    json_array_append_new(list, entry_status(*k, &t, now));
    zoauth_tokens_release(&t);
  }
  cleanup_free char *path = zoauth_store_path();
  if (a.json) {
    json_t *doc = json_pack("{s:s, s:o}", "path", path, "logins", list);
    if (zjson_print(stdout, doc, 0) < 0) rc = ZEXIT_INTERNAL;
    json_decref(doc);
  } else {
    size_t i;
    json_t *o;
    json_array_foreach(list, i, o) print_status_line(o, now);
    if (!json_array_size(list) && !a.name) printf("No OAuth logins (%s)\n", path);
    json_decref(list);
  }
  strvec_free_array(keys);
  return rc;
}

/* ---- refresh ---- */

/* Renews key's token once; *next gets when it is due again (0 = unknown). */
static int refresh_once(const char *key, int64_t *next, zerr *err) {
  zoauth_tokens t;
  if (zoauth_store_load(key, &t, err) < 0) return -1;
  const char *colon = strchr(key, ':');
  char what[160], again[160];
  bool mcp = !strncmp(key, "mcp:", 4);
  snprintf(what, sizeof what, "%s \"%s\"", mcp ? "MCP server" : "OAuth provider", colon + 1);
  snprintf(again, sizeof again, "zero %s login %s", mcp ? "mcp" : "auth", colon + 1);
  bool cc = t.grant_type && !strcmp(t.grant_type, "client_credentials");
  int rc;
  if ((!t.refresh_token && !cc) || !t.token_endpoint)
    rc = zerr_set(err, ZE_CONFIG, "the login of %s holds no refresh token; run `%s`", what, again);
  else rc = zoauth_refresh(key, what, again, &t, err);
  *next = rc == 0 ? zoauth_refresh_at(&t) : 0;
  zoauth_tokens_release(&t);
  return rc;
}

static int refresh_cmd(void *ctx, int argc, char **argv) {
  auth_args a;
  int rc = parse_args(argc, argv, (1u << AU_WATCH) | (1u << AU_JSON),
                      "refresh takes NAME [--watch] [--json]", &a);
  if (rc || a.helped) return rc;
  if (!a.name) return fail("refresh needs a NAME");
  cleanup_free char *key = store_key(a.name);
  zcancel_install();
  for (;;) {
    zerr err = ZERR_INIT;
    int64_t next = 0;
    if (refresh_once(key, &next, &err) < 0) {
      fprintf(stderr, "zero auth: %s\n", err.msg);
      return zexit_for_error_or(err.kind, ZEXIT_PROVIDER);
    }
    if (a.json)
      printf("{\"key\":\"%s\",\"refreshed\":true,\"nextRefreshAt\":%lld}\n", key, (long long)next);
    else printf("Refreshed \"%s\"%s\n", a.name, next ? "" : " (the issuer gave no expiry)");
    fflush(stdout);
    if (!a.watch) return ZEXIT_SUCCESS;
    if (!next)
      return fail("--watch needs a token with an expiry; \"%s\" has none", a.name), ZEXIT_PROVIDER;
    while ((int64_t)time(NULL) < next) {
      if (zcancel_requested()) return ZEXIT_INTERRUPTED;
      sleep(1);
    }
  }
}

static const zcli_subcommand AUTH_SUBS[] = {
    {"login", NULL, login_cmd, NULL},
    {"logout", NULL, logout_cmd, NULL},
    {"status", NULL, status_cmd, NULL},
    {"refresh", NULL, refresh_cmd, NULL},
};

const zcli_subcommands zcli_auth_subs = {AUTH_SUBS, ZARRAY_LEN(AUTH_SUBS)};

static void auth_usage(FILE *out) {
  fputs(AUTH_USAGE, out);
  fputc('\n', out);
  zopt_print_flags(out, &zcli_auth_opts);
}

static const zcli_dispatch_spec AUTH_DISPATCH = {.subs = &zcli_auth_subs,
                                                 .usage = auth_usage,
                                                 .command = "auth",
                                                 .unknown = "unknown command"};

int cmd_auth(int argc, char **argv) { return zcli_dispatch(&AUTH_DISPATCH, NULL, argc, argv); }
