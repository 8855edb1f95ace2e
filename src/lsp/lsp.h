/* lsp.h — language servers for one run: what an edit broke, in the words
 * of the project's own language server.
 *
 * A zlsp belongs to a run (cli/run_setup.c) and is used from the run's agent
 * thread only. Nothing starts until an edit tool changes a file a server
 * covers (lsp/config.h: patterns; defaults only when their command is on
 * PATH), so a run that touches no such file — or has no server — pays for
 * a config read and nothing else. Servers are started lazily, one per
 * (server, root) where the root is the nearest directory up to the
 * workspace holding one of the server's root markers; they run through the
 * run's spawner (sandboxed like any child) and stop with the run.
 *
 * After an edit (zlsp_after_edit): the file is synced (didOpen, or
 * didChange with the whole text), the server's publishDiagnostics for that
 * version is awaited (bounded: lsp.diagnosticsTimeoutMs, 2 s by default),
 * and the errors that were not there before the edit are reported (the
 * first time a file is edited its pre-edit text, kept by the write hook, is
 * checked first so existing problems are not blamed on the edit). Warnings
 * are never reported after an edit. A server that is missing, crashes, hangs
 * or answers garbage never fails the edit: the result says diagnostics were
 * unavailable and why; a dead server is restarted on next use (at most
 * ZLSP_MAX_RESTARTS times a run), one that times out three times in a row is
 * restarted too.
 *
 * Before a final answer after edits (zlsp_final_check), the touched files
 * are checked once more against their state before the run's first edit;
 * errors the run introduced and left become one continuation message (at
 * most once a run).
 */
#ifndef ZERO_LSP_LSP_H
#define ZERO_LSP_LSP_H

#include <jansson.h>
#include <stdbool.h>

#include "base/buf.h"
#include "base/err.h"
#include "lsp/config.h"
#include "tools/tool.h"

#define ZLSP_MAX_RESTARTS 3
#define ZLSP_MAX_TIMEOUTS 3   /* consecutive diagnostics timeouts before a restart */
#define ZLSP_MAX_LISTED 20    /* diagnostics listed per report */
#define ZLSP_MAX_FILE (8u << 20) /* larger files are not sent to a server */

typedef struct zlsp zlsp;
struct zspawner;

/* A manager for workspace (absolute) with cfg (taken over, released by
 * zlsp_free). */
zlsp *zlsp_new(zlsp_config *cfg, const char *workspace);
/* Loads the configuration for a run (lsp/config.h) and makes the manager;
 * NULL when LSP is off ("enabled": false) or the "lsp" section is invalid —
 * then *warning (caller frees) says so. */
zlsp *zlsp_for_run(const char *workspace, const char *user_path, const char *project_path,
                   char **warning);
/* Stops every server (bounded: about a second each at worst) and frees l.
 * NULL is fine. */
void zlsp_free(zlsp *l);

/* The spawner servers started from now on run through (NULL = unconfined:
 * unsafe mode). Running servers keep theirs. */
void zlsp_set_spawner(zlsp *l, struct zspawner *spawner);

/* A write hook that remembers the text a covered file had before the run's
 * first edit of it, then calls inner (the checkpointer). The returned hook
 * borrows l. */
ztool_write_hook zlsp_write_hook(zlsp *l, ztool_write_hook inner);

/* After a call changed files (absolute paths): appends to out, for each
 * covered file, the errors the change introduced, that the errors reported
 * earlier are gone, or that diagnostics were unavailable. Appends nothing
 * for files no server covers or when nothing new is wrong. */
void zlsp_after_edit(zlsp *l, const json_t *files, zbuf *out);

/* Before a final answer: the errors still present in the files this run
 * edited that were not there before its first edit of them, as a message to
 * continue the run with (caller frees), or NULL (none, nothing edited, or
 * already asked once this run). */
char *zlsp_final_check(zlsp *l);

/* The current diagnostics of one file (all severities), formatted for the
 * model into out. Returns 0, or -1 with err when no server covers the file
 * or none could answer. */
int zlsp_file_diagnostics(zlsp *l, const char *abs_path, zbuf *out, zerr *err);

/* A code-navigation query to the server covering abs_path: op is
 * "definition", "references" or "hover" at line:column (1-based; the column
 * counts characters as the server does, UTF-16 units), or "symbols" (the
 * file's outline). Locations come as "path:line:col: <that line>" (at most
 * 50), hover as the server's text. Returns 0, or -1 with err (ZE_USAGE for a
 * bad op or position, ZE_NOT_FOUND when no server covers the file). */
int zlsp_query(zlsp *l, const char *op, const char *abs_path, int line, int column, zbuf *out,
               zerr *err);

/* One line per configured server: name, state (running / not started /
 * missing / disabled / failed …), command and patterns. check starts each
 * available server for the workspace and reports how long initialize took. */
void zlsp_status(zlsp *l, bool check, zbuf *out);

/* true when some enabled server's command is available (on PATH, or
 * configured by the user): the diagnostics tool is offered only then. */
bool zlsp_any_available(zlsp *l);

/* true when the language tools are worth offering: a server is available
 * and either one has started in this run (an edit touched a covered file) or
 * the workspace (its top level and first-level folders, a few hundred entries
 * at most, looked at once a run) holds a file a server covers or one of its
 * root markers. A workspace with nothing to check costs no tool schemas in
 * every request. */
bool zlsp_tools_relevant(zlsp *l);

#endif
