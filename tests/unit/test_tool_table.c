/* test_tool_table.c — a fixed table of tools as a tool source
 * (agent/tool_table.h): the schemas, has, side effects and calls it answers
 * from the table, the filter, the late description and the kept schemas. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "agent/tool_table.h"
#include "base/common.h"

typedef struct owner {
  bool hide_b;   /* offered() says no to "b" */
  int described; /* describe() calls */
  char last[16]; /* the last call invoke() saw */
} owner;

static bool offered(void *ud, const char *name) {
  const owner *o = ud;
  return !(o->hide_b && !strcmp(name, "b"));
}

static const char *describe(void *ud, const ztool_def *d, char **owned) {
  owner *o = ud;
  o->described++;
  *owned = NULL;
  return asprintf(owned, "late %s", d->name) < 0 ? NULL : *owned;
}

static void invoke(void *ud, struct zagent *a, const ztool_call *call, ztool_result *res) {
  (void)a;
  (void)res;
  owner *o = ud;
  snprintf(o->last, sizeof o->last, "%s", call->name);
}

static const ztool_def DEFS[] = {
    {"a", "the a tool", "{\"type\":\"object\"}", "read"},
    {"b", NULL, "{\"type\":\"object\",\"properties\":{\"x\":{\"type\":\"string\"}}}", "shell"},
};

static void test_answers_from_the_table(void **state) {
  (void)state;
  static const ztool_table_spec spec = {.defs = DEFS,
                                        .n = ZARRAY_LEN(DEFS),
                                        .offered = offered,
                                        .describe = describe,
                                        .invoke = invoke};
  owner o = {0};
  ztool_table t;
  ztool_source src = ztool_table_init(&t, &spec, &o);
  json_t *s = src.schemas(src.ud);
  assert_int_equal(json_array_size(s), 2);
  assert_string_equal(json_string_value(json_object_get(json_array_get(s, 0), "description")),
                      "the a tool");
  assert_string_equal(json_string_value(json_object_get(json_array_get(s, 1), "description")),
                      "late b");
  assert_non_null(json_object_get(
      json_object_get(json_object_get(json_array_get(s, 1), "parameters"), "properties"), "x"));
  json_decref(s);
  assert_true(src.has(src.ud, "a"));
  assert_true(src.has(src.ud, "b"));
  assert_false(src.has(src.ud, "c"));
  assert_string_equal(src.side_effect(src.ud, "b"), "shell");
  assert_null(src.side_effect(src.ud, "c"));
  ztool_call call = {.name = "b"};
  ztool_result res = ZTOOL_RESULT_INIT;
  src.invoke(src.ud, NULL, &call, &res);
  assert_string_equal(o.last, "b");
  ztool_result_release(&res);
  /* Not kept: every request makes them again. */
  json_decref(src.schemas(src.ud));
  assert_int_equal(o.described, 2);
  /* What offered() refuses is neither listed nor claimed. */
  o.hide_b = true;
  s = src.schemas(src.ud);
  assert_int_equal(json_array_size(s), 1);
  assert_false(src.has(src.ud, "b"));
  json_decref(s);
  ztool_table_release(&t);
}

static void test_once_keeps_the_first_schemas(void **state) {
  (void)state;
  static const ztool_table_spec spec = {
      .defs = DEFS, .n = ZARRAY_LEN(DEFS), .describe = describe, .invoke = invoke, .once = true};
  owner o = {0};
  ztool_table t;
  ztool_source src = ztool_table_init(&t, &spec, &o);
  json_t *a = src.schemas(src.ud);
  json_t *b = src.schemas(src.ud);
  assert_ptr_equal(a, b);
  assert_int_equal(o.described, 1);
  json_decref(a);
  json_decref(b);
  ztool_table_release(&t);
  assert_null(t.schemas);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_answers_from_the_table),
      cmocka_unit_test(test_once_keeps_the_first_schemas),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
