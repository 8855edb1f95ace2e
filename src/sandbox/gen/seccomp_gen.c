/* seccomp_gen.c — build-time generator of the inner stage's seccomp filters.
 *
 * The filter is fixed (it depends only on two policy switches), so it is
 * compiled to classic BPF once, when zero is built, instead of on every
 * sandboxed command: libseccomp's rule compilation and kernel-feature probes
 * cost more than the rest of the inner stage together, and the zero binary
 * then does not need libseccomp at run time at all. libseccomp still does the
 * hard part (architecture checks, x32 handling, argument comparisons); this
 * program only asks it for the program and writes it out as a C header.
 *
 * Usage (run by CMake): zero-seccomp-gen OUT.h
 * Output: ZSB_SECCOMP_VARIANTS filters indexed by
 *   (block_unix_sockets ? 1 : 0) | (deny_ip_sockets ? 2 : 0)
 * each a `struct sock_filter` array plus its length.
 *
 * The rules: EPERM for debugging other processes, kernel attack surface that
 * container runtimes also block, and everything that changes mounts or
 * namespaces; ENOSYS for clone3 (its flags live in memory a filter cannot
 * read, so callers fall back to clone, whose flags are checked); TIOCSTI /
 * TIOCLINUX ioctls (terminal injection); AF_UNIX sockets with
 * blockUnixSockets; IP and packet sockets when there is no network namespace
 * to cut the network (landlock fallback). None is needed by compilers,
 * package managers or test runners. */
#include <errno.h>
#include <linux/sched.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME 0x00000080
#endif

static const char *const denied_syscalls[] = {
    "ptrace", "process_vm_readv", "process_vm_writev", "io_uring_setup", "io_uring_enter",
    "io_uring_register", "keyctl", "add_key", "request_key", "perf_event_open", "bpf",
    "userfaultfd", "mount", "umount", "umount2", "pivot_root", "move_mount", "open_tree",
    "fsopen", "fsmount", "fsconfig", "fspick", "mount_setattr", "chroot", "unshare", "setns",
    "kexec_load", "kexec_file_load", "init_module", "finit_module", "delete_module",
    "open_by_handle_at", "name_to_handle_at", "lookup_dcookie", "quotactl", "quotactl_fd",
    "swapon", "swapoff", "reboot", "acct", "vhangup", "iopl", "ioperm", "syslog",
    "fanotify_init", "kcmp", "pidfd_getfd", NULL};

static void die(const char *what, int rc) {
  fprintf(stderr, "zero-seccomp-gen: %s: %s\n", what, strerror(rc < 0 ? -rc : rc));
  exit(1);
}

static void add(scmp_filter_ctx ctx, uint32_t action, int nr, unsigned n, struct scmp_arg_cmp a) {
  int rc = n ? seccomp_rule_add(ctx, action, nr, 1, a) : seccomp_rule_add(ctx, action, nr, 0);
  if (rc < 0 && rc != -EEXIST) die("seccomp_rule_add", rc);
}

static scmp_filter_ctx build(int block_unix, int deny_ip) {
  scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
  if (!ctx) die("seccomp_init", ENOMEM);
  struct scmp_arg_cmp none = {0};
  for (const char *const *n = denied_syscalls; *n; n++) {
    int nr = seccomp_syscall_resolve_name(*n);
    if (nr == __NR_SCMP_ERROR) continue; /* not on this architecture */
    add(ctx, SCMP_ACT_ERRNO(EPERM), nr, 0, none);
  }
  add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0, none);
  /* libseccomp compares one masked value per rule: one rule per flag. */
  static const unsigned long each[] = {CLONE_NEWUSER, CLONE_NEWNS, CLONE_NEWNET, CLONE_NEWPID,
                                       CLONE_NEWIPC, CLONE_NEWUTS, CLONE_NEWCGROUP,
                                       CLONE_NEWTIME};
  for (size_t i = 0; i < sizeof each / sizeof *each; i++)
    add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(clone), 1,
        SCMP_A0(SCMP_CMP_MASKED_EQ, each[i], each[i]));
  static const unsigned long ioctls[] = {TIOCSTI, TIOCLINUX};
  for (size_t i = 0; i < sizeof ioctls / sizeof *ioctls; i++)
    add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(ioctl), 1,
        SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffUL, ioctls[i]));
  if (block_unix) add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(socket), 1, SCMP_A0(SCMP_CMP_EQ, AF_UNIX));
  if (deny_ip) {
    static const int fams[] = {AF_INET, AF_INET6, AF_PACKET};
    for (size_t i = 0; i < sizeof fams / sizeof *fams; i++)
      add(ctx, SCMP_ACT_ERRNO(EACCES), SCMP_SYS(socket), 1,
          SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t)fams[i]));
  }
  return ctx;
}

/* The raw program libseccomp would load: an array of 8-byte sock_filter. */
static unsigned char *export_bpf(scmp_filter_ctx ctx, size_t *len) {
  int fd = memfd_create("bpf", 0);
  if (fd < 0) die("memfd_create", errno);
  int rc = seccomp_export_bpf(ctx, fd);
  if (rc < 0) die("seccomp_export_bpf", rc);
  off_t n = lseek(fd, 0, SEEK_END);
  if (n <= 0 || n % 8) die("exported program has a bad size", EINVAL);
  unsigned char *buf = malloc((size_t)n);
  if (!buf || pread(fd, buf, (size_t)n, 0) != n) die("reading the exported program", errno);
  close(fd);
  *len = (size_t)n;
  return buf;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: zero-seccomp-gen OUT.h\n");
    return 2;
  }
  char tmp[4096];
  snprintf(tmp, sizeof tmp, "%s.tmp", argv[1]);
  FILE *out = fopen(tmp, "w");
  if (!out) die(tmp, errno);
  fprintf(out, "/* Generated by src/sandbox/gen/seccomp_gen.c at build time: do not edit. */\n"
               "#include <linux/filter.h>\n#define ZSB_SECCOMP_VARIANTS 4\n");
  for (int v = 0; v < 4; v++) {
    scmp_filter_ctx ctx = build(v & 1, v & 2);
    size_t len;
    unsigned char *p = export_bpf(ctx, &len);
    seccomp_release(ctx);
    fprintf(out, "static const struct sock_filter zsb_seccomp_v%d[] = {\n", v);
    for (size_t i = 0; i < len; i += 8) {
      struct {
        unsigned short code;
        unsigned char jt, jf;
        unsigned int k;
      } ins;
      memcpy(&ins, p + i, 8);
      fprintf(out, "  {0x%04x, %u, %u, 0x%08xU},\n", ins.code, ins.jt, ins.jf, ins.k);
    }
    fprintf(out, "};\n");
    free(p);
  }
  fprintf(out, "static const struct { const struct sock_filter *insns; unsigned short len; } "
               "zsb_seccomp_filters[ZSB_SECCOMP_VARIANTS] = {\n");
  for (int v = 0; v < 4; v++)
    fprintf(out, "  {zsb_seccomp_v%d, sizeof zsb_seccomp_v%d / sizeof *zsb_seccomp_v%d},\n", v, v, v);
  fprintf(out, "};\n");
  if (fclose(out) != 0) die(tmp, errno);
  if (rename(tmp, argv[1]) < 0) die(argv[1], errno);
  return 0;
}
