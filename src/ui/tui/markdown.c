/* markdown.c — see markdown.h. md4c is the parser; the layout is ours. */
#include "ui/tui/markdown.h"

#include <md4c.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/common.h"
#include "ui/tui/highlight.h"

typedef struct container {
  bool quote;        /* else a list item */
  char bullet[16];   /* list item marker ("• ", "3. ", "☐ ") */
  int bullet_w;
  bool bullet_used;
} container;

typedef struct list_info {
  bool ordered;
  unsigned next;
} list_info;

typedef struct mdr {
  tw_lines *out;
  int width;
  const tui_theme *th;
  ZVEC(container) boxes;
  ZVEC(list_info) lists;
  zbuf para;          /* inline content of the current leaf block, styled */
  ZVEC(const char *) spans; /* SGR of open spans */
  int leaf;           /* 0 none, else MD_BLOCKTYPE + 1 */
  unsigned h_level;
  size_t link_start;  /* para offset where the current link text began */
  char *link_href;
  zbuf code;          /* raw text of a code block */
  char lang[32];
  size_t nblocks;     /* blocks emitted (for blank lines between them) */
  /* tables */
  ZVEC(char *) cells; /* current table, row-major */
  ZVEC(int) aligns;   /* MD_ALIGN of each column (from the first row) */
  size_t ncols, row_cells;
  bool in_head;
  size_t head_rows;
} mdr;

/* Prefix for the next line: quotes and list indentation; the innermost
 * unused bullet shows once. */
static void prefix(mdr *r, zbuf *first, zbuf *rest) {
  for (size_t i = 0; i < r->boxes.len; i++) {
    container *c = &r->boxes.items[i];
    if (c->quote) {
      zbuf_addf(first, "%s│ %s", r->th->quote, r->th->reset);
      zbuf_addf(rest, "%s│ %s", r->th->quote, r->th->reset);
    } else {
      if (!c->bullet_used && i == r->boxes.len - 1) {
        zbuf_addf(first, "%s%s%s", r->th->accent, c->bullet, r->th->reset);
        c->bullet_used = true;
      } else {
        for (int k = 0; k < c->bullet_w; k++) zbuf_addch(first, ' ');
      }
      for (int k = 0; k < c->bullet_w; k++) zbuf_addch(rest, ' ');
    }
  }
}

static void blank_between(mdr *r) {
  if (r->nblocks++ == 0) return;
  zbuf p = ZBUF_INIT, q = ZBUF_INIT;
  for (size_t i = 0; i < r->boxes.len; i++)
    if (r->boxes.items[i].quote) zbuf_addf(&p, "%s│%s", r->th->quote, r->th->reset);
  tw_lines_push(r->out, zbuf_detach(&p, NULL));
  zbuf_release(&q);
}

/* Wraps the paragraph buffer (hard breaks are '\n') with the container
 * prefixes; `lead` is put before the first line (heading marker). */
static void flush_para(mdr *r, const char *lead) {
  zbuf first = ZBUF_INIT, rest = ZBUF_INIT;
  prefix(r, &first, &rest);
  if (lead) zbuf_addstr(&first, lead);
  int avail = r->width;
  const char *s = r->para.data;
  size_t len = r->para.len;
  bool firstline = true;
  while (true) {
    const char *nl = memchr(s, '\n', len);
    size_t n = nl ? (size_t)(nl - s) : len;
    tw_wrap(r->out, s, n, avail, firstline ? first.data : rest.data, rest.data);
    firstline = false;
    if (!nl) break;
    s = nl + 1;
    len -= n + 1;
  }
  zbuf_release(&first);
  zbuf_release(&rest);
  zbuf_reset(&r->para);
}

static void reapply_spans(mdr *r) {
  zbuf_addstr(&r->para, r->th->reset);
  for (size_t i = 0; i < r->spans.len; i++) zbuf_addstr(&r->para, r->spans.items[i]);
}

static void flush_code(mdr *r) {
  tui_hl hl;
  tui_hl_init(&hl, r->lang, strlen(r->lang));
  zbuf first = ZBUF_INIT, rest = ZBUF_INIT;
  prefix(r, &first, &rest);
  zbuf_addstr(&first, "  ");
  zbuf_addstr(&rest, "  ");
  if (r->lang[0]) {
    zbuf hdr = ZBUF_INIT;
    /* The info string is the model's text too: sanitized like the rest. */
    zbuf_addstr(&hdr, r->th->muted);
    tw_sanitize(&hdr, r->lang, strlen(r->lang));
    zbuf_addstr(&hdr, r->th->reset);
    tw_wrap(r->out, hdr.data, hdr.len, r->width, first.data, rest.data);
    zbuf_release(&hdr);
  }
  const char *s = r->code.data;
  size_t len = r->code.len;
  if (len && s[len - 1] == '\n') len--;
  zbuf line = ZBUF_INIT;
  bool any = false;
  while (len || !any) {
    any = true;
    const char *nl = memchr(s, '\n', len);
    size_t n = nl ? (size_t)(nl - s) : len;
    zbuf_reset(&line);
    tui_hl_line(&hl, r->th, s, n, &line);
    tw_wrap(r->out, line.data, line.len, r->width, rest.data, rest.data);
    if (!nl) break;
    s = nl + 1;
    len -= n + 1;
  }
  zbuf_release(&line);
  zbuf_release(&first);
  zbuf_release(&rest);
  zbuf_reset(&r->code);
}

/* One table row: each cell wrapped to its column's width (nothing is cut),
 * aligned as the delimiter row says, the row as tall as its tallest cell. */
static void table_row(mdr *r, size_t row, const int *w, size_t nc, const char *lead,
                      const char *rest) {
  tw_lines *cl = xcalloc(nc, sizeof *cl);
  size_t height = 1;
  for (size_t c = 0; c < nc; c++) {
    const char *cell = r->cells.items[row * nc + c];
    if (*cell) tw_wrap(&cl[c], cell, strlen(cell), w[c] > 0 ? w[c] : 1, "", "");
    if (cl[c].len > height) height = cl[c].len;
  }
  for (size_t k = 0; k < height; k++) {
    zbuf line = ZBUF_INIT;
    zbuf_addstr(&line, k == 0 ? lead : rest);
    for (size_t c = 0; c < nc; c++) {
      const char *part = k < cl[c].len ? cl[c].items[k] : "";
      int pad = w[c] - (int)tw_strwidth(part);
      if (pad < 0) pad = 0;
      int left = r->aligns.items[c] == MD_ALIGN_RIGHT ? pad
                 : r->aligns.items[c] == MD_ALIGN_CENTER ? pad / 2
                                                         : 0;
      if (c) zbuf_addf(&line, " %s│%s ", r->th->muted, r->th->reset);
      for (int i = 0; i < left; i++) zbuf_addch(&line, ' ');
      if (row < r->head_rows) zbuf_addstr(&line, r->th->bold);
      zbuf_addstr(&line, part);
      if (row < r->head_rows) zbuf_addstr(&line, r->th->reset);
      if (c + 1 < nc)
        for (int i = left; i < pad; i++) zbuf_addch(&line, ' ');
    }
    zbuf_rtrim(&line);
    tw_lines_push(r->out, zbuf_detach(&line, NULL));
  }
  for (size_t c = 0; c < nc; c++) tw_lines_free(&cl[c]);
  free(cl);
}

static void flush_table(mdr *r) {
  size_t nc = r->ncols ? r->ncols : 1;
  size_t nrows = r->cells.len / nc;
  while (r->aligns.len < nc) zvec_push(&r->aligns, MD_ALIGN_DEFAULT);
  int *w = xcalloc(nc, sizeof *w);
  for (size_t i = 0; i < r->cells.len; i++) {
    int cw = (int)tw_strwidth(r->cells.items[i]);
    if (cw > w[i % nc]) w[i % nc] = cw;
  }
  zbuf first = ZBUF_INIT, rest = ZBUF_INIT;
  prefix(r, &first, &rest);
  int avail = r->width - (int)tw_strwidth(rest.data) - 3 * (int)(nc - 1);
  /* too wide: narrow the widest column a column at a time (cells wrap) */
  for (;;) {
    int total = 0, widest = 0;
    for (size_t c = 0; c < nc; c++) {
      total += w[c];
      if (w[c] > w[widest]) widest = (int)c;
    }
    if (total <= avail || w[widest] <= 3) break;
    w[widest]--;
  }
  for (size_t row = 0; row < nrows; row++) {
    table_row(r, row, w, nc, row == 0 ? first.data : rest.data, rest.data);
    if (row + 1 == r->head_rows) {
      zbuf line = ZBUF_INIT;
      zbuf_addstr(&line, rest.data);
      zbuf_addstr(&line, r->th->muted);
      for (size_t c = 0; c < nc; c++) {
        if (c) zbuf_addstr(&line, "─┼─");
        for (int k = 0; k < w[c]; k++) zbuf_addstr(&line, "─");
      }
      zbuf_addstr(&line, r->th->reset);
      tw_lines_push(r->out, zbuf_detach(&line, NULL));
    }
  }
  for (size_t i = 0; i < r->cells.len; i++) free(r->cells.items[i]);
  r->cells.len = 0;
  r->aligns.len = 0;
  free(w);
  zbuf_release(&first);
  zbuf_release(&rest);
}

static int enter_block(MD_BLOCKTYPE type, void *detail, void *ud) {
  mdr *r = ud;
  /* Text of a tight list item ends where a nested block begins. */
  if (r->leaf == MD_BLOCK_LI + 1 && r->para.len && type != MD_BLOCK_TH && type != MD_BLOCK_TD)
    flush_para(r, NULL);
  switch (type) {
    case MD_BLOCK_DOC: break;
    case MD_BLOCK_QUOTE: {
      blank_between(r);
      r->nblocks = 0; /* the quote's first block needs no blank line */
      container c = {.quote = true};
      zvec_push(&r->boxes, c);
      break;
    }
    case MD_BLOCK_UL:
    case MD_BLOCK_OL: {
      if (r->boxes.len == 0 || r->boxes.items[r->boxes.len - 1].quote) blank_between(r);
      list_info li = {.ordered = type == MD_BLOCK_OL,
                      .next = type == MD_BLOCK_OL ? ((MD_BLOCK_OL_DETAIL *)detail)->start : 1};
      zvec_push(&r->lists, li);
      break;
    }
    case MD_BLOCK_LI: {
      MD_BLOCK_LI_DETAIL *d = detail;
      container c = {0};
      list_info *li = r->lists.len ? &r->lists.items[r->lists.len - 1] : NULL;
      size_t depth = r->lists.len;
      if (d->is_task) snprintf(c.bullet, sizeof c.bullet, "%s ", (d->task_mark == ' ') ? "[ ]" : "[x]");
      else if (li && li->ordered) snprintf(c.bullet, sizeof c.bullet, "%u. ", li->next++);
      else snprintf(c.bullet, sizeof c.bullet, "%s ", depth % 2 ? "•" : "◦");
      c.bullet_w = (int)tw_strwidth(c.bullet);
      zvec_push(&r->boxes, c);
      r->leaf = MD_BLOCK_LI + 1;
      break;
    }
    case MD_BLOCK_HR: {
      blank_between(r);
      zbuf l = ZBUF_INIT, rest = ZBUF_INIT;
      prefix(r, &l, &rest);
      zbuf_addstr(&l, r->th->muted);
      int n = r->width - (int)tw_strwidth(rest.data);
      for (int i = 0; i < n && i < 60; i++) zbuf_addstr(&l, "─");
      zbuf_addstr(&l, r->th->reset);
      tw_lines_push(r->out, zbuf_detach(&l, NULL));
      zbuf_release(&rest);
      break;
    }
    case MD_BLOCK_H:
      blank_between(r);
      r->h_level = ((MD_BLOCK_H_DETAIL *)detail)->level;
      r->leaf = MD_BLOCK_H + 1;
      zbuf_addstr(&r->para, r->th->bold);
      if (r->h_level <= 2) zbuf_addstr(&r->para, r->th->accent);
      zvec_push(&r->spans, r->th->bold);
      if (r->h_level <= 2) zvec_push(&r->spans, r->th->accent);
      break;
    case MD_BLOCK_CODE: {
      blank_between(r);
      MD_BLOCK_CODE_DETAIL *d = detail;
      size_t n = d->lang.size < sizeof r->lang - 1 ? d->lang.size : sizeof r->lang - 1;
      if (n) memcpy(r->lang, d->lang.text, n);
      r->lang[n] = 0;
      r->leaf = MD_BLOCK_CODE + 1;
      break;
    }
    case MD_BLOCK_HTML:
    case MD_BLOCK_P:
      if (r->leaf != MD_BLOCK_LI + 1 || r->para.len) blank_between(r);
      else if (r->boxes.len && !r->boxes.items[r->boxes.len - 1].bullet_used) r->nblocks++;
      else blank_between(r);
      r->leaf = type + 1;
      break;
    case MD_BLOCK_TABLE:
      blank_between(r);
      r->ncols = ((MD_BLOCK_TABLE_DETAIL *)detail)->col_count;
      r->head_rows = 0;
      break;
    case MD_BLOCK_THEAD: r->in_head = true; break;
    case MD_BLOCK_TBODY: r->in_head = false; break;
    case MD_BLOCK_TR:
      if (r->in_head) r->head_rows++;
      r->row_cells = 0;
      break;
    case MD_BLOCK_TH:
    case MD_BLOCK_TD:
      zbuf_reset(&r->para);
      if (r->cells.len < r->ncols) zvec_push(&r->aligns, (int)((MD_BLOCK_TD_DETAIL *)detail)->align);
      break;
  }
  return 0;
}

static int leave_block(MD_BLOCKTYPE type, void *detail, void *ud) {
  mdr *r = ud;
  switch (type) {
    case MD_BLOCK_QUOTE:
      if (r->boxes.len) r->boxes.len--;
      r->nblocks = 1;
      break;
    case MD_BLOCK_UL:
    case MD_BLOCK_OL:
      if (r->lists.len) r->lists.len--;
      break;
    case MD_BLOCK_LI:
      if (r->para.len || (r->boxes.len && !r->boxes.items[r->boxes.len - 1].bullet_used))
        flush_para(r, NULL);
      if (r->boxes.len) r->boxes.len--;
      r->leaf = 0;
      r->nblocks = 1;
      break;
    case MD_BLOCK_H: {
      r->spans.len = 0;
      zbuf_addstr(&r->para, r->th->reset);
      char lead[64];
      snprintf(lead, sizeof lead, "%s%.*s %s", r->th->muted, (int)r->h_level, "######",
               r->th->reset);
      flush_para(r, lead);
      r->leaf = 0;
      break;
    }
    case MD_BLOCK_CODE:
      flush_code(r);
      r->leaf = 0;
      break;
    case MD_BLOCK_P:
    case MD_BLOCK_HTML:
      flush_para(r, NULL);
      r->leaf = r->boxes.len && !r->boxes.items[r->boxes.len - 1].quote ? MD_BLOCK_LI + 1 : 0;
      break;
    case MD_BLOCK_TH:
    case MD_BLOCK_TD: {
      /* a cell is one line: hard breaks become spaces */
      for (size_t i = 0; i < r->para.len; i++)
        if (r->para.data[i] == '\n') r->para.data[i] = ' ';
      char *cell = zbuf_detach(&r->para, NULL);
      zvec_push(&r->cells, cell);
      r->row_cells++;
      break;
    }
    case MD_BLOCK_TR:
      while (r->row_cells < r->ncols) {
        zvec_push(&r->cells, xstrdup(""));
        r->row_cells++;
      }
      break;
    case MD_BLOCK_TABLE: flush_table(r); break;
    default: break;
  }
  (void)detail;
  return 0;
}

static int enter_span(MD_SPANTYPE type, void *detail, void *ud) {
  mdr *r = ud;
  const char *st = "";
  switch (type) {
    case MD_SPAN_EM: st = r->th->italic; break;
    case MD_SPAN_STRONG: st = r->th->bold; break;
    case MD_SPAN_CODE: st = r->th->code; break;
    case MD_SPAN_DEL: st = r->th->strike; break;
    case MD_SPAN_U: st = r->th->underline; break;
    case MD_SPAN_A: {
      st = r->th->link;
      MD_SPAN_A_DETAIL *d = detail;
      free(r->link_href);
      r->link_href = xstrndup(d->href.text, d->href.size);
      r->link_start = r->para.len;
      zvec_push(&r->spans, r->th->underline);
      zbuf_addstr(&r->para, r->th->underline);
      break;
    }
    default: break;
  }
  zvec_push(&r->spans, st);
  zbuf_addstr(&r->para, st);
  return 0;
}

/* The visible text of para[from..] without escapes, for link comparison. */
static char *plain_from(const zbuf *b, size_t from) {
  zbuf o = ZBUF_INIT;
  for (size_t i = from; i < b->len; i++) {
    if (b->data[i] == '\x1b') {
      while (i < b->len && b->data[i] != 'm') i++;
      continue;
    }
    zbuf_addch(&o, b->data[i]);
  }
  return zbuf_detach(&o, NULL);
}

static int leave_span(MD_SPANTYPE type, void *detail, void *ud) {
  mdr *r = ud;
  if (r->spans.len) r->spans.len--;
  if (type == MD_SPAN_A && r->spans.len) r->spans.len--;
  reapply_spans(r);
  if (type == MD_SPAN_A && r->link_href) {
    char *text = plain_from(&r->para, r->link_start);
    const char *h = r->link_href;
    bool same = !strcmp(text, h) || (!strncmp(h, "mailto:", 7) && !strcmp(text, h + 7));
    if (!same && *h) {
      zbuf_addf(&r->para, " %s(", r->th->muted);
      tw_sanitize(&r->para, h, strlen(h));
      zbuf_addch(&r->para, ')');
      reapply_spans(r);
    }
    free(text);
    free(r->link_href);
    r->link_href = NULL;
  }
  (void)detail;
  return 0;
}

static int on_text(MD_TEXTTYPE type, const MD_CHAR *text, MD_SIZE size, void *ud) {
  mdr *r = ud;
  if (r->leaf == MD_BLOCK_CODE + 1) {
    zbuf_add(&r->code, text, size);
    return 0;
  }
  switch (type) {
    case MD_TEXT_BR: zbuf_addch(&r->para, '\n'); break;
    case MD_TEXT_SOFTBR: zbuf_addch(&r->para, ' '); break;
    case MD_TEXT_NULLCHAR: zbuf_addstr(&r->para, "\xEF\xBF\xBD"); break;
    case MD_TEXT_ENTITY: {
      static const struct { const char *e, *s; } ents[] = {
          {"&amp;", "&"}, {"&lt;", "<"}, {"&gt;", ">"}, {"&quot;", "\""}, {"&nbsp;", " "},
          {"&#39;", "'"}, {"&apos;", "'"}, {"&copy;", "©"}, {"&mdash;", "—"}, {"&ndash;", "–"}};
      for (size_t i = 0; i < sizeof ents / sizeof ents[0]; i++)
        if (strlen(ents[i].e) == size && !memcmp(ents[i].e, text, size)) {
          zbuf_addstr(&r->para, ents[i].s);
          return 0;
        }
      tw_sanitize(&r->para, text, size);
      break;
    }
    default: {
      /* Newlines inside code spans / HTML become spaces. */
      const char *t = text;
      MD_SIZE left = size;
      while (left) {
        const char *nl = memchr(t, '\n', left);
        size_t n = nl ? (size_t)(nl - t) : left;
        tw_sanitize(&r->para, t, n);
        if (!nl) break;
        zbuf_addch(&r->para, ' ');
        t = nl + 1;
        left -= (MD_SIZE)(n + 1);
      }
      break;
    }
  }
  return 0;
}

void tui_md_render(const char *src, size_t len, int width, const tui_theme *th, tw_lines *out) {
  mdr r = {.out = out, .width = width < 8 ? 8 : width, .th = th, .para = ZBUF_INIT, .code = ZBUF_INIT};
  MD_PARSER p = {0};
  p.abi_version = 0;
  p.flags = MD_DIALECT_GITHUB | MD_FLAG_NOHTML;
  p.enter_block = enter_block;
  p.leave_block = leave_block;
  p.enter_span = enter_span;
  p.leave_span = leave_span;
  p.text = on_text;
  md_parse(src, (MD_SIZE)len, &p, &r);
  if (r.para.len) flush_para(&r, NULL);
  for (size_t i = 0; i < r.cells.len; i++) free(r.cells.items[i]);
  zvec_free(&r.aligns);
  zvec_free(&r.cells);
  zvec_free(&r.boxes);
  zvec_free(&r.lists);
  zvec_free(&r.spans);
  zbuf_release(&r.para);
  zbuf_release(&r.code);
  free(r.link_href);
}

/* --- streaming ---------------------------------------------------------- */

/* Fence opener/closer at the start of a line: returns its char ('`' / '~')
 * and length, or 0. */
static int fence_at(const char *s, size_t n, int *flen) {
  size_t i = 0;
  while (i < n && i < 3 && s[i] == ' ') i++;
  if (i >= n || (s[i] != '`' && s[i] != '~')) return 0;
  char c = s[i];
  size_t j = i;
  while (j < n && s[j] == c) j++;
  if (j - i < 3) return 0;
  *flen = (int)(j - i);
  return c;
}

size_t tui_md_boundary(const char *s, size_t len) {
  size_t best = 0, i = 0;
  int fence = 0, fence_len = 0;
  bool content = false;
  while (i < len) {
    const char *nl = memchr(s + i, '\n', len - i);
    if (!nl) break; /* an incomplete line is never final */
    size_t n = (size_t)(nl - (s + i)), end = i + n + 1;
    const char *line = s + i;
    int fl = 0;
    int fc = fence_at(line, n, &fl);
    if (fence) {
      if (fc == fence && fl >= fence_len) {
        /* a closing fence: only spaces may follow */
        size_t k = 0;
        while (k < n && (line[k] == ' ' || line[k] == fence)) k++;
        if (k == n) {
          fence = 0;
          best = end;
          content = false;
        }
      }
    } else if (fc) {
      fence = fc;
      fence_len = fl;
      content = true;
    } else {
      bool blank = true;
      for (size_t k = 0; k < n; k++)
        if (line[k] != ' ' && line[k] != '\t' && line[k] != '\r') blank = false;
      size_t k = 0;
      while (k < n && k < 3 && line[k] == ' ') k++;
      bool heading = k < n && line[k] == '#';
      if (heading) {
        size_t h = k;
        while (h < n && line[h] == '#') h++;
        heading = h - k <= 6 && (h == n || line[h] == ' ');
      }
      if (blank && content) {
        best = end;
        content = false;
      } else if (heading) {
        best = end;
        content = false;
      } else if (!blank) {
        content = true;
      }
    }
    i = end;
  }
  return best;
}

void tui_md_stream_init(tui_md_stream *m, int width, const tui_theme *th) {
  zbuf_init(&m->src);
  m->width = width;
  m->th = th;
  m->blocks = 0;
}

void tui_md_stream_release(tui_md_stream *m) { zbuf_release(&m->src); }

static bool all_blank(const char *s, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (s[i] != ' ' && s[i] != '\n' && s[i] != '\t' && s[i] != '\r') return false;
  return true;
}

static void render_chunk(tui_md_stream *m, const char *s, size_t n, tw_lines *out) {
  if (all_blank(s, n)) return;
  if (m->blocks) tw_lines_push(out, xstrdup(""));
  tui_md_render(s, n, m->width, m->th, out);
}

void tui_md_stream_add(tui_md_stream *m, const char *s, size_t len, tw_lines *final_out) {
  size_t old = m->src.len;
  zbuf_add(&m->src, s, len);
  /* Only a new newline can create a boundary. */
  if (!memchr(m->src.data + old, '\n', len)) return;
  size_t b = tui_md_boundary(m->src.data, m->src.len);
  if (!b) return;
  if (!all_blank(m->src.data, b)) {
    render_chunk(m, m->src.data, b, final_out);
    m->blocks++;
  }
  zbuf_consume(&m->src, b);
}

void tui_md_stream_tail(tui_md_stream *m, tw_lines *out) {
  if (all_blank(m->src.data, m->src.len)) return;
  render_chunk(m, m->src.data, m->src.len, out);
}

void tui_md_stream_finish(tui_md_stream *m, tw_lines *final_out) {
  if (!all_blank(m->src.data, m->src.len)) {
    render_chunk(m, m->src.data, m->src.len, final_out);
    m->blocks++;
  }
  zbuf_reset(&m->src);
}
