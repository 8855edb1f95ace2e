/* exec_args.c — `zero exec` flag parsing; see exec_args.h. */
#include "cli/exec_args.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/common.h"
#include "base/ids.h"
#include "base/opts.h"
#include "config/models.h"
#include "subagent/worktree.h"

/* The flags of `zero exec`, as Go zero spells them. */
enum {
  O_HELP = 1,
  O_OUTPUT,
  O_INPUT,
  O_PROMPT,
  O_FILE,
  O_MODEL,
  O_EFFORT,
  O_PROVIDER,
  O_CWD,
  O_TITLE,
  O_MAX_TURNS,
  O_RESUME,
  O_RESUME_LATEST,
  O_INIT_ID,
  O_NO_NOTIFY,
  O_NO_GATE,
  O_PROFILE,
  O_PLAN,
  O_FORK,
  O_MODE,
  O_AUTO,
  O_SKIP,
  O_ADD_DIR,
  O_IMAGE,
  O_LIST_TOOLS,
  O_OFFLINE,
  O_ENABLED,
  O_DISABLED,
  /* the loop's judgement */
  O_TRACE,
  O_ESCALATION,
  O_USE_SPEC,
  O_SPEC_APPROVE,
  O_ALLOW_DOMAIN,
  O_TRUST_WORKSPACE,
  /* subagents (docs/subagents.md) */
  O_AGENT,
  O_PARENT_SESSION,
  O_SCHEDULE,
  O_WORKTREE,
};

static const zopt EXEC_OPTS[] = {
    {O_PROMPT, "prompt", 'p', ZOPT_VALUE, ZOPT_SHORT_EQ | ZOPT_REPEAT, "TEXT",
     "prompt text (also: positional words, or piped stdin)", "Input and output"},
    {O_FILE, "file", 'f', ZOPT_VALUE, 0, "PATH",
     "read the prompt from a file (appended after the words)", NULL},
    {O_INPUT, "input-format", 'i', ZOPT_VALUE, 0, "FMT",
     "text (default) | stream-json (JSON lines on stdin)", NULL},
    {O_OUTPUT, "output-format", 'o', ZOPT_VALUE, 0, "FMT", "text (default) | json | stream-json",
     NULL},
    {O_IMAGE, "image", 0, ZOPT_VALUE, ZOPT_REPEAT, "PATH",
     "attach a PNG/JPEG/GIF/WebP image to the prompt (repeatable)", NULL},
    {O_LIST_TOOLS, "list-tools", 0, ZOPT_FLAG, 0, NULL,
     "list the tools the model would see, then exit", NULL},
    {O_MODEL, "model", 'm', ZOPT_VALUE, 0, "NAME",
     "model to use (overrides config and OPENAI_MODEL)", "Model"},
    {O_PROVIDER, "provider", 0, ZOPT_VALUE, 0, "NAME", "provider profile (overrides ZERO_PROVIDER)",
     NULL},
    {O_MAX_TURNS, "max-turns", 0, ZOPT_VALUE, 0, "N",
     "model requests allowed (default maxTurns, 80)", NULL},
    {O_EFFORT, "reasoning-effort", 'r', ZOPT_VALUE, 0, "L",
     "none | minimal | low | medium | high | xhigh | max (the model's levels)", NULL},
    {O_RESUME, "resume", 0, ZOPT_OPTIONAL, 0, "ID",
     "continue a session (default: the latest in this directory)", "Sessions"},
    {O_RESUME_LATEST, "resume-latest", 0, ZOPT_FLAG, 0, NULL,
     "continue the latest resumable session here", NULL},
    {O_FORK, "fork", 0, ZOPT_VALUE, 0, "ID",
     "continue a copy of session ID (the original is untouched)", NULL},
    {O_TITLE, "session-title", 0, ZOPT_VALUE, 0, "TEXT", "title stored with a new session", NULL},
    {O_INIT_ID, "init-session-id", 0, ZOPT_VALUE, 0, "ID",
     "id of the new session (letters, digits, _ and -)", NULL},
    {O_CWD, "cwd", 'C', ZOPT_VALUE, 0, "DIR", "workspace directory (default: current directory)",
     "Workspace and permissions"},
    {O_ADD_DIR, "add-dir", 0, ZOPT_VALUE, ZOPT_REPEAT, "DIR",
     "another directory the tools may write (repeatable)", NULL},
    {O_MODE, "permission-mode", 0, ZOPT_VALUE, 0, "MODE",
     "ask | accept-edits | auto (default) | unsafe\n"
     "| plan (read-only)"
     " | spec-draft (= --use-spec)",
     NULL},
    {O_PLAN, "plan", 0, ZOPT_FLAG, 0, NULL, "the same as --permission-mode plan", NULL},
    // clang-format off
    {O_AUTO, "auto", 0, ZOPT_VALUE, 0, "LEVEL",
     "low (default) | member (no network, never unsandboxed)\n"
     "| medium (network commands get the network)\n"
     "| high (= unsafe: no checks, no sandbox)", NULL},
    // clang-format on
    {O_SKIP, "skip-permissions-unsafe", 0, ZOPT_FLAG, 0, NULL,
     "allow every tool call without checks", NULL},
    {O_OFFLINE, "offline", 0, ZOPT_FLAG, 0, NULL,
     "no network: package installs run from caches; network\n"
     "commands and escalations are denied",
     NULL},
    {O_ALLOW_DOMAIN, "allow-domain", 0, ZOPT_VALUE, ZOPT_REPEAT, "HOST",
     "commands may reach HOST (or *.example.com) through the\n"
     "sandbox's egress proxy for this run (network \"scoped\")",
     NULL},
    {O_TRUST_WORKSPACE, "trust-workspace", 0, ZOPT_FLAG, 0, NULL,
     "trust this workspace's hooks, commands and plugins\n"
     "(saved until those files change)",
     NULL},
    {O_ENABLED, "enabled-tools", 0, ZOPT_VALUE, ZOPT_REPEAT, "LIST",
     "only these built-in tools (comma or space separated)", NULL},
    {O_DISABLED, "disabled-tools", 0, ZOPT_VALUE, ZOPT_REPEAT, "LIST",
     "turn these built-in tools off", NULL},
    {O_NO_NOTIFY, "no-notify", 0, ZOPT_FLAG, 0, NULL,
     "Go zero's flag, accepted for its scripts (no effect)", NULL},
    {O_NO_GATE, "no-completion-gate", 0, ZOPT_FLAG, 0, NULL,
     "accept a final answer even with plan items open or\n"
     "sessions running (no continuation nudges)",
     "Judgement"},
    {O_PROFILE, "profile", 0, ZOPT_VALUE, 0, "NAME",
     "execution profile: profiles.NAME in the config, or\n"
     "balanced | fast | thorough",
     NULL},
    {O_TRACE, "trace", 0, ZOPT_VALUE, 0, "FILE",
     "write an NDJSON trace of the run to FILE (- = stderr)", NULL},
    {O_ESCALATION, "allow-escalation", 0, ZOPT_OPTIONAL, 0, "MODEL",
     "offer the escalate_model tool: the model may switch\n"
     "the rest of the run to MODEL",
     NULL},
    {O_USE_SPEC, "use-spec", 0, ZOPT_FLAG, 0, NULL,
     "draft a spec first (read-only tools + write_spec into\n"
     ".zero/specs/), then stop with its path",
     NULL},
    {O_SPEC_APPROVE, "spec-approve", 0, ZOPT_FLAG, 0, NULL,
     "with --use-spec: build the drafted spec in the same run", NULL},
    /* subagents (docs/subagents.md) */
    {O_AGENT, "agent", 0, ZOPT_VALUE, 0, "NAME",
     "run as the specialist NAME (zero agents list): its tools,\n"
     "prompt, model and permission mode (never above the run's)",
     "Sub-agents"},
    {O_PARENT_SESSION, "parent-session", 0, ZOPT_VALUE, 0, "ID",
     "record the new session as a child of session ID (set by the task tool)", NULL},
    {O_SCHEDULE, "schedule", 0, ZOPT_VALUE, 0, "ID",
     "record the new session as a run of schedule ID (set by zero cron)", NULL},
    {O_WORKTREE, "worktree", 0, ZOPT_OPTIONAL, 0, "NAME",
     "work in a new git worktree .zero/worktrees/NAME (branch\n"
     "zero/NAME; NAME generated when left out); removed at\n"
     "the end when unchanged, else kept",
     NULL},
    {O_HELP, "help", 'h', ZOPT_FLAG, 0, NULL, "this help", NULL},
};

const zopt_spec zcli_exec_opts = {.command = "exec",
                                  .opts = EXEC_OPTS,
                                  .n_opts = ZARRAY_LEN(EXEC_OPTS),
                                  .unknown = "unknown exec flag",
                                  .see = " (see zero exec --help)"};

static int parse_output(const char *v, zexec_args *a, zerr *err) {
  if (!strcmp(v, "text")) a->output = ZOUT_TEXT;
  else if (!strcmp(v, "json")) a->output = ZOUT_JSON;
  else if (!strcmp(v, "stream-json") || !strcmp(v, "debug")) a->output = ZOUT_STREAM_JSON;
  else
    return zerr_set(err, ZE_USAGE,
                    "Invalid output format \"%s\". Expected text, json or stream-json.", v);
  return 0;
}

/* Pre-pass: find -o so that errors in other flags are reported in it. The
 * same parser, deaf to errors (each bad word is skipped). */
static void scan_output(int argc, char **argv, zexec_args *a) {
  zopt_parser op;
  zopt_hit hit;
  zerr ignored;
  zopt_init(&op, &zcli_exec_opts, argc, argv);
  int rc;
  while ((rc = zopt_next(&op, &hit, &ignored)) != 0)
    if (rc > 0 && hit.id == O_OUTPUT) parse_output(hit.value, a, &ignored);
}

/* After --allow-escalation, a word that names a model rather than starting
 * the prompt: one word with a model's punctuation ("gpt-5", "claude-opus-4",
 * "qwen2.5:72b", "openai/gpt-5"). "--allow-escalation=MODEL" is never
 * ambiguous. */
static bool looks_like_model(const char *w) {
  if (!w[0] || w[0] == '-') return false;
  for (const char *c = w; *c; c++)
    if (isspace((unsigned char)*c)) return false;
  return strpbrk(w, "-.:/") != NULL;
}

static void add_prompt_word(zexec_args *a, const char *w) {
  if (a->prompt.len) zbuf_addch(&a->prompt, ' ');
  zbuf_addstr(&a->prompt, w);
}

/* One option or prompt word into *a. */
static int apply(zopt_parser *p, const zopt_hit *h, zexec_args *a,
                 bool (*is_session)(const char *id), zerr *err) {
  const char *v = h->value;
  switch (h->id) {
    case ZOPT_ARG:
      if (!strcmp(v, "-") && !h->after_dashdash) a->prompt_stdin = true; /* the prompt from stdin */
      else add_prompt_word(a, v);
      break;
    case O_HELP: a->help = true; break;
    case O_OUTPUT: return parse_output(v, a, err);
    case O_INPUT:
      if (!strcmp(v, "text")) a->input = ZIN_TEXT;
      else if (!strcmp(v, "stream-json")) a->input = ZIN_STREAM_JSON;
      else
        return zerr_set(err, ZE_USAGE,
                        "Invalid input format \"%s\". Expected text or stream-json.", v);
      break;
    case O_PROMPT: add_prompt_word(a, v); break;
    case O_FILE: a->prompt_file = v; break;
    case O_MODEL: a->model = v; break;
    case O_EFFORT:
      if (!zmodel_effort_known(v))
        return zerr_set(err, ZE_USAGE, "Invalid reasoning effort \"%s\". Expected %s.", v,
                        ZMODEL_EFFORT_NAMES);
      a->reasoning_effort = v;
      break;
    case O_PROVIDER: a->provider = v; break;
    case O_CWD: a->cwd = v; break;
    case O_TITLE: a->session_title = v; break;
    case O_MAX_TURNS: {
      char *end;
      errno = 0;
      long n = strtol(v, &end, 10);
      if (errno || *end || n <= 0 || n > 10000)
        return zerr_set(err, ZE_USAGE, "--max-turns must be a whole number from 1 to 10000, not \"%s\"",
                        v);
      a->max_turns = (int)n;
      break;
    }
    case O_RESUME: {
      /* Go zero's rule: the next word is the id unless it is a flag, so free
       * text after --resume is never a prompt for the latest session. */
      a->resume = true;
      const char *next = zopt_peek(p);
      if (v) {
        if (v[0]) a->resume_id = v; /* "--resume=" alone means the latest, like "--resume" */
      } else if (next && next[0] != '-') {
        a->resume_id = next;
        zopt_skip(p);
      }
      if (a->resume_id && (!zid_is_safe(a->resume_id) || (is_session && !is_session(a->resume_id))))
        return zerr_set(err, ZE_USAGE,
                        "--resume %s: no such session (zero sessions list shows them). To "
                        "continue the latest session, give --resume-latest or put --resume after "
                        "the prompt: zero exec \"%s\" --resume",
                        a->resume_id, a->resume_id);
      break;
    }
    case O_RESUME_LATEST:
      a->resume = true;
      a->resume_id = NULL;
      break;
    case O_INIT_ID: a->init_session_id = v; break;
    case O_NO_NOTIFY:
      /* Go zero's flag, accepted so its CI scripts run unchanged: zero exec
       * sends no notifications. */
      break;
    case O_NO_GATE: a->no_completion_gate = true; break;
    case O_PROFILE: a->profile = v; break;
    case O_TRACE: a->trace_path = v; break;
    case O_USE_SPEC: a->use_spec = true; break;
    case O_SPEC_APPROVE: a->spec_approve = true; break;
    case O_ESCALATION: {
      a->allow_escalation = true;
      const char *next = zopt_peek(p);
      if (v && v[0]) {
        a->escalation_model = v;
      } else if (next && looks_like_model(next)) {
        a->escalation_model = next;
        zopt_skip(p);
      }
      break;
    }
    case O_PLAN:
      a->mode = ZPERM_PLAN; /* Go zero: the same as --permission-mode plan */
      a->mode_given = true;
      break;
    case O_FORK: a->fork_id = v; break;
    case O_MODE:
      if (!strcmp(v, "spec-draft")) { /* Go zero's mode for --use-spec's draft */
        a->use_spec = true;
        break;
      }
      if (zperm_mode_parse(v, &a->mode, err) < 0) return -1;
      a->mode_given = true;
      break;
    case O_AUTO: a->autonomy_given = true; return zautonomy_parse(v, &a->autonomy, err);
    case O_SKIP: a->skip_permissions_unsafe = true; break;
    case O_ADD_DIR: a->add_dirs[a->n_add_dirs++] = v; break;
    case O_ALLOW_DOMAIN: a->allow_domains[a->n_allow_domains++] = v; break;
    case O_IMAGE: a->images[a->n_images++] = v; break;
    case O_LIST_TOOLS: a->list_tools = true; break;
    case O_AGENT: a->agent = v; break;
    case O_PARENT_SESSION:
      if (!zid_is_safe(v))
        return zerr_set(err, ZE_USAGE, "--parent-session takes a session id, not \"%s\"", v);
      a->parent_session = v;
      break;
    case O_SCHEDULE:
      if (!zid_is_safe(v))
        return zerr_set(err, ZE_USAGE, "--schedule takes a schedule id, not \"%s\"", v);
      a->schedule = v;
      break;
    case O_WORKTREE: {
      /* As --resume: the next word is the name when it can be one. */
      a->worktree = true;
      const char *next = zopt_peek(p);
      if (v && v[0]) a->worktree_name = v;
      else if (!v && next && zwt_name_ok(next)) {
        a->worktree_name = next;
        zopt_skip(p);
      }
      if (a->worktree_name && !zwt_name_ok(a->worktree_name))
        return zerr_set(err, ZE_USAGE,
                        "--worktree %s: a name is up to %d letters, digits, '.', '_' or '-'",
                        a->worktree_name, ZWT_NAME_MAX);
      break;
    }
    case O_OFFLINE: a->offline = true; break;
    case O_TRUST_WORKSPACE: a->trust_workspace = true; break;
    case O_ENABLED:
    case O_DISABLED: {
      zbuf *list = h->id == O_ENABLED ? &a->enabled_tools : &a->disabled_tools;
      zbuf_addf(list, "%s%s", list->len ? "," : "", v);
      break;
    }
    default: return zerr_set(err, ZE_INTERNAL, "exec option %s not handled", h->word);
  }
  return 0;
}

int zexec_args_parse(int argc, char **argv, zexec_args *a, bool (*is_session)(const char *id),
                     zerr *err) {
  memset(a, 0, sizeof *a);
  zbuf_init(&a->prompt);
  zbuf_init(&a->enabled_tools);
  zbuf_init(&a->disabled_tools);
  a->mode = ZPERM_AUTO;
  a->autonomy = ZAUTO_LOW;
  a->add_dirs = xcalloc((size_t)argc + 1, sizeof *a->add_dirs);
  a->allow_domains = xcalloc((size_t)argc + 1, sizeof *a->allow_domains);
  a->images = xcalloc((size_t)argc + 1, sizeof *a->images);
  scan_output(argc, argv, a);

  zopt_parser op;
  zopt_hit hit;
  zopt_init(&op, &zcli_exec_opts, argc, argv);
  int rc;
  while ((rc = zopt_next(&op, &hit, err)) > 0)
    if (apply(&op, &hit, a, is_session, err) < 0) return -1;
  if (rc < 0) return -1;
  if (a->enabled_tools.len || a->disabled_tools.len) {
    err->msg[0] = '\0'; /* NULL below is an error only with a message */
    a->tools_off = zperm_tool_filter(a->enabled_tools.len ? a->enabled_tools.data : NULL,
                                     a->disabled_tools.len ? a->disabled_tools.data : NULL, err);
    if (!a->tools_off && err->msg[0]) return -1;
  }
  if (a->init_session_id && (a->resume || a->fork_id))
    return zerr_set(err, ZE_USAGE, "--init-session-id names a new session; it cannot be combined "
                    "with --resume or --fork");
  if (a->parent_session && a->fork_id)
    return zerr_set(err, ZE_USAGE, "--parent-session cannot be combined with --fork");
  if (a->spec_approve && !a->use_spec)
    return zerr_set(err, ZE_USAGE,
                    "--spec-approve builds a drafted spec: give it with "
                    "--use-spec (or --permission-mode spec-draft)");
  if (a->fork_id && a->resume)
    return zerr_set(err, ZE_USAGE, "--fork and --resume cannot be combined: --fork ID already "
                    "continues (a copy of) session ID");
  return 0;
}

void zexec_args_release(zexec_args *a) {
  zbuf_release(&a->prompt);
  zbuf_release(&a->enabled_tools);
  zbuf_release(&a->disabled_tools);
  zperm_tool_list_free(a->tools_off);
  a->tools_off = NULL;
  free(a->add_dirs);
  a->add_dirs = NULL;
  free(a->allow_domains);
  a->allow_domains = NULL;
  free(a->images);
  a->images = NULL;
}
