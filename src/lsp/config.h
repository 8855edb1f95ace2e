/* config.h — which language servers zero may start, from the "lsp" section
 * of the config files (the user file, then the project file) over built-in
 * defaults:
 *
 *   "lsp": {
 *     "enabled": true,              false: no language server is started
 *     "diagnosticsTimeoutMs": 2000, how long an edit waits for diagnostics
 *     "startupTimeoutMs": 10000,    how long a server may take to initialize
 *     "servers": {
 *       "<name>": { "command": "clangd", "args": ["--log=error"],
 *                   "filePatterns": ["*.c", "*.h"],   (fnmatch, on the base name)
 *                   "rootMarkers": ["compile_commands.json", ".git"],
 *                   "languageId": "c",               (default: from the extension)
 *                   "disabled": false }
 *     }
 *   }
 *
 * Defaults (used when their command is on PATH): clangd, pyright
 * (pyright-langserver --stdio), typescript (typescript-language-server
 * --stdio), gopls, rust-analyzer. A configured server with a default's name
 * changes only the fields it gives; "disabled": true turns it off. The
 * project file's servers run commands a repository chose, so they are used
 * only in a workspace the user trusts (`zero mcp trust`, the list MCP
 * servers use); otherwise they are skipped and listed in skipped_untrusted.
 */
#ifndef ZERO_LSP_CONFIG_H
#define ZERO_LSP_CONFIG_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "base/err.h"

#define ZLSP_DIAG_TIMEOUT_MS 2000
#define ZLSP_STARTUP_TIMEOUT_MS 10000

typedef struct zlsp_server_cfg {
  char *name;
  char **argv;          /* command + args, NULL-terminated */
  char **patterns;      /* NULL-terminated */
  char **root_markers;  /* NULL-terminated, may be empty */
  char *language_id;    /* NULL = from the extension */
  bool disabled;
  bool builtin;         /* a default (used only when its command is found) */
  char *origin;         /* the file that last changed it, or "built-in" */
} zlsp_server_cfg;

typedef struct zlsp_config {
  bool enabled;
  int diag_timeout_ms;
  int startup_timeout_ms;
  zlsp_server_cfg *servers;
  size_t n;
  char **skipped_untrusted; /* names of project servers not used, NULL-terminated */
} zlsp_config;

/* Loads the defaults, then the "lsp" sections of user_path and project_path
 * (either may be NULL or missing); project servers only when
 * project_trusted. Returns 0, or -1 with err naming the file and key
 * (cfg is then released). */
int zlsp_config_load(zlsp_config *cfg, const char *user_path, const char *project_path,
                     bool project_trusted, zerr *err);
/* Applies one "lsp" object (from `origin`) over cfg. */
int zlsp_config_apply(zlsp_config *cfg, const json_t *lsp, const char *origin, bool servers_ok,
                      zerr *err);
/* The built-in defaults only. */
void zlsp_config_defaults(zlsp_config *cfg);
void zlsp_config_release(zlsp_config *cfg);

/* true when one of s's patterns matches the base name of path (fnmatch). */
bool zlsp_server_matches(const zlsp_server_cfg *s, const char *path);

/* The LSP languageId for path under s ("c", "cpp", "python", …; "plaintext"
 * when unknown). Borrowed. */
const char *zlsp_language_id(const zlsp_server_cfg *s, const char *path);

#endif
