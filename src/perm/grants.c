/* grants.c — the one grant store; see grants.h. */
#include "perm/grants.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "base/buf.h"
#include "base/common.h"
#include "base/fs.h"
#include "base/json.h"
#include "base/path.h"
#include "perm/grants_go.h"

#define GRANTS_VERSION 1

const char *zgrant_kind_name(zgrant_kind k) {
  switch (k) {
    case ZGRANT_TOOL: return "tool";
    case ZGRANT_PATH: return "path";
    case ZGRANT_PREFIX: return "prefix";
    case ZGRANT_CAPABILITY: return "capability";
    case ZGRANT_HOST: return "host";
  }
  return "tool";
}
const char *zgrant_scope_name(zgrant_scope s) {
  return s == ZGRANT_ONCE ? "once" : s == ZGRANT_SESSION ? "session" : "always";
}

bool zgrant_kind_parse(const char *s, zgrant_kind *out) {
  if (!s) return false;
  if (!strcmp(s, "tool")) *out = ZGRANT_TOOL;
  else if (!strcmp(s, "path")) *out = ZGRANT_PATH;
  else if (!strcmp(s, "prefix")) *out = ZGRANT_PREFIX;
  else if (!strcmp(s, "capability")) *out = ZGRANT_CAPABILITY;
  else if (!strcmp(s, "host")) *out = ZGRANT_HOST;
  else return false;
  return true;
}

char *zgrants_default_path(void) {
  cleanup_free char *dir = zpath_config_dir();
  return zpath_join(dir, "sandbox-grants.json");
}

char *zgrants_mcp_default_path(void) {
  cleanup_free char *dir = zpath_config_dir();
  return zpath_join(dir, "mcp-permissions.json");
}

static void now_rfc3339(char out[32]) {
  time_t t = time(NULL);
  struct tm tm;
  gmtime_r(&t, &tm);
  strftime(out, 32, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

char *zgrant_describe(zgrant_kind kind, const char *tool, const char *value) {
  const char *v = value ? value : "";
  zbuf b = ZBUF_INIT;
  if (kind == ZGRANT_PREFIX) zbuf_addf(&b, "commands starting with `%s`", v);
  else if (kind == ZGRANT_CAPABILITY) zbuf_addf(&b, "every %s call that needs the %s", tool, v);
  else if (kind == ZGRANT_PATH) zbuf_addf(&b, "%s on %s", tool, v);
  else if (kind == ZGRANT_HOST) zbuf_addf(&b, "connections of sandboxed commands to %s", v);
  else zbuf_addf(&b, "every %s call", tool);
  return zbuf_detach(&b, NULL);
}

/* ---- too broad ------------------------------------------------------------ */

/* Commands whose job is to run other commands (or any code given to them):
 * a prefix grant on one of them allows whatever follows. find is here for
 * -exec and -delete, git alone for its aliases, hooks and `-c` settings. */
static const char *const RUNNERS[] = {
    "sh", "bash", "zsh", "dash", "ksh", "mksh", "fish", "csh", "tcsh", "busybox",
    "env", "sudo", "doas", "su", "runuser", "pkexec", "nice", "ionice", "chrt", "taskset",
    "timeout", "stdbuf", "nohup", "setsid", "xargs", "parallel", "find", "exec", "eval",
    "command", "builtin", "time", "watch", "strace", "ltrace", "flock", "unshare", "nsenter",
    "chroot", "script", "expect", "python", "python2", "python3", "pypy", "pypy3", "node",
    "nodejs", "deno", "bun", "perl", "ruby", "php", "lua", "luajit", "tclsh", "wish", "awk",
    "gawk", "mawk", "nawk", "pwsh", "Rscript", "osascript", "npx", "bunx", "pnpx",
};

/* The word's command name: its last path component without a version
 * suffix ("/usr/bin/python3.11" → "python3", "perl5.36" → "perl5"). */
static void command_name(const char *word, size_t len, char *out, size_t cap) {
  const char *base = word;
  for (size_t i = 0; i < len; i++)
    if (word[i] == '/') base = word + i + 1;
  size_t n = (size_t)(word + len - base);
  if (n >= cap) n = cap - 1;
  memcpy(out, base, n);
  out[n] = '\0';
  char *dot = strchr(out, '.');
  if (dot && dot > out && isdigit((unsigned char)dot[-1])) *dot = '\0'; /* python3.11 */
}

static bool is_runner(const char *name) {
  for (size_t i = 0; i < ZARRAY_LEN(RUNNERS); i++)
    if (!strcmp(name, RUNNERS[i])) return true;
  /* versioned interpreters: python3.12 was cut to python3 above; perl5 */
  size_t n = strlen(name);
  while (n > 0 && isdigit((unsigned char)name[n - 1])) n--;
  if (n < strlen(name)) {
    for (size_t i = 0; i < ZARRAY_LEN(RUNNERS); i++)
      if (strlen(RUNNERS[i]) == n && !strncmp(name, RUNNERS[i], n)) return true;
  }
  return false;
}

bool zgrant_too_broad(zgrant_kind kind, const char *value, bool allow, char *why, size_t cap) {
  if (kind == ZGRANT_TOOL) return false;
  if (kind == ZGRANT_CAPABILITY) {
    bool known = value && !strcmp(value, "network");
    if (!known) snprintf(why, cap, "the only capability a grant gives is \"network\"");
    return !known;
  }
  const char *v = value ? value : "";
  while (*v == ' ' || *v == '\t') v++;
  if (kind == ZGRANT_HOST && (!*v || strchr(v, '*'))) {
    snprintf(why, cap, "a host grant names one host; list patterns in sandbox.allowedDomains");
    return true;
  }
  if (!*v) {
    snprintf(why, cap,
             kind == ZGRANT_PATH
                 ? "an empty path is not a grant (it would cover the whole workspace); name "
                   "the directory or file"
                 : "an empty prefix is not a grant (it would cover every command); name the "
                   "command, e.g. --prefix \"npm test\"");
    return true;
  }
  if (!allow || kind != ZGRANT_PREFIX) return false;
  /* The first word that is not a VAR=value assignment is the command. */
  const char *p = v;
  for (;;) {
    size_t len = strcspn(p, " \t");
    const char *eq = memchr(p, '=', len);
    if (!eq || eq == p || p[len] == '\0') break;
    p += len;
    while (*p == ' ' || *p == '\t') p++;
  }
  size_t len = strcspn(p, " \t");
  char name[64];
  command_name(p, len, name, sizeof name);
  const char *rest = p + len;
  while (*rest == ' ' || *rest == '\t') rest++;
  if (is_runner(name)) {
    snprintf(why, cap,
             "`%s` runs other commands (or any code it is given), so a grant on \"%s\" would "
             "allow far more than it says; grant the commands it would run instead",
             name, v);
    return true;
  }
  if (!strcmp(name, "git") && (!*rest || *rest == '-')) {
    snprintf(why, cap,
             "`git` alone (or with global options such as -c) can run any program through "
             "its config, aliases and hooks; grant a subcommand instead, e.g. --prefix \"git "
             "status\"");
    return true;
  }
  return false;
}

/* ---- in memory -------------------------------------------------------------- */

void zgrants_add(zgrants *g, const char *tool, zgrant_kind kind, const char *value, bool allow,
                 zgrant_scope scope) {
  g->v = xrealloc(g->v, (g->n + 1) * sizeof *g->v);
  char ts[32];
  now_rfc3339(ts);
  g->v[g->n++] = (zgrant){xstrdup(tool), kind,  value ? xstrdup(value) : NULL,
                          allow,         scope, xstrdup(ts),
                          false,         false, 0,
                          NULL};
}

static void grant_free(zgrant *x) {
  free(x->workspace);
  free(x->tool);
  free(x->value);
  free(x->created_at);
}

static void ignored_add(zgrants *g, const char *msg) {
  size_t n = 0;
  while (g->ignored && g->ignored[n]) n++;
  g->ignored = xrealloc(g->ignored, (n + 2) * sizeof *g->ignored);
  g->ignored[n] = xstrdup(msg);
  g->ignored[n + 1] = NULL;
}

void zgrants_release(zgrants *g) {
  for (size_t i = 0; i < g->n; i++) grant_free(&g->v[i]);
  free(g->v);
  free(g->path);
  free(g->mcp_path);
  json_decref(g->mcp);
  free(g->workspace);
  for (char **w = g->ignored; w && *w; w++) free(*w);
  free(g->ignored);
  free(g->notice);
  memset(g, 0, sizeof *g);
}

/* One grant object of the file, checked. false with err naming it. */
static bool parse_grant(const json_t *o, size_t i, const char *path, zgrant_kind *kind,
                        zerr *err) {
  const char *tool = zjson_str(o, "tool"), *action = zjson_str(o, "action");
  const char *value = zjson_str(o, "value");
  bool ok = tool && action && (!strcmp(action, "allow") || !strcmp(action, "deny")) &&
            zgrant_kind_parse(zjson_str_or(o, "kind", "tool"), kind) &&
            (*kind == ZGRANT_TOOL || value);
  if (!ok)
    zerr_set(err, ZE_CONFIG,
             "%s: grant %zu needs tool, kind (tool|path|prefix|host), value and action "
             "(allow|deny); fix or revoke it",
             path, i + 1);
  return ok;
}

/* The grants array of a sandbox-grants document, or NULL with err. */
static json_t *grants_array(const json_t *doc, const char *path, zerr *err) {
  json_t *grants = json_object_get(doc, "grants");
  if (json_integer_value(json_object_get(doc, "version")) != GRANTS_VERSION ||
      !json_is_array(grants)) {
    zerr_set(err, ZE_CONFIG,
             "%s: not a version %d grants file; fix or delete it (zero sandbox grants clear)",
             path, GRANTS_VERSION);
    return NULL;
  }
  return grants;
}

static int load_sandbox_grants(zgrants *g, zerr *err) {
  if (!zfs_exists(g->path)) return 0;
  zgrants_go_migration m;
  if (zgrants_go_migrate(g->path, &m, err) < 0) {
    if (err) err->kind = ZE_CONFIG;
    return -1;
  }
  if (m.from_schema) g->notice = zgrants_go_notice(&m);
  free(m.backup);
  json_t *doc = zjson_load_file(g->path, err);
  if (!doc) {
    if (err) err->kind = ZE_CONFIG;
    return -1;
  }
  int rc = 0;
  json_t *grants = grants_array(doc, g->path, err);
  size_t i;
  json_t *o;
  if (!grants) rc = -1;
  else json_array_foreach(grants, i, o) {
    zgrant_kind k;
    if (!parse_grant(o, i, g->path, &k, err)) {
      rc = -1;
      break;
    }
    const char *tool = zjson_str(o, "tool"), *value = zjson_str(o, "value");
    bool allow = !strcmp(zjson_str(o, "action"), "allow");
    char why[400];
    if (zgrant_too_broad(k, value, allow, why, sizeof why)) {
      char msg[700];
      snprintf(msg, sizeof msg, "%s: grant %zu (allow %s %s \"%s\") is ignored: %s; revoke it "
                                "with zero sandbox grants revoke %zu",
               g->path, i + 1, tool, zgrant_kind_name(k), value ? value : "", why, i + 1);
      ignored_add(g, msg);
      continue;
    }
    zgrants_add(g, tool, k, value, allow, ZGRANT_ALWAYS);
    g->v[g->n - 1].file_index = i + 1;
    const char *ws = zjson_str(o, "workspace");
    if (k == ZGRANT_HOST && ws && *ws) g->v[g->n - 1].workspace = xstrdup(ws);
    const char *ts = zjson_str(o, "createdAt");
    if (ts) {
      free(g->v[g->n - 1].created_at);
      g->v[g->n - 1].created_at = xstrdup(ts);
    }
  }
  json_decref(doc);
  return rc;
}

void zgrants_load_mcp(zgrants *g, const char *mcp_path) {
  memset(g, 0, sizeof *g);
  g->mcp_path = mcp_path ? xstrdup(mcp_path) : zgrants_mcp_default_path();
  g->mcp = zfs_exists(g->mcp_path) ? zjson_load_file(g->mcp_path, NULL) : NULL;
  if (!json_is_object(g->mcp)) {
    json_decref(g->mcp);
    g->mcp = json_object();
  }
}

int zgrants_load(zgrants *g, const char *path, const char *mcp_path, zerr *err) {
  zgrants_load_mcp(g, mcp_path);
  g->path = path ? xstrdup(path) : zgrants_default_path();
  return load_sandbox_grants(g, err);
}

/* ---- the saved file ----------------------------------------------------------- */

typedef struct file_add {
  const char *tool, *value;
  zgrant_kind kind;
  bool allow;
  const char *path;
  const char *workspace; /* host grants: the workspace it holds in, or NULL */
} file_add;

static json_t *grant_json(const file_add *a) {
  char ts[32];
  now_rfc3339(ts);
  json_t *o = json_pack("{s:s, s:s, s:s, s:s}", "tool", a->tool, "kind", zgrant_kind_name(a->kind),
                        "action", a->allow ? "allow" : "deny", "createdAt", ts);
  if (a->value && a->kind != ZGRANT_TOOL) json_object_set_new(o, "value", json_string(a->value));
  if (a->workspace) json_object_set_new(o, "workspace", json_string(a->workspace));
  return o;
}

/* The document's grants array, made when the file was empty. */
static json_t *doc_grants(json_t *doc, const char *path, zerr *err) {
  if (json_object_size(doc) == 0) {
    json_object_set_new(doc, "version", json_integer(GRANTS_VERSION));
    json_object_set_new(doc, "grants", json_array());
  }
  return grants_array(doc, path, err);
}

static int add_in_file(json_t **doc, void *ud, zerr *err) {
  const file_add *a = ud;
  json_t *grants = doc_grants(*doc, a->path, err);
  if (!grants) return -1;
  size_t i;
  json_t *o;
  json_array_foreach(grants, i, o) { /* the same grant twice is one grant */
    const char *v = zjson_str(o, "value");
    if (!strcmp(zjson_str_or(o, "tool", ""), a->tool) &&
        !strcmp(zjson_str_or(o, "kind", "tool"), zgrant_kind_name(a->kind)) &&
        !strcmp(zjson_str_or(o, "action", ""), a->allow ? "allow" : "deny") &&
        (a->kind == ZGRANT_TOOL || (v && a->value && !strcmp(v, a->value))) &&
        !strcmp(zjson_str_or(o, "workspace", ""), a->workspace ? a->workspace : ""))
      return 1;
  }
  json_array_append_new(grants, grant_json(a));
  return 0;
}

static int file_add_in(const char *path, const char *tool, zgrant_kind kind, const char *value,
                       bool allow, const char *workspace, zerr *err) {
  char why[400];
  if (!tool || !*tool) return zerr_set(err, ZE_USAGE, "a grant needs a tool name");
  if (zgrant_too_broad(kind, value, allow, why, sizeof why))
    return zerr_set(err, ZE_USAGE, "refused: %s", why);
  file_add a = {tool, value, kind, allow, path, workspace};
  /* A file still in Go zero's layout becomes ours first (with its backup). */
  zgrants_go_migration m;
  if (zgrants_go_migrate(path, &m, err) < 0) return -1;
  free(m.backup);
  return zjson_update_file(path, 0, 0600, add_in_file, &a, err) < 0 ? -1 : 0;
}

int zgrants_file_add(const char *path, const char *tool, zgrant_kind kind, const char *value,
                     bool allow, zerr *err) {
  return file_add_in(path, tool, kind, value, allow, NULL, err);
}

typedef struct file_revoke {
  size_t index;
  const char *path;
} file_revoke;

static int revoke_in_file(json_t **doc, void *ud, zerr *err) {
  const file_revoke *r = ud;
  json_t *grants = json_object_size(*doc) ? grants_array(*doc, r->path, err) : NULL;
  if (json_object_size(*doc) && !grants) return -1;
  if (r->index < 1 || r->index > json_array_size(grants))
    return zerr_set(err, ZE_USAGE, "no grant %zu; see zero sandbox grants list", r->index);
  json_array_remove(grants, r->index - 1);
  return 0;
}

int zgrants_file_revoke(const char *path, size_t index, zerr *err) {
  file_revoke r = {index, path};
  return zjson_update_file(path, 0, 0600, revoke_in_file, &r, err) < 0 ? -1 : 0;
}

int zgrants_file_clear(const char *path, zerr *err) {
  json_t *doc = json_pack("{s:i, s:[]}", "version", GRANTS_VERSION, "grants");
  cleanup_fd int lock = -1;
  cleanup_free char *dir = xstrdup(path);
  char *slash = strrchr(dir, '/');
  if (slash && slash != dir) *slash = '\0';
  int rc = zfs_mkdir_p(dir, 0700, err);
  if (rc == 0) lock = zfs_lock_path(path, err);
  /* Not zjson_update_file: clearing must work on a file that does not parse. */
  if (rc == 0 && lock >= 0) rc = zjson_save_file(path, doc, 0, 0600, err);
  else rc = -1;
  json_decref(doc);
  return rc;
}

int zgrants_remember(zgrants *g, const char *tool, zgrant_kind kind, const char *value,
                     bool allow, zgrant_scope scope, bool unsandboxed, zerr *err) {
  char why[400];
  if (zgrant_too_broad(kind, value, allow, why, sizeof why))
    return zerr_set(err, ZE_USAGE, "not remembered: %s", why);
  zgrants_add(g, tool, kind, kind == ZGRANT_TOOL ? NULL : value, allow, scope);
  g->v[g->n - 1].unsandboxed = unsandboxed && scope != ZGRANT_ALWAYS;
  /* "always for this workspace": a host grant holds where it was given */
  const char *ws = kind == ZGRANT_HOST ? g->workspace : NULL;
  if (ws) g->v[g->n - 1].workspace = xstrdup(ws);
  if (scope != ZGRANT_ALWAYS || !g->path) return 0;
  return file_add_in(g->path, tool, kind, value, allow, ws, err);
}

/* ---- matching ------------------------------------------------------------------- */

/* true when the words of cmd start with the words of prefix. */
static bool prefix_words(const char *prefix, const char *cmd) {
  size_t n = strlen(prefix);
  while (n && prefix[n - 1] == ' ') n--;
  if (n == 0 || strncmp(prefix, cmd, n)) return false;
  return cmd[n] == '\0' || cmd[n] == ' ';
}

static bool grant_covers(const zgrant *x, const char *path, const char *cmd) {
  switch (x->kind) {
    case ZGRANT_TOOL: return true;
    case ZGRANT_PATH: return path && x->value && x->value[0] && zpath_is_within(x->value, path);
    case ZGRANT_PREFIX: return cmd && prefix_words(x->value, cmd);
    case ZGRANT_CAPABILITY: return false; /* zgrants_match_capability */
    case ZGRANT_HOST: return path && x->value && !strcasecmp(x->value, path);
  }
  return false;
}

zgrant *zgrants_match(zgrants *g, const char *tool, const char *path,
                      const char *const *commands, size_t ncommands, bool allow,
                      bool unsandboxed) {
  if (!g) return NULL;
  for (size_t i = 0; i < g->n; i++) {
    zgrant *x = &g->v[i];
    if (x->allow != allow || x->used || strcmp(x->tool, tool)) continue;
    /* a host grant of another workspace */
    if (x->workspace && (!g->workspace || strcmp(x->workspace, g->workspace))) continue;
    /* leaving the sandbox: only this run's answer to exactly that */
    if (allow && unsandboxed && (!x->unsandboxed || x->scope == ZGRANT_ALWAYS)) continue;
    bool hit;
    if (x->kind == ZGRANT_PREFIX) {
      if (!commands || ncommands == 0) continue;
      hit = allow;
      for (size_t c = 0; c < ncommands; c++) {
        bool cov = grant_covers(x, path, commands[c]);
        if (allow && !cov) { hit = false; break; }
        if (!allow && cov) { hit = true; break; }
      }
    } else {
      hit = grant_covers(x, path, NULL);
    }
    if (hit) {
      if (x->scope == ZGRANT_ONCE) x->used = true;
      return x;
    }
  }
  return NULL;
}

zgrant *zgrants_match_capability(zgrants *g, const char *tool, const char *capability) {
  for (size_t i = 0; g && i < g->n; i++) {
    zgrant *x = &g->v[i];
    if (x->kind != ZGRANT_CAPABILITY || !x->allow || x->used || x->unsandboxed ||
        strcmp(x->tool, tool) || !x->value || strcmp(x->value, capability))
      continue;
    if (x->scope == ZGRANT_ONCE) x->used = true;
    return x;
  }
  return NULL;
}

/* ---- MCP tools --------------------------------------------------------------------- */

bool zgrants_mcp_granted(const zgrants *g, const char *server, const char *tool) {
  json_t *s = json_object_get(json_object_get(g ? g->mcp : NULL, "servers"), server);
  if (!json_is_object(s)) return false;
  if (json_is_true(json_object_get(s, "all"))) return true;
  size_t i;
  json_t *v;
  json_array_foreach(json_object_get(s, "tools"), i, v) {
    if (json_is_string(v) && tool && !strcmp(json_string_value(v), tool)) return true;
  }
  return false;
}

/* Adds (or with grant false removes) a grant in an MCP grants document. */
static void mcp_grant_in(json_t *doc, const char *server, const char *tool, bool grant) {
  json_t *servers = json_object_get(doc, "servers");
  if (!json_is_object(servers)) {
    servers = json_object();
    json_object_set_new(doc, "servers", servers);
  }
  json_t *s = json_object_get(servers, server);
  if (!json_is_object(s)) {
    s = json_object();
    json_object_set_new(servers, server, s);
  }
  if (!tool) {
    if (grant) json_object_set_new(s, "all", json_true());
    else json_object_clear(s);
  } else {
    json_t *tools = json_object_get(s, "tools");
    if (!json_is_array(tools)) {
      tools = json_array();
      json_object_set_new(s, "tools", tools);
    }
    for (size_t i = json_array_size(tools); i-- > 0;) {
      json_t *v = json_array_get(tools, i);
      if (json_is_string(v) && !strcmp(json_string_value(v), tool)) json_array_remove(tools, i);
    }
    if (grant) json_array_append_new(tools, json_string(tool));
  }
  if (json_object_size(s) == 0) json_object_del(servers, server);
}

typedef struct mcp_set {
  const char *server, *tool, *path;
  bool grant;
} mcp_set;

static int mcp_set_in_file(json_t **doc, void *ud, zerr *err) {
  const mcp_set *s = ud;
  if (!json_is_object(*doc))
    return zerr_set(err, ZE_USAGE, "%s must hold a JSON object; fix or delete it", s->path);
  mcp_grant_in(*doc, s->server, s->tool, s->grant);
  return 0;
}

int zgrants_mcp_file_set(const char *path, const char *server, const char *tool, bool grant,
                         zerr *err) {
  cleanup_free char *dflt = path ? NULL : zgrants_mcp_default_path();
  mcp_set s = {server, tool, path ? path : dflt, grant};
  return zjson_update_file(s.path, 0, 0600, mcp_set_in_file, &s, err) < 0 ? -1 : 0;
}

int zgrants_mcp_remember(zgrants *g, const char *server, const char *tool, zgrant_scope scope,
                         zerr *err) {
  if (scope != ZGRANT_SESSION && scope != ZGRANT_ALWAYS) return 0;
  if (!g->mcp) g->mcp = json_object();
  mcp_grant_in(g->mcp, server, tool, true);
  if (scope != ZGRANT_ALWAYS) return 0;
  return zgrants_mcp_file_set(g->mcp_path, server, tool, true, err);
}
