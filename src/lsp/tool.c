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

static const char nav_schema[] =
    "{\"type\":\"object\",\"properties\":{"
    "\"operation\":{\"type\":\"string\",\"enum\":[\"definition\",\"references\",\"hover\","
    "\"symbols\"]},"
    "\"path\":{\"type\":\"string\",\"description\":\"The file (relative to the workspace, or "
    "absolute).\"},"
    "\"line\":{\"type\":\"integer\",\"description\":\"1-based line of the symbol (not for "
    "symbols).\"},"
    "\"column\":{\"type\":\"integer\",\"description\":\"1-based column of the symbol (not for "
    "symbols).\"}},"
    "\"required\":[\"operation\",\"path\"],\"additionalProperties\":false}";

static bool tool_disabled(const zagent *a, const char *name) {
  for (const char *const *t = a->perm ? a->perm->disabled_tools : NULL; t && *t; t++)
    if (!strcmp(*t, name)) return true;
  return false;
}

static json_t *diag_schemas(void *ud) {
  zlsp_agent *g = ud;
  if (!zlsp_tools_relevant(g->lsp)) return json_array();
  return json_pack("[{s:s, s:s, s:o}, {s:s, s:s, s:o}]", "name", ZLSP_NAV_TOOL, "description",
                   "Ask the language server: where a symbol is defined (definition), where it "
                   "is used (references), its type and documentation (hover), all at line and "
                   "column; or a file's outline of functions, types and variables (symbols).",
                   "parameters", json_loads(nav_schema, 0, NULL), "name", ZLSP_TOOL, "description",
                   "The current errors and warnings a language server (clangd, pyright, …) "
                   "reports for one file, with line and column. Edits already report the "
                   "errors they introduce; use this to see a file's problems before editing "
                   "it, or after changing it with a command.",
                   "parameters", json_loads(diagnostics_schema, 0, NULL));
}

static bool diag_has(void *ud, const char *name) {
  zlsp_agent *g = ud;
  return (!strcmp(name, ZLSP_TOOL) || !strcmp(name, ZLSP_NAV_TOOL)) && zlsp_tools_relevant(g->lsp);
}

static const char *diag_side_effect(void *ud, const char *name) {
  (void)ud;
  (void)name;
  return "read";
}

/* The call's arguments and the absolute path they name, or NULL with res
 * failed (malformed, no path, a path the sandbox denies reading: what
 * read_file may not read, the language server is not shown either). */
static json_t *call_args(const zagent *a, const ztool_call *call, char **abs, ztool_result *res) {
  json_t *args =
      json_loads(call->arguments && call->arguments[0] ? call->arguments : "{}", 0, NULL);
  const char *path = zjson_str(args, "path");
  if (!json_is_object(args) || !path || !*path) {
    ztool_fail(res, "%s needs {\"path\": \"<file>\"}", call->name);
    json_decref(args);
    return NULL;
  }
  const ztool_ctx *ctx = a->tools;
  *abs = ctx ? ztool_resolve_path(ctx, path) : xstrdup(path);
  if (ctx && ctx->read_guard.denied && ctx->read_guard.denied(ctx->read_guard.ud, *abs)) {
    ztool_fail(res, "%s: reading this path is denied by the sandbox policy", path);
    free(*abs);
    *abs = NULL;
    json_decref(args);
    return NULL;
  }
  return args;
}

static void diag_invoke(void *ud, zagent *a, const ztool_call *call, ztool_result *res) {
  zlsp_agent *g = ud;
  if (tool_disabled(a, call->name)) {
    ztool_fail(res, "the %s tool is disabled for this run (--disabled-tools)", call->name);
    return;
  }
  cleanup_free char *abs = NULL;
  json_t *args = call_args(a, call, &abs, res);
  if (!args) return;
  zerr err = ZERR_INIT;
  if (!strcmp(call->name, ZLSP_TOOL)) {
    if (zlsp_file_diagnostics(g->lsp, abs, &res->output, &err) < 0)
      ztool_fail(res, "diagnostics unavailable: %s", err.msg);
  } else if (zlsp_query(g->lsp, zjson_str_or(args, "operation", ""), abs,
                        (int)zjson_int_or(args, "line", 0), (int)zjson_int_or(args, "column", 0),
                        &res->output, &err) < 0) {
    ztool_fail(res, "%s: %s", ZLSP_NAV_TOOL, err.msg);
  }
  json_decref(args);
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
