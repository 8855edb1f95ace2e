/* linux.c — the Linux backends (bwrap + inner stage, Landlock-only, none),
 * the probe, the environment given to commands, and the zspawner. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/common.h"
#include "base/log.h"
#include "base/secrets.h"
#include "base/fs.h"
#include "base/json.h"
#include "base/path.h"
#include "base/strvec.h"
#include "exec/reaper.h"
#include "sandbox/egress.h"
#include "sandbox/landlock_compat.h"
#include "sandbox/placeholder.h"
#include "sandbox/sandbox.h"

extern char **environ;

/* ---- probe ---------------------------------------------------------------- */

/* One small number from /proc/sys: open + read, no stdio buffer. */
static bool read_int_file(const char *path, long *out) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  char b[32];
  ssize_t n = read(fd, b, sizeof b - 1);
  close(fd);
  if (n <= 0) return false;
  b[n] = '\0';
  char *end;
  *out = strtol(b, &end, 10);
  return end != b;
}

static bool find_in_path(const char *name, char *out, size_t cap) {
  const char *path = getenv("PATH");
  if (!path || !*path) path = "/usr/local/bin:/usr/bin:/bin";
  while (*path) {
    const char *end = strchr(path, ':');
    size_t n = end ? (size_t)(end - path) : strlen(path);
    if (n > 0 && n + strlen(name) + 2 <= cap) {
      snprintf(out, cap, "%.*s/%s", (int)n, path, name);
      if (access(out, X_OK) == 0) return true;
    }
    if (!end) break;
    path = end + 1;
  }
  out[0] = '\0';
  return false;
}

static zsb_probe g_probe; /* singleton: the machine does not change during a run */
static pthread_once_t g_probe_once = PTHREAD_ONCE_INIT;

static void probe_once(void);

/* Once per process, whatever the threads (`zero acp` opens sessions while
 * other sessions' prompts start commands). */
const zsb_probe *zsb_probe_get(void) {
  pthread_once(&g_probe_once, probe_once);
  return &g_probe;
}

static void probe_once(void) {
  zsb_probe *pr = &g_probe;
  memset(pr, 0, sizeof *pr);
  pr->running_as_root = geteuid() == 0;
  find_in_path("bwrap", pr->bwrap_path, sizeof pr->bwrap_path);
  pr->landlock_abi = zll_abi();
  long v;
  /* One system call instead of generating /proc/self/status: EINVAL means
   * a kernel built without seccomp. */
  pr->seccomp_ok = prctl(PR_GET_SECCOMP, 0, 0, 0, 0) >= 0;
  pr->userns_ok = true;
  if (read_int_file("/proc/sys/user/max_user_namespaces", &v) && v == 0) {
    pr->userns_ok = false;
    snprintf(pr->userns_fix, sizeof pr->userns_fix,
             "user namespaces are disabled (user.max_user_namespaces=0); enable them with: "
             "sudo sysctl -w user.max_user_namespaces=15000");
  } else if (!pr->running_as_root &&
             read_int_file("/proc/sys/kernel/unprivileged_userns_clone", &v) && v == 0) {
    pr->userns_ok = false;
    snprintf(pr->userns_fix, sizeof pr->userns_fix,
             "unprivileged user namespaces are disabled; enable them with: sudo sysctl -w "
             "kernel.unprivileged_userns_clone=1");
  } else if (!pr->running_as_root &&
             read_int_file("/proc/sys/kernel/apparmor_restrict_unprivileged_userns", &v) &&
             v == 1) {
    pr->userns_ok = false;
    snprintf(pr->userns_fix, sizeof pr->userns_fix,
             "AppArmor restricts unprivileged user namespaces (Ubuntu 23.10+); allow bwrap with "
             "an AppArmor profile (e.g. sudo apt install apparmor-profiles and enable "
             "/etc/apparmor.d/bwrap-userns-restrict), or: sudo sysctl -w "
             "kernel.apparmor_restrict_unprivileged_userns=0");
  }
  if (pr->bwrap_path[0] && pr->userns_ok && pr->seccomp_ok) pr->backend = ZSB_BWRAP;
  else if (pr->landlock_abi > 0 && pr->seccomp_ok) pr->backend = ZSB_LANDLOCK;
  else pr->backend = ZSB_NONE;
  const char *force = getenv("ZERO_SANDBOX_FORCE_BACKEND");
  if (force && !strcmp(force, "landlock") && pr->backend == ZSB_BWRAP) pr->backend = ZSB_LANDLOCK;
  if (force && !strcmp(force, "none")) pr->backend = ZSB_NONE;
}

const char *zsb_backend_name(zsb_backend b) {
  return b == ZSB_BWRAP ? "bwrap" : b == ZSB_LANDLOCK ? "landlock" : "none";
}

const char *zsb_enforcement(zsb_backend b) {
  return b == ZSB_BWRAP ? "full" : b == ZSB_LANDLOCK ? "partial" : "none";
}

void zsb_probe_describe(const zsb_probe *pr, char *out, size_t cap) {
  snprintf(out, cap, "%s (%s): bubblewrap %s, user namespaces %s, seccomp %s, landlock %s%.0d",
           zsb_backend_name(pr->backend), zsb_enforcement(pr->backend),
           pr->bwrap_path[0] ? pr->bwrap_path : "not found", pr->userns_ok ? "yes" : "no",
           pr->seccomp_ok ? "yes" : "no", pr->landlock_abi ? "ABI " : "unavailable",
           pr->landlock_abi);
}

bool zsb_active(const zsb_policy *p) {
  return p && p->enabled && zsb_probe_get()->backend != ZSB_NONE;
}

/* ---- environment ---------------------------------------------------------- */

/* Variables never handed to a command: credentials (base/secrets.h: named
 * like one, declared by the configuration, or holding a known secret value),
 * agent sockets, and sandbox markers from outside (never trusted). */
static bool withheld_name(const char *kv) {
  if (zsecret_env_entry_is_secret(kv)) return true;
  size_t n = strcspn(kv, "=");
  static const char *const exact[] = {"SSH_AUTH_SOCK", "GPG_AGENT_INFO", "DBUS_SESSION_BUS_ADDRESS",
                                      NULL};
  for (const char *const *p = exact; *p; p++)
    if (strlen(*p) == n && !strncmp(kv, *p, n)) return true;
  return !strncmp(kv, "ZERO_SANDBOX", 12);
}

/* Names the sandbox sets itself (dropped from the inherited environment). */
static const char *const set_names[] = {
    "HOME", "TMPDIR", "TMP", "TEMP", "XDG_CACHE_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME",
    "XDG_STATE_HOME", "XDG_RUNTIME_DIR", "npm_config_cache", "NPM_CONFIG_CACHE", "PIP_CACHE_DIR",
    "CARGO_HOME", "GOPATH", "GOMODCACHE", "GOCACHE", "YARN_CACHE_FOLDER", "COREPACK_HOME",
    "PYTHONUSERBASE", NULL};

static bool is_set_name(const char *kv) {
  size_t n = strcspn(kv, "=");
  for (const char *const *p = set_names; *p; p++)
    if (strlen(*p) == n && !strncmp(kv, *p, n)) return true;
  return false;
}

static void env_add(strvec *e, const char *name, const char *value) {
  strvec_pushf(e, "%s=%s", name, value);
}

static void env_add_rt(strvec *e, const char *name, const char *rt, const char *sub) {
  cleanup_free char *p = zpath_join(rt, sub);
  env_add(e, name, p);
}

/* base: the command's own environment (NULL = zero's). egress: the
 * command reaches the network through zero's proxy (network "scoped"). */
static char **build_env(const zsb_policy *p, zsb_backend b, const char *tmpdir, bool network,
                        const char *egress_sock, char *const *base) {
  bool egress = egress_sock != NULL;
  strvec e = STRVEC_INIT;
  /* Tool homes that live under the real HOME and are found through it: keep
   * them reachable (read-only) when HOME moves to the runtime dir. */
  static const char *const keep_home[][2] = {
      {"PYENV_ROOT", ".pyenv"}, {"RUSTUP_HOME", ".rustup"}, {"NVM_DIR", ".nvm"}};
  for (char *const *kv = base ? base : environ; *kv; kv++) {
    if (withheld_name(*kv) || is_set_name(*kv)) continue;
    if (egress && zsb_egress_env_name(*kv, p->inspect_tls)) continue;
    strvec_push(&e, *kv);
  }
  for (size_t i = 0; i < ZARRAY_LEN(keep_home); i++) {
    if (getenv(keep_home[i][0])) continue;
    cleanup_free char *d = zpath_join(p->home, keep_home[i][1]);
    if (access(d, F_OK) == 0) env_add(&e, keep_home[i][0], d);
  }
  if (!getenv("GIT_CONFIG_GLOBAL")) {
    cleanup_free char *g = zpath_join(p->home, ".gitconfig");
    if (access(g, R_OK) == 0) env_add(&e, "GIT_CONFIG_GLOBAL", g);
  }
  const char *rt = p->runtime_dir;
  env_add_rt(&e, "HOME", rt, "home");
  env_add(&e, "TMPDIR", tmpdir);
  /* Caches and tool homes inside the runtime dir: writable, and gone with
   * the sandbox. Char arrays, not pointers: no start-up relocations. */
  static const struct {
    char name[18], sub[16];
  } runtime_homes[] = {{"XDG_CACHE_HOME", "cache"},
                       {"XDG_CONFIG_HOME", "config"},
                       {"XDG_DATA_HOME", "data"},
                       {"XDG_STATE_HOME", "state"},
                       {"npm_config_cache", "cache/npm"},
                       {"PIP_CACHE_DIR", "cache/pip"},
                       {"CARGO_HOME", "cargo"},
                       {"GOPATH", "go"},
                       {"GOMODCACHE", "go/pkg/mod"},
                       {"GOCACHE", "cache/go-build"},
                       {"YARN_CACHE_FOLDER", "cache/yarn"},
                       {"COREPACK_HOME", "cache/corepack"}};
  for (size_t i = 0; i < ZARRAY_LEN(runtime_homes); i++)
    env_add_rt(&e, runtime_homes[i].name, rt, runtime_homes[i].sub);
  env_add(&e, "ZERO_SANDBOXED", "1");
  env_add(&e, "ZERO_SANDBOX_BACKEND", zsb_backend_name(b));
  env_add(&e, "ZERO_SANDBOX_NETWORK", network ? "allow" : egress ? "scoped" : "deny");
  if (egress) zsb_egress_env(&e, egress_sock, p->inspect_tls);
  return strvec_detach(&e);
}

/* ---- bwrap argv ------------------------------------------------------------ */

typedef strvec argvb;

static void av(argvb *a, const char *s) { strvec_push(a, s); }
static void av2(argvb *a, const char *opt, const char *x) { av(a, opt); av(a, x); }
static void av3(argvb *a, const char *opt, const char *x, const char *y) {
  av(a, opt); av(a, x); av(a, y);
}
static void argv_free(argvb *a) { strvec_clear(a); }

static int depth(const char *p) {
  int d = 0;
  for (; *p; p++) d += *p == '/';
  return d;
}

/* Hides an existing path: an empty tmpfs over a directory, /dev/null over a file. */
static void hide(argvb *a, const char *path) {
  struct stat st;
  if (lstat(path, &st) < 0) return;
  if (S_ISLNK(st.st_mode) && stat(path, &st) < 0) return;
  if (S_ISDIR(st.st_mode)) av2(a, "--tmpfs", path);
  else av3(a, "--ro-bind", "/dev/null", path);
}

static const char *cached_self(void) {
  static char *self; /* singleton: zero's own path does not change */
  if (!self) self = zpath_self_exe();
  return self;
}

const char *zsb_inner_helper(void) {
  static char *helper; /* singleton, "" when there is none */
  if (helper) return helper[0] ? helper : NULL;
  const char *self = cached_self();
  const char *force = getenv("ZERO_SANDBOX_INNER");
  if (self && !(force && !strcmp(force, "builtin"))) {
    const char *slash = strrchr(self, '/');
    int dl = slash ? (int)(slash - self) : 0;
    static const char *const rel[] = {"/zero-sandbox-inner", "/../libexec/zero/zero-sandbox-inner"};
    for (size_t i = 0; i < ZARRAY_LEN(rel) && !helper; i++) {
      char path[4096];
      snprintf(path, sizeof path, "%.*s%s", dl, self, rel[i]);
      char *real = realpath(path, NULL);
      if (real && access(real, X_OK) == 0) helper = real;
      else free(real);
    }
  }
  if (!helper) helper = xstrdup("");
  return helper[0] ? helper : NULL;
}

const char *zsb_inner_helper_for(const zsb_policy *p) {
  const char *h = zsb_inner_helper();
  bool writable = false;
  for (size_t i = 0; h && i < p->write_roots.n; i++)
    writable |= zpath_is_within(p->write_roots.v[i], h);
  for (size_t i = 0; h && i < p->allow_write.n; i++)
    writable |= zpath_is_within(p->allow_write.v[i], h);
  if (h && zpath_is_within(p->runtime_dir, h)) writable = true;
  return writable ? NULL : h;
}

/* The inner stage for a command under p (argv[0..] appended): the small
 * helper, or zero itself — always zero itself when builtin (the egress
 * forwarder is zero's alone). */
static void add_inner_stage(argvb *a, const zsb_policy *p, const char *self, bool builtin) {
  const char *h = builtin ? NULL : zsb_inner_helper_for(p);
  if (h) {
    av(a, h);
  } else {
    av(a, self);
    av(a, "__sandbox-inner");
  }
}

/* Writable paths inside the sandbox (for Landlock in the inner stage). */
static void inner_roots(const zsb_policy *p, zsb_strv *out, bool private_tmp) {
  for (size_t i = 0; i < p->write_roots.n; i++) zsb_strv_add(out, p->write_roots.v[i]);
  for (size_t i = 0; i < p->allow_write.n; i++) zsb_strv_add(out, p->allow_write.v[i]);
  zsb_strv_add(out, p->runtime_dir);
  if (private_tmp) zsb_strv_add(out, "/tmp");
  static const char *const dev[] = {"/dev/null", "/dev/zero", "/dev/full", "/dev/tty",
                                    "/dev/ptmx", "/dev/pts", "/dev/shm", NULL};
  for (const char *const *d = dev; *d; d++) zsb_strv_add(out, *d);
}

/* The placeholder stash (placeholder.h): <runtime base>/.placeholders, the
 * runtime dir's sibling, made by zsb_runtime_prepare. The buffer is a
 * singleton: every policy of a process has the same runtime base, and holds
 * keep pointing at it until their command has exited. */
static const char *ph_stash(const zsb_policy *p) {
  static char stash[4096];
  const char *slash = strrchr(p->runtime_dir, '/');
  if (!slash || slash == p->runtime_dir) return NULL;
  snprintf(stash, sizeof stash, "%.*s/.placeholders", (int)(slash - p->runtime_dir),
           p->runtime_dir);
  return stash;
}

/* The mount for a protected name that is a file or missing: a placeholder
 * (made or adopted, and held; see placeholder.h) with /dev/null bound over it,
 * or the real file bound read-only over itself. -1 with err. */
static int protect_name(argvb *a, const char *path, char kind, const char *over, zsb_holds *holds,
                        zerr *err) {
  struct stat st;
  bool ph = kind == 'p' || (lstat(path, &st) == 0 && zsb_ph_is_placeholder(&st));
  /* a commondir (over is not /dev/null) is read by git on the host while the
   * sandbox lives: its placeholder says "." as the file bound over it does */
  const char *text = strcmp(over, "/dev/null") ? ".\n" : NULL;
  int h = ph ? zsb_ph_acquire_text(holds, path, text) : 0;
  if (h < 0 && errno == EACCES) h = 0; /* another user's placeholder: bound as it is */
  if (h < 0)
    return zerr_errno(err, ZE_IO, "cannot protect %s in the sandbox (check that the directory "
                                  "is writable by you)", path);
  if (h == 1) av3(a, "--ro-bind", over, path);
  else av3(a, "--ro-bind", path, path);
  return 0;
}

/* A denyWrite path that does not exist yet, inside a writable root: its
 * shallowest missing component gets a placeholder (as a missing protected
 * name does), so the command cannot create it. Outside every writable root
 * nothing is needed. -1 with err. */
static int block_missing(argvb *a, const char *path, const zsb_strv *roots, zsb_holds *holds,
                         zerr *err) {
  bool covered = false;
  for (size_t i = 0; i < roots->n && !covered; i++) covered = zpath_is_within(roots->v[i], path);
  if (!covered) return 0;
  cleanup_free char *first = xstrdup(path);
  for (;;) {
    char *slash = strrchr(first, '/');
    if (!slash || slash == first) break;
    *slash = '\0';
    bool parent_exists = access(first, F_OK) == 0;
    *slash = '/';
    if (parent_exists) break;
    *slash = '\0';
  }
  return protect_name(a, first, 'p', "/dev/null", holds, err);
}

/* Sockets of services that run commands for whoever connects — outside the
 * sandbox, as the caller's uid (which a sandbox of a root zero still is to
 * the host): container engines, systemd and the system bus, and the user's
 * runtime dir (systemd --user, the session bus, rootless docker/podman,
 * agent sockets). A filesystem Unix socket is reachable across network
 * namespaces, so these are hidden; blockUnixSockets refuses all of them. */
static void hide_service_sockets(argvb *a, const zsb_policy *p, const zsb_strv *roots) {
  static const char *const sockets[] = {
      "/run/docker.sock", "/var/run/docker.sock", "/run/containerd/containerd.sock",
      "/run/podman/podman.sock", "/run/systemd/private", "/run/dbus/system_bus_socket",
      "/var/run/dbus/system_bus_socket", "/run/snapd.socket", NULL};
  for (const char *const *s = sockets; *s; s++) hide(a, *s);
  char dflt[64];
  const char *xdg = getenv("XDG_RUNTIME_DIR");
  snprintf(dflt, sizeof dflt, "/run/user/%u", (unsigned)getuid());
  const char *dirs[] = {dflt, xdg && xdg[0] == '/' && strcmp(xdg, dflt) ? xdg : NULL};
  for (size_t i = 0; i < ZARRAY_LEN(dirs); i++) {
    if (!dirs[i] || !strcmp(dirs[i], "/") || zpath_is_within(dirs[i], "/tmp")) continue;
    /* an empty tmpfs over it must not cover a writable root or the workspace */
    bool covers = zpath_is_within(dirs[i], p->workspace);
    for (size_t k = 0; k < roots->n && !covers; k++) covers = zpath_is_within(dirs[i], roots->v[k]);
    if (!covers) hide(a, dirs[i]);
  }
}

/* Linked worktrees elsewhere take their config from <root>/.git/worktrees/
 * <name>/commondir and config.worktree: read-only, like .git/config, so a
 * command cannot point the user's other worktrees at a forged config. */
static void protect_linked_worktrees(argvb *a, const char *root) {
  cleanup_free char *dir = zpath_join(root, ".git/worktrees");
  DIR *d = opendir(dir);
  if (!d) return;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (e->d_name[0] == '.') continue;
    static const char *const files[] = {"commondir", "config.worktree", "gitdir"};
    for (size_t i = 0; i < ZARRAY_LEN(files); i++) {
      char path[4200];
      snprintf(path, sizeof path, "%s/%s/%s", dir, e->d_name, files[i]);
      struct stat st;
      if (lstat(path, &st) == 0 && S_ISREG(st.st_mode)) av3(a, "--ro-bind", path, path);
    }
  }
  closedir(d);
}

/* config, hooks and commondir of the git dir gd (and config.worktree),
 * when gd lies in a write root (roots NULL: known to): read-only, a missing
 * one blocked as for <root>/.git — a missing commondir reads as common_src
 * (".": the git dir itself), since git refuses an empty one. */
static int protect_git_dir_files(argvb *a, const char *gd, const zsb_strv *roots,
                                 const char *common_src, zsb_holds *holds, zerr *err) {
  bool covered = !roots;
  for (size_t i = 0; roots && i < roots->n && !covered; i++)
    covered = zpath_is_within(roots->v[i], gd);
  struct stat st;
  if (!covered || lstat(gd, &st) < 0 || !S_ISDIR(st.st_mode)) return 0;
  static const char *const names[] = {"config", "hooks", "commondir"};
  for (size_t i = 0; i < ZARRAY_LEN(names); i++) {
    cleanup_free char *path = zpath_join(gd, names[i]);
    const char *over = !strcmp(names[i], "commondir") ? common_src : "/dev/null";
    if (protect_name(a, path, lstat(path, &st) == 0 ? 'r' : 'p', over, holds, err) < 0)
      return -1;
  }
  cleanup_free char *wtcfg = zpath_join(gd, "config.worktree");
  if (lstat(wtcfg, &st) == 0) av3(a, "--ro-bind", wtcfg, wtcfg);
  return 0;
}

/* A submodule's git dir (<root>/.git/modules/<name>, names may nest):
 * its config and hooks run code when the user's git status on the host
 * enters the submodule, so they are protected as the root's own are
 * (read-only; a missing hooks dir or commondir cannot be created; a missing
 * commondir reads as common_src, "."). Module dirs nest (a submodule's
 * submodules) up to depth levels. -1 with err. */
static int protect_git_modules(argvb *a, const char *dir, int depth_left, const char *common_src,
                               zsb_holds *holds, zerr *err) {
  DIR *d = depth_left > 0 ? opendir(dir) : NULL;
  if (!d) return 0;
  int rc = 0;
  struct dirent *e;
  while (rc == 0 && (e = readdir(d))) {
    if (e->d_name[0] == '.') continue;
    cleanup_free char *sub = zpath_join(dir, e->d_name);
    struct stat st;
    if (lstat(sub, &st) < 0 || !S_ISDIR(st.st_mode)) continue;
    cleanup_free char *head = zpath_join(sub, "HEAD");
    if (access(head, F_OK) != 0) { /* a name with slashes: look deeper */
      rc = protect_git_modules(a, sub, depth_left - 1, common_src, holds, err);
      continue;
    }
    rc = protect_git_dir_files(a, sub, NULL, common_src, holds, err);
    cleanup_free char *nested = zpath_join(sub, "modules");
    if (rc == 0) rc = protect_git_modules(a, nested, depth_left - 1, common_src, holds, err);
  }
  closedir(d);
  return rc;
}

/* The path a pointer file (a .git file's "gitdir: X", a git dir's
 * commondir) names, resolved against dir; NULL when the file is not such a
 * pointer. prefix: "gitdir: " or "". Caller frees. */
static char *git_pointer(const char *file, const char *prefix, const char *dir) {
  zbuf b = ZBUF_INIT;
  zerr e = ZERR_INIT;
  char *out = NULL;
  struct stat st;
  if (lstat(file, &st) == 0 && S_ISREG(st.st_mode) && zfs_read_file(file, &b, 4096, &e) == 0 &&
      b.len > strlen(prefix) && !strncmp(b.data, prefix, strlen(prefix))) {
    char *v = b.data + strlen(prefix);
    v[strcspn(v, "\r\n")] = '\0';
    if (*v) out = zsb_resolve_path(v, dir);
  }
  zbuf_release(&b);
  return out;
}

/* A .git *file* in a write root (a linked worktree, a submodule's work
 * tree) names the git dir whose config and hooks git on the host uses
 * there; a worktree's git dir names the main one in its commondir. Each of
 * them that lies in a write root is protected like <root>/.git, so a
 * command cannot plant a core.fsmonitor there either. -1 with err. */
static int protect_gitfile_targets(argvb *a, const char *gitfile, const zsb_strv *roots,
                                   const char *common_src, zsb_holds *holds, zerr *err) {
  cleanup_free char *dir = xstrdup(gitfile);
  *strrchr(dir, '/') = '\0';
  cleanup_free char *gd = git_pointer(gitfile, "gitdir: ", dir);
  if (!gd) return 0;
  if (protect_git_dir_files(a, gd, roots, common_src, holds, err) < 0) return -1;
  cleanup_free char *common_file = zpath_join(gd, "commondir");
  cleanup_free char *common = git_pointer(common_file, "", gd);
  if (!common || !strcmp(common, gd)) return 0;
  return protect_git_dir_files(a, common, roots, common_src, holds, err);
}

/* A missing .git or .zero in a write root: the directory placeholder
 * (placeholder.h) bound read-only over itself, so `git init` and anything
 * else that would make a repository or zero's folder there fails. Another
 * user's placeholder, or a real folder made meanwhile (or the placeholder
 * claimed by zero), is bound read-only as it is. -1 with err. */
static int block_missing_dir(argvb *a, const char *path, zsb_holds *holds, zerr *err) {
  int h = zsb_ph_acquire_dir(holds, path);
  if (h < 0 && errno != EACCES)
    return zerr_errno(err, ZE_IO, "cannot protect %s in the sandbox (check that the directory "
                                  "is writable by you)", path);
  av3(a, "--ro-bind", path, path);
  return 0;
}

/* Binds each directory strictly between root and path onto itself: as
 * mount points they cannot be renamed, so path cannot be moved away and a
 * forged one put in its place. */
static void bind_ancestors(argvb *a, const char *root, char *path) {
  size_t rl = strlen(root);
  if (strncmp(path, root, rl) || !path[rl]) return;
  for (char *s = path + rl; *s && (s = strchr(s + 1, '/')); *s = '/') {
    *s = '\0';
    av3(a, "--bind", path, path);
  }
}

/* The runtime base (~/.cache/zero/runtime/v1) under a writable root (a
 * workspace of $HOME): read-only but for this command's own runtime dir,
 * and not movable. Otherwise a command could swap another workspace's
 * runtime dir — or the base itself — for a symlink, and zero would bind its
 * target read-write into the next sandbox or clean it up as "old". */
static void protect_runtime_base(argvb *a, const zsb_policy *p, const zsb_strv *roots) {
  const char *slash = strrchr(p->runtime_dir, '/');
  if (!slash || slash == p->runtime_dir) return;
  cleanup_free char *base = xstrndup(p->runtime_dir, (size_t)(slash - p->runtime_dir));
  const char *root = NULL;
  for (size_t k = 0; k < roots->n; k++)
    if (strcmp(roots->v[k], p->runtime_dir) && zpath_is_within(roots->v[k], base) &&
        (!root || strlen(roots->v[k]) < strlen(root)))
      root = roots->v[k];
  if (!root) return;
  bind_ancestors(a, root, base);
  av3(a, "--ro-bind", base, base);
  av3(a, "--bind", p->runtime_dir, p->runtime_dir);
}

/* The egress proxy's directory (<runtime base>/.egress), last so no other
 * mount covers it: an empty tmpfs holding only this run's socket and, under
 * sandbox.inspectTLS, its CA certificate and bundle, all read-only
 * (connecting needs no write access to the mount). Other runs' sockets —
 * proxies with other rules — and the CA key stay out of reach. */
static void mount_egress(argvb *a, const zsb_policy *p, const char *egress_sock) {
  if (!egress_sock) return;
  cleanup_free char *dir = xstrndup(egress_sock, (size_t)(strrchr(egress_sock, '/') - egress_sock));
  av2(a, "--tmpfs", dir);
  av3(a, "--ro-bind", egress_sock, egress_sock);
  if (!p->inspect_tls) return;
  static const char suffixes[][12] = {"ca.pem", "bundle.pem"};
  for (size_t i = 0; i < ZARRAY_LEN(suffixes); i++) {
    cleanup_free char *f = zsb_egress_file(egress_sock, suffixes[i]);
    av3(a, "--ro-bind", f, f);
  }
}

/* zero's own config dirs (keys, MCP OAuth tokens, grants, the user config
 * that decides the sandbox) are hidden: an empty tmpfs. Where a writable
 * root covers one (a workspace of $HOME), it is made first if missing — else
 * a command could create it and plant a config that turns the sandbox off
 * for the next run — and each directory between the root and it is bound
 * onto itself, so it cannot be moved away and made anew either. -1 with err. */
static int protect_config_dirs(argvb *a, const zsb_policy *p, const zsb_strv *roots, zerr *err) {
  char *cfg[2];
  size_t n = zsb_zero_config_dirs(p, cfg);
  int rc = 0;
  for (size_t i = 0; i < n; i++) {
    const char *root = NULL;
    for (size_t k = 0; k < roots->n; k++)
      if (zpath_is_within(roots->v[k], cfg[i]) &&
          (!root || strlen(roots->v[k]) < strlen(root)))
        root = roots->v[k];
    if (root && rc == 0) {
      if (access(cfg[i], F_OK) != 0 && zfs_mkdir_p(cfg[i], 0700, err) < 0) {
        zerr_prefix(err, "cannot create zero's config dir, which the sandbox must hide");
        rc = -1;
      }
      if (rc == 0) bind_ancestors(a, root, cfg[i]);
    }
    if (rc == 0) hide(a, cfg[i]);
    free(cfg[i]);
  }
  return rc;
}

/* The command's own files (zspawn_cmd.read_paths, which its caller vouches
 * for: a plugin's folder under ~/.config/zero/plugins) that lie strictly
 * below a hidden zero config dir: bound back read-only over the tmpfs, and
 * nothing else of that dir. */
static void rebind_own_config_files(argvb *a, const zsb_policy *p, const zsb_strv *reads) {
  char *cfg[2];
  size_t n = zsb_zero_config_dirs(p, cfg);
  for (size_t i = 0; reads && i < reads->n; i++) {
    char *real = realpath(reads->v[i], NULL);
    for (size_t k = 0; real && k < n; k++)
      if (strcmp(cfg[k], real) != 0 && zpath_is_within(cfg[k], real)) {
        av3(a, "--ro-bind", real, real);
        break;
      }
    free(real);
  }
  for (size_t k = 0; k < n; k++) free(cfg[k]);
}

/* Builds the bwrap command line. The placeholders made for missing protected
 * names are held in holds (the caller releases them after bwrap exited).
 * take_tty: the command runs on a pseudo-terminal left without a session,
 * which the inner stage makes the controlling terminal of a session of its
 * own inside the sandbox, so ^C typed into it interrupts the command instead
 * of killing the sandbox. -1 with err. */
static int build_bwrap(const zsb_policy *p, const zsb_probe *pr, const char *self,
                       const char *cwd, char *const cmd[], bool network, const char *egress_sock,
                       bool take_tty, const zsb_strv *reads, argvb *a, zsb_holds *holds,
                       zerr *err) {
  av(a, pr->bwrap_path);
  av(a, "--new-session");
  av(a, "--die-with-parent");
  /* Never a root sandbox: a fresh user namespace, no capabilities, and an
   * unprivileged uid inside when zero itself runs as root. */
  av(a, "--unshare-user");
  if (pr->running_as_root) {
    av2(a, "--uid", "65534");
    av2(a, "--gid", "65534");
  }
  av2(a, "--cap-drop", "ALL");
  av(a, "--unshare-pid");
  av(a, "--unshare-ipc");
  av(a, "--unshare-uts");
  av(a, "--unshare-cgroup-try");
  if (!network) av(a, "--unshare-net");
  av3(a, "--ro-bind", "/", "/");
  av2(a, "--dev", "/dev");
  av2(a, "--proc", "/proc");
  av2(a, "--tmpfs", "/tmp");
  if (zpath_is_within("/tmp", self)) av3(a, "--ro-bind", self, self);
  const char *helper = zsb_inner_helper();
  if (helper && zpath_is_within("/tmp", helper)) av3(a, "--ro-bind", helper, helper);
  /* The command's own files that live in the host's /tmp (an MCP server run
   * from a checkout under /tmp): its top-level directory there stays
   * readable, so sibling modules and node_modules resolve too. */
  for (size_t i = 0; reads && i < reads->n; i++) {
    char *real = realpath(reads->v[i], NULL);
    if (real && zpath_is_within("/tmp", real) && strcmp(real, "/tmp") != 0) {
      char *top = xstrdup(real);
      char *slash = strchr(top + strlen("/tmp/"), '/');
      if (slash) *slash = '\0';
      av3(a, "--ro-bind", top, top);
      free(top);
    }
    free(real);
  }

  /* Writable roots, shallowest first so a deeper bind is not hidden. */
  zsb_strv roots = {0};
  for (size_t i = 0; i < p->write_roots.n; i++) zsb_strv_add(&roots, p->write_roots.v[i]);
  zsb_strv_add(&roots, p->runtime_dir);
  for (size_t i = 0; i < p->allow_write.n; i++)
    if (access(p->allow_write.v[i], F_OK) == 0) zsb_strv_add(&roots, p->allow_write.v[i]);
  for (size_t i = 1; i < roots.n; i++)
    for (size_t j = i; j > 0 && depth(roots.v[j - 1]) > depth(roots.v[j]); j--) {
      char *t = roots.v[j];
      roots.v[j] = roots.v[j - 1];
      roots.v[j - 1] = t;
    }
  for (size_t i = 0; i < roots.n; i++) av3(a, "--bind", roots.v[i], roots.v[i]);
  protect_runtime_base(a, p, &roots);
  /* The placeholder stash stays read-only even under a write root (a
   * workspace of $HOME): a command must not plant what zero later puts in
   * a workspace as a placeholder. */
  holds->stash = ph_stash(p);
  bool stash_covered = false;
  for (size_t i = 0; holds->stash && i < roots.n; i++)
    stash_covered |= zpath_is_within(roots.v[i], holds->stash);
  if (stash_covered && access(holds->stash, F_OK) == 0)
    av3(a, "--ro-bind", holds->stash, holds->stash);

  /* Protected names inside each write root. A missing .git/commondir reads
   * "." inside (the git dir itself: git works as without one); the file is
   * made by zsb_runtime_prepare, /dev/null where it could not be. */
  char commondir[4200] = "/dev/null";
  if (holds->stash) {
    char dot[4200];
    snprintf(dot, sizeof dot, "%.*s/.git-commondir",
             (int)(strlen(holds->stash) - strlen("/.placeholders")), holds->stash);
    struct stat dst;
    if (lstat(dot, &dst) == 0 && S_ISREG(dst.st_mode) && dst.st_size == 1) {
      snprintf(commondir, sizeof commondir, "%s", dot);
      bool covered = false;
      for (size_t i = 0; i < roots.n && !covered; i++) covered = zpath_is_within(roots.v[i], dot);
      if (covered) av3(a, "--ro-bind", dot, dot);
    }
  }
  int rc = 0;
  for (size_t i = 0; i < p->write_roots.n; i++) {
    zsb_protected prot[ZSB_PROTECTED_MAX];
    size_t n = zsb_protected_paths(p->write_roots.v[i], prot, ZARRAY_LEN(prot));
    for (size_t k = 0; k < n; k++) {
      const char *name = strrchr(prot[k].path, '/');
      const char *over = name && !strcmp(name, "/commondir") ? commondir : "/dev/null";
      bool gitfile = prot[k].kind == 'r' && name && !strcmp(name, "/.git");
      if (prot[k].kind == 'g') av3(a, "--bind", prot[k].path, prot[k].path); /* own mount: not renamable */
      else if (prot[k].kind == 'd') rc = rc ? rc : block_missing_dir(a, prot[k].path, holds, err);
      else if (rc == 0 && protect_name(a, prot[k].path, prot[k].kind, over, holds, err) < 0) rc = -1;
      if (gitfile && rc == 0)
        rc = protect_gitfile_targets(a, prot[k].path, &roots, commondir, holds, err);
      if (prot[k].kind == 'g') {
        protect_linked_worktrees(a, p->write_roots.v[i]);
        cleanup_free char *modules = zpath_join(prot[k].path, "modules");
        if (rc == 0) rc = protect_git_modules(a, modules, 4, commondir, holds, err);
      }
      free(prot[k].path);
    }
  }
  if (rc < 0) {
    zsb_strv_release(&roots);
    return -1;
  }
  if (protect_config_dirs(a, p, &roots, err) < 0) {
    zsb_strv_release(&roots);
    return -1;
  }
  for (size_t i = 0; i < p->deny_write.n && rc == 0; i++) {
    if (access(p->deny_write.v[i], F_OK) == 0)
      av3(a, "--ro-bind", p->deny_write.v[i], p->deny_write.v[i]);
    else
      rc = block_missing(a, p->deny_write.v[i], &roots, holds, err);
  }
  if (rc < 0) {
    zsb_strv_release(&roots);
    return -1;
  }
  zsb_strv hidden = {0};
  for (size_t i = 0; i < p->deny_read.n; i++) { /* deny wins over an equal allowRead */
    hide(a, p->deny_read.v[i]);
    zsb_strv_add(&hidden, p->deny_read.v[i]);
  }
  for (const char *const *c = zsb_credential_names; *c; c++) {
    if (!strcmp(*c, ".config/zero")) continue; /* protect_config_dirs hid it */
    cleanup_free char *path = zpath_join(p->home, *c);
    hide(a, path);
    if (p->allow_read.n) zsb_strv_add(&hidden, path);
  }
  /* allowRead re-allows reads strictly below a hidden path: bound back
   * read-only over the tmpfs. */
  for (size_t i = 0; i < p->allow_read.n; i++) {
    const char *ar = p->allow_read.v[i];
    bool below = false;
    for (size_t k = 0; k < hidden.n && !below; k++)
      below = strcmp(hidden.v[k], ar) != 0 && zpath_is_within(hidden.v[k], ar);
    if (below && access(ar, F_OK) == 0) av3(a, "--ro-bind", ar, ar);
  }
  zsb_strv_release(&hidden);
  rebind_own_config_files(a, p, reads);
  hide_service_sockets(a, p, &roots);
  mount_egress(a, p, egress_sock);
  av2(a, "--chdir", cwd);
  av(a, "--");
  add_inner_stage(a, p, self, egress_sock != NULL);
  zsb_strv inner = {0};
  inner_roots(p, &inner, true);
  for (size_t i = 0; i < inner.n; i++) av2(a, "--write", inner.v[i]);
  zsb_strv_release(&inner);
  if (egress_sock) av2(a, "--egress-socket", egress_sock);
  if (p->block_unix_sockets) av(a, "--block-unix");
  if (take_tty) av(a, "--take-tty");
  av(a, "--");
  for (char *const *c = cmd; *c; c++) av(a, *c);
  zsb_strv_release(&roots);
  return 0;
}

bool zsb_downgrade_note(const zsb_policy *p, char *out, size_t cap) {
  const zsb_probe *pr = zsb_probe_get();
  zsb_backend b = p->enabled ? pr->backend : ZSB_NONE;
  out[0] = '\0';
  if (!p->enabled)
    snprintf(out, cap, "the sandbox is disabled by sandbox.enabled=false in the user config; "
                       "commands run unconfined");
  else if (b == ZSB_LANDLOCK)
    snprintf(out, cap, "no usable bubblewrap/user namespaces (%s); Landlock + seccomp only: "
                       "writes are confined, but credentials stay readable, .git/config, "
                       ".git/hooks, .zero, .vscode and .idea stay writable, a missing .git "
                       "can be created, /tmp is shared and %s",
             pr->userns_fix[0] ? pr->userns_fix : "install bubblewrap: apt install bubblewrap",
             p->network  ? "the network is open"
             : p->scoped ? "the network is cut by a socket filter (network \"scoped\" needs "
                           "bubblewrap's network namespace; loopback servers do not work either)"
                         : "the network is cut by a socket filter (loopback servers do not work "
                           "either)");
  else if (b == ZSB_NONE)
    snprintf(out, cap, "no sandbox mechanism works here (no bubblewrap/user namespaces, no "
                       "Landlock); commands run unconfined. Run zero sandbox check for the fix");
  return out[0] != '\0';
}

json_t *zsb_state_json(const zsb_policy *p) {
  zsb_backend b = p->enabled ? zsb_probe_get()->backend : ZSB_NONE;
  return json_pack("{s:s, s:s, s:s}", "backend", zsb_backend_name(b), "enforcement",
                   zsb_enforcement(b), "network", zsb_network_name(p));
}

/* ---- running ---------------------------------------------------------------- */

/* One command made ready to run confined: what to exec, with which
 * environment, and the placeholders it holds until it has exited. Every
 * backend is a plain exec of argv (bwrap, the inner stage alone, or the
 * command itself), so the process that starts it also waits for it — no zero
 * process sits in between. */
typedef struct zsb_launch {
  char **argv;          /* owned */
  char **envp;          /* owned */
  zsb_holds holds;
  zsb_backend backend;
} zsb_launch;

static void launch_release(zsb_launch *l) {
  strvec_free_array(l->argv);
  strvec_free_array(l->envp);
  zsb_ph_release(&l->holds);
  memset(l, 0, sizeof *l);
}

/* The inner stage alone (landlock backend): zero __sandbox-inner. */
static void build_inner_only(const zsb_policy *p, const char *self, const char *rt_tmp,
                             char *const cmd[], bool network, argvb *a) {
  add_inner_stage(a, p, self, false);
  zsb_strv roots = {0};
  inner_roots(p, &roots, false);
  zsb_strv_add(&roots, rt_tmp);
  for (size_t i = 0; i < roots.n; i++) av2(a, "--write", roots.v[i]);
  zsb_strv_release(&roots);
  if (p->block_unix_sockets) av(a, "--block-unix");
  if (!network) av(a, "--deny-ip");
  av(a, "--");
  for (char *const *c = cmd; *c; c++) av(a, *c);
}

/* Makes cmd ready to run under p in dir: backend b, network as given,
 * egress_sock the run's egress proxy (network "scoped", bwrap backend; NULL
 * otherwise), base_env the command's environment (NULL = zero's), reads the
 * command's own files (may be NULL), take_tty as for build_bwrap (bwrap
 * backend only). -1 with err (nothing held then). */
static int launch_prepare(const zsb_policy *p, zsb_backend b, char *const cmd[], const char *dir,
                          bool network, const char *egress_sock, bool take_tty,
                          const zsb_strv *reads, char *const *base_env, zsb_launch *l,
                          zerr *err) {
  memset(l, 0, sizeof *l);
  l->backend = b;
  if (b != ZSB_BWRAP && (p->deny_read.n || p->deny_write.n))
    return zerr_set(err, ZE_CONFIG,
                    "sandbox.denyRead / denyWrite are configured but this machine has no full "
                    "sandbox (backend %s), so the command was refused rather than run less "
                    "confined. %s",
                    zsb_backend_name(b),
                    zsb_probe_get()->userns_fix[0] ? zsb_probe_get()->userns_fix
                                                   : "Install bubblewrap (apt install "
                                                     "bubblewrap); zero sandbox check says more.");
  const char *self = b == ZSB_NONE ? "" : cached_self();
  if (!self) return zerr_set(err, ZE_INTERNAL, "cannot find zero's own binary (/proc/self/exe)");
  cleanup_free char *rt_tmp = zpath_join(p->runtime_dir, "tmp");
  argvb a = STRVEC_INIT;
  if (b == ZSB_BWRAP) {
    if (build_bwrap(p, zsb_probe_get(), self, dir, cmd, network, egress_sock, take_tty, reads, &a,
                    &l->holds, err) < 0) {
      argv_free(&a);
      zsb_ph_release(&l->holds);
      return -1;
    }
  } else if (b == ZSB_LANDLOCK) {
    build_inner_only(p, self, rt_tmp, cmd, network, &a);
  } else {
    for (char *const *c = cmd; *c; c++) av(&a, *c);
  }
  l->argv = strvec_detach(&a);
  l->envp = build_env(p, b, b == ZSB_BWRAP ? "/tmp" : rt_tmp, network,
                      b == ZSB_BWRAP ? egress_sock : NULL, base_env);
  return 0;
}

/* true when a command under p on backend b with the network as given gets
 * the egress proxy: network "scoped" under bwrap. Elsewhere a scoped
 * network is a denied one (the landlock backend's socket filter; the
 * downgrade note says so). */
static bool egress_wanted(const zsb_policy *p, zsb_backend b, bool network) {
  return p->scoped && !network && b == ZSB_BWRAP;
}

static volatile sig_atomic_t g_child_pid; /* for forwarding signals while we wait */

static void forward_signal(int sig) {
  if (g_child_pid > 0) kill((pid_t)g_child_pid, sig);
}

int zsb_run(const zsb_policy *p, char *const argv[], const char *cwd, FILE *banner, zerr *err) {
  const zsb_probe *pr = zsb_probe_get();
  zsb_backend b = p->enabled ? pr->backend : ZSB_NONE;
  if (!argv || !argv[0]) return zerr_set(err, ZE_USAGE, "no command given");
  cleanup_free char *here = cwd ? NULL : getcwd(NULL, 0);
  const char *dir = cwd ? cwd : here ? here : p->workspace;
  if (b != ZSB_BWRAP && (p->deny_read.n || p->deny_write.n)) {
    zsb_launch l;
    return launch_prepare(p, b, argv, dir, p->network, NULL, false, NULL, NULL, &l, err);
  }
  if (zsb_runtime_prepare(p, err) < 0) return -1;
  if (banner) {
    fprintf(banner, "sandbox: backend=%s enforcement=%s workspace=%s network=%s\n",
            zsb_backend_name(b), zsb_enforcement(b), p->workspace, zsb_network_name(p));
    char note[1024];
    if (zsb_downgrade_note(p, note, sizeof note)) fprintf(banner, "DOWNGRADED: %s\n", note);
    fflush(banner);
  }
  zsb_egress eg = {0};
  if (egress_wanted(p, b, p->network) && zsb_egress_start(&eg, p, NULL, err) < 0) return -1;
  zsb_launch l;
  if (launch_prepare(p, b, argv, dir, p->network, eg.socket_path, false, &p->command_reads, NULL,
                     &l, err) < 0) {
    zsb_egress_stop(&eg);
    return -1;
  }
  fflush(NULL);
  /* posix_spawn (vfork-style in glibc) skips copying zero's page tables. */
  posix_spawnattr_t at;
  posix_spawn_file_actions_t fa;
  posix_spawnattr_init(&at);
  posix_spawn_file_actions_init(&fa);
  short flags = 0;
  if (b != ZSB_BWRAP) {
    /* bwrap gets --chdir and --new-session; the inner stage alone gets the
     * same here (no TIOCSTI into this terminal). Unconfined: as it was. */
    posix_spawn_file_actions_addchdir_np(&fa, dir);
    if (b == ZSB_LANDLOCK) flags |= POSIX_SPAWN_SETSID;
  }
  /* Every signal at its default and none blocked, whatever zero ignores:
   * unconfined, the child is the command itself. */
  zreaper_spawnattr_clean_signals(&at, flags);
  pid_t pid = -1;
  int e = b == ZSB_NONE ? posix_spawnp(&pid, l.argv[0], &fa, &at, l.argv, l.envp)
                        : posix_spawn(&pid, l.argv[0], &fa, &at, l.argv, l.envp);
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&at);
  int rc = -1;
  if (e != 0) {
    errno = e;
    if (b == ZSB_BWRAP)
      zerr_errno(err, ZE_IO, "cannot run %s (reinstall bubblewrap: apt install bubblewrap)",
                 l.argv[0]);
    else
      zerr_errno(err, e == ENOENT ? ZE_NOT_FOUND : ZE_IO, "cannot run %s", l.argv[0]);
  } else {
    int status = 0;
    g_child_pid = pid;
    struct sigaction sa = {0}, old_int, old_term, old_hup;
    sa.sa_handler = forward_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    sigaction(SIGHUP, &sa, &old_hup);
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    g_child_pid = 0;
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    sigaction(SIGHUP, &old_hup, NULL);
    rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }
  launch_release(&l); /* bwrap has exited: its mounts are gone, the placeholders can go */
  zsb_egress_stop(&eg);
  return rc;
}

/* ---- spawner ---------------------------------------------------------------- */

static void holds_free(void *ud) {
  zsb_holds *h = ud;
  zsb_ph_release(h);
  free(h);
}

static int spawner_wrap(zspawner *base, zspawn_cmd *cmd, zerr *err) {
  zsb_spawner *s = (zsb_spawner *)base;
  /* The escalation is the request's own (its call's decision): nothing
   * about it is kept here for the next command. */
  bool net = cmd->network;
  if (cmd->unsandboxed) return 0; /* approved for this one command */
  const zsb_policy *p = s->policy;
  zsb_backend b = p->enabled ? zsb_probe_get()->backend : ZSB_NONE;
  if (!s->runtime_ready) {
    /* Once per run: the runtime dir does not go away while zero uses it. */
    if (zsb_runtime_prepare(p, err) < 0) return -1;
    s->runtime_ready = true;
  }
  cleanup_free char *here = cmd->cwd ? NULL : getcwd(NULL, 0);
  const char *dir = cmd->cwd ? cmd->cwd : here ? here : p->workspace;
  zsb_strv reads = {0};
  for (char **r = cmd->read_paths; r && *r; r++) zsb_strv_add(&reads, *r);
  zsb_launch l;
  /* A terminal command under bwrap takes its terminal inside the sandbox's
   * session; the starter leaves it without one. */
  bool take_tty = cmd->tty && b == ZSB_BWRAP;
  bool network = p->network || net;
  if (egress_wanted(p, b, network) && !s->egress) {
    /* Once per run, at the first scoped command: one proxy serves them all. */
    s->egress = xcalloc(1, sizeof *s->egress);
    if (zsb_egress_start(s->egress, p, &s->egress_hooks, err) < 0) {
      free(s->egress);
      s->egress = NULL;
      zsb_strv_release(&reads);
      return -1;
    }
  }
  const char *sock = egress_wanted(p, b, network) ? s->egress->socket_path : NULL;
  int rc = launch_prepare(p, b, cmd->argv, dir, network, sock, take_tty, &reads, cmd->envp, &l,
                          err);
  zsb_strv_release(&reads);
  if (rc < 0) return -1;
  cmd->tty_taken_inside = take_tty;
  cmd->group_inside = b == ZSB_BWRAP;
  strvec_free_array(cmd->argv);
  strvec_free_array(cmd->envp);
  cmd->argv = l.argv;
  cmd->envp = l.envp;
  zlog_argv("sandbox", "argv", (const char *const *)cmd->argv);
  if (l.holds.n) {
    zsb_holds *h = xmalloc(sizeof *h);
    *h = l.holds;
    cmd->on_exit = holds_free;
    cmd->on_exit_ud = h;
  } else {
    free(l.holds.v);
  }
  return 0;
}

int zsb_spawner_init(zsb_spawner *s, const zsb_policy *p, zerr *err) {
  (void)err;
  memset(s, 0, sizeof *s);
  s->policy = p;
  s->base.wrap = spawner_wrap;
  s->base.ud = s;
  return 0;
}

void zsb_spawner_release(zsb_spawner *s) {
  if (s->egress) {
    zsb_egress_stop(s->egress);
    free(s->egress);
  }
  memset(s, 0, sizeof *s);
}
