/* prompt.c — the one prompt flow; see prompt.h. */
#include "perm/prompt.h"

#include <stdio.h>
#include <string.h>

#include "base/common.h"

void zperm_prompt_request(const zperm_engine *e, const ztool *tool, const json_t *args,
                          const zperm_decision *d, zapproval_request *req, char *value,
                          size_t cap) {
  int kind = ZGRANT_TOOL;
  bool can = zperm_suggest_grant(e, tool, args, &kind, value, cap);
  req->tool = tool;
  req->code = d->code;
  req->reason = d->reason;
  req->escalate_network = d->escalate_network;
  req->escalate_unsandboxed = d->escalate_unsandboxed;
  req->can_remember = can;
  req->grant_kind = kind;
  req->grant_tool = tool->name;
  req->grant_value = can ? value : "";
}

static void warn(const zperm_face *face, const char *code, const char *msg) {
  if (face && face->warn) face->warn(face->warn_ud, code, msg);
}

/* An MCP tool's session / always answer: an MCP grant (allow only; a denial
 * is for this call). */
static json_t *remember_mcp(const zperm_face *face, zgrants *grants,
                            const zapproval_request *req, const zapproval *ans) {
  if (ans->action != ZPERM_ALLOW) return NULL;
  zerr err = ZERR_INIT;
  if (zgrants_mcp_remember(grants, req->mcp_server, req->mcp_tool, (zgrant_scope)ans->scope,
                           &err) < 0) {
    char msg[1400];
    snprintf(msg, sizeof msg,
             "the grant was kept for this session only: %s. Check that ~/.config/zero is "
             "writable, or add it later with zero mcp grant %s %s",
             err.msg, req->mcp_server, req->mcp_tool);
    warn(face, "grant_not_saved", msg);
  }
  return json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s}", "tool", req->grant_tool, "kind",
                   "tool", "action", "allow", "scope",
                   ans->scope == ZGRANT_ALWAYS ? "always" : "session", "source", "user",
                   "server", req->mcp_server, "serverTool", req->mcp_tool);
}

/* A built-in tool's session / always answer: a grant of the kind the request
 * suggested. */
static json_t *remember_builtin(const zperm_face *face, zgrants *grants,
                                const zapproval_request *req, const zapproval *ans) {
  bool allow = ans->action == ZPERM_ALLOW;
  zgrant_kind kind = (zgrant_kind)req->grant_kind;
  const char *value = kind == ZGRANT_TOOL ? NULL : req->grant_value;
  zerr err = ZERR_INIT;
  int rc = zgrants_remember(grants, req->grant_tool, kind, value, allow,
                            (zgrant_scope)ans->scope, allow && req->escalate_unsandboxed, &err);
  /* A command approved to run with the network: the capability is the
   * user's answer too (as Go zero reuses the approval), for this session. */
  if (allow && req->escalate_network && !req->escalate_unsandboxed)
    zgrants_add(grants, req->grant_tool, ZGRANT_CAPABILITY, "network", true, ZGRANT_SESSION);
  if (rc < 0 && err.kind == ZE_USAGE) {
    warn(face, "grant_too_broad", err.msg);
    return NULL; /* answered for this call only */
  }
  if (rc < 0) {
    char msg[1400];
    snprintf(msg, sizeof msg,
             "the grant was kept for this session only: %s. Check that ~/.config/zero is "
             "writable, or add it later with zero sandbox grants %s",
             err.msg, allow ? "allow" : "deny");
    warn(face, "grant_not_saved", msg);
  }
  json_t *g = json_pack("{s:s, s:s, s:s, s:s, s:s}", "tool", req->grant_tool, "kind",
                        zgrant_kind_name(kind), "action", allow ? "allow" : "deny", "scope",
                        zgrant_scope_name((zgrant_scope)ans->scope), "source", "user");
  if (value && value[0]) json_object_set_new(g, "value", json_string(value));
  return g;
}

/* Headless: nobody can answer, so the prompt is a denial that says what
 * would allow the call. */
static void deny_headless(const zperm_face *face, zperm_decision *d) {
  d->action = ZPERM_DENY;
  const char *hint = d->allow_hint ? d->allow_hint : "";
  size_t l = strlen(d->reason);
  snprintf(d->reason + l, sizeof d->reason - l,
           "; this call needs approval and %s has no interactive approver%s%s%s",
           face && face->name ? face->name : "this run", hint[0] ? " (" : "", hint,
           hint[0] ? ")" : "");
}

json_t *zperm_prompt_resolve(const zperm_face *face, zgrants *grants,
                             const zapproval_request *req, zperm_decision *d) {
  if (d->action != ZPERM_PROMPT) return NULL;
  if (!face || !face->approve) {
    deny_headless(face, d);
    return NULL;
  }
  zapproval ans = face->approve(face->approve_ud, req);
  d->action = ans.action == ZPERM_ALLOW ? ZPERM_ALLOW : ZPERM_DENY;
  if (d->action == ZPERM_ALLOW) {
    snprintf(d->reason, sizeof d->reason, "%s", "approved by the user");
  } else {
    snprintf(d->reason, sizeof d->reason, "%s",
             ans.note && ans.note[0] ? ans.note : "denied by the user");
    d->code = "user_denied";
    d->allow_hint = "";
    d->recoverable = true;
  }
  ans.action = d->action;
  bool remember = (ans.scope == ZGRANT_SESSION || ans.scope == ZGRANT_ALWAYS) &&
                  req->can_remember && grants && req->grant_tool;
  if (!remember) return NULL; /* once (or nothing narrow enough to remember) */
  return req->mcp_server ? remember_mcp(face, grants, req, &ans)
                         : remember_builtin(face, grants, req, &ans);
}
