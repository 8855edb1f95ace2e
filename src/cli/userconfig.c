/* userconfig.c — see userconfig.h. */
#include "cli/userconfig.h"

#include <string.h>

#include "base/buf.h"
#include "base/common.h"
#include "base/fs.h"
#include "base/json.h"
#include "base/path.h"

json_t *zucfg_load(char **path, zerr *err) {
  cleanup_free char *dir = zpath_config_dir();
  *path = zpath_join(dir, "config.json");
  if (!zfs_exists(*path)) return json_object();
  json_t *doc = zjson_load_file(*path, err);
  if (!doc) return NULL;
  if (!json_is_object(doc)) {
    json_decref(doc);
    zerr_set(err, ZE_USAGE, "%s: the config must be a JSON object; fix or move it", *path);
    return NULL;
  }
  return doc;
}

int zucfg_save(const char *path, const json_t *doc, zerr *err) {
  cleanup_free char *dir = xstrdup(path);
  char *slash = strrchr(dir, '/');
  if (slash) *slash = '\0';
  if (zfs_mkdir_p(dir, 0700, err) < 0) return -1;
  char *s = json_dumps(doc, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
  zbuf b = ZBUF_INIT;
  zbuf_addstr(&b, s);
  zbuf_addch(&b, '\n');
  free(s);
  int rc = zfs_write_atomic(path, b.data, b.len, 0600, err);
  zbuf_release(&b);
  return rc;
}

json_t *zucfg_providers(json_t *doc) {
  json_t *p = json_object_get(doc, "providers");
  if (!json_is_array(p)) {
    p = json_array();
    json_object_set_new(doc, "providers", p);
  }
  return p;
}

long zucfg_find(const json_t *providers, const char *name) {
  size_t i;
  json_t *p;
  json_array_foreach(providers, i, p) {
    const char *n = zjson_str(p, "name");
    if (n && !strcmp(n, name)) return (long)i;
  }
  return -1;
}
