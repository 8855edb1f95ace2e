/* proc.h — the process manager: starting children, long-lived sessions,
 * bounded output, safe termination.
 *
 * zexec_spawn is the one place a child process is started: it passes the
 * command through the run's zspawner (the sandbox) and then forks with the
 * child in its own session and process group, on a PTY (tty) or pipes.
 *
 * A zexec_table keeps live processes between tool calls (exec_command that
 * outlives its yield time, then write_stdin). Each process has a ring of its
 * newest output (ZEXEC_RING_MAX bytes). Its exit is observed with
 * waitid(WNOWAIT), so the leader stays a zombie — and its PID and process
 * group id stay reserved — until zero has finished signalling the group; it
 * is reaped only when the process is removed. A PID is therefore never
 * signalled after it was reaped.
 */
#ifndef ZERO_EXEC_PROC_H
#define ZERO_EXEC_PROC_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/buf.h"
#include "base/err.h"
#include "exec/spawn.h"

#define ZEXEC_RING_MAX (2u << 20)   /* newest output kept per process */
#define ZEXEC_MAX_LIVE 64           /* processes a table keeps */
#define ZEXEC_FIRST_ID 1000         /* session ids start here */
#define ZEXEC_KILL_GRACE_MS 1000    /* SIGTERM → SIGKILL */

typedef struct zexec_opts {
  bool tty;          /* a PTY (controlling terminal) instead of pipes */
  bool stdin_open;   /* pipes: keep a stdin pipe (false: /dev/null) */
  /* The child is zero itself running a sub-agent (subagent/child.c): it
   * keeps the environment's credentials, since it calls the same provider
   * as the parent. Never set for a command from model input. */
  bool zero_child;
  /* pipes only: stderr gets a pipe of its own (zexec_child.err_fd) instead
   * of sharing stdout's. For protocol peers (language servers) whose stdout
   * carries framed messages a log line must not corrupt. */
  bool own_stderr;
  /* Pipes: the child's stderr stays zero's own (the daemon's log) instead of
   * joining its output, which must stay one clean stream. */
  bool keep_stderr;
  /* > 2: this descriptor is the child's fd 4 (ZEXEC_PASS_FD), every other
   * one above 2 is closed as usual. For zero_child only: a sub-agent's
   * private channel to its parent (subagent/relay.h). 0 = none. */
  int pass_fd;
} zexec_opts;

#define ZEXEC_PASS_FD 4

/* A started child. */
typedef struct zexec_child {
  pid_t pid;         /* leader of its own session and process group */
  int out_fd;        /* read end (PTY master or pipe), non-blocking, CLOEXEC */
  int in_fd;         /* write end for stdin (PTY master dup or pipe); -1 = none */
  int err_fd;        /* read end of stderr with own_stderr (non-blocking, CLOEXEC); else -1 */
  bool group_inside; /* the command's group is its first child's (zspawn_cmd) */
  /* The wrapped command's on_exit hook (zspawn_cmd), moved here: run once the
   * child's exit is observed (zexec_table_add takes it over). */
  void (*on_exit)(void *ud);
  void *on_exit_ud;
} zexec_child;

/* What zexec_spawn does to cmd before it starts it, for a child someone
 * else starts (an editor's terminal over ACP, tools/tool.h ztool_backend):
 * the spawner's wrap (the sandbox; skipped when spawner is NULL), then the
 * credential scrub of its environment, which is then explicit (cmd->envp is
 * not NULL afterwards unless zero_child). 0, or -1 with the spawner's message. After the
 * child has exited the starter calls zspawn_cmd_finish (the on_exit hook). */
int zexec_prepare(zspawner *spawner, zspawn_cmd *cmd, bool zero_child, zerr *err);

/* Starts cmd (after spawner->wrap when spawner is non-NULL; a wrap failure is
 * returned with the spawner's message). cmd is consumed either way; when the
 * child could not be started, the spawner's on_exit hook has already run. */
int zexec_spawn(zspawner *spawner, zspawn_cmd *cmd, const zexec_opts *o, zexec_child *out,
                zerr *err);

/* Whether the child pid has exited, observed without reaping it (waitid
 * with WEXITED | WNOWAIT): it stays a zombie, so its PID — and the process
 * group id of a group leader — cannot be reused while the caller may still
 * signal the group; the caller reaps it afterwards. block: wait for the exit
 * instead of looking. 1 = exited (*si, when non-NULL, says how), 0 = still
 * running (never with block), -1 = waitid failed (errno; ECHILD: not a child
 * of ours, or reaped already). EINTR is retried. */
int zexec_peek_exit(pid_t pid, bool block, siginfo_t *si);

/* zexec_spawn for a child that is never wrapped and needs no terminal (the
 * daemon's workers: zero itself, which confines its own tools), started
 * with posix_spawn (vfork-like) instead of fork: no copy of zero's page
 * tables and no copy-on-write faults in zero afterwards, which made up most
 * of a busy daemon's CPU. The child leads a session and group of its own
 * (POSIX_SPAWN_SETSID), starts in cmd->cwd, gets pipes (stdin: a pipe with
 * o->stdin_open, else /dev/null) and is registered with the watchdog.
 * o->tty must be false. cmd is consumed. */
int zexec_spawn_plain(zspawn_cmd *cmd, const zexec_opts *o, zexec_child *out, zerr *err);
/* Runs argv (argv[0] looked up in PATH) in the foreground of zero's own
 * terminal, in zero's process group, and waits for it: the user's editor,
 * started because the user asked for it. Never for a command from model
 * input: it is not confined (the user runs it as their shell would, with
 * their environment). The caller has put the terminal back in cooked mode.
 * While it runs, zero ignores SIGINT and SIGQUIT (they are the child's, as
 * system(3) does). Returns the child's exit code (128 + N when killed by
 * signal N), or -1 with err set when it could not be started. */
int zexec_run_foreground(char *const argv[], zerr *err);

/* ---- live processes -------------------------------------------------------- */

typedef struct zexec_proc zexec_proc;

typedef struct zexec_table zexec_table;

/* The process-wide table (a named singleton): every process it holds is
 * stopped at exit (atexit) and by zexec_table_shutdown. */
zexec_table *zexec_table_default(void);
zexec_table *zexec_table_new(void);
/* Stops every process (SIGTERM to all groups, one shared grace, SIGKILL) and
 * reaps them. The table stays usable. */
void zexec_table_shutdown(zexec_table *t);
void zexec_table_free(zexec_table *t);

/* Adds a started child and gives it the next session id. When the table is
 * full, first the oldest finished process is removed, else the least recently
 * used one is stopped. *evicted_out (optional) gets the id removed, or 0. */
zexec_proc *zexec_table_add(zexec_table *t, zexec_child *c, bool tty, const char *label,
                            int *evicted_out);
zexec_proc *zexec_table_get(zexec_table *t, int id);
/* Stops the process (if running), reaps it and frees it. */
void zexec_table_remove(zexec_table *t, zexec_proc *p);
size_t zexec_table_count(const zexec_table *t);

/* One live process as a listing shows it (/ps). */
typedef struct zexec_proc_info {
  int id;
  pid_t pid;
  bool running;       /* its leader has not exited */
  int64_t started_ms; /* monotonic */
  char *label;        /* the command, owned */
} zexec_proc_info;

/* A snapshot of t's processes in the order they were added: *out gets n
 * entries (caller frees with zexec_proc_infos_free). Any thread: it only
 * observes (waitid WNOWAIT), never reaps or changes a process. */
size_t zexec_table_list(zexec_table *t, zexec_proc_info **out);
void zexec_proc_infos_free(zexec_proc_info *v, size_t n);
/* SIGKILLs the process group of session id (under the sandbox the command's
 * own group inside first), without reaping or removing it: safe from a
 * thread other than the one that waits for the process, which then sees the
 * exit. 0, or -1 when t holds no session id. */
int zexec_table_kill(zexec_table *t, int id);

int zexec_proc_id(const zexec_proc *p);
pid_t zexec_proc_pid(const zexec_proc *p);
bool zexec_proc_tty(const zexec_proc *p);
bool zexec_proc_has_stdin(const zexec_proc *p);
void *zexec_proc_userdata(const zexec_proc *p);
/* Attaches data freed with free_fn when the process is removed. */
void zexec_proc_set_userdata(zexec_proc *p, void *ud, void (*free_fn)(void *));

/* Writes chars to the process's stdin. "\x03" alone on a process without a
 * terminal sends SIGINT to its group. Returns 0 or -1 with err. */
int zexec_proc_write(zexec_proc *p, const char *chars, size_t n, zerr *err);

typedef enum zexec_wait_end {
  ZEXEC_EXITED,     /* the process exited and its output ended (or was abandoned) */
  ZEXEC_YIELDED,    /* still running at the deadline */
  ZEXEC_CANCELLED,  /* zero was asked to stop */
} zexec_wait_end;

/* Reads output until the process has exited and its output reached EOF, the
 * absolute monotonic deadline_ms, or a cancellation. When the leader exited
 * but others keep the output open for 300 ms, they are stopped (lingering set). */
zexec_wait_end zexec_proc_wait(zexec_proc *p, int64_t deadline_ms, bool *lingering);

/* SIGTERM to the group, up to grace_ms, then SIGKILL; the leader's exit is
 * observed (not reaped). */
void zexec_proc_kill(zexec_proc *p, int grace_ms);

/* The output not yet taken, appended to out; *dropped_out gets how many unread
 * bytes fell out of the ring since the last take (report it once). */
void zexec_proc_take_output(zexec_proc *p, zbuf *out, uint64_t *dropped_out);
uint64_t zexec_proc_total_output(const zexec_proc *p);
/* Appends to out the newest output not yet taken, at most max bytes of it
 * (its end), without taking it: what a display of a running command shows
 * while the output still belongs to the next take. */
void zexec_proc_peek_tail(const zexec_proc *p, size_t max, zbuf *out);

/* After ZEXEC_EXITED: true with the exit code or signal. */
bool zexec_proc_exited(const zexec_proc *p, int *exit_code, int *signal_out);

#endif
