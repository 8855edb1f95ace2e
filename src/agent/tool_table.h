/* tool_table.h — a fixed table of tools offered to the model as one tool
 * source (agent/loop.h ztool_source): zero exec's write_spec and
 * escalate_model, the sub-agents' task tools. The owner describes each tool
 * once (name, description, parameters as JSON text, side effect); the table
 * answers the source's schemas, has and side_effect from it and hands each
 * call to the owner's invoke. Sources whose tools come and go at run time
 * (MCP servers, plugins) keep their own.
 *
 *   static const ztool_def DEFS[] = {{"write_spec", "Write …", SCHEMA, "write"}};
 *   static const ztool_table_spec SPEC = {DEFS, ZARRAY_LEN(DEFS), .invoke = spec_invoke};
 *   sp->source = ztool_table_init(&sp->tools, &SPEC, sp);
 *   …
 *   ztool_table_release(&sp->tools);
 */
#ifndef ZERO_AGENT_TOOL_TABLE_H
#define ZERO_AGENT_TOOL_TABLE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "agent/loop.h"

typedef struct ztool_def {
  const char *name;
  const char *description; /* NULL: the spec's describe() gives it */
  const char *schema;      /* the parameters, a JSON object as text */
  const char *side_effect; /* for events: "read", "write", "shell", "none" */
} ztool_def;

typedef struct ztool_table_spec {
  const ztool_def *defs;
  size_t n;
  /* NULL: every tool is offered; else only the ones it says yes to. */
  bool (*offered)(void *ud, const char *name);
  /* The description of a def whose description is NULL; may set *owned to
   * a string the table frees after use. */
  const char *(*describe)(void *ud, const ztool_def *d, char **owned);
  /* Runs a call of one of the offered tools. */
  void (*invoke)(void *ud, struct zagent *a, const ztool_call *call, ztool_result *res);
  /* true: the schemas are made on the first request and reused (for a
   * describe() that is costly); false: made for every request. */
  bool once;
} ztool_table_spec;

typedef struct ztool_table {
  const ztool_table_spec *spec;
  void *ud;        /* the owner, handed to the spec's callbacks */
  json_t *schemas; /* spec->once: the schemas made on the first request */
} ztool_table;

/* Sets t up over spec (which must outlive it) and returns the source whose
 * ud is t: t must stay where it is while the source is in use. */
ztool_source ztool_table_init(ztool_table *t, const ztool_table_spec *spec, void *ud);

/* Frees what t made (the kept schemas); t may be set up again. */
void ztool_table_release(ztool_table *t);

#endif
