/* exec_args.h — `zero exec` flags. Parsing is separate from running so it can
 * be unit-tested; see docs/cli.md for the user-facing list. */
#ifndef ZERO_CLI_EXEC_ARGS_H
#define ZERO_CLI_EXEC_ARGS_H

#include <stdbool.h>

#include "perm/engine.h"
#include "base/buf.h"
#include "base/err.h"
#include "base/opts.h"

typedef enum zout_format { ZOUT_TEXT, ZOUT_JSON, ZOUT_STREAM_JSON } zout_format;
typedef enum zin_format { ZIN_TEXT, ZIN_STREAM_JSON } zin_format;

typedef struct zexec_args {
  zout_format output;
  zin_format input;
  zbuf prompt;              /* positional words / -p joined with spaces */
  bool prompt_stdin;        /* "-" among the words: standard input is the prompt */
  const char *prompt_file;  /* -f / --file */
  const char *model;
  const char *provider;
  const char *reasoning_effort; /* -r / --reasoning-effort: none … max (ZMODEL_EFFORT_NAMES) */
  const char *cwd;          /* -C / --cwd */
  int max_turns;            /* 0 = config */
  bool resume;
  const char *resume_id;    /* NULL = latest */
  const char *fork_id;      /* --fork ID: run in a fork of that session */
  const char *init_session_id; /* --init-session-id ID: the new session's id */
  bool mode_given;
  zperm_mode mode;
  zautonomy autonomy;
  bool autonomy_given; /* --auto was on the command line */
  bool skip_permissions_unsafe;
  const char **add_dirs;    /* borrowed from argv */
  size_t n_add_dirs;
  const char **allow_domains; /* --allow-domain, borrowed from argv (argc + 1 slots) */
  size_t n_allow_domains;
  const char **images;      /* --image PATH (repeatable), borrowed from argv */
  size_t n_images;
  bool list_tools;
  bool offline;             /* --offline */
  bool trust_workspace;     /* --trust-workspace */
  zbuf enabled_tools;       /* --enabled-tools (repeats joined by commas) */
  zbuf disabled_tools;      /* --disabled-tools (repeats joined by commas) */
  char **tools_off;         /* both resolved (zperm_tool_filter): the built-in tools
                             * disabled for the run, NULL-terminated; NULL = none */
  bool help;
  const char *session_title;
  /* subagents */
  const char *agent;          /* --agent NAME: run as that specialist */
  const char *parent_session; /* --parent-session ID: the new session is its child */
  const char *schedule;       /* --schedule ID: the new session is a run of a zero cron schedule */
  bool worktree;              /* --worktree [NAME]: run in a new git worktree */
  const char *worktree_name;  /* its NAME, or NULL (generated) */
  /* The loop's judgement (docs/cli.md "Completion gate, guardrails"). */
  bool no_completion_gate;      /* --no-completion-gate */
  const char *profile;          /* --profile NAME: profiles.<NAME> / a built-in profile */
  const char *trace_path;       /* --trace FILE ("-" = stderr) */
  bool allow_escalation;        /* --allow-escalation [MODEL] */
  const char *escalation_model; /* its MODEL, or NULL */
  bool use_spec;                /* --use-spec / --permission-mode spec-draft */
  bool spec_approve;            /* --spec-approve: build the spec in the same run */
} zexec_args;

/* The flags of `zero exec`: its parser, --help and shell completion read it. */
extern const zopt_spec zcli_exec_opts;

/* Parses argv (the words after "exec"). The word after `--resume` is its
 * session id unless it starts with "-"; `is_session` (may be NULL) tells
 * whether an id exists, so a wrong one is a usage error here. Returns 0, or -1 with a ZE_USAGE
 * error. The output format is parsed first so even a usage error can be reported in it. */
int zexec_args_parse(int argc, char **argv, zexec_args *a, bool (*is_session)(const char *id),
                     zerr *err);
void zexec_args_release(zexec_args *a);

#endif
