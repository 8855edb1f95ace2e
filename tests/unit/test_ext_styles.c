/* test_ext_styles.c — output styles (ext/styles.h): the built-ins, user and
 * project files with front matter, which replaces which, the body read when
 * chosen, and bad files reported by path and skipped. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/common.h"
#include "base/fs.h"
#include "ext/styles.h"

typedef struct fixture {
  char root[64];
  char cfg[128], ws[128];
} fixture;

static void write_file(const char *dir, const char *name, const char *text) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  zerr err = ZERR_INIT;
  assert_int_equal(zfs_mkdir_p(dir, 0700, &err), 0);
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fputs(text, f);
  fclose(f);
}

static int setup(void **state) {
  fixture *fx = xcalloc(1, sizeof *fx);
  snprintf(fx->root, sizeof fx->root, "/tmp/zero-styles-XXXXXX");
  assert_non_null(mkdtemp(fx->root));
  snprintf(fx->cfg, sizeof fx->cfg, "%s/config", fx->root);
  snprintf(fx->ws, sizeof fx->ws, "%s/ws", fx->root);
  setenv("XDG_CONFIG_HOME", fx->cfg, 1);
  *state = fx;
  return 0;
}

static int teardown(void **state) {
  fixture *fx = *state;
  assert_int_equal(zfs_remove_tree(fx->root), 0);
  free(fx);
  return 0;
}

static void builtins_are_there_without_files(void **state) {
  fixture *fx = *state;
  zstyles ss;
  zstyles_load(&ss, fx->ws);
  assert_int_equal(ss.n, 3);
  assert_int_equal(ss.problems.nr, 0);
  const zstyle *d = zstyles_find(&ss, "default");
  assert_non_null(d);
  zerr err = ZERR_INIT;
  char *t = zstyle_text(d, &err);
  assert_string_equal(t, ""); /* default adds nothing */
  free(t);
  char *sec = zstyle_prompt_section("default", "");
  assert_string_equal(sec, "");
  free(sec);
  const zstyle *e = zstyles_find(&ss, "Explanatory"); /* case-insensitive */
  assert_non_null(e);
  t = zstyle_text(e, &err);
  assert_non_null(strstr(t, "Insight:"));
  sec = zstyle_prompt_section(e->name, t);
  assert_non_null(strstr(sec, "# Output style: explanatory"));
  assert_non_null(strstr(sec, t));
  free(sec);
  free(t);
  assert_non_null(zstyles_find(&ss, "learning"));
  assert_null(zstyles_find(&ss, "pirate"));
  zstyles_release(&ss);
}

static void files_add_and_replace_styles(void **state) {
  fixture *fx = *state;
  char user[256], proj[256];
  snprintf(user, sizeof user, "%s/zero/output-styles", fx->cfg);
  snprintf(proj, sizeof proj, "%s/.zero/output-styles", fx->ws);
  write_file(user, "pirate.md",
             "---\ndescription: talks like a pirate\n---\n\nAnswer as a pirate would.\n");
  write_file(user, "terse.md", "Answer in one line.\n"); /* no front matter: the file's name */
  write_file(proj, "review.md",
             "---\nname: team-review\ndescription: our review voice\n---\n"
             "Cite the line of every finding.\n");
  write_file(proj, "pirate.md", "---\ndescription: the project's pirate\n---\nArr, briefly.\n");
  write_file(user, "explanatory.md", "---\ndescription: mine\n---\nExplain with diagrams.\n");
  write_file(user, "notes.txt", "not a style");
  zstyles ss;
  zstyles_load(&ss, fx->ws);
  assert_int_equal(ss.problems.nr, 0);
  assert_int_equal(ss.n, 6); /* 3 built-ins + pirate, terse, team-review */
  zerr err = ZERR_INIT;
  const zstyle *p = zstyles_find(&ss, "pirate");
  assert_non_null(p);
  assert_true(p->project); /* the project's replaces the user's */
  assert_string_equal(p->description, "the project's pirate");
  char *t = zstyle_text(p, &err);
  assert_string_equal(t, "Arr, briefly.");
  free(t);
  const zstyle *r = zstyles_find(&ss, "team-review");
  assert_non_null(r);
  t = zstyle_text(r, &err);
  assert_string_equal(t, "Cite the line of every finding.");
  free(t);
  const zstyle *terse = zstyles_find(&ss, "terse");
  assert_non_null(terse);
  assert_string_equal(terse->description, "");
  const zstyle *e = zstyles_find(&ss, "explanatory"); /* a file replaces a built-in's text */
  assert_non_null(e);
  t = zstyle_text(e, &err);
  assert_string_equal(t, "Explain with diagrams.");
  free(t);
  zstyles_release(&ss);
}

static void bad_files_are_reported_and_skipped(void **state) {
  fixture *fx = *state;
  char proj[256];
  snprintf(proj, sizeof proj, "%s/.zero/output-styles", fx->ws);
  write_file(proj, "broken.md", "---\ndescription: [unclosed\n---\nbody\n");
  write_file(proj, "default.md", "Replace the default.\n");
  write_file(proj, "spaced.md", "---\nname: two words\n---\nbody\n");
  write_file(proj, "fine.md", "Fine.\n");
  zstyles ss;
  zstyles_load(&ss, fx->ws);
  assert_int_equal(ss.problems.nr, 3);
  zbuf all = ZBUF_INIT;
  for (size_t i = 0; i < ss.problems.nr; i++) zbuf_addf(&all, "%s\n", ss.problems.v[i]);
  assert_non_null(strstr(all.data, "broken.md: line"));
  assert_non_null(strstr(all.data, "default.md: \"default\" is the built-in default"));
  assert_non_null(strstr(all.data, "spaced.md: \"two words\" is not a usable style name"));
  zbuf_release(&all);
  assert_non_null(zstyles_find(&ss, "fine"));
  assert_null(zstyles_find(&ss, "broken"));
  zerr err = ZERR_INIT;
  char *t = zstyle_text(zstyles_find(&ss, "default"), &err);
  assert_string_equal(t, "");
  free(t);
  /* a file that went away after the listing: an error, not a crash */
  const zstyle *f = zstyles_find(&ss, "fine");
  char path[512];
  snprintf(path, sizeof path, "%s/fine.md", proj);
  assert_int_equal(unlink(path), 0);
  assert_null(zstyle_text(f, &err));
  assert_true(err.msg[0] != 0);
  zstyles_release(&ss);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(builtins_are_there_without_files, setup, teardown),
      cmocka_unit_test_setup_teardown(files_add_and_replace_styles, setup, teardown),
      cmocka_unit_test_setup_teardown(bad_files_are_reported_and_skipped, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
