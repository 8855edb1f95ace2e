/* run_setup.h — the assembly every agent run shares, whatever its face
 * (`zero exec` headless, `zero` interactive): workspace → config → provider →
 * session → system prompt. Each step fills a zrun_setup and, on failure,
 * leaves err set with a kind the CLI maps to an exit code:
 *   ZE_USAGE    bad --cwd / --add-dir, malformed config, unknown --resume id
 *   ZE_CONFIG   config resolves but is unusable (no provider, no key)
 *   ZE_PROVIDER libcurl missing, provider kind unknown
 *   ZE_INTERNAL no cwd, session directory not creatable
 * Release everything with zrun_setup_release, whatever step failed.
 */
#ifndef ZERO_CLI_RUN_SETUP_H
#define ZERO_CLI_RUN_SETUP_H

#include <stdbool.h>
#include <stddef.h>

#include "agent/permissions.h"
#include "base/err.h"
#include "config/config.h"
#include "provider/message.h"
#include "provider/provider.h"
#include "session/store.h"

typedef struct zrun_setup {
  char *workspace;          /* real path of the workspace (the cwd after -C) */
  char **add_dirs;          /* real paths, n_add_dirs of them, NULL-terminated */
  size_t n_add_dirs;
  char *session_root;       /* zsession_root() */
  zconfig cfg;
  zresolved_provider rp;
  zprovider *provider;
  zsession *session;
  char *resumed_id;         /* id of the resumed session, or NULL */
} zrun_setup;

#define ZRUN_SETUP_INIT { 0 }

/* Enters cwd (when non-NULL) and records the real workspace path and the
 * real paths of the extra writable directories. */
int zrun_setup_workspace(zrun_setup *s, const char *cwd, const char *const *add_dirs, size_t n,
                         zerr *err);
/* Loads the config layers for the workspace and creates the provider. */
int zrun_setup_provider(zrun_setup *s, const zconfig_flags *flags, zerr *err);
/* Replaces the provider by one for another model of the same profile (the
 * TUI's /model). On failure the old provider stays. */
int zrun_setup_switch_model(zrun_setup *s, const char *model, zerr *err);
/* Replaces config-derived provider state by the profile `name` (the TUI's
 * /provider). On failure nothing changes. */
int zrun_setup_switch_provider(zrun_setup *s, const char *name, zerr *err);
/* Resumes (resume: resume_id, or NULL for the latest session of this
 * workspace) into conv, or creates a new session titled `title`. */
int zrun_setup_session(zrun_setup *s, bool resume, const char *resume_id, const char *title,
                       zconv *conv, void (*warn)(void *ud, const char *msg), void *warn_ud,
                       zerr *err);
/* The system prompt for this workspace, provider and mode. Caller frees. */
char *zrun_setup_system_prompt(const zrun_setup *s, zperm_mode mode);
/* A one-line session title from the first 80 bytes of a prompt (newlines
 * and tabs become spaces). out must hold 81 bytes. */
void zrun_title_from_prompt(const char *prompt, size_t len, char out[81]);
void zrun_setup_release(zrun_setup *s);

#endif
