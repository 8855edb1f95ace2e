/* test_walk.c — the parallel walker (tools/walk.c) under concurrent use.
 *
 * grep, glob and list_directory run on parallel threads when a model asks for
 * several read-only calls at once, and each call starts its own zwalk. Every
 * walk reads the global excludes file named in ~/.gitconfig; it once split
 * that file with strtok, whose hidden position is shared by every thread, so
 * concurrent walks read each other's buffers (a data race, and walks that
 * missed core.excludesFile and listed ignored files). This test runs many
 * walks at once and asserts each one honoured the global excludes; the TSan
 * build (make test-tsan) runs it too.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <ftw.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/buf.h"
#include "base/common.h"
#include "base/fs.h"
#include "base/path.h"
#include "tools/walk.h"

enum { WALKERS = 6, WALKS_EACH = 25, GITCONFIG_FILLER = 4000 };

static char g_root[64];
static char *g_ws;

static void write_text(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fputs(text, f);
  fclose(f);
}

static int rm_cb(const char *p, const struct stat *sb, int flag, struct FTW *ftw) {
  (void)sb;
  (void)flag;
  (void)ftw;
  return remove(p);
}

/* HOME with a long ~/.gitconfig (many lines, so a split takes long enough
 * for walks to overlap) whose [core] excludesFile ignores *.secret. */
static int setup(void **state) {
  (void)state;
  snprintf(g_root, sizeof g_root, "/tmp/zero-walk-XXXXXX");
  if (!mkdtemp(g_root)) return -1;
  char *home = zpath_join(g_root, "home");
  g_ws = zpath_join(g_root, "ws");
  mkdir(home, 0755);
  mkdir(g_ws, 0755);
  zbuf cfg = ZBUF_INIT;
  for (int i = 0; i < GITCONFIG_FILLER; i++) zbuf_addf(&cfg, "[alias]\n\tx%d = log -%d\n", i, i);
  zbuf_addf(&cfg, "[core]\n\texcludesFile = ~/global-ignore\n");
  char *cfg_path = zpath_join(home, ".gitconfig");
  write_text(cfg_path, cfg.data);
  char *ign = zpath_join(home, "global-ignore");
  write_text(ign, "*.secret\n");
  char *kept = zpath_join(g_ws, "kept.txt");
  char *hidden = zpath_join(g_ws, "ignored.secret");
  write_text(kept, "k\n");
  write_text(hidden, "s\n");
  setenv("HOME", home, 1);
  unsetenv("XDG_CONFIG_HOME");
  zbuf_release(&cfg);
  free(cfg_path);
  free(ign);
  free(kept);
  free(hidden);
  free(home);
  return 0;
}

static int teardown(void **state) {
  (void)state;
  nftw(g_root, rm_cb, 16, FTW_DEPTH | FTW_PHYS);
  free(g_ws);
  return 0;
}

typedef struct seen {
  atomic_int kept;
  atomic_int secret;
} seen;

static int count_entry(void *ud, const zwalk_entry *e) {
  seen *s = ud;
  if (strcmp(e->name, "kept.txt") == 0) atomic_fetch_add(&s->kept, 1);
  if (strcmp(e->name, "ignored.secret") == 0) atomic_fetch_add(&s->secret, 1);
  return 0;
}

typedef struct walker_result {
  int walks_ok;      /* walks that listed kept.txt and not ignored.secret */
} walker_result;

static void *walk_many(void *arg) {
  walker_result *r = arg;
  zwalk_opts o = {.threads = 1};
  for (int i = 0; i < WALKS_EACH; i++) {
    seen s;
    atomic_init(&s.kept, 0);
    atomic_init(&s.secret, 0);
    zerr err = ZERR_INIT;
    if (zwalk(g_ws, &o, count_entry, &s, &err) == 0 && atomic_load(&s.kept) == 1 &&
        atomic_load(&s.secret) == 0)
      r->walks_ok++;
    zerr_clear(&err);
  }
  return NULL;
}

static void concurrent_walks_each_honour_global_excludes(void **state) {
  (void)state;
  pthread_t th[WALKERS];
  walker_result res[WALKERS] = {{0}};
  for (int i = 0; i < WALKERS; i++) assert_int_equal(pthread_create(&th[i], NULL, walk_many, &res[i]), 0);
  for (int i = 0; i < WALKERS; i++) pthread_join(th[i], NULL);
  for (int i = 0; i < WALKERS; i++) assert_int_equal(res[i].walks_ok, WALKS_EACH);
}

static void one_walk_honours_global_excludes(void **state) {
  (void)state;
  walker_result r = {0};
  walk_many(&r);
  assert_int_equal(r.walks_ok, WALKS_EACH);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(one_walk_honours_global_excludes),
      cmocka_unit_test(concurrent_walks_each_honour_global_excludes),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
