/* policy.c — building, layering and serialising the sandbox policy; see policy.h. */
#include "sandbox/policy.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/common.h"
#include "base/fs.h"
#include "base/json.h"
#include "base/path.h"
#include "net/egress/rules.h"
#include "sandbox/placeholder.h"

#define RUNTIME_GC_SECONDS (30L * 24 * 3600)
#define RUNTIME_GC_INTERVAL (24L * 3600) /* at most one scan a day */

const char *const zsb_credential_names[] = {
    ".ssh", ".aws", ".azure", ".docker", ".kube", ".netrc", ".npmrc", ".git-credentials",
    ".config/gcloud", ".config/gh", ".pypirc", ".gnupg",
    /* zero's own config dir: provider keys, MCP OAuth tokens, saved grants
     * and the user config that decides the sandbox (zsb_zero_config_dirs) */
    ".config/zero",
    NULL};

size_t zsb_zero_config_dirs(const zsb_policy *p, char *out[2]) {
  size_t n = 0;
  cleanup_free char *cfg = zpath_config_dir();
  out[n++] = zsb_resolve_path(cfg, NULL);
  cleanup_free char *home_cfg = zpath_join(p->home ? p->home : zpath_home(), ".config/zero");
  char *h = zsb_resolve_path(home_cfg, NULL);
  if (strcmp(h, out[0])) out[n++] = h;
  else free(h);
  return n;
}

void zsb_strv_add(zsb_strv *s, const char *p) {
  if (zsb_strv_has(s, p)) return;
  s->v = xrealloc(s->v, (s->n + 2) * sizeof *s->v);
  s->v[s->n++] = xstrdup(p);
  s->v[s->n] = NULL;
}

bool zsb_strv_has(const zsb_strv *s, const char *p) {
  for (size_t i = 0; i < s->n; i++)
    if (!strcmp(s->v[i], p)) return true;
  return false;
}

void zsb_strv_release(zsb_strv *s) {
  for (size_t i = 0; i < s->n; i++) free(s->v[i]);
  free(s->v);
  s->v = NULL;
  s->n = 0;
}

char *zsb_resolve_path(const char *path, const char *base) {
  cleanup_free char *expanded = NULL;
  if (path[0] == '~' && (path[1] == '/' || path[1] == '\0'))
    expanded = zpath_join(zpath_home(), path[1] ? path + 2 : "");
  else
    expanded = xstrdup(path);
  char *abs = zpath_absolute(expanded, base);
  /* Resolve the longest existing prefix, then re-append the missing tail. */
  char *real = realpath(abs, NULL);
  if (real) {
    free(abs);
    return real;
  }
  /* Walk back one component at a time until a prefix exists, then re-attach
   * the missing tail from an untouched copy. */
  cleanup_free char *orig = xstrdup(abs);
  for (char *slash = strrchr(abs, '/'); slash && slash != abs; slash = strrchr(abs, '/')) {
    *slash = '\0';
    char *head = realpath(abs, NULL);
    if (head) {
      char *out = zpath_join(head, orig + (slash - abs) + 1);
      free(head);
      free(abs);
      return out;
    }
  }
  free(abs);
  return xstrdup(orig);
}

static bool under_any(const zsb_strv *s, const char *abs) {
  for (size_t i = 0; i < s->n; i++)
    if (zpath_is_within(s->v[i], abs)) return true;
  return false;
}

static bool is_protected_rel(const char *rel) {
  /* rel is relative to a write root, no leading "./". All of .git, not only
   * its config and hooks: a file tool that may create .git/HEAD where no
   * repository exists makes one, and what git stores is changed by git (a
   * command, confined or approved), never by write_file or apply_patch. */
  static const char *const exact_or_below[] = {".zero", ".agents", ".git", ".vscode", ".idea",
                                               NULL};
  for (const char *const *p = exact_or_below; *p; p++) {
    size_t n = strlen(*p);
    if (!strncmp(rel, *p, n) && (rel[n] == '\0' || rel[n] == '/')) return true;
  }
  return false;
}

static void add_hidden_to_read_guard(zsb_policy *p);

void zsb_policy_prepare_read_guard(zsb_policy *p, bool hide_credentials) {
  zsb_strv_release(&p->read_denied);
  for (size_t i = 0; i < p->deny_read.n; i++) zsb_strv_add(&p->read_denied, p->deny_read.v[i]);
  if (hide_credentials) add_hidden_to_read_guard(p);
  zsb_policy_find_linked(p);
}

static void add_hidden_to_read_guard(zsb_policy *p) {
  const char *home = p->home ? p->home : zpath_home();
  for (const char *const *c = zsb_credential_names; *c; c++) {
    cleanup_free char *lex = zpath_join(home, *c);
    cleanup_free char *real = zsb_resolve_path(lex, NULL);
    zsb_strv_add(&p->read_denied, lex);
    zsb_strv_add(&p->read_denied, real);
  }
  char *cfg[2];
  size_t n = zsb_zero_config_dirs(p, cfg);
  for (size_t i = 0; i < n; i++) {
    zsb_strv_add(&p->read_denied, cfg[i]);
    free(cfg[i]);
  }
}

/* Adds the regular files at or below name (relative to dirfd; not
 * following symlinks) that have more than one link to p->linked. *budget
 * counts the entries still to look at. */
static void scan_linked(zsb_policy *p, int at, const char *name, const char *path,
                        size_t *budget) {
  struct stat st;
  if (*budget == 0 || fstatat(at, name, &st, AT_SYMLINK_NOFOLLOW) < 0) return;
  (*budget)--;
  if (S_ISREG(st.st_mode) && st.st_nlink > 1) {
    for (size_t i = 0; i < p->n_linked; i++)
      if (p->linked[i].dev == (unsigned long long)st.st_dev &&
          p->linked[i].ino == (unsigned long long)st.st_ino)
        return; /* the same file under two denied paths */
    p->linked = xrealloc(p->linked, (p->n_linked + 1) * sizeof *p->linked);
    p->linked[p->n_linked++] = (zsb_linked_file){xstrdup(path), (unsigned long long)st.st_dev,
                                                 (unsigned long long)st.st_ino,
                                                 (unsigned long)st.st_nlink};
    return;
  }
  if (!S_ISDIR(st.st_mode)) return;
  int fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return;
  DIR *d = fdopendir(fd);
  if (!d) {
    close(fd);
    return;
  }
  struct dirent *e;
  while (*budget && (e = readdir(d))) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
    cleanup_free char *child = zpath_join(path, e->d_name);
    scan_linked(p, dirfd(d), e->d_name, child, budget);
  }
  closedir(d);
}

size_t zsb_policy_find_linked(zsb_policy *p) {
  for (size_t i = 0; i < p->n_linked; i++) free(p->linked[i].path);
  free(p->linked);
  p->linked = NULL;
  p->n_linked = 0;
  for (size_t i = 0; i < p->read_denied.n; i++) {
    size_t budget = ZSB_LINKED_SCAN;
    scan_linked(p, AT_FDCWD, p->read_denied.v[i], p->read_denied.v[i], &budget);
  }
  return p->n_linked;
}

void zsb_linked_describe(const zsb_linked_file *l, char *out, size_t cap) {
  snprintf(out, cap,
           "denied file %s has %lu names (hard links): zero's file tools refuse every one, but "
           "a sandboxed command can read it through a name outside the denied paths, which no "
           "path rule hides",
           l->path, l->nlink);
}

/* true when abs names (through symlinks) a file of p->linked. One stat, and
 * only when some denied file has other names. */
static bool is_linked_denied(const zsb_policy *p, const char *abs) {
  struct stat st;
  if (!p->n_linked || stat(abs, &st) < 0 || !S_ISREG(st.st_mode) || st.st_nlink < 2)
    return false;
  for (size_t i = 0; i < p->n_linked; i++)
    if (p->linked[i].dev == (unsigned long long)st.st_dev &&
        p->linked[i].ino == (unsigned long long)st.st_ino)
      return true;
  return false;
}

bool zsb_policy_read_denied(const zsb_policy *p, const char *abs) {
  for (size_t i = 0; i < p->read_denied.n; i++) {
    const char *d = p->read_denied.v[i];
    if (!zpath_is_within(d, abs)) continue;
    bool again = false;
    for (size_t k = 0; k < p->allow_read.n && !again; k++) {
      const char *a = p->allow_read.v[k];
      again = strcmp(a, d) != 0 && zpath_is_within(d, a) && zpath_is_within(a, abs);
    }
    if (!again) return true;
  }
  return is_linked_denied(p, abs);
}

bool zsb_policy_read_denied_below(const zsb_policy *p, const char *dir) {
  if (p->n_linked) return true;
  for (size_t i = 0; i < p->read_denied.n; i++)
    if (strcmp(p->read_denied.v[i], dir) != 0 && zpath_is_within(dir, p->read_denied.v[i]))
      return true;
  return false;
}

bool zsb_policy_may_write(const zsb_policy *p, const char *abs) {
  if (under_any(&p->deny_write, abs)) return false;
  /* hidden credentials: a sandboxed command cannot write them either */
  for (const char *const *c = zsb_credential_names; p->home && *c; c++) {
    cleanup_free char *cred = zpath_join(p->home, *c);
    if (zpath_is_within(cred, abs)) return false;
  }
  char *cfg[2];
  size_t ncfg = zsb_zero_config_dirs(p, cfg);
  bool in_cfg = false;
  for (size_t i = 0; i < ncfg; i++) {
    in_cfg |= zpath_is_within(cfg[i], abs);
    free(cfg[i]);
  }
  if (in_cfg) return false;
  for (size_t i = 0; i < p->write_roots.n; i++) {
    const char *root = p->write_roots.v[i];
    if (!zpath_is_within(root, abs)) continue;
    cleanup_free char *rel = zpath_relative(root, abs);
    if (is_protected_rel(rel)) return false;
    return true;
  }
  return under_any(&p->allow_write, abs);
}

size_t zsb_protected_paths(const char *root, zsb_protected *out, size_t max) {
  size_t n = 0;
  struct stat st;
#define ADD(rel, k)                                     \
  do {                                                  \
    if (n < max) {                                      \
      out[n].path = zpath_join(root, rel);              \
      out[n].kind = (k);                                \
      n++;                                              \
    }                                                   \
  } while (0)
  /* zero's and the agents' config, and the editors' workspace settings,
   * which name programs the editor runs when the user opens the folder
   * (VS Code tasks run on folderOpen, interpreter and tool paths; JetBrains
   * startup tasks and run configurations) */
  static const char *const names[] = {".agents", ".vscode", ".idea"};
  for (size_t i = 0; i < ZARRAY_LEN(names); i++) {
    cleanup_free char *p = zpath_join(root, names[i]);
    ADD(names[i], lstat(p, &st) == 0 ? 'r' : 'p');
  }
  /* A missing .zero gets a directory placeholder, not a file: zero itself
   * makes folders in it (swarm mailboxes, worktrees, specs) while sandboxes
   * of the run live — the hook runner lasts the whole run — and claims the
   * placeholder for that (zsb_ph_make_own_dir), which a file would forbid. */
  cleanup_free char *dot_zero = zpath_join(root, ".zero");
  ADD(".zero", lstat(dot_zero, &st) < 0 || zsb_ph_is_dir_placeholder(&st) ? 'd' : 'r');
  cleanup_free char *git = zpath_join(root, ".git");
  if (lstat(git, &st) < 0 || zsb_ph_is_dir_placeholder(&st)) {
    /* No repository yet: one made inside would be the command's, with a
     * config that names commands (core.fsmonitor) which the user's next
     * git status on the host runs. A directory placeholder blocks it. */
    ADD(".git", 'd');
  } else {
    if (S_ISDIR(st.st_mode)) {
      ADD(".git", 'g');
      cleanup_free char *cfg = zpath_join(git, "config");
      cleanup_free char *hooks = zpath_join(git, "hooks");
      ADD(".git/config", lstat(cfg, &st) == 0 ? 'r' : 'p');
      ADD(".git/hooks", lstat(hooks, &st) == 0 ? 'r' : 'p');
      /* commondir names the dir git takes config and hooks from: a planted
       * one swaps them for forged ones (core.fsmonitor runs at the user's
       * next git status), so it is protected like config itself */
      cleanup_free char *common = zpath_join(git, "commondir");
      ADD(".git/commondir", lstat(common, &st) == 0 ? 'r' : 'p');
      /* the main worktree's own config (extensions.worktreeConfig) */
      cleanup_free char *wtcfg = zpath_join(git, "config.worktree");
      if (lstat(wtcfg, &st) == 0) ADD(".git/config.worktree", 'r');
    } else {
      ADD(".git", 'r'); /* a worktree / submodule pointer file */
    }
  }
#undef ADD
  return n;
}

/* ---- config layers ------------------------------------------------------- */

static int add_paths(zsb_strv *dst, json_t *arr, const char *base, const char *file,
                     const char *key, zerr *err) {
  if (!arr) return 0;
  if (!json_is_array(arr))
    return zerr_set(err, ZE_USAGE, "%s: sandbox.%s must be an array of paths", file, key);
  size_t i;
  json_t *v;
  json_array_foreach(arr, i, v) {
    if (!json_is_string(v))
      return zerr_set(err, ZE_USAGE, "%s: sandbox.%s[%zu] must be a string path", file, key, i);
    char *r = zsb_resolve_path(json_string_value(v), base);
    zsb_strv_add(dst, r);
    free(r);
  }
  return 0;
}

/* Egress patterns (net/egress/rules.h), each checked: a malformed one is an
 * error naming the file, the key and the entry. */
static int add_domains(zsb_strv *dst, json_t *arr, const char *file, const char *key,
                       zerr *err) {
  if (!arr) return 0;
  if (!json_is_array(arr))
    return zerr_set(err, ZE_USAGE, "%s: sandbox.%s must be an array of host patterns", file, key);
  size_t i;
  json_t *v;
  json_array_foreach(arr, i, v) {
    zeg_pattern pat;
    zerr e = ZERR_INIT;
    if (!json_is_string(v))
      return zerr_set(err, ZE_USAGE, "%s: sandbox.%s[%zu] must be a string", file, key, i);
    if (zeg_pattern_parse(json_string_value(v), &pat, &e) < 0)
      return zerr_set(err, ZE_USAGE, "%s: sandbox.%s[%zu]: %s", file, key, i, e.msg);
    zsb_strv_add(dst, json_string_value(v));
  }
  return 0;
}

static json_t *load_sandbox_obj(const char *path, json_t **doc_out, zerr *err) {
  *doc_out = NULL;
  if (!zfs_exists(path)) return NULL;
  zerr e = ZERR_INIT;
  json_t *doc = zjson_load_file(path, &e);
  if (!doc) {
    zerr_set(err, ZE_USAGE, "%s", e.msg);
    return (json_t *)-1;
  }
  *doc_out = doc;
  json_t *sb = json_object_get(doc, "sandbox");
  if (sb && !json_is_object(sb)) {
    zerr_set(err, ZE_USAGE, "%s: \"sandbox\" must be an object", path);
    return (json_t *)-1;
  }
  return sb;
}

/* sandbox.inspectTLS of a config file into *out, when given. -1 with err
 * when it is not a boolean. */
static int inspect_tls_value(const json_t *sb, const char *file, bool *out, zerr *err) {
  json_t *v = json_object_get(sb, "inspectTLS");
  if (!v) return 0;
  if (!json_is_boolean(v))
    return zerr_set(err, ZE_USAGE, "%s: sandbox.inspectTLS must be true or false", file);
  *out = json_is_true(v);
  return 0;
}

/* network.caBundle of the user config (config.c checks it at load; here
 * only the path is wanted, for the egress proxy's upstream checks). */
static void user_ca_bundle(zsb_policy *p, const json_t *doc) {
  const char *b = json_string_value(json_object_get(json_object_get(doc, "network"), "caBundle"));
  if (b && *b) p->ca_bundle = zsb_resolve_path(b, NULL);
}

static int apply_user(zsb_policy *p, json_t *sb, const char *file, zerr *err) {
  json_t *v;
  if ((v = json_object_get(sb, "enabled")) && json_is_boolean(v)) p->enabled = json_is_true(v);
  if ((v = json_object_get(sb, "network"))) {
    const char *s = json_string_value(v);
    if (!s || (strcmp(s, "allow") && strcmp(s, "deny") && strcmp(s, "scoped")))
      return zerr_set(err, ZE_USAGE,
                      "%s: sandbox.network must be \"allow\", \"scoped\" or \"deny\"", file);
    if (!strcmp(s, "allow")) p->network = true;
    if (!strcmp(s, "scoped")) p->scoped = true;
  }
  if (add_domains(&p->allowed_domains, json_object_get(sb, "allowedDomains"), file,
                  "allowedDomains", err) < 0 ||
      add_domains(&p->denied_domains, json_object_get(sb, "deniedDomains"), file,
                  "deniedDomains", err) < 0)
    return -1;
  if ((v = json_object_get(sb, "blockUnixSockets")) && json_is_true(v))
    p->block_unix_sockets = true;
  if (inspect_tls_value(sb, file, &p->inspect_tls, err) < 0) return -1;
  if ((v = json_object_get(sb, "enforceToolNetwork")) && json_is_boolean(v))
    p->enforce_tool_network = json_is_true(v);
  const char *home = zpath_home();
  if (add_paths(&p->write_roots, json_object_get(sb, "additionalWriteRoots"), home, file,
                "additionalWriteRoots", err) < 0 ||
      add_paths(&p->deny_read, json_object_get(sb, "denyRead"), home, file, "denyRead", err) < 0 ||
      add_paths(&p->deny_write, json_object_get(sb, "denyWrite"), home, file, "denyWrite", err) <
          0 ||
      add_paths(&p->allow_read, json_object_get(sb, "allowRead"), home, file, "allowRead", err) <
          0 ||
      add_paths(&p->allow_write, json_object_get(sb, "allowWrite"), home, file, "allowWrite",
                err) < 0)
    return -1;
  return 0;
}

/* The project file can only tighten. */
static int apply_project(zsb_policy *p, json_t *sb, const char *file, zerr *err) {
  json_t *v;
  if ((v = json_object_get(sb, "network"))) {
    const char *s = json_string_value(v);
    if (!s || (strcmp(s, "allow") && strcmp(s, "deny") && strcmp(s, "scoped")))
      return zerr_set(err, ZE_USAGE,
                      "%s: sandbox.network must be \"allow\", \"scoped\" or \"deny\"", file);
    if (!strcmp(s, "deny")) {
      p->network = false;
      p->scoped = false;
    } else if (!strcmp(s, "scoped") && p->network) {
      /* "allow" narrowed: every name the user allowed, as far as the
       * project's own list lets through. */
      p->network = false;
      p->scoped = true;
      zsb_strv_add(&p->allowed_domains, "*");
    } else if (!strcmp(s, "scoped") && !p->scoped) {
      zsb_strv_add(&p->notes, "project config asks for network \"scoped\"; ignored (the user "
                              "config denies the network)");
    } else if (!strcmp(s, "allow") && !p->network) {
      zsb_strv_add(&p->notes, "project config asks for network \"allow\"; ignored (only the "
                              "user config or --network can allow the network)");
    }
  }
  json_t *pa = json_object_get(sb, "allowedDomains");
  if (add_domains(&p->project_domains, pa, file, "allowedDomains", err) < 0 ||
      add_domains(&p->denied_domains, json_object_get(sb, "deniedDomains"), file,
                  "deniedDomains", err) < 0)
    return -1;
  if (pa) p->project_narrows = true;
  if ((v = json_object_get(sb, "blockUnixSockets")) && json_is_true(v))
    p->block_unix_sockets = true;
  bool inspect = p->inspect_tls;
  if (inspect_tls_value(sb, file, &inspect, err) < 0) return -1;
  if (inspect) p->inspect_tls = true;
  else if (p->inspect_tls)
    zsb_strv_add(&p->notes, "project config sets sandbox.inspectTLS false; ignored (only the "
                            "user config may turn TLS inspection off)");
  if ((v = json_object_get(sb, "enabled")) && json_is_false(v))
    zsb_strv_add(&p->notes, "project config asks to disable the sandbox; ignored");
  if ((v = json_object_get(sb, "enforceToolNetwork")) && json_is_true(v))
    p->enforce_tool_network = true;
  else if (v && json_is_false(v))
    zsb_strv_add(&p->notes, "project config sets sandbox.enforceToolNetwork false; ignored "
                            "(only the user config may exempt network tools)");
  static const char *const loosen[] = {"additionalWriteRoots", "allowWrite", "allowRead"};
  for (size_t i = 0; i < ZARRAY_LEN(loosen); i++)
    if (json_object_get(sb, loosen[i])) {
      zbuf m = ZBUF_INIT;
      zbuf_addf(&m, "project config sets sandbox.%s; ignored (only the user config may widen "
                    "access)", loosen[i]);
      zsb_strv_add(&p->notes, m.data);
      zbuf_release(&m);
    }
  if (add_paths(&p->deny_read, json_object_get(sb, "denyRead"), p->workspace, file, "denyRead",
                err) < 0 ||
      add_paths(&p->deny_write, json_object_get(sb, "denyWrite"), p->workspace, file,
                "denyWrite", err) < 0)
    return -1;
  return 0;
}

static uint64_t fnv1a(const char *s) {
  uint64_t h = 1469598103934665603ull;
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
  return h;
}

#define RUNTIME_REL "zero/runtime/v1" /* below the cache dir */

/* The cache dir the runtime base lives in: $XDG_CACHE_HOME, or ~/.cache
 * when XDG_CACHE_HOME is unset or lies inside a write root of p (a cache
 * dir inside the workspace would put every sandbox's HOME and caches, the
 * placeholder stash and the other workspaces' runtime dirs into the
 * workspace, where zero's own file tools write freely). When ~/.cache is
 * inside a write root too (a workspace of $HOME), it stays there:
 * protect_runtime_base (linux.c) makes it read-only in the sandbox. p may be
 * NULL (no write roots known). Caller frees. */
static char *runtime_cache_dir(const zsb_policy *p) {
  const char *xdg = getenv("XDG_CACHE_HOME");
  if (xdg && xdg[0] == '/') {
    char *real = zsb_resolve_path(xdg, NULL);
    if (!p || !under_any(&p->write_roots, real)) return real;
    free(real);
  }
  return zpath_join(p && p->home ? p->home : zpath_home(), ".cache");
}

static char *runtime_base(const zsb_policy *p) {
  cleanup_free char *cache = runtime_cache_dir(p);
  return zpath_join(cache, RUNTIME_REL);
}

/* --allow-domain: the user's own, for this run; a denied network becomes
 * scoped (the project config, applied after, may still deny). */
static int add_flag_domains(zsb_policy *p, const zsb_policy_opts *o, zerr *err) {
  for (size_t i = 0; i < o->n_allow_domains; i++) {
    zeg_pattern pat;
    if (zeg_pattern_parse(o->allow_domains[i], &pat, err) < 0) {
      zerr_prefix(err, "--allow-domain");
      return -1;
    }
    zsb_strv_add(&p->allowed_domains, o->allow_domains[i]);
  }
  if (o->n_allow_domains && !p->network) p->scoped = true;
  return 0;
}

const char *zsb_network_name(const zsb_policy *p) {
  return p->network ? "allow" : p->scoped ? "scoped" : "deny";
}

int zsb_policy_build(zsb_policy *p, const zsb_policy_opts *o, zerr *err) {
  memset(p, 0, sizeof *p);
  p->enabled = true;
  p->enforce_tool_network = true;
  p->network = o->network;
  cleanup_free char *cwd = getcwd(NULL, 0);
  const char *ws = o->workspace ? o->workspace : cwd;
  if (!ws) return zerr_errno(err, ZE_IO, "cannot determine the current directory");
  p->workspace = realpath(ws, NULL);
  if (!p->workspace)
    return zerr_errno(err, ZE_USAGE, "workspace %s cannot be resolved", ws);
  p->home = xstrdup(zpath_home());
  zsb_strv_add(&p->write_roots, p->workspace);
  for (size_t i = 0; i < o->n_add_dirs; i++) {
    char *r = realpath(o->add_dirs[i], NULL);
    if (!r) {
      zerr_errno(err, ZE_USAGE, "--add-dir %s", o->add_dirs[i]);
      zerr_prefix(err, "give an existing directory");
      return -1;
    }
    zsb_strv_add(&p->write_roots, r);
    free(r);
  }
  if (!o->skip_config) {
    cleanup_free char *cdir = zpath_config_dir();
    cleanup_free char *user = o->user_config ? xstrdup(o->user_config)
                                             : zpath_join(cdir, "config.json");
    json_t *doc = NULL;
    json_t *sb = load_sandbox_obj(user, &doc, err);
    int rc = 0;
    if (sb == (json_t *)-1) rc = -1;
    else if (sb) rc = apply_user(p, sb, user, err);
    if (doc) user_ca_bundle(p, doc);
    json_decref(doc);
    if (rc < 0) return -1;
    if (add_flag_domains(p, o, err) < 0) return -1;
    cleanup_free char *proj = zpath_join(p->workspace, ".zero/config.json");
    sb = load_sandbox_obj(proj, &doc, err);
    if (sb == (json_t *)-1) rc = -1;
    else if (sb) rc = apply_project(p, sb, proj, err);
    json_decref(doc);
    if (rc < 0) return -1;
  }
  if (o->skip_config && add_flag_domains(p, o, err) < 0) return -1;
  /* The OAuth token store moved out of the config dir
   * ($ZERO_OAUTH_TOKENS_PATH, oauth/oauth.h) is hidden and kept from
   * writes like the dir itself. */
  const char *store = getenv("ZERO_OAUTH_TOKENS_PATH");
  if (store && *store) {
    char *r = zsb_resolve_path(store, p->workspace);
    zsb_strv_add(&p->deny_read, r);
    zsb_strv_add(&p->deny_write, r);
    free(r);
  }
  cleanup_free char *base = runtime_base(p);
  char hash[17];
  snprintf(hash, sizeof hash, "%016llx", (unsigned long long)fnv1a(p->workspace));
  p->runtime_dir = zpath_join(base, hash);
  return 0;
}

void zsb_policy_release(zsb_policy *p) {
  free(p->workspace);
  free(p->runtime_dir);
  free(p->home);
  free(p->ca_bundle);
  zsb_strv_release(&p->write_roots);
  zsb_strv_release(&p->deny_read);
  zsb_strv_release(&p->deny_write);
  zsb_strv_release(&p->allow_read);
  zsb_strv_release(&p->allow_write);
  zsb_strv_release(&p->notes);
  zsb_strv_release(&p->allowed_domains);
  zsb_strv_release(&p->denied_domains);
  zsb_strv_release(&p->project_domains);
  zsb_strv_release(&p->command_reads);
  zsb_strv_release(&p->read_denied);
  for (size_t i = 0; i < p->n_linked; i++) free(p->linked[i].path);
  free(p->linked);
  memset(p, 0, sizeof *p);
}

static json_t *strv_json(const zsb_strv *s) {
  json_t *a = json_array();
  for (size_t i = 0; i < s->n; i++) json_array_append_new(a, json_string(s->v[i]));
  return a;
}

json_t *zsb_policy_to_json(const zsb_policy *p) {
  json_t *j = json_pack("{s:s, s:o, s:o, s:o, s:o, s:o, s:s, s:b, s:b, s:s, s:s, s:o}",
                        "workspace", p->workspace, "writeRoots", strv_json(&p->write_roots),
                        "denyRead", strv_json(&p->deny_read), "denyWrite",
                        strv_json(&p->deny_write), "allowRead", strv_json(&p->allow_read),
                        "allowWrite", strv_json(&p->allow_write), "network",
                        zsb_network_name(p), "blockUnixSockets", p->block_unix_sockets,
                        "enabled", p->enabled, "runtimeDir", p->runtime_dir, "home", p->home,
                        "notes", strv_json(&p->notes));
  json_object_set_new(j, "allowedDomains", strv_json(&p->allowed_domains));
  json_object_set_new(j, "deniedDomains", strv_json(&p->denied_domains));
  if (p->project_narrows)
    json_object_set_new(j, "projectAllowedDomains", strv_json(&p->project_domains));
  json_object_set_new(j, "inspectTLS", json_boolean(p->inspect_tls));
  return j;
}

/* The domain lists of the JSON form (absent: empty). */
static void domains_from(zsb_strv *s, const json_t *j, const char *key) {
  json_t *a = json_object_get(j, key);
  size_t i;
  json_t *v;
  json_array_foreach(a, i, v) {
    zeg_pattern pat;
    if (json_is_string(v) && zeg_pattern_parse(json_string_value(v), &pat, NULL) == 0)
      zsb_strv_add(s, json_string_value(v));
  }
}

static int strv_from(zsb_strv *s, const json_t *j, const char *key, zerr *err) {
  json_t *a = json_object_get(j, key);
  if (!json_is_array(a)) return zerr_set(err, ZE_INVALID, "sandbox policy: %s missing", key);
  size_t i;
  json_t *v;
  json_array_foreach(a, i, v) {
    if (!json_is_string(v) || json_string_value(v)[0] != '/')
      return zerr_set(err, ZE_INVALID, "sandbox policy: %s must hold absolute paths", key);
    zsb_strv_add(s, json_string_value(v));
  }
  return 0;
}

int zsb_policy_from_json(zsb_policy *p, const json_t *j, zerr *err) {
  memset(p, 0, sizeof *p);
  const char *ws = zjson_str(j, "workspace"), *rt = zjson_str(j, "runtimeDir"),
             *home = zjson_str(j, "home"), *net = zjson_str(j, "network");
  if (!ws || ws[0] != '/' || !rt || rt[0] != '/' || !home || !net)
    return zerr_set(err, ZE_INVALID, "sandbox policy: workspace, runtimeDir, home, network "
                                     "required");
  p->workspace = xstrdup(ws);
  p->runtime_dir = xstrdup(rt);
  p->home = xstrdup(home);
  p->network = !strcmp(net, "allow");
  p->scoped = !strcmp(net, "scoped");
  domains_from(&p->allowed_domains, j, "allowedDomains");
  domains_from(&p->denied_domains, j, "deniedDomains");
  p->project_narrows = json_object_get(j, "projectAllowedDomains") != NULL;
  domains_from(&p->project_domains, j, "projectAllowedDomains");
  p->block_unix_sockets = zjson_bool_or(j, "blockUnixSockets", false);
  p->inspect_tls = zjson_bool_or(j, "inspectTLS", false);
  p->enabled = zjson_bool_or(j, "enabled", true);
  if (strv_from(&p->write_roots, j, "writeRoots", err) < 0 ||
      strv_from(&p->deny_read, j, "denyRead", err) < 0 ||
      strv_from(&p->deny_write, j, "denyWrite", err) < 0 ||
      strv_from(&p->allow_read, j, "allowRead", err) < 0 ||
      strv_from(&p->allow_write, j, "allowWrite", err) < 0)
    return -1;
  return 0;
}

/* ---- runtime dir ----------------------------------------------------------- */

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
  (void)st;
  (void)ftw;
  if (flag == FTW_DP) rmdir(path);
  else unlink(path);
  return 0;
}

/* A runtime dir's name: the workspace hash, 16 lowercase hex digits. The GC
 * removes nothing else, whatever the base dir holds. */
static bool runtime_name(const char *n) {
  size_t i = 0;
  for (; n[i]; i++)
    if (!((n[i] >= '0' && n[i] <= '9') || (n[i] >= 'a' && n[i] <= 'f'))) return false;
  return i == 16;
}

/* Removes sibling runtime dirs unused for 30 days. The scan runs at most once
 * a day (base/.gc-stamp records the last one): it lists and stats every
 * workspace's dir, and zsb_runtime_prepare runs before every sandboxed
 * command. The stamp lives in the base dir, which no sandbox can write. */
static void gc_runtime(const char *base, const char *keep) {
  time_t now = time(NULL);
  cleanup_free char *stamp = zpath_join(base, ".gc-stamp");
  struct stat sst;
  if (stat(stamp, &sst) == 0 && sst.st_mtime <= now && now - sst.st_mtime < RUNTIME_GC_INTERVAL)
    return;
  int fd = open(stamp, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd >= 0) {
    futimens(fd, NULL);
    close(fd);
  }
  DIR *d = opendir(base);
  if (!d) return;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (e->d_name[0] == '.' || !runtime_name(e->d_name)) continue;
    cleanup_free char *path = zpath_join(base, e->d_name);
    struct stat st;
    if (!strcmp(path, keep) || lstat(path, &st) < 0 || !S_ISDIR(st.st_mode)) continue;
    if (now - st.st_mtime > RUNTIME_GC_SECONDS) nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
  }
  closedir(d);
}

/* Opens the directory name below dirfd, making it (0700) when missing,
 * without following a symlink: it must be a directory of ours that nobody
 * else may write. path is name's full path, for the message. Returns the
 * descriptor, or -1 with err. */
static int open_private_dir(int at, const char *name, const char *path, zerr *err) {
  if (mkdirat(at, name, 0700) < 0 && errno != EEXIST)
    return zerr_errno(err, ZE_IO, "cannot create the sandbox runtime dir %s", path);
  int fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  struct stat st;
  if (fd >= 0 && fstat(fd, &st) == 0 && st.st_uid == geteuid() && !(st.st_mode & 022))
    return fd;
  if (fd >= 0) close(fd);
  return zerr_set(err, ZE_CONFIG,
                  "the sandbox runtime dir %s is not a directory of yours that only you can "
                  "write (a symlink?); zero binds it into every sandbox and does not follow "
                  "it. Remove it (rm -rf '%s') and run again", path, path);
}

/* Makes the runtime dir's chain below the cache dir (zero/runtime/v1/<hash>)
 * one component at a time, dirfd-relative, never through a symlink. The
 * cache dir itself is the user's (it may be a symlink they made). */
static int make_runtime_chain(const zsb_policy *p, zerr *err) {
  /* runtime_dir is <cache>/zero/runtime/v1/<hash> (zsb_policy_build) */
  cleanup_free char *cache = xstrdup(p->runtime_dir);
  for (int up = 0; up < 4; up++) {
    char *slash = strrchr(cache, '/');
    if (!slash || slash == cache)
      return zerr_set(err, ZE_INTERNAL, "sandbox runtime dir %s is too short", p->runtime_dir);
    *slash = '\0';
  }
  if (zfs_mkdir_p(cache, 0700, err) < 0) return -1;
  int fd = open(cache, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return zerr_errno(err, ZE_IO, "cannot open the cache dir %s", cache);
  cleanup_free char *rel = zpath_relative(cache, p->runtime_dir);
  zbuf shown = ZBUF_INIT;
  zbuf_addstr(&shown, cache);
  int rc = 0;
  for (char *name = rel, *next; rc == 0 && name && *name; name = next) {
    next = strchr(name, '/');
    if (next) *next++ = '\0';
    zbuf_addf(&shown, "/%s", name);
    int sub = open_private_dir(fd, name, shown.data, err);
    close(fd);
    fd = sub;
    if (fd < 0) rc = -1;
  }
  if (fd >= 0) {
    fchmod(fd, 0700);
    static const char *const subdirs[] = {"home", "tmp", "cache", "config", "data", "state"};
    for (size_t i = 0; rc == 0 && i < ZARRAY_LEN(subdirs); i++)
      if (mkdirat(fd, subdirs[i], 0700) < 0 && errno != EEXIST)
        rc = zerr_errno(err, ZE_IO, "cannot create the sandbox runtime dir %s/%s",
                        p->runtime_dir, subdirs[i]);
    futimens(fd, NULL); /* marks it used, for the 30-day GC */
    close(fd);
  }
  zbuf_release(&shown);
  return rc;
}

int zsb_runtime_prepare(const zsb_policy *p, zerr *err) {
  /* Never through a symlink or into someone else's dir: it is bound
   * read-write into every sandbox of this workspace. */
  if (make_runtime_chain(p, err) < 0) return -1;
  const char *slash = strrchr(p->runtime_dir, '/');
  cleanup_free char *base = xstrndup(p->runtime_dir, (size_t)(slash - p->runtime_dir));
  /* The placeholder stash (sandbox/placeholder.h); the GC skips dot names.
   * Without it placeholders are made and deleted each time, so a failure
   * here is not an error. */
  cleanup_free char *stash = zpath_join(base, ".placeholders");
  mkdir(stash, 0700);
  /* What a sandboxed git reads as .git/commondir where the real one is
   * missing: ".", the git dir itself (zsb_commondir_source). */
  cleanup_free char *dot = zpath_join(base, ".git-commondir");
  int fd = open(dot, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0444);
  if (fd >= 0) {
    if (write(fd, ".", 1) != 1) unlink(dot);
    close(fd);
  }
  gc_runtime(base, p->runtime_dir);
  return 0;
}
