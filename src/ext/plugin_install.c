/* plugin_install.c — `zero plugins install` and `remove`; see
 * plugin_install.h.
 *
 * The story of an install:
 *   1. a staging folder is made beside the plugins (same file system: the
 *      last step is one rename);
 *   2. the source is put there: a git URL is cloned (git, through the spawn
 *      seam, with a deadline), a folder copied (regular files and folders;
 *      a symbolic link refuses the install, since it could name anything on
 *      the host; .git is left out);
 *   3. its manifest (plugin.json, or Claude Code's .claude-plugin/plugin.json)
 *      must load and give an id fit for a folder name;
 *   4. staging becomes ~/.config/zero/plugins/<id>, unless that exists.
 * Any failure removes staging. The plugin is installed disabled: enabling
 * (after review) records its executables' identity.
 */
#include "ext/plugin_install.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/common.h"
#include "base/fs.h"
#include "base/json.h"
#include "base/path.h"
#include "base/time.h"
#include "exec/capture.h"

#define CLONE_DEADLINE_MS (5 * 60 * 1000)
#define COPY_FILE_MAX (256u << 20)

char *zplugins_user_root(void) {
  char *cfg = zpath_config_dir();
  char *root = zpath_join(cfg, "plugins");
  free(cfg);
  return root;
}

bool zplugin_source_is_git(const char *src) {
  if (zfs_is_dir(src)) return false;
  size_t n = strlen(src);
  return strstr(src, "://") || !strncmp(src, "git@", 4) || (n > 4 && !strcmp(src + n - 4, ".git"));
}

/* git clone --depth 1 url into dir (which must not exist), unconfined (it
 * needs the network and the user's git credentials) through the spawn
 * seam. */
static int clone_into(const char *url, const char *dir, zerr *err) {
  char *const argv[] = {"git", "clone",     "--quiet",   "--depth", "1",
                        "--",  (char *)url, (char *)dir, NULL};
  zexec_capture_opts o = {.timeout_ms = CLONE_DEADLINE_MS, .max_output = 1000};
  zbuf out = ZBUF_INIT;
  int code = -1;
  int rc = zexec_capture(argv, &o, &out, &code, err);
  if (rc == 0 && code != 0)
    rc = zerr_set(err, ZE_USAGE, "git clone %s failed: %s", url, out.data ? out.data : "");
  else if (rc < 0) zerr_prefix(err, "git clone %s failed", url);
  zbuf_release(&out);
  return rc;
}

static int copy_file(const char *from, const char *to, mode_t mode, zerr *err) {
  zbuf data = ZBUF_INIT;
  if (zfs_read_file(from, &data, COPY_FILE_MAX, err) < 0) return -1;
  int fd = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode & 0755);
  bool ok = fd >= 0;
  for (size_t off = 0; ok && off < data.len;) {
    ssize_t w = write(fd, data.data + off, data.len - off);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) ok = false;
    else off += (size_t)w;
  }
  if (fd >= 0 && close(fd) < 0) ok = false;
  zbuf_release(&data);
  if (!ok) return zerr_set(err, ZE_IO, "cannot write %s: %s", to, strerror(errno));
  return 0;
}

/* Copies the tree at from into the new folder to. Symbolic links refuse
 * the copy; other special files are left out. */
static int copy_tree(const char *from, const char *to, int depth, zerr *err) {
  if (depth > 16) return zerr_set(err, ZE_USAGE, "%s: folders nest too deep", from);
  if (mkdir(to, 0755) < 0 && errno != EEXIST)
    return zerr_set(err, ZE_IO, "cannot create %s: %s", to, strerror(errno));
  DIR *d = opendir(from);
  if (!d) return zerr_set(err, ZE_IO, "cannot read %s: %s", from, strerror(errno));
  int rc = 0;
  struct dirent *e;
  while (rc == 0 && (e = readdir(d))) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") || !strcmp(e->d_name, ".git")) continue;
    char *src = zpath_join(from, e->d_name), *dst = zpath_join(to, e->d_name);
    struct stat st;
    if (lstat(src, &st) < 0) {
      rc = zerr_set(err, ZE_IO, "cannot read %s: %s", src, strerror(errno));
    } else if (S_ISLNK(st.st_mode)) {
      rc = zerr_set(err, ZE_USAGE,
                    "%s is a symbolic link; a plugin is installed from regular files only "
                    "(a link could name any file on this machine): replace it with the file",
                    src);
    } else if (S_ISDIR(st.st_mode)) {
      rc = copy_tree(src, dst, depth + 1, err);
    } else if (S_ISREG(st.st_mode)) {
      rc = copy_file(src, dst, st.st_mode, err);
    }
    free(src);
    free(dst);
  }
  closedir(d);
  return rc;
}

/* An id that can name a folder: letters, digits, '.', '_', '-'; not "." or
 * "..", not starting with '.'. */
static bool id_ok(const char *id) {
  if (!id || !*id || id[0] == '.' || strlen(id) > 100) return false;
  for (const char *c = id; *c; c++)
    if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
          *c == '.' || *c == '_' || *c == '-'))
      return false;
  return true;
}

int zplugin_install(const char *source, char **dir_out, char **id_out, zerr *err) {
  *dir_out = *id_out = NULL;
  char *root = zplugins_user_root();
  if (zfs_mkdir_p(root, 0700, err) < 0) {
    free(root);
    return -1;
  }
  zbuf tmpl = ZBUF_INIT;
  zbuf_addf(&tmpl, "%s/.install-XXXXXX", root);
  char *staging = mkdtemp(tmpl.data) ? zbuf_detach(&tmpl, NULL) : NULL;
  zbuf_release(&tmpl);
  if (!staging) {
    zerr_set(err, ZE_IO, "cannot create a folder in %s: %s", root, strerror(errno));
    free(root);
    return -1;
  }
  int rc;
  if (zplugin_source_is_git(source)) {
    rmdir(staging); /* git clone makes it */
    rc = clone_into(source, staging, err);
  } else if (!zfs_is_dir(source)) {
    rc = zerr_set(err, ZE_USAGE, "%s is neither a folder nor a git URL", source);
  } else {
    rc = copy_tree(source, staging, 0, err);
  }
  zplugins ps = {0};
  strvec problems = STRVEC_INIT;
  if (rc == 0) {
    /* The staging folder alone: load it as a root of one plugin. */
    zplugins_load_dir(&ps, staging, false, NULL, &problems);
    if (!ps.n)
      rc = zerr_set(err, ZE_USAGE, "%s holds no plugin: %s", source,
                    problems.nr ? problems.v[0]
                                : "no plugin.json (or .claude-plugin/plugin.json) at its top");
    else if (!id_ok(ps.v[0].id))
      rc = zerr_set(err, ZE_USAGE,
                    "the plugin's id \"%s\" cannot name a folder (letters, digits, '.', '_', "
                    "'-'); fix \"id\" (or Claude Code's \"name\") in its manifest",
                    ps.v[0].id);
  }
  if (rc == 0) {
    char *target = zpath_join(root, ps.v[0].id);
    if (zfs_exists(target))
      rc = zerr_set(err, ZE_USAGE,
                    "plugin %s is already installed at %s; remove it first "
                    "(zero plugins remove %s)",
                    ps.v[0].id, target, ps.v[0].id);
    else if (rename(staging, target) < 0)
      rc = zerr_set(err, ZE_IO, "cannot move the plugin to %s: %s", target, strerror(errno));
    if (rc == 0) {
      *dir_out = target;
      *id_out = xstrdup(ps.v[0].id);
    } else {
      free(target);
    }
  }
  if (rc != 0) zfs_remove_tree(staging);
  zplugins_release(&ps);
  strvec_clear(&problems);
  free(staging);
  free(root);
  return rc < 0 ? -1 : 0;
}

typedef struct forget_args {
  const char *dir;
} forget_args;

static int forget(json_t **doc, void *ud, zerr *err) {
  (void)err;
  const forget_args *fa = ud;
  json_object_del(json_object_get(*doc, "plugins"), fa->dir);
  return 0;
}

int zplugin_remove(const zplugin *p, zerr *err) {
  char *root = zplugins_user_root();
  char *real_root = realpath(root, NULL);
  size_t n = real_root ? strlen(real_root) : 0;
  bool under = real_root && !strncmp(p->dir, real_root, n) && p->dir[n] == '/';
  free(root);
  free(real_root);
  if (p->project || !under)
    return zerr_set(err, ZE_USAGE,
                    "plugin %s lives in %s, which zero did not install; remove the folder "
                    "yourself (a workspace's plugins belong to its repository)",
                    p->id, p->dir);
  char *state = zplugins_state_path();
  forget_args fa = {p->dir};
  int rc = zfs_exists(state) ? zjson_update_file(state, 0, 0600, forget, &fa, err) : 0;
  free(state);
  if (rc < 0) return -1;
  if (zfs_remove_tree(p->dir) < 0)
    return zerr_set(err, ZE_IO, "cannot remove %s: %s", p->dir, strerror(errno));
  return 0;
}
