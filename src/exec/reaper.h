/* reaper.h — nothing zero started outlives zero, even when zero is killed.
 *
 * zero stops its children itself when it exits (exit, SIGINT, SIGTERM), but
 * a SIGKILL or a crash leaves no chance to. A sandboxed command dies anyway
 * (bwrap --die-with-parent, and its pid namespace with it); an unconfined
 * one would keep running. PR_SET_PDEATHSIG cannot cover it: it follows the
 * *thread* that forked (the TUI runs turns on worker threads that end) and
 * reaches only the direct child, not the rest of its process group.
 *
 * So the first spawn starts a watchdog: a process that leaves zero's session
 * and process group (a ^C or a kill of zero's group does not reach it),
 * keeps only the read end of a pipe, and waits. It is zero's 13 KB static
 * helper run as `zero-sandbox-inner --reap` when zreaper_set_program named
 * it (posix_spawn: no copy of zero's page tables, and ~0.1 MiB resident
 * where a fork of zero — the fallback — kept ~3 MiB of zero's memory). Each
 * child writes its own process group id into the pipe before it execs, and
 * zero writes "forget it" before it reaps that child's leader. The write end
 * is close-on-exec and held only by zero, so when zero dies — however it
 * dies — the watchdog reads end-of-file and SIGKILLs every group still
 * registered, then exits. While zero lives, it does nothing.
 */
/* Forks are made on one thread that lives as long as zero. A sandboxed
 * command's bwrap dies with its parent (--die-with-parent, PR_SET_PDEATHSIG),
 * and the kernel takes "parent" to mean the thread that forked: forked from
 * a TUI turn's worker thread, a command left running as a session was killed
 * when that turn ended. zreaper_fork runs fork() on the lasting thread; the
 * child calls child(arg) (which must exec or _exit, with only
 * async-signal-safe calls; arg may point into the caller's stack) and the
 * parent gets the pid, or -1 with errno set. */
#ifndef ZERO_EXEC_REAPER_H
#define ZERO_EXEC_REAPER_H

#include <signal.h>
#include <spawn.h>
#include <stddef.h>
#include <sys/types.h>

/* Starts the watchdog on first use; returns the pipe's write end (for
 * zreaper_child_register in a forked child), or -1 when no watchdog could
 * be started (then children are only stopped by zero itself). */
int zreaper_fd(void);
/* How to find the program that runs the watchdog (zero-sandbox-inner,
 * which takes --reap): find is called once, when the first spawn starts the
 * watchdog, and returns the path (outliving the process) or NULL to fork
 * zero itself. Set before the first spawn (main.c sets it at start-up: a
 * --worktree run's git comes before any sandbox setup); looking the helper
 * up only then keeps commands that spawn nothing (zero --version) from
 * paying for it. */
void zreaper_set_program_finder(const char *(*find)(void));
/* In a forked child, after setsid() and before exec: registers the child's
 * process group. Async-signal-safe. fd is zreaper_fd()'s value. */
void zreaper_child_register(int fd);
/* In a forked child (async-signal-safe, no allocation): every signal's
 * disposition back to the default except the n in ignore, which are ignored,
 * and then nothing blocked — so a handler or mask of zero's never leaks into
 * what the child runs. */
void zreaper_child_signals(const int *ignore, size_t n);
/* Signals 32 and 33 back to their default disposition, through the system
 * call: glibc's sigaction refuses them, and glibc's posix_spawn sets both to
 * ignored in every child it starts, which exec then passes on to every
 * program below (a CI runner that spawns this way leaves them ignored in the
 * whole tree). Called last before exec wherever zero starts a command: the
 * forked child (zreaper_child_signals) and the sandbox's inner stage.
 * Async-signal-safe. */
void zreaper_default_internal_signals(void);
/* Makes at (initialised) start its child with every signal at its default
 * disposition and none blocked, and sets its flags to flags (other
 * POSIX_SPAWN_* the caller wants, e.g. SETSID) plus SETSIGDEF and
 * SETSIGMASK. The default set names 32 and 33 too: sigfillset leaves those
 * two out, and glibc's posix_spawn then sets them to ignored in the child
 * (glibc spawns with every signal blocked, and an internal signal blocked at
 * spawn becomes ignored) unless the set names them. */
void zreaper_spawnattr_clean_signals(posix_spawnattr_t *at, short flags);
/* In zero, right after starting a child that leads a process group of its
 * own without forking (zexec_spawn_plain): registers that group. The child
 * may outlive a zero killed in between; the window is one system call. */
void zreaper_register(pid_t pgid);
/* In zero, before reaping a registered group's leader (its group id may be
 * reused after that): the watchdog forgets the group. */
void zreaper_forget(pid_t pgid);
pid_t zreaper_fork(void (*child)(void *arg), void *arg);

#endif
