/* test_tools_files.c — read_file, list_directory, write_file, edit_file. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "base/json.h"
#include "base/time.h"
#include "tools/tracker.h"
#include "test_tools_util.h"

/* ---- read_file ----------------------------------------------------------- */

static void read_file_numbers_lines(void **state) {
  tfx *f = *state;
  tfx_write_str(f, "src/a.c", "int a;\nint b;\n");
  assert_int_equal(tfx_run(f, "read_file", "{\"path\":\"src/a.c\"}"), 0);
  assert_false(f->res.is_error);
  assert_string_equal(f->res.output.data, "File: src/a.c (2 lines)\n\n1 | int a;\n2 | int b;");
  assert_false(f->res.truncated);
  assert_int_equal(zjson_int_or(f->res.meta, "total_lines", 0), 2);
}

static void read_file_right_aligns_numbers_and_counts_a_last_line_without_newline(void **state) {
  tfx *f = *state;
  zbuf b = ZBUF_INIT;
  for (int i = 1; i <= 12; i++) zbuf_addf(&b, "l%d\n", i);
  zbuf_addstr(&b, "tail");
  tfx_write(f, "n.txt", b.data, b.len);
  zbuf_release(&b);
  assert_int_equal(tfx_run(f, "read_file", "{\"path\":\"n.txt\",\"offset\":8}"), 0);
  assert_output_contains(f, "File: n.txt (lines 8-13 of 13)\n\n 8 | l8\n");
  assert_output_contains(f, "13 | tail");
  assert_false(f->res.truncated);
}

static void read_file_offset_limit_gives_a_continuation_notice(void **state) {
  tfx *f = *state;
  zbuf b = ZBUF_INIT;
  for (int i = 1; i <= 5000; i++) zbuf_addf(&b, "line %d\n", i);
  tfx_write(f, "big.txt", b.data, b.len);
  zbuf_release(&b);
  assert_int_equal(tfx_run(f, "read_file", "{\"path\":\"big.txt\"}"), 0);
  assert_output_contains(f, "File: big.txt (lines 1-2000 of 5000)");
  assert_output_contains(f, "2000 | line 2000\n");
  assert_output_lacks(f, "line 2001");
  assert_output_contains(
      f, "[truncated: showing lines 1-2000 of 5000; call read_file with offset=2001 to continue]");
  assert_true(f->res.truncated);

  assert_int_equal(tfx_run(f, "read_file", "{\"path\":\"big.txt\",\"offset\":4990,\"limit\":5}"), 0);
  assert_output_contains(f, "File: big.txt (lines 4990-4994 of 5000)");
  assert_output_contains(f, "offset=4995");

  assert_int_equal(tfx_run(f, "read_file", "{\"path\":\"big.txt\",\"offset\":4999}"), 0);
  assert_output_contains(f, "(lines 4999-5000 of 5000)");
  assert_output_lacks(f, "truncated");

  assert_int_equal(tfx_run(f, "read_file", "{\"path\":\"big.txt\",\"offset\":6000}"), -1);
  assert_output_contains(f, "offset 6000 is past the end of big.txt, which has 5000 lines");
}

static void read_file_stays_within_the_output_budget(void **state) {
  tfx *f = *state;
  zbuf b = ZBUF_INIT;
  for (int i = 1; i <= 1500; i++) {
    for (int k = 0; k < 300; k++) zbuf_addch(&b, 'a' + (char)(k % 26));
    zbuf_addch(&b, '\n');
  }
  tfx_write(f, "wide.txt", b.data, b.len); /* ~450 KB: over the 256 KiB cap */
  zbuf_release(&b);
  assert_int_equal(tfx_run(f, "read_file", "{\"path\":\"wide.txt\"}"), 0);
  assert_true(f->res.output.len <= ZTOOL_OUTPUT_CAP);
  assert_true(f->res.truncated);
  assert_output_contains(f, "(output size limit reached); call read_file with offset=");
  assert_output_lacks(f, "[output truncated"); /* cut on a line, not by the generic cap */
}

static void read_file_cuts_very_long_lines(void **state) {
  tfx *f = *state;
  zbuf b = ZBUF_INIT;
  for (int k = 0; k < 10000; k++) zbuf_addch(&b, 'x');
  zbuf_addstr(&b, "\nshort\n");
  tfx_write(f, "long.txt", b.data, b.len);
  zbuf_release(&b);
  assert_int_equal(tfx_run(f, "read_file", "{\"path\":\"long.txt\"}"), 0);
  assert_output_contains(f, "[line truncated: 10000 bytes in total]");
  assert_output_contains(f, "2 | short");
  assert_true(f->res.output.len < 3000);
}

static void read_file_refuses_binary_files(void **state) {
  tfx *f = *state;
  char data[300];
  for (size_t i = 0; i < sizeof data; i++) data[i] = (char)(i % 7 == 0 ? 0 : 'a');
  tfx_write(f, "blob.bin", data, sizeof data);
  assert_int_equal(tfx_run(f, "read_file", "{\"path\":\"blob.bin\"}"), -1);
  assert_true(f->res.is_error);
  assert_output_contains(f, "blob.bin is a binary file (300 bytes); read_file shows text only");
}

static void read_file_replaces_invalid_utf8_and_says_so(void **state) {
  tfx *f = *state;
  tfx_write_str(f, "latin1.txt", "caf\xe9 au lait\nok \xc3\xa9\n");
  assert_int_equal(tfx_run(f, "read_file", "{\"path\":\"latin1.txt\"}"), 0);
  assert_true(zutf8_valid(f->res.output.data, f->res.output.len));
  assert_output_contains(f, "1 | caf\xef\xbf\xbd au lait");
  assert_output_contains(f, "2 | ok \xc3\xa9");
  assert_output_contains(f, "is not valid UTF-8; 1 invalid byte is shown as U+FFFD");
}

static void read_file_strips_cr_and_notes_crlf(void **state) {
  tfx *f = *state;
  tfx_write_str(f, "dos.txt", "a\r\nb\r\n");
  assert_int_equal(tfx_run(f, "read_file", "{\"path\":\"dos.txt\"}"), 0);
  assert_output_contains(f, "1 | a\n2 | b\n");
  assert_output_lacks(f, "\r");
  assert_output_contains(f, "CRLF");
}

static void read_file_errors_for_missing_files_and_directories(void **state) {
  tfx *f = *state;
  assert_int_equal(tfx_run(f, "read_file", "{\"path\":\"nope.txt\"}"), -1);
  assert_output_contains(f, "File not found: nope.txt");
  assert_output_contains(f, "list_directory");
  char *sub = tfx_path(f, "sub");
  mkdir(sub, 0755);
  free(sub);
  assert_int_equal(tfx_run(f, "read_file", "{\"path\":\"sub\"}"), -1);
  assert_output_contains(f, "sub is a directory");
  assert_output_contains(f, "call list_directory");
}

static void read_file_shows_empty_files(void **state) {
  tfx *f = *state;
  tfx_write_str(f, "empty.txt", "");
  assert_int_equal(tfx_run(f, "read_file", "{\"path\":\"empty.txt\"}"), 0);
  assert_output_contains(f, "File: empty.txt (0 lines)");
  assert_output_contains(f, "(the file is empty)");
}

static void read_file_outside_the_workspace_shows_the_absolute_path(void **state) {
  tfx *f = *state;
  char path[600];
  snprintf(path, sizeof path, "%s/o.txt", f->out);
  tfx_write_str(f, path, "outside\n");
  assert_int_equal(tfx_run(f, "read_file", "{\"path\":\"../out/o.txt\"}"), 0);
  char want[700];
  snprintf(want, sizeof want, "File: %s (1 lines)", path);
  assert_output_contains(f, want);
  assert_output_contains(f, "1 | outside");
}

/* ---- list_directory ------------------------------------------------------ */

static void list_directory_puts_directories_first(void **state) {
  tfx *f = *state;
  tfx_write_str(f, "b.txt", "");
  tfx_write_str(f, "a.txt", "");
  tfx_write_str(f, "zdir/inner.txt", "");
  tfx_write_str(f, "adir/deeper/x.txt", "");
  tfx_write_str(f, ".git/HEAD", "ref");
  assert_int_equal(tfx_run(f, "list_directory", "{}"), 0);
  assert_string_equal(f->res.output.data, "Contents of .:\n\nadir/\nzdir/\na.txt\nb.txt");
}

static void list_directory_recursive_indents_and_honours_depth(void **state) {
  tfx *f = *state;
  tfx_write_str(f, "a.txt", "");
  tfx_write_str(f, "adir/deeper/x.txt", "");
  tfx_write_str(f, "adir/y.txt", "");
  assert_int_equal(tfx_run(f, "list_directory", "{\"recursive\":true}"), 0);
  assert_string_equal(f->res.output.data,
                      "Contents of .:\n\nadir/\n  deeper/\n  y.txt\na.txt");
  assert_int_equal(tfx_run(f, "list_directory", "{\"recursive\":true,\"max_depth\":3}"), 0);
  assert_string_equal(f->res.output.data,
                      "Contents of .:\n\nadir/\n  deeper/\n    x.txt\n  y.txt\na.txt");
  assert_int_equal(tfx_run(f, "list_directory", "{\"path\":\"adir\"}"), 0);
  assert_string_equal(f->res.output.data, "Contents of adir:\n\ndeeper/\ny.txt");
}

static void list_directory_reports_empty_missing_and_files(void **state) {
  tfx *f = *state;
  char *e = tfx_path(f, "empty");
  mkdir(e, 0755);
  free(e);
  assert_int_equal(tfx_run(f, "list_directory", "{\"path\":\"empty\"}"), 0);
  assert_string_equal(f->res.output.data, "Directory is empty: empty");
  assert_int_equal(tfx_run(f, "list_directory", "{\"path\":\"missing\"}"), -1);
  assert_output_contains(f, "Directory not found: missing");
  tfx_write_str(f, "f.txt", "x");
  assert_int_equal(tfx_run(f, "list_directory", "{\"path\":\"f.txt\"}"), -1);
  assert_output_contains(f, "f.txt is a file, not a directory; call read_file");
}

static void list_directory_caps_entries(void **state) {
  tfx *f = *state;
  for (int i = 0; i < 1100; i++) {
    char name[32];
    snprintf(name, sizeof name, "d/f%04d", i);
    tfx_write_str(f, name, "");
  }
  assert_int_equal(tfx_run(f, "list_directory", "{\"path\":\"d\"}"), 0);
  assert_true(f->res.truncated);
  assert_output_contains(f, "f0999\n");
  assert_output_lacks(f, "f1000");
  assert_output_contains(f, "[truncated: showing the first 1000 entries");
}

/* list_directory shares the walk of grep and glob: what .gitignore (nested
 * too) excludes is not listed; a negated pattern brings a file back. */
static void list_directory_honours_ignore_files(void **state) {
  tfx *f = *state;
  tfx_write_str(f, ".gitignore", "*.log\nout/\n!keep.log\n");
  tfx_write_str(f, "a.log", "x");
  tfx_write_str(f, "keep.log", "x");
  tfx_write_str(f, "out/gen.c", "x");
  tfx_write_str(f, "src/main.c", "x");
  tfx_write_str(f, "src/.gitignore", "tmp.c\n");
  tfx_write_str(f, "src/tmp.c", "x");
  assert_int_equal(tfx_run(f, "list_directory", "{\"recursive\":true}"), 0);
  assert_output_contains(f, "keep.log");
  assert_output_contains(f, "main.c");
  assert_null(strstr(f->res.output.data, "a.log"));
  assert_null(strstr(f->res.output.data, "out/"));
  assert_null(strstr(f->res.output.data, "tmp.c"));
}

static void list_directory_shows_symlinks_without_following(void **state) {
  tfx *f = *state;
  char *l = tfx_path(f, "loop");
  assert_int_equal(symlink(".", l), 0);
  free(l);
  assert_int_equal(tfx_run(f, "list_directory", "{\"recursive\":true,\"max_depth\":5}"), 0);
  assert_string_equal(f->res.output.data, "Contents of .:\n\nloop -> .");
}

/* ---- write_file ---------------------------------------------------------- */

static void write_file_creates_with_parents(void **state) {
  tfx *f = *state;
  assert_int_equal(tfx_run(f, "write_file", "{\"path\":\"new/dir/a.txt\",\"content\":\"x\\ny\\n\"}"),
                   0);
  assert_string_equal(f->res.output.data, "Created new/dir/a.txt (2 lines).");
  char *c = tfx_read(f, "new/dir/a.txt");
  assert_string_equal(c, "x\ny\n");
  free(c);
  assert_int_equal(zjson_int_or(f->res.meta, "bytes", 0), 4);
  assert_non_null(zjson_str(f->res.meta, "path"));
  struct stat st;
  char *p = tfx_path(f, "new/dir/a.txt");
  assert_int_equal(stat(p, &st), 0);
  assert_int_equal(st.st_mode & 0777, 0644);
  free(p);
}

static void write_file_refuses_to_overwrite_without_the_flag(void **state) {
  tfx *f = *state;
  tfx_write_str(f, "keep.txt", "old");
  char *p = tfx_path(f, "keep.txt");
  chmod(p, 0755);
  assert_int_equal(tfx_run(f, "write_file", "{\"path\":\"keep.txt\",\"content\":\"new\"}"), -1);
  assert_output_contains(f, "File already exists: keep.txt");
  assert_output_contains(f, "overwrite: true");
  char *c = tfx_read(f, "keep.txt");
  assert_string_equal(c, "old");
  free(c);
  assert_int_equal(
      tfx_run(f, "write_file", "{\"path\":\"keep.txt\",\"content\":\"new\",\"overwrite\":true}"), 0);
  assert_string_equal(f->res.output.data, "Overwrote keep.txt (1 lines).");
  c = tfx_read(f, "keep.txt");
  assert_string_equal(c, "new");
  free(c);
  struct stat st;
  assert_int_equal(stat(p, &st), 0);
  assert_int_equal(st.st_mode & 0777, 0755); /* mode kept */
  free(p);
}

static void write_file_refuses_paths_outside_the_workspace(void **state) {
  tfx *f = *state;
  assert_int_equal(tfx_run(f, "write_file", "{\"path\":\"../out/x.txt\",\"content\":\"x\"}"), -1);
  assert_output_contains(f, "outside the workspace");
  char path[600];
  snprintf(path, sizeof path, "%s/x.txt", f->out);
  assert_false(zfs_exists(path));
  assert_int_equal(tfx_run(f, "write_file", "{\"path\":\"/tmp/zero-should-not-exist\",\"content\":\"x\"}"),
                   -1);
  assert_false(zfs_exists("/tmp/zero-should-not-exist"));
}

static void write_file_refuses_a_symlink_to_outside(void **state) {
  tfx *f = *state;
  char *link = tfx_path(f, "escape");
  assert_int_equal(symlink(f->out, link), 0);
  assert_int_equal(tfx_run(f, "write_file", "{\"path\":\"escape/x.txt\",\"content\":\"x\"}"), -1);
  assert_output_contains(f, "resolves through a symlink");
  char path[600];
  snprintf(path, sizeof path, "%s/x.txt", f->out);
  assert_false(zfs_exists(path));

  /* A file symlink pointing outside, even with overwrite. */
  snprintf(path, sizeof path, "%s/target.txt", f->out);
  tfx_write_str(f, path, "precious");
  char *flink = tfx_path(f, "flink");
  assert_int_equal(symlink(path, flink), 0);
  assert_int_equal(
      tfx_run(f, "write_file", "{\"path\":\"flink\",\"content\":\"pwned\",\"overwrite\":true}"), -1);
  char *c = tfx_read(f, path);
  assert_string_equal(c, "precious");
  free(c);
  free(link);
  free(flink);
}

static void write_file_allows_add_dirs(void **state) {
  tfx *f = *state;
  const char *dirs[] = {f->out};
  f->ctx.add_dirs = dirs;
  f->ctx.n_add_dirs = 1;
  char args[800];
  snprintf(args, sizeof args, "{\"path\":\"%s/extra.txt\",\"content\":\"e\"}", f->out);
  assert_int_equal(tfx_run(f, "write_file", "%s", args), 0);
  assert_output_contains(f, "Created ");
  char path[600];
  snprintf(path, sizeof path, "%s/extra.txt", f->out);
  char *c = tfx_read(f, path);
  assert_string_equal(c, "e");
  free(c);
}

static void write_file_writes_through_an_inside_symlink(void **state) {
  tfx *f = *state;
  tfx_write_str(f, "real.txt", "old");
  char *l = tfx_path(f, "alias.txt");
  assert_int_equal(symlink("real.txt", l), 0);
  assert_int_equal(
      tfx_run(f, "write_file", "{\"path\":\"alias.txt\",\"content\":\"new\",\"overwrite\":true}"), 0);
  char *c = tfx_read(f, "real.txt");
  assert_string_equal(c, "new");
  free(c);
  struct stat st;
  assert_int_equal(lstat(l, &st), 0);
  assert_true(S_ISLNK(st.st_mode)); /* the link is kept */
  free(l);
}

/* ---- edit_file ----------------------------------------------------------- */

static void edit_file_replaces_a_unique_match(void **state) {
  tfx *f = *state;
  tfx_write_str(f, "e.c", "int main(void) {\n  return 1;\n}\n");
  char *p = tfx_path(f, "e.c");
  chmod(p, 0600);
  assert_int_equal(tfx_run(f, "edit_file", "{\"path\":\"e.c\",\"old_string\":\"return 1;\","
                                            "\"new_string\":\"return 0;\"}"),
                   0);
  assert_string_equal(f->res.output.data, "Successfully edited e.c (replaced 1 occurrence(s)).");
  char *c = tfx_read(f, "e.c");
  assert_string_equal(c, "int main(void) {\n  return 0;\n}\n");
  free(c);
  struct stat st;
  assert_int_equal(stat(p, &st), 0);
  assert_int_equal(st.st_mode & 0777, 0600);
  assert_int_equal(zjson_int_or(f->res.meta, "first_line", 0), 2);
  free(p);
}

static void edit_file_reports_a_missing_string(void **state) {
  tfx *f = *state;
  tfx_write_str(f, "m.txt", "alpha\nbeta\n");
  assert_int_equal(tfx_run(f, "edit_file", "{\"path\":\"m.txt\",\"old_string\":\"gamma\","
                                            "\"new_string\":\"delta\"}"),
                   -1);
  assert_output_contains(f, "old_string was not found in m.txt");
  assert_output_contains(f, "read_file");
}

static void edit_file_tolerates_indentation_and_line_endings(void **state) {
  tfx *f = *state;
  tfx_write_str(f, "w.py", "def f():\n    x = 1\n    return x\n");
  /* Indentation differs (and the first line starts mid-line): re-indented. */
  assert_int_equal(tfx_run(f, "edit_file", "{\"path\":\"w.py\",\"old_string\":\"x = 1\\n  return x\","
                                            "\"new_string\":\"x = 2\\n  return x + 1\"}"),
                   0);
  assert_output_contains(f, "indentation ignored");
  char *c = tfx_read(f, "w.py");
  assert_string_equal(c, "def f():\n    x = 2\n    return x + 1\n");
  free(c);
  /* Trailing whitespace differs: the file's other lines are untouched. */
  tfx_write_str(f, "t.txt", "a  \nb\t\nc\n");
  assert_int_equal(tfx_run(f, "edit_file", "{\"path\":\"t.txt\",\"old_string\":\"a\\nb\\n\","
                                            "\"new_string\":\"A\\nB\\n\"}"), 0);
  assert_output_contains(f, "trailing whitespace ignored");
  c = tfx_read(f, "t.txt");
  assert_string_equal(c, "A\nB\nc\n");
  free(c);
  /* LF old_string against a CRLF file: the replacement gets CRLF. */
  tfx_write_str(f, "dos.txt", "one\r\ntwo\r\nthree\r\n");
  assert_int_equal(tfx_run(f, "edit_file", "{\"path\":\"dos.txt\",\"old_string\":\"one\\ntwo\","
                                            "\"new_string\":\"1\\n2\"}"), 0);
  assert_output_contains(f, "line endings ignored");
  c = tfx_read(f, "dos.txt");
  assert_string_equal(c, "1\r\n2\r\nthree\r\n");
  free(c);
  /* Ambiguous after loosening: refused with every candidate line. */
  tfx_write_str(f, "amb.py", "if a:\n    go()\nif b:\n  go()\n");
  assert_int_equal(tfx_run(f, "edit_file", "{\"path\":\"amb.py\",\"old_string\":\"go()\\n\","
                                            "\"new_string\":\"stop()\\n\"}"), -1);
  assert_output_contains(f, "at lines 2, 4");

  assert_int_equal(tfx_run(f, "edit_file", "{\"path\":\"w.py\",\"old_string\":\"2 |     x = 1\","
                                            "\"new_string\":\"x = 2\"}"),
                   -1);
  assert_output_contains(f, "line-number prefix");
}

static void edit_file_lists_the_lines_of_an_ambiguous_match(void **state) {
  tfx *f = *state;
  tfx_write_str(f, "amb.txt", "x = 1\ny = 2\nx = 1\n\nx = 1\n");
  assert_int_equal(tfx_run(f, "edit_file", "{\"path\":\"amb.txt\",\"old_string\":\"x = 1\","
                                            "\"new_string\":\"x = 9\"}"),
                   -1);
  assert_output_contains(f, "old_string occurs 3 times in amb.txt (at lines 1, 3, 5)");
  assert_output_contains(f, "replace_all");
  char *c = tfx_read(f, "amb.txt");
  assert_string_equal(c, "x = 1\ny = 2\nx = 1\n\nx = 1\n");
  free(c);

  assert_int_equal(tfx_run(f, "edit_file", "{\"path\":\"amb.txt\",\"old_string\":\"x = 1\","
                                            "\"new_string\":\"x = 9\",\"replace_all\":true}"),
                   0);
  assert_string_equal(f->res.output.data,
                      "Successfully edited amb.txt (replaced 3 occurrence(s)).");
  c = tfx_read(f, "amb.txt");
  assert_string_equal(c, "x = 9\ny = 2\nx = 9\n\nx = 9\n");
  free(c);
}

static void edit_file_refuses_degenerate_edits(void **state) {
  tfx *f = *state;
  tfx_write_str(f, "d.txt", "same\n");
  assert_int_equal(tfx_run(f, "edit_file", "{\"path\":\"d.txt\",\"old_string\":\"same\","
                                            "\"new_string\":\"same\"}"),
                   -1);
  assert_output_contains(f, "identical");
  assert_int_equal(tfx_run(f, "edit_file", "{\"path\":\"d.txt\",\"old_string\":\"\","
                                            "\"new_string\":\"x\"}"),
                   -1);
  assert_output_contains(f, "old_string is empty");
  assert_int_equal(tfx_run(f, "edit_file", "{\"path\":\"none.txt\",\"old_string\":\"a\","
                                            "\"new_string\":\"b\"}"),
                   -1);
  assert_output_contains(f, "File not found: none.txt");
}

static void edit_file_refuses_outside_the_workspace(void **state) {
  tfx *f = *state;
  char path[600];
  snprintf(path, sizeof path, "%s/o.txt", f->out);
  tfx_write_str(f, path, "abc");
  assert_int_equal(tfx_run(f, "edit_file", "{\"path\":\"../out/o.txt\",\"old_string\":\"abc\","
                                            "\"new_string\":\"xyz\"}"),
                   -1);
  assert_output_contains(f, "outside the workspace");
  char *c = tfx_read(f, path);
  assert_string_equal(c, "abc");
  free(c);
}

static void write_file_overwrites_only_what_was_read_and_unchanged(void **state) {
  tfx *f = *state;
  f->ctx.files = ztool_files_new();
  tfx_write_str(f, "k.txt", "old\n");
  assert_int_equal(tfx_run(f, "write_file", "{\"path\":\"k.txt\",\"content\":\"new\","
                                            "\"overwrite\":true}"), -1);
  assert_output_contains(f, "it has not been read in this session");
  assert_int_equal(tfx_run(f, "read_file", "{\"path\":\"k.txt\"}"), 0);
  assert_false(zjson_bool_or(f->res.meta, "seen_before", true));
  assert_int_equal(tfx_run(f, "read_file", "{\"path\":\"k.txt\"}"), 0);
  assert_true(zjson_bool_or(f->res.meta, "seen_before", false));
  assert_output_contains(f, "you already read these lines");
  /* Changed behind the model's back: refused, and it says so. */
  ztime_sleep_ms(10, NULL);
  tfx_write_str(f, "k.txt", "changed by someone else\n");
  assert_int_equal(tfx_run(f, "write_file", "{\"path\":\"k.txt\",\"content\":\"new\","
                                            "\"overwrite\":true}"), -1);
  assert_output_contains(f, "it changed on disk since you read it");
  assert_int_equal(tfx_run(f, "read_file", "{\"path\":\"k.txt\"}"), 0);
  assert_int_equal(tfx_run(f, "write_file", "{\"path\":\"k.txt\",\"content\":\"new\","
                                            "\"overwrite\":true}"), 0);
  /* What zero wrote itself counts as seen. */
  assert_int_equal(tfx_run(f, "write_file", "{\"path\":\"k.txt\",\"content\":\"newer\","
                                            "\"overwrite\":true}"), 0);
  ztool_files_free(f->ctx.files);
  f->ctx.files = NULL;
}

static void read_file_byte_ranges(void **state) {
  tfx *f = *state;
  tfx_write_str(f, "min.js", "var a=1;var b=\xc3\xa9;var c=3;");
  assert_int_equal(tfx_run(f, "read_file", "{\"path\":\"min.js\",\"byte_offset\":4,"
                                           "\"byte_limit\":11}"), 0);
  /* bytes 4..15 would cut the two-byte é in half: the window stops before it. */
  assert_string_equal(f->res.output.data,
                      "File: min.js (bytes 4-14 of 25)\n\na=1;var b="
                      "\n\n[truncated: call read_file with byte_offset=14 to continue]");
  assert_int_equal(tfx_run(f, "read_file", "{\"path\":\"min.js\",\"byte_offset\":14}"), 0);
  assert_string_equal(f->res.output.data, "File: min.js (bytes 14-25 of 25)\n\n\xc3\xa9;var c=3;");
  assert_int_equal(tfx_run(f, "read_file", "{\"path\":\"min.js\",\"byte_limit\":70000}"), -1);
  assert_output_contains(f, "at most 65536");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      TFX_TEST(read_file_numbers_lines),
      TFX_TEST(read_file_right_aligns_numbers_and_counts_a_last_line_without_newline),
      TFX_TEST(read_file_offset_limit_gives_a_continuation_notice),
      TFX_TEST(read_file_stays_within_the_output_budget),
      TFX_TEST(read_file_cuts_very_long_lines),
      TFX_TEST(read_file_refuses_binary_files),
      TFX_TEST(read_file_replaces_invalid_utf8_and_says_so),
      TFX_TEST(read_file_strips_cr_and_notes_crlf),
      TFX_TEST(read_file_errors_for_missing_files_and_directories),
      TFX_TEST(read_file_shows_empty_files),
      TFX_TEST(read_file_outside_the_workspace_shows_the_absolute_path),
      TFX_TEST(list_directory_puts_directories_first),
      TFX_TEST(list_directory_recursive_indents_and_honours_depth),
      TFX_TEST(list_directory_reports_empty_missing_and_files),
      TFX_TEST(list_directory_caps_entries),
      TFX_TEST(list_directory_honours_ignore_files),
      TFX_TEST(list_directory_shows_symlinks_without_following),
      TFX_TEST(write_file_creates_with_parents),
      TFX_TEST(write_file_refuses_to_overwrite_without_the_flag),
      TFX_TEST(write_file_refuses_paths_outside_the_workspace),
      TFX_TEST(write_file_refuses_a_symlink_to_outside),
      TFX_TEST(write_file_allows_add_dirs),
      TFX_TEST(write_file_writes_through_an_inside_symlink),
      TFX_TEST(edit_file_replaces_a_unique_match),
      TFX_TEST(edit_file_reports_a_missing_string),
      TFX_TEST(edit_file_tolerates_indentation_and_line_endings),
      TFX_TEST(write_file_overwrites_only_what_was_read_and_unchanged),
      TFX_TEST(read_file_byte_ranges),
      TFX_TEST(edit_file_lists_the_lines_of_an_ambiguous_match),
      TFX_TEST(edit_file_refuses_degenerate_edits),
      TFX_TEST(edit_file_refuses_outside_the_workspace),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
