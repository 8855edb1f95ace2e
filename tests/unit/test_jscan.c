/* test_jscan.c — the stream fast paths' JSON scanner (provider/jscan.c)
 * against jansson: whatever the scanner accepts, jansson accepts too, with
 * the same string bytes (escapes, surrogate pairs, raw UTF-8); the tricky
 * cases jansson refuses are refused; and a few thousand seeded mutations of
 * real stream events hold the same rule. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "provider/jscan.h"

/* Walks any JSON text with the scanner, decoding every string value (member
 * names go through the key path); appends the decoded strings, one per
 * line, to out. Returns true when the whole text was accepted. */
static bool walk(zjscan *s, zbuf *out);
static size_t members; /* object members the scanner walked */

static bool walk_value(zjscan *s, zbuf *out) {
  char c = zjscan_peek(s);
  if (c == '{') {
    int n = 0, r;
    const char *k;
    size_t kn;
    while ((r = zjscan_member(s, &n, &k, &kn)) == 1) {
      zbuf_add(out, k, kn);
      zbuf_addch(out, '\n');
      members++;
      if (!walk_value(s, out)) return false;
    }
    return r == 0;
  }
  if (c == '[') {
    int n = 0, r;
    while ((r = zjscan_element(s, &n)) == 1)
      if (!walk_value(s, out)) return false;
    return r == 0;
  }
  if (c == '"') {
    size_t off, len;
    if (!zjscan_string(s, &off, &len)) return false;
    zbuf_add(out, s->scratch->data + off, len);
    zbuf_addch(out, '\n');
    return true;
  }
  return zjscan_skip(s);
}

static bool walk(zjscan *s, zbuf *out) {
  char c = zjscan_peek(s);
  if (c != '{' && c != '[') return false; /* jansson's flags 0: object or array */
  return walk_value(s, out) && zjscan_end(s);
}

/* The same strings in the same order, from jansson's tree. */
static size_t jansson_members;

static void jansson_strings(const json_t *v, zbuf *out) {
  if (json_is_object(v)) {
    /* Objects iterate in insertion order (jansson >= 2.8). */
    jansson_members += json_object_size(v);
    const char *k;
    json_t *x;
    json_object_foreach((json_t *)v, k, x) {
      zbuf_addstr(out, k);
      zbuf_addch(out, '\n');
      jansson_strings(x, out);
    }
  } else if (json_is_array(v)) {
    size_t i;
    json_t *x;
    json_array_foreach(v, i, x) jansson_strings(x, out);
  } else if (json_is_string(v)) {
    zbuf_add(out, json_string_value(v), json_string_length(v));
    zbuf_addch(out, '\n');
  }
}

/* Checks the contract on one text; returns whether the scanner accepted. */
static bool check(const char *text, size_t len) {
  zbuf scratch = ZBUF_INIT, mine = ZBUF_INIT, theirs = ZBUF_INIT;
  zjscan s;
  zjscan_init(&s, text, len, &scratch);
  members = jansson_members = 0;
  bool ok = walk(&s, &mine);
  json_error_t je;
  json_t *v = json_loadb(text, len, 0, &je);
  if (ok) {
    if (!v) fail_msg("scanner accepted what jansson refuses (%s): %.*s", je.text, (int)len, text);
    /* Repeated keys: jansson keeps the last; compare texts without. */
    jansson_strings(v, &theirs);
    if (members == jansson_members && (mine.len != theirs.len || memcmp(mine.data, theirs.data, mine.len)))
      fail_msg("strings differ for %.*s\n--- jansson\n%s--- scanner\n%s", (int)len, text,
               theirs.data, mine.data);
  }
  json_decref(v);
  zbuf_release(&scratch);
  zbuf_release(&mine);
  zbuf_release(&theirs);
  return ok;
}

static void accepts_and_decodes_like_jansson(void **st) {
  (void)st;
  static const char *const good[] = {
      "{}", "[]", " { } ", "\t[\n1 , 2 ]\r\n", "{\"a\":\"b\"}",
      "{\"s\":\"\\\" \\\\ \\/ \\b \\f \\n \\r \\t\"}",
      "{\"s\":\"caf\\u00e9 \\u20AC \\u20ac \\ud83d\\ude00 \\uD83D\\uDE00\"}",
      "{\"s\":\"raw \xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 \xf4\x8f\xbf\xbf \xee\x80\x80\"}",
      "{\"n\":[0,-0,1,-1,12.5,-0.25,123456789012345678,-123456789012345678]}",
      "{\"l\":[true,false,null],\"o\":{\"a\":{\"b\":[[{}]]}}}",
      "{\"s\":\"0123456789abcdefghijklmnopqrstuvwxyz long plain run \\n then more\"}",
      "{\"\":\"\"}",
  };
  for (size_t i = 0; i < sizeof good / sizeof *good; i++)
    if (!check(good[i], strlen(good[i]))) fail_msg("refused: %s", good[i]);
}

static void refuses_what_jansson_refuses_or_might(void **st) {
  (void)st;
  static const char *const bad[] = {
      "", "{", "{\"a\"}", "{\"a\":}", "{\"a\":1,}", "[1,]", "{\"a\":1}x", "{} {}",
      "{\"s\":\"\\u0000\"}",          /* NUL: jansson needs JSON_ALLOW_NUL */
      "{\"s\":\"\\ud800\"}",          /* lone high surrogate */
      "{\"s\":\"\\udc00\"}",          /* lone low surrogate */
      "{\"s\":\"\\ud800\\u0041\"}",   /* high + non-low */
      "{\"s\":\"\\ude00\\ud83d\"}",   /* reversed pair */
      "{\"s\":\"\\u12\"}", "{\"s\":\"\\x41\"}", "{\"s\":\"\\\"}", "{\"s\":\"a",
      "{\"s\":\"\x01\"}",             /* raw control character */
      "{\"s\":\"\xc0\x80\"}",         /* overlong NUL */
      "{\"s\":\"\xc1\xbf\"}", "{\"s\":\"\xe0\x80\x80\"}", "{\"s\":\"\xe0\x9f\xbf\"}",
      "{\"s\":\"\xed\xa0\x80\"}",     /* UTF-8 encoded surrogate */
      "{\"s\":\"\xf0\x8f\xbf\xbf\"}", "{\"s\":\"\xf4\x90\x80\x80\"}", "{\"s\":\"\xf5\x80\x80\x80\"}",
      "{\"s\":\"\xc3\"}", "{\"s\":\"\xe2\x82\"}", "{\"s\":\"\x80\"}", "{\"s\":\"\xff\"}",
      "{\"n\":01}", "{\"n\":-}", "{\"n\":1.}", "{\"n\":.5}", "{\"n\":+1}", "{\"n\":1e5}",
      "{\"n\":1E-2}", "{\"n\":1234567890123456789}", /* valid, but left to jansson */
      "{\"l\":tru}", "{\"l\":nul}", "{\"l\":nulls}", "{\"l\":True}",
      "{\"k\\u0061\":1}",             /* escaped key: left to jansson */
      "{\"s\":\"a\"\x00}", "{'a':1}",
      "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]", /* depth 33 */
  };
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    if (check(bad[i], strlen(bad[i]))) fail_msg("accepted: %s", bad[i]);
  }
  /* An embedded NUL byte outside a string. */
  static const char nul[] = "{\"a\":1\0}";
  assert_false(check(nul, sizeof nul - 1));
}

static void mutations_never_accept_more_than_jansson(void **st) {
  (void)st;
  static const char *const seeds[] = {
      "{\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"choices\":"
      "[{\"index\":0,\"delta\":{\"content\":\"caf\\u00e9 \\ud83d\\ude00\"},\"finish_reason\":null}]}",
      "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\","
      "\"text\":\"a\\n\\\"b\\\" \xc3\xa9\"}}",
      "{\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"x\",\"thought\":true}]}}],"
      "\"usageMetadata\":{\"promptTokenCount\":4,\"x\":[1.5,-2,null,false]}}",
  };
  static const char alphabet[] = "{}[]:,\"\\u0123456789abcdefDEn.-+eE \t\n\x01\x80\xc3\xa9\xed\xf0";
  uint64_t rng = 0x9E3779B97F4A7C15ull;
  size_t accepted = 0;
  char buf[512];
  for (int round = 0; round < 6000; round++) {
    const char *seed = seeds[round % 3];
    size_t len = strlen(seed);
    memcpy(buf, seed, len);
    int edits = 1 + (int)(rng % 3);
    for (int e = 0; e < edits; e++) {
      rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
      size_t at = (size_t)(rng % len);
      char c = alphabet[(rng >> 20) % (sizeof alphabet - 1)];
      switch ((rng >> 40) % 3) {
        case 0: buf[at] = c; break; /* replace */
        case 1:                      /* insert */
          if (len + 1 < sizeof buf) {
            memmove(buf + at + 1, buf + at, len - at);
            buf[at] = c;
            len++;
          }
          break;
        default: /* delete */
          memmove(buf + at, buf + at + 1, len - at - 1);
          len--;
          break;
      }
    }
    if (check(buf, len)) accepted++;
  }
  /* Some mutants are still valid (edits inside strings): the comparison ran. */
  assert_true(accepted > 100);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(accepts_and_decodes_like_jansson),
      cmocka_unit_test(refuses_what_jansson_refuses_or_might),
      cmocka_unit_test(mutations_never_accept_more_than_jansson),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
