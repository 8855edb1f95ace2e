/* policy.h — the sandbox policy: one structure, rendered by every backend.
 *
 * What a confined command may do:
 *   - read: the whole filesystem, except deny_read paths and the hidden
 *     credential locations (~/.ssh, ~/.aws, …; see zsb_credential_paths);
 *   - write: only below the write roots — the workspace, --add-dir roots,
 *     sandbox.additionalWriteRoots from the *user* config, a private /tmp and
 *     the per-workspace runtime dir (HOME and package caches) — and never the
 *     protected names inside them: `.zero`, `.agents`, `.vscode`, `.idea`
 *     and `.git` (a missing one cannot be created), `.git/config`,
 *     `.git/hooks`, `.git/commondir`
 *     and the same files of submodules and linked worktrees (read-only),
 *     `.git` itself (cannot be renamed or replaced), and
 *     zero's own config dir (zsb_zero_config_dirs);
 *   - network: none (default; loopback inside the sandbox still works), all,
 *     or "scoped": only the hosts of sandbox.allowedDomains (minus
 *     deniedDomains), through zero's egress proxy (src/net/egress/);
 *   - Unix sockets: optionally none (blockUnixSockets).
 * Lists (deny wins over allow): denyRead, denyWrite, allowRead, allowWrite.
 * Paths are absolute, `~` expanded, symlinks of the existing part resolved.
 *
 * Layering: the user config (~/.config/zero/config.json) may loosen (network
 * "allow", additionalWriteRoots, allowWrite); the project config
 * (<workspace>/.zero/config.json) can only tighten: its denyRead/denyWrite
 * and blockUnixSockets:true and network "deny" apply, network "scoped"
 * narrows "allow", its allowedDomains narrow the user's list (a host must be
 * on both) and its deniedDomains add to the user's; anything that would
 * loosen is ignored with a note in zsb_policy.notes.
 */
#ifndef ZERO_SANDBOX_POLICY_H
#define ZERO_SANDBOX_POLICY_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "base/err.h"

typedef struct zsb_strv {
  char **v;
  size_t n;
} zsb_strv;

void zsb_strv_add(zsb_strv *s, const char *p);     /* copies; skips duplicates */
bool zsb_strv_has(const zsb_strv *s, const char *p);
void zsb_strv_release(zsb_strv *s);

/* A file under a denied path that has other names (hard links). Its other
 * names may lie in a readable tree, where no path rule sees them: zero's
 * file tools refuse it by inode, `zero sandbox check` and `zero doctor`
 * report it (a sandboxed command can read it through another name). */
typedef struct zsb_linked_file {
  char *path;                 /* the denied name */
  unsigned long long dev, ino;
  unsigned long nlink;
} zsb_linked_file;

typedef struct zsb_policy {
  char *workspace;        /* absolute, real path */
  zsb_strv write_roots;   /* absolute, real; workspace first, then add-dirs, config roots */
  zsb_strv deny_read;
  zsb_strv deny_write;
  zsb_strv allow_read;    /* re-allows reads strictly below a denied or hidden path
                           * (deny wins on equal paths) */
  zsb_strv allow_write;   /* extra writable paths (user config only) */
  bool network;           /* true = network allowed */
  /* network "scoped" (only when network is false): commands reach only the
   * hosts the egress rules allow, through zero's proxy (net/egress/proxy.h). */
  bool scoped;
  zsb_strv allowed_domains; /* user config and --allow-domain (net/egress/rules.h patterns) */
  zsb_strv denied_domains;  /* user and project config */
  zsb_strv project_domains; /* the project's allowedDomains: a host must be on it too */
  bool project_narrows;     /* the project gave allowedDomains (even an empty list) */
  /* sandbox.inspectTLS (network "scoped" only): the egress proxy terminates
   * TLS with a CA of the run and checks every request's Host (the user or
   * the project config may turn it on; a project cannot turn it off). */
  bool inspect_tls;
  char *ca_bundle; /* network.caBundle of the user config (NULL: the system's);
                    * what the proxy verifies upstream servers against */
  bool block_unix_sockets;
  /* sandbox.enforceToolNetwork (default true; only the user config may set
   * it false): tools that reach the network from zero's own process
   * (web_fetch) are held to network deny by the permission engine, since the
   * OS sandbox cannot confine them. Not serialized: the engine's alone. */
  bool enforce_tool_network;
  bool enabled;           /* sandbox.enabled (default true) */
  char *runtime_dir;      /* ~/.cache/zero/runtime/v1/<hash>, 0700, outside the workspace */
  char *home;             /* the real home of the user running zero */
  zsb_strv notes;         /* what layering ignored, for `zero sandbox policy` */
  zsb_strv command_reads; /* per command, not serialized: zspawn_cmd.read_paths */
  zsb_strv read_denied;   /* per run, not serialized: zsb_policy_prepare_read_guard */
  zsb_linked_file *linked; /* per run, not serialized: zsb_policy_prepare_read_guard */
  size_t n_linked;
} zsb_policy;

/* Options from the command line. */
typedef struct zsb_policy_opts {
  const char *workspace;          /* NULL = current directory */
  const char *const *add_dirs;
  size_t n_add_dirs;
  bool network;                   /* --network */
  const char *const *allow_domains; /* --allow-domain: added to allowedDomains; turns a */
  size_t n_allow_domains;           /* "deny" into "scoped" (a project's deny still wins) */
  const char *user_config;        /* NULL = default user config path */
  bool skip_config;               /* do not read config files (tests) */
} zsb_policy_opts;

/* Builds the policy for a workspace: real paths, config layers, runtime dir
 * path (not created). -1 with err when a root does not exist or a config file
 * is malformed. */
int zsb_policy_build(zsb_policy *p, const zsb_policy_opts *o, zerr *err);
void zsb_policy_release(zsb_policy *p);

/* "allow", "scoped" or "deny": the network as commands get it. */
const char *zsb_network_name(const zsb_policy *p);

/* JSON form (also the wire format between zero and its sandbox stages). */
json_t *zsb_policy_to_json(const zsb_policy *p);
int zsb_policy_from_json(zsb_policy *p, const json_t *j, zerr *err);

/* Expands a leading ~ and makes the path absolute against base; resolves the
 * symlinks of the longest existing prefix. Caller frees. */
char *zsb_resolve_path(const char *path, const char *base);

/* true when abs (already resolved) may be written under the policy: inside a
 * write root or allow_write path, not inside deny_write, not a protected name. */
bool zsb_policy_may_write(const zsb_policy *p, const char *abs);

/* Fills p->read_denied for zero's own file tools (read_file, grep, …),
 * which run outside the sandbox: the denyRead paths and, with
 * hide_credentials, the credential locations and zero's config dirs, each
 * as written and resolved — what a sandboxed command cannot read either.
 * Also fills p->linked with the denied files that have more than one link
 * (zsb_policy_find_linked). */
void zsb_policy_prepare_read_guard(zsb_policy *p, bool hide_credentials);

/* Fills p->linked from p->read_denied: every regular file at or below a
 * denied path (not following symlinks, at most ZSB_LINKED_SCAN entries per
 * path) whose link count is above one. Returns p->n_linked. */
#define ZSB_LINKED_SCAN 4096
size_t zsb_policy_find_linked(zsb_policy *p);

/* One line for `zero sandbox check` and `zero doctor` about a denied file
 * with other names: what it means and how to find and remove them. */
void zsb_linked_describe(const zsb_linked_file *l, char *out, size_t cap);

/* true when abs may not be read under p->read_denied: it lies under a denied
 * path and no allowRead path strictly below that denied path covers it
 * (deny wins on equal paths), or it is (through symlinks) the same inode as
 * a file of p->linked — another name of a denied file. */
bool zsb_policy_read_denied(const zsb_policy *p, const char *abs);
/* true when a walk of dir must ask zsb_policy_read_denied for each entry:
 * some path of p->read_denied lies strictly below dir, or a denied file has
 * other names (p->linked), which may lie anywhere. */
bool zsb_policy_read_denied_below(const zsb_policy *p, const char *dir);

/* Protected paths below one write root that exist or must be blocked.
 * kind: 'r' read-only bind of an existing path, 'p' placeholder for a missing
 * name (blocks its creation), 'g' the .git directory itself (own mount), 'd'
 * a directory placeholder for a missing .git (placeholder.h: blocks `git
 * init`, while git inside and outside still finds a parent repository) or
 * a missing .zero (zero can claim it as its folder while sandboxes live).
 * A missing .git/commondir is blocked with a file holding "." bound over the
 * placeholder, so git inside the sandbox still works. */
typedef struct zsb_protected {
  char *path;
  char kind;
} zsb_protected;
#define ZSB_PROTECTED_MAX 12 /* what zsb_protected_paths returns at most */
size_t zsb_protected_paths(const char *root, zsb_protected *out, size_t max);

/* Credential locations hidden from commands (absolute, under home), whether
 * or not they exist. NULL-terminated static list of home-relative names. */
extern const char *const zsb_credential_names[];

/* zero's own config dir(s) — $XDG_CONFIG_HOME/zero and ~/.config/zero when
 * they differ — resolved; out gets 1 or 2 strings (caller frees each). They
 * hold keys, MCP OAuth tokens, grants and the user config that decides the
 * sandbox: hidden from commands and never writable by them or by file tools. */
size_t zsb_zero_config_dirs(const zsb_policy *p, char *out[2]);

/* Creates the runtime dir (0700) with home/ tmp/ cache/ subdirs, and removes
 * sibling runtime dirs unused for 30 days (that scan at most once a day,
 * recorded by the stamp file .gc-stamp in the runtime base dir). */
int zsb_runtime_prepare(const zsb_policy *p, zerr *err);

#endif
