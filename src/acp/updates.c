/* updates.c — zero's events as ACP session updates; see updates.h. */
#include "acp/updates.h"

#include <stdlib.h>
#include <string.h>

#include "base/common.h"
#include "base/json.h"
#include "base/path.h"
#include "base/fs.h"
#include "tools/patch.h"
#include "tools/tool.h"

const char *zacp_tool_kind(const char *tool_name) {
  static const struct {
    const char *tool, *kind;
  } KINDS[] = {
      {"read_file", "read"},      {"view_image", "read"}, {"list_directory", "read"},
      {"edit_file", "edit"},      {"write_file", "edit"}, {"apply_patch", "edit"},
      {"grep", "search"},         {"glob", "search"},     {"exec_command", "execute"},
      {"write_stdin", "execute"}, {"web_fetch", "fetch"}, {"web_search", "fetch"},
      {"update_plan", "think"},
  };
  for (size_t i = 0; tool_name && i < sizeof KINDS / sizeof KINDS[0]; i++)
    if (!strcmp(KINDS[i].tool, tool_name)) return KINDS[i].kind;
  return "other";
}

static json_t *text_block(const char *text, size_t len) {
  return json_pack("{s:s, s:s%}", "type", "text", "text", text ? text : "", text ? len : 0);
}

static json_t *chunk(const char *kind, const char *text, size_t len) {
  return json_pack("{s:s, s:o}", "sessionUpdate", kind, "content", text_block(text, len));
}

/* The path argument of a call, absolute against the workspace, or NULL. */
static char *abs_arg(const json_t *args, const char *key, const char *workspace) {
  const char *p = zjson_str(args, key);
  if (!p || !p[0]) return NULL;
  return zpath_absolute(p, workspace);
}

/* What a diff of apply_patch shows of a file that exists: its text on disk
 * when it lies in the workspace — where it really is, symlinks resolved —
 * is small (the editor shows whole-file diffs) and the file tools may read
 * it; NULL otherwise. The diff goes out before the call is decided: a
 * planted symlink to a credential, or a sandbox.denyRead file in the
 * workspace, must not put its text in it (workspace is real). */
#define PATCH_DIFF_MAX_FILE (1u << 20)
static char *file_text(const char *abs, const ztool_ctx *tools) {
  const char *workspace = tools->workspace;
  if (!workspace || !zpath_is_within(workspace, abs)) return NULL;
  if (ztool_read_denied(tools, abs)) return NULL;
  cleanup_free char *real = realpath(abs, NULL);
  if (!real || !zpath_is_within(workspace, real)) return NULL;
  zbuf b = ZBUF_INIT;
  zerr err = ZERR_INIT;
  if (zfs_read_file(real, &b, PATCH_DIFF_MAX_FILE, &err) < 0) {
    zbuf_release(&b);
    return NULL;
  }
  if (!b.data) zbuf_addstr(&b, "");
  return zbuf_detach(&b, NULL);
}

/* The hunks' own lines when the file cannot be read or a hunk does not
 * apply: what the patch removes and adds, in order. */
static void hunk_texts(const zpatch_file *f, zbuf *old_t, zbuf *new_t) {
  for (size_t h = 0; h < f->hunks.len; h++) {
    const zpatch_hunk *hk = &f->hunks.items[h];
    for (size_t k = 0; k < hk->old_lines.len; k++) {
      zbuf_add(old_t, hk->old_lines.items[k].s, hk->old_lines.items[k].n);
      zbuf_addch(old_t, '\n');
    }
    for (size_t k = 0; k < hk->new_lines.len; k++) {
      zbuf_add(new_t, hk->new_lines.items[k].s, hk->new_lines.items[k].n);
      zbuf_addch(new_t, '\n');
    }
  }
}

static json_t *diff_json(const char *path, const char *old_text, const char *new_text,
                         size_t new_len) {
  json_t *d =
      json_pack("{s:s, s:s, s:s%}", "type", "diff", "path", path, "newText", new_text, new_len);
  json_object_set_new(d, "oldText", old_text ? json_string(old_text) : json_null());
  return d;
}

/* One file section of a patch as a location and a diff: Add (no old
 * text), Delete (no new text), Update (the whole file before and after,
 * at its destination when it moves). */
static void patch_file_updates(const zpatch_file *f, const ztool_ctx *tools, json_t *locations,
                               json_t *content) {
  const char *workspace = tools->workspace;
  cleanup_free char *abs = zpath_absolute(f->path, workspace);
  cleanup_free char *dest = f->move_to ? zpath_absolute(f->move_to, workspace) : NULL;
  json_array_append_new(locations, json_pack("{s:s}", "path", abs));
  if (dest) json_array_append_new(locations, json_pack("{s:s}", "path", dest));
  if (f->op == ZPATCH_ADD) {
    json_array_append_new(content, diff_json(abs, NULL, f->content.data ? f->content.data : "",
                                             f->content.len));
    return;
  }
  cleanup_free char *old_text = file_text(abs, tools);
  if (f->op == ZPATCH_DELETE) {
    json_array_append_new(content, diff_json(abs, old_text ? old_text : "", "", 0));
    return;
  }
  zbuf old_t = ZBUF_INIT, new_t = ZBUF_INIT, err = ZBUF_INIT;
  if (old_text && zpatch_apply_hunks(f, f->path, old_text, strlen(old_text), &new_t, &err) == 0) {
    zbuf_addstr(&old_t, old_text);
  } else {
    zbuf_reset(&new_t);
    hunk_texts(f, &old_t, &new_t);
  }
  json_array_append_new(content, diff_json(dest ? dest : abs, old_t.data ? old_t.data : "",
                                           new_t.data ? new_t.data : "", new_t.len));
  zbuf_release(&old_t);
  zbuf_release(&new_t);
  zbuf_release(&err);
}

/* Every file an apply_patch input touches: a location and a diff each.
 * A patch that does not parse shows nothing (the tool's result says why). */
static void patch_updates(const char *patch, const ztool_ctx *tools, json_t *locations,
                          json_t *content) {
  if (!patch) return;
  zpatch p = ZPATCH_INIT;
  zbuf err = ZBUF_INIT;
  if (zpatch_parse(patch, strlen(patch), &p, &err) == 0)
    for (size_t i = 0; i < p.files.len; i++)
      patch_file_updates(&p.files.items[i], tools, locations, content);
  zpatch_release(&p);
  zbuf_release(&err);
}

/* A short title: the tool and what it works on. */
static char *call_title(const char *name, const json_t *args) {
  static const char *const SUBJECT_KEYS[] = {"path", "cmd", "pattern", "url", "query"};
  const char *subject = NULL;
  for (size_t i = 0; !subject && args && i < 5; i++) subject = zjson_str(args, SUBJECT_KEYS[i]);
  size_t n = strlen(name) + (subject ? strlen(subject) : 0) + 4;
  char *t = xmalloc(n);
  if (subject) snprintf(t, n, "%s %s", name, subject);
  else snprintf(t, n, "%s", name);
  return t;
}

/* The diff an edit call will make, as ACP shows it: edit_file's old and new
 * strings, write_file's new content. NULL for other tools. */
static json_t *edit_diff(const char *name, const json_t *args, const char *workspace) {
  bool edit = !strcmp(name, "edit_file"), write = !strcmp(name, "write_file");
  if (!edit && !write) return NULL;
  char *path = abs_arg(args, "path", workspace);
  if (!path) return NULL;
  json_t *d = json_pack("{s:s, s:s}", "type", "diff", "path", path);
  free(path);
  const char *new_text = zjson_str(args, edit ? "new_string" : "content");
  json_object_set_new(d, "newText", json_string(new_text ? new_text : ""));
  const char *old_text = edit ? zjson_str(args, "old_string") : NULL;
  json_object_set_new(d, "oldText", old_text ? json_string(old_text) : json_null());
  return d;
}

json_t *zacp_tool_call_json(const char *id, const char *name, const char *arguments,
                            const ztool_ctx *tools) {
  const char *workspace = tools->workspace;
  json_t *args = ztool_load_args(name, arguments);
  json_t *locations = json_array(), *content = json_array();
  char *path = args ? abs_arg(args, "path", workspace) : NULL;
  if (path) json_array_append_new(locations, json_pack("{s:s}", "path", path));
  free(path);
  if (args && !strcmp(name, "apply_patch"))
    patch_updates(zjson_str(args, "input"), tools, locations, content);
  json_t *diff = args ? edit_diff(name, args, workspace) : NULL;
  if (diff) json_array_append_new(content, diff);
  char *title = call_title(name, args);
  json_t *tc = json_pack("{s:s, s:s, s:s, s:s, s:o, s:o}", "toolCallId", id ? id : "", "title",
                         title, "kind", zacp_tool_kind(name), "status", "pending", "locations",
                         locations, "content", content);
  free(title);
  json_object_set_new(tc, "rawInput", args ? args : json_object());
  return tc;
}

/* update_plan's arguments as an ACP plan update ({step, status} entries). */
static json_t *plan_update(const char *arguments) {
  json_t *args = ztool_load_args("update_plan", arguments);
  const json_t *plan = json_object_get(args, "plan");
  if (!json_is_array(plan)) {
    json_decref(args);
    return NULL;
  }
  json_t *entries = json_array();
  size_t i;
  const json_t *item;
  json_array_foreach(plan, i, item) {
    const char *status = zjson_str_or(item, "status", "pending");
    if (strcmp(status, "in_progress") != 0 && strcmp(status, "completed") != 0) status = "pending";
    json_array_append_new(entries,
                          json_pack("{s:s, s:s, s:s}", "content", zjson_str_or(item, "step", ""),
                                    "priority", "medium", "status", status));
  }
  json_decref(args);
  return json_pack("{s:s, s:o}", "sessionUpdate", "plan", "entries", entries);
}

static json_t *result_update(const char *id, bool ok, const char *output, size_t len) {
  json_t *content = json_array();
  if (output && len)
    json_array_append_new(content, json_pack("{s:s, s:o}", "type", "content", "content",
                                             text_block(output, len)));
  return json_pack("{s:s, s:s, s:s, s:o}", "sessionUpdate", "tool_call_update", "toolCallId",
                   id ? id : "", "status", ok ? "completed" : "failed", "content", content);
}

static void add_tool_call(json_t *out, const char *id, const char *name, const char *arguments,
                          const ztool_ctx *tools) {
  json_t *tc = zacp_tool_call_json(id, name, arguments, tools);
  json_object_set_new(tc, "sessionUpdate", json_string("tool_call"));
  json_array_append_new(out, tc);
  if (!strcmp(name, "update_plan")) {
    json_t *plan = plan_update(arguments);
    if (plan) json_array_append_new(out, plan);
  }
}

json_t *zacp_updates_for_event(const zagent_event *ev, const ztool_ctx *tools) {
  json_t *out = json_array();
  switch (ev->kind) {
    case ZAEV_TEXT:
      if (ev->delta.len)
        json_array_append_new(out, chunk("agent_message_chunk", ev->delta.text, ev->delta.len));
      break;
    case ZAEV_REASONING:
      if (ev->delta.len)
        json_array_append_new(out, chunk("agent_thought_chunk", ev->delta.text, ev->delta.len));
      break;
    case ZAEV_TOOL_CALL:
      add_tool_call(out, ev->tool_call.id, ev->tool_call.name ? ev->tool_call.name : "",
                    ev->tool_call.arguments, tools);
      break;
    case ZAEV_TOOL_RESULT:
      json_array_append_new(out, result_update(ev->tool_result.id, ev->tool_result.ok,
                                               ev->tool_result.output, ev->tool_result.output_len));
      break;
    default: break;
  }
  return out;
}

json_t *zacp_updates_for_history(const zconv *conv, const ztool_ctx *tools) {
  json_t *out = json_array();
  for (size_t i = 0; i < conv->len; i++) {
    const zmsg *m = &conv->items[i];
    const char *text = m->content ? m->content : "";
    if (m->role == ZROLE_USER && text[0]) {
      json_array_append_new(out, chunk("user_message_chunk", text, strlen(text)));
    } else if (m->role == ZROLE_ASSISTANT) {
      if (m->reasoning && m->reasoning[0])
        json_array_append_new(out,
                              chunk("agent_thought_chunk", m->reasoning, strlen(m->reasoning)));
      if (text[0]) json_array_append_new(out, chunk("agent_message_chunk", text, strlen(text)));
      for (size_t k = 0; k < m->ncalls; k++)
        add_tool_call(out, m->calls[k].id, m->calls[k].name, m->calls[k].arguments, tools);
    } else if (m->role == ZROLE_TOOL) {
      json_array_append_new(out, result_update(m->tool_call_id, !m->is_error, text, strlen(text)));
    }
  }
  return out;
}
