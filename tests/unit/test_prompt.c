/* test_prompt.c — system prompt: instruction discovery and caps, symlink
 * containment, git root / branch reading, session and environment blocks. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "agent/prompt.h"
#include "base/buf.h"
#include "base/common.h"
#include "base/fs.h"
#include "base/json.h"
#include "base/path.h"

/* ---- fixture: a fresh temp dir with HOME and XDG_CONFIG_HOME inside it ---- */

typedef struct fixture {
  char *tmp;     /* the temp dir (resolved) */
  char *cfg;     /* $XDG_CONFIG_HOME/zero */
} fixture;

static int setup(void **state) {
  char tmpl[] = "/tmp/zero-prompt-XXXXXX";
  char *made = mkdtemp(tmpl);
  if (!made) return -1;
  fixture *f = xcalloc(1, sizeof *f);
  f->tmp = realpath(made, NULL);
  char *home = zpath_join(f->tmp, "home");
  char *xdg = zpath_join(home, ".config");
  setenv("HOME", home, 1);
  setenv("XDG_CONFIG_HOME", xdg, 1);
  f->cfg = zpath_config_dir();
  free(home);
  free(xdg);
  *state = f;
  return 0;
}

static int rm_entry(const char *p, const struct stat *st, int flag, struct FTW *ftw) {
  (void)st, (void)flag, (void)ftw;
  return remove(p);
}

static int teardown(void **state) {
  fixture *f = *state;
  nftw(f->tmp, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
  free(f->tmp);
  free(f->cfg);
  free(f);
  return 0;
}

/* Writes content to tmp/rel, creating parent directories. */
static void put(const fixture *f, const char *rel, const char *content) {
  char *path = zpath_join(f->tmp, rel);
  char *dir = xstrdup(path);
  *strrchr(dir, '/') = '\0';
  assert_int_equal(zfs_mkdir_p(dir, 0755, NULL), 0);
  assert_int_equal(zfs_write_atomic(path, content, strlen(content), 0644, NULL), 0);
  free(dir);
  free(path);
}

static void mkdirs(const fixture *f, const char *rel) {
  char *path = zpath_join(f->tmp, rel);
  assert_int_equal(zfs_mkdir_p(path, 0755, NULL), 0);
  free(path);
}

static char *at(const fixture *f, const char *rel) { return zpath_join(f->tmp, rel); }

/* Builds the prompt with cwd = tmp/rel. */
static char *build(const fixture *f, const char *rel, json_t **sources) {
  char *cwd = at(f, rel);
  zprompt_opts o = {.cwd = cwd};
  char *p = zprompt_build(&o, sources);
  free(cwd);
  assert_non_null(p);
  return p;
}

static size_t count(const char *hay, const char *needle) {
  size_t n = 0;
  for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle)) n++;
  return n;
}

/* Builds a file of `lines` lines, each `width` bytes including the newline. */
static char *lines_of(size_t lines, size_t width, char fill) {
  zbuf b = ZBUF_INIT;
  for (size_t i = 0; i < lines; i++) {
    zbuf_addf(&b, "%06zu ", i);
    for (size_t k = 7; k + 1 < width; k++) zbuf_addch(&b, fill);
    zbuf_addch(&b, '\n');
  }
  return zbuf_detach(&b, NULL);
}

/* ---- instruction discovery ----------------------------------------------- */

static void instructions_are_read_root_to_cwd_then_user(void **state) {
  fixture *f = *state;
  mkdirs(f, "repo/.git");
  put(f, "repo/.git/HEAD", "ref: refs/heads/main\n");
  put(f, "repo/AGENTS.md", "ROOT-RULES\n");
  put(f, "repo/a/ZERO.md", "LEVEL-A-RULES\n");
  put(f, "repo/a/b/.zero/AGENTS.md", "LEVEL-B-RULES\n");
  put(f, "home/.config/zero/ZERO.md", "USER-RULES\n");

  json_t *src = NULL;
  char *p = build(f, "repo/a/b", &src);

  const char *r = strstr(p, "## Project instructions (AGENTS.md)\nROOT-RULES");
  const char *a = strstr(p, "## Project instructions (a/ZERO.md)\nLEVEL-A-RULES");
  const char *b = strstr(p, "## Project instructions (a/b/.zero/AGENTS.md)\nLEVEL-B-RULES");
  char *user_path = zpath_join(f->cfg, "ZERO.md");
  zbuf label = ZBUF_INIT;
  zbuf_addf(&label, "## Project instructions (%s)\nUSER-RULES", user_path);
  const char *u = strstr(p, label.data);
  assert_non_null(r);
  assert_non_null(a);
  assert_non_null(b);
  assert_non_null(u);
  assert_true(r < a && a < b && b < u);
  /* Instructions come after the environment block. */
  assert_true(strstr(p, "</environment>") < r);

  assert_non_null(src);
  assert_int_equal(json_array_size(src), 4);
  char *e0 = at(f, "repo/AGENTS.md"), *e1 = at(f, "repo/a/ZERO.md"),
       *e2 = at(f, "repo/a/b/.zero/AGENTS.md");
  assert_string_equal(json_string_value(json_array_get(src, 0)), e0);
  assert_string_equal(json_string_value(json_array_get(src, 1)), e1);
  assert_string_equal(json_string_value(json_array_get(src, 2)), e2);
  assert_string_equal(json_string_value(json_array_get(src, 3)), user_path);
  free(e0), free(e1), free(e2);
  free(user_path);
  zbuf_release(&label);
  json_decref(src);
  free(p);
}

static void first_existing_file_wins_at_each_level(void **state) {
  fixture *f = *state;
  mkdirs(f, "repo/.git");
  put(f, "repo/AGENTS.md", "AGENTS-WINS\n");
  put(f, "repo/ZERO.md", "PLAIN-ZERO-LOSES\n");
  put(f, "repo/.zero/AGENTS.md", "HIDDEN-DIR-LOSES\n");
  put(f, "repo/sub/ZERO.md", "PLAIN-ZERO-WINS\n");
  put(f, "repo/sub/.zero/AGENTS.md", "HIDDEN-DIR-LOSES-TOO\n");
  put(f, "repo/sub/deep/.zero/AGENTS.md", "HIDDEN-DIR-WINS\n");

  json_t *src = NULL;
  char *p = build(f, "repo/sub/deep", &src);
  assert_non_null(strstr(p, "AGENTS-WINS"));
  assert_non_null(strstr(p, "## Project instructions (AGENTS.md)\nAGENTS-WINS"));
  assert_non_null(strstr(p, "## Project instructions (sub/ZERO.md)\nPLAIN-ZERO-WINS"));
  assert_non_null(strstr(p, "## Project instructions (sub/deep/.zero/AGENTS.md)\nHIDDEN-DIR-WINS"));
  assert_null(strstr(p, "LOSES"));
  assert_int_equal(json_array_size(src), 3);
  assert_int_equal(count(p, "## Project instructions ("), 3);
  json_decref(src);
  free(p);
}

static void non_regular_candidates_are_skipped(void **state) {
  fixture *f = *state;
  mkdirs(f, "repo/.git");
  mkdirs(f, "repo/AGENTS.md");          /* a directory is not an instruction file */
  put(f, "repo/ZERO.md", "USED-INSTEAD\n");
  char *fifo = at(f, "repo/sub/AGENTS.md");
  mkdirs(f, "repo/sub");
  assert_int_equal(mkfifo(fifo, 0644), 0); /* must not hang the build */
  put(f, "repo/sub/ZERO.md", "SUB-FALLBACK\n");

  json_t *src = NULL;
  char *p = build(f, "repo/sub", &src);
  assert_non_null(strstr(p, "## Project instructions (ZERO.md)\nUSED-INSTEAD"));
  assert_non_null(strstr(p, "## Project instructions (sub/ZERO.md)\nSUB-FALLBACK"));
  assert_int_equal(json_array_size(src), 2);
  json_decref(src);
  free(p);
  free(fifo);
}

static void unreadable_file_is_skipped(void **state) {
  fixture *f = *state;
  if (geteuid() == 0) skip(); /* root reads mode 000 files */
  mkdirs(f, "repo/.git");
  put(f, "repo/AGENTS.md", "HIDDEN\n");
  put(f, "repo/ZERO.md", "READABLE\n");
  char *path = at(f, "repo/AGENTS.md");
  assert_int_equal(chmod(path, 0), 0);
  char *p = build(f, "repo", NULL);
  assert_null(strstr(p, "HIDDEN"));
  assert_non_null(strstr(p, "READABLE"));
  free(p);
  free(path);
}

static void without_git_root_only_cwd_is_read(void **state) {
  fixture *f = *state;
  put(f, "plain/AGENTS.md", "PARENT-RULES\n");
  put(f, "plain/work/AGENTS.md", "CWD-RULES\n");

  json_t *src = NULL;
  char *p = build(f, "plain/work", &src);
  assert_null(strstr(p, "PARENT-RULES"));
  assert_non_null(strstr(p, "## Project instructions (AGENTS.md)\nCWD-RULES"));
  assert_null(strstr(p, "Git branch:"));
  assert_int_equal(json_array_size(src), 1);
  char *want = at(f, "plain/work/AGENTS.md");
  assert_string_equal(json_string_value(json_array_get(src, 0)), want);
  free(want);
  json_decref(src);
  free(p);
}

/* ---- symlinks -------------------------------------------------------------- */

static void symlink_outside_the_repository_is_refused(void **state) {
  fixture *f = *state;
  mkdirs(f, "repo/.git");
  put(f, "outside/secret.txt", "TOP-SECRET\n");
  char *secret = at(f, "outside/secret.txt");
  char *link = at(f, "repo/AGENTS.md");
  assert_int_equal(symlink(secret, link), 0);
  put(f, "repo/ZERO.md", "SAFE-FALLBACK\n");
  /* The same with a system file, and with a relative link climbing out. */
  mkdirs(f, "repo/a");
  char *link2 = at(f, "repo/a/AGENTS.md");
  assert_int_equal(symlink("/etc/shadow", link2), 0);
  mkdirs(f, "repo/a/b");
  char *link3 = at(f, "repo/a/b/AGENTS.md");
  assert_int_equal(symlink("../../../outside/secret.txt", link3), 0);

  json_t *src = NULL;
  char *p = build(f, "repo/a/b", &src);
  assert_null(strstr(p, "TOP-SECRET"));
  assert_null(strstr(p, "a/AGENTS.md"));
  assert_non_null(strstr(p, "SAFE-FALLBACK"));
  assert_int_equal(json_array_size(src), 1);
  json_decref(src);
  free(p);
  free(secret), free(link), free(link2), free(link3);
}

static void symlink_inside_the_repository_is_followed(void **state) {
  fixture *f = *state;
  mkdirs(f, "repo/.git");
  put(f, "repo/docs/agents.md", "SHARED-GUIDE\n");
  mkdirs(f, "repo/svc");
  char *link = at(f, "repo/svc/AGENTS.md");
  assert_int_equal(symlink("../docs/agents.md", link), 0);

  char *p = build(f, "repo/svc", NULL);
  assert_non_null(strstr(p, "## Project instructions (svc/AGENTS.md)\nSHARED-GUIDE"));
  free(p);
  free(link);
}

static void symlink_outside_cwd_is_refused_without_repository(void **state) {
  fixture *f = *state;
  put(f, "outside/secret.txt", "TOP-SECRET\n");
  mkdirs(f, "plain");
  char *link = at(f, "plain/AGENTS.md");
  assert_int_equal(symlink("../outside/secret.txt", link), 0);
  char *p = build(f, "plain", NULL);
  assert_null(strstr(p, "TOP-SECRET"));
  assert_null(strstr(p, "## Project instructions"));
  free(p);
  free(link);
}

/* ---- caps ------------------------------------------------------------------ */

/* The text of the section labelled label, up to the next blank line. */
static char *section_body(const char *p, const char *label) {
  zbuf h = ZBUF_INIT;
  zbuf_addf(&h, "## Project instructions (%s)\n", label);
  const char *s = strstr(p, h.data);
  assert_non_null(s);
  s += h.len;
  const char *e = strstr(s, "\n\n");
  char *r = e ? xstrndup(s, (size_t)(e - s)) : xstrdup(s);
  zbuf_release(&h);
  return r;
}

static void file_over_8k_is_cut_at_a_line_with_a_note(void **state) {
  fixture *f = *state;
  mkdirs(f, "repo/.git");
  char *big = lines_of(400, 50, 'x'); /* 20000 bytes */
  put(f, "repo/AGENTS.md", big);

  char *p = build(f, "repo", NULL);
  char *body = section_body(p, "AGENTS.md");
  const char *note = strstr(body, "\n[truncated: AGENTS.md is 20000 bytes; "
                                  "only the first 8 KiB are included]");
  assert_non_null(note);
  size_t kept = (size_t)(note - body);
  assert_true(kept <= ZPROMPT_FILE_CAP);
  assert_true(kept > ZPROMPT_FILE_CAP / 2);
  /* Whole lines only: the kept text is a prefix of the file ending a line. */
  assert_memory_equal(body, big, kept);
  assert_int_equal(big[kept], '\n');
  assert_int_equal(kept % 50, 49);
  free(body);
  free(p);
  free(big);
}

static void cut_never_splits_a_utf8_character(void **state) {
  fixture *f = *state;
  mkdirs(f, "repo/.git");
  /* One long line of 3-byte characters: no newline to cut at. */
  zbuf b = ZBUF_INIT;
  zbuf_addch(&b, 'a');
  for (int i = 0; i < 4000; i++) zbuf_addstr(&b, "\xE2\x82\xAC"); /* € */
  put(f, "repo/AGENTS.md", b.data);
  /* Invalid UTF-8 in a second file must not reach the prompt as is. */
  put(f, "repo/sub/AGENTS.md", "bad \xFF\xFE bytes\n");

  char *p = build(f, "repo/sub", NULL);
  assert_true(zutf8_valid(p, strlen(p)));
  assert_non_null(strstr(p, "[truncated: AGENTS.md is 12001 bytes;"));
  assert_non_null(strstr(p, "bad \xEF\xBF\xBD\xEF\xBF\xBD bytes"));
  /* The prompt can be carried in a JSON string. */
  json_t *s = json_string(p);
  assert_non_null(s);
  json_decref(s);
  free(p);
  zbuf_release(&b);
}

static void all_files_together_are_capped_at_32k(void **state) {
  fixture *f = *state;
  mkdirs(f, "repo/.git");
  char *chunk = lines_of(140, 50, 'y'); /* 7000 bytes, under the per-file cap */
  const char *levels[] = {"repo", "repo/a", "repo/a/b", "repo/a/b/c", "repo/a/b/c/d"};
  for (size_t i = 0; i < ZARRAY_LEN(levels); i++) {
    zbuf path = ZBUF_INIT;
    zbuf_addf(&path, "%s/AGENTS.md", levels[i]);
    put(f, path.data, chunk);
    zbuf_release(&path);
  }
  put(f, "home/.config/zero/ZERO.md", "USER-RULES-DROPPED\n");

  json_t *src = NULL;
  char *p = build(f, "repo/a/b/c/d", &src);
  /* 4 × 7000 fit; the fifth gets the remaining 4768 bytes; the user file none. */
  assert_int_equal(json_array_size(src), 5);
  assert_null(strstr(p, "USER-RULES-DROPPED"));
  assert_non_null(strstr(p, "[omitted: "));
  assert_non_null(strstr(p, "ZERO.md (19 bytes)"));
  char *last = section_body(p, "a/b/c/d/AGENTS.md");
  const char *note = strstr(last, "\n[truncated: a/b/c/d/AGENTS.md is 7000 bytes; only the first");
  assert_non_null(note);
  size_t kept = (size_t)(note - last);
  assert_true(kept <= ZPROMPT_TOTAL_CAP - 4 * 7000);
  assert_true(kept > 0);

  /* Total instruction text stays within the cap. */
  size_t total = kept;
  const char *labels[] = {"AGENTS.md", "a/AGENTS.md", "a/b/AGENTS.md", "a/b/c/AGENTS.md"};
  for (size_t i = 0; i < ZARRAY_LEN(labels); i++) {
    char *body = section_body(p, labels[i]);
    assert_null(strstr(body, "[truncated"));
    total += strlen(body);
    free(body);
  }
  assert_true(total <= ZPROMPT_TOTAL_CAP);
  free(last);
  json_decref(src);
  free(p);
  free(chunk);
}

/* ---- git ------------------------------------------------------------------- */

static void git_root_is_found_walking_up(void **state) {
  fixture *f = *state;
  mkdirs(f, "repo/.git");
  mkdirs(f, "repo/x/y");
  mkdirs(f, "loose/dir");
  char *want = at(f, "repo");
  char *from = at(f, "repo/x/y");
  char *got = zprompt_git_root(from);
  assert_non_null(got);
  assert_string_equal(got, want);
  free(got);
  /* Outside any repository of the fixture. (The walk may still find one
   * above the temp dir — another test's /tmp/.git — which is not ours to
   * assert on: only that nothing inside the fixture is taken for a root.) */
  char *loose = at(f, "loose/dir");
  char *none = zprompt_git_root(loose);
  if (none) assert_false(zpath_is_within(f->tmp, none));
  free(none);
  free(loose), free(from), free(want);
}

static void branch_is_read_from_head(void **state) {
  fixture *f = *state;
  mkdirs(f, "repo/.git");
  put(f, "repo/.git/HEAD", "ref: refs/heads/feature/prompt\n");
  char *root = at(f, "repo");
  char *b = zprompt_git_branch(root);
  assert_non_null(b);
  assert_string_equal(b, "feature/prompt");
  free(b);

  put(f, "repo/.git/HEAD", "3f786850e387550fdab836ed7e6dc881de23001b\n");
  b = zprompt_git_branch(root);
  assert_non_null(b);
  assert_string_equal(b, "3f786850e387");
  free(b);

  put(f, "repo/.git/HEAD", "not a head at all\n");
  assert_null(zprompt_git_branch(root));
  put(f, "repo/.git/HEAD", "ref: refs/heads/evil\tname\n");
  assert_null(zprompt_git_branch(root));
  free(root);
}

static void worktree_git_file_is_followed(void **state) {
  fixture *f = *state;
  mkdirs(f, "main/.git/worktrees/wt");
  put(f, "main/.git/HEAD", "ref: refs/heads/main\n");
  put(f, "main/.git/worktrees/wt/HEAD", "ref: refs/heads/topic\n");
  put(f, "wt/.git", "gitdir: ../main/.git/worktrees/wt\n");
  mkdirs(f, "wt/src");
  put(f, "wt/AGENTS.md", "WORKTREE-RULES\n");

  char *from = at(f, "wt/src");
  char *root = zprompt_git_root(from);
  char *want = at(f, "wt");
  assert_non_null(root);
  assert_string_equal(root, want);
  char *b = zprompt_git_branch(root);
  assert_non_null(b);
  assert_string_equal(b, "topic");
  free(b);

  /* Absolute gitdir paths work as well. */
  char *abs_gitdir = at(f, "main/.git/worktrees/wt");
  zbuf line = ZBUF_INIT;
  zbuf_addf(&line, "gitdir: %s\n", abs_gitdir);
  put(f, "wt/.git", line.data);
  b = zprompt_git_branch(root);
  assert_non_null(b);
  assert_string_equal(b, "topic");
  free(b);

  char *p = build(f, "wt/src", NULL);
  assert_non_null(strstr(p, "Git branch: topic\n"));
  assert_non_null(strstr(p, "## Project instructions (AGENTS.md)\nWORKTREE-RULES"));
  free(p);
  zbuf_release(&line);
  free(abs_gitdir), free(want), free(root), free(from);
}

/* ---- session and environment ------------------------------------------------ */

static void environment_block_describes_the_machine(void **state) {
  fixture *f = *state;
  mkdirs(f, "repo/.git");
  put(f, "repo/.git/HEAD", "ref: refs/heads/main\n");
  char *p = build(f, "repo", NULL);
  char *cwd = at(f, "repo");

  struct utsname u;
  assert_int_equal(uname(&u), 0);
  char date[32];
  time_t now = time(NULL);
  struct tm tm;
  localtime_r(&now, &tm);
  strftime(date, sizeof date, "%Y-%m-%d", &tm);

  zbuf want = ZBUF_INIT;
  zbuf_addf(&want,
            "<environment>\n"
            "Working directory: %s\n"
            "Operating system: Linux %s\n"
            "Shell: /bin/sh (exec_command runs commands with /bin/sh -c; pass workdir instead of cd)\n"
            "Git branch: main\n"
            "Date: %s\n"
            "</environment>",
            cwd, u.release, date);
  assert_non_null(strstr(p, want.data));
  /* Sections are separated by blank lines. */
  assert_non_null(strstr(p, "\n\n<environment>\n"));
  assert_true(strncmp(p, "You are zero, a terminal coding agent", 37) == 0);
  /* No session block without session facts. */
  assert_null(strstr(p, "<session>"));
  zbuf_release(&want);
  free(cwd);
  free(p);
}

static void session_block_lists_provider_model_and_mode(void **state) {
  fixture *f = *state;
  mkdirs(f, "plain");
  char *cwd = at(f, "plain");
  zprompt_opts o = {.cwd = cwd, .provider = "anthropic", .model = "claude-x",
                    .permission_mode = "auto"};
  char *p = zprompt_build(&o, NULL);
  assert_non_null(strstr(p, "\n\n<session>\nProvider: anthropic\nModel: claude-x\n"
                            "Permission mode: auto\n</session>\n\n<environment>"));

  zprompt_opts o2 = {.cwd = cwd, .model = "m\nInjected: yes"};
  char *p2 = zprompt_build(&o2, NULL);
  assert_non_null(strstr(p2, "<session>\nModel: m?Injected: yes\n</session>"));
  free(p2);
  free(p);
  free(cwd);
}

static void sources_is_empty_array_without_instructions(void **state) {
  fixture *f = *state;
  mkdirs(f, "plain");
  json_t *src = NULL;
  char *p = build(f, "plain", &src);
  assert_true(json_is_array(src));
  assert_int_equal(json_array_size(src), 0);
  assert_null(strstr(p, "## Project instructions"));
  json_decref(src);
  free(p);
}

static void same_file_is_included_once(void **state) {
  fixture *f = *state;
  /* cwd is the config dir itself: its ZERO.md is both levels at once. */
  put(f, "home/.config/zero/ZERO.md", "ONCE-ONLY\n");
  json_t *src = NULL;
  char *p = build(f, "home/.config/zero", &src);
  assert_int_equal(count(p, "ONCE-ONLY"), 1);
  assert_int_equal(json_array_size(src), 1);
  json_decref(src);
  free(p);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

int main(void) {
  const struct CMUnitTest tests[] = {
      T(instructions_are_read_root_to_cwd_then_user),
      T(first_existing_file_wins_at_each_level),
      T(non_regular_candidates_are_skipped),
      T(unreadable_file_is_skipped),
      T(without_git_root_only_cwd_is_read),
      T(symlink_outside_the_repository_is_refused),
      T(symlink_inside_the_repository_is_followed),
      T(symlink_outside_cwd_is_refused_without_repository),
      T(file_over_8k_is_cut_at_a_line_with_a_note),
      T(cut_never_splits_a_utf8_character),
      T(all_files_together_are_capped_at_32k),
      T(git_root_is_found_walking_up),
      T(branch_is_read_from_head),
      T(worktree_git_file_is_followed),
      T(environment_block_describes_the_machine),
      T(session_block_lists_provider_model_and_mode),
      T(sources_is_empty_array_without_instructions),
      T(same_file_is_included_once),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
