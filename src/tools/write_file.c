/* write_file.c — creates a file, or replaces one when asked to.
 *
 * The write lands on the real target (symlinks of the existing part of the
 * path resolved) and only when that target is inside a writable root, so a
 * symlink planted in the workspace cannot redirect a write outside it. The
 * content replaces the file atomically (zfs_write_atomic): a crash leaves the
 * old file or the new one, never a torn one.
 */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "base/common.h"
#include "base/fs.h"
#include "base/json.h"
#include "base/path.h"
#include "tools/tools_internal.h"
#include "tools/tracker.h"

static const char write_file_schema[] =
    "{\"type\":\"object\",\"properties\":{"
    "\"path\":{\"type\":\"string\",\"description\":\"File to write, relative to the workspace "
    "root. Missing parent directories are created.\"},"
    "\"content\":{\"type\":\"string\",\"description\":\"The complete new content of the "
    "file.\"},"
    "\"overwrite\":{\"type\":\"boolean\",\"description\":\"Set true to replace a file that "
    "already exists. Default false.\"}"
    "},\"required\":[\"path\",\"content\"],\"additionalProperties\":false}";

static int run_write_file(const ztool_ctx *ctx, const json_t *args, ztool_result *res) {
  const char *path = zjson_str(args, "path");
  const json_t *content_v = json_object_get(args, "content");
  const char *content = json_string_value(content_v);
  size_t len = json_string_length(content_v);
  bool overwrite = zjson_bool_or(args, "overwrite", false);

  if (!path[0])
    return ztool_fail(res, "write_file: path is empty; give the file to write, e.g. "
                           "\"src/main.c\".");
  cleanup_free char *display = NULL;
  cleanup_free char *target = zt_writable_target(ctx, "write_file", path, &display, res);
  if (!target) return -1;

  struct stat st;
  bool exists = stat(target, &st) == 0;
  mode_t mode = 0644;
  if (exists) {
    if (S_ISDIR(st.st_mode))
      return ztool_fail(res, "write_file: %s is a directory; give a file path.", display);
    if (!S_ISREG(st.st_mode))
      return ztool_fail(res, "write_file: %s exists and is not a regular file; refusing to "
                             "replace it.", display);
    if (!overwrite)
      return ztool_fail(res,
                        "File already exists: %s. To replace it, call write_file again with "
                        "overwrite: true; for a targeted change use edit_file.",
                        display);
    /* Never replace content the model has not seen, or that changed since. */
    switch (ztool_files_check(ctx->files, target, &st)) {
    case ZFILES_UNSEEN:
      return ztool_fail(res,
                        "write_file: refusing to overwrite %s: it has not been read in this "
                        "session. Read it with read_file first, then write it again (or change "
                        "part of it with edit_file).",
                        display);
    case ZFILES_CHANGED:
      return ztool_fail(res,
                        "write_file: refusing to overwrite %s: it changed on disk since you "
                        "read it (someone or something else modified it). Read it again with "
                        "read_file, then redo the change on the current content.",
                        display);
    case ZFILES_SEEN:
      break;
    }
    mode = st.st_mode & 07777;
  } else {
    cleanup_free char *parent = xstrdup(target);
    char *slash = strrchr(parent, '/');
    if (slash && slash != parent) {
      *slash = '\0';
      zerr err = ZERR_INIT;
      if (zfs_mkdir_p(parent, 0755, &err) < 0)
        return ztool_fail(res, "write_file: cannot create the parent directory of %s: %s",
                          display, err.msg);
    }
  }

  if (zt_before_write(ctx, "write_file", target, res) < 0) return -1;
  zerr err = ZERR_INIT;
  if (zt_write_text(ctx, target, content, len, mode, &err) < 0)
    return ztool_fail(res, "write_file: cannot write %s: %s", display, err.msg);

  ztool_files_note_write(ctx->files, target);
  size_t lines = zt_count_lines(content, len);
  zbuf_addf(&res->output, "%s %s (%zu lines).", exists ? "Overwrote" : "Created", display,
            lines);
  res->meta = json_object();
  json_object_set_new(res->meta, "path", json_string(target));
  json_object_set_new(res->meta, "bytes", json_integer((json_int_t)len));
  json_object_set_new(res->meta, "created", json_boolean(!exists));
  zt_meta_seen(ctx, res, target, NULL);
  return 0;
}

const ztool ztool_def_write_file = {
    .name = "write_file",
    .description =
        "Create a file with the given content (parent directories are created). Refuses to "
        "replace an existing file unless overwrite is true; to change part of an existing "
        "file prefer edit_file. Only paths inside the workspace (or an extra writable "
        "directory) can be written.",
    .parameters_json = write_file_schema,
    .side_effect = ZSIDE_WRITE,
    .read_only = false,
    .run = run_write_file,
};
