/* test_recorder.c — the session recorder sink: what each agent event becomes
 * in events.jsonl, and that a recorded run replays into the same
 * conversation the agent loop held in memory. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agent/recorder.h"
#include "base/common.h"
#include "base/json.h"
#include "base/path.h"
#include "session/store.h"

typedef struct fx {
  char tmp[64];
  char *root;
  zsession *session;
  zsink *rec;
  FILE *diag;
} fx;

static int setup(void **state) {
  fx *f = xcalloc(1, sizeof *f);
  snprintf(f->tmp, sizeof f->tmp, "%s", "/tmp/zero-test-recorder-XXXXXX");
  if (!mkdtemp(f->tmp)) return -1;
  setenv("HOME", f->tmp, 1);
  char *data = zpath_join(f->tmp, "data");
  setenv("XDG_DATA_HOME", data, 1);
  free(data);
  f->root = zsession_root();
  zerr err = ZERR_INIT;
  f->session = zsession_create(f->root, "/work", "fake", "fake-model", NULL, &err);
  if (!f->session) fail_msg("%s", err.msg);
  f->diag = tmpfile();
  f->rec = zrecorder_new(f->session, f->diag);
  *state = f;
  return 0;
}

static int rm_cb(const char *p, const struct stat *sb, int flag, struct FTW *ftw) {
  (void)sb; (void)flag; (void)ftw;
  chmod(p, 0700);
  return remove(p);
}

static int teardown(void **state) {
  fx *f = *state;
  f->rec->destroy(f->rec);
  zsession_close(f->session);
  fclose(f->diag);
  nftw(f->tmp, rm_cb, 16, FTW_DEPTH | FTW_PHYS);
  free(f->root);
  free(f);
  return 0;
}

static void emit(fx *f, zagent_event ev) { f->rec->emit(f->rec, &ev); }

static int collect(void *ud, const json_t *ev) {
  json_array_append((json_t *)ud, (json_t *)ev);
  return 0;
}

/* Every recorded event, in order. New reference. */
static json_t *recorded(fx *f) {
  json_t *arr = json_array();
  zerr err = ZERR_INIT;
  if (zsession_for_each_event(f->root, f->session->id, collect, arr, NULL, &err) != 0)
    fail_msg("%s", err.msg);
  return arr;
}

static const json_t *payload(const json_t *events, size_t i, const char *type) {
  const json_t *ev = json_array_get(events, i);
  if (!ev) fail_msg("no event %zu", i);
  if (strcmp(zjson_str_or(ev, "type", ""), type))
    fail_msg("event %zu is %s, want %s", i, zjson_str_or(ev, "type", "?"), type);
  assert_int_equal(zjson_int_or(ev, "sequence", 0), (int64_t)i + 1);
  return json_object_get(ev, "payload");
}

static void test_each_event_kind_becomes_its_line(void **state) {
  fx *f = *state;
  json_t *meta = json_pack("{s:i}", "exitCode", 0);
  emit(f, (zagent_event){.kind = ZAEV_RUN_START, .run_start = {.session_id = f->session->id}});
  emit(f, (zagent_event){.kind = ZAEV_USER_MESSAGE, .user_message = {.text = "read it", .len = 7}});
  emit(f, (zagent_event){.kind = ZAEV_TEXT, .delta = {.text = "Ok", .len = 2}});
  emit(f, (zagent_event){.kind = ZAEV_ASSISTANT_MESSAGE,
                         .assistant_message = {.text = "Ok", .len = 2, .reasoning = "think"}});
  emit(f, (zagent_event){.kind = ZAEV_TOOL_CALL,
                         .tool_call = {.id = "c1",
                                       .name = "read_file",
                                       .arguments = "{\"path\":\"a\"}",
                                       .side_effect = "read"}});
  emit(f, (zagent_event){.kind = ZAEV_PERMISSION_REQUEST,
                         .permission = {.id = "c1",
                                        .name = "read_file",
                                        .action = "prompt",
                                        .mode = "ask",
                                        .side_effect = "read",
                                        .reason = "why"}});
  emit(f, (zagent_event){.kind = ZAEV_PERMISSION_DECISION,
                         .permission = {.id = "c1",
                                        .name = "read_file",
                                        .action = "allow",
                                        .mode = "ask",
                                        .side_effect = "read",
                                        .reason = "read-only tool"}});
  emit(f, (zagent_event){.kind = ZAEV_TOOL_RESULT,
                         .tool_result = {.id = "c1",
                                         .name = "read_file",
                                         .ok = true,
                                         .output = "1\tA",
                                         .output_len = 3,
                                         .truncated = true,
                                         .meta = meta}});
  emit(f, (zagent_event){.kind = ZAEV_USAGE,
                         .usage = {.tokens = {10, 3, 13, 4, 0}, .model = "fake-model"}});
  emit(f, (zagent_event){.kind = ZAEV_WARNING, .warning = {.message = "not recorded"}});
  emit(f, (zagent_event){.kind = ZAEV_ERROR,
                         .error = {.code = "provider_error", .message = "HTTP 500"}});
  emit(f, (zagent_event){.kind = ZAEV_FINAL, .final = {.text = "Ok"}});
  emit(f, (zagent_event){.kind = ZAEV_RUN_END, .run_end = {.status = "error", .exit_code = 3}});
  assert_int_equal(f->rec->finish(f->rec), 0);
  json_decref(meta);

  json_t *evs = recorded(f);
  /* Streaming deltas, warnings, final and run bounds are not recorded. */
  assert_int_equal(json_array_size(evs), 8);
  const json_t *p = payload(evs, 0, "message");
  assert_string_equal(zjson_str_or(p, "role", ""), "user");
  assert_string_equal(zjson_str_or(p, "content", ""), "read it");
  p = payload(evs, 1, "message");
  assert_string_equal(zjson_str_or(p, "role", ""), "assistant");
  assert_string_equal(zjson_str_or(p, "content", ""), "Ok");
  assert_string_equal(zjson_str_or(p, "reasoning", ""), "think");
  p = payload(evs, 2, "tool_call");
  assert_string_equal(zjson_str_or(p, "id", ""), "c1");
  assert_string_equal(zjson_str_or(p, "name", ""), "read_file");
  assert_string_equal(zjson_str_or(p, "arguments", ""), "{\"path\":\"a\"}");
  p = payload(evs, 3, "permission_request");
  assert_string_equal(zjson_str_or(p, "toolCallId", ""), "c1");
  assert_string_equal(zjson_str_or(p, "action", ""), "prompt");
  p = payload(evs, 4, "permission_decision");
  assert_string_equal(zjson_str_or(p, "toolCallId", ""), "c1");
  assert_string_equal(zjson_str_or(p, "name", ""), "read_file");
  assert_string_equal(zjson_str_or(p, "action", ""), "allow");
  assert_string_equal(zjson_str_or(p, "permissionMode", ""), "ask");
  assert_string_equal(zjson_str_or(p, "sideEffect", ""), "read");
  assert_string_equal(zjson_str_or(p, "reason", ""), "read-only tool");
  p = payload(evs, 5, "tool_result");
  assert_string_equal(zjson_str_or(p, "toolCallId", ""), "c1");
  assert_string_equal(zjson_str_or(p, "status", ""), "ok");
  assert_string_equal(zjson_str_or(p, "output", ""), "1\tA");
  assert_true(zjson_bool_or(p, "truncated", false));
  assert_int_equal(zjson_int_or(json_object_get(p, "meta"), "exitCode", -1), 0);
  p = payload(evs, 6, "provider_usage");
  assert_int_equal(zjson_int_or(p, "promptTokens", -1), 10);
  assert_int_equal(zjson_int_or(p, "completionTokens", -1), 3);
  assert_int_equal(zjson_int_or(p, "totalTokens", -1), 13);
  assert_int_equal(zjson_int_or(p, "cachedInputTokens", -1), 4);
  assert_null(json_object_get(p, "reasoningTokens"));
  assert_string_equal(zjson_str_or(p, "model", ""), "fake-model");
  p = payload(evs, 7, "error");
  assert_string_equal(zjson_str_or(p, "code", ""), "provider_error");
  assert_string_equal(zjson_str_or(p, "message", ""), "HTTP 500");
  json_decref(evs);

  /* Metadata follows the appends. */
  assert_int_equal(zjson_int_or(f->session->meta, "eventCount", -1), 8);
}

static void test_output_with_embedded_nul_keeps_its_length(void **state) {
  fx *f = *state;
  emit(f, (zagent_event){.kind = ZAEV_TOOL_RESULT,
                         .tool_result = {.id = "c",
                                         .name = "read_file",
                                         .ok = false,
                                         .output = "ab\0cd",
                                         .output_len = 5}});
  json_t *evs = recorded(f);
  const json_t *p = payload(evs, 0, "tool_result");
  assert_int_equal(json_string_length(json_object_get(p, "output")), 5);
  assert_string_equal(zjson_str_or(p, "status", ""), "error");
  assert_null(json_object_get(p, "truncated"));
  json_decref(evs);
}

/* Emits one tool round trip exactly as the agent loop does: the assistant
 * message first, then per call TOOL_CALL, PERMISSION_DECISION, TOOL_RESULT. */
static void emit_call(fx *f, const char *id, const char *name, const char *args, bool ok,
                      const char *output) {
  emit(f, (zagent_event){
              .kind = ZAEV_TOOL_CALL,
              .tool_call = {.id = id, .name = name, .arguments = args, .side_effect = "read"}});
  emit(f, (zagent_event){.kind = ZAEV_PERMISSION_DECISION,
                         .permission = {.id = id,
                                        .name = name,
                                        .action = ok ? "allow" : "deny",
                                        .mode = "auto",
                                        .side_effect = "read",
                                        .reason = "r"}});
  emit(f, (zagent_event){.kind = ZAEV_TOOL_RESULT,
                         .tool_result = {.id = id,
                                         .name = name,
                                         .ok = ok,
                                         .output = output,
                                         .output_len = strlen(output)}});
}

static void test_recorded_run_replays_to_the_same_conversation(void **state) {
  fx *f = *state;
  /* The conversation the loop holds in memory ... */
  zconv want = ZCONV_INIT;
  zconv_add_user(&want, "look at a and b");
  zmsg *m = zconv_add_assistant(&want, "Reading both.", "plan first");
  zmsg_add_call(m, "c1", "read_file", "{\"path\":\"a\"}");
  zmsg_add_call(m, "c2", "read_file", "{\"path\":\"b\"}");
  zconv_add_tool_result(&want, "c1", "read_file", "1\tA", 0);
  zconv_add_tool_result(&want, "c2", "read_file", "no such file: b", 1);
  m = zconv_add_assistant(&want, "", NULL);
  zmsg_add_call(m, "c3", "list_directory", "{}");
  zconv_add_tool_result(&want, "c3", "list_directory", "a\n", 0);
  zconv_add_assistant(&want, "a says A; b is missing.", NULL);

  /* ... and the events it emitted while building it. */
  emit(f, (zagent_event){.kind = ZAEV_USER_MESSAGE,
                         .user_message = {.text = "look at a and b", .len = 15}});
  emit(f, (zagent_event){.kind = ZAEV_ASSISTANT_MESSAGE,
                         .assistant_message = {.text = "Reading both.",
                                               .len = 13,
                                               .reasoning = "plan first"}});
  emit_call(f, "c1", "read_file", "{\"path\":\"a\"}", true, "1\tA");
  emit_call(f, "c2", "read_file", "{\"path\":\"b\"}", false, "no such file: b");
  emit(f, (zagent_event){.kind = ZAEV_USAGE, .usage = {.tokens = {1, 1, 2, 0, 0}}});
  emit(f,
       (zagent_event){.kind = ZAEV_ASSISTANT_MESSAGE, .assistant_message = {.text = "", .len = 0}});
  emit_call(f, "c3", "list_directory", "{}", true, "a\n");
  emit(f, (zagent_event){.kind = ZAEV_ASSISTANT_MESSAGE,
                         .assistant_message = {.text = "a says A; b is missing.", .len = 23}});
  assert_int_equal(f->rec->finish(f->rec), 0);

  zconv got = ZCONV_INIT;
  zerr err = ZERR_INIT;
  if (zsession_load_conv(f->root, f->session->id, &got, NULL, NULL, &err) != 0)
    fail_msg("%s", err.msg);

  assert_int_equal(got.len, want.len);
  for (size_t i = 0; i < want.len; i++) {
    const zmsg *g = &got.items[i], *w = &want.items[i];
    if (g->role != w->role) fail_msg("message %zu: role %d, want %d", i, g->role, w->role);
    assert_string_equal(g->content ? g->content : "", w->content ? w->content : "");
    assert_string_equal(g->reasoning ? g->reasoning : "", w->reasoning ? w->reasoning : "");
    if (g->ncalls != w->ncalls)
      fail_msg("message %zu: %zu calls, want %zu", i, g->ncalls, w->ncalls);
    for (size_t k = 0; k < w->ncalls; k++) {
      assert_string_equal(g->calls[k].id, w->calls[k].id);
      assert_string_equal(g->calls[k].name, w->calls[k].name);
      assert_string_equal(g->calls[k].arguments, w->calls[k].arguments);
    }
    if (w->role == ZROLE_TOOL) {
      assert_string_equal(g->tool_call_id, w->tool_call_id);
      assert_string_equal(g->tool_name, w->tool_name);
      assert_int_equal(g->is_error, w->is_error);
    }
  }
  zconv_release(&got);
  zconv_release(&want);
}

/* A long answer is streamed to the log in pieces (zsession_append_text):
 * escapes, multibyte characters across piece boundaries, and an invalid
 * byte (written as U+FFFD) all read back as one JSON string. */
static void test_long_answer_is_streamed_into_one_line(void **state) {
  fx *f = *state;
  zbuf text = ZBUF_INIT, want = ZBUF_INIT;
  for (int i = 0; text.len < 300000; i++) {
    /* Shifting the multibyte characters by one byte per line makes some of
     * them straddle each 64 KiB piece boundary. */
    for (int k = 0; k < i % 7; k++) zbuf_addch(&text, 'x');
    zbuf_addstr(&text, "quote \" back \\ tab\t nl\n bell\x07 caf\xc3\xa9 \xf0\x9f\x98\x80 ");
  }
  zbuf_add(&want, text.data, text.len);
  zbuf_addstr(&text, "bad\xff!");
  zbuf_addstr(&want, "bad\xef\xbf\xbd!");
  emit(f,
       (zagent_event){.kind = ZAEV_ASSISTANT_MESSAGE,
                      .assistant_message = {.text = text.data, .len = text.len, .reasoning = "r"}});
  assert_int_equal(f->rec->finish(f->rec), 0);
  json_t *evs = recorded(f);
  const json_t *p = payload(evs, 0, "message");
  assert_string_equal(zjson_str_or(p, "role", ""), "assistant");
  assert_string_equal(zjson_str_or(p, "reasoning", ""), "r");
  json_t *c = json_object_get(p, "content");
  assert_true(json_is_string(c));
  assert_int_equal(json_string_length(c), want.len);
  assert_memory_equal(json_string_value(c), want.data, want.len);
  json_decref(evs);
  zbuf_release(&text);
  zbuf_release(&want);
}

/* Thinking blocks (Anthropic) and thought signatures (Gemini) are recorded
 * and come back on replay, so --resume sends them to the provider again. */
static void test_thinking_and_signatures_survive_replay(void **state) {
  fx *f = *state;
  const char *thinking = "[{\"thinking\":\"plan\",\"signature\":\"sig-A\"},{\"redacted\":\"data-B\"}]";
  emit(f, (zagent_event){.kind = ZAEV_USER_MESSAGE, .user_message = {.text = "go", .len = 2}});
  emit(f, (zagent_event){.kind = ZAEV_ASSISTANT_MESSAGE,
                         .assistant_message = {.text = "", .len = 0, .thinking = thinking}});
  emit(f, (zagent_event){.kind = ZAEV_TOOL_CALL,
                         .tool_call = {.id = "c1",
                                       .name = "read_file",
                                       .arguments = "{}",
                                       .signature = "thought-sig-1"}});
  emit(f, (zagent_event){.kind = ZAEV_TOOL_RESULT,
                         .tool_result = {.id = "c1",
                                         .name = "read_file",
                                         .ok = true,
                                         .output = "x",
                                         .output_len = 1}});
  assert_int_equal(f->rec->finish(f->rec), 0);
  zconv got = ZCONV_INIT;
  zerr err = ZERR_INIT;
  if (zsession_load_conv(f->root, f->session->id, &got, NULL, NULL, &err) != 0)
    fail_msg("%s", err.msg);
  assert_int_equal(got.len, 3);
  const zmsg *m = &got.items[1];
  assert_non_null(m->thinking);
  json_t *a = json_loads(m->thinking, 0, NULL), *b = json_loads(thinking, 0, NULL);
  assert_true(json_equal(a, b));
  json_decref(a);
  json_decref(b);
  assert_int_equal(m->ncalls, 1);
  assert_string_equal(m->calls[0].signature, "thought-sig-1");
  /* And through a compaction payload (zconv_to_json / zconv_from_json). */
  json_t *kept = zconv_to_json(&got, 0);
  zconv back = ZCONV_INIT;
  zconv_from_json(&back, kept);
  json_decref(kept);
  assert_int_equal(back.len, 3);
  assert_string_equal(back.items[1].thinking, m->thinking);
  assert_string_equal(back.items[1].calls[0].signature, "thought-sig-1");
  zconv_release(&back);
  zconv_release(&got);
}

/* Images attached to a user message (the TUI's /image, meta.images) are
 * recorded with it, come back on replay, and survive a compaction payload. */
static void test_user_images_survive_replay_and_compaction(void **state) {
  fx *f = *state;
  json_t *meta = json_pack("{s:[{s:s, s:s}]}", "images", "media_type", "image/png", "data", "iVBORw0K");
  emit(f, (zagent_event){.kind = ZAEV_USER_MESSAGE,
                         .user_message = {.text = "look", .len = 4, .meta = meta}});
  json_decref(meta);
  emit(f, (zagent_event){.kind = ZAEV_ASSISTANT_MESSAGE,
                         .assistant_message = {.text = "a cat", .len = 5}});
  assert_int_equal(f->rec->finish(f->rec), 0);
  zconv got = ZCONV_INIT;
  zerr err = ZERR_INIT;
  if (zsession_load_conv(f->root, f->session->id, &got, NULL, NULL, &err) != 0)
    fail_msg("%s", err.msg);
  assert_int_equal(got.len, 2);
  assert_int_equal(got.items[0].nimages, 1);
  assert_string_equal(got.items[0].images[0].media_type, "image/png");
  assert_string_equal(got.items[0].images[0].data, "iVBORw0K");
  json_t *kept = zconv_to_json(&got, 0);
  zconv back = ZCONV_INIT;
  zconv_from_json(&back, kept);
  json_decref(kept);
  assert_int_equal(back.items[0].nimages, 1);
  assert_string_equal(back.items[0].images[0].data, "iVBORw0K");
  assert_int_equal(back.items[1].nimages, 0);
  zconv_release(&back);
  zconv_release(&got);
}

static void test_failed_append_is_reported_once(void **state) {
  fx *f = *state;
  /* Make appends fail: a read-only descriptor in place of events.jsonl. */
  int saved = f->session->events_fd;
  f->session->events_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
  assert_true(f->session->events_fd >= 0);
  emit(f, (zagent_event){.kind = ZAEV_USER_MESSAGE, .user_message = {.text = "x", .len = 1}});
  emit(f, (zagent_event){.kind = ZAEV_USER_MESSAGE, .user_message = {.text = "y", .len = 1}});
  assert_int_equal(f->rec->finish(f->rec), -1);
  close(f->session->events_fd);
  f->session->events_fd = saved;

  fflush(f->diag);
  rewind(f->diag);
  char buf[2048] = "";
  size_t n = fread(buf, 1, sizeof buf - 1, f->diag);
  buf[n] = '\0';
  const char *first = strstr(buf, "could not record the session");
  assert_non_null(first);
  assert_null(strstr(first + 1, "could not record the session"));
  assert_non_null(strstr(buf, f->session->dir));
}

/* A full disk (/dev/full: every write is ENOSPC) loses the user's message:
 * check then fails with a clear error so the loop stops before sending it,
 * and nothing later is appended once the disk has room again, so the
 * session never holds an answer without the message it answers. */
static void test_lost_user_message_stops_the_run_and_nothing_follows_it(void **state) {
  fx *f = *state;
  zerr err = ZERR_INIT;
  assert_non_null(f->rec->check);
  assert_int_equal(f->rec->check(f->rec, &err), 0);
  int saved = f->session->events_fd;
  f->session->events_fd = open("/dev/full", O_WRONLY | O_CLOEXEC);
  assert_true(f->session->events_fd >= 0);
  emit(f,
       (zagent_event){.kind = ZAEV_USER_MESSAGE, .user_message = {.text = "my prompt", .len = 9}});
  close(f->session->events_fd);
  f->session->events_fd = saved; /* the disk has room again */
  assert_int_equal(f->rec->check(f->rec, &err), -1);
  assert_int_equal(err.kind, ZE_IO);
  assert_non_null(strstr(err.msg, "No space left on device"));
  assert_non_null(strstr(err.msg, "the run stops"));
  assert_non_null(strstr(err.msg, f->session->id));
  emit(f, (zagent_event){.kind = ZAEV_ASSISTANT_MESSAGE,
                         .assistant_message = {.text = "answer", .len = 6}});
  emit(f, (zagent_event){.kind = ZAEV_TOOL_CALL,
                         .tool_call = {.id = "c1", .name = "read_file", .arguments = "{}"}});
  assert_int_equal(f->rec->finish(f->rec), -1);
  json_t *evs = recorded(f);
  assert_int_equal(json_array_size(evs), 0);
  json_decref(evs);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

int main(void) {
  const struct CMUnitTest tests[] = {
      T(test_each_event_kind_becomes_its_line),
      T(test_output_with_embedded_nul_keeps_its_length),
      T(test_recorded_run_replays_to_the_same_conversation),
      T(test_failed_append_is_reported_once),
      T(test_lost_user_message_stops_the_run_and_nothing_follows_it),
      T(test_long_answer_is_streamed_into_one_line),
      T(test_thinking_and_signatures_survive_replay),
      T(test_user_images_survive_replay_and_compaction),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
