/* test_exec_sessions.c — long-lived processes: exec_command sessions,
 * write_stdin, the process table (eviction, termination, reaping), the
 * spawner seam and the changed-files report. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/cancel.h"
#include "base/json.h"
#include "base/time.h"
#include "exec/proc.h"
#include "test_tools_util.h"

/* 'Z' zombie, 'X' gone, else the state letter; 0 when /proc has no entry. */
static char proc_state(pid_t pid) {
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
  FILE *fp = fopen(path, "r");
  if (!fp) return 0;
  char buf[512];
  size_t n = fread(buf, 1, sizeof buf - 1, fp);
  fclose(fp);
  buf[n] = '\0';
  char *rp = strrchr(buf, ')');
  return rp && rp[1] == ' ' ? rp[2] : '?';
}

static bool dead_soon(pid_t pid) {
  for (int i = 0; i < 200; i++) {
    char s = proc_state(pid);
    if (s == 0 || s == 'Z' || s == 'X') return true;
    ztime_sleep_ms(10, NULL);
  }
  return false;
}

static int session_of(tfx *f) {
  assert_non_null(f->res.meta);
  int id = (int)zjson_int_or(f->res.meta, "session_id", 0);
  if (id < ZEXEC_FIRST_ID) fail_msg("no session id in:\n%s", f->res.output.data);
  return id;
}

/* A loaded machine (two test suites at once) can start python later than a
 * call's yield time: polls the session (an empty write_stdin) until needle
 * shows up, for at most ~30 s, so the test does not depend on the load. */
static void await_output(tfx *f, int id, const char *needle) {
  for (int i = 0; i < 30 && !strstr(f->res.output.data, needle); i++)
    assert_int_equal(tfx_run(f, "write_stdin", "{\"session_id\":%d,\"chars\":\"\","
                                               "\"yield_time_ms\":1000}", id), 0);
  assert_output_contains(f, needle);
}

static void python_repl_is_driven_through_write_stdin(void **state) {
  tfx *f = *state;
  assert_int_equal(tfx_run(f, "exec_command", "{\"cmd\":\"python3 -q -i\",\"tty\":true,"
                                              "\"yield_time_ms\":1500}"), 0);
  int id = session_of(f);
  assert_output_contains(f, "still running");
  await_output(f, id, ">>>");
  assert_int_equal(tfx_run(f, "write_stdin", "{\"session_id\":%d,\"chars\":\"print(6*7)\\n\","
                                             "\"yield_time_ms\":1500}", id), 0);
  await_output(f, id, "42");
  assert_int_equal(zjson_int_or(f->res.meta, "session_id", 0), id);
  assert_int_equal(tfx_run(f, "write_stdin", "{\"session_id\":%d,\"chars\":\"x = 5\\n\"}", id), 0);
  assert_int_equal(tfx_run(f, "write_stdin", "{\"session_id\":%d,\"chars\":\"print(x+1)\\n\"}", id), 0);
  await_output(f, id, "6");
  assert_int_equal(tfx_run(f, "write_stdin", "{\"session_id\":%d,\"chars\":\"exit()\\n\","
                                             "\"yield_time_ms\":5000}", id), 0);
  assert_output_contains(f, "exit code: 0");
  /* The session is gone once its exit was reported. */
  assert_int_equal(tfx_run(f, "write_stdin", "{\"session_id\":%d}", id), -1);
  assert_output_contains(f, "there is no running session");
}

static long maxrss_kb(void) {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_maxrss;
}

static void endless_output_yields_on_time_in_bounded_memory(void **state) {
  tfx *f = *state;
  long before = maxrss_kb();
  int64_t t0 = ztime_mono_ms();
  assert_int_equal(tfx_run(f, "exec_command", "{\"cmd\":\"yes 0123456789abcdef\","
                                              "\"yield_time_ms\":500}"), 0);
  int64_t took = ztime_mono_ms() - t0;
  if (took < 450 || took > 2000) fail_msg("yield at 500 ms took %lld ms", (long long)took);
  int id = session_of(f);
  assert_true(f->res.output.len <= 10000 * 4 + 1024);
  for (int i = 0; i < 5; i++) {
    assert_int_equal(tfx_run(f, "write_stdin", "{\"session_id\":%d,\"yield_time_ms\":300}", id), 0);
    assert_output_contains(f, "0123456789abcdef\n");
  }
  long grew = maxrss_kb() - before;
#ifndef __SANITIZE_ADDRESS__ /* ASan's quarantine keeps freed chunks resident */
  if (grew > 30 * 1024) fail_msg("memory grew by %ld KiB", grew);
#else
  (void)grew;
#endif
  /* "\u0003" without a terminal interrupts the group. */
  assert_int_equal(tfx_run(f, "write_stdin", "{\"session_id\":%d,\"chars\":\"\\u0003\","
                                             "\"yield_time_ms\":3000}", id), -1);
  assert_output_contains(f, "killed by signal 2");
}

static void interrupt_on_a_terminal_stops_the_foreground_job(void **state) {
  tfx *f = *state;
  assert_int_equal(tfx_run(f, "exec_command", "{\"cmd\":\"echo ready; sleep 100\",\"tty\":true,"
                                              "\"yield_time_ms\":500}"), 0);
  int id = session_of(f);
  assert_output_contains(f, "ready");
  assert_int_equal(tfx_run(f, "write_stdin", "{\"session_id\":%d,\"chars\":\"\\u0003\","
                                             "\"yield_time_ms\":3000}", id), -1);
  assert_output_contains(f, "killed by signal 2");
}

/* Ctrl-C spelled out (the JSON escape doubled, "^C", "ctrl-c") interrupts
 * too, with or without a terminal; other text is input as usual. */
static void spelled_out_interrupts_stop_the_command(void **state) {
  tfx *f = *state;
  const char *forms[] = {"\\\\u0003", "^C", "ctrl-c", "\\u0003\\n"};
  for (size_t i = 0; i < ZARRAY_LEN(forms); i++) {
    assert_int_equal(tfx_run(f, "exec_command", "{\"cmd\":\"echo ready; sleep 100\",\"tty\":%s,"
                                                "\"yield_time_ms\":500}",
                             i % 2 ? "true" : "false"),
                     0);
    int id = session_of(f);
    assert_int_equal(tfx_run(f, "write_stdin", "{\"session_id\":%d,\"chars\":\"%s\","
                                               "\"yield_time_ms\":3000}", id, forms[i]), -1);
    assert_output_contains(f, "killed by signal 2");
  }
  assert_int_equal(tfx_run(f, "exec_command", "{\"cmd\":\"read l; echo got $l\",\"tty\":true,"
                                              "\"yield_time_ms\":300}"), 0);
  int id = session_of(f);
  assert_int_equal(tfx_run(f, "write_stdin", "{\"session_id\":%d,\"chars\":\"interrupt now\\n\","
                                             "\"yield_time_ms\":3000}", id), 0);
  assert_output_contains(f, "got interrupt now");
}

static void a_session_is_killed_as_a_group_with_its_grandchildren(void **state) {
  tfx *f = *state;
  assert_int_equal(tfx_run(f, "exec_command",
                           "{\"cmd\":\"sleep 1000 & echo $! > gc.pid; exec sleep 1000\","
                           "\"yield_time_ms\":400}"), 0);
  int id = session_of(f);
  zexec_proc *p = zexec_table_get(zexec_table_default(), id);
  assert_non_null(p);
  pid_t leader = zexec_proc_pid(p);
  char *t = tfx_read(f, "gc.pid");
  assert_non_null(t);
  pid_t gc = (pid_t)strtol(t, NULL, 10);
  free(t);
  assert_true(gc > 1);
  assert_int_equal(getpgid(gc), leader); /* same group */
  int64_t t0 = ztime_mono_ms();
  zexec_table_shutdown(zexec_table_default()); /* what zero does at exit */
  assert_true(ztime_mono_ms() - t0 < 3000);
  assert_true(dead_soon(gc));
  assert_int_equal(proc_state(leader), 0); /* reaped */
  assert_null(zexec_table_get(zexec_table_default(), id));
}

static void exit_is_observed_without_reaping_until_removed(void **state) {
  (void)state;
  zexec_table *t = zexec_table_new();
  zspawn_cmd cmd = {.argv = NULL};
  cmd.argv = xcalloc(4, sizeof(char *));
  cmd.argv[0] = xstrdup("/bin/sh");
  cmd.argv[1] = xstrdup("-c");
  cmd.argv[2] = xstrdup("exit 7");
  zexec_opts o = {0};
  zexec_child c;
  assert_int_equal(zexec_spawn(NULL, &cmd, &o, &c, NULL), 0);
  zexec_proc *p = zexec_table_add(t, &c, false, "exit 7", NULL);
  assert_int_equal(zexec_proc_wait(p, ztime_mono_ms() + 5000, NULL), ZEXEC_EXITED);
  int code = 0;
  assert_true(zexec_proc_exited(p, &code, NULL));
  assert_int_equal(code, 7);
  pid_t pid = zexec_proc_pid(p);
  /* Still a zombie: the PID (= the group id zero signals) is not reusable. */
  assert_int_equal(proc_state(pid), 'Z');
  /* Signalling the group now cannot reach anyone else. */
  assert_int_equal(zexec_proc_write(p, "\x03", 1, NULL), 0);
  zexec_table_remove(t, p);
  assert_int_equal(proc_state(pid), 0);
  zexec_table_free(t);
}

/* /bin/sh -c script, as a command to spawn (consumed by the spawn). */
static zspawn_cmd sh_cmd(const char *script) {
  zspawn_cmd cmd = {.argv = NULL};
  cmd.argv = xcalloc(4, sizeof(char *));
  cmd.argv[0] = xstrdup("/bin/sh");
  cmd.argv[1] = xstrdup("-c");
  cmd.argv[2] = xstrdup(script);
  return cmd;
}

static zexec_proc *spawn_into(zexec_table *t, const char *script, int *evicted) {
  zspawn_cmd cmd = sh_cmd(script);
  zexec_opts o = {0};
  zexec_child c;
  assert_int_equal(zexec_spawn(NULL, &cmd, &o, &c, NULL), 0);
  return zexec_table_add(t, &c, false, script, evicted);
}

/* What a CI runner or supervisor that is not a glibc program can leave
 * behind: signals 32 and 33 (the ones glibc keeps for itself and refuses in
 * sigaction) ignored, which exec passes on. Sets both to handler through
 * the raw system call, as such a parent does; returns whether it took. */
static bool set_glibc_internal_signals(void *handler) {
  struct {
    void *handler;
    unsigned long flags;
    void *restorer;
    uint64_t mask;
  } sa = {handler, 0, NULL, 0};
  return syscall(SYS_rt_sigaction, 32, &sa, NULL, sizeof sa.mask) == 0 &&
         syscall(SYS_rt_sigaction, 33, &sa, NULL, sizeof sa.mask) == 0;
}

/* A child starts with default signal dispositions and nothing blocked,
 * whatever zero ignores or blocks (exec keeps both): a command must not
 * inherit an ignored SIGPIPE, a blocked SIGUSR1, or the ignored signals 32
 * and 33 of a parent that is not a glibc program (the clean-clone CI run
 * had them: SigIgn 0000000180000000). */
static void a_child_starts_with_default_signals_and_no_mask(void **state) {
  (void)state;
  struct sigaction ign = {.sa_handler = SIG_IGN}, old_pipe;
  sigaction(SIGPIPE, &ign, &old_pipe);
  sigset_t usr1, old_mask;
  sigemptyset(&usr1);
  sigaddset(&usr1, SIGUSR1);
  pthread_sigmask(SIG_BLOCK, &usr1, &old_mask);
  assert_true(set_glibc_internal_signals(SIG_IGN));
  zexec_table *t = zexec_table_new();
  zexec_proc *p = spawn_into(t, "grep -E '^Sig(Ign|Blk)' /proc/self/status", NULL);
  assert_true(set_glibc_internal_signals(SIG_DFL));
  sigaction(SIGPIPE, &old_pipe, NULL);
  pthread_sigmask(SIG_SETMASK, &old_mask, NULL);
  assert_int_equal(zexec_proc_wait(p, ztime_mono_ms() + 5000, NULL), ZEXEC_EXITED);
  zbuf out = ZBUF_INIT;
  zexec_proc_take_output(p, &out, NULL);
  assert_non_null(strstr(out.data, "SigIgn:\t0000000000000000"));
  assert_non_null(strstr(out.data, "SigBlk:\t0000000000000000"));
  zbuf_release(&out);
  zexec_table_remove(t, p);
  zexec_table_free(t);
}

/* zexec_spawn_plain's child (posix_spawn, the daemon's workers) starts as
 * clean as a forked one: glibc's posix_spawn would leave signals 32 and 33
 * ignored unless zero names them in the set it resets. */
static void a_plain_spawned_child_starts_with_default_signals(void **state) {
  (void)state;
  struct sigaction ign = {.sa_handler = SIG_IGN}, old_pipe;
  sigaction(SIGPIPE, &ign, &old_pipe);
  zspawn_cmd cmd = sh_cmd("grep -E '^Sig(Ign|Blk)' /proc/self/status");
  zexec_opts o = {0};
  zexec_child c;
  assert_int_equal(zexec_spawn_plain(&cmd, &o, &c, NULL), 0);
  sigaction(SIGPIPE, &old_pipe, NULL);
  char out[256] = "";
  size_t n = 0;
  for (int tries = 0; tries < 500; tries++) {
    ssize_t r = read(c.out_fd, out + n, sizeof out - 1 - n);
    if (r == 0) break;
    if (r > 0) n += (size_t)r;
    else usleep(10000);
  }
  out[n] = '\0';
  int st = 0;
  assert_int_equal(waitpid(c.pid, &st, 0), c.pid);
  close(c.out_fd);
  assert_non_null(strstr(out, "SigIgn:\t0000000000000000"));
  assert_non_null(strstr(out, "SigBlk:\t0000000000000000"));
}

/* zexec_run_foreground's child (the editor the TUI opens, `zero cron
 * edit`) starts as clean: not only SIGINT and SIGQUIT, which it ignores
 * while it waits, but SIGPIPE and 32/33 too. */
static void a_foreground_child_starts_with_default_signals(void **state) {
  (void)state;
  struct sigaction ign = {.sa_handler = SIG_IGN}, old_pipe;
  sigaction(SIGPIPE, &ign, &old_pipe);
  assert_true(set_glibc_internal_signals(SIG_IGN));
  char *argv[] = {"/bin/sh", "-c",
                  "grep -q '^SigIgn:.0000000000000000$' /proc/self/status && "
                  "grep -q '^SigBlk:.0000000000000000$' /proc/self/status",
                  NULL};
  zerr err = ZERR_INIT;
  int rc = zexec_run_foreground(argv, &err);
  assert_true(set_glibc_internal_signals(SIG_DFL));
  sigaction(SIGPIPE, &old_pipe, NULL);
  assert_int_equal(rc, 0);
}

/* /ps and /stop (cli/tui_ps.c): the listing says which process runs, and
 * a kill from another thread ends the whole group (the grandchild too)
 * while the entry stays, unreaped, for the thread that waits for it. */
static void list_and_kill_end_the_group_and_leave_the_entry(void **state) {
  (void)state;
  zexec_table *t = zexec_table_new();
  char dir[] = "/tmp/zero-kill-XXXXXX";
  assert_non_null(mkdtemp(dir));
  char script[256];
  snprintf(script, sizeof script, "sleep 1000 & echo $! > %s/gc.pid; exec sleep 1000", dir);
  zexec_proc *p = spawn_into(t, script, NULL);
  zexec_proc *done = spawn_into(t, "exit 3", NULL);
  assert_int_equal(zexec_proc_wait(done, ztime_mono_ms() + 5000, NULL), ZEXEC_EXITED);
  char path[300];
  snprintf(path, sizeof path, "%s/gc.pid", dir);
  pid_t gc = 0;
  for (int i = 0; i < 500 && gc <= 0; i++) {
    FILE *fp = fopen(path, "r");
    char buf[32] = "";
    if (fp && fgets(buf, sizeof buf, fp)) gc = (pid_t)strtol(buf, NULL, 10);
    if (fp) fclose(fp);
    if (gc <= 0) ztime_sleep_ms(10, NULL);
  }
  assert_true(gc > 1);

  zexec_proc_info *v;
  size_t n = zexec_table_list(t, &v);
  assert_int_equal(n, 2);
  assert_int_equal(v[0].id, zexec_proc_id(p));
  assert_true(v[0].running);
  assert_string_equal(v[0].label, script);
  assert_int_equal(v[0].pid, zexec_proc_pid(p));
  assert_false(v[1].running);
  zexec_proc_infos_free(v, n);

  assert_int_equal(zexec_table_kill(t, zexec_proc_id(p)), 0);
  assert_true(dead_soon(gc));
  assert_int_equal(zexec_proc_wait(p, ztime_mono_ms() + 5000, NULL), ZEXEC_EXITED);
  int code = 0, sig = 0;
  assert_true(zexec_proc_exited(p, &code, &sig));
  assert_int_equal(sig, SIGKILL);
  assert_non_null(zexec_table_get(t, zexec_proc_id(p))); /* still there to report */
  n = zexec_table_list(t, &v);
  assert_false(v[0].running);
  zexec_proc_infos_free(v, n);
  assert_int_equal(zexec_table_kill(t, 42), -1);
  zexec_table_free(t);
  unlink(path);
  rmdir(dir);
}

static void the_65th_process_evicts_finished_then_least_recently_used(void **state) {
  (void)state;
  zexec_table *t = zexec_table_new();
  zexec_proc *ps[ZEXEC_MAX_LIVE];
  int ids[ZEXEC_MAX_LIVE];
  for (int i = 0; i < ZEXEC_MAX_LIVE; i++) {
    int ev = -1;
    ps[i] = spawn_into(t, i == 10 || i == 20 ? "exit 0" : "exec sleep 100", &ev);
    ids[i] = zexec_proc_id(ps[i]);
    assert_int_equal(ev, 0);
  }
  assert_int_equal(ids[0], ZEXEC_FIRST_ID);
  assert_int_equal(zexec_table_count(t), ZEXEC_MAX_LIVE);
  ztime_sleep_ms(300, NULL); /* let 10 and 20 exit */
  /* Touch everyone but 5, so 5 is the least recently used running one. */
  for (int i = 0; i < ZEXEC_MAX_LIVE; i++)
    if (i != 5) zexec_proc_write(ps[i], "", 0, NULL);
  int ev = 0;
  spawn_into(t, "exec sleep 100", &ev);
  assert_int_equal(ev, ids[10]); /* oldest finished first */
  spawn_into(t, "exec sleep 100", &ev);
  assert_int_equal(ev, ids[20]);
  pid_t pid5 = zexec_proc_pid(ps[5]);
  spawn_into(t, "exec sleep 100", &ev);
  assert_int_equal(ev, ids[5]); /* then the least recently used */
  assert_true(dead_soon(pid5));
  assert_null(zexec_table_get(t, ids[5]));
  assert_int_equal(zexec_table_count(t), ZEXEC_MAX_LIVE);
  zexec_table_free(t);
}

/* The spawner seam: every child goes through wrap; a refusal is the error. */
static int prefix_env(zspawner *s, zspawn_cmd *cmd, zerr *err) {
  (void)err;
  int *calls = s->ud;
  (*calls)++;
  size_t n = 0;
  while (cmd->argv[n]) n++;
  char **v = xcalloc(n + 3, sizeof(char *));
  v[0] = xstrdup("env");
  v[1] = xstrdup("WRAPPED=yes");
  for (size_t i = 0; i < n; i++) v[i + 2] = cmd->argv[i];
  free(cmd->argv);
  cmd->argv = v;
  return 0;
}

static int refuse(zspawner *s, zspawn_cmd *cmd, zerr *err) {
  (void)s;
  (void)cmd;
  return zerr_set(err, ZE_INVALID, "the sandbox policy forbids this; ask for approval");
}

static void every_child_goes_through_the_spawner(void **state) {
  tfx *f = *state;
  int calls = 0;
  zspawner sp = {prefix_env, &calls};
  f->ctx.spawner = &sp;
  assert_int_equal(tfx_run(f, "exec_command", "{\"cmd\":\"echo $WRAPPED\"}"), 0);
  assert_int_equal(calls, 1);
  assert_output_contains(f, "yes\n");
  zspawner no = {refuse, NULL};
  f->ctx.spawner = &no;
  assert_int_equal(tfx_run(f, "exec_command", "{\"cmd\":\"echo hi\"}"), -1);
  assert_string_equal(f->res.output.data,
                      "exec_command: the sandbox policy forbids this; ask for approval");
  f->ctx.spawner = NULL;
}

static void changed_files_are_reported(void **state) {
  tfx *f = *state;
  tfx_write_str(f, "b.txt", "b");
  tfx_write_str(f, "c.txt", "c");
  tfx_write_str(f, "node_modules/pkg/index.js", "x");
  assert_int_equal(tfx_run(f, "exec_command", "{\"cmd\":\"touch a.txt; rm b.txt; echo more >> "
                                              "c.txt; touch node_modules/pkg/new.js; "
                                              "mkdir -p node_modules/other\"}"), 0);
  assert_output_contains(f, "[files changed]\ncreated: a.txt\nmodified: c.txt node_modules/\n"
                            "deleted: b.txt\nexit code: 0");
  json_t *files = json_object_get(f->res.meta, "files");
  assert_int_equal(json_array_size(json_object_get(files, "created")), 1);
  assert_int_equal(tfx_run(f, "exec_command", "{\"cmd\":\"true\"}"), 0);
  assert_string_equal(f->res.output.data, "(no output)\nexit code: 0");
}

static void exec_of_a_missing_program_says_so(void **state) {
  (void)state;
  zspawn_cmd cmd = {.argv = NULL};
  cmd.argv = xcalloc(2, sizeof(char *));
  cmd.argv[0] = xstrdup("/nonexistent/prog");
  zexec_opts o = {0};
  zexec_child c;
  zerr err = ZERR_INIT;
  assert_int_equal(zexec_spawn(NULL, &cmd, &o, &c, &err), -1);
  assert_non_null(strstr(err.msg, "cannot run /nonexistent/prog: No such file or directory"));
}

/* ---- children outlive the thread that started them, not zero -------------- */

static char *self_exe;

typedef struct thread_spawn {
  const char *script;
  zexec_table *t;
  zexec_proc *p;
  bool armed;
} thread_spawn;

/* Starts the command and ends only once the child has armed its
 * parent-death signal (so the arming refers to this thread). */
static void *spawn_on_thread(void *arg) {
  thread_spawn *ts = arg;
  ts->p = spawn_into(ts->t, ts->script, NULL);
  zbuf out = ZBUF_INIT;
  int64_t end = ztime_mono_ms() + 10000;
  while (ztime_mono_ms() < end && !strstr(out.data ? out.data : "", "armed")) {
    if (zexec_proc_wait(ts->p, ztime_mono_ms() + 50, NULL) == ZEXEC_EXITED) break;
    zexec_proc_take_output(ts->p, &out, NULL);
  }
  zexec_proc_take_output(ts->p, &out, NULL);
  ts->armed = strstr(out.data ? out.data : "", "armed") != NULL;
  zbuf_release(&out);
  return NULL;
}

/* A child whose parent-death signal is armed (as bwrap --die-with-parent
 * arms it) survives the end of the thread that asked for it: the fork is made
 * on a thread that lasts. The TUI starts commands on turn threads. */
static void a_child_survives_the_thread_that_spawned_it(void **state) {
  (void)state;
  zexec_table *t = zexec_table_new();
  thread_spawn ts = {
      .script = "exec python3 -c 'import ctypes, time; "
                "ctypes.CDLL(None).prctl(1, 9, 0, 0, 0); print(\"armed\", flush=True); "
                "time.sleep(60)'",
      .t = t};
  pthread_t th;
  assert_int_equal(pthread_create(&th, NULL, spawn_on_thread, &ts), 0);
  pthread_join(th, NULL);
  assert_non_null(ts.p);
  assert_true(ts.armed);
  ztime_sleep_ms(300, NULL); /* the thread has ended: a signal would have come */
  zexec_proc_wait(ts.p, ztime_mono_ms() + 50, NULL);
  assert_false(zexec_proc_exited(ts.p, NULL, NULL));
  char st = proc_state(zexec_proc_pid(ts.p));
  assert_true(st != 0 && st != 'Z' && st != 'X');
  zexec_table_free(t);
}

/* The helper process of the next test: starts a command (a group with a
 * background job), writes both pids, then dies by SIGKILL. */
static int spawn_and_die(const char *dir) {
  char script[1024];
  snprintf(script, sizeof script,
           "sleep 1000 & echo $! > %s/job.pid; echo $$ > %s/leader.pid; exec sleep 1000", dir,
           dir);
  zexec_table *t = zexec_table_new();
  zexec_proc *p = spawn_into(t, script, NULL);
  char path[1024];
  snprintf(path, sizeof path, "%s/job.pid", dir);
  for (int i = 0; i < 500 && access(path, F_OK) != 0; i++) ztime_sleep_ms(10, NULL);
  (void)p;
  ztime_sleep_ms(100, NULL);
  raise(SIGKILL);
  return 1;
}

static pid_t read_pid(const char *dir, const char *name) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *fp = fopen(path, "r");
  if (!fp) return -1;
  char line[32];
  char *end = NULL;
  long v = fgets(line, sizeof line, fp) ? strtol(line, &end, 10) : -1;
  fclose(fp);
  return end && end != line && v > 0 && v <= INT_MAX ? (pid_t)v : -1;
}

/* zero killed with SIGKILL cannot stop its children; its watchdog does. */
static void children_die_when_zero_is_killed(void **state) {
  (void)state;
  char dir[] = "/tmp/zero-reaper-test-XXXXXX";
  assert_non_null(mkdtemp(dir));
  pid_t helper = fork();
  assert_true(helper >= 0);
  if (helper == 0) {
    execl(self_exe, self_exe, "--spawn-and-die", dir, (char *)NULL);
    _exit(127);
  }
  int status = 0;
  assert_int_equal(waitpid(helper, &status, 0), helper);
  assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
  pid_t job = read_pid(dir, "job.pid"), leader = read_pid(dir, "leader.pid");
  assert_true(job > 1 && leader > 1);
  bool job_dead = dead_soon(job), leader_dead = dead_soon(leader);
  if (!job_dead) kill(job, SIGKILL);
  if (!leader_dead) kill(leader, SIGKILL);
  assert_true(job_dead);
  assert_true(leader_dead);
  char path[1100];
  snprintf(path, sizeof path, "%s/job.pid", dir);
  unlink(path);
  snprintf(path, sizeof path, "%s/leader.pid", dir);
  unlink(path);
  rmdir(dir);
}

int main(int argc, char **argv) {
  if (argc == 3 && !strcmp(argv[1], "--spawn-and-die")) return spawn_and_die(argv[2]);
  self_exe = argv[0];
  zcancel_install();
  const struct CMUnitTest tests[] = {
      TFX_TEST(endless_output_yields_on_time_in_bounded_memory),
      TFX_TEST(python_repl_is_driven_through_write_stdin),
      TFX_TEST(interrupt_on_a_terminal_stops_the_foreground_job),
      TFX_TEST(spelled_out_interrupts_stop_the_command),
      TFX_TEST(a_session_is_killed_as_a_group_with_its_grandchildren),
      cmocka_unit_test(exit_is_observed_without_reaping_until_removed),
      cmocka_unit_test(the_65th_process_evicts_finished_then_least_recently_used),
      cmocka_unit_test(list_and_kill_end_the_group_and_leave_the_entry),
      TFX_TEST(every_child_goes_through_the_spawner),
      TFX_TEST(changed_files_are_reported),
      cmocka_unit_test(exec_of_a_missing_program_says_so),
      cmocka_unit_test(a_child_survives_the_thread_that_spawned_it),
      cmocka_unit_test(children_die_when_zero_is_killed),
      cmocka_unit_test(a_child_starts_with_default_signals_and_no_mask),
      cmocka_unit_test(a_plain_spawned_child_starts_with_default_signals),
      cmocka_unit_test(a_foreground_child_starts_with_default_signals),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
