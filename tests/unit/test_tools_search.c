/* test_tools_search.c — glob matching, the ignore-aware walk, and grep/glob
 * checked against ripgrep (rg) on the same trees: identical file sets and
 * match counts, nested ignore files and negated patterns included. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "base/json.h"
#include "tools/walk.h"
#include "test_tools_util.h"

static void glob_matching_rules(void **state) {
  (void)state;
  assert_true(zglob_match("*.c", "main.c", false));
  assert_false(zglob_match("*.c", "src/main.c", false));
  assert_true(zglob_match("**/*.c", "src/main.c", false));
  assert_true(zglob_match("**/*.c", "main.c", false));
  assert_true(zglob_match("src/**", "src/a/b/c", false));
  assert_false(zglob_match("src/**", "srcx/a", false));
  assert_true(zglob_match("a/**/b", "a/b", false));
  assert_true(zglob_match("a/**/b", "a/x/y/b", false));
  assert_true(zglob_match("*.{c,h}", "x.h", false));
  assert_false(zglob_match("*.{c,h}", "x.o", false));
  assert_true(zglob_match("src/**/*.{ts,tsx}", "src/a/b.tsx", false));
  assert_true(zglob_match("[a-c]?.txt", "bz.txt", false));
  assert_false(zglob_match("[!a-c]?.txt", "bz.txt", false));
  assert_true(zglob_match("\\*.txt", "*.txt", false));
  assert_false(zglob_match("\\*.txt", "a.txt", false));
  assert_true(zglob_match("README*", "readme.md", true));
  assert_false(zglob_match("?", "/", false));
  assert_true(zglob_match("[", "[", false)); /* a malformed class is literal */
  /* Regression (fuzz_glob): many globstars once backtracked exponentially;
   * the corpus file tests/fixtures/fuzz_glob/globstar-blowup replays it. */
  assert_true(zglob_match("**/**/**/**/**/**/**/**/**/**/**/**/x", "a/b/c/d/e/f/g/h/i/x", false));
  assert_false(zglob_match("**/*a*/**/*b*/**/*c*/**/*d*/**/*e*/**/*f*/**/*z",
                           "a/b/c/d/e/f/a/b/c/d/e/f/a/b/c/d/e/f/a/b/c/d/e/f/y", false));
}

/* Runs a shell command in dir; returns its stdout lines sorted (caller frees).
 * stdin is /dev/null: rg given no path searches a stdin that is not a
 * terminal instead of the current directory, and under `make -j` stdin is a
 * pipe (a regression: the comparison with rg then found nothing). */
static char *sh_sorted(const char *dir, const char *cmd) {
  zbuf full = ZBUF_INIT;
  zbuf_addf(&full, "cd '%s' && (%s) </dev/null | LC_ALL=C sort", dir, cmd);
  FILE *p = popen(full.data, "r");
  assert_non_null(p);
  zbuf out = ZBUF_INIT;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) zbuf_add(&out, buf, n);
  pclose(p);
  zbuf_release(&full);
  return zbuf_detach(&out, NULL);
}

static char *sorted_lines(const char *text) {
  char *path = NULL;
  char tmpl[] = "/tmp/zero-sort-XXXXXX";
  int fd = mkstemp(tmpl);
  assert_true(fd >= 0);
  assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
  if (strlen(text) && text[strlen(text) - 1] != '\n') assert_int_equal(write(fd, "\n", 1), 1);
  close(fd);
  path = tmpl;
  char cmd[128];
  snprintf(cmd, sizeof cmd, "cat %s", path);
  char *r = sh_sorted("/", cmd);
  unlink(path);
  return r;
}

static bool have_rg(void) { return system("rg --version >/dev/null 2>&1") == 0; }

static void build_tree(tfx *f) {
  tfx_write_str(f, ".gitignore", "*.log\nbuild/\n/top-only.txt\n!keep.log\nsecret*\n");
  tfx_write_str(f, ".git/info/exclude", "excluded-by-info.txt\n");
  tfx_write_str(f, "a.c", "int main() { return needle(); }\n// needle again\n");
  tfx_write_str(f, "b.log", "needle in a log\n");
  tfx_write_str(f, "keep.log", "needle kept\n");
  tfx_write_str(f, "top-only.txt", "needle top\n");
  tfx_write_str(f, "excluded-by-info.txt", "needle\n");
  tfx_write_str(f, "secret.env", "needle\n");
  tfx_write_str(f, "build/out.c", "needle\n");
  tfx_write_str(f, ".hidden/x.c", "needle\n");
  tfx_write_str(f, ".dotfile", "needle\n");
  tfx_write_str(f, "src/top-only.txt", "needle nested is fine\n");
  tfx_write_str(f, "src/lib.c", "NEEDLE upper\nneedle lower\nno\n");
  tfx_write_str(f, "src/.gitignore", "generated/\n*.tmp\n!important.tmp\n");
  tfx_write_str(f, "src/x.tmp", "needle\n");
  tfx_write_str(f, "src/important.tmp", "needle\n");
  tfx_write_str(f, "src/generated/g.c", "needle\n");
  tfx_write_str(f, "src/deep/er/z.h", "needle(1)\nneedle(2)\nneedle(3)\n");
  tfx_write_str(f, "src/deep/.ignore", "*.h\n!keep.h\n");
  tfx_write_str(f, "src/deep/keep.h", "needle\n");
  tfx_write(f, "bin.dat", "needle\0binary", 13);
  tfx_write_str(f, "docs/a.md", "nothing here\n");
  tfx_write_str(f, "docs/.ignore", "!*.md\n");
  tfx_write_str(f, "unicode.txt", "caf\xc3\xa9 needle\n");
  tfx_write_str(f, "src/calls.c", "needle(1)\nneedle(22)\nx needle(3) y\n");
}

static void grep_and_glob_agree_with_ripgrep(void **state) {
  tfx *f = *state;
  if (!have_rg()) {
    print_message("rg not installed; skipping the comparison\n");
    skip();
  }
  build_tree(f);
  struct { const char *ours; const char *rg; } cases[] = {
      {"{\"pattern\":\"needle\",\"head_limit\":100000}", "rg -l needle"},
      {"{\"pattern\":\"needle\",\"output_mode\":\"count\",\"head_limit\":100000}", "rg -c needle"},
      {"{\"pattern\":\"needle\\\\(\\\\d\\\\)\",\"output_mode\":\"count\",\"head_limit\":100000}",
       "rg -c 'needle\\(\\d\\)'"},
      {"{\"pattern\":\"NEEDLE\",\"case_insensitive\":true,\"output_mode\":\"count\","
       "\"head_limit\":100000}", "rg -i -c NEEDLE"},
      {"{\"pattern\":\"^needle\",\"output_mode\":\"content\",\"head_limit\":100000}",
       "rg -n --no-heading --with-filename '^needle'"},
      {"{\"pattern\":\"needle\",\"glob\":\"*.c\",\"head_limit\":100000}",
       "rg -l needle | grep '\\.c$'"},
      {"{\"pattern\":\"needle\",\"path\":\"src\",\"head_limit\":100000}", "rg -l needle src"},
  };
  for (size_t i = 0; i < ZARRAY_LEN(cases); i++) {
    assert_int_equal(tfx_run(f, "grep", "%s", cases[i].ours), 0);
    const char *text = strncmp(f->res.output.data, "No matches", 10) ? f->res.output.data : "";
    char *ours = sorted_lines(text);
    char *theirs = sh_sorted(f->ws, cases[i].rg);
    if (strcmp(ours, theirs))
      fail_msg("grep %s differs from `%s`:\n--- ours\n%s--- rg\n%s", cases[i].ours, cases[i].rg,
               ours, theirs);
    free(ours);
    free(theirs);
  }
  /* glob = the walk rg does (ignore rules, hidden skipped) filtered by the
   * pattern. (rg -g is different on purpose: its globs re-include ignored
   * and hidden files, down to .git/ for "*".) */
  const char *globs[] = {"*", "**/*.c", "*.{c,h}", "src/**", "src/*.c", "*.log"};
  char *all = sh_sorted(f->ws, "rg --files");
  for (size_t i = 0; i < ZARRAY_LEN(globs); i++) {
    assert_int_equal(tfx_run(f, "glob", "{\"pattern\":\"%s\",\"limit\":1000}", globs[i]), 0);
    const char *text = strncmp(f->res.output.data, "No files", 8) ? f->res.output.data : "";
    char *ours = sorted_lines(text);
    zbuf want = ZBUF_INIT;
    bool slash = strchr(globs[i], '/') != NULL;
    char *copy = xstrdup(all);
    char *pos = NULL;
    for (char *line = strtok_r(copy, "\n", &pos); line; line = strtok_r(NULL, "\n", &pos)) {
      const char *base = strrchr(line, '/') ? strrchr(line, '/') + 1 : line;
      if (zglob_match(globs[i], slash ? line : base, false)) zbuf_addf(&want, "%s\n", line);
    }
    free(copy);
    if (strcmp(ours, want.data))
      fail_msg("glob %s differs from rg --files filtered by it:\n--- ours\n%s--- rg\n%s",
               globs[i], ours, want.data);
    free(ours);
    zbuf_release(&want);
  }
  free(all);
}

static void grep_content_context_and_limits(void **state) {
  tfx *f = *state;
  tfx_write_str(f, "f.txt", "one\ntwo\nthree match\nfour\nfive\nsix\nseven match\neight\n");
  assert_int_equal(tfx_run(f, "grep", "{\"pattern\":\"match\",\"output_mode\":\"content\","
                                      "\"context\":1}"), 0);
  assert_string_equal(f->res.output.data,
                      "f.txt-2-two\nf.txt:3:three match\nf.txt-4-four\n--\n"
                      "f.txt-6-six\nf.txt:7:seven match\nf.txt-8-eight");
  assert_int_equal(tfx_run(f, "grep", "{\"pattern\":\"match\",\"output_mode\":\"content\","
                                      "\"head_limit\":1}"), 0);
  assert_string_equal(f->res.output.data,
                      "f.txt:3:three match\n[showing 1 of 2 lines; narrow path or glob, or raise "
                      "head_limit]");
  assert_int_equal(tfx_run(f, "grep", "{\"pattern\":\"nomatch\"}"), 0);
  assert_string_equal(f->res.output.data, "No matches for /nomatch/ in ..");
  assert_int_equal(tfx_run(f, "grep", "{\"pattern\":\"(\"}"), -1);
  assert_output_contains(f, "invalid regular expression");
  /* A match may not run across lines. */
  assert_int_equal(tfx_run(f, "grep", "{\"pattern\":\"two\\\\s+three\",\"output_mode\":\"count\"}"), 0);
  assert_string_equal(f->res.output.data, "No matches for /two\\s+three/ in ..");
}

static bool deny_secret(void *ud, const char *abs) {
  (void)ud;
  return strstr(abs, "/private") != NULL;
}

static void denied_paths_are_never_searched(void **state) {
  tfx *f = *state;
  tfx_write_str(f, "private/key.txt", "needle\n");
  tfx_write_str(f, "public/a.txt", "needle\n");
  f->ctx.read_guard.denied = deny_secret;
  assert_int_equal(tfx_run(f, "grep", "{\"pattern\":\"needle\"}"), 0);
  assert_string_equal(f->res.output.data, "public/a.txt");
  assert_int_equal(tfx_run(f, "glob", "{\"pattern\":\"*.txt\"}"), 0);
  assert_string_equal(f->res.output.data, "public/a.txt");
  assert_int_equal(tfx_run(f, "grep", "{\"pattern\":\"needle\",\"path\":\"private\"}"), -1);
  assert_output_contains(f, "denied by the sandbox policy");
}

/* The tools that show a file's content refuse a denied file too, also
 * through a symlink in the workspace (read_file used to read it). */
static void denied_files_are_never_shown(void **state) {
  tfx *f = *state;
  tfx_write_str(f, "private/key.txt", "needle\n");
  char *target = tfx_path(f, "private/key.txt");
  char *link = tfx_path(f, "innocent.txt");
  assert_int_equal(symlink(target, link), 0);
  free(target);
  free(link);
  f->ctx.read_guard.denied = deny_secret;
  const char *calls[][2] = {
      {"read_file", "{\"path\":\"private/key.txt\"}"},
      {"read_file", "{\"path\":\"innocent.txt\"}"},
      {"read_file", "{\"path\":\"innocent.txt\",\"byte_limit\":10}"},
      {"view_image", "{\"path\":\"innocent.txt\"}"},
      {"edit_file", "{\"path\":\"private/key.txt\",\"old_string\":\"nope\",\"new_string\":\"x\"}"},
      {"apply_patch", "{\"input\":\"*** Begin Patch\\n*** Update File: private/key.txt\\n"
                      "-nope\\n+x\\n*** End Patch\"}"},
  };
  for (size_t i = 0; i < ZARRAY_LEN(calls); i++) {
    assert_int_equal(tfx_run(f, calls[i][0], "%s", calls[i][1]), -1);
    assert_output_contains(f, "denied by the sandbox policy");
    if (strstr(f->res.output.data, "needle")) fail_msg("%s showed the denied file", calls[i][0]);
  }
}

static void glob_limit_and_sorting(void **state) {
  tfx *f = *state;
  for (int i = 0; i < 120; i++) {
    char name[32];
    snprintf(name, sizeof name, "d/f%03d.txt", i);
    tfx_write_str(f, name, "");
  }
  assert_int_equal(tfx_run(f, "glob", "{\"pattern\":\"*.txt\"}"), 0);
  assert_true(strncmp(f->res.output.data, "d/f000.txt\nd/f001.txt\n", 22) == 0);
  assert_output_contains(f, "[showing 100 of 120 files");
  assert_int_equal(tfx_run(f, "glob", "{\"pattern\":\"*.txt\",\"limit\":2000}"), -1);
}

static void list_directory_does_not_expand_generated_dirs(void **state) {
  tfx *f = *state;
  tfx_write_str(f, "node_modules/pkg/index.js", "x");
  tfx_write_str(f, "src/main.c", "x");
  tfx_write_str(f, "private/k", "x");
  f->ctx.read_guard.denied = deny_secret;
  assert_int_equal(tfx_run(f, "list_directory", "{\"recursive\":true}"), 0);
  assert_string_equal(f->res.output.data,
                      "Contents of .:\n\nnode_modules/ (not expanded)\nsrc/\n  main.c");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(glob_matching_rules),
      TFX_TEST(grep_and_glob_agree_with_ripgrep),
      TFX_TEST(grep_content_context_and_limits),
      TFX_TEST(denied_files_are_never_shown),
      TFX_TEST(denied_paths_are_never_searched),
      TFX_TEST(glob_limit_and_sorting),
      TFX_TEST(list_directory_does_not_expand_generated_dirs),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
