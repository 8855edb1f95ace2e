/* update_plan.c — the model's task list, replaced whole on every call.
 *
 * The plan lives in ctx->plan, an array the agent loop owns; it is updated in
 * place (cleared and refilled) so every holder of that pointer sees the new
 * plan. The registry has already checked the items' shape and statuses.
 */
#include <string.h>

#include "base/common.h"
#include "base/json.h"
#include "tools/tools_internal.h"

static const char update_plan_schema[] =
    "{\"type\":\"object\",\"properties\":{"
    "\"plan\":{\"type\":\"array\",\"description\":\"The complete plan, replacing the previous "
    "one. At most one step may be in_progress.\",\"items\":{\"type\":\"object\","
    "\"properties\":{"
    "\"step\":{\"type\":\"string\",\"minLength\":1,\"description\":\"A short description of "
    "the step.\"},"
    "\"status\":{\"type\":\"string\",\"enum\":[\"pending\",\"in_progress\",\"completed\"],"
    "\"description\":\"pending, in_progress or completed.\"}"
    "},\"required\":[\"step\",\"status\"],\"additionalProperties\":false}},"
    "\"explanation\":{\"type\":\"string\",\"description\":\"Optional note on why the plan "
    "changed.\"}"
    "},\"required\":[\"plan\"],\"additionalProperties\":false}";

static const char *status_mark(const char *status) {
  if (strcmp(status, "completed") == 0) return "[x]";
  if (strcmp(status, "in_progress") == 0) return "[>]";
  return "[ ]";
}

static int run_update_plan(const ztool_ctx *ctx, const json_t *args, ztool_result *res) {
  const json_t *plan = json_object_get(args, "plan");
  const char *explanation = zjson_str(args, "explanation");

  size_t i, n_active = 0, n_done = 0;
  json_t *item;
  zbuf active = ZBUF_INIT;
  json_array_foreach(plan, i, item) {
    const char *status = zjson_str(item, "status");
    if (strcmp(status, "in_progress") == 0) {
      zbuf_addf(&active, "%s%zu", n_active ? " and " : "", i + 1);
      n_active++;
    } else if (strcmp(status, "completed") == 0) {
      n_done++;
    }
  }
  if (n_active > 1) {
    ztool_fail(res,
               "update_plan: only one step may be in_progress at a time, but %zu are "
               "(steps %s). Mark the others pending or completed and send the whole plan "
               "again.",
               n_active, active.data);
    zbuf_release(&active);
    return -1;
  }
  zbuf_release(&active);

  json_t *fresh = json_array();
  json_array_foreach(plan, i, item) {
    json_t *o = json_object();
    json_object_set_new(o, "step", json_string(zjson_str(item, "step")));
    json_object_set_new(o, "status", json_string(zjson_str(item, "status")));
    json_array_append_new(fresh, o);
  }
  if (json_is_array(ctx->plan)) {
    json_array_clear(ctx->plan);
    json_array_extend(ctx->plan, fresh);
  }

  size_t total = json_array_size(fresh);
  if (total == 0) {
    zbuf_addstr(&res->output, "Plan cleared.");
  } else {
    zbuf_addf(&res->output, "Plan updated (%zu of %zu completed):\n", n_done, total);
    json_array_foreach(fresh, i, item) {
      zbuf_addf(&res->output, "%s %s\n", status_mark(zjson_str(item, "status")),
                zjson_str(item, "step"));
    }
    zbuf_setlen(&res->output, res->output.len - 1);
  }
  if (explanation && explanation[0]) zbuf_addf(&res->output, "\nNote: %s", explanation);

  res->meta = json_object();
  json_object_set_new(res->meta, "completed", json_integer((json_int_t)n_done));
  json_object_set_new(res->meta, "total", json_integer((json_int_t)total));
  json_object_set_new(res->meta, "plan", json_deep_copy(fresh));
  json_decref(fresh);
  return 0;
}

const ztool ztool_def_update_plan = {
    .name = "update_plan",
    .description =
        "Record your plan for the task as a list of steps, each pending, in_progress or "
        "completed. Send the whole plan every time (it replaces the previous one) and keep "
        "at most one step in_progress. Use it for multi-step work so the user can follow "
        "along; skip it for simple one-step requests.",
    .parameters_json = update_plan_schema,
    .side_effect = ZSIDE_NONE,
    .read_only = true,
    .run = run_update_plan,
};
