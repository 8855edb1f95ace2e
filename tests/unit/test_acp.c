/* test_acp.c — the ACP mappings (src/acp/updates.h) and the JSON-RPC
 * connection's call / deliver / abort (src/acp/rpc.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <unistd.h>

#include <cmocka.h>

#include "acp/client_io.h"
#include "acp/rpc.h"
#include "base/time.h"
#include "acp/updates.h"

static json_t *only(json_t *arr) {
  assert_int_equal(json_array_size(arr), 1);
  return json_array_get(arr, 0);
}

/* A run's tools context with workspace /w and no read guard. */
static const ztool_ctx W = {.workspace = "/w"};

/* The updates for a tool call (workspace /w); caller decrefs. */
static json_t *call_updates(const char *id, const char *name, const char *arguments) {
  zagent_event ev = {.kind = ZAEV_TOOL_CALL,
                     .tool_call = {.id = id, .name = name, .arguments = arguments}};
  return zacp_updates_for_event(&ev, &W);
}

static void text_and_reasoning_become_chunks(void **state) {
  (void)state;
  zagent_event ev = {.kind = ZAEV_TEXT, .delta = {.text = "hello there", .len = 5}};
  json_t *u = zacp_updates_for_event(&ev, &W);
  assert_string_equal(json_string_value(json_object_get(only(u), "sessionUpdate")),
                      "agent_message_chunk");
  assert_string_equal(json_string_value(
                          json_object_get(json_object_get(only(u), "content"), "text")),
                      "hello");
  json_decref(u);
  ev.kind = ZAEV_REASONING;
  u = zacp_updates_for_event(&ev, &W);
  assert_string_equal(json_string_value(json_object_get(only(u), "sessionUpdate")),
                      "agent_thought_chunk");
  json_decref(u);
  zagent_event usage = {.kind = ZAEV_USAGE};
  u = zacp_updates_for_event(&usage, &W);
  assert_int_equal(json_array_size(u), 0);
  json_decref(u);
}

static void a_write_is_a_diff_at_an_absolute_path(void **state) {
  (void)state;
  json_t *u = call_updates("c1", "write_file", "{\"file_path\":\"src/a.c\",\"content\":\"x\"}");
  json_t *tc = only(u);
  assert_string_equal(json_string_value(json_object_get(tc, "kind")), "edit");
  assert_string_equal(json_string_value(json_object_get(tc, "status")), "pending");
  json_t *diff = json_array_get(json_object_get(tc, "content"), 0);
  assert_string_equal(json_string_value(json_object_get(diff, "type")), "diff");
  assert_string_equal(json_string_value(json_object_get(diff, "path")), "/w/src/a.c");
  assert_string_equal(json_string_value(json_object_get(diff, "newText")), "x");
  assert_true(json_is_null(json_object_get(diff, "oldText")));
  json_decref(u);
}

static void a_patch_locates_every_file_it_names(void **state) {
  (void)state;
  json_t *u = call_updates("c2", "apply_patch",
                           "{\"patch\":\"*** Begin Patch\\n*** Update File: a.txt\\n-x\\n+y\\n"
                           "*** Add File: /abs/b.txt\\n+z\\n*** End Patch\\n\"}");
  json_t *loc = json_object_get(only(u), "locations");
  assert_int_equal(json_array_size(loc), 2);
  assert_string_equal(json_string_value(json_object_get(json_array_get(loc, 0), "path")),
                      "/w/a.txt");
  assert_string_equal(json_string_value(json_object_get(json_array_get(loc, 1), "path")),
                      "/abs/b.txt");
  /* a diff per file: the update (its hunk's lines: /w/a.txt cannot be
   * read) and the added file (no old text) */
  json_t *c = json_object_get(only(u), "content");
  assert_int_equal(json_array_size(c), 2);
  json_t *d0 = json_array_get(c, 0), *d1 = json_array_get(c, 1);
  assert_string_equal(json_string_value(json_object_get(d0, "type")), "diff");
  assert_string_equal(json_string_value(json_object_get(d0, "oldText")), "x\n");
  assert_string_equal(json_string_value(json_object_get(d0, "newText")), "y\n");
  assert_string_equal(json_string_value(json_object_get(d1, "path")), "/abs/b.txt");
  assert_true(json_is_null(json_object_get(d1, "oldText")));
  assert_string_equal(json_string_value(json_object_get(d1, "newText")), "z\n");
  json_decref(u);
}

/* The diff (first content item) of an apply_patch call updating f.txt in
 * a fresh workspace holding "one\ntwo\nthree\n", under read guard g (may
 * be zeroed). The workspace is removed; caller decrefs the updates. */
static json_t *patch_f_txt(ztool_read_guard g, char *path, size_t path_size, json_t **diff) {
  char dir[] = "/tmp/acp_patch_XXXXXX";
  assert_non_null(mkdtemp(dir));
  snprintf(path, path_size, "%s/f.txt", dir);
  FILE *f = fopen(path, "w");
  fputs("one\ntwo\nthree\n", f);
  fclose(f);
  ztool_ctx tools = {.workspace = dir, .read_guard = g};
  json_t *u = zacp_updates_for_event(
      &(zagent_event){.kind = ZAEV_TOOL_CALL,
                      .tool_call = {.id = "p1",
                                    .name = "apply_patch",
                                    .arguments = "{\"input\":\"*** Begin Patch\\n*** Update "
                                                 "File: f.txt\\n one\\n-two\\n+TWO\\n*** End "
                                                 "Patch\\n\"}"}},
      &tools);
  *diff = json_array_get(json_object_get(json_array_get(u, 0), "content"), 0);
  unlink(path);
  rmdir(dir);
  return u;
}

/* A file that exists in the workspace: the diff is the whole file before
 * and after the patch. */
static void a_patch_diff_shows_the_whole_file(void **state) {
  (void)state;
  char path[256];
  json_t *d;
  json_t *u = patch_f_txt((ztool_read_guard){0}, path, sizeof path, &d);
  assert_string_equal(json_string_value(json_object_get(d, "path")), path);
  assert_string_equal(json_string_value(json_object_get(d, "oldText")), "one\ntwo\nthree\n");
  assert_string_equal(json_string_value(json_object_get(d, "newText")), "one\nTWO\nthree\n");
  json_decref(u);
}

static bool deny_f_txt(void *ud, const char *abs) {
  (void)ud;
  size_t n = strlen(abs);
  return n >= 6 && !strcmp(abs + n - 6, "/f.txt");
}

/* A file the read guard denies (sandbox.denyRead) is never read for the
 * diff shown before the call is decided: only the patch's own lines. */
static void a_patch_diff_never_shows_a_denied_file(void **state) {
  (void)state;
  char path[256];
  json_t *d;
  json_t *u = patch_f_txt((ztool_read_guard){.denied = deny_f_txt}, path, sizeof path, &d);
  assert_string_equal(json_string_value(json_object_get(d, "path")), path);
  assert_string_equal(json_string_value(json_object_get(d, "oldText")), "one\ntwo\n");
  assert_string_equal(json_string_value(json_object_get(d, "newText")), "one\nTWO\n");
  json_decref(u);
}

static void update_plan_also_sends_the_plan(void **state) {
  (void)state;
  json_t *u = call_updates("c3", "update_plan",
                           "{\"plan\":[{\"step\":\"read\",\"status\":"
                           "\"completed\"},{\"step\":\"fix\",\"status\":"
                           "\"in_progress\"}]}");
  assert_int_equal(json_array_size(u), 2);
  json_t *plan = json_array_get(u, 1);
  assert_string_equal(json_string_value(json_object_get(plan, "sessionUpdate")), "plan");
  json_t *e1 = json_array_get(json_object_get(plan, "entries"), 1);
  assert_string_equal(json_string_value(json_object_get(e1, "content")), "fix");
  assert_string_equal(json_string_value(json_object_get(e1, "status")), "in_progress");
  json_decref(u);
}

static void a_failed_result_is_a_failed_update(void **state) {
  (void)state;
  zagent_event ev = {.kind = ZAEV_TOOL_RESULT,
                     .tool_result = {.id = "c4",
                                     .name = "exec_command",
                                     .ok = false,
                                     .output = "boom",
                                     .output_len = 4}};
  json_t *u = zacp_updates_for_event(&ev, &W);
  json_t *r = only(u);
  assert_string_equal(json_string_value(json_object_get(r, "sessionUpdate")), "tool_call_update");
  assert_string_equal(json_string_value(json_object_get(r, "status")), "failed");
  json_t *c = json_array_get(json_object_get(r, "content"), 0);
  assert_string_equal(json_string_value(json_object_get(json_object_get(c, "content"), "text")),
                      "boom");
  json_decref(u);
}

static void history_replays_in_order(void **state) {
  (void)state;
  zconv conv = ZCONV_INIT;
  zconv_add_user(&conv, "hi");
  zmsg *a = zconv_add_assistant(&conv, "looking", "hmm");
  zmsg_add_call(a, "k1", "read_file", "{\"path\":\"x\"}");
  zconv_add_tool_result(&conv, "k1", "read_file", "1 | x", 0);
  zconv_add_assistant(&conv, "done", NULL);
  json_t *u = zacp_updates_for_history(&conv, &W);
  const char *want[] = {"user_message_chunk", "agent_thought_chunk", "agent_message_chunk",
                        "tool_call",          "tool_call_update",    "agent_message_chunk"};
  assert_int_equal(json_array_size(u), 6);
  for (size_t i = 0; i < 6; i++)
    assert_string_equal(json_string_value(json_object_get(json_array_get(u, i), "sessionUpdate")),
                        want[i]);
  json_decref(u);
  zconv_release(&conv);
}

/* ---- rpc ---- */

typedef struct {
  zacp_conn *c;
  const void *owner;
  int64_t deadline;
  json_t *result;
  bool aborted;
  zacp_call_end end;
} call_arg;

static void *do_call(void *ud) {
  call_arg *a = ud;
  a->result = zacp_call_ex(a->c, "session/request_permission", json_object(), a->owner, a->deadline,
                           &a->end, NULL);
  a->aborted = a->end == ZACP_CALL_ABORTED;
  return NULL;
}

/* Waits until n calls' requests have been written. */
static void wait_pending(zacp_conn *c, int n) {
  for (;;) {
    pthread_mutex_lock(&c->mu);
    int k = 0;
    for (zacp_pending *p = c->pending; p; p = p->next) k++;
    pthread_mutex_unlock(&c->mu);
    if (k == n) return;
    sched_yield();
  }
}

/* A connection writing to out, and a thread blocked in a call on it (its
 * request written). */
static void start_call(zacp_conn *c, FILE *out, call_arg *a, pthread_t *t) {
  zacp_conn_init(c, out);
  pthread_create(t, NULL, do_call, a);
  wait_pending(c, 1);
}

static void a_call_gets_its_own_response(void **state) {
  (void)state;
  char *buf = NULL;
  size_t len = 0;
  FILE *out = open_memstream(&buf, &len);
  zacp_conn c;
  call_arg a = {.c = &c};
  pthread_t t;
  start_call(&c, out, &a, &t);
  json_t *other = json_loads("{\"id\":7,\"result\":{\"x\":1}}", 0, NULL);
  zacp_conn_deliver(&c, other); /* not ours: ignored */
  json_t *mine =
      json_loads("{\"id\":1,\"result\":{\"outcome\":{\"outcome\":\"cancelled\"}}}", 0, NULL);
  zacp_conn_deliver(&c, mine);
  pthread_join(t, NULL);
  assert_false(a.aborted);
  assert_non_null(json_object_get(a.result, "outcome"));
  json_decref(a.result);
  json_decref(other);
  json_decref(mine);
  fclose(out);
  assert_non_null(strstr(buf, "\"method\":\"session/request_permission\""));
  assert_non_null(strstr(buf, "\"jsonrpc\":\"2.0\""));
  free(buf);
  zacp_conn_release(&c);
}

static void an_aborted_call_returns_null(void **state) {
  (void)state;
  FILE *out = fopen("/dev/null", "w");
  zacp_conn c;
  call_arg a = {.c = &c};
  pthread_t t;
  start_call(&c, out, &a, &t);
  zacp_conn_abort_calls(&c, NULL);
  pthread_join(t, NULL);
  assert_true(a.aborted);
  assert_null(a.result);
  zacp_conn_close(&c);
  assert_null(zacp_call(&c, "x", NULL, NULL, &a.aborted)); /* closed: no reply will come */
  fclose(out);
  zacp_conn_release(&c);
}

/* Two calls in flight (parallel reads, two sessions): each gets the
 * response with its own id, whatever the order; a cancel of one owner
 * leaves the other waiting. */
static void calls_in_flight_are_matched_by_id_and_owner(void **state) {
  (void)state;
  FILE *out = fopen("/dev/null", "w");
  zacp_conn c;
  zacp_conn_init(&c, out);
  int owner_a, owner_b, owner_c;
  call_arg a = {.c = &c, .owner = &owner_a}, b = {.c = &c, .owner = &owner_b},
           d = {.c = &c, .owner = &owner_c};
  pthread_t ta, tb, td;
  pthread_create(&ta, NULL, do_call, &a);
  wait_pending(&c, 1);
  pthread_create(&tb, NULL, do_call, &b);
  wait_pending(&c, 2);
  pthread_create(&td, NULL, do_call, &d);
  wait_pending(&c, 3);
  zacp_conn_abort_calls(&c, &owner_c); /* only the third */
  pthread_join(td, NULL);
  assert_int_equal(d.end, ZACP_CALL_ABORTED);
  json_t *second = json_loads("{\"id\":2,\"result\":{\"who\":\"b\"}}", 0, NULL);
  zacp_conn_deliver(&c, second);
  pthread_join(tb, NULL);
  json_t *first = json_loads("{\"id\":1,\"error\":{\"code\":-1,\"message\":\"no\"}}", 0, NULL);
  zacp_conn_deliver(&c, first);
  pthread_join(ta, NULL);
  assert_int_equal(b.end, ZACP_CALL_OK);
  assert_string_equal(json_string_value(json_object_get(b.result, "who")), "b");
  assert_int_equal(a.end, ZACP_CALL_ERROR);
  assert_null(a.result);
  json_decref(b.result);
  json_decref(first);
  json_decref(second);
  fclose(out);
  zacp_conn_release(&c);
}

static void a_call_past_its_deadline_times_out(void **state) {
  (void)state;
  FILE *out = fopen("/dev/null", "w");
  zacp_conn c;
  zacp_conn_init(&c, out);
  zacp_call_end end;
  json_t *r =
      zacp_call_ex(&c, "terminal/wait_for_exit", NULL, NULL, ztime_mono_ms() + 50, &end, NULL);
  assert_null(r);
  assert_int_equal(end, ZACP_CALL_TIMEOUT);
  fclose(out);
  zacp_conn_release(&c);
}

/* A command for the editor's terminal: env -i, then exactly the prepared
 * environment (the editor's own never reaches it), then the wrapped argv. */
static void a_terminal_runs_the_prepared_command_under_env_i(void **state) {
  (void)state;
  char *argv[] = {"/usr/bin/bwrap", "--unshare-net", "/bin/sh", "-c", "make", NULL};
  char *envp[] = {"PATH=/usr/bin:/bin", "HOME=/rt/home", "-bad=1", NULL};
  json_t *p = zacp_terminal_params("s1", argv, envp, "/work");
  assert_string_equal(json_string_value(json_object_get(p, "command")), "/usr/bin/env");
  char *args = json_dumps(json_object_get(p, "args"), JSON_COMPACT);
  assert_string_equal(args, "[\"-i\",\"PATH=/usr/bin:/bin\",\"HOME=/rt/home\",\"/usr/bin/bwrap\","
                            "\"--unshare-net\",\"/bin/sh\",\"-c\",\"make\"]");
  assert_string_equal(json_string_value(json_object_get(p, "cwd")), "/work");
  assert_int_equal(json_array_size(json_object_get(p, "env")), 0);
  free(args);
  json_decref(p);
}

static bool deny_secret(void *ud, const char *abs) {
  (void)ud;
  return strstr(abs, "secret") != NULL;
}

/* The backend's own second look: a path outside the roots, or one the read
 * guard denies, fails before anything is sent to the client. */
static void the_backend_refuses_before_asking_the_client(void **state) {
  (void)state;
  char *buf = NULL;
  size_t len = 0;
  FILE *out = open_memstream(&buf, &len);
  zacp_conn c;
  zacp_conn_init(&c, out);
  ztool_ctx tools = {.workspace = "/w", .read_guard = {.denied = deny_secret}};
  zacp_client_io io = {.conn = &c,
                       .session_id = "s",
                       .tools = &tools,
                       .can_read = true,
                       .can_write = true,
                       .can_terminal = true};
  zacp_client_io_init(&io);
  const ztool_backend *b = zacp_client_io_backend(&io);
  assert_non_null(b);
  zerr err = ZERR_INIT;
  assert_int_equal(b->write_text(b->ud, "/etc/passwd", "x", 1, &err), -1);
  assert_int_equal(b->write_text(b->ud, "relative.txt", "x", 1, &err), -1);
  zbuf text = ZBUF_INIT;
  assert_int_equal(b->read_text(b->ud, "/w/secret.txt", &text, &err), -1);
  fflush(out);
  assert_int_equal(len, 0); /* nothing reached the client */
  zbuf_release(&text);
  zacp_client_io_release(&io);
  fclose(out);
  free(buf);
  zacp_conn_release(&c);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(text_and_reasoning_become_chunks),
      cmocka_unit_test(a_write_is_a_diff_at_an_absolute_path),
      cmocka_unit_test(a_patch_locates_every_file_it_names),
      cmocka_unit_test(a_patch_diff_shows_the_whole_file),
      cmocka_unit_test(a_patch_diff_never_shows_a_denied_file),
      cmocka_unit_test(update_plan_also_sends_the_plan),
      cmocka_unit_test(a_failed_result_is_a_failed_update),
      cmocka_unit_test(history_replays_in_order),
      cmocka_unit_test(a_call_gets_its_own_response),
      cmocka_unit_test(an_aborted_call_returns_null),
      cmocka_unit_test(calls_in_flight_are_matched_by_id_and_owner),
      cmocka_unit_test(a_call_past_its_deadline_times_out),
      cmocka_unit_test(a_terminal_runs_the_prepared_command_under_env_i),
      cmocka_unit_test(the_backend_refuses_before_asking_the_client),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
