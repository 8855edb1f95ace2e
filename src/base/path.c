/* path.c — lexical path helpers; see path.h. */
#include "base/path.h"

#include <assert.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/common.h"

char *zpath_join(const char *a, const char *b) {
  assert(a != NULL && b != NULL);
  if (b[0] == '/') return xstrdup(b);
  zbuf out = ZBUF_INIT;
  zbuf_addstr(&out, a);
  if (out.len == 0 || out.data[out.len - 1] != '/') zbuf_addch(&out, '/');
  zbuf_addstr(&out, b);
  return zbuf_detach(&out, NULL);
}

char *zpath_absolute(const char *p, const char *base) {
  zbuf in = ZBUF_INIT;
  if (p[0] != '/') {
    if (base) {
      zbuf_addstr(&in, base);
    } else {
      char *cwd = getcwd(NULL, 0);
      zbuf_addstr(&in, cwd ? cwd : "/");
      free(cwd);
    }
    zbuf_addch(&in, '/');
  }
  zbuf_addstr(&in, p);

  /* Normalise component by component into out. */
  zbuf out = ZBUF_INIT;
  const char *s = in.data;
  while (*s) {
    while (*s == '/') s++;
    const char *e = s;
    while (*e && *e != '/') e++;
    size_t n = (size_t)(e - s);
    if (n == 0 || (n == 1 && s[0] == '.')) {
      /* skip */
    } else if (n == 2 && s[0] == '.' && s[1] == '.') {
      char *slash = strrchr(out.data, '/');
      zbuf_setlen(&out, slash ? (size_t)(slash - out.data) : 0);
    } else {
      zbuf_addch(&out, '/');
      zbuf_add(&out, s, n);
    }
    s = e;
  }
  if (out.len == 0) zbuf_addch(&out, '/');
  zbuf_release(&in);
  return zbuf_detach(&out, NULL);
}

bool zpath_is_within(const char *root, const char *path) {
  assert(root[0] != '\0'); /* "" would contain every path that starts with "/" */
  size_t n = strlen(root);
  if (n == 1 && root[0] == '/') return path[0] == '/';
  if (strncmp(root, path, n) != 0) return false;
  return path[n] == '\0' || path[n] == '/';
}

char *zpath_relative(const char *root, const char *p) {
  if (!zpath_is_within(root, p)) return xstrdup(p);
  size_t n = strlen(root);
  if (p[n] == '\0') return xstrdup(".");
  if (n == 1) return xstrdup(p + 1);
  return xstrdup(p + n + 1);
}

const char *zpath_home(void) {
  const char *h = getenv("HOME");
  if (h && h[0]) return h;
  struct passwd *pw = getpwuid(getuid());
  return pw && pw->pw_dir ? pw->pw_dir : "/";
}

static char *xdg_dir(const char *env, const char *fallback) {
  const char *x = getenv(env);
  if (x && x[0] == '/') return zpath_join(x, "zero");
  char *base = zpath_join(zpath_home(), fallback);
  char *r = zpath_join(base, "zero");
  free(base);
  return r;
}

char *zpath_config_dir(void) { return xdg_dir("XDG_CONFIG_HOME", ".config"); }
char *zpath_data_dir(void) { return xdg_dir("XDG_DATA_HOME", ".local/share"); }

char *zpath_which(const char *name) {
  if (!name || !*name || strchr(name, '/')) return NULL;
  const char *path = getenv("PATH");
  if (!path || !*path) path = "/usr/local/bin:/usr/bin:/bin";
  for (const char *p = path; *p;) {
    size_t len = strcspn(p, ":");
    if (len) { /* an empty entry would mean the cwd: never searched */
      zbuf cand = ZBUF_INIT;
      zbuf_addf(&cand, "%.*s/%s", (int)len, p, name);
      if (access(cand.data, X_OK) == 0) return zbuf_detach(&cand, NULL);
      zbuf_release(&cand);
    }
    p += len;
    if (*p == ':') p++;
  }
  return NULL;
}
char *zpath_state_dir(void) { return xdg_dir("XDG_STATE_HOME", ".local/state"); }

char *zpath_self_exe(void) { return realpath("/proc/self/exe", NULL); }
