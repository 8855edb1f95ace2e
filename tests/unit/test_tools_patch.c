/* test_tools_patch.c — apply_patch: the case suite under tests/fixtures/patch
 * plus the parser and applier edge cases it cannot express.
 *
 * Each case directory holds before/ (the workspace), patch (the input) and
 * either after/ (the expected workspace) or error (the exact error text; the
 * workspace must then be unchanged). A file named freeform makes the case
 * send the patch as a raw freeform tool input instead of JSON. ".keep" files
 * only keep empty directories in git and are ignored. Run with
 * ZERO_PATCH_BLESS=1 to (re)write the error files after reviewing a change.
 */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "base/fs.h"
#include "base/path.h"
#include "tools/patch.h"
#include "test_tools_util.h"

typedef ZVEC(char *) strv;

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Relative paths of the regular files under root/rel (".keep" skipped). */
static void list_files(const char *root, const char *rel, strv *out) {
  char *dir = rel[0] ? zpath_join(root, rel) : xstrdup(root);
  DIR *d = opendir(dir);
  free(dir);
  if (!d) return;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") || !strcmp(e->d_name, ".keep"))
      continue;
    char *r = rel[0] ? zpath_join(rel, e->d_name) : xstrdup(e->d_name);
    char *full = zpath_join(root, r);
    struct stat st;
    if (lstat(full, &st) == 0 && S_ISDIR(st.st_mode)) {
      list_files(root, r, out);
      free(r);
    } else {
      zvec_push(out, r);
    }
    free(full);
  }
  closedir(d);
  if (out->len) qsort(out->items, out->len, sizeof(char *), cmp_str);
}

static void strv_free(strv *v) {
  for (size_t i = 0; i < v->len; i++) free(v->items[i]);
  zvec_free(v);
}

/* "" when the trees hold the same files with the same bytes, else why not. */
static void compare_trees(const char *want, const char *got, zbuf *why) {
  strv a = ZVEC_INIT, b = ZVEC_INIT;
  list_files(want, "", &a);
  list_files(got, "", &b);
  if (a.len != b.len) zbuf_addf(why, "expected %zu files, found %zu; ", a.len, b.len);
  for (size_t i = 0; i < a.len && i < b.len; i++) {
    if (strcmp(a.items[i], b.items[i])) {
      zbuf_addf(why, "expected file %s, found %s; ", a.items[i], b.items[i]);
      break;
    }
    char *pa = zpath_join(want, a.items[i]), *pb = zpath_join(got, b.items[i]);
    zbuf ca = ZBUF_INIT, cb = ZBUF_INIT;
    zfs_read_file(pa, &ca, 0, NULL);
    zfs_read_file(pb, &cb, 0, NULL);
    if (ca.len != cb.len || memcmp(ca.data, cb.data, ca.len))
      zbuf_addf(why, "%s differs:\n--- expected\n%s\n--- got\n%s\n", a.items[i], ca.data, cb.data);
    zbuf_release(&ca);
    zbuf_release(&cb);
    free(pa);
    free(pb);
  }
  strv_free(&a);
  strv_free(&b);
}

static void copy_tree(const char *from, const char *to) {
  strv v = ZVEC_INIT;
  list_files(from, "", &v);
  for (size_t i = 0; i < v.len; i++) {
    char *src = zpath_join(from, v.items[i]), *dst = zpath_join(to, v.items[i]);
    zbuf c = ZBUF_INIT;
    assert_int_equal(zfs_read_file(src, &c, 0, NULL), 0);
    char *dir = xstrdup(dst);
    *strrchr(dir, '/') = '\0';
    zfs_mkdir_p(dir, 0755, NULL);
    assert_int_equal(zfs_write_atomic(dst, c.data, c.len, 0644, NULL), 0);
    free(dir);
    zbuf_release(&c);
    free(src);
    free(dst);
  }
  strv_free(&v);
}

static void clear_dir(const char *dir) {
  nftw(dir, tfx_rm_cb, 16, FTW_DEPTH | FTW_PHYS);
  mkdir(dir, 0755);
}

static void run_case(tfx *f, const char *dir, const char *name, zbuf *failures) {
  clear_dir(f->ws);
  char *before = zpath_join(dir, "before"), *after = zpath_join(dir, "after");
  char *patchp = zpath_join(dir, "patch"), *errp = zpath_join(dir, "error");
  char *ffp = zpath_join(dir, "freeform");
  copy_tree(before, f->ws);
  zbuf patch = ZBUF_INIT;
  assert_int_equal(zfs_read_file(patchp, &patch, 0, NULL), 0);
  ztool_result_release(&f->res);
  int rc;
  if (zfs_exists(ffp)) {
    rc = ztool_invoke(&f->ctx, "apply_patch", patch.data, &f->res);
  } else {
    json_t *args = json_pack("{ss#}", "input", patch.data, patch.len);
    char *text = json_dumps(args, 0);
    rc = ztool_invoke(&f->ctx, "apply_patch", text, &f->res);
    free(text);
    json_decref(args);
  }
  /* The temporary root differs per run: show it as $ROOT. */
  char *root = realpath(f->root, NULL);
  zbuf shown = ZBUF_INIT;
  for (const char *s = f->res.output.data, *hit; *s; s = hit + strlen(root)) {
    hit = strstr(s, root);
    if (!hit) {
      zbuf_addstr(&shown, s);
      break;
    }
    zbuf_add(&shown, s, (size_t)(hit - s));
    zbuf_addstr(&shown, "$ROOT");
  }
  free(root);
  zbuf_release(&f->res.output);
  f->res.output = shown;
  zbuf why = ZBUF_INIT;
  if (zfs_exists(after)) {
    if (rc != 0) zbuf_addf(&why, "failed: %s\n", f->res.output.data);
    else compare_trees(after, f->ws, &why);
  } else {
    zbuf want = ZBUF_INIT;
    zfs_read_file(errp, &want, 0, NULL);
    zbuf_rtrim(&want);
    if (getenv("ZERO_PATCH_BLESS")) {
      zbuf_addch(&f->res.output, '\n');
      assert_int_equal(zfs_write_atomic(errp, f->res.output.data, f->res.output.len, 0644, NULL), 0);
    } else if (rc == 0) {
      zbuf_addf(&why, "succeeded but should fail with:\n%s\n", want.data);
    } else if (strcmp(want.data, f->res.output.data)) {
      zbuf_addf(&why, "wrong error:\n--- expected\n%s\n--- got\n%s\n", want.data,
                f->res.output.data);
    } else {
      compare_trees(before, f->ws, &why); /* all or nothing */
    }
    zbuf_release(&want);
  }
  if (why.len) zbuf_addf(failures, "case %s: %s\n", name, why.data);
  zbuf_release(&why);
  zbuf_release(&patch);
  free(before);
  free(after);
  free(patchp);
  free(errp);
  free(ffp);
}

static void test_fixture_cases(void **state) {
  tfx *f = *state;
  DIR *d = opendir(FIXTURES_DIR "/patch");
  assert_non_null(d);
  strv names = ZVEC_INIT;
  struct dirent *e;
  while ((e = readdir(d)))
    if (e->d_name[0] != '.') zvec_push(&names, xstrdup(e->d_name));
  closedir(d);
  qsort(names.items, names.len, sizeof(char *), cmp_str);
  assert_true(names.len >= 40);
  zbuf failures = ZBUF_INIT;
  for (size_t i = 0; i < names.len; i++) {
    char *dir = zpath_join(FIXTURES_DIR "/patch", names.items[i]);
    run_case(f, dir, names.items[i], &failures);
    free(dir);
  }
  strv_free(&names);
  if (failures.len) fail_msg("%s", failures.data);
  zbuf_release(&failures);
}

/* The before-write hook sees every path before anything changes, and a
 * refusal leaves the workspace untouched. */
static int hook_calls;
static int refuse_second(void *ud, const char *tool, const char *abs_path, char **message) {
  (void)ud;
  assert_string_equal(tool, "apply_patch");
  assert_non_null(strstr(abs_path, "/ws/"));
  if (++hook_calls == 2) {
    *message = xstrdup("checkpoint store is full");
    return 1;
  }
  return 0;
}

static void test_before_write_hook_refusal_changes_nothing(void **state) {
  tfx *f = *state;
  tfx_write_str(f, "a.txt", "a\n");
  tfx_write_str(f, "b.txt", "b\n");
  f->ctx.write_hook.before_write = refuse_second;
  hook_calls = 0;
  int rc = tfx_run(f, "apply_patch", "{\"input\":\"*** Begin Patch\\n*** Update File: a.txt\\n"
                   "-a\\n+A\\n*** Delete File: b.txt\\n*** End Patch\"}");
  assert_int_equal(rc, -1);
  assert_int_equal(hook_calls, 2);
  assert_output_contains(f, "the change to b.txt was refused: checkpoint store is full");
  char *a = tfx_read(f, "a.txt"), *b = tfx_read(f, "b.txt");
  assert_string_equal(a, "a\n");
  assert_string_equal(b, "b\n");
  free(a);
  free(b);
}

static int count_calls(void *ud, const char *tool, const char *abs_path, char **message) {
  (void)abs_path;
  (void)message;
  zbuf *seen = ud;
  zbuf_addf(seen, "%s;", tool);
  return 0;
}

static void test_hook_called_by_write_and_edit(void **state) {
  tfx *f = *state;
  zbuf seen = ZBUF_INIT;
  f->ctx.write_hook.before_write = count_calls;
  f->ctx.write_hook.ud = &seen;
  assert_int_equal(tfx_run(f, "write_file", "{\"path\":\"n.txt\",\"content\":\"x\\n\"}"), 0);
  assert_int_equal(tfx_run(f, "read_file", "{\"path\":\"n.txt\"}"), 0);
  assert_int_equal(tfx_run(f, "edit_file", "{\"path\":\"n.txt\",\"old_string\":\"x\","
                                           "\"new_string\":\"y\"}"), 0);
  assert_string_equal(seen.data, "write_file;edit_file;");
  zbuf_release(&seen);
}

/* The parser must not crash or loop on truncated or odd input. */
/* Deleting or moving a symlink the patch names removes the link, not the
 * file it points to (which used to be deleted, leaving a dangling link). */
static void test_delete_and_move_of_a_symlink_act_on_the_link(void **state) {
  tfx *f = *state;
  tfx_write_str(f, "real.txt", "real\n");
  char *real = tfx_path(f, "real.txt");
  char *l1 = tfx_path(f, "l1.txt");
  char *l2 = tfx_path(f, "l2.txt");
  assert_int_equal(symlink("real.txt", l1), 0);
  assert_int_equal(symlink(real, l2), 0);
  assert_int_equal(tfx_run(f, "apply_patch", "{\"input\":\"*** Begin Patch\\n*** Delete File: l1.txt\\n"
                                              "*** End Patch\"}"),
                   0);
  struct stat st;
  assert_int_equal(lstat(l1, &st), -1);
  char *t = tfx_read(f, "real.txt");
  assert_string_equal(t, "real\n");
  free(t);
  assert_int_equal(tfx_run(f, "apply_patch", "{\"input\":\"*** Begin Patch\\n*** Update File: l2.txt\\n"
                                              "*** Move to: moved.txt\\n-real\\n+moved\\n"
                                              "*** End Patch\"}"),
                   0);
  assert_int_equal(lstat(l2, &st), -1);
  t = tfx_read(f, "real.txt");
  assert_string_equal(t, "real\n");
  free(t);
  t = tfx_read(f, "moved.txt");
  assert_string_equal(t, "moved\n");
  free(t);
  free(real);
  free(l1);
  free(l2);
}

static void test_parser_odd_inputs(void **state) {
  (void)state;
  const char *inputs[] = {"", "***", "*** Begin Patch", "*** Begin Patch\n*** Update File:",
                          "--- a\n+++ b\n@@", "@@ -1 +1 @@\n-a\n+b", "--- /dev/null\n+++ /dev/null\n",
                          "*** Begin Patch\n*** Update File: x\n@@\n@@\n*** End Patch"};
  for (size_t i = 0; i < ZARRAY_LEN(inputs); i++) {
    zpatch p = ZPATCH_INIT;
    zbuf err = ZBUF_INIT;
    int rc = zpatch_parse(inputs[i], strlen(inputs[i]), &p, &err);
    if (rc < 0) assert_true(err.len > 0);
    zpatch_release(&p);
    zbuf_release(&err);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      TFX_TEST(test_fixture_cases),
      TFX_TEST(test_before_write_hook_refusal_changes_nothing),
      TFX_TEST(test_hook_called_by_write_and_edit),
      TFX_TEST(test_delete_and_move_of_a_symlink_act_on_the_link),
      cmocka_unit_test(test_parser_odd_inputs),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
