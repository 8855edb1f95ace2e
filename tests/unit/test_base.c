/* test_base.c — buf, path, json/utf8, ids, fs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/common.h"
#include "base/fs.h"
#include "base/ids.h"
#include "base/json.h"
#include "base/mathx.h"
#include "base/num.h"
#include "base/path.h"

static void buf_grows_and_stays_terminated(void **state) {
  (void)state;
  zbuf b = ZBUF_INIT;
  assert_int_equal(b.len, 0);
  assert_string_equal(b.data, "");
  for (int i = 0; i < 1000; i++) zbuf_addf(&b, "%d,", i);
  assert_int_equal(b.data[b.len], '\0');
  assert_true(zbuf_ends_with(&b, "999,"));
  zbuf_consume(&b, 2);
  assert_memory_equal(b.data, "1,2,", 4);
  zbuf_setlen(&b, 0);
  assert_string_equal(b.data, "");
  zbuf_addstr(&b, "  x \n");
  zbuf_rtrim(&b);
  assert_string_equal(b.data, "  x");
  char *s = zbuf_detach(&b, NULL);
  assert_string_equal(s, "  x");
  free(s);
  assert_int_equal(b.len, 0);
  zbuf_release(&b);
}

static void path_normalises_lexically(void **state) {
  (void)state;
  char *p = zpath_absolute("a/./b/../c//d", "/w");
  assert_string_equal(p, "/w/a/c/d");
  free(p);
  p = zpath_absolute("../../..", "/w/x");
  assert_string_equal(p, "/");
  free(p);
  assert_true(zpath_is_within("/w", "/w"));
  assert_true(zpath_is_within("/w", "/w/a"));
  assert_false(zpath_is_within("/w", "/wx"));
  assert_true(zpath_is_within("/", "/anything"));
  p = zpath_relative("/w", "/w/a/b");
  assert_string_equal(p, "a/b");
  free(p);
  p = zpath_relative("/w", "/w");
  assert_string_equal(p, ".");
  free(p);
}

static void utf8_validation_and_boundaries(void **state) {
  (void)state;
  assert_true(zutf8_valid("héllo", strlen("héllo")));
  assert_false(zutf8_valid("\xff\xfe", 2));
  assert_false(zutf8_valid("\xc3", 1));           /* truncated */
  assert_false(zutf8_valid("\xed\xa0\x80", 3));   /* surrogate */
  assert_false(zutf8_valid("\xc0\xaf", 2));       /* overlong */
  const char *s = "ab\xe2\x82\xac"; /* "ab€" */
  assert_int_equal(zutf8_boundary(s, 5), 5);
  assert_int_equal(zutf8_boundary(s, 4), 2);
  assert_int_equal(zutf8_boundary(s, 3), 2);
  assert_int_equal(zutf8_boundary(s, 2), 2);

  /* Sanitizing: every byte that starts no valid sequence becomes U+FFFD. */
  zbuf b = ZBUF_INIT;
  zbuf_addstr(&b, "caf\xe9 \xe2\x82\xac \xed\xa0\x80!");
  assert_int_equal(zutf8_sanitize(&b), 4); /* é in Latin-1, a 3-byte surrogate */
  assert_string_equal(b.data, "caf\xef\xbf\xbd \xe2\x82\xac \xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd!");
  assert_true(zutf8_valid(b.data, b.len));
  assert_int_equal(zutf8_sanitize(&b), 0); /* valid text is left alone */
  zbuf_reset(&b);
  zbuf_addstr(&b, "ab\xe2\x82"); /* cut in the middle of a character */
  assert_int_equal(zutf8_sanitize(&b), 2);
  assert_string_equal(b.data, "ab\xef\xbf\xbd\xef\xbf\xbd");
  zbuf_release(&b);
}

static void json_parse_error_names_line_and_column(void **state) {
  (void)state;
  zerr err = ZERR_INIT;
  json_t *v = zjson_parse("{\n  \"a\": ,\n}", 12, "cfg.json", &err);
  assert_null(v);
  assert_int_equal(err.kind, ZE_INVALID);
  assert_non_null(strstr(err.msg, "cfg.json:2:"));
  v = zjson_parse("{\"a\":\"x\",\"n\":3}", 15, "t", &err);
  assert_string_equal(zjson_str(v, "a"), "x");
  assert_int_equal(zjson_int_or(v, "n", 0), 3);
  assert_int_equal(zjson_int_or(v, "missing", 7), 7);
  char *d = zjson_dumps(v);
  assert_string_equal(d, "{\"a\":\"x\",\"n\":3}");
  free(d);
  json_decref(v);
}

/* The --json output of the CLI commands: jansson's rendering plus a newline;
 * nothing at all when jansson refuses the value. */
static void json_print_renders_then_ends_the_line(void **state) {
  (void)state;
  json_t *v = json_pack("{s:i, s:[s]}", "b", 1, "a", "x");
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  assert_int_equal(zjson_print(f, v, JSON_INDENT(2) | JSON_PRESERVE_ORDER), 0);
  json_t *scalar = json_integer(3);
  assert_int_equal(zjson_print(f, scalar, JSON_INDENT(2)), -1); /* no JSON_ENCODE_ANY */
  fclose(f);
  assert_string_equal(text, "{\n  \"b\": 1,\n  \"a\": [\n    \"x\"\n  ]\n}\n");
  free(text);
  zbuf b = ZBUF_INIT;
  zbuf_addstr(&b, "> ");
  assert_int_equal(zjson_print_to(&b, v, 0), 0);
  assert_int_equal(zjson_print_to(&b, scalar, 0), -1);
  assert_string_equal(b.data, "> {\"b\": 1, \"a\": [\"x\"]}\n");
  zbuf_release(&b);
  json_decref(scalar);
  json_decref(v);
}

/* The checked number readers that replace sscanf: each field is read with
 * its errors seen, and the cursor steps past it. */
static void num_readers_see_every_error(void **state) {
  (void)state;
  const char *s = " 12 -3x";
  long v = 0;
  assert_true(znum_long(&s, 0, 100, &v));
  assert_int_equal(v, 12);
  assert_true(znum_long(&s, -5, 5, &v));
  assert_int_equal(v, -3);
  assert_string_equal(s, "x");
  assert_false(znum_long(&s, 0, 100, &v)); /* no digit: cursor stays */
  assert_string_equal(s, "x");
  const char *big = "99999999999999999999999";
  assert_false(znum_long(&big, 0, 100, &v)); /* overflow is an error, not LONG_MAX */
  const char *out_of_range = "101";
  assert_false(znum_long(&out_of_range, 0, 100, &v));
  const char *t = "2026-12";
  int y = 0, mo = 0;
  assert_true(znum_digits(&t, 4, &y));
  assert_int_equal(y, 2026);
  assert_int_equal(*t++, '-');
  assert_true(znum_digits(&t, 2, &mo));
  assert_int_equal(mo, 12);
  const char *sign = "+5";
  assert_false(znum_digits(&sign, 2, &mo)); /* digits only */
}

static void ids_are_uuid_shaped_and_safe(void **state) {
  (void)state;
  char a[ZID_UUID_LEN], b[ZID_UUID_LEN];
  zid_uuid4(a);
  zid_uuid7(b);
  assert_int_equal(strlen(a), 36);
  assert_int_equal(a[14], '4');
  assert_int_equal(b[14], '7');
  assert_string_not_equal(a, b);
  assert_true(zid_is_safe("zero_20260101_1"));
  assert_false(zid_is_safe("../etc"));
  assert_false(zid_is_safe(""));
  assert_false(zid_is_safe("a/b"));
}

static void atomic_write_replaces_with_mode(void **state) {
  (void)state;
  char dir[] = "/tmp/zero-test-XXXXXX";
  assert_non_null(mkdtemp(dir));
  char *nested = zpath_join(dir, "a/b/c");
  zerr err = ZERR_INIT;
  assert_int_equal(zfs_mkdir_p(nested, 0700, &err), 0);
  char *file = zpath_join(nested, "f.json");
  assert_int_equal(zfs_write_atomic(file, "one", 3, 0600, &err), 0);
  assert_int_equal(zfs_write_atomic(file, "two!", 4, 0600, &err), 0);
  zbuf b = ZBUF_INIT;
  assert_int_equal(zfs_read_file(file, &b, 0, &err), 0);
  assert_string_equal(b.data, "two!");
  struct stat st;
  assert_int_equal(stat(file, &st), 0);
  assert_int_equal(st.st_mode & 0777, 0600);
  zbuf_reset(&b);
  assert_int_equal(zfs_read_file(file, &b, 2, &err), -1);
  assert_int_equal(err.kind, ZE_TOO_LARGE);
  char *missing = zpath_join(dir, "nope");
  assert_int_equal(zfs_read_file(missing, &b, 0, &err), -1);
  assert_int_equal(err.kind, ZE_NOT_FOUND);
  zbuf_release(&b);
  free(missing);
  free(file);
  free(nested);
  char cmd[256];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  assert_int_equal(system(cmd), 0);
}

/* Adds the key named by ud to the document (a locked update's change). */
static int add_key(json_t **doc, void *ud, zerr *err) {
  (void)err;
  json_object_set_new(*doc, (const char *)ud, json_true());
  return 0;
}

static int leave_alone(json_t **doc, void *ud, zerr *err) {
  (void)doc, (void)ud, (void)err;
  return 1;
}

/* 30 processes each add their own key at once: the file ends with all 30
 * (without the lock and the re-read inside it, concurrent read-modify-write
 * keeps only a few). A file that is not JSON is an error, never replaced. */
static void locked_update_loses_no_concurrent_change(void **state) {
  (void)state;
  char dir[] = "/tmp/zero-test-XXXXXX";
  assert_non_null(mkdtemp(dir));
  char *file = zpath_join(dir, "sub/grants.json");
  enum { WRITERS = 30 };
  pid_t pids[WRITERS];
  for (int i = 0; i < WRITERS; i++) {
    pids[i] = fork();
    assert_true(pids[i] >= 0);
    if (pids[i] == 0) {
      char key[16];
      snprintf(key, sizeof key, "k%d", i);
      zerr err = ZERR_INIT;
      _exit(zjson_update_file(file, 0, 0600, add_key, key, &err) == 0 ? 0 : 1);
    }
  }
  for (int i = 0; i < WRITERS; i++) {
    int st = 0;
    assert_int_equal(waitpid(pids[i], &st, 0), pids[i]);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
  }
  zerr err = ZERR_INIT;
  json_t *doc = zjson_load_file(file, &err);
  assert_non_null(doc);
  assert_int_equal(json_object_size(doc), WRITERS);
  json_decref(doc);
  struct stat st;
  assert_int_equal(stat(file, &st), 0);
  assert_int_equal(st.st_mode & 0777, 0600);

  assert_int_equal(zjson_update_file(file, 0, 0600, leave_alone, NULL, &err), 1);
  assert_int_equal(zfs_write_atomic(file, "{broken", 7, 0600, &err), 0);
  assert_int_equal(zjson_update_file(file, 0, 0600, add_key, "x", &err), -1);
  assert_non_null(strstr(err.msg, "grants.json"));
  zbuf b = ZBUF_INIT;
  assert_int_equal(zfs_read_file(file, &b, 0, &err), 0);
  assert_string_equal(b.data, "{broken");
  zbuf_release(&b);
  free(file);
  char cmd[256];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  assert_int_equal(system(cmd), 0);
}

/* zmath_ln against libm's log: exact enough (a few ulps) over the whole
 * range, including subnormals, exact powers of two and values next to 1;
 * 0 for what has no logarithm. */
static void ln_matches_libm(void **state) {
  (void)state;
  const double fixed[] = {1.0, 2.0, 0.5, 10.0, 1e-300, 1e300, 1.7976931348623157e308,
                          4.9406564584124654e-324, 2.2250738585072014e-308, 1.0000000000000002,
                          0.9999999999999999, 1.4142135623730951, 1.4142135623730949, 3.0};
  for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) {
    double want = log(fixed[i]), got = zmath_ln(fixed[i]);
    double tol = fabs(want) * 4e-16 + 1e-300;
    if (fabs(got - want) > tol) fail_msg("ln(%.17g) = %.17g, libm %.17g", fixed[i], got, want);
  }
  /* A sweep over many magnitudes: x = 1.37^k and its neighbours. */
  double x = 1e-310;
  while (x < 1e308) {
    double want = log(x), got = zmath_ln(x);
    double tol = fabs(want) * 4e-16 + 4e-16;
    if (fabs(got - want) > tol) fail_msg("ln(%.17g) = %.17g, libm %.17g", x, got, want);
    x *= 1.0371;
  }
  assert_true(zmath_ln(1.0) == 0.0);
  assert_true(zmath_ln(0.0) == 0.0);
  assert_true(zmath_ln(-3.0) == 0.0);
  assert_true(zmath_ln(NAN) == 0.0);
  assert_true(zmath_ln(INFINITY) == 0.0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(buf_grows_and_stays_terminated),
      cmocka_unit_test(path_normalises_lexically),
      cmocka_unit_test(utf8_validation_and_boundaries),
      cmocka_unit_test(json_parse_error_names_line_and_column),
      cmocka_unit_test(json_print_renders_then_ends_the_line),
      cmocka_unit_test(num_readers_see_every_error),
      cmocka_unit_test(ids_are_uuid_shaped_and_safe),
      cmocka_unit_test(atomic_write_replaces_with_mode),
      cmocka_unit_test(locked_update_loses_no_concurrent_change),
      cmocka_unit_test(ln_matches_libm),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
