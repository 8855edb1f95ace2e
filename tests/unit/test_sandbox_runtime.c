/* test_sandbox_runtime.c — the inner stage's build-time seccomp programs
 * (run here through a classic-BPF interpreter on synthetic system calls) and
 * the runtime dir: its layout and the at-most-daily garbage collection. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "base/common.h"
#include "base/path.h"
#include "sandbox/policy.h"
#include "sandbox/seccomp_bpf.h"

/* ---- a classic BPF interpreter, just enough for seccomp programs ---------- */

static uint32_t run_bpf(const struct sock_filter *f, size_t n, const struct seccomp_data *d) {
  uint32_t A = 0, X = 0, M[BPF_MEMWORDS] = {0};
  const unsigned char *data = (const unsigned char *)d;
  for (size_t pc = 0; pc < n; pc++) {
    const struct sock_filter *i = &f[pc];
    switch (BPF_CLASS(i->code)) {
      case BPF_LD:
        if (i->code == (BPF_LD | BPF_W | BPF_ABS)) {
          assert_true(i->k + 4 <= sizeof *d);
          memcpy(&A, data + i->k, 4);
        } else if (i->code == (BPF_LD | BPF_IMM)) A = i->k;
        else if (i->code == (BPF_LD | BPF_MEM)) A = M[i->k];
        else fail_msg("unexpected load 0x%x", i->code);
        break;
      case BPF_LDX:
        if (i->code == (BPF_LDX | BPF_IMM)) X = i->k;
        else if (i->code == (BPF_LDX | BPF_MEM)) X = M[i->k];
        else fail_msg("unexpected ldx 0x%x", i->code);
        break;
      case BPF_ST: M[i->k] = A; break;
      case BPF_STX: M[i->k] = X; break;
      case BPF_ALU: {
        uint32_t v = BPF_SRC(i->code) == BPF_X ? X : i->k;
        switch (BPF_OP(i->code)) {
          case BPF_AND: A &= v; break;
          case BPF_OR: A |= v; break;
          case BPF_ADD: A += v; break;
          case BPF_SUB: A -= v; break;
          case BPF_LSH: A <<= v; break;
          case BPF_RSH: A >>= v; break;
          default: fail_msg("unexpected alu 0x%x", i->code);
        }
        break;
      }
      case BPF_JMP: {
        uint32_t v = BPF_SRC(i->code) == BPF_X ? X : i->k;
        bool t;
        switch (BPF_OP(i->code)) {
          case BPF_JA: pc += i->k; continue;
          case BPF_JEQ: t = A == v; break;
          case BPF_JGT: t = A > v; break;
          case BPF_JGE: t = A >= v; break;
          case BPF_JSET: t = (A & v) != 0; break;
          default: fail_msg("unexpected jump 0x%x", i->code); return 0;
        }
        pc += t ? i->jt : i->jf;
        break;
      }
      case BPF_RET: return BPF_RVAL(i->code) == BPF_A ? A : i->k;
      case BPF_MISC:
        if (BPF_MISCOP(i->code) == BPF_TAX) X = A;
        else A = X;
        break;
      default: fail_msg("unexpected instruction 0x%x", i->code);
    }
  }
  fail_msg("the program fell off its end");
  return 0;
}

static uint32_t verdict(unsigned variant, long nr, uint64_t a0, uint64_t a1) {
  struct seccomp_data d = {.nr = (int)nr, .arch = AUDIT_ARCH_X86_64, .args = {a0, a1}};
  return run_bpf(zsb_seccomp_filters[variant].insns, zsb_seccomp_filters[variant].len, &d);
}

#define ERRNO(e) (SECCOMP_RET_ERRNO | (e))

static void seccomp_programs_deny_the_dangerous_calls_in_every_variant(void **state) {
  (void)state;
#ifndef __x86_64__
  skip();
#endif
  for (unsigned v = 0; v < ZSB_SECCOMP_VARIANTS; v++) {
    assert_int_equal(verdict(v, SYS_ptrace, 0, 0), ERRNO(EPERM));
    assert_int_equal(verdict(v, SYS_process_vm_readv, 0, 0), ERRNO(EPERM));
    assert_int_equal(verdict(v, SYS_io_uring_setup, 0, 0), ERRNO(EPERM));
    assert_int_equal(verdict(v, SYS_keyctl, 0, 0), ERRNO(EPERM));
    assert_int_equal(verdict(v, SYS_bpf, 0, 0), ERRNO(EPERM));
    assert_int_equal(verdict(v, SYS_mount, 0, 0), ERRNO(EPERM));
    assert_int_equal(verdict(v, SYS_chroot, 0, 0), ERRNO(EPERM));
    assert_int_equal(verdict(v, SYS_unshare, 0, 0), ERRNO(EPERM));
    assert_int_equal(verdict(v, SYS_clone3, 0, 0), ERRNO(ENOSYS));
    assert_int_equal(verdict(v, SYS_clone, CLONE_NEWUSER | SIGCHLD, 0), ERRNO(EPERM));
    assert_int_equal(verdict(v, SYS_clone, CLONE_NEWNET, 0), ERRNO(EPERM));
    assert_int_equal(verdict(v, SYS_ioctl, 0, TIOCSTI), ERRNO(EPERM));
    /* the upper 32 bits of the request do not hide TIOCSTI */
    assert_int_equal(verdict(v, SYS_ioctl, 0, 0xffffffff00000000ULL | TIOCSTI), ERRNO(EPERM));
    /* ordinary work is allowed */
    assert_int_equal(verdict(v, SYS_read, 0, 0), SECCOMP_RET_ALLOW);
    assert_int_equal(verdict(v, SYS_execve, 0, 0), SECCOMP_RET_ALLOW);
    assert_int_equal(verdict(v, SYS_clone, SIGCHLD, 0), SECCOMP_RET_ALLOW);
    assert_int_equal(verdict(v, SYS_clone, CLONE_VM | CLONE_THREAD | CLONE_SIGHAND, 0),
                     SECCOMP_RET_ALLOW);
    assert_int_equal(verdict(v, SYS_ioctl, 1, TCGETS), SECCOMP_RET_ALLOW);
    assert_int_equal(verdict(v, SYS_landlock_restrict_self, 3, 0), SECCOMP_RET_ALLOW);
    /* x32 system calls and foreign architectures never reach the allow path */
    struct seccomp_data x32 = {.nr = 0x40000000 | SYS_ptrace, .arch = AUDIT_ARCH_X86_64};
    uint32_t r = run_bpf(zsb_seccomp_filters[v].insns, zsb_seccomp_filters[v].len, &x32);
    assert_int_not_equal(r, SECCOMP_RET_ALLOW);
    struct seccomp_data i386 = {.nr = 26 /* ptrace on i386 */, .arch = AUDIT_ARCH_I386};
    r = run_bpf(zsb_seccomp_filters[v].insns, zsb_seccomp_filters[v].len, &i386);
    assert_int_not_equal(r, SECCOMP_RET_ALLOW);
  }
}

static void seccomp_socket_rules_follow_the_variant(void **state) {
  (void)state;
#ifndef __x86_64__
  skip();
#endif
  /* variant bit 0: blockUnixSockets; bit 1: IP sockets denied (no netns) */
  assert_int_equal(verdict(0, SYS_socket, AF_UNIX, SOCK_STREAM), SECCOMP_RET_ALLOW);
  assert_int_equal(verdict(0, SYS_socket, AF_INET, SOCK_STREAM), SECCOMP_RET_ALLOW);
  assert_int_equal(verdict(1, SYS_socket, AF_UNIX, SOCK_STREAM), ERRNO(EPERM));
  assert_int_equal(verdict(1, SYS_socket, AF_INET, SOCK_STREAM), SECCOMP_RET_ALLOW);
  assert_int_equal(verdict(2, SYS_socket, AF_UNIX, SOCK_STREAM), SECCOMP_RET_ALLOW);
  assert_int_equal(verdict(2, SYS_socket, AF_INET, SOCK_STREAM), ERRNO(EACCES));
  assert_int_equal(verdict(2, SYS_socket, AF_INET6, SOCK_DGRAM), ERRNO(EACCES));
  assert_int_equal(verdict(2, SYS_socket, AF_PACKET, SOCK_RAW), ERRNO(EACCES));
  assert_int_equal(verdict(3, SYS_socket, AF_UNIX, SOCK_STREAM), ERRNO(EPERM));
  assert_int_equal(verdict(3, SYS_socket, AF_INET, SOCK_STREAM), ERRNO(EACCES));
  assert_int_equal(verdict(3, SYS_socket, AF_NETLINK, SOCK_RAW), SECCOMP_RET_ALLOW);
}

/* ---- runtime dir ---------------------------------------------------------- */

typedef struct fx {
  char root[64];
  char *base;
  zsb_policy p;
} fx;

static void set_age(const char *path, long seconds) {
  struct timespec ts[2];
  clock_gettime(CLOCK_REALTIME, &ts[0]);
  ts[0].tv_sec -= seconds;
  ts[1] = ts[0];
  assert_int_equal(utimensat(AT_FDCWD, path, ts, 0), 0);
}

static char *make_dir(const char *base, const char *name, long age) {
  char *d = zpath_join(base, name);
  assert_int_equal(mkdir(d, 0700), 0);
  set_age(d, age);
  return d;
}

static int setup(void **state) {
  fx *f = calloc(1, sizeof *f);
  snprintf(f->root, sizeof f->root, "%s", "/tmp/zero-rt-XXXXXX");
  assert_non_null(mkdtemp(f->root));
  setenv("XDG_CACHE_HOME", f->root, 1);
  /* the workspace beside the cache dir: a cache dir inside the workspace
   * is not used (runtime_cache_dir_inside_the_workspace_is_not_used) */
  cleanup_free char *ws = zpath_join(f->root, "ws");
  assert_int_equal(mkdir(ws, 0700), 0);
  zsb_policy_opts o = {.workspace = ws, .skip_config = true};
  zerr err = ZERR_INIT;
  assert_int_equal(zsb_policy_build(&f->p, &o, &err), 0);
  f->base = zpath_join(f->root, "zero/runtime/v1");
  *state = f;
  return 0;
}

static int teardown(void **state) {
  fx *f = *state;
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf %s", f->root);
  assert_int_equal(system(cmd), 0);
  zsb_policy_release(&f->p);
  free(f->base);
  free(f);
  return 0;
}

static void runtime_dir_is_private_with_its_subdirs(void **state) {
  fx *f = *state;
  zerr err = ZERR_INIT;
  assert_int_equal(zsb_runtime_prepare(&f->p, &err), 0);
  struct stat st;
  assert_int_equal(stat(f->p.runtime_dir, &st), 0);
  assert_int_equal(st.st_mode & 0777, 0700);
  static const char *const subs[] = {"home", "tmp", "cache", "config", "data", "state"};
  for (size_t i = 0; i < ZARRAY_LEN(subs); i++) {
    cleanup_free char *d = zpath_join(f->p.runtime_dir, subs[i]);
    assert_int_equal(stat(d, &st), 0);
    assert_true(S_ISDIR(st.st_mode));
  }
}

static void gc_removes_month_old_dirs_at_most_once_a_day(void **state) {
  fx *f = *state;
  zerr err = ZERR_INIT;
  assert_int_equal(zsb_runtime_prepare(&f->p, &err), 0); /* creates base, first scan */
  cleanup_free char *old = make_dir(f->base, "0000000000000001", 31L * 86400);
  cleanup_free char *young = make_dir(f->base, "0000000000000002", 29L * 86400);
  cleanup_free char *stamp = zpath_join(f->base, ".gc-stamp");
  struct stat st;
  assert_int_equal(stat(stamp, &st), 0);

  /* scanned less than a day ago: the old dir survives this call */
  assert_int_equal(zsb_runtime_prepare(&f->p, &err), 0);
  assert_int_equal(stat(old, &st), 0);

  /* a day later: the old dir goes, the young one and our own stay */
  set_age(stamp, 25L * 3600);
  assert_int_equal(zsb_runtime_prepare(&f->p, &err), 0);
  assert_int_equal(stat(old, &st), -1);
  assert_int_equal(stat(young, &st), 0);
  assert_int_equal(stat(f->p.runtime_dir, &st), 0);
  assert_int_equal(stat(stamp, &st), 0);
  assert_true(time(NULL) - st.st_mtime < 3600); /* the scan was recorded */

  /* a stamp from the future (clock moved back) does not stop the scan */
  cleanup_free char *old2 = make_dir(f->base, "0000000000000003", 40L * 86400);
  set_age(stamp, -10L * 86400);
  assert_int_equal(zsb_runtime_prepare(&f->p, &err), 0);
  assert_int_equal(stat(old2, &st), -1);
}

/* Only runtime dirs (16 hex digits) are ever cleaned up: a base dir swapped
 * for a symlink to $HOME must not cost the user an old project. */
static void gc_removes_only_runtime_dirs(void **state) {
  fx *f = *state;
  zerr err = ZERR_INIT;
  assert_int_equal(zsb_runtime_prepare(&f->p, &err), 0);
  cleanup_free char *project = make_dir(f->base, "oldproject", 400L * 86400);
  cleanup_free char *upper = make_dir(f->base, "00000000000000AA", 400L * 86400);
  cleanup_free char *stamp = zpath_join(f->base, ".gc-stamp");
  set_age(stamp, 25L * 3600);
  assert_int_equal(zsb_runtime_prepare(&f->p, &err), 0);
  struct stat st;
  assert_int_equal(stat(project, &st), 0);
  assert_int_equal(stat(upper, &st), 0);
}

/* The runtime dir is bound read-write into the sandbox: a symlink planted in
 * its place (by a sandbox whose workspace covers it) is refused, not
 * followed. */
static void runtime_dir_symlink_is_refused(void **state) {
  fx *f = *state;
  zerr err = ZERR_INIT;
  assert_int_equal(zsb_runtime_prepare(&f->p, &err), 0);
  cleanup_free char *target = zpath_join(f->root, "elsewhere");
  assert_int_equal(mkdir(target, 0755), 0);
  char cmd[512];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", f->p.runtime_dir);
  assert_int_equal(system(cmd), 0);
  assert_int_equal(symlink(target, f->p.runtime_dir), 0);
  assert_int_equal(zsb_runtime_prepare(&f->p, &err), -1);
  assert_non_null(strstr(err.msg, "not a directory of yours"));
  struct stat st;
  assert_int_equal(stat(target, &st), 0);
  assert_int_equal(st.st_mode & 0777, 0755); /* not chmod-ed through the link */
}

/* Not only the runtime dir: a symlink at any component zero makes below
 * the cache dir (zero/runtime/v1 here) is refused, and nothing is made or
 * chmod-ed through it. */
static void runtime_base_symlink_is_refused(void **state) {
  fx *f = *state;
  zerr err = ZERR_INIT;
  cleanup_free char *target = zpath_join(f->root, "elsewhere");
  assert_int_equal(mkdir(target, 0755), 0);
  cleanup_free char *zero = zpath_join(f->root, "zero");
  cleanup_free char *runtime = zpath_join(zero, "runtime");
  assert_int_equal(mkdir(zero, 0700), 0);
  assert_int_equal(mkdir(runtime, 0700), 0);
  assert_int_equal(symlink(target, f->base), 0);
  assert_int_equal(zsb_runtime_prepare(&f->p, &err), -1);
  assert_non_null(strstr(err.msg, f->base));
  assert_non_null(strstr(err.msg, "not a directory of yours"));
  assert_int_equal(rmdir(target), 0); /* still empty: no runtime dir made in it */
  /* a component others may write is refused as well */
  assert_int_equal(unlink(f->base), 0);
  assert_int_equal(chmod(runtime, 0777), 0);
  err = (zerr)ZERR_INIT;
  assert_int_equal(zsb_runtime_prepare(&f->p, &err), -1);
  assert_non_null(strstr(err.msg, runtime));
}

/* A cache dir inside the workspace (or an --add-dir root) does not put the
 * runtime dir there: ~/.cache is used instead. */
static void runtime_cache_dir_inside_the_workspace_is_not_used(void **state) {
  fx *f = *state;
  cleanup_free char *ws = zpath_join(f->root, "ws");
  cleanup_free char *cache = zpath_join(ws, ".cache");
  cleanup_free char *home = zpath_join(f->root, "home");
  assert_int_equal(mkdir(home, 0700), 0);
  const char *old_home = getenv("HOME");
  cleanup_free char *saved_home = old_home ? strdup(old_home) : NULL;
  setenv("HOME", home, 1);
  setenv("XDG_CACHE_HOME", cache, 1);
  zsb_policy_opts o = {.workspace = ws, .skip_config = true};
  zsb_policy p;
  zerr err = ZERR_INIT;
  assert_int_equal(zsb_policy_build(&p, &o, &err), 0);
  assert_false(zpath_is_within(ws, p.runtime_dir));
  cleanup_free char *want = zpath_join(home, ".cache/zero/runtime/v1");
  assert_true(zpath_is_within(want, p.runtime_dir));
  zsb_policy_release(&p);
  /* the same through an --add-dir root */
  cleanup_free char *other = zpath_join(f->root, "other");
  assert_int_equal(mkdir(other, 0700), 0);
  const char *dirs[] = {ws};
  zsb_policy_opts o2 = {.workspace = other, .add_dirs = dirs, .n_add_dirs = 1,
                        .skip_config = true};
  assert_int_equal(zsb_policy_build(&p, &o2, &err), 0);
  assert_false(zpath_is_within(ws, p.runtime_dir));
  assert_true(zpath_is_within(want, p.runtime_dir));
  zsb_policy_release(&p);
  if (saved_home) setenv("HOME", saved_home, 1);
  setenv("XDG_CACHE_HOME", f->root, 1);
}

/* Hole: a denied file with a second name (a hard link made before zero
 * ran) in a readable tree. The file tools' guard refuses it by inode, and
 * a walk asks entry by entry once such a file exists. */
static void a_hard_link_of_a_denied_file_is_denied_by_inode(void **state) {
  fx *f = *state;
  cleanup_free char *secrets = zpath_join(f->root, "secrets");
  cleanup_free char *key = zpath_join(secrets, "key");
  cleanup_free char *alias = zpath_join(f->root, "ws/notes.txt");
  cleanup_free char *plain = zpath_join(f->root, "ws/plain.txt");
  assert_int_equal(mkdir(secrets, 0700), 0);
  FILE *fp = fopen(key, "w");
  assert_non_null(fp);
  fputs("s3cret", fp);
  fclose(fp);
  fp = fopen(plain, "w");
  assert_non_null(fp);
  fclose(fp);
  zsb_strv_add(&f->p.deny_read, secrets);
  zsb_policy_prepare_read_guard(&f->p, false);
  assert_int_equal(f->p.n_linked, 0);
  cleanup_free char *ws = zpath_join(f->root, "ws");
  assert_false(zsb_policy_read_denied_below(&f->p, ws));
  assert_int_equal(link(key, alias), 0);
  zsb_policy_prepare_read_guard(&f->p, false);
  assert_int_equal(f->p.n_linked, 1);
  assert_string_equal(f->p.linked[0].path, key);
  assert_int_equal(f->p.linked[0].nlink, 2);
  assert_true(zsb_policy_read_denied(&f->p, alias));
  assert_false(zsb_policy_read_denied(&f->p, plain));
  assert_true(zsb_policy_read_denied_below(&f->p, ws));
  /* through a symlink too */
  cleanup_free char *sym = zpath_join(f->root, "ws/sym");
  assert_int_equal(symlink(alias, sym), 0);
  assert_true(zsb_policy_read_denied(&f->p, sym));
}

/* The walk prefilter: a directory with no read-denied path strictly below it
 * needs no per-entry check; one with a denied path below, or the denied path
 * itself as the root of nothing below, answers as written. */
static void read_denied_below_finds_only_paths_under_the_dir(void **state) {
  (void)state;
  zsb_policy p;
  memset(&p, 0, sizeof p);
  zsb_strv_add(&p.read_denied, "/home/u/.ssh");
  zsb_strv_add(&p.read_denied, "/home/u/ws/secrets");
  assert_false(zsb_policy_read_denied_below(&p, "/home/u/ws/src"));
  assert_false(zsb_policy_read_denied_below(&p, "/home/u/wsx"));
  assert_false(zsb_policy_read_denied_below(&p, "/home/u/ws/secrets")); /* itself: not below */
  assert_true(zsb_policy_read_denied_below(&p, "/home/u/ws"));
  assert_true(zsb_policy_read_denied_below(&p, "/home/u"));
  assert_true(zsb_policy_read_denied_below(&p, "/"));
  /* and what is below is still denied entry by entry */
  assert_true(zsb_policy_read_denied(&p, "/home/u/ws/secrets/key"));
  assert_false(zsb_policy_read_denied(&p, "/home/u/ws/src/main.c"));
  zsb_strv_release(&p.read_denied);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(gc_removes_only_runtime_dirs, setup, teardown),
      cmocka_unit_test_setup_teardown(runtime_dir_symlink_is_refused, setup, teardown),
      cmocka_unit_test_setup_teardown(runtime_base_symlink_is_refused, setup, teardown),
      cmocka_unit_test_setup_teardown(runtime_cache_dir_inside_the_workspace_is_not_used, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(a_hard_link_of_a_denied_file_is_denied_by_inode, setup,
                                      teardown),
      cmocka_unit_test(seccomp_programs_deny_the_dangerous_calls_in_every_variant),
      cmocka_unit_test(seccomp_socket_rules_follow_the_variant),
      cmocka_unit_test(read_denied_below_finds_only_paths_under_the_dir),
      cmocka_unit_test_setup_teardown(runtime_dir_is_private_with_its_subdirs, setup, teardown),
      cmocka_unit_test_setup_teardown(gc_removes_month_old_dirs_at_most_once_a_day, setup,
                                      teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
