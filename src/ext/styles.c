/* styles.c — output styles; see styles.h. */
#include "ext/styles.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/buf.h"
#include "base/common.h"
#include "base/frontmatter.h"
#include "base/fs.h"
#include "base/path.h"

#define STYLE_FILE_MAX (256u << 10)

static const char EXPLANATORY[] =
    "Besides doing the task, help the user understand the codebase and your choices. "
    "Before and after writing code, give short educational insights about the "
    "implementation choices you make, in a block that starts with a line "
    "\"Insight:\" and holds two or three points specific to this codebase or this change, "
    "not general programming advice. Keep them brief; the work itself stays as "
    "thorough as usual.";

static const char LEARNING[] =
    "Help the user learn by doing. Do the task as usual, but where a small piece of "
    "meaningful code (2 to 10 lines: a design decision, a business rule, an algorithm "
    "choice) would teach something, leave it for the user: write the surrounding code, "
    "put a TODO(human) comment where their part goes, say what it should do and which "
    "trade-offs to weigh, and stop to let them write it. Never leave more than one "
    "TODO(human) open at a time. Explain your own choices briefly in a block that starts "
    "with a line \"Insight:\".";

static const struct {
  const char *name, *description, *text;
} BUILTINS[] = {
    {"default", "zero's usual answers: concise, focused on the work", ""},
    {"explanatory", "explains its implementation choices as it works (Insight blocks)",
     EXPLANATORY},
    {"learning", "leaves small parts for you to write (TODO(human)) and explains", LEARNING},
};

static zstyle *find_mut(zstyles *ss, const char *name) {
  for (size_t i = 0; name && i < ss->n; i++)
    if (!strcasecmp(ss->v[i].name, name)) return &ss->v[i];
  return NULL;
}

const zstyle *zstyles_find(const zstyles *ss, const char *name) {
  return find_mut((zstyles *)ss, name);
}

static void style_free(zstyle *st) {
  free(st->name);
  free(st->description);
  free(st->path);
}

/* A name a user can type after /style: no blanks or control characters. */
static bool valid_name(const char *n) {
  if (!*n || strlen(n) > 64) return false;
  for (const char *p = n; *p; p++)
    if ((unsigned char)*p <= ' ' || *p == '/') return false;
  return true;
}

static void add_file(zstyles *ss, const char *path, const char *file, bool project) {
  zerr err = ZERR_INIT;
  json_t *meta = NULL;
  if (zfrontmatter_load(path, STYLE_FILE_MAX, &meta, &err) < 0) {
    strvec_pushf(&ss->problems, "%s: %s; fix the front matter (the style was skipped)", path,
                 err.msg);
    return;
  }
  const char *name = zfrontmatter_str(meta, "name");
  cleanup_free char *stem = xstrndup(file, strlen(file) - 3);
  if (!name) name = stem;
  const char *desc = zfrontmatter_str(meta, "description");
  zstyle *old = find_mut(ss, name);
  if (!valid_name(name) || (old && !old->path && !old->text[0])) {
    strvec_pushf(&ss->problems, "%s: \"%s\" %s; rename it (the style was skipped)", path, name,
                 valid_name(name) ? "is the built-in default, which is never replaced"
                                  : "is not a usable style name (no blanks, at most 64 bytes)");
    json_decref(meta);
    return;
  }
  zstyle st = {.name = xstrdup(name),
               .description = xstrdup(desc ? desc : ""),
               .path = xstrdup(path),
               .project = project};
  if (old) { /* a project style replaces a user one, a file a built-in */
    style_free(old);
    *old = st;
  } else {
    ss->v = xrealloc(ss->v, (ss->n + 1) * sizeof *ss->v);
    ss->v[ss->n++] = st;
  }
  json_decref(meta);
}

static void load_dir(zstyles *ss, const char *dir, bool project) {
  strvec names = STRVEC_INIT;
  if (zfs_list_dir(dir, &names) < 0) return; /* no such folder: no styles there */
  strvec_sort(&names);
  for (size_t i = 0; i < names.nr; i++) {
    size_t len = strlen(names.v[i]);
    if (len <= 3 || strcmp(names.v[i] + len - 3, ".md")) continue;
    char *path = zpath_join(dir, names.v[i]);
    add_file(ss, path, names.v[i], project);
    free(path);
  }
  strvec_clear(&names);
}

void zstyles_load(zstyles *ss, const char *workspace) {
  memset(ss, 0, sizeof *ss);
  strvec_init(&ss->problems);
  size_t nb = sizeof BUILTINS / sizeof BUILTINS[0];
  ss->v = xcalloc(nb, sizeof *ss->v);
  for (size_t i = 0; i < nb; i++)
    ss->v[ss->n++] = (zstyle){.name = xstrdup(BUILTINS[i].name),
                              .description = xstrdup(BUILTINS[i].description),
                              .text = BUILTINS[i].text};
  cleanup_free char *cfg = zpath_config_dir();
  cleanup_free char *user = zpath_join(cfg, "output-styles");
  load_dir(ss, user, false);
  if (workspace) {
    cleanup_free char *proj = zpath_join(workspace, ".zero/output-styles");
    load_dir(ss, proj, true);
  }
}

char *zstyle_text(const zstyle *st, zerr *err) {
  if (!st->path) return xstrdup(st->text ? st->text : "");
  char *body = zfrontmatter_body(st->path, STYLE_FILE_MAX, err);
  if (!body) return NULL;
  zbuf t = ZBUF_INIT;
  zbuf_addstr(&t, body + strspn(body, "\n"));
  free(body);
  zbuf_rtrim(&t);
  char *s = zbuf_detach(&t, NULL);
  return s ? s : xstrdup("");
}

char *zstyle_prompt_section(const char *name, const char *text) {
  if (!text || !*text) return xstrdup("");
  zbuf b = ZBUF_INIT;
  zbuf_addf(&b,
            "\n\n# Output style: %s\n\nThe user chose this style for your answers; follow "
            "it as well as the instructions above.\n\n%s\n",
            name, text);
  return zbuf_detach(&b, NULL);
}

void zstyles_release(zstyles *ss) {
  for (size_t i = 0; i < ss->n; i++) style_free(&ss->v[i]);
  free(ss->v);
  strvec_clear(&ss->problems);
  memset(ss, 0, sizeof *ss);
}
