/* inner_helper.c — zero-sandbox-inner: the sandbox's inner stage as a tiny
 * freestanding program (no libc, no dynamic loader).
 *
 * Why a second binary: bwrap starts the inner stage for every sandboxed
 * command, and an exec of zero itself (3 MB, six shared libraries) costs
 * about 1.2 ms of CPU and ~90 page faults before the first line of main(),
 * while an exec of this 10 KB static program costs almost nothing above the
 * exec of the command that follows (see docs/sandbox.md, "Cost"). It does
 * exactly what `zero __sandbox-inner` does (src/sandbox/inner.c), with the
 * same arguments, so either can be started:
 *
 *   zero-sandbox-inner [--write PATH]... [--block-unix] [--deny-ip] [--take-tty] -- CMD ARGS...
 *   zero-sandbox-inner --reap      (zero's watchdog: src/exec/reaper.h)
 *
 * One linear story, every step checked, any failure fatal for the command
 * (status 126, never run with less confinement than asked): no_new_privs;
 * Landlock (writes only beneath the --write roots; signal and abstract-socket
 * scoping from ABI 6) when the kernel has it; with --take-tty, a session of
 * its own whose controlling terminal is the terminal on stdin (so ^C reaches
 * the command; best effort: without it the command still runs); the seccomp
 * filter compiled at
 * build time (src/sandbox/gen/seccomp_gen.c), the same bytes zero loads; then
 * execvp semantics (PATH from the environment, ENOEXEC scripts through
 * /bin/sh), status 127 when the command is not found.
 *
 * Written by hand for x86_64 and aarch64 (the system-call stubs and _start);
 * elsewhere CMake does not build it and zero uses `zero __sandbox-inner`.
 */
#define _GNU_SOURCE /* O_PATH */
#include <errno.h>
#include <fcntl.h>
#include <asm/ioctls.h> /* TIOCSCTTY */
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#include "sandbox/landlock_compat.h"
#include "sandbox/seccomp_bpf.h" /* generated at build time */

/* ---- system calls ------------------------------------------------------- */

#if defined(__x86_64__)
static long sys6(long n, long a, long b, long c, long d, long e, long f) {
  register long r10 __asm__("r10") = d;
  register long r8 __asm__("r8") = e;
  register long r9 __asm__("r9") = f;
  long r;
  __asm__ volatile("syscall"
                   : "=a"(r)
                   : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
                   : "rcx", "r11", "memory");
  return r;
}
__asm__(".text\n.globl _start\n_start:\n  mov %rsp, %rdi\n  and $-16, %rsp\n"
        "  call helper_main\n  hlt\n");
#elif defined(__aarch64__)
static long sys6(long n, long a, long b, long c, long d, long e, long f) {
  register long x8 __asm__("x8") = n;
  register long x0 __asm__("x0") = a;
  register long x1 __asm__("x1") = b;
  register long x2 __asm__("x2") = c;
  register long x3 __asm__("x3") = d;
  register long x4 __asm__("x4") = e;
  register long x5 __asm__("x5") = f;
  __asm__ volatile("svc 0"
                   : "+r"(x0)
                   : "r"(x8), "r"(x1), "r"(x2), "r"(x3), "r"(x4), "r"(x5)
                   : "memory");
  return x0;
}
__asm__(".text\n.globl _start\n_start:\n  mov x0, sp\n  bl helper_main\n  b .\n");
#else
#error "zero-sandbox-inner: x86_64 and aarch64 only (CMake skips it elsewhere)"
#endif

#define sys3(n, a, b, c) sys6((n), (long)(a), (long)(b), (long)(c), 0, 0, 0)

/* The compiler may emit calls to these for struct copies and zeroing. */
void *memset(void *d, int c, size_t n);
void *memcpy(void *d, const void *s, size_t n);
void *memset(void *d, int c, size_t n) {
  unsigned char *p = d;
  while (n--) *p++ = (unsigned char)c;
  return d;
}
void *memcpy(void *d, const void *s, size_t n) {
  unsigned char *p = d;
  const unsigned char *q = s;
  while (n--) *p++ = *q++;
  return d;
}

static size_t slen(const char *s) {
  size_t n = 0;
  while (s[n]) n++;
  return n;
}

static int seq(const char *a, const char *b) {
  while (*a && *a == *b) a++, b++;
  return *a == *b;
}

__attribute__((noreturn)) static void die(int status) {
  for (;;) sys3(SYS_exit_group, status, 0, 0);
}

static void say(const char *s) { sys3(SYS_write, 2, s, slen(s)); }

static const char *errtext(long e) {
  switch (e) {
    case ENOENT: return "No such file or directory";
    case EACCES: return "Permission denied";
    case EPERM: return "Operation not permitted";
    case ENOEXEC: return "Exec format error";
    case ENOTDIR: return "Not a directory";
    case ELOOP: return "Too many levels of symbolic links";
    case ENAMETOOLONG: return "File name too long";
    case E2BIG: return "Argument list too long";
    case ENOMEM: return "Cannot allocate memory";
    case EINVAL: return "Invalid argument";
    case ENOSYS: return "Function not implemented";
    default: return "system error";
  }
}

/* "zero sandbox: <what><arg>: <error>; the command was not run" and exit. */
__attribute__((noreturn)) static void fail(const char *what, const char *arg, long e, int status) {
  say("zero sandbox: ");
  say(what);
  if (arg) say(arg);
  say(": ");
  say(errtext(e));
  say(status == 126 && !arg ? "; the command was not run\n" : "\n");
  die(status);
}

/* ---- confinement ---------------------------------------------------------- */

static void load_landlock(char **argv, int cmd) {
  long abi = sys3(SYS_landlock_create_ruleset, 0, 0, ZLL_CREATE_RULESET_VERSION);
  if (abi <= 0) return; /* not available: the outer stage (or the report) covers it */
  uint64_t write = ZLL_FS_WRITE_FILE | ZLL_FS_REMOVE_DIR | ZLL_FS_REMOVE_FILE |
                   ZLL_FS_MAKE_CHAR | ZLL_FS_MAKE_DIR | ZLL_FS_MAKE_REG | ZLL_FS_MAKE_SOCK |
                   ZLL_FS_MAKE_FIFO | ZLL_FS_MAKE_BLOCK | ZLL_FS_MAKE_SYM;
  if (abi >= 2) write |= ZLL_FS_REFER;
  if (abi >= 3) write |= ZLL_FS_TRUNCATE;
  struct zll_ruleset_attr attr;
  memset(&attr, 0, sizeof attr);
  attr.handled_access_fs = write;
  size_t size = sizeof attr.handled_access_fs;
  if (abi >= 6) {
    attr.scoped = ZLL_SCOPE_SIGNAL | ZLL_SCOPE_ABSTRACT_UNIX_SOCKET;
    size = sizeof attr;
  }
  long rs = sys3(SYS_landlock_create_ruleset, &attr, size, 0);
  if (rs < 0) fail("landlock: cannot create a ruleset", 0, -rs, 126);
  for (int i = 1; i < cmd; i++) {
    if (!seq(argv[i], "--write")) continue;
    const char *root = argv[++i];
    struct zll_path_beneath_attr pb = {.allowed_access = write};
    long fd = sys6(SYS_openat, AT_FDCWD, (long)root, O_PATH | O_CLOEXEC | O_DIRECTORY, 0, 0, 0);
    if (fd == -ENOTDIR) {
      /* file rules: file rights only */
      fd = sys6(SYS_openat, AT_FDCWD, (long)root, O_PATH | O_CLOEXEC, 0, 0, 0);
      pb.allowed_access &= ZLL_FS_WRITE_FILE | ZLL_FS_TRUNCATE;
    }
    if (fd < 0) continue; /* a root that does not exist cannot be written anyway */
    pb.parent_fd = (int32_t)fd;
    long r = sys6(SYS_landlock_add_rule, rs, ZLL_RULE_PATH_BENEATH, (long)&pb, 0, 0, 0);
    sys3(SYS_close, fd, 0, 0);
    if (r < 0) fail("landlock: cannot add a rule for ", root, -r, 126);
  }
  long r = sys3(SYS_landlock_restrict_self, rs, 0, 0);
  if (r < 0) fail("landlock: cannot enforce the ruleset", 0, -r, 126);
  sys3(SYS_close, rs, 0, 0);
}

static void load_seccomp(int block_unix, int deny_ip) {
  unsigned v = (block_unix ? 1u : 0u) | (deny_ip ? 2u : 0u);
  struct sock_fprog prog = {.len = zsb_seccomp_filters[v].len,
                            .filter = (struct sock_filter *)zsb_seccomp_filters[v].insns};
  long r = sys3(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog);
  if (r == -ENOSYS)
    r = sys6(SYS_prctl, PR_SET_SECCOMP, SECCOMP_MODE_FILTER, (long)&prog, 0, 0, 0);
  if (r < 0) fail("seccomp: cannot load the filter", 0, -r, 126);
}

/* ---- exec with execvp semantics --------------------------------------------- */

static const char *env_path(char **envp) {
  for (char **e = envp; *e; e++)
    if ((*e)[0] == 'P' && (*e)[1] == 'A' && (*e)[2] == 'T' && (*e)[3] == 'H' && (*e)[4] == '=')
      return *e + 5;
  return "/usr/local/bin:/usr/bin:/bin";
}

/* execve, and a file without a known format run by /bin/sh as execvp does. */
static long try_exec(const char *path, char **argv, char **envp) {
  long r = sys3(SYS_execve, path, argv, envp);
  if (r != -ENOEXEC) return r;
  int n = 0;
  while (argv[n]) n++;
  char *sh[n + 2];
  sh[0] = (char *)"/bin/sh";
  sh[1] = (char *)path;
  for (int i = 1; i <= n; i++) sh[i + 1] = argv[i];
  sys3(SYS_execve, "/bin/sh", sh, envp);
  return r;
}

__attribute__((noreturn)) static void run(char **argv, char **envp) {
  const char *name = argv[0];
  long r;
  for (const char *s = name; *s; s++)
    if (*s == '/') {
      r = try_exec(name, argv, envp);
      fail("cannot run ", name, -r, -r == ENOENT ? 127 : 126);
    }
  const char *p = env_path(envp);
  size_t nl = slen(name);
  long seen_eacces = 0, last = ENOENT;
  char buf[4096];
  for (;;) {
    const char *end = p;
    while (*end && *end != ':') end++;
    size_t dl = (size_t)(end - p);
    if (dl + nl + 2 <= sizeof buf) {
      size_t k = 0;
      if (dl == 0) buf[k++] = '.';
      for (size_t i = 0; i < dl; i++) buf[k++] = p[i];
      buf[k++] = '/';
      for (size_t i = 0; i <= nl; i++) buf[k++] = name[i];
      r = try_exec(buf, argv, envp);
      if (r == -EACCES) seen_eacces = 1;
      else if (r != -ENOENT && r != -ENOTDIR && r != -ELOOP && r != -ENAMETOOLONG) {
        last = -r;
        break;
      }
    }
    if (!*end) break;
    p = end + 1;
  }
  if (seen_eacces && last == ENOENT) last = EACCES;
  fail("cannot run ", name, last, last == ENOENT ? 127 : 126);
}

/* Signals 32 and 33 back to the default disposition: zero started bwrap
 * through glibc's posix_spawn, which leaves both ignored in the child, and
 * exec would pass that on to the command (zreaper_default_internal_signals
 * in src/exec/reaper.h does the same for zero's own inner stage). */
static void default_internal_signals(void) {
  struct {
    long handler, flags, restorer;
    uint64_t mask;
  } dfl = {0, 0, 0, 0}; /* SIG_DFL */
  for (long sig = 32; sig <= 33; sig++)
    sys6(SYS_rt_sigaction, sig, (long)&dfl, 0, sizeof dfl.mask, 0, 0);
}

/* ---- the watchdog ------------------------------------------------------------- */

/* zero's watchdog (src/exec/reaper.c, which starts it in a session of its
 * own with the pipe on descriptor 3): reads int32 messages — a process group
 * id to remember, its negation to forget — until end-of-file, which means
 * zero is gone however it died; then SIGKILLs every group still
 * remembered. The same protocol as reaper.c's fork fallback. */
#define REAP_MAX 4096
__attribute__((noreturn)) static void reap(void) {
  sys3(SYS_close_range, 4, ~0u, 0);
  static int groups[REAP_MAX];
  static int msg[256];
  long n = 0, have = 0;
  for (;;) {
    long r = sys3(SYS_read, 3, (char *)msg + have, sizeof msg - (unsigned long)have);
    if (r == -EINTR) continue;
    if (r <= 0) break;
    have += r;
    long k = have / (long)sizeof *msg;
    for (long i = 0; i < k; i++) {
      int v = msg[i];
      if (v > 0) {
        if (n < REAP_MAX) groups[n++] = v;
      } else if (v < 0) {
        for (long j = n; j-- > 0;)
          if (groups[j] == -v) {
            groups[j] = groups[--n];
            break;
          }
      }
    }
    have -= k * (long)sizeof *msg;
    if (have) memcpy(msg, (char *)msg + k * (long)sizeof *msg, (size_t)have);
  }
  for (long i = 0; i < n; i++)
    if (sys3(SYS_kill, -groups[i], 9, 0) == -ESRCH) sys3(SYS_kill, groups[i], 9, 0);
  die(0);
}

/* ---- main ------------------------------------------------------------------- */

__attribute__((used, noreturn)) void helper_main(long *sp);
__attribute__((used, noreturn)) void helper_main(long *sp) {
  int argc = (int)sp[0];
  char **argv = (char **)(sp + 1);
  char **envp = argv + argc + 1;
  if (argc == 2 && seq(argv[1], "--reap")) reap();
  int block_unix = 0, deny_ip = 0, take_tty = 0, cmd = 0;
  for (int i = 1; i < argc; i++) {
    if (seq(argv[i], "--")) {
      cmd = i + 1;
      break;
    }
    if (seq(argv[i], "--write") && i + 1 < argc) i++;
    else if (seq(argv[i], "--block-unix")) block_unix = 1;
    else if (seq(argv[i], "--deny-ip")) deny_ip = 1;
    else if (seq(argv[i], "--take-tty")) take_tty = 1;
    else {
      say("zero-sandbox-inner is internal (started by zero inside the sandbox); unexpected "
          "argument ");
      say(argv[i]);
      say("\n");
      die(126);
    }
  }
  if (cmd == 0 || cmd >= argc) {
    say("zero-sandbox-inner: no command after --\n");
    die(126);
  }
  long r = sys6(SYS_prctl, PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0, 0);
  if (r < 0) fail("cannot set no_new_privs", 0, -r, 126);
  /* Landlock first: its system calls must not be filtered. */
  load_landlock(argv, cmd - 1);
  if (take_tty) {
    /* bwrap's --new-session made its pid 1 the session leader, not this
     * process: a session of our own first, then its terminal. */
    sys3(SYS_setsid, 0, 0, 0);
    sys3(SYS_ioctl, 0, TIOCSCTTY, 0);
  }
  default_internal_signals();
  load_seccomp(block_unix, deny_ip);
  run(argv + cmd, envp);
}
