/* trust.c — workspace trust; see trust.h. */
#include "ext/trust.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/common.h"
#include "base/fs.h"
#include "base/hash.h"
#include "base/json.h"
#include "base/path.h"

#define TRUST_WALK_DEPTH 4

static char *trust_path(void) {
  char *dir = zpath_config_dir();
  char *p = zpath_join(dir, "trust.json");
  free(dir);
  return p;
}

/* Every regular file under dir (to a bounded depth). */
static void walk(const char *dir, int depth, strvec *out) {
  DIR *d = opendir(dir);
  if (!d) return;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
    char *p = zpath_join(dir, e->d_name);
    if (zfs_is_dir(p)) {
      if (depth < TRUST_WALK_DEPTH) walk(p, depth + 1, out);
      free(p);
    } else {
      strvec_push_nodup(out, p);
    }
  }
  closedir(d);
}

void ztrust_fingerprint(const char *workspace, strvec *files, char hex[65]) {
  hex[0] = 0;
  char *zdir = zpath_join(workspace, ".zero");
  char *hooks = zpath_join(zdir, "hooks.json");
  if (zfs_exists(hooks)) strvec_push(files, hooks);
  free(hooks);
  char *cmds = zpath_join(zdir, "commands");
  walk(cmds, 0, files);
  free(cmds);
  char *plugins = zpath_join(zdir, "plugins");
  walk(plugins, 0, files); /* manifests and the executables they run */
  free(plugins);
  free(zdir);
  if (!files->nr) return;
  strvec_sort(files);
  zbuf all = ZBUF_INIT;
  for (size_t i = 0; i < files->nr; i++) {
    zbuf_addstr(&all, files->v[i]);
    zbuf_addch(&all, 0);
    zerr err = ZERR_INIT;
    char fh[ZSHA256_HEX_SIZE];
    if (zsha256_file_hex(files->v[i], 0, fh, &err) < 0) snprintf(fh, sizeof fh, "unreadable");
    zbuf_addstr(&all, fh);
    zbuf_addch(&all, '\n');
  }
  zerr err = ZERR_INIT;
  if (zsha256_hex(all.data, all.len, hex, &err) < 0) snprintf(hex, 65, "unhashable");
  zbuf_release(&all);
}

bool ztrust_same_files(const char *a, const char *b) {
  strvec fa = STRVEC_INIT, fb = STRVEC_INIT;
  char ha[65], hb[65];
  ztrust_fingerprint(a, &fa, ha);
  ztrust_fingerprint(b, &fb, hb);
  bool same = fa.nr == fb.nr;
  size_t la = strlen(a), lb = strlen(b);
  for (size_t i = 0; same && i < fa.nr; i++) {
    char xa[ZSHA256_HEX_SIZE] = "", xb[ZSHA256_HEX_SIZE] = "";
    zerr err = ZERR_INIT;
    same = !strncmp(fa.v[i], a, la) && !strncmp(fb.v[i], b, lb) &&
           !strcmp(fa.v[i] + la, fb.v[i] + lb) && zsha256_file_hex(fa.v[i], 0, xa, &err) == 0 &&
           zsha256_file_hex(fb.v[i], 0, xb, &err) == 0 && !strcmp(xa, xb);
  }
  strvec_clear(&fa);
  strvec_clear(&fb);
  return same;
}

bool ztrust_is_trusted(const char *workspace, strvec *files) {
  strvec local = STRVEC_INIT;
  strvec *fs = files ? files : &local;
  char hex[65];
  ztrust_fingerprint(workspace, fs, hex);
  bool none = fs->nr == 0;
  strvec_clear(&local);
  if (none) return true;
  char *path = trust_path();
  zerr err = ZERR_INIT;
  json_t *doc = zfs_exists(path) ? zjson_load_file(path, &err) : NULL;
  free(path);
  const char *saved = zjson_str(json_object_get(json_object_get(doc, "workspaces"), workspace),
                                "sha256");
  bool ok = saved && !strcmp(saved, hex);
  json_decref(doc);
  return ok;
}

typedef struct trust_args {
  const char *workspace;
  const char *hex;
} trust_args;

static int update_trust(json_t **doc, void *ud, zerr *err) {
  (void)err;
  const trust_args *ta = ud;
  json_t *ws = json_object_get(*doc, "workspaces");
  if (!json_is_object(ws)) {
    ws = json_object();
    json_object_set_new(*doc, "workspaces", ws);
  }
  json_object_set_new(ws, ta->workspace, json_pack("{s:s}", "sha256", ta->hex));
  return 0;
}

int ztrust_save(const char *workspace, zerr *err) {
  strvec files = STRVEC_INIT;
  char hex[65];
  ztrust_fingerprint(workspace, &files, hex);
  strvec_clear(&files);
  if (!hex[0]) return 0;
  char *path = trust_path();
  trust_args ta = {workspace, hex};
  int rc = zjson_update_file(path, 0, 0600, update_trust, &ta, err);
  free(path);
  return rc < 0 ? -1 : 0;
}
