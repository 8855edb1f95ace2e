/* test_tools_plan.c — update_plan. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "base/json.h"
#include "test_tools_util.h"

static void update_plan_renders_and_stores_in_place(void **state) {
  tfx *f = *state;
  json_t *owner_view = f->ctx.plan;
  assert_int_equal(tfx_run(f, "update_plan",
                           "{\"plan\":[{\"step\":\"Read code\",\"status\":\"completed\"},"
                           "{\"step\":\"Fix bug\",\"status\":\"in_progress\"},"
                           "{\"step\":\"Run tests\",\"status\":\"pending\"}]}"),
                   0);
  assert_string_equal(f->res.output.data,
                      "Plan updated (1 of 3 completed):\n[x] Read code\n[>] Fix bug\n[ ] Run tests");
  assert_ptr_equal(f->ctx.plan, owner_view);
  assert_int_equal(json_array_size(owner_view), 3);
  assert_string_equal(zjson_str(json_array_get(owner_view, 1), "status"), "in_progress");
  assert_int_equal(zjson_int_or(f->res.meta, "total", 0), 3);

  assert_int_equal(tfx_run(f, "update_plan",
                           "{\"plan\":[{\"step\":\"Fix bug\",\"status\":\"completed\"}],"
                           "\"explanation\":\"scope shrank\"}"),
                   0);
  assert_int_equal(json_array_size(owner_view), 1);
  assert_string_equal(f->res.output.data,
                      "Plan updated (1 of 1 completed):\n[x] Fix bug\nNote: scope shrank");
  /* The stored plan does not share objects with the result. */
  json_t *m = json_object_get(f->res.meta, "plan");
  assert_ptr_not_equal(json_array_get(m, 0), json_array_get(owner_view, 0));
}

static void update_plan_refuses_two_in_progress_steps(void **state) {
  tfx *f = *state;
  assert_int_equal(tfx_run(f, "update_plan", "{\"plan\":[{\"step\":\"a\",\"status\":\"pending\"}]}"),
                   0);
  assert_int_equal(tfx_run(f, "update_plan",
                           "{\"plan\":[{\"step\":\"a\",\"status\":\"in_progress\"},"
                           "{\"step\":\"b\",\"status\":\"completed\"},"
                           "{\"step\":\"c\",\"status\":\"in_progress\"}]}"),
                   -1);
  assert_output_contains(f, "only one step may be in_progress at a time, but 2 are (steps 1 and 3)");
  assert_int_equal(json_array_size(f->ctx.plan), 1); /* unchanged */
  assert_string_equal(zjson_str(json_array_get(f->ctx.plan, 0), "step"), "a");
}

static void update_plan_clears_and_validates(void **state) {
  tfx *f = *state;
  assert_int_equal(tfx_run(f, "update_plan", "{\"plan\":[]}"), 0);
  assert_string_equal(f->res.output.data, "Plan cleared.");
  assert_int_equal(tfx_run(f, "update_plan", "{}"), -1);
  assert_output_contains(f, "missing required property \"plan\"");
  assert_int_equal(tfx_run(f, "update_plan", "{\"plan\":[{\"step\":\"\",\"status\":\"pending\"}]}"),
                   -1);
  assert_output_contains(f, "plan[0].step");
  assert_int_equal(tfx_run(f, "update_plan", "{\"plan\":[{\"status\":\"pending\"}]}"), -1);
  assert_output_contains(f, "missing required property \"plan[0].step\"");
}

static void update_plan_works_without_storage(void **state) {
  tfx *f = *state;
  f->ctx.plan = NULL;
  assert_int_equal(tfx_run(f, "update_plan", "{\"plan\":[{\"step\":\"a\",\"status\":\"pending\"}]}"),
                   0);
  assert_output_contains(f, "[ ] a");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      TFX_TEST(update_plan_renders_and_stores_in_place),
      TFX_TEST(update_plan_refuses_two_in_progress_steps),
      TFX_TEST(update_plan_clears_and_validates),
      TFX_TEST(update_plan_works_without_storage),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
