/* config.c — MCP servers from the config files, and trusted workspaces; see config.h. */
#include "mcp/config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "base/buf.h"
#include "base/common.h"
#include "base/fs.h"
#include "base/json.h"
#include "base/path.h"
#include "base/strvec.h"
#include "base/secrets.h"
#include "config/config.h"

const char *zmcp_type_name(zmcp_type t) {
  switch (t) {
    case ZMCP_STDIO: return "stdio";
    case ZMCP_HTTP: return "http";
    case ZMCP_SSE: return "sse";
  }
  return "stdio";
}

void zmcp_server_cfg_release(zmcp_server_cfg *s) {
  free(s->name);
  strvec_free_array(s->argv);
  strvec_free_array(s->env);
  free(s->cwd);
  free(s->url);
  strvec_free_array(s->headers);
  free(s->origin);
  free(s->oauth.client_id);
  free(s->oauth.client_secret);
  strvec_free_array(s->oauth.scopes);
  free(s->oauth.authorization_endpoint);
  free(s->oauth.token_endpoint);
  free(s->oauth.registration_endpoint);
  free(s->oauth.issuer_url);
  free(s->oauth.client_metadata_url);
  free(s->oauth.private_key_file);
  free(s->oauth.signing_algorithm);
  free(s->oauth.idp.issuer_url);
  free(s->oauth.idp.token_endpoint);
  free(s->oauth.idp.client_id);
  free(s->oauth.idp.client_secret);
  free(s->oauth.idp.id_token_file);
  memset(s, 0, sizeof *s);
}

static int bad(zerr *err, const char *origin, const char *name, const char *what) {
  return zerr_set(err, ZE_USAGE, "%s: MCP server \"%s\": %s", origin, name, what);
}

/* {K: "V"} → "K<sep>V" list. */
static int string_map(const json_t *obj, const char *sep, char ***out, const char *origin,
                      const char *name, const char *key, zerr *err) {
  *out = NULL;
  if (!obj || json_is_null(obj)) return 0;
  char what[128];
  snprintf(what, sizeof what, "\"%s\" must be an object of strings", key);
  if (!json_is_object(obj)) return bad(err, origin, name, what);
  strvec v = STRVEC_INIT;
  const char *k;
  json_t *val;
  json_object_foreach((json_t *)obj, k, val) {
    if (!json_is_string(val)) {
      strvec_clear(&v);
      return bad(err, origin, name, what);
    }
    strvec_pushf(&v, "%s%s%s", k, sep, json_string_value(val));
  }
  *out = strvec_detach(&v);
  return 0;
}

static int opt_string(const json_t *obj, const char *key, const char **out, const char *origin,
                      const char *name, zerr *err) {
  json_t *v = json_object_get(obj, key);
  *out = NULL;
  if (!v || json_is_null(v)) return 0;
  if (!json_is_string(v)) {
    char what[96];
    snprintf(what, sizeof what, "\"%s\" must be a string", key);
    return bad(err, origin, name, what);
  }
  *out = json_string_value(v);
  return 0;
}

static char *dup_opt(const char *s) { return s ? xstrdup(s) : NULL; }

/* A file setting: "~/" is the home directory; anything else must be
 * absolute (the config may be read from any directory). */
static int absolute_file(char **path, const char *key, const char *origin, const char *name,
                         zerr *err) {
  if (!*path) return 0;
  if (!strncmp(*path, "~/", 2)) {
    char *full = zpath_join(zpath_home(), *path + 2);
    free(*path);
    *path = full;
  }
  if ((*path)[0] != '/') {
    char what[160];
    snprintf(what, sizeof what, "\"%s\" must be an absolute path (or start with ~/)", key);
    return bad(err, origin, name, what);
  }
  return 0;
}

/* "oauth.idp" (cross-app access). */
static int parse_idp(const json_t *o, const char *origin, const char *name, zmcp_idp_cfg *out,
                     zerr *err) {
  if (!o || json_is_null(o)) return 0;
  if (!json_is_object(o)) return bad(err, origin, name, "\"oauth.idp\" must be an object");
  const char *keys[] = {"issuerURL", "tokenEndpoint", "clientID", "clientSecret", "idTokenFile"};
  char **dst[] = {&out->issuer_url, &out->token_endpoint, &out->client_id, &out->client_secret,
                  &out->id_token_file};
  for (size_t i = 0; i < ZARRAY_LEN(keys); i++) {
    const char *v;
    if (opt_string(o, keys[i], &v, origin, name, err) < 0) return -1;
    *dst[i] = dup_opt(v);
  }
  if (!out->issuer_url && !out->token_endpoint)
    return bad(err, origin, name, "\"oauth.idp\" needs \"issuerURL\" or \"tokenEndpoint\"");
  if (!out->client_id || !out->id_token_file)
    return bad(err, origin, name,
               "\"oauth.idp\" needs \"clientID\" (zero's client at the identity provider) and "
               "\"idTokenFile\" (where your SSO login leaves the ID token)");
  return absolute_file(&out->id_token_file, "oauth.idp.idTokenFile", origin, name, err);
}

/* "auth" and "oauth" (Go zero's keys). */
static int parse_auth(const json_t *obj, const char *origin, const char *name,
                      zmcp_server_cfg *out, zerr *err) {
  const char *auth;
  if (opt_string(obj, "auth", &auth, origin, name, err) < 0) return -1;
  if (!auth || !strcmp(auth, "auto") || !auth[0])
    out->auth = ZMCP_AUTH_AUTO;
  else if (!strcasecmp(auth, "oauth") || !strcasecmp(auth, "oauth2"))
    out->auth = ZMCP_AUTH_OAUTH;
  else if (!strcmp(auth, "none"))
    out->auth = ZMCP_AUTH_NONE;
  else
    return bad(err, origin, name, "\"auth\" must be \"oauth\", \"none\" or \"auto\"");
  json_t *o = json_object_get(obj, "oauth");
  if (!o || json_is_null(o)) return 0;
  if (!json_is_object(o)) return bad(err, origin, name, "\"oauth\" must be an object");
  const char *keys[] = {"clientID",          "clientSecret",         "authorizationEndpoint",
                        "tokenEndpoint",     "registrationEndpoint", "issuerURL",
                        "clientMetadataURL", "privateKeyFile",       "signingAlgorithm"};
  char **dst[] = {&out->oauth.client_id,
                  &out->oauth.client_secret,
                  &out->oauth.authorization_endpoint,
                  &out->oauth.token_endpoint,
                  &out->oauth.registration_endpoint,
                  &out->oauth.issuer_url,
                  &out->oauth.client_metadata_url,
                  &out->oauth.private_key_file,
                  &out->oauth.signing_algorithm};
  for (size_t i = 0; i < ZARRAY_LEN(keys); i++) {
    const char *v;
    if (opt_string(o, keys[i], &v, origin, name, err) < 0) return -1;
    *dst[i] = dup_opt(v);
  }
  json_t *scopes = json_object_get(o, "scopes");
  if (scopes && !json_is_null(scopes)) {
    if (!json_is_array(scopes)) return bad(err, origin, name, "\"oauth.scopes\" must be an array of strings");
    out->oauth.scopes = xcalloc(json_array_size(scopes) + 1, sizeof(char *));
    size_t i;
    json_t *v;
    json_array_foreach(scopes, i, v) {
      if (!json_is_string(v)) return bad(err, origin, name, "\"oauth.scopes\" must be an array of strings");
      out->oauth.scopes[i] = xstrdup(json_string_value(v));
    }
  }
  if ((out->oauth.authorization_endpoint == NULL) != (out->oauth.token_endpoint == NULL))
    return bad(err, origin, name,
               "\"oauth.authorizationEndpoint\" and \"oauth.tokenEndpoint\" go together; set "
               "both or neither");
  if (absolute_file(&out->oauth.private_key_file, "oauth.privateKeyFile", origin, name, err) < 0)
    return -1;
  return parse_idp(json_object_get(o, "idp"), origin, name, &out->oauth.idp, err);
}

int zmcp_server_parse(const char *name, const json_t *obj, const char *origin,
                      zmcp_server_cfg *out, zerr *err) {
  memset(out, 0, sizeof *out);
  if (!json_is_object(obj)) return bad(err, origin, name, "must be an object");
  const char *type, *command, *url, *cwd;
  if (opt_string(obj, "type", &type, origin, name, err) < 0 ||
      opt_string(obj, "command", &command, origin, name, err) < 0 ||
      opt_string(obj, "url", &url, origin, name, err) < 0 ||
      opt_string(obj, "cwd", &cwd, origin, name, err) < 0)
    return -1;
  if (!type) type = command ? "stdio" : url ? "http" : "stdio";
  if (!strcmp(type, "stdio"))
    out->type = ZMCP_STDIO;
  else if (!strcmp(type, "http") || !strcmp(type, "streamable-http") ||
           !strcmp(type, "streamableHttp") || !strcmp(type, "streamable_http"))
    out->type = ZMCP_HTTP;
  else if (!strcmp(type, "sse"))
    out->type = ZMCP_SSE;
  else
    return bad(err, origin, name, "\"type\" must be \"stdio\", \"http\" or \"sse\"");
  if (out->type == ZMCP_STDIO && !command)
    return bad(err, origin, name, "a stdio server needs \"command\"");
  if (out->type != ZMCP_STDIO && !url)
    return bad(err, origin, name, "an http or sse server needs \"url\"");
  json_t *args = json_object_get(obj, "args");
  if (args && !json_is_null(args) && !json_is_array(args))
    return bad(err, origin, name, "\"args\" must be an array of strings");
  json_t *disabled = json_object_get(obj, "disabled");
  if (disabled && !json_is_boolean(disabled) && !json_is_null(disabled))
    return bad(err, origin, name, "\"disabled\" must be true or false");
  json_t *tmo = json_object_get(obj, "timeoutMs"), *stmo = json_object_get(obj, "startupTimeoutMs");
  if ((tmo && !json_is_integer(tmo)) || (stmo && !json_is_integer(stmo)))
    return bad(err, origin, name, "\"timeoutMs\" and \"startupTimeoutMs\" must be whole numbers");

  out->name = xstrdup(name);
  out->origin = xstrdup(origin ? origin : "");
  if (command) {
    strvec argv = STRVEC_INIT;
    strvec_push(&argv, command);
    size_t i;
    json_t *a;
    json_array_foreach(args, i, a) {
      if (!json_is_string(a)) {
        strvec_clear(&argv);
        zmcp_server_cfg_release(out);
        return bad(err, origin, name, "\"args\" must be an array of strings");
      }
      strvec_push(&argv, json_string_value(a));
    }
    out->argv = strvec_detach(&argv);
  }
  if (url) out->url = xstrdup(url);
  if (cwd) out->cwd = xstrdup(cwd);
  out->disabled = disabled && json_is_true(disabled);
  out->timeout_ms = tmo ? (int)json_integer_value(tmo) : 0;
  out->startup_timeout_ms = stmo ? (int)json_integer_value(stmo) : 0;
  if (string_map(json_object_get(obj, "env"), "=", &out->env, origin, name, "env", err) < 0 ||
      string_map(json_object_get(obj, "headers"), ": ", &out->headers, origin, name, "headers",
                 err) < 0 ||
      parse_auth(obj, origin, name, out, err) < 0) {
    zmcp_server_cfg_release(out);
    return -1;
  }
  return 0;
}

/* The servers object of one file: mcp.servers, mcpServers and mcp_servers
 * merged; the same name twice is an error. New reference (object). */
static json_t *servers_of(json_t *doc, const char *path, zerr *err) {
  json_t *all = json_object();
  json_t *mcp = json_object_get(doc, "mcp");
  const char *keys[] = {"mcp.servers", "mcpServers", "mcp_servers"};
  json_t *objs[3] = {json_is_object(mcp) ? json_object_get(mcp, "servers") : NULL,
                     json_object_get(doc, "mcpServers"), json_object_get(doc, "mcp_servers")};
  if (mcp && !json_is_null(mcp) && !json_is_object(mcp)) {
    json_decref(all);
    zerr_set(err, ZE_USAGE, "%s: \"mcp\" must be an object", path);
    return NULL;
  }
  for (size_t i = 0; i < 3; i++) {
    if (!objs[i] || json_is_null(objs[i])) continue;
    if (!json_is_object(objs[i])) {
      json_decref(all);
      zerr_set(err, ZE_USAGE, "%s: \"%s\" must be an object of servers by name", path, keys[i]);
      return NULL;
    }
    const char *k;
    json_t *v;
    json_object_foreach(objs[i], k, v) {
      if (json_object_get(all, k)) {
        json_decref(all);
        zerr_set(err, ZE_USAGE,
                 "%s: MCP server \"%s\" is defined twice (in \"mcp.servers\" and an alias such "
                 "as \"mcpServers\"); keep one",
                 path, k);
        return NULL;
      }
      json_object_set(all, k, v);
    }
  }
  return all;
}

static int add_servers(zmcp_config *cfg, const char *path, bool project, bool trusted,
                       zerr *err) {
  struct stat st;
  if (stat(path, &st) < 0) return 0;
  zerr lerr = ZERR_INIT;
  json_t *doc = zjson_load_file(path, &lerr);
  if (!doc) {
    if (lerr.kind == ZE_NOT_FOUND) return 0;
    return zerr_set(err, ZE_USAGE, "%s", lerr.msg);
  }
  if (!json_is_object(doc)) {
    json_decref(doc);
    return 0; /* config/config.c reports this one */
  }
  json_t *servers = servers_of(doc, path, err);
  json_decref(doc);
  if (!servers) return -1;
  const char *name;
  json_t *v;
  int rc = 0;
  json_object_foreach(servers, name, v) {
    if (project && !trusted) {
      strvec skipped = STRVEC_INIT;
      strvec_attach(&skipped, cfg->skipped_untrusted);
      strvec_push(&skipped, name);
      cfg->skipped_untrusted = strvec_detach(&skipped);
      continue;
    }
    zmcp_server_cfg s;
    if (zmcp_server_parse(name, v, path, &s, err) < 0) {
      rc = -1;
      break;
    }
    s.project = project;
    zmcp_server_cfg *old = (zmcp_server_cfg *)zmcp_config_find(cfg, name);
    if (old) {
      zmcp_server_cfg_release(old);
      *old = s;
    } else {
      cfg->servers = xrealloc(cfg->servers, (cfg->n + 1) * sizeof *cfg->servers);
      cfg->servers[cfg->n++] = s;
    }
  }
  json_decref(servers);
  return rc;
}

int zmcp_config_load(zmcp_config *cfg, const char *workspace, zerr *err) {
  memset(cfg, 0, sizeof *cfg);
  cleanup_free char *dir = zpath_config_dir();
  cfg->user_path = zpath_join(dir, "config.json");
  cfg->project_path = zconfig_project_path(workspace);
  cfg->project_trusted = zmcp_workspace_trusted(workspace);
  if (add_servers(cfg, cfg->user_path, false, true, err) < 0) goto fail;
  struct stat a, b;
  bool same = stat(cfg->user_path, &a) == 0 && stat(cfg->project_path, &b) == 0 &&
              a.st_dev == b.st_dev && a.st_ino == b.st_ino;
  if (!same && add_servers(cfg, cfg->project_path, true, cfg->project_trusted, err) < 0)
    goto fail;
  return 0;
fail:
  zmcp_config_release(cfg);
  return -1;
}

void zmcp_config_declare_secrets(const zmcp_config *cfg) {
  for (size_t i = 0; i < cfg->n; i++) {
    const zmcp_server_cfg *s = &cfg->servers[i];
    for (char **kv = s->env; kv && *kv; kv++) {
      const char *eq = strchr(*kv, '=');
      if (!eq) continue;
      cleanup_free char *name = xstrndup(*kv, (size_t)(eq - *kv));
      zsecret_add_env_setting(name, eq + 1);
    }
    for (char **h = s->headers; h && *h; h++) {
      const char *colon = strchr(*h, ':');
      if (!colon) continue;
      cleanup_free char *name = xstrndup(*h, (size_t)(colon - *h));
      const char *v = colon + 1;
      while (*v == ' ' || *v == '\t') v++;
      zsecret_add_header(name, v);
    }
    zsecret_add_value(s->oauth.client_secret);
    zsecret_add_value(s->oauth.idp.client_secret);
  }
}

void zmcp_config_release(zmcp_config *cfg) {
  for (size_t i = 0; i < cfg->n; i++) zmcp_server_cfg_release(&cfg->servers[i]);
  free(cfg->servers);
  free(cfg->user_path);
  free(cfg->project_path);
  strvec_free_array(cfg->skipped_untrusted);
  memset(cfg, 0, sizeof *cfg);
}

const zmcp_server_cfg *zmcp_config_find(const zmcp_config *cfg, const char *name) {
  for (size_t i = 0; i < cfg->n; i++)
    if (!strcmp(cfg->servers[i].name, name)) return &cfg->servers[i];
  return NULL;
}

/* ---- trust ---------------------------------------------------------------- */

static char *trust_path(void) {
  cleanup_free char *dir = zpath_config_dir();
  return zpath_join(dir, "trusted-workspaces.json");
}

bool zmcp_workspace_trusted(const char *workspace) {
  cleanup_free char *path = trust_path();
  json_t *doc = zjson_load_file(path, NULL);
  if (!doc) return false;
  bool ok = false;
  json_t *list = json_object_get(doc, "workspaces");
  size_t i;
  json_t *v;
  json_array_foreach(list, i, v) {
    /* Trusting a directory trusts what lies beneath it. */
    if (json_is_string(v) && zpath_is_within(json_string_value(v), workspace)) ok = true;
  }
  json_decref(doc);
  return ok;
}

typedef struct trust_add {
  const char *workspace, *path;
} trust_add;

static int add_trusted(json_t **doc, void *ud, zerr *err) {
  const trust_add *t = ud;
  if (!json_is_object(*doc))
    return zerr_set(err, ZE_USAGE, "%s must hold a JSON object; fix or delete it", t->path);
  json_t *list = json_object_get(*doc, "workspaces");
  if (!json_is_array(list)) {
    list = json_array();
    json_object_set_new(*doc, "workspaces", list);
  }
  size_t i;
  json_t *v;
  json_array_foreach(list, i, v) if (json_is_string(v) && !strcmp(json_string_value(v), t->workspace)) return 1;
  json_array_append_new(list, json_string(t->workspace));
  return 0;
}

int zmcp_trust_workspace(const char *workspace, zerr *err) {
  cleanup_free char *path = trust_path();
  trust_add t = {workspace, path};
  /* One locked read-modify-write: two `zero mcp trust` at once keep both. */
  return zjson_update_file(path, 0, 0600, add_trusted, &t, err) < 0 ? -1 : 0;
}

/* ---- editing ---------------------------------------------------------------- */

typedef struct config_edit {
  const char *path;
  int (*fn)(void *ud, json_t *servers, zerr *err);
  void *ud;
} config_edit;

static int edit_servers(json_t **docp, void *ud, zerr *err) {
  const config_edit *e = ud;
  json_t *doc = *docp;
  if (!json_is_object(doc))
    return zerr_set(err, ZE_USAGE, "%s: the config must be a JSON object ({ … })", e->path);
  json_t *mcp = json_object_get(doc, "mcp");
  if (!json_is_object(mcp)) {
    mcp = json_object();
    json_object_set_new(doc, "mcp", mcp);
  }
  json_t *servers = json_object_get(mcp, "servers");
  if (!json_is_object(servers)) {
    servers = json_object();
    json_object_set_new(mcp, "servers", servers);
  }
  /* One place for every server: move the aliases' entries into mcp.servers. */
  const char *aliases[] = {"mcpServers", "mcp_servers"};
  for (size_t i = 0; i < ZARRAY_LEN(aliases); i++) {
    json_t *a = json_object_get(doc, aliases[i]);
    if (!json_is_object(a)) continue;
    const char *k;
    json_t *v;
    json_object_foreach(a, k, v) if (!json_object_get(servers, k)) json_object_set(servers, k, v);
    json_object_del(doc, aliases[i]);
  }
  int rc = e->fn(e->ud, servers, err);
  return rc == 0 ? 0 : -1;
}

int zmcp_config_edit(const char *path, int (*fn)(void *ud, json_t *servers, zerr *err), void *ud,
                     zerr *err) {
  /* One locked read-modify-write (zjson_update_file): an edit never drops
   * another process's change to the same config. */
  config_edit e = {path, fn, ud};
  return zjson_update_file(path, 0, 0600, edit_servers, &e, err) < 0 ? -1 : 0;
}
