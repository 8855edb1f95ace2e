/* tool.c — the language servers in the agent loop: the `diagnostics` tool
 * (a tool source, agent/loop.h) and the after-edit / before-final checks
 * (zagent_checks). See agent.h. */
#include "lsp/agent.h"

#include <string.h>

#include "base/common.h"
#include "base/json.h"

static const char diagnostics_schema[] =
    "{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\",\"description\":"
    "\"The file to check (relative to the workspace, or absolute).\"}},"
    "\"required\":[\"path\"],\"additionalProperties\":false}";

static bool tool_disabled(const zagent *a) {
  for (const char *const *t = a->perm ? a->perm->disabled_tools : NULL; t && *t; t++)
    if (!strcmp(*t, ZLSP_TOOL)) return true;
  return false;
}

static json_t *diag_schemas(void *ud) {
  zlsp_agent *g = ud;
  if (!zlsp_any_available(g->lsp)) return json_array();
  return json_pack("[{s:s, s:s, s:o}]", "name", ZLSP_TOOL, "description",
                   "The current errors and warnings a language server (clangd, pyright, …) "
                   "reports for one file, with line and column. Edits already report the "
                   "errors they introduce; use this to see a file's problems before editing "
                   "it, or after changing it with a command.",
                   "parameters", json_loads(diagnostics_schema, 0, NULL));
}

static bool diag_has(void *ud, const char *name) {
  zlsp_agent *g = ud;
  return !strcmp(name, ZLSP_TOOL) && zlsp_any_available(g->lsp);
}

static const char *diag_side_effect(void *ud, const char *name) {
  (void)ud;
  (void)name;
  return "read";
}

static void diag_invoke(void *ud, zagent *a, const ztool_call *call, ztool_result *res) {
  zlsp_agent *g = ud;
  if (tool_disabled(a)) {
    ztool_fail(res, "the %s tool is disabled for this run (--disabled-tools)", ZLSP_TOOL);
    return;
  }
  json_t *args =
      json_loads(call->arguments && call->arguments[0] ? call->arguments : "{}", 0, NULL);
  const char *path = zjson_str(args, "path");
  if (!json_is_object(args) || !path || !*path) {
    ztool_fail(res, "%s needs {\"path\": \"<file>\"}", ZLSP_TOOL);
    json_decref(args);
    return;
  }
  const ztool_ctx *ctx = a->tools;
  cleanup_free char *abs = ctx ? ztool_resolve_path(ctx, path) : xstrdup(path);
  json_decref(args);
  /* What read_file may not read, the language server is not shown either. */
  if (ctx && ctx->read_guard.denied && ctx->read_guard.denied(ctx->read_guard.ud, abs)) {
    ztool_fail(res, "%s: reading this path is denied by the sandbox policy", path);
    return;
  }
  zerr err = ZERR_INIT;
  if (zlsp_file_diagnostics(g->lsp, abs, &res->output, &err) < 0)
    ztool_fail(res, "diagnostics unavailable: %s", err.msg);
}

static void after_edit(void *ud, const json_t *files, ztool_result *res) {
  zlsp_agent *g = ud;
  zlsp_after_edit(g->lsp, files, &res->output);
}

static char *before_final(void *ud) {
  zlsp_agent *g = ud;
  return zlsp_final_check(g->lsp);
}

void zlsp_agent_init(zlsp_agent *g, zlsp *lsp) {
  memset(g, 0, sizeof *g);
  g->lsp = lsp;
  g->source = (ztool_source){.schemas = diag_schemas,
                             .has = diag_has,
                             .side_effect = diag_side_effect,
                             .invoke = diag_invoke,
                             .ud = g};
  g->checks = (zagent_checks){.after_edit = after_edit, .before_final = before_final, .ud = g};
}
