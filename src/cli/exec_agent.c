/* exec_agent.c — `zero exec --agent NAME`; see exec_agent.h. */
#include "cli/exec_agent.h"

#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/common.h"
#include "base/strvec.h"
#include "mcp/mcp.h"
#include "subagent/child.h"
#include "tools/tool.h"

/* a->tools_off plus every built-in tool the allow-list leaves out. */
static int narrow_tools(zexec_args *a, const zsub_def *d, zerr *err) {
  if (!d->tools) return 0;
  zbuf off = ZBUF_INIT;
  size_t n;
  const ztool *const *all = ztool_all(&n);
  for (size_t i = 0; i < n; i++)
    if (!zsub_def_allows(d, all[i]->name))
      zbuf_addf(&off, "%s%s", off.len ? "," : "", all[i]->name);
  for (char **t = a->tools_off; t && *t; t++) zbuf_addf(&off, "%s%s", off.len ? "," : "", *t);
  int rc = 0;
  if (off.len) {
    err->msg[0] = '\0';
    char **list = zperm_tool_filter(NULL, off.data, err);
    if (!list && err->msg[0]) rc = -1;
    else {
      zperm_tool_list_free(a->tools_off);
      a->tools_off = list;
    }
  }
  zbuf_release(&off);
  return rc;
}

/* One allow-list entry in zero's tool names (see zexec_agent.allowed). */
static char *zero_tool_name(const char *entry) {
  if (strncmp(entry, "mcp__", 5) != 0) return xstrdup(entry);
  const char *server = entry + 5, *sep = strstr(server, "__");
  cleanup_free char *srv = xstrndup(server, sep ? (size_t)(sep - server) : strlen(server));
  if (sep && strcmp(sep + 2, "*") != 0) return zmcp_tool_name(srv, sep + 2);
  cleanup_free char *prefix = zmcp_tool_name(srv, ""); /* "mcp_S_" */
  zbuf b = ZBUF_INIT;
  zbuf_addf(&b, "%s*", prefix);
  return zbuf_detach(&b, NULL);
}

int zexec_agent_apply(zexec_args *a, const char *workspace, zperm_mode *mode, zexec_agent *out,
                      zerr *err) {
  memset(out, 0, sizeof *out);
  out->needs_mcp = true;
  if (!a->agent) return 0;
  zsub_defs_load(&out->defs, workspace);
  const zsub_def *d = zsub_defs_find(&out->defs, a->agent);
  if (!d) return zerr_set(err, ZE_USAGE, "unknown agent \"%s\"; see zero agents list", a->agent);
  if (d->error)
    return zerr_set(err, ZE_USAGE, "agent \"%s\" (%s) cannot be used: %s", d->name, d->source,
                    d->error);
  out->def = d;
  if (narrow_tools(a, d, err) < 0) return -1;
  strvec sub = STRVEC_INIT;
  out->needs_mcp = !d->tools;
  for (char **t = d->tools; t && *t; t++) {
    if (zsub_tool_name(*t)) strvec_push(&sub, *t);
    if (!strncmp(*t, "mcp_", 4)) out->needs_mcp = true; /* mcp__… or zero's mcp_… */
  }
  out->sub_tools = strvec_detach(&sub);
  if (d->tools) {
    strvec names = STRVEC_INIT;
    for (char **t = d->tools; *t; t++) strvec_push_nodup(&names, zero_tool_name(*t));
    out->allowed = strvec_detach(&names);
  }
  if (!a->model && d->model) a->model = d->model;
  if (!a->reasoning_effort && d->reasoning_effort) a->reasoning_effort = d->reasoning_effort;
  *mode = zsub_child_mode(*mode, d->permission_mode);
  return 0;
}

char *zexec_agent_prompt(const zexec_agent *ag, const char *system_prompt) {
  if (!ag->def || !ag->def->prompt || !ag->def->prompt[0]) return NULL;
  zbuf b = ZBUF_INIT;
  zbuf_addf(&b, "%s\n\n# Your role: the %s sub-agent\n\n%s", system_prompt ? system_prompt : "",
            ag->def->name, ag->def->prompt);
  return zbuf_detach(&b, NULL);
}

void zexec_agent_release(zexec_agent *ag) {
  strvec_free_array(ag->sub_tools);
  strvec_free_array(ag->allowed);
  zsub_defs_release(&ag->defs);
  memset(ag, 0, sizeof *ag);
}
