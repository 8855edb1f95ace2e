/* test_session_life.c — the writer lock, tail-only resume scan, fork,
 * compaction replay, task state, the search query parser, and the compactor
 * (dedupe, prune, summarize with a scripted in-process provider). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agent/compaction.h"
#include "agent/task_state.h"
#include "base/buf.h"
#include "base/common.h"
#include "base/json.h"
#include "base/path.h"
#include "session/checkpoint.h"
#include "session/search.h"
#include "session/store.h"

typedef struct fx {
  char tmp[64];
  char *root;
} fx;

static int setup(void **state) {
  fx *f = calloc(1, sizeof *f);
  snprintf(f->tmp, sizeof f->tmp, "%s", "/tmp/zero-test-life-XXXXXX");
  assert_non_null(mkdtemp(f->tmp));
  f->root = zpath_join(f->tmp, "sessions");
  *state = f;
  return 0;
}

static int teardown(void **state) {
  fx *f = *state;
  zsession_remove_dir(f->tmp);
  free(f->root);
  free(f);
  return 0;
}

static void append_msg(zsession *s, const char *role, const char *text) {
  json_t *p = json_pack("{s:s, s:s}", "role", role, "content", text);
  zerr err = ZERR_INIT;
  assert_int_equal(zsession_append(s, "message", p, &err), 0);
  json_decref(p);
}

static void test_second_open_is_refused_with_the_holder_pid(void **state) {
  fx *f = *state;
  zerr err = ZERR_INIT;
  zsession *s = zsession_create(f->root, NULL, NULL, NULL, NULL, &err);
  assert_non_null(s);
  zsession *again = zsession_open(f->root, s->id, &err);
  assert_null(again);
  assert_int_equal(err.kind, ZE_INVALID);
  char pid[32];
  snprintf(pid, sizeof pid, "pid %ld", (long)getpid());
  assert_non_null(strstr(err.msg, pid));
  char *id = xstrdup(s->id);
  zsession_close(s);
  again = zsession_open(f->root, id, &err);
  assert_non_null(again);
  zsession_close(again);
  free(id);
}

static void test_open_reads_only_the_tail_and_cuts_a_torn_line(void **state) {
  fx *f = *state;
  zerr err = ZERR_INIT;
  zsession *s = zsession_create(f->root, NULL, NULL, NULL, NULL, &err);
  for (int i = 0; i < 50; i++) append_msg(s, "user", "hello");
  char *id = xstrdup(s->id), *dir = xstrdup(s->dir);
  zsession_close(s);
  char *path = zpath_join(dir, "events.jsonl");
  FILE *fp = fopen(path, "a");
  fputs("{\"id\":\"x:51\",\"sequence\":51,\"ty", fp);
  fclose(fp);
  s = zsession_open(f->root, id, &err);
  assert_non_null(s);
  assert_int_equal(s->sequence, 50);
  assert_true(s->torn_cut > 0);
  append_msg(s, "user", "after");
  assert_int_equal(s->sequence, 51);
  zsession_close(s);
  /* A whole last event without its newline only gets the newline. */
  fp = fopen(path, "r+");
  fseek(fp, -1, SEEK_END);
  struct stat st;
  stat(path, &st);
  fclose(fp);
  assert_int_equal(truncate(path, st.st_size - 1), 0);
  s = zsession_open(f->root, id, &err);
  assert_non_null(s);
  assert_int_equal(s->sequence, 51);
  assert_int_equal(s->torn_cut, 0);
  zsession_close(s);
  free(path);
  free(id);
  free(dir);
}

static void test_fork_copies_events_without_usage_up_to_a_point(void **state) {
  fx *f = *state;
  zerr err = ZERR_INIT;
  zsession *s = zsession_create(f->root, "/w", "openai", "m", "t", &err);
  append_msg(s, "user", "one");
  json_t *u = json_pack("{s:i}", "promptTokens", 5);
  assert_int_equal(zsession_append(s, "provider_usage", u, &err), 0);
  json_decref(u);
  append_msg(s, "assistant", "two");
  append_msg(s, "user", "three");
  char *pid = xstrdup(s->id);
  zsession_close(s);
  zsession *c = zsession_fork(f->root, pid, 3, "fork", &err);
  assert_non_null(c);
  assert_int_equal(c->sequence, 3); /* one, two, session_fork */
  assert_string_equal(zjson_str(c->meta, "parentSessionId"), pid);
  assert_string_equal(zjson_str(c->meta, "sessionKind"), "fork");
  assert_int_equal(zjson_int_or(c->meta, "forkedFromSequence", 0), 3);
  char *cid = xstrdup(c->id);
  zsession_close(c);
  zconv conv = ZCONV_INIT;
  assert_int_equal(zsession_load_conv(f->root, cid, &conv, NULL, NULL, &err), 0);
  assert_int_equal(conv.len, 2);
  assert_string_equal(conv.items[1].content, "two");
  zconv_release(&conv);
  /* A fork point past the end is a usage error and leaves nothing behind. */
  assert_null(zsession_fork(f->root, pid, 99, "fork", &err));
  assert_int_equal(err.kind, ZE_USAGE);
  json_t *all = zsession_list(f->root, NULL, &err);
  assert_int_equal(json_array_size(all), 2);
  json_decref(all);
  free(pid);
  free(cid);
}

static void test_replay_starts_at_the_last_compaction(void **state) {
  fx *f = *state;
  zerr err = ZERR_INIT;
  zsession *s = zsession_create(f->root, NULL, NULL, NULL, NULL, &err);
  append_msg(s, "user", "old stuff \"type\":\"session_compaction\" in text");
  append_msg(s, "assistant", "old answer");
  zconv kept = ZCONV_INIT;
  zmsg *a = zconv_add_assistant(&kept, NULL, NULL);
  zmsg_add_call(a, "c1", "read_file", "{}");
  zconv_add_tool_result(&kept, "c1", "read_file", "contents", 0);
  json_t *p = json_pack("{s:s, s:o}", "summary", "SUMMARY", "kept", zconv_to_json(&kept, 0));
  assert_int_equal(zsession_append(s, "session_compaction", p, &err), 0);
  json_decref(p);
  zconv_release(&kept);
  append_msg(s, "user", "new question");
  char *id = xstrdup(s->id);
  zsession_close(s);
  assert_true(zsession_find_last(f->root, id, "session_compaction") > 0);
  assert_int_equal(zsession_find_last(f->root, id, "session_rewind"), -1);
  zconv conv = ZCONV_INIT;
  assert_int_equal(zsession_load_conv(f->root, id, &conv, NULL, NULL, &err), 0);
  assert_int_equal(conv.len, 4);
  assert_string_equal(conv.items[0].content, "SUMMARY");
  assert_int_equal(conv.items[1].ncalls, 1);
  assert_string_equal(conv.items[2].content, "contents");
  assert_string_equal(conv.items[3].content, "new question");
  zconv_release(&conv);
  free(id);
}

static void test_plan_status_words_are_normalised(void **state) {
  (void)state;
  assert_string_equal(ztask_normalize_status("done"), "completed");
  assert_string_equal(ztask_normalize_status("Completed"), "completed");
  assert_string_equal(ztask_normalize_status("WIP"), "in_progress");
  assert_string_equal(ztask_normalize_status("in-progress"), "in_progress");
  assert_string_equal(ztask_normalize_status("In Progress"), "in_progress");
  assert_string_equal(ztask_normalize_status("blocked"), "blocked");
  assert_string_equal(ztask_normalize_status("skipped"), "cancelled");
  assert_string_equal(ztask_normalize_status("todo"), "pending");
  assert_string_equal(ztask_normalize_status(NULL), "pending");
}

static void test_objective_is_cut_on_a_utf8_boundary_and_kept(void **state) {
  (void)state;
  ztask_state t;
  ztask_init(&t);
  zbuf b = ZBUF_INIT;
  for (int i = 0; i < 300; i++) zbuf_addstr(&b, "é"); /* 600 bytes */
  ztask_note_prompt(&t, b.data);
  assert_int_equal(strlen(t.objective), 512);
  ztask_note_prompt(&t, "second prompt");
  assert_int_equal(strlen(t.objective), 512);
  assert_string_equal(t.latest_request, "second prompt");
  json_t *meta = json_pack("{s:s}", "path", "/w/a.c");
  ztask_note_tool(&t, "write_file", true, meta, "ok");
  ztask_note_tool(&t, "exec_command", false, NULL, "boom");
  json_decref(meta);
  json_t *j = ztask_to_json(&t);
  ztask_state u;
  ztask_init(&u);
  ztask_from_json(&u, j);
  assert_string_equal(u.objective, t.objective);
  assert_int_equal(u.tool_ok, 1);
  assert_int_equal(u.tool_failed, 1);
  zbuf blk = ZBUF_INIT;
  ztask_preserved_block(&u, NULL, NULL, &blk);
  assert_non_null(strstr(blk.data, "Recent file edits: /w/a.c"));
  zbuf_release(&blk);
  json_decref(j);
  ztask_release(&t);
  ztask_release(&u);
  zbuf_release(&b);
}

static void test_search_query_becomes_quoted_terms_or_a_phrase(void **state) {
  (void)state;
  char *e = zsearch_fts_expr("  foo  bar-baz ");
  assert_string_equal(e, "\"foo\" \"bar-baz\"");
  free(e);
  e = zsearch_fts_expr("\"exact phrase\"");
  assert_string_equal(e, "\"exact phrase\"");
  free(e);
  e = zsearch_fts_expr("say \"hi");
  assert_string_equal(e, "\"say\" \"\"\"hi\"");
  free(e);
  assert_null(zsearch_fts_expr("   "));
  assert_null(zsearch_fts_expr("\"  \""));
}

/* ---- compactor with an in-process scripted provider ---------------------- */

typedef struct fake_prov {
  zprovider base;
  int calls;
  int fail_first; /* fail this many requests */
  char last_input[256];
} fake_prov;

static int fake_stream(zprovider *p, const zprov_request *req, zprov_event_fn fn, void *ud,
                       zerr *err) {
  fake_prov *fp = (fake_prov *)p;
  fp->calls++;
  snprintf(fp->last_input, sizeof fp->last_input, "%s",
           req->conv->len ? req->conv->items[0].content : "");
  if (fp->fail_first > 0) {
    fp->fail_first--;
    return zerr_set(err, ZE_PROVIDER, "model not found");
  }
  zprov_event ev = {.kind = ZPEV_TEXT, .text = "SUMMARY TEXT", .len = 12};
  fn(ud, &ev);
  zprov_event done = {.kind = ZPEV_DONE, .finish_reason = "stop"};
  fn(ud, &done);
  return 0;
}
static void fake_destroy(zprovider *p) { (void)p; }
static const zprovider_vtbl fake_vt = {"fake", fake_stream, fake_destroy};

static void build_conv(zconv *c, int reads, size_t out_bytes, bool same_args) {
  zconv_add_user(c, "the objective");
  zbuf out = ZBUF_INIT;
  for (size_t i = 0; i < out_bytes; i++) zbuf_addch(&out, (char)('a' + i % 26));
  for (int i = 0; i < reads; i++) {
    char id[16], args[64];
    snprintf(id, sizeof id, "c%d", i);
    snprintf(args, sizeof args, "{\"path\":\"f%d\"}", same_args ? 0 : i);
    zmsg *a = zconv_add_assistant(c, NULL, NULL);
    zmsg_add_call(a, id, "read_file", args);
    zconv_add_tool_result(c, id, "read_file", out.data, 0);
  }
  zbuf_release(&out);
}

static void test_under_threshold_nothing_happens(void **state) {
  (void)state;
  fake_prov main_p = {.base = {.vt = &fake_vt}};
  zcompactor c = {.window = 100000, .main = &main_p.base};
  zconv conv = ZCONV_INIT;
  build_conv(&conv, 3, 4000, false);
  assert_int_equal(zcompact_before_request(&c, &conv, "sys", NULL, NULL), 0);
  assert_int_equal(main_p.calls, 0);
  assert_int_equal(conv.len, 7);
  zconv_release(&conv);
}

static void test_dedupe_alone_is_enough_for_repeated_reads(void **state) {
  (void)state;
  fake_prov main_p = {.base = {.vt = &fake_vt}};
  /* 10 identical reads of 4000 bytes ≈ 10000 tokens; window 12000 → limit 8400. */
  zcompactor c = {.window = 12000, .main = &main_p.base};
  zconv conv = ZCONV_INIT;
  build_conv(&conv, 10, 4000, true);
  assert_int_equal(zcompact_before_request(&c, &conv, "sys", NULL, NULL), 1);
  assert_int_equal(main_p.calls, 0); /* free: no summary */
  assert_non_null(strstr(conv.items[2].content, "superseded"));
  assert_int_equal(strlen(conv.items[20].content), 4000); /* the newest is kept */
  assert_true(zcompact_estimate(&c, &conv, "sys", NULL) <= 8400);
  zconv_release(&conv);
}

static void test_prune_protects_the_newest_outputs(void **state) {
  (void)state;
  fake_prov main_p = {.base = {.vt = &fake_vt}};
  zcompactor c = {.window = 12000, .main = &main_p.base};
  zconv conv = ZCONV_INIT;
  build_conv(&conv, 10, 4000, false);
  assert_int_equal(zcompact_before_request(&c, &conv, "sys", NULL, NULL), 1);
  assert_int_equal(main_p.calls, 0);
  assert_non_null(strstr(conv.items[2].content, "removed to save context"));
  assert_int_equal(strlen(conv.items[18].content), 4000);
  assert_int_equal(strlen(conv.items[20].content), 4000);
  zconv_release(&conv);
}

static void test_summary_keeps_the_objective_and_falls_back_from_the_cheap_model(void **state) {
  fx *f = *state;
  fake_prov main_p = {.base = {.vt = &fake_vt}};
  fake_prov cheap_p = {.base = {.vt = &fake_vt}, .fail_first = 1};
  ztask_state task;
  ztask_init(&task);
  ztask_note_prompt(&task, "the objective");
  zerr err = ZERR_INIT;
  zsession *s = zsession_create(f->root, NULL, NULL, NULL, NULL, &err);
  /* Outputs too small to prune: only a summary can help. */
  zcompactor c = {.window = 4000, .main = &main_p.base, .cheap = &cheap_p.base,
                  .main_model = "big", .cheap_model = "small", .task = &task, .session = s};
  zconv conv = ZCONV_INIT;
  build_conv(&conv, 20, 900, false);
  assert_int_equal(zcompact_before_request(&c, &conv, "sys", NULL, &err), 1);
  /* The transcript is over the summarizer's input budget, so it is halved
   * and the summaries chained: several requests, all on the main model once
   * the cheap one failed. */
  assert_int_equal(cheap_p.calls, 1);
  assert_true(main_p.calls >= 2);
  int first_main = main_p.calls;
  assert_true(c.cheap_failed);
  assert_non_null(strstr(conv.items[0].content, "Objective: the objective"));
  assert_non_null(strstr(conv.items[0].content, "SUMMARY TEXT"));
  assert_true(zcompact_estimate(&c, &conv, "sys", NULL) <= 2800);
  assert_int_equal(conv.items[1].role, ZROLE_ASSISTANT);
  /* A second compaction goes straight to the main model. */
  build_conv(&conv, 20, 900, false);
  assert_int_equal(zcompact_before_request(&c, &conv, "sys", NULL, &err), 1);
  assert_int_equal(cheap_p.calls, 1);
  assert_true(main_p.calls > first_main);
  assert_non_null(strstr(conv.items[0].content, "Objective: the objective"));
  assert_int_equal(c.compactions, 2);
  zconv_release(&conv);
  char *id = xstrdup(s->id);
  zsession_close(s);
  assert_true(zsession_find_last(f->root, id, "session_compaction") > 0);
  free(id);
  ztask_release(&task);
}

static void test_usage_calibrates_the_estimate(void **state) {
  (void)state;
  zcompactor c = {.window = 100000};
  zconv conv = ZCONV_INIT;
  build_conv(&conv, 2, 4000, false);
  zcompact_before_request(&c, &conv, NULL, NULL, NULL);
  int64_t raw = c.last_raw;
  zcompact_observe_usage(&c, raw * 2);
  assert_true(zcompact_estimate(&c, &conv, NULL, NULL) >= raw * 2 - 1);
  zcompact_observe_usage(&c, raw * 2);
  assert_true(c.ratio > 1.9 && c.ratio < 2.1);
  zconv_release(&conv);
}

static void test_context_errors_are_recognised(void **state) {
  (void)state;
  zerr e = ZERR_INIT;
  zerr_set(&e, ZE_PROVIDER, "openai rejected the request (HTTP 400); the server said: This "
           "model's maximum context length is 8192 tokens");
  e.http_status = 400;
  assert_true(zcompact_is_context_error(&e));
  e.http_status = 500;
  assert_false(zcompact_is_context_error(&e));
  zerr_set(&e, ZE_PROVIDER, "rate limited");
  e.http_status = 400;
  assert_false(zcompact_is_context_error(&e));
}

static void test_checkpoint_then_rewind_restores_bytes(void **state) {
  fx *f = *state;
  zerr err = ZERR_INIT;
  zsession *s = zsession_create(f->root, NULL, NULL, NULL, NULL, &err);
  append_msg(s, "user", "go");
  char *file = zpath_join(f->tmp, "x.bin");
  FILE *fp = fopen(file, "wb");
  fwrite("\x00\x01old", 1, 5, fp);
  fclose(fp);
  chmod(file, 0751);
  zcheckpointer *ck = zcheckpointer_new(s, stderr);
  char *msg = NULL;
  assert_int_equal(zcheckpoint_before_write(ck, "write_file", file, &msg), 0);
  fp = fopen(file, "wb");
  fputs("new content", fp);
  fclose(fp);
  chmod(file, 0600);
  zcheckpointer_free(ck);
  char *id = xstrdup(s->id);
  zsession_close(s);
  json_t *plan = NULL;
  assert_int_equal(zsession_rewind(f->root, id, 1, false, &plan, &err), 0);
  json_decref(plan);
  char buf[16];
  fp = fopen(file, "rb");
  assert_int_equal(fread(buf, 1, sizeof buf, fp), 5);
  fclose(fp);
  assert_memory_equal(buf, "\x00\x01old", 5);
  struct stat st;
  stat(file, &st);
  assert_int_equal(st.st_mode & 07777, 0751);
  free(file);
  free(id);
}

/* The notify hook (stream-json "checkpoint", changedFiles) hears each
 * recorded snapshot with the session event's own sequence. */
typedef struct heard {
  int n;
  int64_t seq;
  char tool[32];
  char path[512];
} heard;

static void on_checkpoint(void *ud, int64_t seq, const char *tool, const char *path) {
  heard *h = ud;
  h->n++;
  h->seq = seq;
  snprintf(h->tool, sizeof h->tool, "%s", tool);
  snprintf(h->path, sizeof h->path, "%s", path);
}

static void test_checkpoint_notify_gets_the_event_sequence(void **state) {
  fx *f = *state;
  zerr err = ZERR_INIT;
  zsession *s = zsession_create(f->root, NULL, NULL, NULL, NULL, &err);
  append_msg(s, "user", "go");
  append_msg(s, "assistant", "ok");
  char *file = zpath_join(f->tmp, "n.txt");
  zcheckpointer *ck = zcheckpointer_new(s, stderr);
  heard h = {0};
  char *msg = NULL;
  assert_int_equal(zcheckpoint_before_write(ck, "edit_file", file, &msg), 0);
  assert_int_equal(h.n, 0); /* nobody asked */
  zcheckpointer_set_notify(ck, on_checkpoint, &h);
  assert_int_equal(zcheckpoint_before_write(ck, "edit_file", file, &msg), 0);
  assert_int_equal(h.n, 1);
  assert_int_equal(h.seq, s->sequence);
  assert_true(h.seq >= 4);
  assert_string_equal(h.tool, "edit_file");
  assert_string_equal(h.path, file);
  zcheckpointer_free(ck);
  zsession_close(s);
  free(file);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_second_open_is_refused_with_the_holder_pid, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_open_reads_only_the_tail_and_cuts_a_torn_line, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_fork_copies_events_without_usage_up_to_a_point, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_replay_starts_at_the_last_compaction, setup, teardown),
      cmocka_unit_test_setup_teardown(test_checkpoint_notify_gets_the_event_sequence, setup,
                                      teardown),
      cmocka_unit_test(test_plan_status_words_are_normalised),
      cmocka_unit_test(test_objective_is_cut_on_a_utf8_boundary_and_kept),
      cmocka_unit_test(test_search_query_becomes_quoted_terms_or_a_phrase),
      cmocka_unit_test(test_under_threshold_nothing_happens),
      cmocka_unit_test(test_dedupe_alone_is_enough_for_repeated_reads),
      cmocka_unit_test(test_prune_protects_the_newest_outputs),
      cmocka_unit_test_setup_teardown(
          test_summary_keeps_the_objective_and_falls_back_from_the_cheap_model, setup, teardown),
      cmocka_unit_test(test_usage_calibrates_the_estimate),
      cmocka_unit_test(test_context_errors_are_recognised),
      cmocka_unit_test_setup_teardown(test_checkpoint_then_rewind_restores_bytes, setup,
                                      teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
