/* out_text.c — `-o text`: the answer on stdout as it streams; tool activity,
 * warnings and errors on stderr (Go zero's "[tool] …" lines). */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/common.h"
#include "ui/output.h"

typedef struct text_sink {
  zsink base;
  FILE *out, *diag;
  bool streamed_text;   /* some answer text reached stdout this turn */
  bool ends_in_newline;
  bool any_text;        /* any answer text in the whole run */
  bool failed;
} text_sink;

static void put(text_sink *s, FILE *f, const char *p, size_t n) {
  if (n && fwrite(p, 1, n, f) != n) s->failed = true;
}

/* Ends the current answer line so diagnostics never glue onto it. */
static void end_text_line(text_sink *s) {
  if (s->streamed_text && !s->ends_in_newline) put(s, s->out, "\n", 1);
  if (s->streamed_text) fflush(s->out);
  s->streamed_text = false;
  s->ends_in_newline = true;
}

/* First 200 characters of a tool result, whitespace collapsed. */
static void summary(zbuf *b, const char *text, size_t len) {
  bool space = false;
  size_t shown = 0;
  for (size_t i = 0; i < len && shown < 200; i++) {
    unsigned char c = (unsigned char)text[i];
    if (c == ' ' || c == '\n' || c == '\t' || c == '\r') {
      space = b->len > 0;
      continue;
    }
    if (space) zbuf_addch(b, ' ');
    space = false;
    zbuf_addch(b, (char)c);
    shown++;
  }
  if (shown >= 200) zbuf_addstr(b, "...");
}

static void text_emit(zsink *base, const zagent_event *ev) {
  text_sink *s = (text_sink *)base;
  switch (ev->kind) {
    case ZAEV_TEXT:
      put(s, s->out, ev->delta.text, ev->delta.len);
      if (ev->delta.len) {
        s->streamed_text = s->any_text = true;
        s->ends_in_newline = ev->delta.text[ev->delta.len - 1] == '\n';
        fflush(s->out);
      }
      break;
    case ZAEV_TOOL_CALL:
      end_text_line(s);
      fprintf(s->diag, "[tool] %s\n", ev->tool_call.name);
      break;
    case ZAEV_PERMISSION_REQUEST:
    case ZAEV_PERMISSION_DECISION:
      if (ev->permission.action && strcmp(ev->permission.action, "allow") != 0)
        fprintf(s->diag, "[permission] %s %s: %s\n", ev->permission.name, ev->permission.action,
                ev->permission.reason);
      break;
    case ZAEV_TOOL_RESULT: {
      zbuf b = ZBUF_INIT;
      summary(&b, ev->tool_result.output ? ev->tool_result.output : "", ev->tool_result.output_len);
      fprintf(s->diag, "[result] %s%s\n", ev->tool_result.ok ? "" : "(error) ", b.data);
      zbuf_release(&b);
      break;
    }
    case ZAEV_WARNING:
      end_text_line(s);
      fprintf(s->diag, "[zero] WARNING: %s\n", ev->warning.message);
      break;
    case ZAEV_FINAL:
      /* Streamed text already holds the answer; print it only if nothing streamed. */
      if (!s->any_text && ev->final.text && ev->final.text[0]) {
        put(s, s->out, ev->final.text, strlen(ev->final.text));
        s->streamed_text = true;
        s->ends_in_newline = ev->final.text[strlen(ev->final.text) - 1] == '\n';
      }
      end_text_line(s);
      break;
    case ZAEV_ERROR:
      end_text_line(s);
      if (ev->error.code &&
          (!strcmp(ev->error.code, "max_turns") || !strcmp(ev->error.code, "incomplete")))
        fprintf(s->diag, "Run incomplete (not reported as success): %s\n", ev->error.message);
      else if (ev->error.code && !strcmp(ev->error.code, "interrupted"))
        fprintf(s->diag, "Interrupted.\n");
      else fprintf(s->diag, "[zero] %s\n", ev->error.message);
      break;
    case ZAEV_RUN_END:
      end_text_line(s);
      break;
    default:
      break;
  }
  fflush(s->diag);
}

static int text_finish(zsink *base) {
  text_sink *s = (text_sink *)base;
  /* The per-delta fflush results are not checked, and a failed flush drops
   * the buffered bytes, so a later fflush succeeds: the sticky error flag is
   * what remembers that answer text was lost. */
  if (fflush(s->out) != 0 || ferror(s->out)) s->failed = true;
  return s->failed ? -1 : 0;
}

zsink *zout_text_new(FILE *out, FILE *diag) {
  text_sink *s =
      zsink_new(sizeof *s,
                (zsink){.emit = text_emit, .finish = text_finish, .destroy = zsink_free});
  s->out = out;
  s->diag = diag;
  s->ends_in_newline = true;
  return &s->base;
}
