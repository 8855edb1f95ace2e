/* tools.h — the tools extensions offer the model, as one ztool_source
 * (agent/loop.h) beside MCP's: `skill` (loads a skill's instructions) when
 * skills exist, and each enabled plugin's tools (plugin_<id>_<tool>), which
 * take their arguments as JSON on stdin and run with a direct argv through
 * the run's spawner (sandboxed; never a shell). Internal to src/ext. */
#ifndef ZERO_EXT_TOOLS_H
#define ZERO_EXT_TOOLS_H

struct zext;

/* Fills x->source and x->gate (zext_load calls it). */
void zext_tools_init(struct zext *x);
/* Fills x->gate (ext.c). */
void zext_gate_init(struct zext *x);

#endif
