/* test_base_prims.c — the shared primitives of base/: strvec (argv / env
 * vectors), the lazy library loader, base64, the URL parser, SHA-256. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/common.h"
#include "base/strvec.h"

/* ---- strvec ----------------------------------------------------------------- */

static void strvec_starts_empty_and_terminated(void **state) {
  (void)state;
  strvec a = STRVEC_INIT;
  assert_non_null(a.v);
  assert_null(a.v[0]);
  assert_int_equal(a.nr, 0);
  strvec_pop(&a); /* nothing to pop: stays empty */
  assert_int_equal(a.nr, 0);
  char **v = strvec_detach(&a);
  assert_non_null(v);
  assert_null(v[0]);
  assert_true(v != strvec_empty); /* a detached array is always the caller's */
  strvec_free_array(v);
  strvec_clear(&a);
}

static void strvec_pushes_copies_and_keeps_null_last(void **state) {
  (void)state;
  strvec a = STRVEC_INIT;
  char word[] = "echo";
  strvec_push(&a, word);
  word[0] = 'X'; /* the vector holds its own copy */
  strvec_pushf(&a, "--n=%d", 42);
  strvec_pushl(&a, "a", "b", NULL);
  char c[] = "c", d[] = "d";
  char *more[] = {c, d, NULL};
  strvec_pushv(&a, more);
  strvec_pushv(&a, NULL);
  strvec_push_nodup(&a, xstrdup("e"));
  const char *want[] = {"echo", "--n=42", "a", "b", "c", "d", "e"};
  assert_int_equal(a.nr, ZARRAY_LEN(want));
  for (size_t i = 0; i < a.nr; i++) assert_string_equal(a.v[i], want[i]);
  assert_null(a.v[a.nr]);
  strvec_pop(&a);
  assert_int_equal(a.nr, 6);
  assert_null(a.v[6]);
  strvec_clear(&a);
  assert_int_equal(a.nr, 0);
  assert_null(a.v[0]);
}

static void strvec_grows_past_many_pushes_and_detaches(void **state) {
  (void)state;
  strvec a = STRVEC_INIT;
  for (int i = 0; i < 1000; i++) strvec_pushf(&a, "%d", i);
  assert_int_equal(a.nr, 1000);
  assert_string_equal(a.v[999], "999");
  assert_null(a.v[1000]);
  char **v = strvec_detach(&a);
  assert_int_equal(a.nr, 0);
  assert_true(a.v == strvec_empty);
  assert_string_equal(v[0], "0");
  assert_null(v[1000]);
  strvec_free_array(v);
  strvec_free_array(NULL);
}

static void strvec_attaches_and_duplicates_arrays(void **state) {
  (void)state;
  char x[] = "x", y[] = "y";
  char *src[] = {x, y, NULL};
  char **copy = strvec_dup_array(src);
  assert_true(copy[0] != x);
  assert_string_equal(copy[1], "y");
  assert_null(copy[2]);
  strvec a = STRVEC_INIT;
  strvec_push(&a, "first");
  strvec_attach(&a, copy); /* takes the strings, frees the array */
  strvec_attach(&a, NULL);
  assert_int_equal(a.nr, 3);
  assert_string_equal(a.v[0], "first");
  assert_string_equal(a.v[2], "y");
  assert_null(a.v[3]);
  strvec_clear(&a);
  char **none = strvec_dup_array(NULL);
  assert_null(none[0]);
  strvec_free_array(none);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(strvec_starts_empty_and_terminated),
      cmocka_unit_test(strvec_pushes_copies_and_keeps_null_last),
      cmocka_unit_test(strvec_grows_past_many_pushes_and_detaches),
      cmocka_unit_test(strvec_attaches_and_duplicates_arrays),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
