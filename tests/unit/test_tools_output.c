/* test_tools_output.c — redaction, per-tool budgets and spill files. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <time.h>

#include "base/json.h"
#include "base/redact.h"
#include "tools/output.h"
#include "test_tools_util.h"

static char *redacted(const char *in, size_t *count) {
  zbuf b = ZBUF_INIT;
  zbuf_addstr(&b, in);
  size_t n = zredact(&b);
  if (count) *count = n;
  return zbuf_detach(&b, NULL);
}

#define assert_redacts(in, want)                  \
  do {                                            \
    char *got_ = redacted((in), NULL);            \
    assert_string_equal(got_, (want));            \
    free(got_);                                   \
  } while (0)

static void provider_keys_are_redacted(void **state) {
  (void)state;
  assert_redacts("key sk-proj-abcdefghijklmnopqrstuvwxyz012345 end",
                 "key [REDACTED:openai-key] end");
  assert_redacts("sk-ant-api03-abcdefghijklmnopqrstuvwxyz-0123456789",
                 "[REDACTED:anthropic-key]");
  assert_redacts("token ghp_abcdefghijklmnopqrstuvwxyz0123456789 x",
                 "token [REDACTED:github-token] x");
  assert_redacts("AIzaSyA-abcdefghijklmnopqrstuvwxyz12345", "[REDACTED:google-key]");
  assert_redacts("id AKIAIOSFODNN7EXAMPLE.", "id [REDACTED:aws-access-key].");
  assert_redacts("xoxb-123456789012-abcdefghij", "[REDACTED:slack-token]");
  assert_redacts("sk_live_abcdefghijklmnop1234", "[REDACTED:stripe-key]");
  assert_redacts("hf_abcdefghijklmnopqrstuvwxyz0123456", "[REDACTED:huggingface-token]");
  /* Not secrets: left alone. */
  assert_redacts("the task-list and sk-short are fine", "the task-list and sk-short are fine");
}

static void bearer_env_and_json_keep_their_names(void **state) {
  (void)state;
  assert_redacts("Authorization: Bearer abcdefghijklmnop.qrstuvwx",
                 "Authorization: Bearer [REDACTED:bearer-token]");
  assert_redacts("DB_PASSWORD=hunter2hunter\nPATH=/usr/bin\n",
                 "DB_PASSWORD=[REDACTED:env-secret]\nPATH=/usr/bin\n");
  assert_redacts("export API_TOKEN=\"abcd1234\"", "export API_TOKEN=\"[REDACTED:env-secret]\"");
  assert_redacts("{\"api_key\": \"s3cr3tvalue\", \"name\": \"x\"}",
                 "{\"api_key\": \"[REDACTED:json-secret]\", \"name\": \"x\"}");
}

/* .env-style assignments behind read_file's and grep's line prefixes are
 * redacted too (only raw command output was); code is left readable. */
static void env_assignments_are_redacted_in_read_and_grep_output(void **state) {
  (void)state;
  assert_redacts("File: .env (2 lines)\n\n1 | DB_PASSWORD=hunter2hunter\n2 | PATH=/usr/bin\n",
                 "File: .env (2 lines)\n\n1 | DB_PASSWORD=[REDACTED:env-secret]\n"
                 "2 | PATH=/usr/bin\n");
  assert_redacts(" 9 | export API_TOKEN=\"abcd1234\"\n10 | password: s3cr3t!x",
                 " 9 | export API_TOKEN=\"[REDACTED:env-secret]\"\n10 | password: "
                 "[REDACTED:env-secret]");
  assert_redacts("app/.env:3:SECRET_KEY=abcdefgh123\napp/.env-4-AWS_SECRET_ACCESS_KEY = wJalrXUt",
                 "app/.env:3:SECRET_KEY=[REDACTED:env-secret]\n"
                 "app/.env-4-AWS_SECRET_ACCESS_KEY = [REDACTED:env-secret]");
  /* Code is not a secret. */
  const char *code = "12 |     token = load_token(path)\n13 |     api_key = os.environ[\"K\"]\n"
                     "14 |     key = cfg.get_key()\nsrc/a.py:7:PASSWORD = None\n";
  assert_redacts(code, code);
  assert_redacts("TOKEN=eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl",
                 "TOKEN=[REDACTED:env-secret]");
}

static void private_key_blocks_are_redacted_whole(void **state) {
  (void)state;
  assert_redacts("a\n-----BEGIN RSA PRIVATE KEY-----\nMIIEabc\nsk-proj-abcdefghijklmnopqrstuvwxyz\n"
                 "-----END RSA PRIVATE KEY-----\nb",
                 "a\n[REDACTED:private-key]\nb");
  /* A truncated block (no END line) is still hidden to the end. */
  assert_redacts("-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk", "[REDACTED:private-key]");
}

/* Longest first: an env assignment whose value is a provider key is one
 * redaction, not two overlapping ones that corrupt each other. */
static void nested_matches_do_not_corrupt(void **state) {
  (void)state;
  size_t n = 0;
  char *got = redacted("OPENAI_API_KEY=sk-proj-abcdefghijklmnopqrstuvwxyz012345\n", &n);
  assert_int_equal(n, 1);
  assert_string_equal(got, "OPENAI_API_KEY=[REDACTED:openai-key]\n");
  free(got);
  got = redacted("-----BEGIN PRIVATE KEY-----\nAPI_KEY=abcdefgh\n-----END PRIVATE KEY-----", &n);
  assert_int_equal(n, 1);
  assert_string_equal(got, "[REDACTED:private-key]");
  free(got);
}

/* Regression: an env assignment of a provider key once matched twice with the
 * same span, and the kind shown depended on qsort's order; and redacting an
 * already redacted text redacted the marker itself. */
static void redaction_is_deterministic_and_idempotent(void **state) {
  (void)state;
  const char *in = "TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123456789\n"
                   "Authorization: Bearer sk-proj-abcdefghijklmnopqrstuvwxyz\n"
                   "{\"password\": \"correct horse\"}";
  char *once = redacted(in, NULL);
  assert_string_equal(once, "TOKEN=[REDACTED:github-token]\n"
                            "Authorization: Bearer [REDACTED:openai-key]\n"
                            "{\"password\": \"[REDACTED:json-secret]\"}");
  size_t n = 9;
  char *twice = redacted(once, &n);
  assert_int_equal(n, 0);
  assert_string_equal(twice, once);
  free(once);
  free(twice);
}

/* Regression (found by fuzz_html): two header values that overlap
 * ("authorization:" whose value runs into "cookie:…") were resolved by keeping
 * the longer match alone; the part of the shorter one outside it stayed, and
 * a second redaction matched it again beside the marker. Overlaps are now
 * one redacted span, their union, named by the longer match. */
static void overlapping_matches_are_redacted_as_one_span(void **state) {
  (void)state;
  const char *in = "x authorization::z::C::cookie::2:abc def ghi jkl mno\nnext";
  char *once = redacted(in, NULL);
  assert_string_equal(once, "x authorization:[REDACTED:secret-header]\nnext");
  size_t n = 9;
  char *twice = redacted(once, &n);
  assert_int_equal(n, 0);
  assert_string_equal(twice, once);
  free(once);
  free(twice);
}

static void tool_output_is_redacted_before_the_model_sees_it(void **state) {
  tfx *f = *state;
  tfx_write_str(f, "config.json", "{\"token\": \"abcdefgh12345\"}\n");
  assert_int_equal(tfx_run(f, "read_file", "{\"path\":\"config.json\"}"), 0);
  assert_output_lacks(f, "abcdefgh12345");
  assert_int_equal(zjson_int_or(f->res.meta, "redacted", 0), 1);
}

static void budget_cut_spills_the_whole_text(void **state) {
  (void)state;
  zbuf b = ZBUF_INIT;
  for (int i = 0; i < 5000; i++) zbuf_addf(&b, "line %d\n", i);
  size_t total = b.len;
  char *spill = NULL;
  assert_true(zt_budget_cut("grep", &b, 2000, &spill));
  assert_true(b.len <= 2000 + 400);
  assert_non_null(spill);
  assert_non_null(strstr(b.data, spill));
  assert_true(strncmp(b.data, "line 0\n", 7) == 0);
  assert_true(zbuf_ends_with(&b, "line 4999\n"));
  struct stat st;
  assert_int_equal(stat(spill, &st), 0);
  assert_int_equal(st.st_mode & 0777, 0600);
  assert_int_equal((size_t)st.st_size, total);
  char *dir = zt_spill_dir();
  assert_true(strncmp(spill, dir, strlen(dir)) == 0);
  struct stat dst;
  assert_int_equal(stat(dir, &dst), 0);
  assert_int_equal(dst.st_mode & 0777, 0700);
  unlink(spill);
  free(spill);
  free(dir);
  zbuf_release(&b);
}

static void old_spill_files_are_cleaned(void **state) {
  (void)state;
  char *dir = zt_spill_dir();
  mkdir(dir, 0700);
  char old[512];
  snprintf(old, sizeof old, "%s/old-test-spill", dir);
  FILE *fp = fopen(old, "w");
  assert_non_null(fp);
  fclose(fp);
  struct timespec ts[2] = {{time(NULL) - 8 * 24 * 3600, 0}, {time(NULL) - 8 * 24 * 3600, 0}};
  assert_int_equal(utimensat(AT_FDCWD, old, ts, 0), 0);
  char *p = zt_spill("test", "x", 1, NULL);
  assert_non_null(p);
  assert_int_equal(access(old, F_OK), -1);
  unlink(p);
  free(p);
  free(dir);
}

static void search_output_has_its_own_budget(void **state) {
  tfx *f = *state;
  zbuf big = ZBUF_INIT;
  for (int i = 0; i < 20000; i++) zbuf_addf(&big, "match number %d here\n", i);
  tfx_write(f, "big.txt", big.data, big.len);
  zbuf_release(&big);
  assert_int_equal(tfx_run(f, "grep", "{\"pattern\":\"match\",\"output_mode\":\"content\","
                                      "\"head_limit\":100000}"), 0);
  assert_true(f->res.truncated);
  assert_true(f->res.output.len <= zt_budget_tokens("grep") * ZT_BYTES_PER_TOKEN + 512);
  assert_output_contains(f, "The full output is in ");
}

/* The cut keeps whole lines when a line end is near (head pulled back into
 * its last quarter, tail moved into its first half) and never splits a UTF-8
 * sequence; apply puts the notice on a line of its own. */
static void cut_points_follow_lines_and_utf8(void **state) {
  (void)state;
  char lines[101];
  for (int i = 0; i < 100; i++) lines[i] = i % 10 == 9 ? '\n' : 'x';
  lines[100] = '\0';
  zt_cut c = zt_cut_find(lines, 100, 45, 25);
  assert_int_equal(c.head, 40);    /* after the newline at 39, not at 45 */
  assert_int_equal(c.tail_at, 80); /* after the newline at 79, not at 75 */
  const char *u = "abc\xC3\xA9";   /* "abcé" */
  c = zt_cut_find(u, 5, 4, 1);
  assert_int_equal(c.head, 3);    /* before the é, not inside it */
  assert_int_equal(c.tail_at, 5); /* past its continuation byte */
  zbuf t = ZBUF_INIT;
  zbuf_addstr(&t, "abcdefgh");
  zt_cut_apply(&t, (zt_cut){.head = 2, .tail_at = 6}, "[cut]\n");
  assert_string_equal(t.data, "ab\n[cut]\ngh");
  zbuf_release(&t);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(provider_keys_are_redacted),
      cmocka_unit_test(bearer_env_and_json_keep_their_names),
      cmocka_unit_test(env_assignments_are_redacted_in_read_and_grep_output),
      cmocka_unit_test(private_key_blocks_are_redacted_whole),
      cmocka_unit_test(nested_matches_do_not_corrupt),
      cmocka_unit_test(redaction_is_deterministic_and_idempotent),
      cmocka_unit_test(overlapping_matches_are_redacted_as_one_span),
      TFX_TEST(tool_output_is_redacted_before_the_model_sees_it),
      cmocka_unit_test(budget_cut_spills_the_whole_text),
      cmocka_unit_test(old_spill_files_are_cleaned),
      cmocka_unit_test(cut_points_follow_lines_and_utf8),
      TFX_TEST(search_output_has_its_own_budget),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
