/* patch_view.c — see patch_view.h. */
#include "ui/tui/patch_view.h"

#include <string.h>

#include "base/buf.h"
#include "base/common.h"
#include "base/fs.h"
#include "base/json.h"
#include "tools/patch.h"
#include "ui/tui/diff.h"

#define VIEW_FILE_MAX (1u << 20) /* a larger file is numbered from the hints */

static void join_lines(const zpatch_line *v, size_t n, zbuf *out) {
  for (size_t i = 0; i < n; i++) {
    zbuf_add(out, v[i].s, v[i].n);
    zbuf_addch(out, '\n');
  }
}

static long line_at(const char *s, size_t off) {
  long line = 1;
  for (size_t i = 0; i < off; i++) line += s[i] == '\n';
  return line;
}

/* The hunks of an updated file, each numbered where its new text lies in
 * now (the file after the patch; NULL when unread). */
static void update_rows(const zpatch_file *f, const zbuf *now, int width, const tui_theme *th,
                        size_t cap, tw_lines *rows, size_t *add, size_t *del) {
  size_t from = 0; /* where the next hunk is looked for in now */
  long delta = 0;  /* lines the earlier hunks added (removed: negative) */
  for (size_t h = 0; h < f->hunks.len && rows->len < cap; h++) {
    const zpatch_hunk *k = &f->hunks.items[h];
    zbuf o = ZBUF_INIT, n = ZBUF_INIT;
    join_lines(k->old_lines.items, k->old_lines.len, &o);
    join_lines(k->new_lines.items, k->new_lines.len, &n);
    long new_first = k->hint > 0 ? k->hint + delta : 1;
    const char *hit = now && now->data && n.len && from <= now->len
                          ? memmem(now->data + from, now->len - from, n.data, n.len)
                          : NULL;
    if (hit) {
      new_first = line_at(now->data, (size_t)(hit - now->data));
      from = (size_t)(hit - now->data) + n.len;
    }
    if (h) tw_lines_pushf(rows, "     %s⋮%s", th->muted, th->reset);
    size_t a = 0, d = 0;
    size_t room = cap > rows->len ? cap - rows->len : 1; /* 0 would mean no cap */
    tui_diff_render_at(o.data ? o.data : "", n.data ? n.data : "", new_first - delta, new_first,
                       width, th, room, rows, &a, &d);
    *add += a;
    *del += d;
    delta += (long)a - (long)d;
    zbuf_release(&o);
    zbuf_release(&n);
  }
}

/* The rows of one file (not its header), at most room; *add / *del count
 * its changed lines. meta: its entry of meta.files, or NULL. */
static void file_rows(const zpatch_file *f, const json_t *meta, int width, const tui_theme *th,
                      size_t room, tw_lines *rows, size_t *add, size_t *del) {
  if (f->op == ZPATCH_ADD) {
    tui_diff_render("", f->content.data ? f->content.data : "", 1, width, th, room, rows, add, del);
  } else if (f->op == ZPATCH_UPDATE) {
    const char *now_path =
        zjson_str(meta, "move_to") ? zjson_str(meta, "move_to") : zjson_str(meta, "path");
    zbuf now = ZBUF_INIT;
    bool have = now_path && zfs_read_file(now_path, &now, VIEW_FILE_MAX, NULL) == 0;
    update_rows(f, have ? &now : NULL, width, th, room, rows, add, del);
    zbuf_release(&now);
  }
}

/* "  M src/a.c  +2 -1" */
static void file_header(const zpatch_file *f, size_t add, size_t del, int width,
                        const tui_theme *th, tw_lines *out) {
  zbuf head = ZBUF_INIT;
  char op = f->op == ZPATCH_ADD ? 'A' : f->op == ZPATCH_DELETE ? 'D' : f->move_to ? 'R' : 'M';
  zbuf_addf(&head, "  %s%c%s ", th->bold, op, th->reset);
  tw_sanitize(&head, f->path, strlen(f->path));
  if (f->move_to) {
    zbuf_addstr(&head, " → ");
    tw_sanitize(&head, f->move_to, strlen(f->move_to));
  }
  if (f->op != ZPATCH_DELETE) zbuf_addf(&head, "  %s+%zu -%zu%s", th->muted, add, del, th->reset);
  tw_lines_push(out, tw_truncate(head.data, width));
  zbuf_release(&head);
}

void tui_patch_view(const char *patch, const json_t *files, int width, const tui_theme *th,
                    size_t max_rows, tw_lines *out) {
  zpatch p = ZPATCH_INIT;
  zbuf err = ZBUF_INIT;
  if (patch && zpatch_parse(patch, strlen(patch), &p, &err) == 0) {
    size_t used = 0, hidden = 0;
    for (size_t i = 0; i < p.files.len; i++) {
      if (used >= max_rows) {
        hidden++;
        continue;
      }
      const zpatch_file *f = &p.files.items[i];
      tw_lines rows = {0};
      size_t add = 0, del = 0;
      size_t room = max_rows - used > 1 ? max_rows - used - 1 : 1; /* 0 would mean no cap */
      file_rows(f, json_array_get(files, i), width, th, room, &rows, &add, &del);
      file_header(f, add, del, width, th, out);
      for (size_t r = 0; r < rows.len; r++) tw_lines_push(out, steal_pointer(&rows.items[r]));
      used += 1 + rows.len;
      tw_lines_free(&rows);
    }
    if (hidden)
      tw_lines_pushf(out, "  %s… %zu more file%s%s", th->muted, hidden, hidden == 1 ? "" : "s",
                     th->reset);
  }
  zbuf_release(&err);
  zpatch_release(&p);
}
