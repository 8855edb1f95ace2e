/* store.c — the one OAuth token store (MCP servers and provider logins);
 * see oauth.h "token store". */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/common.h"
#include "base/fs.h"
#include "base/json.h"
#include "base/path.h"
#include "base/secrets.h"
#include "base/strvec.h"
#include "oauth/oauth.h"

#define STORE_SCHEMA 1

char *zoauth_store_path(void) {
  const char *env = getenv("ZERO_OAUTH_TOKENS_PATH");
  if (env && *env) return zpath_absolute(env, NULL);
  cleanup_free char *dir = zpath_config_dir();
  return zpath_join(dir, "oauth-tokens.json");
}

char *zoauth_token_path(const char *server) {
  (void)server; /* one file holds every entry */
  return zoauth_store_path();
}

/* The entry fields, in the order they are written. */
static const char *const entry_keys[] = {"server_url",
                                         "resource",
                                         "token_endpoint",
                                         "client_id",
                                         "client_secret",
                                         "token_endpoint_auth_method",
                                         "token_type",
                                         "access_token",
                                         "refresh_token",
                                         "scope",
                                         "step_up_scope",
                                         "grant_type",
                                         "private_key_file",
                                         "signing_alg",
                                         "issuer"};

static char **entry_field(zoauth_tokens *t, size_t i) {
  char **dst[] = {&t->server_url,
                  &t->resource,
                  &t->token_endpoint,
                  &t->client_id,
                  &t->client_secret,
                  &t->token_auth_method,
                  &t->token_type,
                  &t->access_token,
                  &t->refresh_token,
                  &t->scope,
                  &t->step_up_scope,
                  &t->grant_type,
                  &t->private_key_file,
                  &t->signing_alg,
                  &t->issuer};
  return dst[i];
}

static json_t *entry_json(const zoauth_tokens *t) {
  json_t *e = json_object();
  for (size_t i = 0; i < ZARRAY_LEN(entry_keys); i++) {
    const char *v = *entry_field((zoauth_tokens *)t, i);
    if (v) json_object_set_new(e, entry_keys[i], json_string(v));
  }
  if (t->expires_at) json_object_set_new(e, "expires_at", json_integer(t->expires_at));
  if (t->obtained_at) json_object_set_new(e, "obtained_at", json_integer(t->obtained_at));
  return e;
}

/* The "tokens" object of a store document, or NULL (with err) when the
 * document is not a store zero can read. create adds it to an empty one. */
static json_t *tokens_of(json_t *doc, const char *path, bool create, zerr *err) {
  if (!json_is_object(doc)) return zerr_set(err, ZE_INVALID, "%s is not a token store", path), NULL;
  json_t *v = json_object_get(doc, "schemaVersion");
  if (v && (!json_is_integer(v) || json_integer_value(v) != STORE_SCHEMA)) {
    zerr_set(err, ZE_INVALID,
             "%s has schemaVersion %s; this zero reads version %d (written by a newer zero?)", path,
             json_is_integer(v) ? "other than 1" : "that is not a number", STORE_SCHEMA);
    return NULL;
  }
  json_t *tokens = json_object_get(doc, "tokens");
  if (!tokens && create) {
    json_object_set_new(doc, "schemaVersion", json_integer(STORE_SCHEMA));
    tokens = json_object();
    json_object_set_new(doc, "tokens", tokens);
  }
  if (!json_is_object(tokens)) {
    zerr_set(err, ZE_INVALID, "%s lacks its \"tokens\" object", path);
    return NULL;
  }
  return tokens;
}

int zoauth_store_load(const char *key, zoauth_tokens *t, zerr *err) {
  memset(t, 0, sizeof *t);
  cleanup_free char *path = zoauth_store_path();
  if (!zfs_exists(path)) return zerr_set(err, ZE_NOT_FOUND, "no OAuth tokens for \"%s\"", key);
  json_t *doc = zjson_load_file(path, err);
  if (!doc) return -1;
  json_t *tokens = tokens_of(doc, path, false, err);
  json_t *e = tokens ? json_object_get(tokens, key) : NULL;
  int rc = 0;
  if (!tokens) {
    rc = -1;
  } else if (!e) {
    rc = zerr_set(err, ZE_NOT_FOUND, "no OAuth tokens for \"%s\"", key);
  } else if (!json_is_object(e) || !zjson_str(e, "access_token")) {
    rc =
        zerr_set(err, ZE_INVALID, "the entry \"%s\" of %s is not a token; log in again", key, path);
  } else {
    for (size_t i = 0; i < ZARRAY_LEN(entry_keys); i++) {
      const char *v = zjson_str(e, entry_keys[i]);
      if (v) *entry_field(t, i) = xstrdup(v);
    }
    t->expires_at = zjson_int_or(e, "expires_at", 0);
    t->obtained_at = zjson_int_or(e, "obtained_at", 0);
    zsecret_add_value(t->access_token); /* never printed (base/secrets.h) */
    zsecret_add_value(t->refresh_token);
    zsecret_add_value(t->client_secret);
  }
  json_decref(doc);
  return rc;
}

typedef enum { OP_PUT, OP_DELETE, OP_STEP_UP } store_op;

typedef struct store_edit {
  store_op op;
  const char *key;
  const char *path;
  json_t *entry;     /* OP_PUT */
  const char *scope; /* OP_STEP_UP */
  bool removed;      /* OP_DELETE found it */
} store_edit;

static int edit_store(json_t **doc, void *ud, zerr *err) {
  store_edit *e = ud;
  json_t *tokens = tokens_of(*doc, e->path, e->op == OP_PUT, err);
  if (!tokens) return e->op == OP_DELETE && json_object_size(*doc) == 0 ? 1 : -1;
  json_t *cur = json_object_get(tokens, e->key);
  switch (e->op) {
    case OP_PUT: json_object_set(tokens, e->key, e->entry); return 0;
    case OP_DELETE:
      if (!cur) return 1;
      e->removed = true;
      json_object_del(tokens, e->key);
      return 0;
    case OP_STEP_UP: {
      if (!json_is_object(cur) || !zjson_str(cur, "access_token"))
        return zerr_set(err, ZE_NOT_FOUND, "no OAuth tokens to widen");
      cleanup_free char *merged = zoauth_scope_union(zjson_str(cur, "step_up_scope"), e->scope);
      if (merged) json_object_set_new(cur, "step_up_scope", json_string(merged));
      return 0;
    }
    default: return zerr_set(err, ZE_INTERNAL, "unknown token store edit");
  }
}

/* Every change is a locked read-modify-write (zjson_update_file): a
 * refresh of one entry and a login of another at once both land. */
static int store_update(store_edit *e, zerr *err) {
  cleanup_free char *path = zoauth_store_path();
  e->path = path;
  int rc = zjson_update_file(path, JSON_PRESERVE_ORDER, 0600, edit_store, e, err);
  return rc < 0 ? -1 : 0;
}

int zoauth_store_save(const char *key, const zoauth_tokens *t, zerr *err) {
  store_edit e = {.op = OP_PUT, .key = key, .entry = entry_json(t)};
  int rc = store_update(&e, err);
  json_decref(e.entry);
  return rc;
}

int zoauth_store_delete(const char *key, zerr *err) {
  cleanup_free char *path = zoauth_store_path();
  if (!zfs_exists(path)) return 0;
  store_edit e = {.op = OP_DELETE, .key = key};
  if (store_update(&e, err) < 0) return -1;
  return e.removed ? 1 : 0;
}

char **zoauth_store_keys(zerr *err) {
  cleanup_free char *path = zoauth_store_path();
  strvec keys = STRVEC_INIT;
  if (!zfs_exists(path)) return strvec_detach(&keys);
  json_t *doc = zjson_load_file(path, err);
  json_t *tokens = doc ? tokens_of(doc, path, false, err) : NULL;
  if (!tokens) {
    json_decref(doc);
    strvec_clear(&keys);
    return NULL;
  }
  const char *k;
  json_t *v;
  json_object_foreach(tokens, k, v) strvec_push(&keys, k);
  json_decref(doc);
  return strvec_detach(&keys);
}

/* ---- MCP servers' entries ("mcp:<server>") ------------------------------------- */

static char *mcp_key(const char *server) {
  size_t n = strlen(server) + 5;
  char *k = xmalloc(n);
  snprintf(k, n, "mcp:%s", server);
  return k;
}

int zoauth_tokens_load(const char *server, zoauth_tokens *t, zerr *err) {
  cleanup_free char *key = mcp_key(server);
  return zoauth_store_load(key, t, err);
}

int zoauth_tokens_save(const char *server, const zoauth_tokens *t, zerr *err) {
  cleanup_free char *key = mcp_key(server);
  return zoauth_store_save(key, t, err);
}

int zoauth_tokens_delete(const char *server, zerr *err) {
  cleanup_free char *key = mcp_key(server);
  return zoauth_store_delete(key, err);
}

int zoauth_remember_step_up(const char *server, const char *scope, zerr *err) {
  cleanup_free char *key = mcp_key(server);
  cleanup_free char *path = zoauth_store_path();
  if (!zfs_exists(path)) return zerr_set(err, ZE_NOT_FOUND, "no OAuth tokens for \"%s\"", server);
  store_edit e = {.op = OP_STEP_UP, .key = key, .scope = scope};
  return store_update(&e, err);
}
