/* complete_values.c — `zero __complete WHAT`: the values shell completion
 * cannot know when the script is generated (cli/completion.c calls it):
 *   sessions          saved session ids, most recent first (--resume, --fork)
 *   models            the registry's models and the config's "models" (-m)
 *   providers         configured provider profiles, then presets (--provider)
 *   presets           provider presets (providers add --preset)
 *   permission-modes  the modes --permission-mode takes
 * one per line. Quiet on every failure (a broken config still lists the
 * registry): a completion must never print an error into the command line. */
#include <jansson.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/common.h"
#include "base/json.h"
#include "cli/cli.h"
#include "config/config.h"
#include "config/models.h"
#include "config/presets.h"
#include "perm/engine.h"
#include "session/store.h"

enum { MAX_SESSIONS = 200 };

static void print_sessions(void) {
  cleanup_free char *root = zsession_root();
  zerr err = ZERR_INIT;
  json_t *list = zsession_list(root, NULL, &err);
  size_t i;
  json_t *s;
  json_array_foreach(list, i, s) {
    if (i >= MAX_SESSIONS) break;
    const char *id = zjson_str(s, "sessionId");
    if (id) puts(id);
  }
  json_decref(list);
}

/* The config of the current directory, or false (nothing loaded). */
static bool load_config(zconfig *cfg) {
  cleanup_free char *cwd = getcwd(NULL, 0);
  zerr err = ZERR_INIT;
  return zconfig_load(cfg, cwd ? cwd : ".", NULL, &err) == 0;
}

static void print_model(void *ud, const zmodel_info *m) {
  (void)ud;
  puts(m->id);
}

static void print_models(void) {
  zconfig cfg;
  bool loaded = load_config(&cfg);
  zmodel_each(loaded ? &cfg : NULL, NULL, print_model, NULL);
  for (size_t i = 0; loaded && i < cfg.n_providers; i++)
    if (cfg.providers[i].model) puts(cfg.providers[i].model);
  if (loaded) zconfig_release(&cfg);
}

static void print_presets(void) {
  size_t n;
  const zpreset *p = zpreset_all(&n);
  for (size_t i = 0; i < n; i++) puts(p[i].name);
}

static void print_providers(void) {
  zconfig cfg;
  if (load_config(&cfg)) {
    for (size_t i = 0; i < cfg.n_providers; i++) puts(cfg.providers[i].name);
    zconfig_release(&cfg);
  }
  print_presets();
}

static void print_modes(void) {
  for (int m = ZPERM_ASK; m <= ZPERM_ACCEPT_EDITS; m++) puts(zperm_mode_name((zperm_mode)m));
  puts("spec-draft"); /* zero exec's, Go zero's name for --use-spec */
}

int cmd_complete(int argc, char **argv) {
  static const struct {
    const char *what;
    void (*print)(void);
  } LISTS[] = {{"sessions", print_sessions},
               {"models", print_models},
               {"providers", print_providers},
               {"presets", print_presets},
               {"permission-modes", print_modes}};
  if (argc != 1) return ZEXIT_USAGE;
  for (size_t i = 0; i < ZARRAY_LEN(LISTS); i++) {
    if (strcmp(argv[0], LISTS[i].what) != 0) continue;
    LISTS[i].print();
    return fflush(stdout) == 0 ? ZEXIT_SUCCESS : ZEXIT_INTERNAL;
  }
  return ZEXIT_USAGE;
}
