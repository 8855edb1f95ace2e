/* apply_patch.c — the model's main way to edit files; see patch.h for the
 * language.
 *
 * All or nothing: every file of the patch is read, matched and its new
 * content built in memory first; only when every hunk of every file applies
 * are the before-write hooks asked and the files written. A write that fails
 * part-way restores the files already written.
 */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/common.h"
#include "base/fs.h"
#include "base/json.h"
#include "tools/patch.h"
#include "tools/tools_internal.h"
#include "tools/tracker.h"

#define PATCH_MAX_FILE (64u << 20)

static const char apply_patch_schema[] =
    "{\"type\":\"object\",\"properties\":{"
    "\"input\":{\"type\":\"string\",\"description\":\"The whole patch, from \\\"*** Begin "
    "Patch\\\" to \\\"*** End Patch\\\" (a unified diff is accepted too).\"}"
    "},\"required\":[\"input\"],\"additionalProperties\":false}";

/* One file change, staged. */
typedef struct staged {
  char op;             /* 'A', 'M', 'D', 'R' (moved, maybe modified) */
  char *target;        /* real path written or deleted */
  char *display;
  char *dest;          /* 'R': the destination (real path) */
  char *dest_display;
  zbuf new_content;    /* 'A', 'M', 'R' */
  zbuf old_content;    /* 'M', 'D', 'R': for roll-back */
  char *link;          /* 'D', 'R' of a symlink: the link itself (removed, not its target) */
  char *link_text;     /* its readlink text, for roll-back */
  mode_t mode;
  bool done, dest_done;
} staged;

static void staged_release(staged *s) {
  free(s->target);
  free(s->display);
  free(s->dest);
  free(s->dest_display);
  free(s->link);
  free(s->link_text);
  zbuf_release(&s->new_content);
  zbuf_release(&s->old_content);
}

static int mkparents(const char *path, zerr *err) {
  cleanup_free char *parent = xstrdup(path);
  char *slash = strrchr(parent, '/');
  if (!slash || slash == parent) return 0;
  *slash = '\0';
  return zfs_mkdir_p(parent, 0755, err);
}

static bool same_path_seen(const staged *ss, size_t n, const char *p) {
  for (size_t i = 0; i < n; i++)
    if (!strcmp(ss[i].target, p) || (ss[i].dest && !strcmp(ss[i].dest, p))) return true;
  return false;
}

/* Reads a regular file for modification; fails with a message. */
static int read_existing(const ztool_ctx *ctx, const char *target, const char *display,
                         zbuf *out, mode_t *mode, ztool_result *res) {
  /* A failed hunk shows the file's nearest lines: not for a denied file. */
  if (ztool_read_denied(ctx, target))
    return ztool_fail(res, "apply_patch: reading %s is denied by the sandbox policy "
                           "(sandbox.denyRead), so it cannot be patched. No file was changed.",
                      display);
  struct stat st;
  if (stat(target, &st) < 0)
    return ztool_fail(res, "apply_patch: %s does not exist, so it cannot be updated or deleted. "
                           "Check the path, or use \"*** Add File:\" to create it. No file was "
                           "changed.", display);
  if (!S_ISREG(st.st_mode))
    return ztool_fail(res, "apply_patch: %s is not a regular file. No file was changed.", display);
  zerr err = ZERR_INIT;
  if (zt_read_text(ctx, target, out, PATCH_MAX_FILE, &err) < 0)
    return ztool_fail(res, "apply_patch: cannot read %s: %s. No file was changed.", display,
                      err.msg);
  *mode = st.st_mode & 07777;
  return 0;
}

/* The path a delete or a move removes: the symlink named in the patch, not
 * the file it points to (that stays, like `rm link` / `git rm link`). */
static const char *removed_path(const staged *s) { return s->link ? s->link : s->target; }

/* When the patch names a symlink (whose directory is writable), delete and
 * move act on the link: records it and its text. */
static void note_link(const ztool_ctx *ctx, const zpatch_file *pf, staged *s) {
  cleanup_free char *abs = ztool_resolve_path(ctx, pf->path);
  struct stat st;
  if (lstat(abs, &st) < 0 || !S_ISLNK(st.st_mode)) return;
  cleanup_free char *parent = xstrdup(abs);
  char *slash = strrchr(parent, '/');
  if (!slash || slash == parent) return;
  *slash = '\0';
  if (!ztool_path_writable(ctx, parent)) return;
  char text[4096];
  ssize_t n = readlink(abs, text, sizeof text - 1);
  if (n < 0) return;
  text[n] = '\0';
  s->link = steal_pointer(&abs);
  s->link_text = xstrdup(text);
}

static int stage_one(const ztool_ctx *ctx, const zpatch_file *pf, staged *ss, size_t n_done,
                     staged *s, ztool_result *res) {
  s->target = zt_writable_target(ctx, "apply_patch", pf->path, &s->display, res);
  if (!s->target) {
    zbuf_addstr(&res->output, " No file was changed.");
    return -1;
  }
  if (same_path_seen(ss, n_done, s->target))
    return ztool_fail(res, "apply_patch: %s appears in more than one section of the patch; "
                           "put all its changes in one section. No file was changed.",
                      s->display);
  struct stat st;
  switch (pf->op) {
  case ZPATCH_ADD:
    if (lstat(s->target, &st) == 0)
      return ztool_fail(res, "apply_patch: cannot add %s: it already exists. Use \"*** Update "
                             "File:\" to change it (or delete it first). No file was changed.",
                        s->display);
    s->op = 'A';
    s->mode = 0644;
    zbuf_add(&s->new_content, pf->content.data, pf->content.len);
    return 0;
  case ZPATCH_DELETE:
    s->op = 'D';
    note_link(ctx, pf, s);
    return read_existing(ctx, s->target, s->display, &s->old_content, &s->mode, res);
  case ZPATCH_UPDATE:
    break;
  }
  s->op = pf->move_to ? 'R' : 'M';
  if (pf->move_to) note_link(ctx, pf, s);
  if (read_existing(ctx, s->target, s->display, &s->old_content, &s->mode, res) < 0) return -1;
  zbuf err = ZBUF_INIT;
  if (pf->hunks.len == 0) {
    zbuf_add(&s->new_content, s->old_content.data, s->old_content.len);
  } else if (zpatch_apply_hunks(pf, s->display, s->old_content.data, s->old_content.len,
                                &s->new_content, &err) < 0) {
    ztool_fail(res, "apply_patch: %s\nNo file was changed.", err.data);
    zbuf_release(&err);
    return -1;
  }
  zbuf_release(&err);
  if (pf->move_to) {
    s->dest = zt_writable_target(ctx, "apply_patch", pf->move_to, &s->dest_display, res);
    if (!s->dest) {
      zbuf_addstr(&res->output, " No file was changed.");
      return -1;
    }
    if (strcmp(s->dest, s->target) == 0) {
      s->op = 'M';
      free(s->dest);
      free(s->dest_display);
      s->dest = s->dest_display = NULL;
    } else if (lstat(s->dest, &st) == 0) {
      return ztool_fail(res, "apply_patch: cannot move %s to %s: the destination already "
                             "exists. Choose another name or delete it first. No file was "
                             "changed.", s->display, s->dest_display);
    } else if (same_path_seen(ss, n_done, s->dest)) {
      return ztool_fail(res, "apply_patch: %s appears in more than one section of the patch. "
                             "No file was changed.", s->dest_display);
    }
  }
  return 0;
}

/* Undoes one staged change already made (best effort; notes a failure). */
static void undo_one(const ztool_ctx *ctx, staged *s, zbuf *note) {
  zerr err = ZERR_INIT;
  if (s->dest_done) {
    assert(s->dest); /* dest_done is set only once a rename's copy at dest was written */
    if (unlink(s->dest) < 0) zbuf_addf(note, " could not remove %s;", s->dest_display);
  }
  if (!s->done) return;
  if (s->op == 'A') {
    if (unlink(s->target) < 0) zbuf_addf(note, " could not remove %s;", s->display);
  } else if (s->link && (s->op == 'D' || s->op == 'R')) {
    if (symlink(s->link_text, s->link) < 0) zbuf_addf(note, " could not restore %s;", s->display);
  } else if (zt_write_text(ctx, s->target, s->old_content.data, s->old_content.len, s->mode, &err) <
             0) {
    zbuf_addf(note, " could not restore %s (%s);", s->display, err.msg);
  }
}

/* Undoes the writes already made, newest first (best effort; reports what
 * it could not). */
static void roll_back(const ztool_ctx *ctx, staged *ss, size_t n, zbuf *note) {
  for (size_t i = n; i-- > 0;) undo_one(ctx, &ss[i], note);
}

/* Adds and modifications go through the editor when ctx has a backend
 * (zt_write_text); deletes and moves stay on disk (ACP has no call for
 * them). */
static int write_one(const ztool_ctx *ctx, staged *s, zerr *err) {
  switch (s->op) {
  case 'A':
    if (mkparents(s->target, err) < 0) return -1;
    if (zt_write_text(ctx, s->target, s->new_content.data, s->new_content.len, s->mode, err) < 0)
      return -1;
    s->done = true;
    return 0;
  case 'M':
    if (zt_write_text(ctx, s->target, s->new_content.data, s->new_content.len, s->mode, err) < 0)
      return -1;
    s->done = true;
    return 0;
  case 'D':
    if (unlink(removed_path(s)) < 0) return zerr_errno(err, ZE_IO, "cannot delete %s", s->display);
    s->done = true;
    return 0;
  case 'R':
    if (mkparents(s->dest, err) < 0) return -1;
    if (zfs_write_atomic(s->dest, s->new_content.data, s->new_content.len, s->mode, err) < 0)
      return -1;
    s->dest_done = true;
    if (unlink(removed_path(s)) < 0) return zerr_errno(err, ZE_IO, "cannot remove %s", s->display);
    s->done = true;
    return 0;
  }
  return 0;
}

int zt_apply_patch_text(const ztool_ctx *ctx, const char *text, size_t len, ztool_result *res) {
  zpatch p = ZPATCH_INIT;
  zbuf perr = ZBUF_INIT;
  if (zpatch_parse(text, len, &p, &perr) < 0) {
    ztool_fail(res, "apply_patch: invalid patch: %s. No file was changed.", perr.data);
    zbuf_release(&perr);
    zpatch_release(&p);
    return -1;
  }
  zbuf_release(&perr);

  size_t n = p.files.len;
  staged *ss = xcalloc(n ? n : 1, sizeof *ss);
  int rc = 0;
  size_t staged_n = 0;
  for (size_t i = 0; i < n && rc == 0; i++) {
    zbuf_init(&ss[i].new_content);
    zbuf_init(&ss[i].old_content);
    rc = stage_one(ctx, &p.files.items[i], ss, i, &ss[i], res);
    staged_n = i + 1;
  }
  /* Every change is known; let the checkpoint hook see each path first. */
  for (size_t i = 0; i < n && rc == 0; i++) {
    rc = zt_before_write(ctx, "apply_patch", ss[i].target, res);
    if (rc == 0 && ss[i].dest) rc = zt_before_write(ctx, "apply_patch", ss[i].dest, res);
  }
  size_t written = 0;
  for (; rc == 0 && written < n; written++) {
    zerr err = ZERR_INIT;
    if (write_one(ctx, &ss[written], &err) < 0) {
      zbuf note = ZBUF_INIT;
      roll_back(ctx, ss, written + 1, &note);
      ztool_fail(res, "apply_patch: writing %s failed: %s. %s", ss[written].display, err.msg,
                 note.len ? "Roll-back was incomplete:" : "Every file was restored; no file "
                                                          "was changed.");
      if (note.len) zbuf_add(&res->output, note.data, note.len);
      zbuf_release(&note);
      rc = -1;
    }
  }
  if (rc == 0) {
    for (size_t i = 0; i < n; i++)
      ztool_files_note_write(ctx->files, ss[i].dest ? ss[i].dest : ss[i].target);
    zbuf_addstr(&res->output, "Success. Updated the following files:");
    json_t *files = json_array();
    for (size_t i = 0; i < n; i++) {
      staged *s = &ss[i];
      if (s->op == 'R')
        zbuf_addf(&res->output, "\nR %s -> %s", s->display, s->dest_display);
      else
        zbuf_addf(&res->output, "\n%c %s", s->op, s->display);
      json_t *o = json_object();
      json_object_set_new(o, "op", json_stringn(&s->op, 1));
      json_object_set_new(o, "path", json_string(s->target));
      if (s->dest) json_object_set_new(o, "move_to", json_string(s->dest));
      json_array_append_new(files, o);
    }
    res->meta = json_object();
    json_object_set_new(res->meta, "files", files);
    for (size_t i = 0; i < n; i++)
      if (ss[i].op != 'D') zt_meta_seen(ctx, res, ss[i].dest ? ss[i].dest : ss[i].target, NULL);
  }
  for (size_t i = 0; i < staged_n; i++) staged_release(&ss[i]);
  free(ss);
  zpatch_release(&p);
  return rc;
}

static int run_apply_patch(const ztool_ctx *ctx, const json_t *args, ztool_result *res) {
  const json_t *in = json_object_get(args, "input");
  return zt_apply_patch_text(ctx, json_string_value(in), json_string_length(in), res);
}

const ztool ztool_def_apply_patch = {
    .name = "apply_patch",
    .description =
        "Edit files with a patch. Format:\n*** Begin Patch\n*** Add File: path\n+new line\n"
        "*** Update File: path\n*** Move to: new/path (optional)\n@@ optional line to anchor "
        "on (e.g. a function signature)\n context line\n-removed line\n+added line\n"
        "*** End of File (optional: the hunk ends the file)\n*** Delete File: path\n"
        "*** End Patch\nGive about 3 lines of unchanged context around each change. The patch "
        "applies all-or-nothing; a failure names the hunk and shows the nearest lines. Unified "
        "diffs (---/+++/@@) are accepted too.",
    .parameters_json = apply_patch_schema,
    .side_effect = ZSIDE_WRITE,
    .read_only = false,
    .run = run_apply_patch,
    .freeform_param = "input",
};
