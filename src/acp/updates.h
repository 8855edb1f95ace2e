/* updates.h — how the agent loop's events look to an ACP client: the
 * `session/update` payloads for a zagent_event, and the permission
 * request's options. Mappings with no I/O but one read: an apply_patch
 * call's diff shows the whole file before and after, so the files it
 * updates or deletes are read (inside the workspace, up to 1 MiB, never a
 * file the run's read guard denies: then the diff shows the patch's own
 * lines).
 *
 *   ZAEV_TEXT        → agent_message_chunk
 *   ZAEV_REASONING   → agent_thought_chunk
 *   ZAEV_TOOL_CALL   → tool_call (kind, title, locations; a diff for
 *                      edit_file / write_file, one per file for
 *                      apply_patch), and a plan for update_plan
 *   ZAEV_TOOL_RESULT → tool_call_update (completed / failed, the output)
 *   everything else  → nothing (the session recorder keeps it)
 */
#ifndef ZERO_ACP_UPDATES_H
#define ZERO_ACP_UPDATES_H

#include <jansson.h>

#include "agent/events.h"
#include "provider/message.h"
#include "tools/tool.h"

/* The ACP tool kind of a zero tool ("read", "edit", "search", "execute",
 * "fetch", "think", "other"). */
const char *zacp_tool_kind(const char *tool_name);

/* The `update` objects (each with "sessionUpdate") ev stands for, in order:
 * a new JSON array, empty when the client has nothing to see. The run's
 * tools context: its workspace resolves the relative paths of a call's
 * arguments (ACP paths are absolute), its read guard keeps denied files
 * out of a diff. */
json_t *zacp_updates_for_event(const zagent_event *ev, const ztool_ctx *tools);

/* The tool_call object (without "sessionUpdate") for a call with raw
 * arguments: toolCallId, title, kind, status "pending", rawInput, locations,
 * content (the diff of an edit). New reference. */
json_t *zacp_tool_call_json(const char *id, const char *name, const char *arguments,
                            const ztool_ctx *tools);

/* The updates a saved conversation replays on session/load: user text as
 * user_message_chunk, assistant text and thoughts, each tool call and its
 * result. New JSON array. */
json_t *zacp_updates_for_history(const zconv *conv, const ztool_ctx *tools);

#endif
