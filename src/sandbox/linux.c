/* linux.c — the Linux backends (bwrap + inner stage, Landlock-only, none),
 * the probe, the environment given to commands, and the zspawner. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/common.h"
#include "base/json.h"
#include "base/path.h"
#include "sandbox/landlock_compat.h"
#include "sandbox/sandbox.h"

extern char **environ;

/* ---- probe ---------------------------------------------------------------- */

static bool read_int_file(const char *path, long *out) {
  FILE *f = fopen(path, "r");
  if (!f) return false;
  bool ok = fscanf(f, "%ld", out) == 1;
  fclose(f);
  return ok;
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
static bool g_probed;

const zsb_probe *zsb_probe_get(void) {
  if (g_probed) return &g_probe;
  g_probed = true;
  zsb_probe *pr = &g_probe;
  memset(pr, 0, sizeof *pr);
  pr->running_as_root = geteuid() == 0;
  find_in_path("bwrap", pr->bwrap_path, sizeof pr->bwrap_path);
  pr->landlock_abi = zll_abi();
  long v;
  pr->seccomp_ok = access("/proc/self/status", R_OK) == 0; /* refined below */
  {
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    pr->seccomp_ok = false;
    while (f && fgets(line, sizeof line, f))
      if (!strncmp(line, "Seccomp:", 8)) pr->seccomp_ok = true;
    if (f) fclose(f);
  }
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
  return pr;
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

/* Variables never handed to a command: provider keys and anything named like
 * a secret, agent sockets, and sandbox markers from outside (never trusted). */
static bool secret_name(const char *kv) {
  size_t n = strcspn(kv, "=");
  char name[256];
  if (n >= sizeof name) return true;
  for (size_t i = 0; i < n; i++) name[i] = (char)((kv[i] >= 'a' && kv[i] <= 'z') ? kv[i] - 32 : kv[i]);
  name[n] = '\0';
  static const char *const parts[] = {"API_KEY", "APIKEY", "TOKEN", "SECRET", "PASSWORD",
                                      "PASSWD", "CREDENTIAL", "ACCESS_KEY", "PRIVATE_KEY",
                                      "AUTH", NULL};
  for (const char *const *p = parts; *p; p++)
    if (strstr(name, *p)) return true;
  static const char *const exact[] = {"SSH_AUTH_SOCK", "GPG_AGENT_INFO", "DBUS_SESSION_BUS_ADDRESS",
                                      NULL};
  for (const char *const *p = exact; *p; p++)
    if (!strcmp(name, *p)) return true;
  return !strncmp(name, "ZERO_SANDBOX", 12);
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

typedef struct envv {
  char **v;
  size_t n;
} envv;

static void env_add(envv *e, const char *name, const char *value) {
  e->v = xrealloc(e->v, (e->n + 2) * sizeof *e->v);
  zbuf b = ZBUF_INIT;
  zbuf_addf(&b, "%s=%s", name, value);
  e->v[e->n++] = zbuf_detach(&b, NULL);
  e->v[e->n] = NULL;
}

static void env_add_rt(envv *e, const char *name, const char *rt, const char *sub) {
  cleanup_free char *p = zpath_join(rt, sub);
  env_add(e, name, p);
}

static void env_free(envv *e) {
  for (size_t i = 0; i < e->n; i++) free(e->v[i]);
  free(e->v);
}

static char **build_env(const zsb_policy *p, zsb_backend b, const char *tmpdir) {
  envv e = {xcalloc(1, sizeof(char *)), 0};
  /* Tool homes that live under the real HOME and are found through it: keep
   * them reachable (read-only) when HOME moves to the runtime dir. */
  static const char *const keep_home[][2] = {
      {"PYENV_ROOT", ".pyenv"}, {"RUSTUP_HOME", ".rustup"}, {"NVM_DIR", ".nvm"}};
  for (char **kv = environ; *kv; kv++) {
    if (secret_name(*kv) || is_set_name(*kv)) continue;
    e.v = xrealloc(e.v, (e.n + 2) * sizeof *e.v);
    e.v[e.n++] = xstrdup(*kv);
    e.v[e.n] = NULL;
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
  env_add_rt(&e, "XDG_CACHE_HOME", rt, "cache");
  env_add_rt(&e, "XDG_CONFIG_HOME", rt, "config");
  env_add_rt(&e, "XDG_DATA_HOME", rt, "data");
  env_add_rt(&e, "XDG_STATE_HOME", rt, "state");
  env_add_rt(&e, "npm_config_cache", rt, "cache/npm");
  env_add_rt(&e, "PIP_CACHE_DIR", rt, "cache/pip");
  env_add_rt(&e, "CARGO_HOME", rt, "cargo");
  env_add_rt(&e, "GOPATH", rt, "go");
  env_add_rt(&e, "GOMODCACHE", rt, "go/pkg/mod");
  env_add_rt(&e, "GOCACHE", rt, "cache/go-build");
  env_add_rt(&e, "YARN_CACHE_FOLDER", rt, "cache/yarn");
  env_add_rt(&e, "COREPACK_HOME", rt, "cache/corepack");
  env_add(&e, "ZERO_SANDBOXED", "1");
  env_add(&e, "ZERO_SANDBOX_BACKEND", zsb_backend_name(b));
  env_add(&e, "ZERO_SANDBOX_NETWORK", p->network ? "allow" : "deny");
  return e.v;
}

/* ---- bwrap argv ------------------------------------------------------------ */

typedef struct argvb {
  char **v;
  size_t n;
} argvb;

static void av(argvb *a, const char *s) {
  a->v = xrealloc(a->v, (a->n + 2) * sizeof *a->v);
  a->v[a->n++] = xstrdup(s);
  a->v[a->n] = NULL;
}
static void av2(argvb *a, const char *opt, const char *x) { av(a, opt); av(a, x); }
static void av3(argvb *a, const char *opt, const char *x, const char *y) {
  av(a, opt); av(a, x); av(a, y);
}
static void argv_free(argvb *a) {
  for (size_t i = 0; i < a->n; i++) free(a->v[i]);
  free(a->v);
}

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

static char *self_exe(void) {
  char buf[4096];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return NULL;
  buf[n] = '\0';
  return xstrdup(buf);
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

/* Builds the bwrap command line. Placeholders bwrap will create on the host
 * (for missing protected names) are added to placeholders for later cleanup. */
static void build_bwrap(const zsb_policy *p, const zsb_probe *pr, const char *self,
                        const char *cwd, char *const cmd[], argvb *a, zsb_strv *placeholders) {
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
  if (!p->network) av(a, "--unshare-net");
  av3(a, "--ro-bind", "/", "/");
  av2(a, "--dev", "/dev");
  av2(a, "--proc", "/proc");
  av2(a, "--tmpfs", "/tmp");
  if (zpath_is_within("/tmp", self)) av3(a, "--ro-bind", self, self);
  /* The command's own files that live in the host's /tmp (an MCP server run
   * from a checkout under /tmp): its top-level directory there stays
   * readable, so sibling modules and node_modules resolve too. */
  for (size_t i = 0; i < p->command_reads.n; i++) {
    char *real = realpath(p->command_reads.v[i], NULL);
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

  /* Protected names inside each write root. */
  for (size_t i = 0; i < p->write_roots.n; i++) {
    zsb_protected prot[8];
    size_t n = zsb_protected_paths(p->write_roots.v[i], prot, ZARRAY_LEN(prot));
    for (size_t k = 0; k < n; k++) {
      switch (prot[k].kind) {
        case 'g': av3(a, "--bind", prot[k].path, prot[k].path); break; /* own mount: not renamable */
        case 'r': av3(a, "--ro-bind", prot[k].path, prot[k].path); break;
        case 'p':
          av3(a, "--ro-bind", "/dev/null", prot[k].path);
          zsb_strv_add(placeholders, prot[k].path);
          break;
      }
      free(prot[k].path);
    }
  }
  for (size_t i = 0; i < p->deny_write.n; i++)
    if (access(p->deny_write.v[i], F_OK) == 0)
      av3(a, "--ro-bind", p->deny_write.v[i], p->deny_write.v[i]);
  for (size_t i = 0; i < p->deny_read.n; i++)
    if (!zsb_strv_has(&p->allow_read, p->deny_read.v[i])) hide(a, p->deny_read.v[i]);
  for (const char *const *c = zsb_credential_names; *c; c++) {
    cleanup_free char *path = zpath_join(p->home, *c);
    hide(a, path);
  }
  hide(a, "/var/run/docker.sock");
  hide(a, "/run/docker.sock");
  av2(a, "--chdir", cwd);
  av(a, "--");
  av(a, self);
  av(a, "__sandbox-inner");
  zsb_strv inner = {0};
  inner_roots(p, &inner, true);
  for (size_t i = 0; i < inner.n; i++) av2(a, "--write", inner.v[i]);
  zsb_strv_release(&inner);
  if (p->block_unix_sockets) av(a, "--block-unix");
  av(a, "--");
  for (char *const *c = cmd; *c; c++) av(a, *c);
  zsb_strv_release(&roots);
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
                       ".git/hooks and .zero stay writable, /tmp is shared and %s",
             pr->userns_fix[0] ? pr->userns_fix : "install bubblewrap: apt install bubblewrap",
             p->network ? "the network is open" : "the network is cut by a socket filter "
                                                  "(loopback servers do not work either)");
  else if (b == ZSB_NONE)
    snprintf(out, cap, "no sandbox mechanism works here (no bubblewrap/user namespaces, no "
                       "Landlock); commands run unconfined. Run zero sandbox check for the fix");
  return out[0] != '\0';
}

json_t *zsb_state_json(const zsb_policy *p) {
  zsb_backend b = p->enabled ? zsb_probe_get()->backend : ZSB_NONE;
  return json_pack("{s:s, s:s, s:s}", "backend", zsb_backend_name(b), "enforcement",
                   zsb_enforcement(b), "network", p->network ? "allow" : "deny");
}

/* ---- running ---------------------------------------------------------------- */

static volatile sig_atomic_t g_child_pid; /* for forwarding signals while we wait */

static void forward_signal(int sig) {
  if (g_child_pid > 0) kill((pid_t)g_child_pid, sig);
}

/* Removes the placeholder files bwrap created for missing protected names
 * (empty regular files we did not find before the run). */
static void cleanup_placeholders(const zsb_strv *ph) {
  for (size_t i = 0; i < ph->n; i++) {
    struct stat st;
    if (lstat(ph->v[i], &st) == 0 && S_ISREG(st.st_mode) && st.st_size == 0) unlink(ph->v[i]);
  }
}

int zsb_run(const zsb_policy *p, char *const argv[], const char *cwd, FILE *banner, zerr *err) {
  const zsb_probe *pr = zsb_probe_get();
  zsb_backend b = p->enabled ? pr->backend : ZSB_NONE;
  if (!argv || !argv[0]) return zerr_set(err, ZE_USAGE, "no command given");
  if (b != ZSB_BWRAP && (p->deny_read.n || p->deny_write.n))
    return zerr_set(err, ZE_CONFIG,
                    "sandbox.denyRead / denyWrite are configured but this machine has no full "
                    "sandbox (backend %s); refusing to run the command less confined than "
                    "configured. %s",
                    zsb_backend_name(b),
                    pr->userns_fix[0] ? pr->userns_fix
                                      : "Install bubblewrap (apt install bubblewrap).");
  cleanup_free char *here = cwd ? NULL : getcwd(NULL, 0);
  const char *dir = cwd ? cwd : here ? here : p->workspace;
  if (zsb_runtime_prepare(p, err) < 0) return -1;
  cleanup_free char *rt_tmp = zpath_join(p->runtime_dir, "tmp");
  if (banner) {
    fprintf(banner, "sandbox: backend=%s enforcement=%s workspace=%s network=%s\n",
            zsb_backend_name(b), zsb_enforcement(b), p->workspace, p->network ? "allow" : "deny");
    char note[1024];
    if (zsb_downgrade_note(p, note, sizeof note)) fprintf(banner, "DOWNGRADED: %s\n", note);
    fflush(banner);
  }
  char **env = build_env(p, b, b == ZSB_BWRAP ? "/tmp" : rt_tmp);
  argvb a = {0};
  zsb_strv placeholders = {0};
  cleanup_free char *self = NULL;
  if (b == ZSB_BWRAP) {
    self = self_exe();
    if (!self) {
      envv e = {env, 0};
      for (char **x = env; *x; x++) e.n++;
      env_free(&e);
      return zerr_set(err, ZE_INTERNAL, "cannot find zero's own binary (/proc/self/exe)");
    }
    build_bwrap(p, pr, self, dir, argv, &a, &placeholders);
  }
  fflush(NULL);
  pid_t pid;
  if (b == ZSB_BWRAP) {
    /* Nothing to do between fork and exec: posix_spawn (vfork-style in
     * glibc) skips copying zero's page tables on every sandboxed command. */
    int e = posix_spawn(&pid, a.v[0], NULL, NULL, a.v, env);
    if (e != 0) {
      errno = e;
      zerr_errno(err, ZE_IO, "cannot run %s (reinstall bubblewrap: apt install bubblewrap)",
                 a.v[0]);
      pid = -1;
    }
  } else if ((pid = fork()) < 0) {
    zerr_errno(err, ZE_IO, "cannot start a process");
  } else if (pid == 0) {
    if (chdir(dir) < 0) {
      fprintf(stderr, "zero sandbox: cannot enter %s: %s\n", dir, strerror(errno));
      _exit(126);
    }
    if (b == ZSB_LANDLOCK) {
      zsb_strv roots = {0};
      inner_roots(p, &roots, false);
      zsb_strv_add(&roots, rt_tmp);
      const char *rv[72];
      size_t n = 0;
      for (size_t i = 0; i < roots.n && n < ZARRAY_LEN(rv) - 1; i++) rv[n++] = roots.v[i];
      rv[n] = NULL;
      zsb_confine c = {.write_roots = rv, .block_unix_sockets = p->block_unix_sockets,
                       .deny_ip_sockets = !p->network};
      zerr e = ZERR_INIT;
      if (setsid() < 0) { /* already a leader: fine */ }
      if (zsb_confine_self(&c, &e) < 0) {
        fprintf(stderr, "zero sandbox: %s; the command was not run\n", e.msg);
        _exit(126);
      }
    }
    execvpe(argv[0], argv, env);
    int e = errno;
    fprintf(stderr, "zero sandbox: cannot run %s: %s\n", argv[0], strerror(e));
    _exit(e == ENOENT ? 127 : 126);
  }
  int status = 0, rc = -1;
  if (pid > 0) {
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
  cleanup_placeholders(&placeholders);
  zsb_strv_release(&placeholders);
  argv_free(&a);
  envv e = {env, 0};
  for (char **x = env; *x; x++) e.n++;
  env_free(&e);
  return rc;
}

/* `zero __sandbox-run [--network] <policy-json> -- cmd…`: what the spawner
 * turns every command into. */
int zsb_run_main(int argc, char **argv) {
  bool network = false;
  zsb_strv reads = {0};
  int i = 0;
  for (;;) {
    if (i < argc && !strcmp(argv[i], "--network")) {
      network = true;
      i++;
    } else if (i + 1 < argc && !strcmp(argv[i], "--read")) {
      zsb_strv_add(&reads, argv[i + 1]);
      i += 2;
    } else {
      break;
    }
  }
  if (argc - i < 3 || strcmp(argv[i + 1], "--")) {
    fprintf(stderr, "zero: __sandbox-run is internal: __sandbox-run [--network] [--read PATH]... "
                    "POLICY -- CMD\n");
    zsb_strv_release(&reads);
    return 126;
  }
  zerr err = ZERR_INIT;
  json_t *j = zjson_parse(argv[i], strlen(argv[i]), "sandbox policy", &err);
  zsb_policy p;
  memset(&p, 0, sizeof p);
  if (!j || zsb_policy_from_json(&p, j, &err) < 0) {
    json_decref(j);
    zsb_policy_release(&p);
    zsb_strv_release(&reads);
    fprintf(stderr, "zero sandbox: %s\n", err.msg);
    return 126;
  }
  json_decref(j);
  if (network) p.network = true;
  p.command_reads = reads; /* moved: released with the policy */
  int rc = zsb_run(&p, argv + i + 2, NULL, NULL, &err);
  if (rc < 0) {
    fprintf(stderr, "zero sandbox: %s\n", err.msg);
    rc = 126;
  }
  zsb_policy_release(&p);
  return rc;
}

/* ---- spawner ---------------------------------------------------------------- */

static int spawner_wrap(zspawner *base, zspawn_cmd *cmd, zerr *err) {
  zsb_spawner *s = (zsb_spawner *)base;
  bool net = cmd->network || s->once_network, unsandboxed = s->once_unsandboxed;
  s->once_network = s->once_unsandboxed = false;
  if (unsandboxed) return 0; /* approved by the user for this one command */
  const zsb_probe *pr = zsb_probe_get();
  zsb_backend b = s->policy->enabled ? pr->backend : ZSB_NONE;
  if (b != ZSB_BWRAP && (s->policy->deny_read.n || s->policy->deny_write.n))
    return zerr_set(err, ZE_CONFIG,
                    "sandbox.denyRead / denyWrite are configured but this machine has no full "
                    "sandbox (backend %s), so the command was refused rather than run less "
                    "confined; run zero sandbox check for the fix",
                    zsb_backend_name(b));
  size_t n = 0, nr = 0;
  while (cmd->argv && cmd->argv[n]) n++;
  while (cmd->read_paths && cmd->read_paths[nr]) nr++;
  char **nv = xcalloc(n + 2 * nr + 6, sizeof *nv);
  size_t k = 0;
  nv[k++] = xstrdup(s->self);
  nv[k++] = xstrdup("__sandbox-run");
  if (net) nv[k++] = xstrdup("--network");
  for (size_t i = 0; i < nr; i++) {
    nv[k++] = xstrdup("--read");
    nv[k++] = xstrdup(cmd->read_paths[i]);
  }
  nv[k++] = xstrdup(s->policy_json);
  nv[k++] = xstrdup("--");
  for (size_t i = 0; i < n; i++) nv[k++] = cmd->argv[i];
  nv[k] = NULL;
  free(cmd->argv);
  cmd->argv = nv;
  return 0;
}

int zsb_spawner_init(zsb_spawner *s, const zsb_policy *p, zerr *err) {
  memset(s, 0, sizeof *s);
  s->self = self_exe();
  if (!s->self) return zerr_set(err, ZE_INTERNAL, "cannot find zero's own binary (/proc/self/exe)");
  json_t *j = zsb_policy_to_json(p);
  s->policy_json = json_dumps(j, JSON_COMPACT);
  json_decref(j);
  s->policy = p;
  s->base.wrap = spawner_wrap;
  s->base.ud = s;
  return 0;
}

void zsb_spawner_escalate(void *ud, bool network, bool unsandboxed) {
  zsb_spawner *s = ud;
  s->once_network = network;
  s->once_unsandboxed = unsandboxed;
}

void zsb_spawner_release(zsb_spawner *s) {
  free(s->self);
  free(s->policy_json);
  memset(s, 0, sizeof *s);
}
