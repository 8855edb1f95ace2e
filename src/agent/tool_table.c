/* tool_table.c — see tool_table.h. */
#include "agent/tool_table.h"

#include <stdlib.h>
#include <string.h>

#include "base/common.h"

static const ztool_def *find(const ztool_table *t, const char *name) {
  for (size_t i = 0; name && i < t->spec->n; i++)
    if (!strcmp(t->spec->defs[i].name, name)) return &t->spec->defs[i];
  return NULL;
}

static bool offered(const ztool_table *t, const char *name) {
  return !t->spec->offered || t->spec->offered(t->ud, name);
}

static json_t *make_schemas(const ztool_table *t) {
  json_t *arr = json_array();
  for (size_t i = 0; i < t->spec->n; i++) {
    const ztool_def *d = &t->spec->defs[i];
    if (!offered(t, d->name)) continue;
    char *owned = NULL;
    const char *desc = d->description ? d->description : t->spec->describe(t->ud, d, &owned);
    json_t *params = json_loads(d->schema, 0, NULL);
    assert(params); /* the schemas are constants of the program */
    json_array_append_new(arr, json_pack("{s:s, s:s, s:o}", "name", d->name, "description",
                                         desc ? desc : "", "parameters", params));
    free(owned);
  }
  return arr;
}

static json_t *table_schemas(void *ud) {
  ztool_table *t = ud;
  if (!t->spec->once) return make_schemas(t);
  if (!t->schemas) t->schemas = make_schemas(t);
  return json_incref(t->schemas);
}

static bool table_has(void *ud, const char *name) {
  const ztool_table *t = ud;
  return find(t, name) && offered(t, name);
}

static const char *table_side_effect(void *ud, const char *name) {
  const ztool_def *d = find(ud, name);
  return d ? d->side_effect : NULL;
}

static void table_invoke(void *ud, struct zagent *a, const ztool_call *call, ztool_result *res) {
  ztool_table *t = ud;
  t->spec->invoke(t->ud, a, call, res);
}

ztool_source ztool_table_init(ztool_table *t, const ztool_table_spec *spec, void *ud) {
  *t = (ztool_table){.spec = spec, .ud = ud};
  return (ztool_source){.schemas = table_schemas,
                        .has = table_has,
                        .side_effect = table_side_effect,
                        .invoke = table_invoke,
                        .ud = t};
}

void ztool_table_release(ztool_table *t) {
  json_decref(t->schemas);
  t->schemas = NULL;
}
