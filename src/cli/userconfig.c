/* userconfig.c — see userconfig.h. */
#include "cli/userconfig.h"

#include <string.h>

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

typedef struct ucfg_edit {
  zucfg_edit_fn fn;
  void *ud;
  const char *path;
} ucfg_edit;

static int edit_object(json_t **doc, void *ud, zerr *err) {
  const ucfg_edit *e = ud;
  if (!json_is_object(*doc))
    return zerr_set(err, ZE_USAGE, "%s: the config must be a JSON object; fix or move it",
                    e->path);
  return e->fn(*doc, e->ud, err);
}

int zucfg_update(zucfg_edit_fn fn, void *ud, char **path, zerr *err) {
  cleanup_free char *dir = zpath_config_dir();
  *path = zpath_join(dir, "config.json");
  ucfg_edit e = {fn, ud, *path};
  return zjson_update_file(*path, JSON_PRESERVE_ORDER, 0600, edit_object, &e, err);
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
