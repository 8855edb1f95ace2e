/* test_tools_util.h — the fixture shared by the test_tools_*.c files.
 *
 * Every test gets a fresh temporary root holding `ws/` (the workspace) and
 * `out/` (a directory outside it), a ztool_ctx over ws, and an empty plan.
 * Include after cmocka.h.
 */
#ifndef ZERO_TEST_TOOLS_UTIL_H
#define ZERO_TEST_TOOLS_UTIL_H

#include <ftw.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/common.h"
#include "base/fs.h"
#include "tools/tool.h"

typedef struct tfx {
  char root[64];
  char *ws;
  char *out;
  ztool_ctx ctx;
  json_t *plan;
  ztool_result res;
} tfx;

static int tfx_rm_cb(const char *p, const struct stat *sb, int flag, struct FTW *ftw) {
  (void)sb;
  (void)flag;
  (void)ftw;
  chmod(p, 0700);
  return remove(p);
}

static int tfx_setup(void **state) {
  tfx *f = xcalloc(1, sizeof *f);
  snprintf(f->root, sizeof f->root, "/tmp/zero-tools-XXXXXX");
  if (!mkdtemp(f->root)) return -1;
  char *real = realpath(f->root, NULL);
  f->ws = xmalloc(strlen(real) + 4);
  f->out = xmalloc(strlen(real) + 5);
  snprintf(f->ws, strlen(real) + 4, "%s/ws", real);
  snprintf(f->out, strlen(real) + 5, "%s/out", real);
  free(real);
  mkdir(f->ws, 0755);
  mkdir(f->out, 0755);
  f->plan = json_array();
  f->ctx.workspace = f->ws;
  f->ctx.plan = f->plan;
  ztool_result init = ZTOOL_RESULT_INIT;
  f->res = init;
  *state = f;
  return 0;
}

static int tfx_teardown(void **state) {
  tfx *f = *state;
  ztool_result_release(&f->res);
  nftw(f->root, tfx_rm_cb, 16, FTW_DEPTH | FTW_PHYS);
  json_decref(f->plan);
  free(f->ws);
  free(f->out);
  free(f);
  return 0;
}

/* Runs a tool with printf-formatted argument JSON; the result is f->res
 * (released first). Returns the tool's status. */
__attribute__((format(printf, 3, 4), unused))
static int tfx_run(tfx *f, const char *tool, const char *fmt, ...) {
  ztool_result_release(&f->res);
  zbuf args = ZBUF_INIT;
  va_list ap;
  va_start(ap, fmt);
  zbuf_vaddf(&args, fmt, ap);
  va_end(ap);
  int rc = ztool_invoke(&f->ctx, tool, args.data, &f->res);
  zbuf_release(&args);
  return rc;
}

/* Writes content to ws/<rel> (parents created). */
__attribute__((unused))
static void tfx_write(tfx *f, const char *rel, const void *data, size_t len) {
  char *p = rel[0] == '/' ? xstrdup(rel) : NULL;
  if (!p) {
    size_t n = strlen(f->ws) + strlen(rel) + 2;
    p = xmalloc(n);
    snprintf(p, n, "%s/%s", f->ws, rel);
  }
  char *dir = xstrdup(p);
  *strrchr(dir, '/') = '\0';
  zfs_mkdir_p(dir, 0755, NULL);
  FILE *fp = fopen(p, "wb");
  assert_non_null(fp);
  assert_int_equal(fwrite(data, 1, len, fp), len);
  fclose(fp);
  free(dir);
  free(p);
}

__attribute__((unused))
static void tfx_write_str(tfx *f, const char *rel, const char *s) { tfx_write(f, rel, s, strlen(s)); }

/* Contents of ws/<rel> (or an absolute path); caller frees; NULL if absent. */
__attribute__((unused))
static char *tfx_read(tfx *f, const char *rel) {
  char *p = rel[0] == '/' ? xstrdup(rel) : NULL;
  if (!p) {
    size_t n = strlen(f->ws) + strlen(rel) + 2;
    p = xmalloc(n);
    snprintf(p, n, "%s/%s", f->ws, rel);
  }
  zbuf b = ZBUF_INIT;
  int rc = zfs_read_file(p, &b, 0, NULL);
  free(p);
  if (rc < 0) {
    zbuf_release(&b);
    return NULL;
  }
  return zbuf_detach(&b, NULL);
}

/* Path under ws; caller frees. */
__attribute__((unused))
static char *tfx_path(tfx *f, const char *rel) {
  size_t n = strlen(f->ws) + strlen(rel) + 2;
  char *p = xmalloc(n);
  snprintf(p, n, "%s/%s", f->ws, rel);
  return p;
}

#define assert_output_contains(f, needle)                                             \
  do {                                                                                \
    if (!strstr((f)->res.output.data, (needle)))                                      \
      fail_msg("output does not contain \"%s\":\n%s", (needle), (f)->res.output.data); \
  } while (0)

#define assert_output_lacks(f, needle)                                                \
  do {                                                                                \
    if (strstr((f)->res.output.data, (needle)))                                       \
      fail_msg("output unexpectedly contains \"%s\":\n%s", (needle), (f)->res.output.data); \
  } while (0)

#define TFX_TEST(fn) cmocka_unit_test_setup_teardown(fn, tfx_setup, tfx_teardown)

#endif
