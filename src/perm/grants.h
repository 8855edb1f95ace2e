/* grants.h — the one grant store: what the user allowed or denied, per tool,
 * per path, per command prefix, per MCP server or tool; once / session /
 * always.
 *
 * Two files, kept in Go zero's layouts, behind this one API:
 *   ~/.config/zero/sandbox-grants.json (0600) — built-in tools:
 *     {"version":1,"grants":[{"tool":"exec_command","kind":"prefix",
 *       "value":"git status","action":"allow","createdAt":"…"}]}
 *     kind: "tool" (any call of the tool), "path" (file tools: value is a
 *     directory or file; matches it and below), "prefix" (exec_command: every
 *     command of the line starts with these words).
 *   ~/.config/zero/mcp-permissions.json (0600) — MCP tools:
 *     {"servers": {"<server>": {"all": true, "tools": ["<tool>", …]}}}
 * Only "always" grants are saved; "session" grants live in memory for the
 * run; "once" grants are consumed by their first match. Deny grants win over
 * allow grants.
 *
 * Every change to a file is one locked read-modify-write
 * (zjson_update_file: the lock, a re-read inside it, an atomic save), so two
 * zero processes saving at once both keep their grant.
 *
 * Too broad to allow (zgrant_too_broad): a prefix on a command that runs
 * other commands (shells, env, sudo, xargs, find, interpreters, `git`
 * alone, …) and an empty path. The CLI refuses such a grant with the reason,
 * the TUI never suggests one, and a run ignores one found in the file with a
 * warning (zgrants.ignored).
 */
#ifndef ZERO_PERM_GRANTS_H
#define ZERO_PERM_GRANTS_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "base/err.h"

/* ZGRANT_CAPABILITY: a capability the user gave the tool's calls, not one
 * call (value "network": a command approved to run with the network lets
 * every later command that needs the network have it, as Go zero reuses a
 * network approval for equivalent commands). Never matched by
 * zgrants_match: see zgrants_match_capability. */
/* ZGRANT_HOST: a host a sandboxed command may (or may not) reach through
 * the egress proxy of network "scoped" when it is on neither list (tool
 * "network", value the normalized host name or address; see
 * perm/net_ask.h). Matched by zgrants_match with the host as path. */
typedef enum zgrant_kind {
  ZGRANT_TOOL,
  ZGRANT_PATH,
  ZGRANT_PREFIX,
  ZGRANT_CAPABILITY,
  ZGRANT_HOST
} zgrant_kind;
typedef enum zgrant_scope { ZGRANT_ONCE, ZGRANT_SESSION, ZGRANT_ALWAYS } zgrant_scope;

typedef struct zgrant {
  char *tool;
  zgrant_kind kind;
  char *value;        /* NULL for kind tool */
  bool allow;
  zgrant_scope scope;
  char *created_at;
  bool used;          /* once-grants: consumed */
  /* Given by approving a request to run outside the sandbox. Only such a
   * grant (once or session: never a saved one) answers that request again;
   * a grant given for running in the sandbox, or with the network, never
   * does. */
  bool unsandboxed;
  size_t file_index;  /* 1-based position in the saved file (what revoke takes); 0 = not saved */
  /* Host grants: the workspace (absolute path) an "always" answer was given
   * in; such a grant matches only runs in that workspace ("always for this
   * workspace"). NULL: every workspace (a grant added by `zero sandbox
   * grants`, or saved before workspaces were recorded). */
  char *workspace;
} zgrant;

typedef struct zgrants {
  zgrant *v;
  size_t n;
  char *path;        /* sandbox-grants.json */
  char *mcp_path;    /* mcp-permissions.json */
  json_t *mcp;       /* MCP grants: the file's content plus this run's session grants */
  /* Warnings about grants in the file that the engine ignores (too broad to
   * allow); the run shows them. NULL-terminated, or NULL when none. */
  char **ignored;
  /* Set when loading migrated Go zero's layout of the file (perm/grants_go.h):
   * the one-time "sandbox grants updated …" notice the run shows. */
  char *notice;
  /* The run's workspace (owned, may be NULL): host grants saved "always"
   * record it, and host grants of another workspace do not match. */
  char *workspace;
} zgrants;

/* Loads path (NULL = default location; a missing file is empty) and the MCP
 * grants (mcp_path NULL = default location; an unreadable or malformed MCP
 * file counts as empty, as before). A file in Go zero's layout
 * (schemaVersion 1-3) is first migrated to ours, with a backup and
 * g->notice. A sandbox-grants file with an unknown version or bad shape
 * fails with ZE_CONFIG naming the file. A saved allow grant that is too
 * broad is left out and explained in g->ignored. */
int zgrants_load(zgrants *g, const char *path, const char *mcp_path, zerr *err);
/* Only the MCP grants (g->path stays NULL: no built-in grants, none saved). */
void zgrants_load_mcp(zgrants *g, const char *mcp_path);
void zgrants_release(zgrants *g);
/* Adds a grant in memory only (this run). */
void zgrants_add(zgrants *g, const char *tool, zgrant_kind kind, const char *value, bool allow,
                 zgrant_scope scope);
char *zgrants_default_path(void);     /* caller frees */
char *zgrants_mcp_default_path(void); /* caller frees */

/* An answer to remember: added for the run, and for ZGRANT_ALWAYS also saved
 * to g->path (locked update). A refused grant (too broad) is not added at
 * all: -1 with ZE_USAGE. A save failure keeps the grant for the run and
 * returns -1 with err (ZE_IO / ZE_CONFIG) for a warning. */
int zgrants_remember(zgrants *g, const char *tool, zgrant_kind kind, const char *value,
                     bool allow, zgrant_scope scope, bool unsandboxed, zerr *err);

/* ---- the saved file (the CLI's verbs; each one locked update) ---------- */

/* Adds one always grant to the file at path. A too-broad allow grant or an
 * empty value for kind path/prefix is refused (ZE_USAGE, the reason in err). */
int zgrants_file_add(const char *path, const char *tool, zgrant_kind kind, const char *value,
                     bool allow, zerr *err);
/* Removes grant number index (1-based, as listed) from the file. ZE_USAGE
 * when there is no such grant. */
int zgrants_file_revoke(const char *path, size_t index, zerr *err);
/* Removes every grant of the file (a file that does not parse is replaced). */
int zgrants_file_clear(const char *path, zerr *err);

/* ---- matching ------------------------------------------------------------ */

/* The first matching grant with the given action, or NULL. path is the
 * resolved target of a file tool (or NULL); commands is the list of the
 * command lines (words joined by spaces) found in a shell call (or NULL).
 * For allow, every command must be covered; for deny, any one suffices.
 * With unsandboxed (the call asks to run outside the sandbox) only this
 * run's grants given for exactly that (zgrant.unsandboxed) match. A matched
 * once-grant is marked used. */
zgrant *zgrants_match(zgrants *g, const char *tool, const char *path,
                      const char *const *commands, size_t ncommands, bool allow,
                      bool unsandboxed);

/* The allow grant of kind capability with this value ("network") for tool,
 * or NULL. A once-grant matched is marked used. */
zgrant *zgrants_match_capability(zgrants *g, const char *tool, const char *capability);

/* true (with why, cap bytes, saying so and what to grant instead) when an
 * allow grant of this kind and value would allow far more than its words
 * say: a prefix whose command runs other commands or deletes (sh, bash,
 * env, sudo, xargs, find, nice, timeout, interpreters, `git` alone, …), or
 * an empty path or prefix. Deny grants are never too broad. */
bool zgrant_too_broad(zgrant_kind kind, const char *value, bool allow, char *why, size_t cap);

/* What a grant covers, in words for a prompt's "allow for this session" /
 * "always allow" choice: "commands starting with `git push`", "edit_file on
 * /src/a.c", "every web_fetch call". Not sanitized for a terminal. Caller
 * frees. */
char *zgrant_describe(zgrant_kind kind, const char *tool, const char *value);

const char *zgrant_kind_name(zgrant_kind k);
const char *zgrant_scope_name(zgrant_scope s);
/* Parses "tool" / "path" / "prefix" / "capability" / "host"; false for
 * anything else. */
bool zgrant_kind_parse(const char *s, zgrant_kind *out);

/* ---- MCP tools (mcp-permissions.json) ---------------------------------- */

/* true when server's tool (NULL: every tool of the server) is granted. */
bool zgrants_mcp_granted(const zgrants *g, const char *server, const char *tool);
/* Remembers an allow answer for an MCP tool: for the run, and for
 * ZGRANT_ALWAYS in g->mcp_path too (locked update; -1 with err when that
 * fails, the grant kept for the run). */
int zgrants_mcp_remember(zgrants *g, const char *server, const char *tool, zgrant_scope scope,
                         zerr *err);
/* `zero mcp grant|revoke`: grants (or with grant false revokes) server's tool
 * (NULL = every tool of the server) in the file at path (NULL = default). */
int zgrants_mcp_file_set(const char *path, const char *server, const char *tool, bool grant,
                         zerr *err);

#endif
