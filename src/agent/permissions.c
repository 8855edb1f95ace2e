/* permissions.c — allow / prompt / deny per tool call; see permissions.h. */
#include "agent/permissions.h"

#include <string.h>

int zperm_mode_parse(const char *s, zperm_mode *out, zerr *err) {
  if (!strcmp(s, "ask")) *out = ZPERM_ASK;
  else if (!strcmp(s, "auto") || !strcmp(s, "member") || !strcmp(s, "member-auto"))
    *out = ZPERM_AUTO;
  else if (!strcmp(s, "unsafe") || !strcmp(s, "full-auto") || !strcmp(s, "full_auto") ||
           !strcmp(s, "high"))
    *out = ZPERM_UNSAFE;
  else if (!strcmp(s, "plan")) *out = ZPERM_PLAN;
  else
    return zerr_set(err, ZE_USAGE,
                    "Invalid permission mode \"%s\". Expected ask, auto, unsafe or plan.", s);
  return 0;
}

int zautonomy_parse(const char *s, zautonomy *out, zerr *err) {
  if (!strcmp(s, "low")) *out = ZAUTO_LOW;
  else if (!strcmp(s, "medium")) *out = ZAUTO_MEDIUM;
  else if (!strcmp(s, "high")) *out = ZAUTO_HIGH;
  else
    return zerr_set(err, ZE_USAGE,
                    "Invalid autonomy level \"%s\". Expected low, medium, or high.", s);
  return 0;
}

const char *zperm_mode_name(zperm_mode m) {
  switch (m) {
    case ZPERM_ASK: return "ask";
    case ZPERM_AUTO: return "auto";
    case ZPERM_UNSAFE: return "unsafe";
    case ZPERM_PLAN: return "plan";
  }
  return "auto";
}

const char *zautonomy_name(zautonomy a) {
  switch (a) {
    case ZAUTO_LOW: return "low";
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

zperm_decision zperm_decide(zperm_mode mode, const ztool *tool) {
  zperm_decision d = {ZPERM_ALLOW, "allowed"};
  if (mode == ZPERM_UNSAFE) {
    d.reason = "unsafe mode: every tool is allowed";
    return d;
  }
  if (mode == ZPERM_PLAN) {
    if (tool->read_only) {
      d.reason = "read-only tool allowed in plan mode";
      return d;
    }
    d.action = ZPERM_DENY;
    d.reason = "plan mode is read-only: only tools that do not change anything may run. "
               "Describe the change instead; the user can rerun with --permission-mode auto to "
               "apply it.";
    return d;
  }
  switch (tool->side_effect) {
    case ZSIDE_NONE:
    case ZSIDE_READ:
      d.reason = "read-only tool";
      return d;
    case ZSIDE_SHELL:
    case ZSIDE_NETWORK:
      d.action = ZPERM_DENY;
      d.reason = "running commands needs the OS sandbox, which this build does not have yet; "
                 "commands run only when the user passes --auto high or "
                 "--skip-permissions-unsafe. Continue with the file tools, or tell the user "
                 "which command to run.";
      return d;
    case ZSIDE_WRITE:
      if (mode == ZPERM_ASK) {
        d.action = ZPERM_PROMPT;
        d.reason = "file changes need approval in ask mode";
        return d;
      }
      d.reason = "file change inside the workspace allowed in auto mode";
      return d;
  }
  return d;
}

bool zperm_tool_visible(zperm_mode mode, const ztool *tool) {
  return mode != ZPERM_PLAN || tool->read_only;
}
