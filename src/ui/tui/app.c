/* app.c — see app.h. */
#include "ui/tui/app.h"

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/json.h"
#include "base/redact.h"
#include "cli/tui_commands.h"
#include "tools/patch.h"
#include "tools/tool.h"
#include "ui/tui/diff.h"
#include "ui/tui/patch_view.h"
#include "ui/tui/subagent_view.h"
#include "ui/tui/width.h"

static const char *SPIN[] = {"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"};

void tui_app_init(tui_app *a, int width, int height, const char *theme, tui_depth depth) {
  memset(a, 0, sizeof *a);
  if (tui_theme_init(&a->th, theme, depth) < 0) tui_theme_init(&a->th, "dark", depth);
  a->width = width;
  a->height = height;
  tui_screen_init(&a->scr, width, height);
  tui_md_stream_init(&a->turn.md, width, &a->th);
  zbuf_init(&a->turn.reasoning);
  tui_prompt_init(&a->prompt);
  tui_picker_init(&a->picker);
  tui_composer_init(&a->comp);
  static const zperm_mode shown_until_set = ZPERM_ASK;
  a->status.mode = &shown_until_set;
}

static void card_free(tui_card *c) {
  free(c->id);
  free(c->name);
  free(c->summary);
  free(c->arguments);
  free(c->live);
}

void tui_app_release(tui_app *a) {
  tui_screen_release(&a->scr);
  tw_lines_free(&a->commit);
  tui_md_stream_release(&a->turn.md);
  zbuf_release(&a->turn.reasoning);
  for (size_t i = 0; i < a->turn.cards.len; i++) card_free(&a->turn.cards.items[i]);
  zvec_free(&a->turn.cards);
  json_decref(a->plan);
  free(a->expandable);
  tw_lines_free(&a->expand_rows);
  for (size_t i = 0; i < a->queue.len; i++) free(a->queue.items[i]);
  zvec_free(&a->queue);
  for (size_t i = 0; i < a->attachments.len; i++) free(a->attachments.items[i]);
  zvec_free(&a->attachments);
  tui_prompt_release(&a->prompt);
  tui_composer_release(&a->comp);
  for (size_t i = 0; i < a->completion.nfiles; i++) free(a->completion.files[i]);
  free(a->completion.files);
  free(a->status.model);
  free(a->status.session_id);
  free(a->status.notice);
  tui_picker_release(&a->picker);
}

/* --- scrollback helpers -------------------------------------------------- */

void tui_app_vprintf(tui_app *a, const char *style, const char *fmt, va_list ap) {
  char *text = xstrvfmt(fmt, ap);
  tui_app_print(a, style, text);
  free(text);
}

void tui_app_printf(tui_app *a, const char *style, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  tui_app_vprintf(a, style, fmt, ap);
  va_end(ap);
}

void tui_app_print(tui_app *a, const char *style, const char *text) {
  const char *s = text;
  for (;;) {
    const char *nl = strchr(s, '\n');
    size_t n = nl ? (size_t)(nl - s) : strlen(s);
    zbuf line = ZBUF_INIT;
    zbuf_addstr(&line, style);
    tw_sanitize(&line, s, n);
    if (*style) zbuf_addstr(&line, a->th.reset);
    tw_wrap(&a->commit, line.data, line.len, a->width, "", "");
    zbuf_release(&line);
    if (!nl) break;
    s = nl + 1;
  }
}

static void blank(tui_app *a) { tw_lines_push(&a->commit, xstrdup("")); }

void tui_app_print_user(tui_app *a, const char *text) {
  blank(a);
  zbuf first = ZBUF_INIT;
  zbuf_addf(&first, "%s%s› %s", a->th.user, a->th.bold, a->th.reset);
  const char *s = text;
  bool firstline = true;
  for (;;) {
    const char *nl = strchr(s, '\n');
    size_t n = nl ? (size_t)(nl - s) : strlen(s);
    zbuf line = ZBUF_INIT;
    zbuf_addstr(&line, a->th.user);
    tw_sanitize(&line, s, n);
    zbuf_addstr(&line, a->th.reset);
    tw_wrap(&a->commit, line.data, line.len, a->width, firstline ? first.data : "  ", "  ");
    zbuf_release(&line);
    firstline = false;
    if (!nl) break;
    s = nl + 1;
  }
  zbuf_release(&first);
}

static void set_expandable(tui_app *a, const char *text, size_t len) {
  free(a->expandable);
  a->expandable = xstrndup(text, len);
  tw_lines_free(&a->expand_rows);
}

/* A card's diff rows into the scrollback, the first cap of them; when there
 * are more, a line says how many and Ctrl+O shows the whole diff (rows is
 * taken). */
static void commit_collapsed(tui_app *a, tw_lines *rows, size_t cap) {
  size_t shown = rows->len > cap ? cap : rows->len;
  for (size_t i = 0; i < shown; i++) tw_lines_push(&a->commit, xstrdup(rows->items[i]));
  if (rows->len > shown) {
    tw_lines_pushf(&a->commit, "      %s… %zu more lines (Ctrl+O shows the whole diff)%s",
                   a->th.muted, rows->len - shown, a->th.reset);
    free(a->expandable);
    a->expandable = NULL;
    tw_lines_free(&a->expand_rows);
    a->expand_rows = *rows;
    *rows = (tw_lines){0};
  }
  tw_lines_free(rows);
}

/* Ends the streamed answer: what is left becomes final. */
static void finish_text(tui_app *a) {
  if (!a->turn.md_active) return;
  tui_md_stream_finish(&a->turn.md, &a->commit);
  a->turn.md_active = false;
}

static void finish_reasoning(tui_app *a) {
  if (!a->turn.reasoning.len) return;
  size_t lines = 1;
  for (size_t i = 0; i < a->turn.reasoning.len; i++) lines += a->turn.reasoning.data[i] == '\n';
  blank(a);
  zbuf l = ZBUF_INIT;
  zbuf_addf(&l, "%s∴ Thought for %.1fs · %zu line%s (Ctrl+O shows it)%s", a->th.dim,
            a->now - a->turn.reasoning_started, lines, lines == 1 ? "" : "s", a->th.reset);
  tw_lines_push(&a->commit, tw_truncate(l.data, a->width));
  zbuf_release(&l);
  set_expandable(a, a->turn.reasoning.data, a->turn.reasoning.len);
  zbuf_reset(&a->turn.reasoning);
}

/* --- tool cards ---------------------------------------------------------- */

/* "update src/a.c, add src/b.c" for an apply_patch input. */
static void patch_summary(const char *input, zbuf *s) {
  zpatch p = ZPATCH_INIT;
  zbuf err = ZBUF_INIT;
  if (zpatch_parse(input, strlen(input), &p, &err) < 0) {
    zbuf_addstr(s, "a patch it could not parse");
  } else {
    for (size_t i = 0; i < p.files.len; i++) {
      const zpatch_file *f = &p.files.items[i];
      if (i == 3) {
        zbuf_addf(s, " and %zu more", p.files.len - 3);
        break;
      }
      zbuf_addf(s, "%s%s ", i ? ", " : "",
                f->op == ZPATCH_ADD ? "add" : f->op == ZPATCH_DELETE ? "delete" : "update");
      tw_sanitize(s, f->path, strlen(f->path));
      if (f->move_to) {
        zbuf_addstr(s, " → ");
        tw_sanitize(s, f->move_to, strlen(f->move_to));
      }
    }
  }
  zpatch_release(&p);
  zbuf_release(&err);
}

char *tui_tool_summary(const char *name, const char *arguments) {
  json_t *args = ztool_load_args(name, arguments);
  zbuf s = ZBUF_INIT;
  const char *v = NULL;
  if (json_is_object(args)) {
    if (!strcmp(name, "apply_patch") && zjson_str(args, "input")) patch_summary(zjson_str(args, "input"), &s);
    else if (!strcmp(name, "exec_command")) v = zjson_str(args, "cmd");
    else if (!strcmp(name, "update_plan")) {
      json_t *plan = json_object_get(args, "plan");
      zbuf_addf(&s, "%zu step%s", json_array_size(plan), json_array_size(plan) == 1 ? "" : "s");
    } else if (!strcmp(name, "write_spec") && zjson_str(args, "content")) {
      /* the spec itself is shown whole when the draft ends */
      size_t lines = 1;
      for (const char *p = zjson_str(args, "content"); *p; p++) lines += *p == '\n' && p[1];
      zbuf_addf(&s, "%zu line%s", lines, lines == 1 ? "" : "s");
    } else v = zjson_str(args, "path");
    if (!v && !s.len) {
      const char *key;
      json_t *val;
      json_object_foreach(args, key, val) {
        if (json_is_string(val)) {
          v = json_string_value(val);
          break;
        }
      }
    }
  }
  if (v) tw_sanitize(&s, v, strlen(v));
  json_decref(args);
  /* The model writes the command line: a key or token in it (a header, an
   * assignment, a URL's password) must not reach the screen, as its output
   * does not. */
  zredact(&s);
  for (size_t i = 0; i < s.len; i++)
    if (s.data[i] == '\n') s.data[i] = ' ';
  return zbuf_detach(&s, NULL);
}

static tui_card *find_card(tui_app *a, const char *id) {
  for (size_t i = 0; i < a->turn.cards.len; i++)
    if (!strcmp(a->turn.cards.items[i].id, id ? id : "")) return &a->turn.cards.items[i];
  return NULL;
}

static void plan_lines(tui_app *a, tw_lines *out) {
  if (!json_is_array(a->plan) || !json_array_size(a->plan)) return;
  tw_lines_pushf(out, "%s%sPlan%s", a->th.bold, a->th.accent, a->th.reset);
  size_t i;
  json_t *step;
  json_array_foreach(a->plan, i, step) {
    const char *st = zjson_str(step, "status"), *text = zjson_str(step, "step");
    const char *box = st && !strcmp(st, "completed")     ? "[x]"
                      : st && !strcmp(st, "in_progress") ? "[>]"
                                                         : "[ ]";
    const char *style = st && !strcmp(st, "completed")     ? a->th.muted
                        : st && !strcmp(st, "in_progress") ? a->th.bold
                                                           : "";
    zbuf l = ZBUF_INIT;
    zbuf_addf(&l, "%s", style);
    if (text) tw_sanitize(&l, text, strlen(text));
    zbuf_addstr(&l, a->th.reset);
    char first[16];
    snprintf(first, sizeof first, "  %s ", box);
    tw_wrap(out, l.data, l.len, a->width, first, "      ");
    zbuf_release(&l);
  }
}

static void commit_card(tui_app *a, tui_card *c, const zagent_event *ev) {
  const zev_tool_result *res = &ev->tool_result;
  blank(a);
  const char *glyph, *style, *word;
  if (c->denied) glyph = "⊘", style = a->th.warn, word = "denied";
  else if (res->ok) glyph = "✓", style = a->th.ok, word = NULL;
  else glyph = "✗", style = a->th.err, word = "failed";
  zbuf tail = ZBUF_INIT;
  if (!a->replaying) zbuf_addf(&tail, " · %.1fs", a->now - c->started);
  if (word) zbuf_addf(&tail, " · %s", word);
  json_t *meta = (json_t *)res->meta;
  if (meta && json_object_get(meta, "exit_code"))
    zbuf_addf(&tail, " · exit %d", (int)json_integer_value(json_object_get(meta, "exit_code")));
  /* the summary gives way, never the time or the outcome */
  int room = a->width - 2 - (int)tw_width(c->name, strlen(c->name)) - 1 -
             (int)tw_width(tail.data, tail.len);
  cleanup_free char *summary = tw_truncate(c->summary, room > 8 ? room : 8);
  zbuf head = ZBUF_INIT;
  zbuf_addf(&head, "%s%s%s %s%s%s %s%s%s%s", style, glyph, a->th.reset, a->th.bold, c->name,
            a->th.reset, summary, a->th.muted, tail.data, a->th.reset);
  zbuf_release(&tail);
  tw_lines_push(&a->commit, tw_truncate(head.data, a->width));
  zbuf_release(&head);
  if (!strcmp(c->name, "task")) tui_subagent_summary(meta, &a->th, a->width, &a->commit);

  json_t *args = ztool_load_args(c->name, c->arguments);
  if (res->ok && !strcmp(c->name, "edit_file") && json_is_object(args)) {
    const char *o = zjson_str(args, "old_string"), *n = zjson_str(args, "new_string");
    long first = meta ? (long)json_integer_value(json_object_get(meta, "first_line")) : 1;
    size_t add, del;
    tw_lines d = {0};
    tui_diff_render(o ? o : "", n ? n : "", first > 0 ? first : 1, a->width, &a->th, 0, &d, &add,
                    &del);
    tw_lines_pushf(&a->commit, "  %s+%zu -%zu lines%s", a->th.muted, add, del, a->th.reset);
    commit_collapsed(a, &d, TUI_CARD_DIFF_ROWS);
  } else if (res->ok && !strcmp(c->name, "apply_patch") && json_is_object(args) &&
             zjson_str(args, "input")) {
    /* every file the patch touched, as diffs with the file's line numbers */
    tw_lines d = {0};
    tui_patch_view(zjson_str(args, "input"), json_object_get(meta, "files"), a->width, &a->th,
                   SIZE_MAX, &d);
    commit_collapsed(a, &d, TUI_CARD_DIFF_ROWS);
  } else if (res->ok && !strcmp(c->name, "write_file") && json_is_object(args)) {
    const char *content = zjson_str(args, "content");
    size_t add, del;
    tw_lines d = {0};
    tui_diff_render("", content ? content : "", 1, a->width, &a->th, 0, &d, &add, &del);
    tw_lines_pushf(&a->commit, "  %s+%zu lines%s", a->th.muted, add, a->th.reset);
    commit_collapsed(a, &d, TUI_CARD_NEW_FILE_ROWS);
  } else if (!strcmp(c->name, "update_plan") && res->ok) {
    plan_lines(a, &a->commit);
    a->plan_changed = false;
  } else if (res->output && res->output_len && strcmp(c->name, "read_file")) {
    /* An excerpt of the output; Ctrl+O shows all of it. */
    const char *s = res->output, *end = res->output + res->output_len;
    size_t total = 1;
    for (const char *p = s; p < end; p++) total += *p == '\n';
    if (end > s && end[-1] == '\n') total--;
    size_t shown = 0;
    while (s < end && shown < 6) {
      const char *nl = memchr(s, '\n', (size_t)(end - s));
      size_t n = nl ? (size_t)(nl - s) : (size_t)(end - s);
      zbuf l = ZBUF_INIT;
      zbuf_addf(&l, "  %s│ ", a->th.muted);
      tw_sanitize(&l, s, n > 4096 ? 4096 : n);
      zbuf_addstr(&l, a->th.reset);
      tw_lines_push(&a->commit, tw_truncate(l.data, a->width));
      zbuf_release(&l);
      shown++;
      s = nl ? nl + 1 : end;
    }
    if (total > shown)
      tw_lines_pushf(&a->commit, "  %s… %zu more lines (Ctrl+O shows all)%s", a->th.muted,
                     total - shown, a->th.reset);
    set_expandable(a, res->output, res->output_len);
  } else if (res->output && res->output_len) {
    size_t lines = 1;
    for (size_t i = 0; i < res->output_len; i++) lines += res->output[i] == '\n';
    tw_lines_pushf(&a->commit, "  %sread %zu lines (Ctrl+O shows them)%s", a->th.muted, lines,
                   a->th.reset);
    set_expandable(a, res->output, res->output_len);
  }
  json_decref(args);
}

/* The last TUI_CARD_LIVE_ROWS lines of a running command's output (live),
 * one row each, for under its card. */
static void live_rows(tui_app *a, const char *live, tw_lines *out) {
  /* found from the end; a trailing newline ends the last line */
  const char *s = live, *e = s + strlen(s);
  while (e > s && e[-1] == '\n') e--;
  const char *from = e;
  for (int rows = 0; from > s && rows < TUI_CARD_LIVE_ROWS;) {
    from--;
    if (*from == '\n' && ++rows == TUI_CARD_LIVE_ROWS) from++;
  }
  while (from < e) {
    const char *nl = memchr(from, '\n', (size_t)(e - from));
    size_t n = nl ? (size_t)(nl - from) : (size_t)(e - from);
    if (n && from[n - 1] == '\r') n--;
    /* a progress bar redraws its line after a carriage return: its last state */
    const char *cr = memrchr(from, '\r', n), *text = cr ? cr + 1 : from;
    size_t tn = n - (size_t)(text - from);
    zbuf row = ZBUF_INIT;
    zbuf_addf(&row, "  %s│ ", a->th.muted);
    tw_sanitize(&row, text, tn > 1024 ? 1024 : tn);
    zbuf_addstr(&row, a->th.reset);
    tw_lines_push(out, tw_truncate(row.data, a->width - 1));
    zbuf_release(&row);
    from = nl ? nl + 1 : e;
  }
}

/* A running card: its spinner and time (or that it waits for your answer)
 * and, for a command, the last TUI_CARD_LIVE_ROWS lines of its output. */
static void running_card_lines(tui_app *a, const tui_card *c, tw_lines *out) {
  bool waiting = a->prompt.active && !c->decided;
  int frame = (int)((a->now - c->started) * 10.0) % 10;
  char when[64];
  if (waiting) snprintf(when, sizeof when, "waiting for your answer");
  else snprintf(when, sizeof when, "%.1fs", a->now - c->started);
  /* the summary gives way, never the time */
  int room = a->width - 1 - 2 - (int)tw_width(c->name, strlen(c->name)) - 1 - 3 - (int)strlen(when);
  cleanup_free char *summary = tw_truncate(c->summary, room > 8 ? room : 8);
  zbuf l = ZBUF_INIT;
  zbuf_addf(&l, "%s%s%s %s%s%s %s %s· %s%s", a->th.accent, frame >= 0 ? SPIN[frame] : SPIN[0],
            a->th.reset, a->th.bold, c->name, a->th.reset, summary, a->th.muted, when, a->th.reset);
  tw_lines_push(out, xstrdup(""));
  tw_lines_push(out, tw_truncate(l.data, a->width - 1));
  zbuf_release(&l);
  if (c->live && !waiting) live_rows(a, c->live, out);
}

/* --- events -------------------------------------------------------------- */

void tui_app_event(tui_app *a, const zagent_event *ev) {
  if (((ev->kind == ZAEV_TEXT || ev->kind == ZAEV_REASONING) && ev->delta.len) ||
      ev->kind == ZAEV_TOOL_CALL || ev->kind == ZAEV_ERROR || ev->kind == ZAEV_WARNING)
    a->turn.shown = true;
  switch (ev->kind) {
    case ZAEV_REASONING:
      if (!a->turn.reasoning.len) a->turn.reasoning_started = a->now;
      zbuf_add(&a->turn.reasoning, ev->delta.text, ev->delta.len);
      a->turn.stream_bytes += ev->delta.len;
      break;
    case ZAEV_TEXT:
      finish_reasoning(a);
      if (!a->turn.md_active) {
        blank(a);
        tui_md_stream_release(&a->turn.md);
        tui_md_stream_init(&a->turn.md, a->width, &a->th);
        a->turn.md_active = true;
      }
      tui_md_stream_add(&a->turn.md, ev->delta.text, ev->delta.len, &a->commit);
      a->turn.stream_bytes += ev->delta.len;
      break;
    case ZAEV_ASSISTANT_MESSAGE:
      finish_reasoning(a);
      finish_text(a);
      break;
    case ZAEV_TOOL_CALL: {
      finish_reasoning(a);
      finish_text(a);
      tui_card c = {.id = xstrdup(ev->tool_call.id ? ev->tool_call.id : ""),
                    .name = xstrdup(ev->tool_call.name ? ev->tool_call.name : ""),
                    .summary = tui_tool_summary(ev->tool_call.name ? ev->tool_call.name : "",
                                                ev->tool_call.arguments),
                    .arguments = xstrdup(ev->tool_call.arguments ? ev->tool_call.arguments : ""),
                    .started = a->now};
      zvec_push(&a->turn.cards, c);
      if (ev->tool_call.name && !strcmp(ev->tool_call.name, "update_plan") &&
          ev->tool_call.arguments) {
        json_t *args = json_loads(ev->tool_call.arguments, 0, NULL);
        json_t *plan = json_object_get(args, "plan");
        if (json_is_array(plan)) {
          json_decref(a->plan);
          a->plan = json_incref(plan);
          a->plan_changed = true;
        }
        json_decref(args);
      }
      break;
    }
    case ZAEV_PERMISSION_DECISION: {
      tui_card *c = find_card(a, ev->permission.id);
      if (!c) break;
      if (ev->permission.action && !strcmp(ev->permission.action, "deny")) c->denied = true;
      c->decided = true;
      c->started = a->now; /* the time waiting for an answer is not the tool's */
      break;
    }
    case ZAEV_TOOL_OUTPUT: {
      tui_card *c = find_card(a, ev->tool_output.id);
      if (!c) break;
      free(c->live);
      c->live = xstrdup(ev->tool_output.text ? ev->tool_output.text : "");
      break;
    }
    case ZAEV_TOOL_RESULT: {
      tui_card *c = find_card(a, ev->tool_result.id);
      if (!c) break;
      commit_card(a, c, ev);
      size_t idx = (size_t)(c - a->turn.cards.items);
      card_free(c);
      memmove(a->turn.cards.items + idx, a->turn.cards.items + idx + 1,
              (a->turn.cards.len - idx - 1) * sizeof *a->turn.cards.items);
      a->turn.cards.len--;
      break;
    }
    case ZAEV_SUBAGENT_START:
    case ZAEV_SUBAGENT_EVENT:
    case ZAEV_SUBAGENT_END: { /* under the task call's card (subagent_view.h) */
      tui_card *c = find_card(a, ev->subagent.call_id);
      if (c) tui_subagent_fold(c, ev);
      break;
    }
    case ZAEV_USAGE:
      a->turn.tokens += ev->usage.tokens.completion_tokens;
      a->turn.stream_bytes = 0; /* the estimate gives way to the count */
      a->usage.total_tokens += ev->usage.tokens.total_tokens;
      a->usage.prompt_sum += ev->usage.tokens.prompt_tokens;
      a->usage.completion_sum += ev->usage.tokens.completion_tokens;
      a->usage.cached_sum += ev->usage.tokens.cached_tokens;
      if (ev->usage.tokens.prompt_tokens) a->usage.context_tokens = ev->usage.tokens.prompt_tokens;
      break;
    case ZAEV_COMPACTION: {
      /* the loop compacted before a request: say what it reclaimed */
      finish_text(a);
      blank(a);
      tui_app_printf(a, a->th.muted, "↻ Context compacted (%s, %s): ~%lld → ~%lld tokens",
                     ev->compaction.method ? ev->compaction.method : "summary",
                     ev->compaction.reason ? ev->compaction.reason : "threshold",
                     (long long)ev->compaction.tokens_before,
                     (long long)ev->compaction.tokens_after);
      break;
    }
    case ZAEV_WARNING: {
      finish_text(a);
      tui_app_printf(a, a->th.warn, "⚠ %s", ev->warning.message ? ev->warning.message : "");
      break;
    }
    case ZAEV_ERROR: {
      finish_text(a);
      if (ev->error.code && !strcmp(ev->error.code, "interrupted")) break; /* shown by turn_end */
      blank(a);
      tui_app_printf(a, a->th.err, "✗ Error: %s", ev->error.message ? ev->error.message : "");
      break;
    }
    default: break;
  }
}

void tui_app_turn_start(tui_app *a, double now) {
  a->turn.busy = true;
  a->turn.started = now;
  a->turn.tokens = 0;
  a->turn.stream_bytes = 0;
  a->turn.shown = false;
}

void tui_app_turn_end(tui_app *a, const char *outcome_line) {
  finish_reasoning(a);
  finish_text(a);
  /* Cards left running (cancelled mid-tool) are closed as such. */
  for (size_t i = 0; i < a->turn.cards.len; i++) {
    tw_lines_pushf(&a->commit, "%s⊘ %s %s · cancelled%s", a->th.warn, a->turn.cards.items[i].name,
                   a->turn.cards.items[i].summary, a->th.reset);
    card_free(&a->turn.cards.items[i]);
  }
  a->turn.cards.len = 0;
  if (a->plan_changed) {
    blank(a);
    plan_lines(a, &a->commit);
    a->plan_changed = false;
  }
  if (outcome_line) {
    blank(a);
    tui_app_print(a, a->th.warn, outcome_line);
  }
  a->turn.busy = false;
}

/* --- permission prompt --------------------------------------------------- */

void tui_app_ask(tui_app *a, const tui_ask *q) {
  finish_text(a);
  finish_reasoning(a);
  tui_prompt_open(&a->prompt, q, &a->th, a->width);
}

void tui_app_picker(tui_app *a, const char *cmd, const char *title, const char *const *labels,
                    const char *const *values, size_t n) {
  tui_picker_open(&a->picker, cmd, title, labels, values, n);
}

/* --- completion ---------------------------------------------------------- */


static void walk(tui_app *a, const char *root, const char *rel, int depth) {
  if (depth > 12 || a->completion.nfiles >= 20000) return;
  char path[4096];
  snprintf(path, sizeof path, "%s%s%s", root, *rel ? "/" : "", rel);
  DIR *d = opendir(path);
  if (!d) return;
  struct dirent *e;
  while ((e = readdir(d)) && a->completion.nfiles < 20000) {
    const char *n = e->d_name;
    if (n[0] == '.' && (!n[1] || !strcmp(n, "..") || !strcmp(n, ".git"))) continue;
    if (!strcmp(n, "node_modules") || !strcmp(n, "target") || !strcmp(n, "__pycache__")) continue;
    char sub[4096];
    snprintf(sub, sizeof sub, "%s%s%s", rel, *rel ? "/" : "", n);
    bool dir = e->d_type == DT_DIR;
    if (e->d_type == DT_UNKNOWN) {
      struct stat st;
      char full[8192];
      snprintf(full, sizeof full, "%s/%s", root, sub);
      dir = stat(full, &st) == 0 && S_ISDIR(st.st_mode);
    }
    if (dir) walk(a, root, sub, depth + 1);
    else {
      a->completion.files = xrealloc(a->completion.files, (a->completion.nfiles + 1) * sizeof *a->completion.files);
      a->completion.files[a->completion.nfiles++] = xstrdup(sub);
    }
  }
  closedir(d);
}

typedef struct sugg {
  const char *text;   /* completion */
  const char *help;
  int score;
  size_t idx;         /* position in the command table / file list: ties keep it */
} sugg;

/* The token being completed: "/cmd" at the start, or "@path" at the cursor. */
static bool current_token(const tui_app *a, size_t *start, bool *is_cmd) {
  const zbuf *t = &a->comp.text;
  size_t cur = a->comp.cur;
  if (t->len && t->data[0] == '/' && !memchr(t->data, ' ', t->len) && !memchr(t->data, '\n', t->len)) {
    *start = 0;
    *is_cmd = true;
    return true;
  }
  size_t s = cur;
  while (s > 0 && t->data[s - 1] != ' ' && t->data[s - 1] != '\n') s--;
  if (s < cur && t->data[s] == '@') {
    *start = s;
    *is_cmd = false;
    return true;
  }
  return false;
}

static int cmp_sugg(const void *x, const void *y) {
  const sugg *a = x, *b = y;
  if (a->score != b->score) return b->score > a->score ? 1 : -1;
  return a->idx < b->idx ? -1 : a->idx > b->idx;
}

/* Rows of suggestions shown at once; the list scrolls with the selection. */
#define SUGG_ROWS 8
#define SUGG_MAX 64

/* The suggestions for the token at the cursor, best first (at most max):
 * "/" alone lists every command in the order of the table. */
static size_t suggestions(tui_app *a, sugg *out, size_t max) {
  size_t start;
  bool is_cmd;
  if (!current_token(a, &start, &is_cmd)) return 0;
  const char *tok = a->comp.text.data + start + 1;
  size_t tlen = a->comp.cur - start - 1;
  size_t n = 0;
  if (is_cmd) {
    tlen = a->comp.text.len - 1;
    for (size_t i = 0; i < tui_ncommands; i++) {
      int sc = tlen ? tui_fuzzy(tok, tlen, tui_commands[i].name + 1) : 0;
      if (sc < 0) continue;
      if (n < max) out[n++] = (sugg){tui_commands[i].name, tui_commands[i].help, sc, i};
    }
    for (size_t i = 0; i < a->completion.ncustom; i++) {
      const char *name = a->completion.custom_names[i];
      int sc = tlen ? tui_fuzzy(tok, tlen, name + 1) : 0;
      if (sc >= 0 && n < max)
        out[n++] = (sugg){name, a->completion.custom_help[i], sc, tui_ncommands + i};
    }
  } else {
    if (!a->completion.files_loaded && a->completion.workspace) {
      walk(a, a->completion.workspace, "", 0);
      a->completion.files_loaded = true;
    }
    sugg *all = xmalloc((a->completion.nfiles + 1) * sizeof *all);
    size_t m = 0;
    for (size_t i = 0; i < a->completion.nfiles; i++) {
      int sc = tui_fuzzy(tok, tlen, a->completion.files[i]);
      if (sc >= 0) all[m++] = (sugg){a->completion.files[i], "", sc, i};
    }
    qsort(all, m, sizeof *all, cmp_sugg);
    for (size_t i = 0; i < m && n < max; i++) out[n++] = all[i];
    free(all);
    return n < max ? n : max;
  }
  qsort(out, n, sizeof *out, cmp_sugg);
  return n < max ? n : max;
}

static bool complete(tui_app *a) {
  sugg s[SUGG_MAX];
  size_t n = suggestions(a, s, SUGG_MAX);
  if (!n) return false;
  size_t start;
  bool is_cmd;
  current_token(a, &start, &is_cmd);
  const char *pick = s[a->completion.sel < (int)n ? a->completion.sel : 0].text;
  zbuf t = ZBUF_INIT;
  zbuf_add(&t, a->comp.text.data, start);
  zbuf_addstr(&t, is_cmd ? "" : "@");
  zbuf_addstr(&t, pick);
  zbuf_addch(&t, ' ');
  size_t cur = t.len;
  size_t end = is_cmd ? a->comp.text.len : a->comp.cur;
  zbuf_add(&t, a->comp.text.data + end, a->comp.text.len - end);
  tui_composer_set(&a->comp, t.data);
  a->comp.cur = cur;
  zbuf_release(&t);
  a->completion.sel = 0;
  return true;
}

/* --- keys ---------------------------------------------------------------- */

static void set_notice(tui_app *a, const char *s) {
  free(a->status.notice);
  a->status.notice = s ? xstrdup(s) : NULL;
}

/* The composer's Ctrl+letter keys that only edit: one composer call each. */
static const struct {
  char ch;
  void (*edit)(tui_composer *c);
} CTRL_EDITS[] = {
    {'a', tui_composer_home},       {'e', tui_composer_end},       {'k', tui_composer_kill_end},
    {'u', tui_composer_kill_start}, {'w', tui_composer_kill_word}, {'y', tui_composer_yank},
    {'f', tui_composer_right},      {'h', tui_composer_backspace},
};

/* Ctrl+C: cancels a turn, else clears the composer, else leaves the side
 * conversation, else quits when pressed twice in a row. */
static tui_action key_ctrl_c(tui_app *a, bool was_armed) {
  if (a->turn.busy) return TUI_ACT_CANCEL;
  if (a->comp.text.len) {
    tui_composer_clear(&a->comp);
    return TUI_ACT_NONE;
  }
  if (a->status.side_chat) return TUI_ACT_LEAVE_SIDE;
  if (was_armed) return TUI_ACT_QUIT;
  a->ctrl_c_armed = true;
  set_notice(a, "Press Ctrl+C again to exit");
  return TUI_ACT_NONE;
}

/* Ctrl+letter: the edits of CTRL_EDITS, then the keys that act on the app. */
static tui_action key_ctrl(tui_app *a, uint32_t ch, bool was_armed) {
  for (size_t i = 0; i < ZARRAY_LEN(CTRL_EDITS); i++) {
    if ((uint32_t)CTRL_EDITS[i].ch != ch) continue;
    CTRL_EDITS[i].edit(&a->comp);
    return TUI_ACT_NONE;
  }
  switch (ch) {
    case 'c': return key_ctrl_c(a, was_armed);
    case 'd':
      if (!a->comp.text.len) return TUI_ACT_QUIT;
      tui_composer_delete(&a->comp);
      return TUI_ACT_NONE;
    case 'b': a->status.side_panel = !a->status.side_panel; return TUI_ACT_NONE;
    case 'l': tui_screen_invalidate(&a->scr); return TUI_ACT_NONE;
    case 'z': return TUI_ACT_SUSPEND;
    case 'o': /* the whole of the last collapsed diff, else the last long output */
      if (a->expand_rows.len) {
        blank(a);
        for (size_t i = 0; i < a->expand_rows.len; i++)
          tw_lines_push(&a->commit, xstrdup(a->expand_rows.items[i]));
      } else if (a->expandable) {
        blank(a);
        tui_app_print(a, a->th.dim, a->expandable);
      }
      return TUI_ACT_NONE;
    default: return TUI_ACT_NONE;
  }
}

/* Enter: a new line (with a modifier, or after a trailing backslash), else
 * the message or "/command" is taken from the composer; a partly typed
 * command is completed to the selected suggestion first. */
static tui_action key_enter(tui_app *a, const tui_key *k, char **text) {
  if ((k->mods & (TK_SHIFT | TK_ALT | TK_CTRL))) {
    tui_composer_newline(&a->comp);
    return TUI_ACT_NONE;
  }
  /* A trailing backslash continues the message on a new line. */
  if (a->comp.cur && a->comp.text.data[a->comp.cur - 1] == '\\') {
    tui_composer_backspace(&a->comp);
    tui_composer_newline(&a->comp);
    return TUI_ACT_NONE;
  }
  if (a->comp.text.len && a->comp.text.data[0] == '/' && !tui_command_find(a->comp.text.data))
    complete(a); /* does nothing when there is no suggestion */
  zbuf_rtrim(&a->comp.text);
  if (a->comp.cur > a->comp.text.len) a->comp.cur = a->comp.text.len;
  if (!a->comp.text.len) return TUI_ACT_NONE;
  bool cmd = a->comp.text.data[0] == '/';
  *text = tui_composer_take(&a->comp);
  a->completion.sel = 0;
  return cmd ? TUI_ACT_COMMAND : TUI_ACT_SUBMIT;
}

/* Up / Down (step -1 / +1): the suggestions take them, except while walking
 * the history (a recalled "/command" must not stop the walk); else the
 * cursor moves a line, and past the first / last line the history. */
static tui_action key_vertical(tui_app *a, int step) {
  sugg s[SUGG_MAX];
  size_t nsugg = suggestions(a, s, SUGG_MAX);
  if (nsugg && !tui_composer_browsing(&a->comp)) {
    a->completion.sel = (a->completion.sel + (int)nsugg + step) % (int)nsugg;
    return TUI_ACT_NONE;
  }
  if (step < 0 && !tui_composer_up(&a->comp)) tui_composer_history_prev(&a->comp);
  if (step > 0 && !tui_composer_down(&a->comp)) tui_composer_history_next(&a->comp);
  return TUI_ACT_NONE;
}

/* Alt+B / Alt+F move a word; Alt+D deletes the word after the cursor. */
static void key_alt_char(tui_app *a, uint32_t ch) {
  if (ch == 'b') {
    tui_composer_word_left(&a->comp);
  } else if (ch == 'f') {
    tui_composer_word_right(&a->comp);
  } else if (ch == 'd') {
    size_t from = a->comp.cur;
    tui_composer_word_right(&a->comp);
    size_t to = a->comp.cur;
    a->comp.cur = from;
    for (size_t i = from; i < to; i++) tui_composer_delete(&a->comp);
  }
}

/* The keys that are not Ctrl+letter and not Enter, Up or Down: editing and
 * moving in the composer, completion, the mode and cancel keys. */
static tui_action key_edit(tui_app *a, const tui_key *k) {
  bool word = k->mods & (TK_CTRL | TK_ALT);
  switch (k->type) {
    case TK_ESC: return a->turn.busy ? TUI_ACT_CANCEL : TUI_ACT_NONE;
    case TK_TAB: complete(a); return TUI_ACT_NONE;
    case TK_BACKTAB: return TUI_ACT_MODE;
    case TK_BACKSPACE:
      if (k->mods & TK_ALT) tui_composer_kill_word(&a->comp);
      else tui_composer_backspace(&a->comp);
      a->completion.sel = 0;
      return TUI_ACT_NONE;
    case TK_DELETE: tui_composer_delete(&a->comp); return TUI_ACT_NONE;
    case TK_LEFT:
      (word ? tui_composer_word_left : tui_composer_left)(&a->comp);
      return TUI_ACT_NONE;
    case TK_RIGHT:
      (word ? tui_composer_word_right : tui_composer_right)(&a->comp);
      return TUI_ACT_NONE;
    case TK_HOME: tui_composer_home(&a->comp); return TUI_ACT_NONE;
    case TK_END: tui_composer_end(&a->comp); return TUI_ACT_NONE;
    case TK_PASTE: tui_composer_paste(&a->comp, k->paste, k->paste_len); return TUI_ACT_NONE;
    case TK_CHAR:
      if (k->mods & TK_ALT) {
        key_alt_char(a, k->ch);
        return TUI_ACT_NONE;
      }
      tui_composer_insert(&a->comp, k->utf8, strlen(k->utf8));
      a->completion.sel = 0;
      return TUI_ACT_NONE;
    default: return TUI_ACT_NONE;
  }
}

/* A key goes to the first of: the permission prompt, the picker (both
 * modal), then the composer's Ctrl+letter keys, Enter, Up / Down, and the
 * editing keys. */
tui_action tui_app_key(tui_app *a, const tui_key *k, char **text) {
  *text = NULL;
  /* Ctrl+P / Ctrl+N move as the arrows do, in every menu and the composer */
  tui_key arrow = tui_key_as_arrow(k);
  k = &arrow;
  if (a->prompt.active) return tui_prompt_key(&a->prompt, k) ? TUI_ACT_PERMISSION : TUI_ACT_NONE;
  if (a->picker.active) return tui_picker_key(&a->picker, k, text) ? TUI_ACT_COMMAND : TUI_ACT_NONE;
  bool was_armed = a->ctrl_c_armed;
  a->ctrl_c_armed = false;
  set_notice(a, NULL);
  if (k->type == TK_CHAR && (k->mods & TK_CTRL)) return key_ctrl(a, k->ch, was_armed);
  switch (k->type) {
    case TK_ENTER: return key_enter(a, k, text);
    case TK_UP: return key_vertical(a, -1);
    case TK_DOWN: return key_vertical(a, +1);
    default: return key_edit(a, k);
  }
}

/* --- drawing ------------------------------------------------------------- */

static void fmt_tokens(char *out, size_t n, int64_t t) {
  if (t >= 1000000) snprintf(out, n, "%.1fM", (double)t / 1e6);
  else if (t >= 1000) snprintf(out, n, "%.1fk", (double)t / 1000.0);
  else snprintf(out, n, "%lld", (long long)t);
}

static void status_line(tui_app *a, tw_lines *live) {
  zbuf l = ZBUF_INIT;
  char tok[32];
  if (a->status.notice) {
    zbuf_addf(&l, "%s%s%s", a->th.warn, a->status.notice, a->th.reset);
  } else if (a->turn.busy) {
    int frame = (int)((a->now - a->turn.started) * 10.0) % 10;
    if (frame < 0) frame = 0;
    /* counted by the provider at the end of each request; until then about
     * 4 bytes a token of what has streamed */
    fmt_tokens(tok, sizeof tok, a->turn.tokens + (int64_t)((a->turn.stream_bytes + 3) / 4));
    zbuf_addf(&l, "%s%s%s %s %.1fs · %s tokens · Esc to cancel%s", a->th.accent, SPIN[frame],
              a->th.reset, a->prompt.active ? "Waiting for you" : "Working", a->now - a->turn.started,
              tok, a->th.muted);
    if (a->queue.len) zbuf_addf(&l, " · %zu queued", a->queue.len);
    if (a->status.loop) zbuf_addf(&l, " · %s", a->status.loop);
    zbuf_addstr(&l, a->th.reset);
  } else if (a->status.side_chat) {
    zbuf_addf(&l, "%s%s↳ btw%s %s· side conversation, not saved · Ctrl+C returns to the main one%s",
              a->th.accent, a->th.bold, a->th.reset, a->th.muted, a->th.reset);
  } else {
    fmt_tokens(tok, sizeof tok, a->usage.context_tokens);
    zbuf_addf(&l, "%s%s mode · %s · context %s", a->th.muted, zperm_mode_name(*a->status.mode),
              a->status.model ? a->status.model : "no model", tok);
    /* the loop before the hints: a narrow terminal cuts the hints first */
    if (a->status.loop) zbuf_addf(&l, " · %s", a->status.loop);
    zbuf_addf(&l, " · Shift+Tab mode · /help%s", a->th.reset);
  }
  tw_lines_push(live, tw_truncate(l.data, a->width - 1));
  zbuf_release(&l);
}

static void side_panel(tui_app *a, tw_lines *live) {
  char tok[32], tot[32];
  fmt_tokens(tok, sizeof tok, a->usage.context_tokens);
  fmt_tokens(tot, sizeof tot, a->usage.total_tokens);
  tw_lines_pushf(live, "%s┌ session%s", a->th.muted, a->th.reset);
  tw_lines_pushf(live, "%s│%s id       %s", a->th.muted, a->th.reset, a->status.session_id ? a->status.session_id : "(new)");
  tw_lines_pushf(live, "%s│%s model    %s", a->th.muted, a->th.reset, a->status.model ? a->status.model : "");
  tw_lines_pushf(live, "%s│%s mode     %s", a->th.muted, a->th.reset, zperm_mode_name(*a->status.mode));
  if (a->usage.context_window > 0) {
    char win[32];
    fmt_tokens(win, sizeof win, a->usage.context_window);
    int pct = (int)(100 * a->usage.context_tokens / a->usage.context_window);
    /* a bar, with the number: the share is never carried by the bar alone */
    char bar[64] = "";
    size_t bl = 0;
    for (int i = 0; i < 10; i++) bl += (size_t)snprintf(bar + bl, sizeof bar - bl, "%s", i < (pct + 5) / 10 ? "█" : "░");
    tw_lines_pushf(live, "%s│%s context  %s %s / %s (%d%%) · session %s", a->th.muted, a->th.reset,
                   bar, tok, win, pct, tot);
  } else {
    tw_lines_pushf(live, "%s│%s context  %s tokens · session %s", a->th.muted, a->th.reset, tok, tot);
  }
  tw_lines plan = {0};
  plan_lines(a, &plan);
  for (size_t i = 0; i < plan.len; i++) {
    zbuf l = ZBUF_INIT;
    zbuf_addf(&l, "%s│%s %s", a->th.muted, a->th.reset, plan.items[i]);
    tw_lines_push(live, tw_truncate(l.data, a->width - 1));
    zbuf_release(&l);
  }
  tw_lines_free(&plan);
  tw_lines_pushf(live, "%s└ Ctrl+B hides%s", a->th.muted, a->th.reset);
}

void tui_app_render(tui_app *a) {
  tw_lines live = {0};
  /* streaming content */
  if (a->turn.reasoning.len) {
    const char *s = a->turn.reasoning.data, *e = s + a->turn.reasoning.len;
    while (e > s && e[-1] == '\n') e--;
    const char *ls = e;
    while (ls > s && ls[-1] != '\n') ls--;
    zbuf l = ZBUF_INIT;
    zbuf_addf(&l, "%s∴ Thinking… ", a->th.dim);
    tw_sanitize(&l, ls, (size_t)(e - ls));
    zbuf_addstr(&l, a->th.reset);
    tw_lines_push(&live, xstrdup(""));
    tw_lines_push(&live, tw_truncate(l.data, a->width - 1));
    zbuf_release(&l);
  }
  if (a->turn.md_active) tui_md_stream_tail(&a->turn.md, &live);
  for (size_t i = 0; i < a->turn.cards.len; i++)
    running_card_lines(a, &a->turn.cards.items[i], &live);
  if (a->turn.busy && a->plan_changed && !a->status.side_panel) {
    tw_lines_push(&live, xstrdup(""));
    plan_lines(a, &live);
  }
  size_t perm_at = live.len, diff_at = 0, diff_rows = 0;
  if (a->prompt.active) tui_prompt_lines(&a->prompt, &a->th, a->width, &live, &diff_at, &diff_rows);
  else if (a->picker.active) tui_picker_lines(&a->picker, &a->th, a->width, &live);
  for (size_t i = 0; i < a->queue.len; i++) {
    zbuf l = ZBUF_INIT;
    zbuf_addf(&l, "%s⏎ queued: ", a->th.muted);
    tw_sanitize(&l, a->queue.items[i], strlen(a->queue.items[i]));
    zbuf_addstr(&l, a->th.reset);
    tw_lines_push(&live, tw_truncate(l.data, a->width - 1));
    zbuf_release(&l);
  }
  for (size_t i = 0; i < a->attachments.len; i++) {
    zbuf l = ZBUF_INIT;
    zbuf_addf(&l, "%s▣ image %s%s · sent with your next message (/image clear removes)%s",
              a->th.accent, a->th.reset, a->attachments.items[i], a->th.muted);
    zbuf_addstr(&l, a->th.reset);
    tw_lines_push(&live, tw_truncate(l.data, a->width - 1));
    zbuf_release(&l);
  }
  if (a->status.side_panel) side_panel(a, &live);
  tw_lines_push(&live, xstrdup(""));
  /* composer */
  int crow = 0, ccol = 0;
  size_t comp_top = live.len;
  char prompt[64];
  snprintf(prompt, sizeof prompt, "%s%s›%s ", a->th.accent, a->th.bold, a->th.reset);
  tui_composer_layout(&a->comp, a->width, prompt, 2, "", "", &live, &crow, &ccol);
  if (!a->comp.text.len && !a->prompt.active) {
    /* placeholder */
    free(live.items[live.len - 1]);
    zbuf l = ZBUF_INIT;
    zbuf_addf(&l, "%s %s%s", prompt, a->th.muted,
              a->turn.busy ? "Type to queue a message" : "Ask anything · / for commands · @ for files");
    zbuf_addstr(&l, a->th.reset);
    live.items[live.len - 1] = tw_truncate(l.data, a->width - 1);
    zbuf_release(&l);
    /* the prompt has one space already: keep the cursor after "› " */
    ccol = 2;
  }
  int cursor_row = (a->prompt.active && !a->prompt.note_mode) || a->picker.active ? -1 : (int)comp_top + crow;
  /* suggestions */
  sugg s[SUGG_MAX];
  size_t n = a->prompt.active || a->picker.active ? 0 : suggestions(a, s, SUGG_MAX);
  if (a->completion.sel >= (int)n) a->completion.sel = 0;
  /* a window of SUGG_ROWS rows that follows the selection */
  size_t first = a->completion.sel >= SUGG_ROWS ? (size_t)a->completion.sel - (SUGG_ROWS - 1) : 0;
  size_t stop = n < first + SUGG_ROWS ? n : first + SUGG_ROWS;
  if (first > 0) tw_lines_pushf(&live, "  %s↑ %zu more%s", a->th.muted, first, a->th.reset);
  for (size_t i = first; i < stop; i++) {
    zbuf l = ZBUF_INIT;
    bool sel = (int)i == a->completion.sel;
    zbuf_addf(&l, "%s%s %s%s", sel ? a->th.reverse : "", sel ? "›" : " ", s[i].text,
              sel ? a->th.reset : "");
    if (*s[i].help) zbuf_addf(&l, "  %s%s%s", a->th.muted, s[i].help, a->th.reset);
    tw_lines_push(&live, tw_truncate(l.data, a->width - 1));
    zbuf_release(&l);
  }
  if (stop < n) tw_lines_pushf(&live, "  %s↓ %zu more%s", a->th.muted, n - stop, a->th.reset);
  status_line(a, &live);
  if (a->prompt.active && a->prompt.note_mode) cursor_row = -1;
  /* A prompt taller than the terminal: its diff gives way (the renderer
   * keeps the bottom rows), so the title, what it acts on, why and the risk
   * stay in view with the choices. */
  size_t cap = a->height > 1 ? (size_t)a->height - 1 : 1;
  if (a->prompt.active && diff_rows && live.len - perm_at > cap) {
    size_t drop = live.len - perm_at - cap + 1; /* +1: the marker row */
    if (drop > diff_rows) drop = diff_rows;
    size_t from = diff_at + diff_rows - drop;
    for (size_t i = from; i < from + drop; i++) free(live.items[i]);
    live.items[from] = NULL;
    tw_lines_pushf(&live, "    %s… %zu more rows of it (a taller terminal shows them)%s", a->th.muted,
                   drop, a->th.reset);
    char *marker = live.items[--live.len];
    live.items[from] = marker;
    memmove(live.items + from + 1, live.items + from + drop, (live.len - from - drop) * sizeof *live.items);
    live.len -= drop - 1;
  }
  tui_screen_frame(&a->scr, a->commit.items, a->commit.len, live.items, live.len, cursor_row, ccol);
  tw_lines_free(&a->commit);
  tw_lines_free(&live);
}

void tui_app_resize(tui_app *a, int width, int height) {
  a->width = width;
  a->height = height;
  a->turn.md.width = width;
  tui_screen_resize(&a->scr, width, height);
}
