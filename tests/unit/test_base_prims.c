/* test_base_prims.c — the shared primitives of base/: strvec (argv / env
 * vectors), the lazy library loader, base64, the URL parser, SHA-256. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <pthread.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <errno.h>
#include <signal.h>
#include <sys/socket.h>

#include "base/base64.h"
#include "base/buf.h"
#include "base/common.h"
#include "base/dlib.h"
#include "base/fs.h"
#include "base/hash.h"
#include "base/json.h"
#include "base/path.h"
#include "base/strvec.h"
#include "base/time.h"
#include "base/url.h"

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

/* zfs_send_all: everything arrives; a peer that left is -1 with EPIPE, and
 * the process is not killed by SIGPIPE (left at its default here). */
static void send_all_writes_everything_and_survives_a_gone_peer(void **state) {
  (void)state;
  int sv[2];
  assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
  signal(SIGPIPE, SIG_DFL);
  assert_int_equal(zfs_send_all(sv[0], "hello", 5), 0);
  char got[8] = {0};
  assert_int_equal(read(sv[1], got, sizeof got), 5);
  assert_string_equal(got, "hello");
  close(sv[1]);
  errno = 0;
  assert_int_equal(zfs_send_all(sv[0], "more", 4), -1);
  assert_int_equal(errno, EPIPE);
  close(sv[0]);
}

/* ztime_realtime_after: now + ms on the realtime clock, nanoseconds carried
 * into seconds (999 ms pushes most clocks past a second boundary). */
static void realtime_after_adds_and_normalizes(void **state) {
  (void)state;
  struct timespec before, after;
  clock_gettime(CLOCK_REALTIME, &before);
  struct timespec t = ztime_realtime_after(1999);
  clock_gettime(CLOCK_REALTIME, &after);
  assert_true(t.tv_nsec >= 0 && t.tv_nsec < 1000000000L);
  int64_t ns = (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
  int64_t lo = (int64_t)before.tv_sec * 1000000000 + before.tv_nsec + 1999000000;
  int64_t hi = (int64_t)after.tv_sec * 1000000000 + after.tv_nsec + 1999000000;
  assert_true(ns >= lo && ns <= hi);
}

/* zutf8_put: each length's first and last code point, as the bytes UTF-8
 * defines (and valid by the decoder's rules). */
static void utf8_put_encodes_every_length(void **state) {
  (void)state;
  static const struct {
    uint32_t cp;
    const char *want;
  } cases[] = {{0x41, "A"},
               {0x7F, "\x7F"},
               {0x80, "\xC2\x80"},
               {0x7FF, "\xDF\xBF"},
               {0x800, "\xE0\xA0\x80"},
               {0xFFFD, "\xEF\xBF\xBD"},
               {0x10000, "\xF0\x90\x80\x80"},
               {0x10FFFF, "\xF4\x8F\xBF\xBF"}};
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    zbuf b = ZBUF_INIT;
    zutf8_put(&b, cases[i].cp);
    assert_int_equal(b.len, strlen(cases[i].want));
    assert_memory_equal(b.data, cases[i].want, b.len);
    assert_true(zutf8_valid(b.data, b.len));
    zbuf_release(&b);
  }
}

/* xstrfmt: a new string, past the first 64-byte guess too, and "" (not NULL)
 * for an empty result. */
static void xstrfmt_formats_short_long_and_empty(void **state) {
  (void)state;
  char *s = xstrfmt("%s-%d", "n", 42);
  assert_string_equal(s, "n-42");
  free(s);
  s = xstrfmt("%0200d", 7);
  assert_int_equal(strlen(s), 200);
  assert_int_equal(s[199], '7');
  free(s);
  s = xstrfmt("%s", "");
  assert_non_null(s);
  assert_string_equal(s, "");
  free(s);
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

/* ---- dlib --------------------------------------------------------------------- */

typedef struct libm_fns {
  double (*cos_)(double);
  double (*sqrt_)(double);
  void (*absent)(void);
} libm_fns;

static libm_fns M;
static int describe_calls;
static int after_calls;

static const zdlib_sym libm_syms[] = {
    ZDLIB_SYM(libm_fns, cos_, "cos"),
    ZDLIB_SYM(libm_fns, sqrt_, "sqrt"),
    ZDLIB_SYM_OPT(libm_fns, absent, "zero_no_such_function"),
};

static void libm_after(void *handle) {
  assert_non_null(handle);
  __atomic_add_fetch(&after_calls, 1, __ATOMIC_RELAXED);
}

/* The first soname does not exist: the next one of the list is opened. */
static void describe_libm(zdlib_spec *s) {
  __atomic_add_fetch(&describe_calls, 1, __ATOMIC_RELAXED);
  ZDLIB_DESCRIBE(s, "libzero-no-such.so.9:libm.so.6", "libm", "for tests", "libc6", NULL,
                 libm_syms, &M, libm_after);
}

static zdlib libm_lib = ZDLIB_INIT;

static void *load_libm(void *arg) {
  (void)arg;
  return zdlib_load(&libm_lib, describe_libm) ? (void *)1 : NULL;
}

/* Eight threads race for the first load: the library is described, opened
 * and set up exactly once, every thread sees the resolved table, a missing
 * optional symbol is NULL. */
static void dlib_loads_once_across_threads(void **state) {
  (void)state;
  assert_false(zdlib_loaded(&libm_lib));
  pthread_t t[8];
  for (size_t i = 0; i < ZARRAY_LEN(t); i++)
    assert_int_equal(pthread_create(&t[i], NULL, load_libm, NULL), 0);
  for (size_t i = 0; i < ZARRAY_LEN(t); i++) {
    void *ok = NULL;
    assert_int_equal(pthread_join(t[i], &ok), 0);
    assert_non_null(ok);
  }
  assert_true(zdlib_loaded(&libm_lib));
  assert_int_equal(describe_calls, 1);
  assert_int_equal(after_calls, 1);
  assert_true(M.sqrt_(16.0) == 4.0);
  assert_true(M.cos_(0.0) == 1.0);
  assert_null(M.absent);
  assert_string_equal(zdlib_error(&libm_lib), "");
}

static void describe_missing_lib(zdlib_spec *s) {
  ZDLIB_DESCRIBE(s, "libzero-no-such.so.9", "libnosuch", "for the frobnicator", "libnosuch9",
                 NULL, libm_syms, &M, NULL);
}

static libm_fns N;
static const zdlib_sym needs_absent[] = {ZDLIB_SYM(libm_fns, absent, "zero_no_such_function")};

static void describe_missing_sym(zdlib_spec *s) {
  ZDLIB_DESCRIBE(s, "libm.so.6", "libm", "for tests", "libc6", "libm 9.9", needs_absent, &N,
                 NULL);
}

/* A library that is not there, or lacks a required symbol, fails with a
 * message naming the library, what zero needs it for and the package to
 * install (or the symbol and the version); the outcome sticks. */
static void dlib_failure_names_library_and_package(void **state) {
  (void)state;
  zdlib missing = ZDLIB_INIT;
  zerr err = ZERR_INIT;
  assert_int_equal(zdlib_require(&missing, describe_missing_lib, &err), -1);
  assert_non_null(strstr(err.msg, "cannot load libzero-no-such.so.9"));
  assert_non_null(strstr(err.msg, "zero needs libnosuch for the frobnicator"));
  assert_non_null(strstr(err.msg, "apt-get install libnosuch9"));
  assert_false(zdlib_load(&missing, describe_missing_lib));
  assert_false(zdlib_loaded(&missing));
  assert_string_equal(zdlib_error(&missing), err.msg);

  zdlib nosym = ZDLIB_INIT;
  assert_int_equal(zdlib_require(&nosym, describe_missing_sym, &err), -1);
  assert_string_equal(err.msg,
                      "libm.so.6 has no zero_no_such_function; zero needs libm 9.9 or newer");
}

/* A folder's listing is sorted and leaves out dot entries, whatever order
 * readdir gives; it appends after what the vector holds; a missing folder
 * is -1. */
static void list_dir_is_sorted_without_dot_entries(void **state) {
  (void)state;
  char dir[] = "/tmp/zero-listdir-XXXXXX";
  assert_non_null(mkdtemp(dir));
  const char *names[] = {"b.md", ".hidden", "a", "C", "a.md"};
  zerr err = ZERR_INIT;
  for (size_t i = 0; i < ZARRAY_LEN(names); i++) {
    char *p = zpath_join(dir, names[i]);
    assert_int_equal(zfs_write_atomic(p, "x", 1, 0600, &err), 0);
    free(p);
  }
  strvec v = STRVEC_INIT;
  strvec_push(&v, "kept");
  assert_int_equal(zfs_list_dir(dir, &v), 4);
  assert_int_equal(v.nr, 5);
  const char *want[] = {"kept", "C", "a", "a.md", "b.md"};
  for (size_t i = 0; i < ZARRAY_LEN(want); i++) assert_string_equal(v.v[i], want[i]);
  assert_null(v.v[5]);
  strvec_sort(&v);
  assert_string_equal(v.v[0], "C");
  assert_string_equal(v.v[4], "kept");
  strvec_clear(&v);
  assert_int_equal(zfs_remove_tree(dir), 0);
  assert_int_equal(zfs_list_dir(dir, &v), -1);
  assert_int_equal(v.nr, 0);
}

/* ---- hash --------------------------------------------------------------------- */

/* FIPS 180-2 vectors, of a buffer and of a file; a missing file fails as
 * zfs_read_file does. */
/* A lock held elsewhere is waited for up to the timeout, then reported with
 * its file; once free it is taken at once. */
static void lock_path_wait_gives_up_after_its_timeout(void **state) {
  (void)state;
  char dir[] = "/tmp/zero-lock-XXXXXX";
  assert_non_null(mkdtemp(dir));
  char *path = zpath_join(dir, "thing");
  zerr err = ZERR_INIT;
  int held = zfs_lock_path(path, &err);
  assert_true(held >= 0);
  /* a second open file description: flock conflicts as between processes */
  int fd = zfs_lock_path_wait(path, 100, "testing", &err);
  assert_int_equal(fd, -1);
  assert_int_equal(err.kind, ZE_TIMEOUT);
  assert_non_null(strstr(err.msg, "thing.lock"));
  assert_non_null(strstr(err.msg, "testing"));
  close(held);
  err = (zerr)ZERR_INIT;
  fd = zfs_lock_path_wait(path, 100, "testing", &err);
  assert_true(fd >= 0);
  close(fd);
  char *lock = zpath_join(dir, "thing.lock");
  unlink(lock);
  rmdir(dir);
  free(lock);
  free(path);
}

static void sha256_hex_of_buffer_and_file(void **state) {
  (void)state;
  char hex[ZSHA256_HEX_SIZE];
  zerr err = ZERR_INIT;
  assert_int_equal(zsha256_hex("abc", 3, hex, &err), 0);
  assert_string_equal(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  const char *two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
  assert_int_equal(zsha256_hex(two, strlen(two), hex, &err), 0);
  assert_string_equal(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  unsigned char raw[ZSHA256_LEN];
  assert_int_equal(zsha256("", 0, raw, &err), 0);
  assert_int_equal(raw[0], 0xe3);
  assert_int_equal(raw[31], 0x55);

  char path[] = "/tmp/zero-hash-XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  assert_int_equal(zfs_write_all(fd, "abc", 3), 0);
  close(fd);
  assert_int_equal(zsha256_file_hex(path, 0, hex, &err), 0);
  assert_string_equal(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  assert_int_equal(zsha256_file_hex(path, 2, hex, &err), -1);
  assert_int_equal(err.kind, ZE_TOO_LARGE);
  unlink(path);
  assert_int_equal(zsha256_file_hex(path, 0, hex, &err), -1);
  assert_int_equal(err.kind, ZE_NOT_FOUND);
}

/* ---- base64 ------------------------------------------------------------------- */

/* RFC 4648 §10 vectors, standard (padded) and url (unpadded), and bytes that
 * differ between the alphabets; the length check accepts what the encoder
 * writes and refuses what is not base64. */
static void base64_matches_rfc4648(void **state) {
  (void)state;
  const char *in[] = {"", "f", "fo", "foo", "foob", "fooba", "foobar"};
  const char *std[] = {"", "Zg==", "Zm8=", "Zm9v", "Zm9vYg==", "Zm9vYmE=", "Zm9vYmFy"};
  const char *url[] = {"", "Zg", "Zm8", "Zm9v", "Zm9vYg", "Zm9vYmE", "Zm9vYmFy"};
  for (size_t i = 0; i < ZARRAY_LEN(in); i++) {
    zbuf b = ZBUF_INIT;
    zbase64_add(&b, in[i], strlen(in[i]));
    assert_string_equal(b.data, std[i]);
    assert_int_equal(zbase64_decoded_len(b.data, b.len), (long long)strlen(in[i]));
    zbuf_reset(&b);
    zbase64url_add(&b, in[i], strlen(in[i]));
    assert_string_equal(b.data, url[i]);
    zbuf_release(&b);
  }
  const unsigned char hi[] = {0xfb, 0xff, 0xbf};
  zbuf b = ZBUF_INIT;
  zbase64_add(&b, hi, sizeof hi);
  assert_string_equal(b.data, "+/+/");
  zbuf_reset(&b);
  zbase64url_add(&b, hi, sizeof hi);
  assert_string_equal(b.data, "-_-_");
  zbuf_release(&b);
  assert_int_equal(zbase64_decoded_len("Zm9vYg", 6), 4); /* padding optional */
  assert_int_equal(zbase64_decoded_len("-_-_", 4), -1);
  assert_int_equal(zbase64_decoded_len("Zm9vY", 5), -1);
  assert_int_equal(zbase64_decoded_len("Zg=", 3), -1);
  assert_int_equal(zbase64_decoded_len("Zm 9v", 5), -1);
}

/* ---- url ---------------------------------------------------------------------- */

/* The parts as curl reads them: userinfo ends at the last '@', default
 * ports, IPv6 in brackets, lowercased host; path_at marks where the
 * authority ends; anything but plain http(s) is refused. */
static void url_parse_reads_authority_like_curl(void **state) {
  (void)state;
  zurl u;
  const char *a = "HTTPS://User:pw@api.openai.com@Evil.Example.:8443/v1?x#y";
  assert_true(zurl_parse(a, &u));
  assert_string_equal(u.scheme, "https");
  assert_string_equal(u.host, "evil.example");
  assert_int_equal(u.port, 8443);
  assert_string_equal(a + u.path_at, "/v1?x#y");
  assert_true(zurl_parse("http://[::1]/", &u));
  assert_true(u.ipv6);
  assert_string_equal(u.host, "::1");
  assert_int_equal(u.port, 80);
  assert_true(zurl_parse("http://h?q", &u));
  assert_int_equal(u.path_at, strlen("http://h"));
  assert_false(zurl_parse("ftp://h/", &u));
  assert_false(zurl_parse("http:///p", &u));
  assert_false(zurl_parse("http://h:0/", &u));
  assert_false(zurl_parse("http://h:70000/", &u));
  assert_false(zurl_parse("http://a b/", &u));
  char *o = zurl_origin(a);
  assert_string_equal(o, "https://evil.example:8443");
  free(o);
  assert_true(zurl_is_loopback("http://127.0.0.2:9/"));
  assert_false(zurl_is_loopback("http://localhost.evil.example/"));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(strvec_starts_empty_and_terminated),
      cmocka_unit_test(strvec_pushes_copies_and_keeps_null_last),
      cmocka_unit_test(strvec_grows_past_many_pushes_and_detaches),
      cmocka_unit_test(xstrfmt_formats_short_long_and_empty),
      cmocka_unit_test(utf8_put_encodes_every_length),
      cmocka_unit_test(realtime_after_adds_and_normalizes),
      cmocka_unit_test(send_all_writes_everything_and_survives_a_gone_peer),
      cmocka_unit_test(strvec_attaches_and_duplicates_arrays),
      cmocka_unit_test(list_dir_is_sorted_without_dot_entries),
      cmocka_unit_test(dlib_loads_once_across_threads),
      cmocka_unit_test(dlib_failure_names_library_and_package),
      cmocka_unit_test(lock_path_wait_gives_up_after_its_timeout),
      cmocka_unit_test(sha256_hex_of_buffer_and_file),
      cmocka_unit_test(base64_matches_rfc4648),
      cmocka_unit_test(url_parse_reads_authority_like_curl),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
