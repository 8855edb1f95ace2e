/* tool.h — the tool interface and registry.
 *
 * A tool validates its JSON arguments, does its work and fills a result. It
 * never prints, never asks for permission (the agent's permission engine
 * decides before invoke) and never exits. Paths are resolved against the
 * workspace; writes are confined to the workspace and --add-dir roots.
 */
#ifndef ZERO_TOOLS_TOOL_H
#define ZERO_TOOLS_TOOL_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "base/err.h"

typedef enum zside_effect {
  ZSIDE_NONE,    /* no effect outside zero (update_plan) */
  ZSIDE_READ,    /* reads files */
  ZSIDE_WRITE,   /* writes files */
  ZSIDE_SHELL,   /* runs processes */
  ZSIDE_NETWORK, /* reaches the network */
} zside_effect;

/* "none", "read", "write", "shell", "network". */
const char *zside_effect_name(zside_effect s);

struct zspawner;
struct zspawn_cmd;
struct ztool_files;

/* What a command run by a ztool_backend ended with. */
typedef struct ztool_command_result {
  zbuf output;    /* what the command printed (stdout and stderr, as the terminal shows it) */
  bool truncated; /* output lost its beginning (the terminal's byte limit) */
  int exit_code;  /* -1 when killed by a signal, timed out or cancelled */
  int signal;     /* the killing signal, 0 = none */
  bool timed_out; /* killed at its timeout */
  bool cancelled; /* killed because the run was cancelled */
} ztool_command_result;

/* Where file text and commands go when an editor owns them (`zero acp` with
 * a client that offers fs/read_text_file, fs/write_text_file and
 * terminal/...): the editor shows its unsaved buffers and runs the commands
 * in terminals it displays. The tools keep every check they make before
 * touching the disk — the read guard, the writable roots, the tracker, the
 * write hook — and call a backend only after them; the permission module has
 * decided before the tool ran. A NULL member means zero's own way (the disk,
 * exec/). Paths are absolute and real (symlinks resolved). */
typedef struct ztool_backend {
  /* Reads abs_path's text as the editor has it. 0 with out filled, or -1
   * with err. */
  int (*read_text)(void *ud, const char *abs_path, zbuf *out, zerr *err);
  /* Writes text as abs_path's whole new content through the editor. 0, or
   * -1 with err. */
  int (*write_text)(void *ud, const char *abs_path, const char *text, size_t len, zerr *err);
  /* Runs cmd — already prepared by zexec_prepare: wrapped by the run's
   * spawner (the sandbox) and scrubbed of credentials — in a terminal the
   * editor owns; waits until it exits, timeout_ms passes (0 = none) or the
   * run is cancelled, killing it in the last two cases. shown: the command
   * as the model wrote it. 0 with out filled, or -1 with err (nothing ran). */
  int (*run_command)(void *ud, const struct zspawn_cmd *cmd, const char *shown, int64_t timeout_ms,
                     ztool_command_result *out, zerr *err);
  void *ud;
} ztool_backend;

/* Called before a tool changes a file, so the previous content can be saved
 * (checkpoints, rewind). abs_path may not exist yet. Returning nonzero
 * refuses the change; the tool then fails with message (when set). */
typedef struct ztool_write_hook {
  int (*before_write)(void *ud, const char *tool, const char *abs_path, char **message);
  void *ud;
} ztool_write_hook;

/* Paths the sandbox policy denies for reading: grep, glob and
 * list_directory never list, open or enter them. denied NULL = none.
 * denied_below (optional) says whether any denied path lies strictly below
 * a directory: a walk of a tree with none skips the per-entry check (a
 * workspace walk would otherwise test every file against every hidden
 * credential); NULL = assume some may. */
typedef struct ztool_read_guard {
  bool (*denied)(void *ud, const char *abs_path);
  bool (*denied_below)(void *ud, const char *abs_dir);
  void *ud;
} ztool_read_guard;

/* network "scoped": the egress lists (sandbox.allowedDomains /
 * deniedDomains, the host grants) decide the hosts web_fetch reaches, as
 * they decide the proxy's. refused returns true, with why (cap bytes)
 * saying what was blocked and how to allow it, for a host (normalized or
 * not; an address without brackets) that must not be dialled. refused NULL
 * = no lists. */
typedef struct ztool_host_guard {
  bool (*refused)(void *ud, const char *host, int port, char *why, size_t cap);
  void *ud;
} ztool_host_guard;

/* What one call's permission decision allows beyond the run's sandbox (an
 * approved escalation). It belongs to that call alone: ztool_invoke_escalated
 * puts it on the call's own copy of the context, and exec_command into the
 * call's own spawn request (zspawn_cmd). The run's shared context never
 * carries one. */
typedef struct ztool_escalation {
  bool network;     /* run this command with the network */
  bool unsandboxed; /* run this command outside the sandbox */
} ztool_escalation;

/* A running command's output as it comes (exec_command, write_stdin): the
 * newest bytes of it (already redacted), and the milliseconds the command
 * has run. Called on the tool's thread, at most every
 * ZTOOL_LIVE_INTERVAL_MS and only when there is new output. Like the
 * escalation it belongs to one call: the agent loop sets it on the call's
 * own copy of the context (it knows which call it reports for). */
typedef struct ztool_live_hook {
  void (*output)(void *ud, const char *tail, size_t len, int64_t elapsed_ms);
  void *ud;
} ztool_live_hook;

#define ZTOOL_LIVE_INTERVAL_MS 250
#define ZTOOL_LIVE_TAIL 2048 /* bytes of a running command's output a live hook gets */

/* The state a run shares with its tools. Owned by the agent loop. */
typedef struct ztool_ctx {
  const char *workspace;          /* absolute, normalised workspace root (the cwd) */
  const char *const *add_dirs;    /* extra writable roots, absolute; may be NULL */
  size_t n_add_dirs;
  size_t output_cap;              /* bytes of output kept; 0 = ZTOOL_OUTPUT_CAP */
  int exec_timeout_ms;            /* default exec_command timeout; 0 = 120000 */
  json_t *plan;                   /* update_plan's current plan (array); owned by ctx owner */
  struct zspawner *spawner;       /* confines child processes (exec/spawn.h); NULL = none */
  ztool_write_hook write_hook;    /* before_write NULL = no hook */
  ztool_read_guard read_guard;    /* denied NULL = every path may be read */
  struct ztool_files *files;      /* what the model has read (tools/tracker.h); NULL = no
                                     tracking: write_file then overwrites unread files */
  bool images_unsupported;        /* the model takes no image input: view_image refuses */
  const ztool_backend *backend;   /* the editor's files and terminals; NULL = zero's own */
  ztool_host_guard host_guard;    /* refused NULL = no egress lists */
  /* This call's approved escalation: set only on the per-call copy
   * ztool_invoke_escalated makes, never on a run's shared context. */
  ztool_escalation escalation;
  /* This call's live output hook (output NULL = none); per call, as above. */
  ztool_live_hook live;
} ztool_ctx;

#define ZTOOL_OUTPUT_CAP (256u * 1024u) /* what a single result may hand the model */

typedef struct ztool_result {
  bool is_error;    /* the tool failed; output says why and what to do */
  bool truncated;   /* output was cut; output ends with a notice saying how to see more */
  zbuf output;      /* text for the model (valid UTF-8) */
  json_t *meta;     /* optional structured details (exit code, path, …); owned */
} ztool_result;

#define ZTOOL_RESULT_INIT { false, false, ZBUF_INIT, NULL }
void ztool_result_release(ztool_result *r);
/* Sets is_error and the output to the formatted message. Returns -1. */
int ztool_fail(ztool_result *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

typedef struct ztool {
  const char *name;
  const char *description;
  const char *parameters_json;   /* JSON Schema text, additionalProperties:false */
  zside_effect side_effect;
  bool read_only;                /* allowed in plan mode */
  /* Runs the tool. args is the parsed argument object (already checked to be
   * an object). Returns 0 on success, -1 when it failed (res->is_error set). */
  int (*run)(const ztool_ctx *ctx, const json_t *args, ztool_result *res);
  /* When set, the tool also accepts its whole input as raw text (a freeform
   * tool call): arguments that are not a JSON object become
   * {freeform_param: text}. NULL for ordinary tools. */
  const char *freeform_param;
} ztool;

/* All built-in tools, sorted by name. */
const ztool *const *ztool_all(size_t *count);
const ztool *ztool_find(const char *name);

/* The schema array handed to providers: [{name, description, parameters}],
 * for every tool when filter is NULL, else those for which filter returns
 * true. New reference. */
json_t *ztool_schemas(bool (*filter)(const ztool *t, void *ud), void *ud);

/* Renames the argument names models commonly use instead of the schema's
 * (read_file {"file_path"}, apply_patch {"patch"}, exec_command {"command"},
 * the names Go zero tolerates) to the schema's own, in place. An alias is
 * used only when the schema's name is absent, null or an empty string; one
 * that conflicts with it is left for the check to report. ztool_invoke and
 * the permission engine both call it, so they judge the same arguments. */
void ztool_normalize_args(const ztool *t, json_t *args);
/* The arguments object a call's text stands for, as ztool_invoke runs tool
 * t with it: blank text is {}, a freeform tool's raw text (apply_patch sent
 * as a custom tool) is {freeform_param: text}, any other text the JSON
 * object it holds. The permission engine must judge exactly this — a raw
 * patch judged as "no arguments" would have no targets to check. New
 * reference (not normalized), or NULL when the text is not an object. */
json_t *ztool_call_args(const ztool *t, const char *args_text);
/* Parses a call's argument text and normalizes it for tool `name` (for
 * displays that show a call: the TUI's cards and prompts). New reference,
 * or NULL when the text is not a JSON object. */
json_t *ztool_load_args(const char *name, const char *arguments);

/* Parses args_text (the model's raw argument JSON; "" means {}) and runs the
 * tool. Malformed JSON, a non-object, an unknown tool or a property not in
 * the schema become an error result that tells the model what was wrong —
 * never a crash. Output is capped at ctx->output_cap with a notice. */
int ztool_invoke(const ztool_ctx *ctx, const char *name, const char *args_text,
                 ztool_result *res);
/* ztool_invoke for one call that its permission decision allowed with esc
 * (perm/engine.h zperm_escalation): the tool runs with a copy of ctx that
 * carries esc, so the escalation reaches this call's spawn request and
 * nothing else. */
int ztool_invoke_escalated(const ztool_ctx *ctx, const char *name, const char *args_text,
                           ztool_escalation esc, ztool_result *res);

/* Resolves a tool path argument against the workspace (absolute, normalised).
 * Caller frees. */
char *ztool_resolve_path(const ztool_ctx *ctx, const char *path);
/* true when abs_path is inside the workspace or an add-dir root, after
 * resolving symlinks of the existing part of the path. */
bool ztool_path_writable(const ztool_ctx *ctx, const char *abs_path);
/* true when the run's read guard denies reading abs, either as written or
 * where its symlinks lead (a link in the workspace to ~/.ssh): what the
 * file tools refuse, and what nothing shown outside them may reveal. */
bool ztool_read_denied(const ztool_ctx *ctx, const char *abs);

#endif
