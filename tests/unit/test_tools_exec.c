/* test_tools_exec.c — exec_command: status, limits, process groups, output. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <signal.h>
#include <sys/resource.h>

#include "base/cancel.h"
#include "base/json.h"
#include "base/time.h"
#include "test_tools_util.h"

static bool output_ends_with(tfx *f, const char *suffix) {
  return zbuf_ends_with(&f->res.output, suffix);
}

#define assert_output_ends_with(f, s)                                                    \
  do {                                                                                   \
    if (!output_ends_with((f), (s)))                                                     \
      fail_msg("output does not end with \"%s\":\n%s", (s), (f)->res.output.data);       \
  } while (0)

static long maxrss_kb(void) {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_maxrss;
}

/* Runs first so the memory high-water mark is still low. */
static void exec_caps_50mb_of_output_in_bounded_memory(void **state) {
  tfx *f = *state;
  long before = maxrss_kb();
  int64_t t0 = ztime_mono_ms();
  assert_int_equal(
      tfx_run(f, "exec_command", "{\"cmd\":\"head -c 50000000 /dev/zero | tr '\\\\0' a\"}"), 0);
  int64_t took = ztime_mono_ms() - t0;
  long grew_kb = maxrss_kb() - before;
  assert_true(f->res.truncated);
  assert_true(f->res.output.len <= 10000 * 4 + 1024); /* the default max_output_tokens */
  /* Only the newest 2 MiB are kept, and the cut says so once. */
  assert_output_contains(f, "[earlier output truncated: 47902848 bytes were not kept");
  assert_output_contains(f, "output truncated:");
  assert_output_ends_with(f, "exit code: 0");
  assert_int_equal(zjson_int_or(f->res.meta, "output_bytes", 0), 50000000);
  if (grew_kb > 20 * 1024) fail_msg("memory grew by %ld KiB while capturing 50 MB", grew_kb);
  assert_true(took < 30000);
}

/* Regression: NUL bytes in command output once emptied the tool result the
 * model saw (the text was cut at the first NUL when copied as a C string). */
static void exec_output_with_nul_bytes_is_kept_whole(void **state) {
  tfx *f = *state;
  assert_int_equal(tfx_run(f, "exec_command", "{\"cmd\":\"printf 'a\\\\000b'\"}"), 0);
  assert_null(memchr(f->res.output.data, '\0', f->res.output.len));
  assert_non_null(strstr(f->res.output.data, "a\xE2\x90\x80" "b"));
  assert_output_ends_with(f, "exit code: 0");
}

static void exec_reports_output_and_exit_code(void **state) {
  tfx *f = *state;
  assert_int_equal(tfx_run(f, "exec_command", "{\"cmd\":\"echo hello; echo oops >&2\"}"), 0);
  assert_false(f->res.is_error);
  assert_string_equal(f->res.output.data, "hello\noops\nexit code: 0");
  assert_int_equal(zjson_int_or(f->res.meta, "exit_code", -9), 0);
  assert_false(zjson_bool_or(f->res.meta, "timed_out", true));
  assert_true(zjson_int_or(f->res.meta, "duration_ms", -1) >= 0);
}

static void exec_nonzero_exit_keeps_the_output(void **state) {
  tfx *f = *state;
  assert_int_equal(tfx_run(f, "exec_command", "{\"cmd\":\"echo partial; exit 3\"}"), -1);
  assert_true(f->res.is_error);
  assert_string_equal(f->res.output.data, "partial\nexit code: 3");
  assert_int_equal(zjson_int_or(f->res.meta, "exit_code", 0), 3);
  assert_int_equal(tfx_run(f, "exec_command", "{\"cmd\":\"exit 0\"}"), 0);
  assert_string_equal(f->res.output.data, "(no output)\nexit code: 0");
}

static void exec_reports_a_killing_signal(void **state) {
  tfx *f = *state;
  assert_int_equal(tfx_run(f, "exec_command", "{\"cmd\":\"kill -9 $$\"}"), -1);
  assert_output_ends_with(f, "killed by signal 9");
  assert_int_equal(zjson_int_or(f->res.meta, "signal", 0), 9);
}

static void exec_runs_in_workdir_with_empty_stdin(void **state) {
  tfx *f = *state;
  tfx_write_str(f, "sub/marker", "m");
  assert_int_equal(tfx_run(f, "exec_command", "{\"cmd\":\"pwd; cat; ls\",\"workdir\":\"sub\"}"), 0);
  char *want = tfx_path(f, "sub\nmarker\nexit code: 0");
  assert_string_equal(f->res.output.data, want);
  free(want);
  assert_int_equal(tfx_run(f, "exec_command", "{\"cmd\":\"pwd\",\"workdir\":\"nope\"}"), -1);
  assert_output_contains(f, "workdir nope does not exist");
}

/* true when pid is gone or a zombie. */
static bool process_dead(pid_t pid) {
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
  FILE *fp = fopen(path, "r");
  if (!fp) return true;
  char buf[512];
  size_t n = fread(buf, 1, sizeof buf - 1, fp);
  fclose(fp);
  buf[n] = '\0';
  char *rp = strrchr(buf, ')');
  return rp && rp[1] == ' ' && (rp[2] == 'Z' || rp[2] == 'X');
}

static void exec_timeout_kills_the_whole_group(void **state) {
  tfx *f = *state;
  int64_t t0 = ztime_mono_ms();
  assert_int_equal(tfx_run(f, "exec_command",
                           "{\"cmd\":\"sh -c 'sleep 100 & echo $! > bg.pid; sleep 100'\","
                           "\"timeout_ms\":500}"),
                   -1);
  int64_t took = ztime_mono_ms() - t0;
  assert_true(took >= 450);
  if (took > 3000) fail_msg("timeout took %lld ms", (long long)took);
  assert_output_ends_with(f, "timed out after 500 ms");
  assert_true(zjson_bool_or(f->res.meta, "timed_out", false));
  char *pidtxt = tfx_read(f, "bg.pid");
  assert_non_null(pidtxt);
  pid_t bg = (pid_t)strtol(pidtxt, NULL, 10);
  free(pidtxt);
  assert_true(bg > 1);
  bool dead = false;
  for (int i = 0; i < 100 && !dead; i++) {
    dead = process_dead(bg);
    if (!dead) ztime_sleep_ms(10, NULL);
  }
  if (!dead) {
    kill(bg, SIGKILL);
    fail_msg("the background grandchild %d survived the timeout", (int)bg);
  }
}

static void exec_timeout_escalates_to_sigkill(void **state) {
  tfx *f = *state;
  int64_t t0 = ztime_mono_ms();
  assert_int_equal(tfx_run(f, "exec_command",
                           "{\"cmd\":\"trap '' TERM; echo stubborn; sleep 100\",\"timeout_ms\":300}"),
                   -1);
  int64_t took = ztime_mono_ms() - t0;
  if (took > 4000) fail_msg("SIGKILL escalation took %lld ms", (long long)took);
  assert_output_contains(f, "stubborn\n");
  assert_output_ends_with(f, "timed out after 300 ms");
  assert_int_equal(zjson_int_or(f->res.meta, "signal", 0), SIGKILL);
}

static void exec_default_timeout_comes_from_the_context(void **state) {
  tfx *f = *state;
  f->ctx.exec_timeout_ms = 300;
  int64_t t0 = ztime_mono_ms();
  assert_int_equal(tfx_run(f, "exec_command", "{\"cmd\":\"sleep 20\"}"), -1);
  assert_true(ztime_mono_ms() - t0 < 3000);
  assert_output_ends_with(f, "timed out after 300 ms");
}

static void exec_stops_background_jobs_holding_the_pipe(void **state) {
  tfx *f = *state;
  int64_t t0 = ztime_mono_ms();
  assert_int_equal(tfx_run(f, "exec_command", "{\"cmd\":\"sleep 30 & echo started\"}"), 0);
  assert_true(ztime_mono_ms() - t0 < 3000);
  assert_output_contains(f, "started\n");
  assert_output_contains(f, "background processes kept its output open");
  assert_output_ends_with(f, "exit code: 0");

  /* Redirected background jobs do not hold the pipe and are left alone. */
  t0 = ztime_mono_ms();
  assert_int_equal(tfx_run(f, "exec_command",
                           "{\"cmd\":\"sleep 2 > /dev/null 2>&1 & echo $! > bg.pid; echo ok\"}"),
                   0);
  assert_true(ztime_mono_ms() - t0 < 1500);
  assert_output_lacks(f, "background processes");
  char *pidtxt = tfx_read(f, "bg.pid");
  pid_t bg = (pid_t)strtol(pidtxt, NULL, 10);
  free(pidtxt);
  assert_false(process_dead(bg));
  kill(bg, SIGKILL);
}

static void exec_keeps_head_and_tail_of_long_output(void **state) {
  tfx *f = *state;
  f->ctx.output_cap = 4096;
  assert_int_equal(tfx_run(f, "exec_command", "{\"cmd\":\"seq 1 100000\"}"), 0);
  assert_true(f->res.truncated);
  assert_true(strncmp(f->res.output.data, "1\n2\n3\n", 6) == 0);
  assert_output_contains(f, "\n99999\n100000\nexit code: 0");
  assert_output_contains(f, "bytes omitted here. The full output is in ");
  assert_true(f->res.output.len <= 4096);
}

static void exec_output_is_always_valid_utf8(void **state) {
  tfx *f = *state;
  assert_int_equal(tfx_run(f, "exec_command", "{\"cmd\":\"printf 'a\\\\377b\\\\n'\"}"), 0);
  assert_true(zutf8_valid(f->res.output.data, f->res.output.len));
  assert_string_equal(f->res.output.data, "a\xef\xbf\xbd" "b\nexit code: 0");
  /* Multi-byte characters split at the head/tail cut stay whole or vanish. */
  f->ctx.output_cap = 2048;
  assert_int_equal(
      tfx_run(f, "exec_command", "{\"cmd\":\"printf x; i=0; while [ $i -lt 3000 ]; do "
                                 "printf '\\\\303\\\\251'; i=$((i+1)); done; printf y\"}"),
      0);
  assert_true(zutf8_valid(f->res.output.data, f->res.output.len));
  assert_output_lacks(f, "\xef\xbf\xbd");
  assert_true(f->res.truncated);
  assert_output_contains(f, "\xc3\xa9y\nexit code: 0");
}

static void exec_children_get_default_sigpipe(void **state) {
  tfx *f = *state;
  int64_t t0 = ztime_mono_ms();
  assert_int_equal(tfx_run(f, "exec_command", "{\"cmd\":\"yes | head -n 2\",\"timeout_ms\":10000}"),
                   0);
  assert_true(ztime_mono_ms() - t0 < 5000);
  assert_string_equal(f->res.output.data, "y\ny\nexit code: 0");
}

static void *cancel_soon(void *arg) {
  (void)arg;
  ztime_sleep_ms(300, NULL);
  zcancel_request();
  return NULL;
}

static void exec_is_cancelled_from_another_thread(void **state) {
  tfx *f = *state;
  zcancel_reset();
  pthread_t th;
  assert_int_equal(pthread_create(&th, NULL, cancel_soon, NULL), 0);
  int64_t t0 = ztime_mono_ms();
  assert_int_equal(tfx_run(f, "exec_command", "{\"cmd\":\"echo before; sleep 30\"}"), -1);
  int64_t took = ztime_mono_ms() - t0;
  pthread_join(th, NULL);
  zcancel_reset();
  if (took > 3000) fail_msg("cancellation took %lld ms", (long long)took);
  assert_output_contains(f, "before\n");
  assert_output_contains(f, "cancelled by the user");
  assert_true(zjson_bool_or(f->res.meta, "cancelled", false));
}

static void exec_refuses_an_empty_command(void **state) {
  tfx *f = *state;
  assert_int_equal(tfx_run(f, "exec_command", "{\"cmd\":\"  \"}"), -1);
  assert_output_contains(f, "cmd is empty");
  assert_int_equal(tfx_run(f, "exec_command", "{\"cmd\":\"true\",\"timeout_ms\":700000}"), -1);
  assert_output_contains(f, "must be at most 600000");
}

/* What a live hook was handed. */
typedef struct live_seen {
  int calls;
  char last[ZTOOL_LIVE_TAIL + 1];
  int64_t last_elapsed;
  bool saw_first_alone; /* a tail that held "one" and not yet "two" */
} live_seen;

static void live_record(void *ud, const char *tail, size_t len, int64_t elapsed_ms) {
  live_seen *ls = ud;
  assert_true(len > 0 && len <= ZTOOL_LIVE_TAIL);
  memcpy(ls->last, tail, len);
  ls->last[len] = '\0';
  if (strstr(ls->last, "one") && !strstr(ls->last, "two")) ls->saw_first_alone = true;
  ls->last_elapsed = elapsed_ms;
  ls->calls++;
}

/* A running command's output reaches the live hook while it runs, newest
 * last and redacted; the result is the same as without a hook. */
static void exec_live_hook_gets_the_running_output_redacted(void **state) {
  tfx *f = *state;
  live_seen ls = {0};
  f->ctx.live = (ztool_live_hook){live_record, &ls};
  assert_int_equal(tfx_run(f, "exec_command",
                           "{\"cmd\":\"echo one; sleep 0.6; echo sk-ant-api03-"
                           "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA; echo two; sleep 0.6\"}"),
                   0);
  f->ctx.live = (ztool_live_hook){NULL, NULL};
  assert_true(ls.calls >= 2);
  assert_true(ls.saw_first_alone); /* reported before the command went on */
  assert_non_null(strstr(ls.last, "two"));
  assert_null(strstr(ls.last, "sk-ant-api03-AAAA"));
  assert_non_null(strstr(ls.last, "[REDACTED"));
  assert_true(ls.last_elapsed >= 500);
  assert_output_contains(f, "one\n");
  assert_output_ends_with(f, "exit code: 0");
}

/* Only the newest ZTOOL_LIVE_TAIL bytes, starting on a line. */
static void exec_live_tail_is_bounded_and_starts_on_a_line(void **state) {
  tfx *f = *state;
  live_seen ls = {0};
  f->ctx.live = (ztool_live_hook){live_record, &ls};
  assert_int_equal(tfx_run(f, "exec_command",
                           "{\"cmd\":\"seq 1 5000; echo last-line; sleep 0.6\"}"),
                   0);
  f->ctx.live = (ztool_live_hook){NULL, NULL};
  assert_true(ls.calls >= 1);
  assert_true(strlen(ls.last) < ZTOOL_LIVE_TAIL);
  assert_non_null(strstr(ls.last, "last-line\n"));
  assert_null(strstr(ls.last, "\n1\n2\n3\n"));
  /* whole lines: the first is a number below 5000 that is not cut */
  long first = strtol(ls.last, NULL, 10);
  assert_true(first > 4000 && first <= 5000);
  assert_true(ls.last[0] != '\n');
}

int main(void) {
  zcancel_install(); /* as the binary does: SIGPIPE ignored, cancel pipe live */
  const struct CMUnitTest tests[] = {
      TFX_TEST(exec_caps_50mb_of_output_in_bounded_memory),
      TFX_TEST(exec_reports_output_and_exit_code),
      TFX_TEST(exec_output_with_nul_bytes_is_kept_whole),
      TFX_TEST(exec_nonzero_exit_keeps_the_output),
      TFX_TEST(exec_reports_a_killing_signal),
      TFX_TEST(exec_runs_in_workdir_with_empty_stdin),
      TFX_TEST(exec_timeout_kills_the_whole_group),
      TFX_TEST(exec_timeout_escalates_to_sigkill),
      TFX_TEST(exec_default_timeout_comes_from_the_context),
      TFX_TEST(exec_stops_background_jobs_holding_the_pipe),
      TFX_TEST(exec_keeps_head_and_tail_of_long_output),
      TFX_TEST(exec_output_is_always_valid_utf8),
      TFX_TEST(exec_children_get_default_sigpipe),
      TFX_TEST(exec_is_cancelled_from_another_thread),
      TFX_TEST(exec_refuses_an_empty_command),
      TFX_TEST(exec_live_hook_gets_the_running_output_redacted),
      TFX_TEST(exec_live_tail_is_bounded_and_starts_on_a_line),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
