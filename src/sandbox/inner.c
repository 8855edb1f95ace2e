/* inner.c — the inner confinement stage: no_new_privs, seccomp, Landlock,
 * exec. Runs inside bwrap's namespaces (`zero __sandbox-inner`) or, in the
 * landlock fallback, in the forked child before exec. One linear story; every
 * step checked; any failure is fatal for the command (never run it with less
 * confinement than was asked for). */
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/common.h"
#include "exec/reaper.h"
#include "net/egress/forward.h"
#include "net/egress/proxy.h"
#include "sandbox/landlock_compat.h"
#include "sandbox/sandbox.h"
#include "sandbox/seccomp_bpf.h" /* generated at build time */

/* The filters are compiled to BPF when zero is built (see
 * src/sandbox/gen/seccomp_gen.c for the rules and why), so loading one here
 * is a single system call and zero needs no libseccomp at run time. */
static int load_seccomp(const zsb_confine *c, zerr *err) {
  unsigned v = (c->block_unix_sockets ? 1u : 0u) | (c->deny_ip_sockets ? 2u : 0u);
  struct sock_fprog prog = {.len = zsb_seccomp_filters[v].len,
                            .filter = (struct sock_filter *)zsb_seccomp_filters[v].insns};
  /* no_new_privs is already set (zsb_confine_self), as the kernel requires. */
  if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) == 0) return 0;
  if (errno == ENOSYS && prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0) == 0) return 0;
  return zerr_errno(err, ZE_INTERNAL, "seccomp: cannot load the filter");
}

/* Landlock: writes allowed only beneath the write roots; signals and abstract
 * Unix sockets scoped to the sandbox (ABI 6). Reads are not restricted here
 * (the bwrap stage hides what must not be read). */
static int load_landlock(const zsb_confine *c, zerr *err) {
  int abi = zll_abi();
  if (abi <= 0) return 0; /* not available: the outer stage (or the report) covers it */
  uint64_t write = ZLL_FS_WRITE_FILE | ZLL_FS_REMOVE_DIR | ZLL_FS_REMOVE_FILE |
                   ZLL_FS_MAKE_CHAR | ZLL_FS_MAKE_DIR | ZLL_FS_MAKE_REG | ZLL_FS_MAKE_SOCK |
                   ZLL_FS_MAKE_FIFO | ZLL_FS_MAKE_BLOCK | ZLL_FS_MAKE_SYM;
  if (abi >= 2) write |= ZLL_FS_REFER;
  if (abi >= 3) write |= ZLL_FS_TRUNCATE;
  struct zll_ruleset_attr attr = {.handled_access_fs = write};
  size_t size = sizeof attr.handled_access_fs;
  if (abi >= 6) {
    attr.scoped = ZLL_SCOPE_SIGNAL | ZLL_SCOPE_ABSTRACT_UNIX_SOCKET;
    size = sizeof attr;
  }
  cleanup_fd int rs = zll_create_ruleset(&attr, size, 0);
  if (rs < 0) return zerr_errno(err, ZE_INTERNAL, "landlock: cannot create a ruleset");
  for (const char *const *r = c->write_roots; r && *r; r++) {
    cleanup_fd int fd = open(*r, O_PATH | O_CLOEXEC);
    if (fd < 0) continue; /* a root that does not exist cannot be written anyway */
    struct zll_path_beneath_attr pb = {.allowed_access = write, .parent_fd = fd};
    struct stat st;
    if (fstat(fd, &st) == 0 && !S_ISDIR(st.st_mode))
      pb.allowed_access &= ZLL_FS_WRITE_FILE | ZLL_FS_TRUNCATE; /* file rules: file rights only */
    if (zll_add_rule(rs, ZLL_RULE_PATH_BENEATH, &pb, 0) < 0)
      return zerr_errno(err, ZE_INTERNAL, "landlock: cannot add a rule for %s", *r);
  }
  if (zll_restrict_self(rs, 0) < 0)
    return zerr_errno(err, ZE_INTERNAL, "landlock: cannot enforce the ruleset");
  return 0;
}

int zsb_confine_self(const zsb_confine *c, zerr *err) {
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
    return zerr_errno(err, ZE_INTERNAL, "cannot set no_new_privs");
  /* Landlock first: its syscalls must not be filtered, and the ruleset is
   * built before seccomp narrows what this process may do. */
  if (load_landlock(c, err) < 0) return -1;
  return load_seccomp(c, err);
}

/* The forwarder's own confinement: the command's, except that it must open
 * Unix sockets (to reach the proxy) even under blockUnixSockets. */
static int confine_forwarder(void *ud) {
  zsb_confine c = *(const zsb_confine *)ud;
  c.block_unix_sockets = false;
  zerr err = ZERR_INIT;
  return zsb_confine_self(&c, &err);
}

/* Network "scoped": 127.0.0.1:ZEG_SANDBOX_PORT inside this network
 * namespace, served by a forwarder to the proxy's socket (forward.h). It
 * listens before the command starts, so the command's first connection
 * finds it. -1 with err. */
static int start_forwarder(const char *sock, const zsb_confine *c, zerr *err) {
  int lfd = zeg_forward_listen(ZEG_SANDBOX_PORT, err);
  if (lfd < 0) return -1;
  int rc = zeg_forward_spawn(lfd, sock, confine_forwarder, (void *)c, err);
  close(lfd);
  return rc;
}

int zsb_inner_main(int argc, char **argv) {
  /* Any number of roots (every --add-dir is one): at most one per argument.
   * Freed where this returns; kept across exec. */
  const char **roots = xcalloc((size_t)argc + 1, sizeof *roots);
  size_t nroots = 0;
  zsb_confine c = {.write_roots = roots};
  bool take_tty = false;
  const char *egress_sock = NULL;
  int i = 0;
  for (; i < argc; i++) {
    if (!strcmp(argv[i], "--")) {
      i++;
      break;
    }
    if (!strcmp(argv[i], "--write") && i + 1 < argc)
      roots[nroots++] = argv[++i];
    else if (!strcmp(argv[i], "--block-unix")) c.block_unix_sockets = true;
    else if (!strcmp(argv[i], "--deny-ip")) c.deny_ip_sockets = true;
    else if (!strcmp(argv[i], "--take-tty")) take_tty = true;
    else if (!strcmp(argv[i], "--egress-socket") && i + 1 < argc) egress_sock = argv[++i];
    else {
      fprintf(stderr, "zero: __sandbox-inner is internal; unexpected argument %s\n", argv[i]);
      free(roots);
      return 126;
    }
  }
  roots[nroots] = NULL;
  if (i >= argc) {
    fprintf(stderr, "zero: __sandbox-inner: no command after --\n");
    free(roots);
    return 126;
  }
  /* A session of our own whose controlling terminal is the one on stdin
   * (see zero-sandbox-inner): best effort, the command runs without it. */
  if (take_tty) {
    setsid();
    ioctl(0, TIOCSCTTY, 0);
  }
  zerr err = ZERR_INIT;
  if (egress_sock && start_forwarder(egress_sock, &c, &err) < 0) {
    fprintf(stderr, "zero sandbox: %s; the command was not run\n", err.msg);
    free(roots);
    return 126;
  }
  if (zsb_confine_self(&c, &err) < 0) {
    fprintf(stderr, "zero sandbox: %s; the command was not run\n", err.msg);
    free(roots);
    return 126;
  }
  zreaper_default_internal_signals(); /* bwrap came through posix_spawn */
  execvp(argv[i], argv + i);
  int e = errno;
  fprintf(stderr, "zero sandbox: cannot run %s: %s\n", argv[i], strerror(e));
  /* _exit: nothing of zero's may run at exit inside the confined process
   * (LeakSanitizer's exit check, for one, needs ptrace, which the filter
   * refuses, and would turn 127 into 1). */
  fflush(stderr);
  _exit(e == ENOENT ? 127 : 126);
}
