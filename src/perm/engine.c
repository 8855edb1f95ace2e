/* permissions.c — allow / prompt / deny per tool call; see permissions.h. */
#include "perm/engine.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/common.h"
#include "base/json.h"
#include "base/path.h"
#include "perm/grants.h"
#include "sandbox/policy.h"
#include "sandbox/shell.h"
#include "tools/patch.h"

int zperm_mode_parse(const char *s, zperm_mode *out, zerr *err) {
  if (!strcmp(s, "ask")) *out = ZPERM_ASK;
  else if (!strcmp(s, "auto") || !strcmp(s, "member") || !strcmp(s, "member-auto"))
    *out = ZPERM_AUTO;
  else if (!strcmp(s, "unsafe") || !strcmp(s, "full-auto") || !strcmp(s, "full_auto") ||
           !strcmp(s, "high"))
    *out = ZPERM_UNSAFE;
  else if (!strcmp(s, "plan")) *out = ZPERM_PLAN;
  else if (!strcmp(s, "accept-edits") || !strcmp(s, "acceptEdits") || !strcmp(s, "accept_edits"))
    *out = ZPERM_ACCEPT_EDITS;
  else
    return zerr_set(err, ZE_USAGE,
                    "Invalid permission mode \"%s\". Expected ask, accept-edits, auto, unsafe or "
                    "plan.",
                    s);
  return 0;
}

int zautonomy_parse(const char *s, zautonomy *out, zerr *err) {
  if (!strcmp(s, "low")) *out = ZAUTO_LOW;
  else if (!strcmp(s, "member")) *out = ZAUTO_MEMBER;
  else if (!strcmp(s, "medium")) *out = ZAUTO_MEDIUM;
  else if (!strcmp(s, "high")) *out = ZAUTO_HIGH;
  else
    return zerr_set(err, ZE_USAGE,
                    "Invalid autonomy level \"%s\". Expected low, medium, or high (or member).", s);
  return 0;
}

const char *zperm_mode_name(zperm_mode m) {
  switch (m) {
    case ZPERM_ASK: return "ask";
    case ZPERM_AUTO: return "auto";
    case ZPERM_UNSAFE: return "unsafe";
    case ZPERM_PLAN: return "plan";
    case ZPERM_ACCEPT_EDITS: return "accept-edits";
  }
  return "auto";
}

const char *zautonomy_name(zautonomy a) {
  switch (a) {
    case ZAUTO_LOW: return "low";
    case ZAUTO_MEMBER: return "member";
    case ZAUTO_MEDIUM: return "medium";
    case ZAUTO_HIGH: return "high";
  }
  return "low";
}

const char *zperm_action_name(zperm_action a) {
  switch (a) {
    case ZPERM_ALLOW: return "allow";
    case ZPERM_PROMPT: return "prompt";
    case ZPERM_DENY: return "deny";
  }
  return "deny";
}

zperm_mode zperm_effective_mode(bool mode_given, zperm_mode mode, zautonomy autonomy,
                                bool skip_unsafe) {
  if (skip_unsafe) return ZPERM_UNSAFE;
  if (mode_given) return mode;
  return autonomy == ZAUTO_HIGH ? ZPERM_UNSAFE : ZPERM_AUTO;
}

static zperm_decision make(zperm_action action, const char *code, bool recoverable,
                           const char *hint, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static zperm_decision make(zperm_action action, const char *code, bool recoverable,
                           const char *hint, const char *fmt, ...) {
  zperm_decision d;
  memset(&d, 0, sizeof d);
  d.action = action;
  d.code = code;
  d.recoverable = recoverable;
  d.allow_hint = hint ? hint : "";
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(d.reason, sizeof d.reason, fmt, ap);
  va_end(ap);
  return d;
}

static void note_grant(zperm_decision *d, const ztool *tool, const zgrant *g) {
  d->grant_matched = true;
  d->grant.tool = tool->name;
  d->grant.kind = zgrant_kind_name(g->kind);
  d->grant.scope = zgrant_scope_name(g->scope);
  snprintf(d->grant.value, sizeof d->grant.value, "%s", g->value ? g->value : "");
}

static const char *path_arg(const json_t *args) {
  static const char *const keys[] = {"path", "file_path", "file", "filepath", "filename", NULL};
  for (const char *const *k = keys; *k; k++) {
    const char *v = zjson_str(args, *k);
    if (v) return v;
  }
  return NULL;
}

static bool within_roots(const ztool_ctx *t, const char *abs) {
  if (zpath_is_within(t->workspace, abs)) return true;
  for (size_t i = 0; i < t->n_add_dirs; i++)
    if (zpath_is_within(t->add_dirs[i], abs)) return true;
  return false;
}

/* Every path a write tool would change, as the model wrote them: the path
 * argument, or for apply_patch each file of the patch and each "Move to"
 * destination (a patch that does not parse writes nothing: the tool refuses
 * it). Caller frees the array and its strings. */
static char **write_targets(const ztool *tool, const json_t *args, size_t *n) {
  *n = 0;
  if (!args) return NULL;
  char **out = NULL;
  const char *patch = !strcmp(tool->name, "apply_patch") ? zjson_str(args, "input") : NULL;
  if (patch) {
    zpatch pt = ZPATCH_INIT;
    zbuf perr = ZBUF_INIT;
    if (zpatch_parse(patch, strlen(patch), &pt, &perr) == 0) {
      out = xcalloc(2 * pt.files.len + 1, sizeof *out);
      for (size_t i = 0; i < pt.files.len; i++) {
        if (pt.files.items[i].path) out[(*n)++] = xstrdup(pt.files.items[i].path);
        if (pt.files.items[i].move_to) out[(*n)++] = xstrdup(pt.files.items[i].move_to);
      }
    }
    zbuf_release(&perr);
    zpatch_release(&pt);
    return out;
  }
  const char *p = path_arg(args);
  if (!p) return NULL;
  out = xcalloc(2, sizeof *out);
  out[(*n)++] = xstrdup(p);
  return out;
}

static void targets_free(char **v, size_t n) {
  for (size_t i = 0; i < n; i++) free(v[i]);
  free(v);
}

/* Step 5: where a file tool would write (p, as the model wrote it). Returns
 * true with *d set when the call is denied. *resolved gets the real target
 * (caller frees). */
static bool path_scope(const zperm_engine *e, const char *p, zperm_decision *d,
                       char **resolved) {
  if (!p || !e->tools || !e->tools->workspace) return false;
  cleanup_free char *lexical = ztool_resolve_path(e->tools, p);
  *resolved = zsb_resolve_path(lexical, NULL);
  const char *hint = "ask the user to rerun with --add-dir <dir> to make that directory "
                     "writable, or write inside the workspace";
  if (!within_roots(e->tools, *resolved)) {
    if (within_roots(e->tools, lexical))
      *d = make(ZPERM_DENY, "symlink_escape", true, hint,
                "%s resolves through a symlink to %s, outside the workspace and --add-dir "
                "roots", p, *resolved);
    else
      *d = make(ZPERM_DENY, "outside_write_roots", true, hint,
                "%s is outside the workspace and --add-dir roots", *resolved);
    return true;
  }
  if (e->policy && !zsb_policy_may_write(e->policy, *resolved)) {
    *d = make(ZPERM_DENY, "protected_path", false,
              "nothing in this run: .zero, .agents, .git/config, .git/hooks, .git/commondir, "
              "zero's config, credentials and denyWrite paths are changed by the user only",
              "%s is protected (zero's or the agents' config, git config, hooks or commondir, "
              "a hidden credential, or a configured denyWrite path)", *resolved);
    return true;
  }
  return false;
}

/* true when a tool that reaches the network itself (side effect network,
 * not a command: the OS sandbox cannot confine zero's own process) is held
 * to a sandbox.network deny: always, unless the user config turned
 * sandbox.enforceToolNetwork off. No policy at all counts as deny. */
static bool tool_network_gated(const zperm_engine *e, const ztool *tool) {
  if (tool->side_effect != ZSIDE_NETWORK) return false;
  if (!e->policy) return true;
  return !e->policy->network && e->policy->enforce_tool_network;
}

/* An MCP server's sampling request (docs/mcp.md, "Sampling"): the user sees
 * what the server wants the model to answer, every time. */
static zperm_decision decide_sampling(const zperm_engine *e, const zperm_call *c) {
  if (e->mode == ZPERM_UNSAFE)
    return make(ZPERM_ALLOW, "allowed", false, NULL, "unsafe permissions allow every request");
  return make(ZPERM_PROMPT, "sampling", true,
              "the user can approve it in the interactive zero, or rerun with "
              "--skip-permissions-unsafe",
              "MCP server \"%s\" asks the model for a completion", c->mcp_server);
}

/* An MCP server's tool: the rules of docs/mcp.md ("Approval"). */
static zperm_decision decide_mcp(const zperm_engine *e, const zperm_call *c) {
  if (c->mcp_sampling) return decide_sampling(e, c);
  if (!zperm_tool_enabled(e, c->tool->name))
    return make(ZPERM_DENY, "tool_denied", true, "the user can re-enable the tool",
                "%s is disabled for this run", c->tool->name);
  if (e->mode == ZPERM_UNSAFE)
    return make(ZPERM_ALLOW, "allowed", false, NULL, "unsafe permissions allow every tool");
  if (e->mode == ZPERM_PLAN)
    return make(ZPERM_DENY, "plan_mode", true, "--permission-mode auto",
                "plan mode is read-only and MCP tools may change things; leave plan mode to "
                "use them");
  if (zgrants_mcp_granted(e->grants, c->mcp_server, c->mcp_tool))
    return make(ZPERM_ALLOW, "allowed", false, NULL, "granted in mcp-permissions.json");
  return make(ZPERM_PROMPT, "needs_approval", true,
              "the user can grant it with `zero mcp grant <server> <tool>` (or `zero mcp grant "
              "<server>` for all its tools), or rerun with --skip-permissions-unsafe",
              "MCP tool %s of server \"%s\" needs approval; `zero mcp grant %s %s` grants it "
              "(`zero mcp grant %s` all its tools)",
              c->mcp_tool, c->mcp_server, c->mcp_server, c->mcp_tool, c->mcp_server);
}

static zperm_decision decide_builtin(const zperm_engine *e, const ztool *tool,
                                     const json_t *args);

/* The allow grant covering the last of resolved[0..n) when every one is
 * covered by one (not necessarily the same), else NULL. A target that could
 * not be resolved is covered by nothing. */
static zgrant *match_every_target(zgrants *g, const char *tool, char *const *resolved, size_t n) {
  zgrant *gm = NULL;
  for (size_t i = 0; g && i < n; i++)
    if (!resolved[i] || !(gm = zgrants_match(g, tool, resolved[i], NULL, 0, true, false)))
      return NULL;
  return gm;
}

/* The modes in which commands and network tools ask first (accept-edits
 * lets only file edits through). */
static bool asks_first(const zperm_engine *e) {
  return e->mode == ZPERM_ASK || e->mode == ZPERM_ACCEPT_EDITS;
}

zperm_mode zperm_engine_mode(const zperm_engine *e) {
  return e->live_mode ? (zperm_mode)atomic_load(e->live_mode) : e->mode;
}

zperm_decision zperm_decide_call(const zperm_engine *e, const zperm_call *c) {
  zperm_engine now;
  if (e->live_mode) { /* one mode for the whole decision, however it changes */
    now = *e;
    now.mode = zperm_engine_mode(e);
    now.live_mode = NULL;
    e = &now;
  }
  if (c->mcp_server) return decide_mcp(e, c);
  return decide_builtin(e, c->tool, c->args);
}

zperm_decision zperm_decide(const zperm_engine *e, const ztool *tool, const json_t *args) {
  zperm_call c = {.tool = tool, .args = args};
  return zperm_decide_call(e, &c);
}

static zperm_decision decide_builtin(const zperm_engine *e, const ztool *tool,
                                     const json_t *args) {
  /* 1. tool denied */
  for (const char *const *t = e->disabled_tools; t && *t; t++)
    if (!strcmp(*t, tool->name))
      return make(ZPERM_DENY, "tool_denied", true, "the user can re-enable the tool",
                  "%s is disabled for this run", tool->name);
  /* 1b. --offline refuses every tool that reaches the network itself,
   * whatever the mode: the user said no network for this run. */
  if (tool->side_effect == ZSIDE_NETWORK && e->offline)
    return make(ZPERM_DENY, "offline", true,
                "work from local files, or the user can rerun without --offline",
                "this run is offline (--offline) and %s reaches the network", tool->name);
  /* 2. unsafe */
  if (e->mode == ZPERM_UNSAFE)
    return make(ZPERM_ALLOW, "allowed", true, NULL, "unsafe mode: every tool is allowed");
  /* 3. plan */
  bool net_gated = tool_network_gated(e, tool);
  if (e->mode == ZPERM_PLAN) {
    if (tool->read_only && !net_gated)
      return make(ZPERM_ALLOW, "allowed", true, NULL, "read-only tool allowed in plan mode");
    if (!tool->read_only)
      return make(ZPERM_DENY, "plan_mode", true,
                  "the user can rerun with --permission-mode auto to apply changes",
                  "plan mode is read-only: only tools that do not change anything may run. "
                  "Describe the change instead");
  }
  /* Judge the arguments the tool will run with (aliases renamed). */
  json_t *norm = args ? json_deep_copy(args) : NULL;
  if (norm) {
    ztool_normalize_args(tool, norm);
    args = norm;
  }
  bool is_shell = tool->side_effect == ZSIDE_SHELL || tool->side_effect == ZSIDE_NETWORK;
  const char *cmd = is_shell && args ? zjson_str(args, "cmd") : NULL;
  if (is_shell && args && !cmd) cmd = zjson_str(args, "command");
  zsh_analysis an;
  memset(&an, 0, sizeof an);
  char **lines = NULL;
  size_t nlines = 0;
  if (cmd) {
    zsh_analyze(cmd, e->offline, &an);
    lines = zsh_command_lines(&an, &nlines);
  }
  cleanup_free char *target = NULL;
  zperm_decision d;
  memset(&d, 0, sizeof d);
  bool decided = false;

  /* Where a write tool writes: every target is checked (steps 4 and 5); a
   * path grant decides only a call with a single target. */
  size_t ntargets = 0;
  char **targets = tool->side_effect == ZSIDE_WRITE ? write_targets(tool, args, &ntargets) : NULL;
  char **resolved = ntargets ? xcalloc(ntargets, sizeof *resolved) : NULL;
  for (size_t i = 0; i < ntargets && e->tools && e->tools->workspace; i++) {
    cleanup_free char *lex = ztool_resolve_path(e->tools, targets[i]);
    resolved[i] = zsb_resolve_path(lex, NULL);
  }
  if (ntargets == 1 && resolved[0]) target = xstrdup(resolved[0]);

  /* 4. saved deny grant */
  zgrant *gm = NULL;
  if (!decided && e->grants) {
    gm = zgrants_match(e->grants, tool->name, target, (const char *const *)lines, nlines, false,
                       false);
    for (size_t i = 0; !gm && ntargets > 1 && i < ntargets; i++)
      gm = zgrants_match(e->grants, tool->name, resolved[i], NULL, 0, false, false);
  }
  if (gm) {
    d = make(ZPERM_DENY, "grant_denied", true, "the user can revoke it: zero sandbox grants list",
             "a saved grant denies %s%s%s", tool->name, cmd ? " for " : "", cmd ? cmd : "");
    note_grant(&d, tool, gm);
    decided = true;
  }
  /* 5. path scope: every target of the call */
  for (size_t i = 0; !decided && i < ntargets; i++) {
    cleanup_free char *real = NULL;
    if (path_scope(e, targets[i], &d, &real)) decided = true;
  }
  targets_free(targets, ntargets);
  /* 6a. a network tool under sandbox.network deny: it runs in zero's own
   * process, which the OS sandbox does not confine, so the policy is held
   * here (a grant answers it at step 8). */
  if (!decided && net_gated) {
    d = make(ZPERM_PROMPT, "network", true,
             "the user can approve it, save a grant (zero sandbox grants allow <tool>), set "
             "sandbox.network to \"allow\", or set sandbox.enforceToolNetwork to false in "
             "~/.config/zero/config.json",
             "%s reaches the network from zero's own process (the OS sandbox does not confine "
             "it) and sandbox.network is deny", tool->name);
    decided = true;
  }
  /* 6. shell analysis */
  /* With tty: true the command gets a terminal the model types into
   * (write_stdin): an interactive program (a REPL) is what it asked for. */
  const json_t *tty_v = is_shell && args ? json_object_get(args, "tty") : NULL;
  bool tty = json_is_true(tty_v) ||
             (json_is_string(tty_v) && !strcmp(json_string_value(tty_v), "true"));
  if (!decided && cmd) {
    if ((an.flags & ZSH_INTERACTIVE) && !tty) {
      d = make(ZPERM_DENY, "interactive", true,
               "use a non-interactive form (git commit -m, --batch, a script file), or run it "
               "with tty: true and type into it with write_stdin",
               "%s; commands get an empty stdin", an.why);
      decided = true;
    } else if (an.flags & (ZSH_DESTRUCTIVE | ZSH_TOO_COMPLEX)) {
      bool destructive = an.flags & ZSH_DESTRUCTIVE;
      d = make(ZPERM_PROMPT, destructive ? "destructive" : "too_complex", true,
               "the user can approve it, or save a grant: zero sandbox grants allow exec_command "
               "--prefix \"<command>\"",
               "%s%s", destructive ? "destructive command: " : "command too complex to check: ",
               an.why);
      decided = true;
    } else if ((an.flags & ZSH_NETWORK) && !(e->policy && e->policy->network) &&
               !(e->policy && e->policy->scoped)) { /* scoped: the egress proxy decides */
      if (e->offline) {
        d = make(ZPERM_DENY, "offline", true,
                 "work from local files and caches, or the user can rerun without --offline",
                 "this run is offline (--offline) and the command needs the network: %s", an.why);
      } else if (e->autonomy == ZAUTO_MEMBER && e->mode == ZPERM_AUTO) {
        d = make(ZPERM_DENY, "network", true,
                 "work from local files and caches; --auto medium gives network commands the "
                 "network",
                 "--auto member runs commands without the network, and this one needs it: %s",
                 an.why);
      } else if (e->autonomy >= ZAUTO_MEDIUM && e->mode == ZPERM_AUTO) {
        d = make(ZPERM_ALLOW, "allowed", true, NULL,
                 "network command allowed with the network at --auto medium (%s)", an.why);
        d.escalate_network = true;
      } else {
        d = make(ZPERM_PROMPT, "network", true,
                 "the user can approve a retry with the network, run with --auto medium, or "
                 "set sandbox.network to \"allow\" in ~/.config/zero/config.json",
                 "needs the network, which the sandbox cuts: %s", an.why);
        d.escalate_network = true;
      }
      decided = true;
    }
  }
  /* 7. escalation requests */
  if (!decided && is_shell && args) {
    const char *sp = zjson_str(args, "sandbox_permissions");
    bool escalates = sp && (!strcmp(sp, "require_escalated") ||
                            !strcmp(sp, "with_additional_permissions"));
    if (escalates && e->offline) {
      /* Outside the sandbox the network is open too. */
      d = make(ZPERM_DENY, "offline", true,
               "run it inside the sandbox, or the user can rerun without --offline",
               "this run is offline (--offline): commands cannot get the network or leave the "
               "sandbox");
      decided = true;
    } else if (escalates && e->autonomy == ZAUTO_MEMBER && e->mode == ZPERM_AUTO) {
      d = make(ZPERM_DENY, "escalation", true,
               "run it inside the sandbox, without the network; --auto medium or higher lets "
               "the user approve more",
               "--auto member never runs a command outside the sandbox or with the network");
      decided = true;
    } else if (sp && !strcmp(sp, "require_escalated")) {
      d = make(ZPERM_PROMPT, "escalation", true, "the user can approve running it unsandboxed",
               "the command asks to run outside the sandbox%s%s",
               zjson_str(args, "justification") ? ": " : "",
               zjson_str_or(args, "justification", ""));
      d.escalate_unsandboxed = true;
      decided = true;
    } else if (sp && !strcmp(sp, "with_additional_permissions")) {
      d = make(ZPERM_PROMPT, "escalation", true, "the user can approve a retry with the network",
               "the command asks for the network%s%s",
               zjson_str(args, "justification") ? ": " : "",
               zjson_str_or(args, "justification", ""));
      d.escalate_network = true;
      decided = true;
    }
  }
  /* 8. saved allow grants (they also answer steps 6 and 7's prompts). A
   * request to leave the sandbox is answered only by this run's answer to
   * exactly that (once / session): a saved grant was given for running the
   * command in the sandbox, and a network grant for giving it the network,
   * never for running it unconfined. */
  if (decided && d.action == ZPERM_PROMPT && d.escalate_network && !d.escalate_unsandboxed &&
      (gm = zgrants_match_capability(e->grants, tool->name, "network"))) {
    /* the network was given to this tool's commands earlier in the run */
    zperm_decision g = make(ZPERM_ALLOW, "allowed", true, NULL,
                            "allowed with the network: approved earlier in this session");
    note_grant(&g, tool, gm);
    g.escalate_network = true;
    d = g;
  } else if ((!decided || d.action == ZPERM_PROMPT) && ntargets > 1 &&
             (gm = match_every_target(e->grants, tool->name, resolved, ntargets))) {
    /* a patch of several files: each is under a path grant (step 5 kept
     * every one inside the write roots) */
    d = make(ZPERM_ALLOW, "allowed", true, NULL, "allowed by path grants covering every file");
    note_grant(&d, tool, gm);
    decided = true;
  } else if ((!decided || d.action == ZPERM_PROMPT) && e->grants &&
             (gm = zgrants_match(e->grants, tool->name, target, (const char *const *)lines, nlines,
                                 true, d.escalate_unsandboxed))) {
    zperm_decision g = make(ZPERM_ALLOW, "allowed", true, NULL, "allowed by a saved grant");
    note_grant(&g, tool, gm);
    g.escalate_network = d.escalate_network;
    g.escalate_unsandboxed = d.escalate_unsandboxed;
    d = g;
    decided = true;
  }
  if (!decided) {
    switch (tool->side_effect) {
      case ZSIDE_NONE:
      case ZSIDE_READ:
        d = make(ZPERM_ALLOW, "allowed", true, NULL, "read-only tool");
        break;
      case ZSIDE_WRITE: /* 9. (step 5 refused a write outside the write roots) */
        if (e->mode == ZPERM_ASK)
          d = make(ZPERM_PROMPT, "needs_approval", true,
                   "the user can approve it, or rerun with --permission-mode accept-edits",
                   "file changes need approval in ask mode");
        else
          d = make(ZPERM_ALLOW, "allowed", true, NULL,
                   "file change inside the write roots allowed in %s mode",
                   zperm_mode_name(e->mode));
        break;
      case ZSIDE_NETWORK: /* 9b. not under network deny (6a), so the policy allows it */
        if (asks_first(e))
          d = make(ZPERM_PROMPT, "needs_approval", true,
                   "the user can approve it, or rerun with --permission-mode auto",
                   "network tools need approval in %s mode", zperm_mode_name(e->mode));
        else
          d = make(ZPERM_ALLOW, "allowed", true, NULL,
                   "network tool allowed: it runs in zero's own process and %s",
                   e->policy && e->policy->network ? "sandbox.network is allow"
                                                   : "sandbox.enforceToolNetwork is false");
        break;
      case ZSIDE_SHELL: /* 10. / 11. */
        if (!e->sandbox_active)
          d = make(ZPERM_PROMPT, "sandbox_unavailable", true,
                   "install bubblewrap or enable user namespaces (zero sandbox check says how), "
                   "or the user can rerun with --auto high to run commands unconfined",
                   "commands run only with approval because no OS sandbox is active here");
        else if (asks_first(e))
          d = make(ZPERM_PROMPT, "needs_approval", true,
                   "the user can approve it, or rerun with --permission-mode auto",
                   "commands need approval in %s mode", zperm_mode_name(e->mode));
        else
          d = make(ZPERM_ALLOW, "allowed", true, NULL,
                   "command allowed: it runs in the OS sandbox (workspace writes only, %s)",
                   e->policy && e->policy->network ? "network allowed" : "no network");
        break;
    }
  }
  targets_free(resolved, ntargets);
  if (lines) zsh_lines_free(lines, nlines);
  zsh_analysis_release(&an);
  json_decref(norm);
  return d;
}

json_t *zperm_block_json(const zperm_decision *d) {
  return json_pack("{s:s, s:s, s:b, s:s}", "code", d->code ? d->code : "denied", "reason",
                   d->reason, "recoverable", d->recoverable, "allow",
                   d->allow_hint ? d->allow_hint : "");
}

json_t *zperm_grant_json(const zperm_decision *d) {
  if (!d->grant_matched || !d->grant.kind) return NULL;
  json_t *g = json_pack("{s:s, s:s, s:s, s:s, s:s}", "tool", d->grant.tool ? d->grant.tool : "",
                        "kind", d->grant.kind, "action",
                        d->action == ZPERM_ALLOW ? "allow" : "deny", "scope",
                        d->grant.scope ? d->grant.scope : "always", "source", "saved");
  if (d->grant.value[0]) json_object_set_new(g, "value", json_string(d->grant.value));
  return g;
}

/* Words of a command line: true when line starts with the words of prefix. */
static bool starts_with_words(const char *line, const char *prefix) {
  size_t n = strlen(prefix);
  return n > 0 && !strncmp(line, prefix, n) && (line[n] == '\0' || line[n] == ' ');
}

/* The longest run of whole words all lines start with ("" when none). */
static void common_word_prefix(char *const *lines, size_t n, char *out, size_t cap) {
  out[0] = '\0';
  if (n == 0) return;
  size_t len = strlen(lines[0]);
  for (size_t i = 1; i < n; i++) {
    size_t k = 0;
    while (k < len && lines[i][k] && lines[i][k] == lines[0][k]) k++;
    len = k;
  }
  /* back off to a word boundary in every line */
  for (;;) {
    bool ok = true;
    for (size_t i = 0; i < n && ok; i++) ok = lines[i][len] == '\0' || lines[i][len] == ' ';
    if (ok || len == 0) break;
    while (len > 0 && lines[0][len - 1] != ' ') len--;
    if (len > 0) len--; /* drop the space */
  }
  while (len > 0 && lines[0][len - 1] == ' ') len--;
  if (len >= cap) len = 0;
  memcpy(out, lines[0], len);
  out[len] = '\0';
}

static bool suggest_grant(const zperm_engine *e, const ztool *tool, const json_t *args,
                          int *kind, char *value, size_t cap);

bool zperm_suggest_grant(const zperm_engine *e, const ztool *tool, const json_t *args,
                         int *kind, char *value, size_t cap) {
  json_t *norm = args ? json_deep_copy(args) : NULL;
  if (norm) ztool_normalize_args(tool, norm);
  bool ok = suggest_grant(e, tool, norm, kind, value, cap);
  json_decref(norm);
  return ok;
}

/* true when path lies in one of the run's write roots (the workspace, the
 * --add-dir directories), as given or as resolved. */
static bool in_write_root(const ztool_ctx *t, const char *path) {
  cleanup_free char *ws = zsb_resolve_path(t->workspace, NULL);
  if (zpath_is_within(t->workspace, path) || (ws && zpath_is_within(ws, path))) return true;
  for (size_t i = 0; i < t->n_add_dirs; i++) {
    cleanup_free char *d = zsb_resolve_path(t->add_dirs[i], NULL);
    if (zpath_is_within(t->add_dirs[i], path) || (d && zpath_is_within(d, path))) return true;
  }
  return false;
}

/* apply_patch has no path argument: its scope is derived from the files the
 * patch names (moves' destinations too), resolved — the one file, or the
 * deepest directory holding them all. A scope that is not inside a write
 * root (files in two roots have "/" in common) is no grant: only once. */
static bool patch_scope(const zperm_engine *e, const ztool *tool, const json_t *args, char *value,
                        size_t cap) {
  if (!e->tools || !e->tools->workspace) return false;
  size_t n = 0;
  char **targets = write_targets(tool, args, &n);
  zbuf common = ZBUF_INIT;
  bool ok = n > 0;
  for (size_t i = 0; ok && i < n; i++) {
    cleanup_free char *lex = ztool_resolve_path(e->tools, targets[i]);
    cleanup_free char *abs = zsb_resolve_path(lex, NULL);
    if (!abs) ok = false;
    else if (!i) zbuf_addstr(&common, abs);
    else if (strcmp(common.data, abs)) {
      /* cut to the longest prefix ending at a path boundary of both */
      size_t k = 0;
      while (k < common.len && common.data[k] == abs[k]) k++;
      bool boundary = (k == common.len || common.data[k] == '/') && (!abs[k] || abs[k] == '/');
      if (!boundary)
        while (k > 0 && common.data[k - 1] != '/') k--;
      while (k > 1 && common.data[k - 1] == '/') k--;
      zbuf_setlen(&common, k);
    }
  }
  ok = ok && common.len && common.len < cap && in_write_root(e->tools, common.data);
  if (ok) snprintf(value, cap, "%s", common.data);
  zbuf_release(&common);
  targets_free(targets, n);
  return ok;
}

static bool suggest_grant(const zperm_engine *e, const ztool *tool, const json_t *args,
                          int *kind, char *value, size_t cap) {
  value[0] = '\0';
  bool is_shell = tool->side_effect == ZSIDE_SHELL || tool->side_effect == ZSIDE_NETWORK;
  if (is_shell) {
    *kind = ZGRANT_PREFIX;
    const char *cmd = args ? zjson_str(args, "cmd") : NULL;
    if (!cmd && args) cmd = zjson_str(args, "command");
    if (!cmd) return false;
    zsh_analysis an;
    memset(&an, 0, sizeof an);
    zsh_analyze(cmd, e->offline, &an);
    size_t n = 0;
    char **lines = zsh_command_lines(&an, &n);
    bool ok = false;
    /* the model's own suggestion first (Go zero's prefix_rule: ["git","push"]) */
    const json_t *rule = args ? json_object_get(args, "prefix_rule") : NULL;
    if (json_is_array(rule) && json_array_size(rule) > 0 && n > 0) {
      zbuf b = ZBUF_INIT;
      size_t i;
      const json_t *w;
      json_array_foreach(rule, i, w) {
        if (!json_is_string(w) || !json_string_value(w)[0]) break;
        zbuf_addf(&b, "%s%s", i ? " " : "", json_string_value(w));
      }
      bool covers = i == json_array_size(rule) && b.len > 0 && b.len < cap;
      for (size_t k = 0; covers && k < n; k++) covers = starts_with_words(lines[k], b.data);
      if (covers) {
        snprintf(value, cap, "%s", b.data);
        ok = true;
      }
      zbuf_release(&b);
    }
    if (!ok && n == 1 && strlen(lines[0]) < cap) {
      snprintf(value, cap, "%s", lines[0]);
      ok = true;
    } else if (!ok && n > 1) {
      common_word_prefix(lines, n, value, cap);
      ok = value[0] != '\0';
    }
    if (lines) zsh_lines_free(lines, n);
    zsh_analysis_release(&an);
    *kind = ZGRANT_PREFIX;
    /* Never suggest what the store would refuse (a prefix on sh, env, find,
     * an interpreter, `git` alone …): only "once" is offered then. */
    char why[400];
    if (ok && zgrant_too_broad(ZGRANT_PREFIX, value, true, why, sizeof why)) {
      value[0] = '\0';
      ok = false;
    }
    return ok;
  }
  if (tool->side_effect == ZSIDE_WRITE && !strcmp(tool->name, "apply_patch")) {
    *kind = ZGRANT_PATH;
    return patch_scope(e, tool, args, value, cap);
  }
  if (tool->side_effect == ZSIDE_WRITE) {
    const char *p = args ? path_arg(args) : NULL;
    if (!p || !e->tools || !e->tools->workspace) return false;
    cleanup_free char *lex = ztool_resolve_path(e->tools, p);
    cleanup_free char *abs = zsb_resolve_path(lex, NULL);
    if (!abs || strlen(abs) >= cap) return false;
    snprintf(value, cap, "%s", abs);
    *kind = ZGRANT_PATH;
    return true;
  }
  *kind = ZGRANT_TOOL;
  return true;
}

ztool_escalation zperm_escalation(const zperm_decision *d) {
  ztool_escalation esc = {false, false};
  if (d->action == ZPERM_ALLOW) {
    esc.network = d->escalate_network;
    esc.unsandboxed = d->escalate_unsandboxed;
  }
  return esc;
}

/* Splits a comma/space list and checks every name is a built-in tool or a
 * plugin's (plugin_<id>_<tool>: the plugins load later in the run).
 * Calls fn for each; -1 with err on an unknown name. */
static int each_tool_name(const char *list, const char *flag, zerr *err,
                          void (*fn)(const char *name, void *ud), void *ud) {
  if (!list) return 0;
  const char *p = list;
  while (*p) {
    p += strspn(p, ", \t");
    size_t n = strcspn(p, ", \t");
    if (!n) break;
    char name[128];
    snprintf(name, sizeof name, "%.*s", (int)(n < sizeof name ? n : sizeof name - 1), p);
    if (!ztool_find(name) && strncmp(name, "plugin_", 7) != 0) {
      zbuf known = ZBUF_INIT;
      size_t cnt;
      const ztool *const *all = ztool_all(&cnt);
      for (size_t i = 0; i < cnt; i++) zbuf_addf(&known, "%s%s", i ? ", " : "", all[i]->name);
      zerr_set(err, ZE_USAGE,
               "%s: no built-in tool named \"%s\"; the tools are: %s (plugin tools are "
               "named plugin_<id>_<tool>; MCP tools are turned off per server in the MCP "
               "config)",
               flag, name, known.data ? known.data : "");
      zbuf_release(&known);
      return -1;
    }
    fn(name, ud);
    p += n;
  }
  return 0;
}

typedef struct name_list {
  char **v;
  size_t n;
} name_list;

static bool list_has(const name_list *l, const char *name) {
  for (size_t i = 0; i < l->n; i++)
    if (!strcmp(l->v[i], name)) return true;
  return false;
}

static void list_add(const char *name, void *ud) {
  name_list *l = ud;
  if (list_has(l, name)) return;
  l->v = xrealloc(l->v, (l->n + 2) * sizeof *l->v);
  l->v[l->n++] = xstrdup(name);
  l->v[l->n] = NULL;
}

char **zperm_tool_filter(const char *enabled, const char *disabled, zerr *err) {
  name_list on = {0}, off = {0};
  bool ok = each_tool_name(enabled, "--enabled-tools", err, list_add, &on) == 0 &&
            each_tool_name(disabled, "--disabled-tools", err, list_add, &off) == 0;
  if (ok && on.n) {
    size_t cnt;
    const ztool *const *all = ztool_all(&cnt);
    for (size_t i = 0; i < cnt; i++)
      if (!list_has(&on, all[i]->name)) list_add(all[i]->name, &off);
  }
  zperm_tool_list_free(on.v);
  if (!ok) {
    zperm_tool_list_free(off.v);
    return NULL;
  }
  return off.v;
}

void zperm_tool_list_free(char **list) {
  for (char **p = list; p && *p; p++) free(*p);
  free(list);
}

/* Whether entry of an allow-list names tool: the tool itself, or a prefix
 * of its name when entry ends with '*' ("mcp_github_*"). */
static bool allow_entry_names(const char *entry, const char *name) {
  size_t n = strlen(entry);
  if (n && entry[n - 1] == '*') return !strncmp(entry, name, n - 1);
  return !strcmp(entry, name);
}

bool zperm_tool_enabled(const zperm_engine *e, const char *name) {
  for (const char *const *t = e ? e->disabled_tools : NULL; t && *t; t++)
    if (!strcmp(*t, name)) return false;
  /* MCP tools only: the sub-agent tools follow the allow-list on their own
   * (subagent/runtime.h), and a swarm member's mailbox tools come with its
   * membership, not its definition */
  if (!e || !e->extra_allowed || strncmp(name, "mcp_", 4) != 0 || ztool_find(name)) return true;
  for (const char *const *t = e->extra_allowed; *t; t++)
    if (allow_entry_names(*t, name)) return true;
  return false;
}

bool zperm_tool_visible(zperm_mode mode, const ztool *tool) {
  return mode != ZPERM_PLAN || tool->read_only;
}
