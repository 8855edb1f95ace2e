/* subagent_view.c — a sub-agent under its task card; see subagent_view.h. */
#include "ui/tui/subagent_view.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/common.h"
#include "base/json.h"

#define STEPS_KEEP 4096 /* bytes of steps a card keeps: it shows the last few rows */

/* Appends one step line to c->live, dropping the oldest past STEPS_KEEP. */
static void add_step(tui_card *c, const char *line) {
  zbuf b = ZBUF_INIT;
  const char *old = c->live ? c->live : "";
  size_t n = strlen(old);
  if (n > STEPS_KEEP) {
    const char *cut = strchr(old + n - STEPS_KEEP, '\n');
    old = cut ? cut + 1 : old + n;
  }
  zbuf_addstr(&b, old);
  zbuf_addstr(&b, line);
  zbuf_addch(&b, '\n');
  free(c->live);
  c->live = zbuf_detach(&b, NULL);
}

/* Marks the step of the child's call `name` that still waits for its
 * result (the oldest such: results come in call order) ✓ or ✗. */
static void mark_done(tui_card *c, const char *name, bool ok) {
  if (!c->live) return;
  char head[160];
  snprintf(head, sizeof head, "↳ %s", name);
  size_t hl = strlen(head);
  for (char *line = c->live; *line;) {
    char *nl = strchr(line, '\n');
    size_t n = nl ? (size_t)(nl - line) : strlen(line);
    bool open = n >= hl && !strncmp(line, head, hl) && (line[hl] == ' ' || line[hl] == '\n') &&
                !(n >= 4 && (!strncmp(line + n - 4, " ✓", 4) || !strncmp(line + n - 4, " ✗", 4)));
    if (open) {
      zbuf b = ZBUF_INIT;
      zbuf_add(&b, c->live, (size_t)(line - c->live) + n);
      zbuf_addstr(&b, ok ? " ✓" : " ✗");
      zbuf_addstr(&b, line + n);
      free(c->live);
      c->live = zbuf_detach(&b, NULL);
      return;
    }
    line = nl ? nl + 1 : line + n;
  }
}

static void fold_child_event(tui_card *c, const json_t *ev) {
  const char *type = zjson_str_or(ev, "type", "");
  zbuf l = ZBUF_INIT;
  if (!strcmp(type, "tool_call")) {
    const char *name = zjson_str_or(ev, "name", "tool");
    const json_t *args = json_object_get(ev, "args");
    char *text = json_is_string(args) ? NULL : json_dumps(args, JSON_COMPACT);
    char *summary = tui_tool_summary(name, json_is_string(args) ? json_string_value(args) : text);
    zbuf_addf(&l, "↳ %s %s", name, summary ? summary : "");
    free(summary);
    free(text);
  } else if (!strcmp(type, "tool_result")) {
    mark_done(c, zjson_str_or(ev, "name", "tool"), !strcmp(zjson_str_or(ev, "status", "ok"), "ok"));
  } else if (!strcmp(type, "permission_request")) {
    zbuf_addf(&l, "? %s is waiting for your approval", zjson_str_or(ev, "name", "a tool"));
  } else if (!strcmp(type, "error")) {
    zbuf_addf(&l, "✗ %s", zjson_str_or(ev, "message", "error"));
  }
  if (l.len) add_step(c, l.data);
  zbuf_release(&l);
}

void tui_subagent_fold(tui_card *c, const zagent_event *ev) {
  const zev_subagent *s = &ev->subagent;
  zbuf l = ZBUF_INIT;
  if (ev->kind == ZAEV_SUBAGENT_START)
    zbuf_addf(&l, "sub-agent %s started%s%s", s->agent ? s->agent : "",
              s->description && s->description[0] ? ": " : "",
              s->description ? s->description : "");
  else if (ev->kind == ZAEV_SUBAGENT_EVENT && s->event) fold_child_event(c, s->event);
  else if (ev->kind == ZAEV_SUBAGENT_END)
    zbuf_addf(&l, "sub-agent %s ended: %s", s->agent ? s->agent : "",
              s->status ? s->status : "done");
  if (l.len) add_step(c, l.data);
  zbuf_release(&l);
}

void tui_subagent_summary(const json_t *meta, const tui_theme *th, int width, tw_lines *out) {
  const char *agent = zjson_str(meta, "agent"), *status = zjson_str(meta, "status");
  if (!agent || !status) return;
  const json_t *usage = json_object_get(meta, "usage");
  long long tokens = (long long)zjson_int_or(usage, "totalTokens", 0);
  long long calls = (long long)zjson_int_or(meta, "toolCalls", 0);
  const char *sid = zjson_str(meta, "sessionId");
  zbuf l = ZBUF_INIT;
  zbuf_addf(&l, "  %s↳ sub-agent %s · %s · %lld tool call%s · %lld tokens%s%s%s", th->muted, agent,
            status, calls, calls == 1 ? "" : "s", tokens, sid ? " · " : "", sid ? sid : "",
            th->reset);
  tw_lines_push(out, tw_truncate(l.data, width));
  zbuf_release(&l);
}
