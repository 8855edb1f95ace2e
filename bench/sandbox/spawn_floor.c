/* spawn_floor.c — the floor under `zero sandbox exec` on this machine: a
 * process that does nothing but start its arguments and wait for them.
 *
 * Built twice by bench/sandbox/run: linked with glibc like zero (its start-up
 * alone — the loader, glibc's CPU-feature probing — is what any front
 * process written against libc pays), and, on x86_64, freestanding with raw
 * system calls (what a process costs with no libc at all). Run in front of
 * the same bwrap + inner-stage command line zero starts, their distance to
 * bare bwrap is what no `zero sandbox exec` can go below. The command is
 * given by absolute path (no PATH search in either build).
 */
#ifdef SPAWN_FLOOR_NOLIBC
static long sc(long n, long a, long b, long c, long d) {
  long r;
  register long r10 __asm__("r10") = d;
  __asm__ volatile("syscall"
                   : "=a"(r)
                   : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10)
                   : "rcx", "r11", "memory");
  return r;
}
__attribute__((used, noreturn)) void floor_main(long *sp);
__attribute__((used, noreturn)) void floor_main(long *sp) {
  long argc = sp[0];
  char **argv = (char **)(sp + 1), **envp = argv + argc + 1;
  long pid = sc(57 /* fork */, 0, 0, 0, 0);
  if (pid == 0) {
    sc(59 /* execve */, (long)argv[1], (long)(argv + 1), (long)envp, 0);
    sc(60 /* exit */, 127, 0, 0, 0);
  }
  int st = 0;
  sc(61 /* wait4 */, pid, (long)&st, 0, 0);
  sc(60, (st >> 8) & 0xff, 0, 0, 0);
  for (;;) {
  }
}
__asm__(".text\n.globl _start\n_start:\n  mov %rsp, %rdi\n  and $-16, %rsp\n  call floor_main\n");
#else
#include <spawn.h>
#include <sys/wait.h>
extern char **environ;
int main(int argc, char **argv) {
  (void)argc;
  pid_t pid;
  if (posix_spawn(&pid, argv[1], 0, 0, argv + 1, environ)) return 127;
  int st;
  waitpid(pid, &st, 0);
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}
#endif
