/* test_daemon.c — the daemon's parts (src/daemon/): the frame codec, the
 * retry schedule on an injected clock, the replay ring, the session table
 * and its status JSON, the event loop, the runtime files' checks. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/common.h"
#include "base/fs.h"
#include "base/json.h"
#include "base/strvec.h"
#include "daemon/evloop.h"
#include "daemon/frame.h"
#include "daemon/replay.h"
#include "daemon/retry.h"
#include "daemon/runtime.h"
#include "daemon/session.h"
#include "daemon/worker.h"

/* ---- a clock the test owns ---------------------------------------------------- */

typedef struct fake_clock {
  int64_t now;
  double r;
} fake_clock;

static int64_t fake_now(void *ud) { return ((fake_clock *)ud)->now; }
static double fake_rand(void *ud) { return ((fake_clock *)ud)->r; }

static zdmn_clock clock_of(fake_clock *f, int64_t unit) {
  zdmn_clock c = {fake_now, fake_rand, f, unit};
  return c;
}

/* ---- frames ------------------------------------------------------------------- */

static void frame_round_trip(void **state) {
  (void)state;
  zbuf b = ZBUF_INIT;
  json_t *m = json_pack("{s:s, s:i}", "type", "hello", "version", 1);
  assert_int_equal(zdmn_frame_encode_ctrl(&b, m, NULL), 0);
  const char *body = "{\"type\":\"hello\",\"version\":1}";
  assert_int_equal(b.len, 5 + strlen(body));
  assert_memory_equal(b.data, "\x00\x00\x00\x1c\x01", 5); /* 28 bytes, kind 1: big-endian */
  assert_memory_equal(b.data + 5, body, strlen(body));
  uint8_t kind;
  const uint8_t *payload;
  uint32_t plen;
  size_t used;
  for (size_t cut = 0; cut < b.len; cut++) /* every prefix: not yet */
    assert_int_equal(zdmn_frame_parse((const uint8_t *)b.data, cut, &kind, &payload, &plen, &used,
                                      NULL),
                     0);
  zbuf_add(&b, "\x00\x00", 2); /* the start of a next frame stays */
  assert_int_equal(zdmn_frame_parse((const uint8_t *)b.data, b.len, &kind, &payload, &plen, &used,
                                    NULL),
                   1);
  assert_int_equal(kind, ZDMN_KIND_CTRL);
  assert_int_equal(used, 5 + strlen(body));
  json_t *back = zdmn_ctrl_decode(kind, payload, plen, NULL);
  assert_true(json_equal(back, m));
  assert_int_equal(zdmn_negotiate_version(back), 1);
  json_decref(back);
  json_decref(m);
  zbuf_release(&b);
}

static void frame_cap_is_checked_on_the_header(void **state) {
  (void)state;
  uint8_t kind;
  const uint8_t *payload;
  uint32_t plen;
  size_t used;
  zerr err = ZERR_INIT;
  /* 1 MiB + 1 announced: refused with only the 5 header bytes in hand. */
  const uint8_t over[5] = {0x00, 0x10, 0x00, 0x01, 0x01};
  assert_int_equal(zdmn_frame_parse(over, sizeof over, &kind, &payload, &plen, &used, &err), -1);
  assert_int_equal(err.kind, ZE_TOO_LARGE);
  assert_non_null(strstr(err.msg, "1048577"));
  const uint8_t huge[5] = {0xff, 0xff, 0xff, 0xff, 0x01};
  assert_int_equal(zdmn_frame_parse(huge, sizeof huge, &kind, &payload, &plen, &used, NULL), -1);
  /* exactly the cap: a frame (waiting for its payload) */
  const uint8_t at[5] = {0x00, 0x10, 0x00, 0x00, 0x01};
  assert_int_equal(zdmn_frame_parse(at, sizeof at, &kind, &payload, &plen, &used, NULL), 0);
  /* the encoder refuses what a reader would, and writes nothing */
  zbuf b = ZBUF_INIT;
  char *big = xcalloc(ZDMN_FRAME_MAX + 1, 1);
  zerr_clear(&err);
  assert_int_equal(zdmn_frame_encode(&b, 1, big, ZDMN_FRAME_MAX + 1, &err), -1);
  assert_int_equal(b.len, 0);
  assert_int_equal(zdmn_frame_encode(&b, 1, big, ZDMN_FRAME_MAX, NULL), 0);
  assert_int_equal(b.len, ZDMN_FRAME_MAX + 5);
  free(big);
  zbuf_release(&b);
}

static void ctrl_decode_rules(void **state) {
  (void)state;
  static const struct {
    uint8_t kind;
    const char *payload;
    const char *why; /* NULL: accepted */
  } cases[] = {
      {1, "{\"type\":\"status\"}", NULL},
      {0, "{\"type\":\"status\"}", "unexpected frame kind 0"},
      {2, "{\"type\":\"status\"}", "unexpected frame kind 2"},
      {1, "[]", "not a JSON object"},
      {1, "{\"type\":3}", "not a JSON object"},
      {1, "{}", "not a JSON object"},
      {1, "{\"type\":\"a\",\"type\":\"b\"}", "not a JSON object"},
      {1, "", "not a JSON object"},
  };
  for (size_t i = 0; i < ZARRAY_LEN(cases); i++) {
    zerr err = ZERR_INIT;
    json_t *m = zdmn_ctrl_decode(cases[i].kind, (const uint8_t *)cases[i].payload,
                                 strlen(cases[i].payload), &err);
    if (!cases[i].why) {
      assert_non_null(m);
    } else {
      assert_null(m);
      assert_int_equal(err.kind, ZE_INVALID);
      assert_non_null(strstr(err.msg, cases[i].why));
    }
    json_decref(m);
  }
}

static void negotiate_versions(void **state) {
  (void)state;
  static const struct {
    const char *hello;
    int want;
  } cases[] = {
      {"{\"type\":\"hello\",\"version\":1}", 1},     {"{\"type\":\"hello\",\"version\":7}", 1},
      {"{\"type\":\"hello\",\"version\":0}", 0},     {"{\"type\":\"hello\",\"version\":-3}", 0},
      {"{\"type\":\"hello\",\"version\":\"1\"}", 0}, {"{\"type\":\"hello\"}", 0},
      {"{\"type\":\"hello\",\"version\":1.0}", 0},
  };
  for (size_t i = 0; i < ZARRAY_LEN(cases); i++) {
    json_t *h = json_loads(cases[i].hello, 0, NULL);
    assert_int_equal(zdmn_negotiate_version(h), cases[i].want);
    json_decref(h);
  }
}

/* zdmn_read_ctrl over a socket pair: what the peer wrote, then closed. */
static json_t *read_after(const void *bytes, size_t n, zerr *err) {
  int sv[2];
  assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
  assert_int_equal(zfs_write_all(sv[1], bytes, n), 0);
  close(sv[1]);
  json_t *m = zdmn_read_ctrl(sv[0], 2000, err);
  close(sv[0]);
  return m;
}

static void blocking_reader_bad_input(void **state) {
  (void)state;
  zerr err = ZERR_INIT;
  json_t *m = read_after("\x00\x00\x00\x0e\x01{\"type\":\"end\"}", 19, &err);
  assert_non_null(m);
  assert_string_equal(zjson_str(m, "type"), "end");
  json_decref(m);
  zerr_clear(&err);
  assert_null(read_after("", 0, &err));
  assert_int_equal(err.kind, ZE_NOT_FOUND); /* closed between frames */
  zerr_clear(&err);
  assert_null(read_after("\x00\x00", 2, &err));
  assert_non_null(strstr(err.msg, "truncated frame"));
  zerr_clear(&err);
  assert_null(read_after("\x00\x00\x00\x0f\x01{\"type\"", 12, &err));
  assert_non_null(strstr(err.msg, "truncated frame: 7 of 15"));
  zerr_clear(&err);
  assert_null(read_after("\x7f\x00\x00\x00\x01", 5, &err));
  assert_int_equal(err.kind, ZE_TOO_LARGE);
  /* a peer that says nothing: the deadline */
  int sv[2];
  assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
  zerr_clear(&err);
  assert_null(zdmn_read_ctrl(sv[0], 50, &err));
  assert_int_equal(err.kind, ZE_TIMEOUT);
  close(sv[0]);
  close(sv[1]);
}

/* ---- the retry schedule --------------------------------------------------------- */

static void backoff_table(void **state) {
  (void)state;
  fake_clock f = {0, 0.0};
  zdmn_clock c = clock_of(&f, 1000);
  /* min(1 s * 2^n, 5 min) x jitter: jitter 0.5 at rand 0, 1.0 at rand 0.5 */
  static const int64_t nominal[] = {1000,  2000,   4000,   8000,   16000,  32000,
                                    64000, 128000, 256000, 300000, 300000, 300000};
  for (int n = 0; n < (int)ZARRAY_LEN(nominal); n++) {
    f.r = 0.5;
    assert_int_equal(zdmn_backoff_ms(&c, n), nominal[n]);
    f.r = 0.0;
    assert_int_equal(zdmn_backoff_ms(&c, n), nominal[n] / 2);
    f.r = 0.999;
    int64_t hi = zdmn_backoff_ms(&c, n);
    assert_true(hi < nominal[n] * 3 / 2 && hi >= nominal[n] * 149 / 100);
  }
  f.r = 0.5;
  assert_int_equal(zdmn_backoff_ms(&c, 40), 300000); /* no shift overflow far out */
  c.unit_ms = 20;                                    /* the tests' unit: same shape */
  assert_int_equal(zdmn_backoff_ms(&c, 3), 160);
}

static void retry_schedule_on_an_injected_clock(void **state) {
  (void)state;
  fake_clock f = {10000, 0.5};
  zdmn_clock c = clock_of(&f, 1000);
  zdmn_retry r = {0, 0};
  zbuf why = ZBUF_INIT;
  int64_t due = 0;
  /* crash, crash, tempfail, crash, then the fifth attempt crashes: failed */
  static const struct {
    int exit_code;
    zdmn_verdict v;
    int64_t delay;
  } steps[] = {
      {1, ZDMN_V_RETRY, 1000}, {139, ZDMN_V_RETRY, 2000}, {75, ZDMN_V_RETRY, 30000},
      {1, ZDMN_V_RETRY, 4000}, {2, ZDMN_V_FAIL, 0},
  };
  for (size_t i = 0; i < ZARRAY_LEN(steps); i++) {
    r.attempts++; /* the daemon counts a start before the worker runs */
    f.now += 777;
    due = -1;
    assert_int_equal(zdmn_retry_judge(&r, &c, steps[i].exit_code, &due, &why), steps[i].v);
    if (steps[i].v == ZDMN_V_RETRY) assert_int_equal(due, f.now + steps[i].delay);
  }
  assert_string_equal(why.data,
                      "worker failed 5 times in a row, last exit 2: crash-looping, not retried");
  zbuf_reset(&why);
  zdmn_retry fresh = {1, 0};
  assert_int_equal(zdmn_retry_judge(&fresh, &c, 76, &due, &why), ZDMN_V_FAIL);
  assert_string_equal(why.data, "worker failed permanently (exit 76): not retried");
  zbuf_reset(&why);
  zdmn_retry killed = {5, 4};
  assert_int_equal(zdmn_retry_judge(&killed, &c, 137, &due, &why), ZDMN_V_FAIL);
  assert_non_null(strstr(why.data, "killed by signal 9"));
  zdmn_retry ok = {5, 4};
  assert_int_equal(zdmn_retry_judge(&ok, &c, 0, &due, &why), ZDMN_V_DONE);
  zbuf_release(&why);
}

/* ---- replay ring ------------------------------------------------------------------ */

static void replay_keeps_the_newest(void **state) {
  (void)state;
  zdmn_replay r;
  zdmn_replay_init(&r, 3);
  assert_int_equal(r.n, 0);
  char line[16];
  for (int i = 0; i < 5; i++) {
    int n = snprintf(line, sizeof line, "line %d", i);
    zdmn_replay_add(&r, line, (size_t)n);
  }
  assert_int_equal(r.n, 3);
  assert_int_equal(r.total, 5);
  size_t len;
  assert_string_equal(zdmn_replay_get(&r, 0, &len), "line 2");
  assert_int_equal(len, 6);
  assert_string_equal(zdmn_replay_get(&r, 2, NULL), "line 4");
  zdmn_replay_release(&r);
  zdmn_replay_init(&r, ZDMN_REPLAY_LINES);
  for (int i = 0; i < 3000; i++) {
    int n = snprintf(line, sizeof line, "%d", i);
    zdmn_replay_add(&r, line, (size_t)n);
  }
  assert_int_equal(r.n, 1024);
  assert_string_equal(zdmn_replay_get(&r, 0, NULL), "1976");
  assert_string_equal(zdmn_replay_get(&r, 1023, NULL), "2999");
  zdmn_replay_release(&r);
}

/* ---- sessions and status JSON ---------------------------------------------------- */

static void sessions_table_and_status(void **state) {
  (void)state;
  zdmn_sessions t = {0};
  char *const args[] = {"--model", "m", NULL};
  zerr err = ZERR_INIT;
  zdmn_session *b = zdmn_sessions_add(&t, "b", "/w", "p", args, &err);
  zdmn_session *a = zdmn_sessions_add(&t, "a", NULL, NULL, args, &err);
  assert_non_null(a);
  assert_non_null(b);
  assert_null(zdmn_sessions_add(&t, "a", NULL, "x", NULL, &err));
  assert_int_equal(err.kind, ZE_USAGE);
  assert_non_null(strstr(err.msg, "session a already exists"));
  zdmn_replay_add(&b->replay, "x", 1);
  b->retry.attempts = 2;
  b->exit_code = 9;
  zdmn_session_finish(&t, b, ZDMN_FAILED, "why");
  json_t *st = zdmn_sessions_status(&t);
  json_t *want = json_loads("[{\"id\":\"a\",\"state\":\"queued\",\"lines\":0},"
                            "{\"id\":\"b\",\"state\":\"failed\",\"lines\":1,\"attempts\":2,"
                            "\"exitCode\":9,\"reason\":\"why\"}]",
                            0, NULL);
  assert_true(json_equal(st, want));
  json_decref(st);
  json_decref(want);
  zdmn_sessions_release(&t);
}

static void sessions_keep_256_dropping_the_oldest_finished(void **state) {
  (void)state;
  zdmn_sessions t = {0};
  char id[16];
  for (int i = 0; i < ZDMN_SESSIONS_KEPT; i++) {
    snprintf(id, sizeof id, "s%d", i);
    assert_non_null(zdmn_sessions_add(&t, id, NULL, "p", NULL, NULL));
  }
  zerr err = ZERR_INIT;
  assert_null(zdmn_sessions_add(&t, "over", NULL, "p", NULL, &err)); /* none finished */
  assert_int_equal(err.kind, ZE_TOO_LARGE);
  zdmn_session_finish(&t, zdmn_sessions_find(&t, "s9"), ZDMN_DONE, NULL);
  zdmn_session_finish(&t, zdmn_sessions_find(&t, "s3"), ZDMN_DONE, NULL);
  assert_non_null(zdmn_sessions_add(&t, "new1", NULL, "p", NULL, NULL));
  assert_null(zdmn_sessions_find(&t, "s9")); /* finished first: out first */
  assert_non_null(zdmn_sessions_find(&t, "s3"));
  assert_non_null(zdmn_sessions_add(&t, "new2", NULL, "p", NULL, NULL));
  assert_null(zdmn_sessions_find(&t, "s3"));
  assert_int_equal(t.n, ZDMN_SESSIONS_KEPT);
  zdmn_sessions_release(&t);
}

/* ---- the event loop ---------------------------------------------------------------- */

typedef struct ev_log {
  zbuf b;
  zev_loop *loop;
  uint64_t cancel_me;
} ev_log;

static void on_timer(zev_loop *l, void *ud) {
  ev_log *g = ud;
  (void)l;
  zbuf_addf(&g->b, "t%lld ", (long long)g->loop->clock->now_ms(g->loop->clock->ud));
  zev_timer_cancel(l, g->cancel_me);
}

static void on_fd(zev_loop *l, int fd, short revents, void *ud) {
  ev_log *g = ud;
  char c;
  if (revents & POLLIN && read(fd, &c, 1) == 1) zbuf_addf(&g->b, "r%c ", c);
  zev_unwatch(l, fd);
}

static void evloop_timers_and_fds(void **state) {
  (void)state;
  fake_clock f = {100, 0};
  zdmn_clock c = clock_of(&f, 1000);
  zev_loop l;
  zev_init(&l, &c);
  ev_log g = {ZBUF_INIT, &l, 0};
  zev_timer_at(&l, 150, on_timer, &g);
  uint64_t late = zev_timer_at(&l, 900, on_timer, &g);
  g.cancel_me = late;                       /* the first timer cancels the second */
  assert_int_equal(zev_run_once(&l, 0), 0); /* nothing due at 100 */
  f.now = 200;
  assert_int_equal(zev_run_once(&l, 0), 1);
  f.now = 1000;
  assert_int_equal(zev_run_once(&l, 0), 0);
  int p[2];
  assert_int_equal(pipe(p), 0);
  zev_watch(&l, p[0], POLLIN, on_fd, &g);
  assert_int_equal(write(p[1], "x", 1), 1);
  assert_int_equal(zev_run_once(&l, 1000), 1);
  assert_int_equal(write(p[1], "y", 1), 1);
  assert_int_equal(zev_run_once(&l, 0), 0); /* unwatched by its callback */
  assert_string_equal(g.b.data, "t200 rx ");
  close(p[0]);
  close(p[1]);
  zbuf_release(&g.b);
  zev_release(&l);
}

/* ---- worker environment ------------------------------------------------------------ */

static void worker_env_drops_only_the_sandbox_markers(void **state) {
  (void)state;
  char *const env[] = {"PATH=/bin",
                       "ZERO_SANDBOXED=1",
                       "ZERO_SANDBOX_BACKEND=none",
                       "ZERO_SANDBOX_NETWORK=deny",
                       "ZERO_SANDBOXEDX=keep",
                       "OPENAI_API_KEY=k",
                       NULL};
  char **out = zdmn_worker_env(env);
  const char *want[] = {"PATH=/bin", "ZERO_SANDBOX_NETWORK=deny", "ZERO_SANDBOXEDX=keep",
                        "OPENAI_API_KEY=k", NULL};
  for (size_t i = 0; want[i] || out[i]; i++) {
    assert_non_null(out[i]);
    assert_string_equal(out[i], want[i]);
  }
  strvec_free_array(out);
}

/* ---- runtime files ------------------------------------------------------------------ */

static void runtime_paths_and_checks(void **state) {
  (void)state;
  char tmpl[] = "/tmp/zero-dmn-XXXXXX";
  char *root = mkdtemp(tmpl);
  assert_non_null(root);
  setenv("XDG_RUNTIME_DIR", root, 1);
  zdmn_paths p;
  zerr err = ZERR_INIT;
  assert_int_equal(zdmn_paths_init(&p, &err), 0);
  char want[256];
  snprintf(want, sizeof want, "%s/zero/daemon.sock", root);
  assert_string_equal(p.socket, want);
  assert_int_equal(zdmn_socket_check(&p, &err), -1);
  assert_int_equal(err.kind, ZE_NOT_FOUND);
  assert_int_equal(zdmn_runtime_secure(&p, NULL), 0);
  struct stat st;
  assert_int_equal(stat(p.dir, &st), 0);
  assert_int_equal(st.st_mode & 0777, 0700);
  chmod(p.dir, 0755);
  assert_int_equal(zdmn_runtime_secure(&p, NULL), 0); /* tightened again */
  assert_int_equal(stat(p.dir, &st), 0);
  assert_int_equal(st.st_mode & 0777, 0700);
  /* a socket: accepted at 0600, refused wider, and a wide directory too */
  int fd = socket(AF_UNIX, SOCK_STREAM, 0);
  struct sockaddr_un sa = {.sun_family = AF_UNIX};
  memcpy(sa.sun_path, p.socket, strlen(p.socket) + 1);
  assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof sa), 0);
  chmod(p.socket, 0600);
  zerr_clear(&err);
  assert_int_equal(zdmn_socket_check(&p, &err), 0);
  chmod(p.socket, 0660);
  assert_int_equal(zdmn_socket_check(&p, &err), -1);
  assert_int_equal(err.kind, ZE_CONFIG);
  assert_non_null(strstr(err.msg, "refusing the daemon socket"));
  chmod(p.socket, 0600);
  chmod(p.dir, 0777);
  zerr_clear(&err);
  assert_int_equal(zdmn_socket_check(&p, &err), -1);
  assert_non_null(strstr(err.msg, "refusing the daemon directory"));
  chmod(p.dir, 0700);
  close(fd);
  /* the lock: one holder; the pid recorded */
  int l1 = zdmn_lock_acquire(&p, NULL);
  assert_true(l1 >= 0);
  assert_int_equal(zdmn_lock_pid(&p), getpid());
  zerr_clear(&err);
  assert_int_equal(zdmn_lock_acquire(&p, &err), -1);
  assert_non_null(strstr(err.msg, "already running"));
  close(l1);
  int l2 = zdmn_lock_acquire(&p, NULL); /* released with the fd */
  assert_true(l2 >= 0);
  close(l2);
  /* status file: 0600, the four fields */
  assert_int_equal(zdmn_status_write(&p, 4242, "2026-12-02T00:00:00.000Z", NULL), 0);
  assert_int_equal(stat(p.status, &st), 0);
  assert_int_equal(st.st_mode & 0777, 0600);
  json_t *doc = zjson_load_file(p.status, NULL);
  json_t *w = json_pack("{s:i, s:s, s:i, s:s}", "pid", 4242, "socket", p.socket, "version", 1,
                        "startedAt", "2026-12-02T00:00:00.000Z");
  assert_true(json_equal(doc, w));
  json_decref(doc);
  json_decref(w);
  zdmn_paths_release(&p);
  /* too long a path: refused up front */
  char longdir[200];
  memset(longdir, 'd', sizeof longdir - 1);
  longdir[0] = '/';
  longdir[sizeof longdir - 1] = '\0';
  setenv("XDG_RUNTIME_DIR", longdir, 1);
  zerr_clear(&err);
  assert_int_equal(zdmn_paths_init(&p, &err), -1);
  assert_non_null(strstr(err.msg, "socket path too long"));
  unsetenv("XDG_RUNTIME_DIR");
  zfs_remove_tree(root);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(frame_round_trip),
      cmocka_unit_test(frame_cap_is_checked_on_the_header),
      cmocka_unit_test(ctrl_decode_rules),
      cmocka_unit_test(negotiate_versions),
      cmocka_unit_test(blocking_reader_bad_input),
      cmocka_unit_test(backoff_table),
      cmocka_unit_test(retry_schedule_on_an_injected_clock),
      cmocka_unit_test(replay_keeps_the_newest),
      cmocka_unit_test(sessions_table_and_status),
      cmocka_unit_test(sessions_keep_256_dropping_the_oldest_finished),
      cmocka_unit_test(evloop_timers_and_fds),
      cmocka_unit_test(worker_env_drops_only_the_sandbox_markers),
      cmocka_unit_test(runtime_paths_and_checks),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
