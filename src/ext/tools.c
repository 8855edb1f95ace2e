/* tools.c — the skill tool and plugin tools; see tools.h. */
#include "ext/tools.h"

#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/common.h"
#include "base/json.h"
#include "ext/ext.h"
#include "ext/hook_run.h"

#define SKILL_TOOL "skill"

static json_t *skill_schema(void) {
  return json_pack("{s:s, s:s, s:{s:s, s:{s:{s:s, s:s}}, s:[s], s:b}}", "name", SKILL_TOOL,
                   "description",
                   "Load a skill's instructions (listed under Skills in the system prompt) "
                   "before doing the task it covers. Returns its SKILL.md and its folder, "
                   "whose other files you can read with read_file.",
                   "parameters", "type", "object", "properties", "name", "type", "string",
                   "description", "the skill's name", "required", "name",
                   "additionalProperties", false);
}

/* Made on the first request and handed out by reference after: the skills
 * and plugins do not change during a run, and re-packing every plugin's
 * schema each turn was work for nothing. */
static json_t *src_schemas(void *ud) {
  zext *x = ud;
  if (x->schemas) return json_incref(x->schemas);
  json_t *all = json_array();
  if (x->skills.n) json_array_append_new(all, skill_schema());
  for (size_t i = 0; i < x->plugins.n; i++) {
    const zplugin *p = &x->plugins.v[i];
    for (size_t j = 0; p->enabled && j < p->ntools; j++)
      json_array_append_new(all, json_pack("{s:s, s:s, s:O}", "name", p->tools[j].name,
                                           "description", p->tools[j].description,
                                           "parameters", p->tools[j].schema));
  }
  x->schemas = all;
  return json_incref(all);
}

static const zplugin_tool *find_plugin_tool(const zext *x, const char *name) {
  for (size_t i = 0; i < x->plugins.n; i++) {
    const zplugin *p = &x->plugins.v[i];
    for (size_t j = 0; p->enabled && j < p->ntools; j++)
      if (!strcmp(p->tools[j].name, name)) return &p->tools[j];
  }
  return NULL;
}

static bool src_has(void *ud, const char *name) {
  zext *x = ud;
  return (x->skills.n && !strcmp(name, SKILL_TOOL)) || find_plugin_tool(x, name);
}

static const char *src_side(void *ud, const char *name) {
  (void)ud;
  return !strcmp(name, SKILL_TOOL) ? "read" : "shell";
}

static void run_skill(zext *x, const ztool_call *call, ztool_result *res) {
  json_t *args = json_loads(call->arguments && *call->arguments ? call->arguments : "{}", 0, NULL);
  const char *name = zjson_str(args, "name");
  const zskill *s = zskills_find(&x->skills, name);
  if (!s) {
    ztool_fail(res, "skill: no skill named \"%s\"; the Skills list in the system prompt names "
                    "the ones there are", name ? name : "");
    json_decref(args);
    return;
  }
  zerr err = ZERR_INIT;
  char *body = zskill_body(s, &err);
  if (!body) ztool_fail(res, "skill %s: %s", s->name, err.msg);
  else zbuf_addf(&res->output, "Skill: %s\nFolder: %s\n\n%s", s->name, s->dir, body);
  free(body);
  json_decref(args);
}

/* A plugin tool the permission engine allowed (as its stand-in, a sandboxed
 * command: src_perm_tool) runs confined like any tool command, with the
 * executable the user pinned at enable time. */
static void run_plugin_tool(zext *x, zagent *a, const zplugin_tool *t, const ztool_call *call,
                            ztool_result *res) {
  if (t->refused) {
    ztool_fail(res, "%s refused: %s", t->name, t->refused);
    return;
  }
  /* The plugin's own folder stays readable where the sandbox hides the
   * host's copy (its private /tmp): the user's enable vouched for it. */
  const char *own[] = {t->dir, NULL};
  zhook h = {.id = t->name, .event = "tool", .argv = t->argv, .timeout_ms = t->timeout_ms,
             .source = t->name, .read_paths = own};
  zhook_outcome o;
  const char *in = call->arguments && *call->arguments ? call->arguments : "{}";
  zext_run_confined(x, &h, in, &o);
  zbuf_addstr(&res->output, o.output);
  if (o.failed) {
    res->is_error = true;
    zbuf_addf(&res->output, "%s[%s]", res->output.len ? "\n" : "",
              o.reason ? o.reason : "the tool failed");
  }
  zhook_outcome_release(&o);
}

static void src_invoke(void *ud, zagent *a, const ztool_call *call, ztool_result *res) {
  zext *x = ud;
  if (!strcmp(call->name, SKILL_TOOL)) {
    run_skill(x, call, res);
    return;
  }
  const zplugin_tool *t = find_plugin_tool(x, call->name);
  if (!t) ztool_fail(res, "unknown tool %s", call->name);
  else run_plugin_tool(x, a, t, call, res);
}

/* The skill tool reads a file zero already listed: a read. */
static const ztool SKILL_PERM = {.name = SKILL_TOOL,
                                 .description = "load a skill",
                                 .parameters_json = "{}",
                                 .side_effect = ZSIDE_READ,
                                 .read_only = true};

/* Every call of this source is decided by the permission engine (the one
 * permission module), as the stand-in of its tool. */
static const ztool *src_perm_tool(void *ud, const char *name) {
  zext *x = ud;
  if (!strcmp(name, SKILL_TOOL)) return &SKILL_PERM;
  const zplugin_tool *t = find_plugin_tool(x, name);
  return t ? &t->perm : NULL;
}

void zext_tools_init(zext *x) {
  x->source = (ztool_source){.schemas = src_schemas,
                             .has = src_has,
                             .side_effect = src_side,
                             .invoke = src_invoke,
                             .perm_tool = src_perm_tool,
                             .ud = x};
  zext_gate_init(x);
}
