/* inner.c — the inner confinement stage: no_new_privs, seccomp, Landlock,
 * exec. Runs inside bwrap's namespaces (`zero __sandbox-inner`) or, in the
 * landlock fallback, in the forked child before exec. One linear story; every
 * step checked; any failure is fatal for the command (never run it with less
 * confinement than was asked for). */
#include <errno.h>
#include <fcntl.h>
#include <linux/sched.h>
#include <seccomp.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/common.h"
#include "sandbox/landlock_compat.h"
#include "sandbox/sandbox.h"

#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME 0x00000080
#endif

/* Denied with EPERM: debugging other processes, kernel attack surface that
 * container runtimes also block, and everything that changes mounts or
 * namespaces. None is needed by compilers, package managers or test runners. */
static const char *const denied_syscalls[] = {
    "ptrace", "process_vm_readv", "process_vm_writev", "io_uring_setup", "io_uring_enter",
    "io_uring_register", "keyctl", "add_key", "request_key", "perf_event_open", "bpf",
    "userfaultfd", "mount", "umount", "umount2", "pivot_root", "move_mount", "open_tree",
    "fsopen", "fsmount", "fsconfig", "fspick", "mount_setattr", "chroot", "unshare", "setns",
    "kexec_load", "kexec_file_load", "init_module", "finit_module", "delete_module",
    "open_by_handle_at", "name_to_handle_at", "lookup_dcookie", "quotactl", "quotactl_fd",
    "swapon", "swapoff", "reboot", "acct", "vhangup", "iopl", "ioperm", "syslog",
    "fanotify_init", "kcmp", "pidfd_getfd", NULL};

static int deny(scmp_filter_ctx ctx, const char *name, zerr *err) {
  int nr = seccomp_syscall_resolve_name(name);
  if (nr == __NR_SCMP_ERROR) return 0; /* not on this architecture */
  int rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), nr, 0);
  if (rc < 0 && rc != -EEXIST)
    return zerr_set(err, ZE_INTERNAL, "seccomp: cannot add a rule for %s: %s", name,
                    strerror(-rc));
  return 0;
}

static int load_seccomp(const zsb_confine *c, zerr *err) {
  int rc = 0;
  /* Namespace flags on clone: libseccomp compares one masked value per rule,
   * so each flag gets its own rule. */
  scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
  if (!ctx) return zerr_set(err, ZE_INTERNAL, "seccomp: cannot create a filter");
  for (const char *const *n = denied_syscalls; *n && rc == 0; n++) rc = deny(ctx, *n, err);
  if (rc == 0 && seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0) < 0)
    rc = zerr_set(err, ZE_INTERNAL, "seccomp: clone3 rule");
  static const unsigned long each[] = {CLONE_NEWUSER, CLONE_NEWNS, CLONE_NEWNET, CLONE_NEWPID,
                                       CLONE_NEWIPC, CLONE_NEWUTS, CLONE_NEWCGROUP,
                                       CLONE_NEWTIME};
  for (size_t i = 0; i < ZARRAY_LEN(each) && rc == 0; i++)
    if (seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(clone), 1,
                         SCMP_A0(SCMP_CMP_MASKED_EQ, each[i], each[i])) < 0)
      rc = zerr_set(err, ZE_INTERNAL, "seccomp: clone rule");
  /* Terminal injection: pushing bytes into the host terminal's input. */
  static const unsigned long ioctls[] = {TIOCSTI, TIOCLINUX};
  for (size_t i = 0; i < ZARRAY_LEN(ioctls) && rc == 0; i++)
    if (seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(ioctl), 1,
                         SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffUL, ioctls[i])) < 0)
      rc = zerr_set(err, ZE_INTERNAL, "seccomp: ioctl rule");
  if (rc == 0 && c->block_unix_sockets &&
      seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(socket), 1,
                       SCMP_A0(SCMP_CMP_EQ, AF_UNIX)) < 0)
    rc = zerr_set(err, ZE_INTERNAL, "seccomp: socket rule");
  if (rc == 0 && c->deny_ip_sockets) {
    static const int fams[] = {AF_INET, AF_INET6, AF_PACKET};
    for (size_t i = 0; i < ZARRAY_LEN(fams) && rc == 0; i++)
      if (seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EACCES), SCMP_SYS(socket), 1,
                           SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t)fams[i])) < 0)
        rc = zerr_set(err, ZE_INTERNAL, "seccomp: socket rule");
  }
  if (rc == 0) {
    int lr = seccomp_load(ctx);
    if (lr < 0) rc = zerr_set(err, ZE_INTERNAL, "seccomp: cannot load the filter: %s", strerror(-lr));
  }
  seccomp_release(ctx);
  return rc;
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

int zsb_inner_main(int argc, char **argv) {
  const char *roots[64];
  size_t nroots = 0;
  zsb_confine c = {.write_roots = roots};
  int i = 0;
  for (; i < argc; i++) {
    if (!strcmp(argv[i], "--")) {
      i++;
      break;
    }
    if (!strcmp(argv[i], "--write") && i + 1 < argc && nroots < ZARRAY_LEN(roots) - 1)
      roots[nroots++] = argv[++i];
    else if (!strcmp(argv[i], "--block-unix")) c.block_unix_sockets = true;
    else if (!strcmp(argv[i], "--deny-ip")) c.deny_ip_sockets = true;
    else {
      fprintf(stderr, "zero: __sandbox-inner is internal; unexpected argument %s\n", argv[i]);
      return 126;
    }
  }
  roots[nroots] = NULL;
  if (i >= argc) {
    fprintf(stderr, "zero: __sandbox-inner: no command after --\n");
    return 126;
  }
  zerr err = ZERR_INIT;
  if (zsb_confine_self(&c, &err) < 0) {
    fprintf(stderr, "zero sandbox: %s; the command was not run\n", err.msg);
    return 126;
  }
  execvp(argv[i], argv + i);
  int e = errno;
  fprintf(stderr, "zero sandbox: cannot run %s: %s\n", argv[i], strerror(e));
  return e == ENOENT ? 127 : 126;
}
