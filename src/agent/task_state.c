/* task_state.c — the run's objective, plan and progress; see task_state.h. */
#include "agent/task_state.h"

#include <ctype.h>
#include <string.h>

#include "base/common.h"
#include "base/json.h"
#include "session/store.h"

void ztask_init(ztask_state *t) {
  memset(t, 0, sizeof *t);
  t->plan = json_array();
  t->changed_files = json_array();
  t->failures = json_array();
}

void ztask_release(ztask_state *t) {
  free(t->objective);
  free(t->latest_request);
  json_decref(t->plan);
  json_decref(t->changed_files);
  json_decref(t->failures);
  memset(t, 0, sizeof *t);
}

static char *cut_utf8(const char *s, size_t max) {
  size_t n = strlen(s);
  if (n <= max) return xstrdup(s);
  return xstrndup(s, zutf8_boundary(s, max));
}

const char *ztask_normalize_status(const char *word) {
  /* Lower-case letters only: "In-Progress", "in progress", "IN_PROGRESS" all
   * become "inprogress". */
  char k[32];
  size_t n = 0;
  for (const char *p = word ? word : ""; *p && n + 1 < sizeof k; p++)
    if (isalpha((unsigned char)*p)) k[n++] = (char)tolower((unsigned char)*p);
  k[n] = '\0';
  static const char *const completed[] = {"completed", "complete", "done", "finished", "ok",
                                          "success", "succeeded", "resolved", "closed"};
  static const char *const active[] = {"inprogress", "wip", "doing", "active", "started",
                                       "ongoing", "working", "current", "running"};
  static const char *const blocked[] = {"blocked", "stuck", "waiting", "onhold", "failed"};
  static const char *const cancelled[] = {"cancelled", "canceled", "skipped", "dropped",
                                          "abandoned", "wontdo", "obsolete"};
  for (size_t i = 0; i < ZARRAY_LEN(completed); i++)
    if (!strcmp(k, completed[i])) return "completed";
  for (size_t i = 0; i < ZARRAY_LEN(active); i++)
    if (!strcmp(k, active[i])) return "in_progress";
  for (size_t i = 0; i < ZARRAY_LEN(blocked); i++)
    if (!strcmp(k, blocked[i])) return "blocked";
  for (size_t i = 0; i < ZARRAY_LEN(cancelled); i++)
    if (!strcmp(k, cancelled[i])) return "cancelled";
  if (word && !strcmp(word, "\xe2\x9c\x93")) return "completed"; /* ✓ */
  return "pending";
}

void ztask_note_prompt(ztask_state *t, const char *text) {
  if (!text || !text[0]) return;
  if (!t->objective) {
    t->objective = cut_utf8(text, ZTASK_OBJECTIVE_MAX);
    return;
  }
  free(t->latest_request);
  t->latest_request = cut_utf8(text, ZTASK_OBJECTIVE_MAX);
}

void ztask_set_plan(ztask_state *t, const json_t *plan) {
  json_array_clear(t->plan);
  size_t i;
  json_t *item;
  json_array_foreach(plan, i, item) {
    const char *step = zjson_str(item, "step");
    if (!step) continue;
    json_array_append_new(t->plan, json_pack("{s:s, s:s}", "step", step, "status",
                                             ztask_normalize_status(zjson_str(item, "status"))));
  }
}

static bool is_write_tool(const char *tool) {
  return tool && (!strcmp(tool, "write_file") || !strcmp(tool, "edit_file") ||
                  !strcmp(tool, "apply_patch"));
}

static void add_changed(ztask_state *t, const char *path) {
  size_t i;
  json_t *v;
  json_array_foreach(t->changed_files, i, v) {
    if (!strcmp(json_string_value(v), path)) {
      json_array_remove(t->changed_files, i); /* moves to the end: most recent */
      break;
    }
  }
  json_array_append_new(t->changed_files, json_string(path));
  while (json_array_size(t->changed_files) > ZTASK_FILES_MAX) json_array_remove(t->changed_files, 0);
}

void ztask_note_tool(ztask_state *t, const char *tool, bool ok, const json_t *meta,
                     const char *output) {
  if (ok) {
    t->tool_ok++;
    if (is_write_tool(tool)) {
      const char *path = zjson_str(meta, "path");
      if (path) add_changed(t, path);
      size_t i;
      json_t *f;
      json_array_foreach(json_object_get(meta, "files"), i, f)
        if (json_is_string(f)) add_changed(t, json_string_value(f));
    }
    return;
  }
  t->tool_failed++;
  cleanup_free char *msg = cut_utf8(output ? output : "", 200);
  json_array_append_new(t->failures, json_pack("{s:s, s:s}", "tool", tool ? tool : "", "message",
                                               msg));
  while (json_array_size(t->failures) > ZTASK_FAILURES_MAX) json_array_remove(t->failures, 0);
}

json_t *ztask_to_json(const ztask_state *t) {
  json_t *j = json_object();
  if (t->objective) json_object_set_new(j, "objective", json_string(t->objective));
  if (t->latest_request) json_object_set_new(j, "latestRequest", json_string(t->latest_request));
  json_object_set(j, "plan", t->plan);
  json_object_set_new(j, "toolCalls", json_pack("{s:I, s:I}", "ok", (json_int_t)t->tool_ok,
                                                "failed", (json_int_t)t->tool_failed));
  json_object_set(j, "changedFiles", t->changed_files);
  json_object_set(j, "recentFailures", t->failures);
  return j;
}

void ztask_from_json(ztask_state *t, const json_t *j) {
  if (!json_is_object(j)) return;
  const char *o = zjson_str(j, "objective");
  if (o) {
    free(t->objective);
    t->objective = cut_utf8(o, ZTASK_OBJECTIVE_MAX);
  }
  ztask_set_plan(t, json_object_get(j, "plan"));
  const json_t *tc = json_object_get(j, "toolCalls");
  t->tool_ok = zjson_int_or(tc, "ok", 0);
  t->tool_failed = zjson_int_or(tc, "failed", 0);
  size_t i;
  json_t *v;
  json_array_foreach(json_object_get(j, "changedFiles"), i, v)
    if (json_is_string(v)) add_changed(t, json_string_value(v));
  json_array_foreach(json_object_get(j, "recentFailures"), i, v)
    if (json_is_object(v)) json_array_append(t->failures, v);
}

void ztask_preserved_block(const ztask_state *t, const json_t *instructions,
                           const json_t *skills, zbuf *out) {
  zbuf_addstr(out, "<preserved-state>\n");
  zbuf_addf(out, "Objective: %s\n", t->objective ? t->objective : "(unknown)");
  if (t->latest_request) zbuf_addf(out, "Latest request: %s\n", t->latest_request);
  size_t i;
  json_t *v;
  if (json_array_size(t->plan)) {
    zbuf_addstr(out, "Plan:\n");
    json_array_foreach(t->plan, i, v)
      zbuf_addf(out, "- [%s] %s\n", zjson_str_or(v, "status", "pending"),
                zjson_str_or(v, "step", ""));
  }
  if (json_array_size(t->changed_files)) {
    zbuf_addstr(out, "Recent file edits:");
    size_t n = json_array_size(t->changed_files), from = n > 20 ? n - 20 : 0;
    for (i = from; i < n; i++)
      zbuf_addf(out, "%s %s", i > from ? "," : "",
                json_string_value(json_array_get(t->changed_files, i)));
    zbuf_addch(out, '\n');
  }
  zbuf_addf(out, "Tool calls so far: %lld succeeded, %lld failed\n", (long long)t->tool_ok,
            (long long)t->tool_failed);
  if (json_array_size(instructions)) {
    zbuf_addstr(out, "Project instructions (still in the system prompt):");
    json_array_foreach(instructions, i, v) zbuf_addf(out, " %s", json_string_value(v));
    zbuf_addch(out, '\n');
  }
  if (json_array_size(skills)) {
    zbuf_addstr(out, "Loaded skills:");
    json_array_foreach(skills, i, v) zbuf_addf(out, " %s", json_string_value(v));
    zbuf_addch(out, '\n');
  }
  zbuf_addstr(out, "</preserved-state>\n");
}

/* ---- replay ------------------------------------------------------------ */

typedef struct replay {
  ztask_state *t;
  json_t *plans; /* update_plan call id -> its plan argument */
} replay;

static int replay_event(void *ud, const json_t *ev) {
  replay *r = ud;
  const char *type = zjson_str_or(ev, "type", "");
  const json_t *p = json_object_get(ev, "payload");
  if (!strcmp(type, "message")) {
    const json_t *content = json_object_get(p, "content");
    if (!strcmp(zjson_str_or(p, "role", ""), "user") && json_is_string(content) &&
        !json_object_get(p, "nudge"))
      ztask_note_prompt(r->t, json_string_value(content));
  } else if (!strcmp(type, "tool_call")) {
    const char *id = zjson_str(p, "id");
    if (id && !strcmp(zjson_str_or(p, "name", ""), "update_plan")) {
      json_t *args = json_loads(zjson_str_or(p, "arguments", ""), 0, NULL);
      json_t *plan = json_object_get(args, "plan");
      if (json_is_array(plan)) json_object_set(r->plans, id, plan);
      json_decref(args);
    }
  } else if (!strcmp(type, "tool_result")) {
    bool ok = strcmp(zjson_str_or(p, "status", "ok"), "error") != 0;
    const char *out = zjson_str(p, "output");
    cleanup_free char *head = out ? cut_utf8(out, 400) : NULL;
    ztask_note_tool(r->t, zjson_str(p, "name"), ok, NULL, head);
    const json_t *plan = json_object_get(r->plans, zjson_str_or(p, "toolCallId", ""));
    if (ok && plan) ztask_set_plan(r->t, plan);
  } else if (!strcmp(type, "session_checkpoint")) {
    size_t i;
    json_t *f;
    json_array_foreach(json_object_get(p, "files"), i, f) {
      const char *path = zjson_str(f, "path");
      if (path) add_changed(r->t, path);
    }
  }
  return 0;
}

int ztask_replay(ztask_state *t, const char *root, const char *id, zerr *err) {
  replay r = {t, json_object()};
  int rc = zsession_for_each_event(root, id, replay_event, &r, NULL, err);
  json_decref(r.plans);
  return rc < 0 ? -1 : 0;
}

/* ---- the sink ---------------------------------------------------------- */

typedef struct task_sink {
  zsink base;
  ztask_state *t;
  const json_t *plan;
} task_sink;

static void ts_emit(zsink *base, const zagent_event *ev) {
  task_sink *s = (task_sink *)base;
  if (ev->kind == ZAEV_USER_MESSAGE) {
    /* The completion gate's nudges (agent/judge.c) are not the user's. */
    if (json_object_get(ev->user_message.meta, "nudge")) return;
    cleanup_free char *text =
        ev->user_message.text ? xstrndup(ev->user_message.text, ev->user_message.len) : NULL;
    ztask_note_prompt(s->t, text);
  } else if (ev->kind == ZAEV_TOOL_RESULT) {
    const zev_tool_result *tr = &ev->tool_result;
    cleanup_free char *out =
        tr->output ? xstrndup(tr->output, tr->output_len < 400 ? tr->output_len : 400) : NULL;
    ztask_note_tool(s->t, tr->name, tr->ok, tr->meta, out);
    if (tr->ok && tr->name && !strcmp(tr->name, "update_plan") && s->plan)
      ztask_set_plan(s->t, s->plan);
  }
}

static int ts_finish(zsink *base) {
  (void)base;
  return 0;
}
zsink *ztask_sink_new(ztask_state *t, const json_t *plan) {
  task_sink *s =
      zsink_new(sizeof *s, (zsink){.emit = ts_emit, .finish = ts_finish, .destroy = zsink_free});
  s->t = t;
  s->plan = plan;
  return &s->base;
}
