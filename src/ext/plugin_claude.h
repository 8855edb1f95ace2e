/* plugin_claude.h — Claude Code's plugin layout, read as a Go zero manifest.
 *
 * A Claude Code plugin keeps its manifest in .claude-plugin/plugin.json
 * ({"name", "version", "description", "commands", "skills", "hooks",
 * "mcpServers"}) and its parts in default places: commands/, skills/,
 * hooks/hooks.json ({"hooks": {"PreToolUse": [...]}}), .mcp.json
 * ({"mcpServers": {...}}); "hooks" and "mcpServers" may also be inline
 * objects or paths, "commands" and "skills" extra folders. Its hooks and
 * servers name files as ${CLAUDE_PLUGIN_ROOT}/…, replaced by the folder.
 * It has no tools of its own.
 */
#ifndef ZERO_EXT_PLUGIN_CLAUDE_H
#define ZERO_EXT_PLUGIN_CLAUDE_H

#include <jansson.h>

#include "base/strvec.h"

/* The Go zero manifest ({"schemaVersion": 1, "id": name, …}) of the Claude
 * Code plugin in dir, or NULL when dir has no .claude-plugin/plugin.json
 * (or it is malformed: a problem names it). Parts that do not load are
 * problems; the rest loads. New reference. */
json_t *zplugin_claude_manifest(const char *dir, strvec *problems);

#endif
