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

/* Items in our shape ({step, status}) or Go zero's ({content, status?,
 * notes?, id?}; status "done" is completed, a missing one pending): either
 * text is required, which the schema cannot say, so run_update_plan checks
 * it. */
static const char update_plan_schema[] =
    "{\"type\":\"object\",\"properties\":{"
    "\"plan\":{\"type\":\"array\",\"description\":\"The complete plan, replacing the previous "
    "one. At most one step may be in_progress.\",\"items\":{\"type\":\"object\","
    "\"properties\":{"
    "\"step\":{\"type\":\"string\",\"minLength\":1,\"description\":\"A short description of "
    "the step.\"},"
    "\"content\":{\"type\":\"string\",\"minLength\":1,\"description\":\"The same as step.\"},"
    "\"status\":{\"type\":\"string\",\"enum\":[\"pending\",\"in_progress\",\"completed\","
    "\"done\"],\"description\":\"pending (default), in_progress or completed.\"},"
    "\"notes\":{\"type\":\"string\",\"description\":\"Optional notes for this step.\"},"
    "\"id\":{\"type\":\"string\"}"
    "},\"additionalProperties\":false}},"
    "\"explanation\":{\"type\":\"string\",\"description\":\"Optional note on why the plan "
    "changed.\"}"
    "},\"required\":[\"plan\"],\"additionalProperties\":false}";

/* The item's text: step, or Go zero's content. */
static const char *item_text(const json_t *item) {
  const char *t = zjson_str(item, "step");
  return t ? t : zjson_str(item, "content");
}

/* The item's status in our three words: Go zero's "done" is completed, a
 * missing status pending. */
static const char *item_status(const json_t *item) {
  const char *s = zjson_str_or(item, "status", "pending");
  return strcmp(s, "done") == 0 ? "completed" : s;
}

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
    if (!item_text(item))
      return ztool_fail(res,
                        "update_plan: missing required property \"plan[%zu].step\" (or "
                        "\"content\"): every step needs its text",
                        i);
  }
  json_array_foreach(plan, i, item) {
    const char *status = item_status(item);
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
    json_object_set_new(o, "step", json_string(item_text(item)));
    json_object_set_new(o, "status", json_string(item_status(item)));
    const char *notes = zjson_str(item, "notes");
    if (notes && notes[0]) json_object_set_new(o, "notes", json_string(notes));
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
      const char *notes = zjson_str(item, "notes");
      if (notes) zbuf_addf(&res->output, "    Notes: %s\n", notes);
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
        "completed (optional notes per step). Send the whole plan every time (it replaces the "
        "previous one) and keep "
        "at most one step in_progress. Use it for multi-step work so the user can follow "
        "along; skip it for simple one-step requests.",
    .parameters_json = update_plan_schema,
    .side_effect = ZSIDE_NONE,
    .read_only = true,
    .run = run_update_plan,
};
