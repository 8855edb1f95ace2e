/* grants_go.c — Go zero's sandbox-grants.json converted to ours; see
 * grants_go.h. */
#include "perm/grants_go.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/common.h"
#include "base/fs.h"
#include "base/json.h"

bool zgrants_go_is(const json_t *doc) {
  json_int_t v = json_integer_value(json_object_get(doc, "schemaVersion"));
  return json_is_object(doc) && !json_object_get(doc, "version") && v >= 1 && v <= 3;
}

/* Go's tool name as ours: its shell tool "bash" is exec_command. */
static const char *our_tool(const char *go_tool) {
  return !strcmp(go_tool, "bash") ? "exec_command" : go_tool;
}

static bool is_shell_tool(const char *tool) {
  return !strcmp(tool, "exec_command") || !strcmp(tool, "write_stdin");
}

static void add_grant(json_t *out, const char *tool, const char *kind, const char *value,
                      const char *action, const char *created) {
  json_t *o = json_pack("{s:s, s:s, s:s}", "tool", tool, "kind", kind, "action", action);
  if (value) json_object_set_new(o, "value", json_string(value));
  if (created && *created) json_object_set_new(o, "createdAt", json_string(created));
  json_array_append_new(out, o);
}

/* One entry of Go's "grants" map; true when it was carried over. */
static bool convert_scoped(json_t *out, const char *key, const json_t *g) {
  const char *decision = zjson_str_or(g, "decision", "");
  const char *kind = zjson_str_or(g, "scopeKind", "");
  const char *scope = zjson_str_or(g, "scope", "");
  const char *tool = our_tool(zjson_str_or(g, "toolName", key));
  bool allow = !strcasecmp(decision, "allow");
  if (!json_is_object(g) || (!allow && strcasecmp(decision, "deny")) || !*tool ||
      zjson_bool_or(g, "session", false))
    return false;
  const char *created = zjson_str(g, "approvedAt");
  if (!*kind || !*scope) {                          /* tool-wide */
    if (allow && is_shell_tool(tool)) return false; /* would allow every command */
    add_grant(out, tool, "tool", NULL, allow ? "allow" : "deny", created);
    return true;
  }
  if (strcasecmp(kind, "file") && strcasecmp(kind, "dir")) return false; /* host: none here */
  add_grant(out, tool, "path", scope, allow ? "allow" : "deny", created);
  return true;
}

/* One entry of Go's "commandPrefixes" map; true when it was carried over. */
static bool convert_prefix(json_t *out, const char *key, const json_t *g) {
  const json_t *words = json_object_get(g, "prefix");
  const char *project = zjson_str_or(g, "project", "");
  if (!json_is_array(words) || json_array_size(words) == 0 || *project ||
      zjson_bool_or(g, "session", false))
    return false;
  zbuf b = ZBUF_INIT;
  size_t i;
  const json_t *w;
  json_array_foreach(words, i, w) {
    const char *s = json_string_value(w);
    if (!s || !*s || strchr(s, ' ')) { /* a word with a space has no prefix form here */
      zbuf_release(&b);
      return false;
    }
    zbuf_addf(&b, "%s%s", i ? " " : "", s);
  }
  add_grant(out, our_tool(zjson_str_or(g, "toolName", key)), "prefix", b.data, "allow",
            zjson_str(g, "approvedAt"));
  zbuf_release(&b);
  return true;
}

/* Every grant of one of Go's tool-keyed maps ("grants" or
 * "commandPrefixes"); v1's map holds a single grant per tool. */
static void convert_map(json_t *out, const json_t *map, bool prefixes, size_t *migrated,
                        size_t *dropped) {
  const char *key;
  json_t *bucket;
  json_object_foreach((json_t *)map, key, bucket) {
    size_t n = json_is_array(bucket) ? json_array_size(bucket) : 1;
    for (size_t i = 0; i < n; i++) {
      const json_t *g = json_is_array(bucket) ? json_array_get(bucket, i) : bucket;
      bool ok = prefixes ? convert_prefix(out, key, g) : convert_scoped(out, key, g);
      (*(ok ? migrated : dropped))++;
    }
  }
}

json_t *zgrants_go_convert(const json_t *doc, size_t *migrated, size_t *dropped) {
  *migrated = *dropped = 0;
  json_t *grants = json_array();
  convert_map(grants, json_object_get(doc, "grants"), false, migrated, dropped);
  convert_map(grants, json_object_get(doc, "commandPrefixes"), true, migrated, dropped);
  return json_pack("{s:i, s:o}", "version", 1, "grants", grants);
}

/* Writes data to a fresh "<path>.v<N>.backup" (or .1, .2 … beside it). The
 * name chosen is returned (caller frees), NULL with err. */
static char *write_backup(const char *path, int schema, const zbuf *data, zerr *err) {
  for (int attempt = 0; attempt < 100; attempt++) {
    char name[4096];
    if (attempt == 0) snprintf(name, sizeof name, "%s.v%d.backup", path, schema);
    else snprintf(name, sizeof name, "%s.v%d.backup.%d", path, schema, attempt);
    int fd = open(name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0 && errno == EEXIST) continue;
    if (fd < 0) {
      zerr_set(err, ZE_IO, "%s: cannot create the backup: %s", name, strerror(errno));
      return NULL;
    }
    int rc = zfs_write_all(fd, data->data, data->len);
    if (close(fd) < 0) rc = -1;
    if (rc < 0) {
      unlink(name);
      zerr_set(err, ZE_IO, "%s: cannot write the backup", name);
      return NULL;
    }
    return xstrdup(name);
  }
  zerr_set(err, ZE_IO, "%s: too many backups already exist; remove old ones", path);
  return NULL;
}

typedef struct migrate_ctx {
  const char *path;
  zgrants_go_migration *m;
} migrate_ctx;

static int migrate_in_file(json_t **doc, void *ud, zerr *err) {
  migrate_ctx *c = ud;
  if (!zgrants_go_is(*doc)) return 1; /* ours (or another process migrated it first) */
  zbuf raw = ZBUF_INIT;
  if (zfs_read_file(c->path, &raw, 0, err) < 0) {
    zbuf_release(&raw);
    return -1;
  }
  int schema = (int)json_integer_value(json_object_get(*doc, "schemaVersion"));
  c->m->backup = write_backup(c->path, schema, &raw, err);
  zbuf_release(&raw);
  if (!c->m->backup) return -1;
  c->m->from_schema = schema;
  json_t *ours = zgrants_go_convert(*doc, &c->m->migrated, &c->m->dropped);
  json_decref(*doc);
  *doc = ours;
  return 0;
}

int zgrants_go_migrate(const char *path, zgrants_go_migration *m, zerr *err) {
  memset(m, 0, sizeof *m);
  if (!zfs_exists(path)) return 0;
  migrate_ctx c = {path, m};
  if (zjson_update_file(path, 0, 0600, migrate_in_file, &c, err) < 0) {
    free(m->backup);
    memset(m, 0, sizeof *m);
    return -1;
  }
  return 0;
}

char *zgrants_go_notice(const zgrants_go_migration *m) {
  zbuf b = ZBUF_INIT;
  zbuf_addf(&b,
            "sandbox grants updated from Go zero's schema v%d: migrated %zu, not carried over "
            "%zu (session, host, project-scoped or tool-wide shell grants); backup: %s",
            m->from_schema, m->migrated, m->dropped, m->backup ? m->backup : "(none)");
  return zbuf_detach(&b, NULL);
}
