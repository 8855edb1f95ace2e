/* subagent_view.h — a sub-agent under its task card in the TUI.
 *
 * While a `task` call runs, its card shows the child's steps as rows under
 * it (the card's live text, drawn like a command's live output): each tool
 * call of the child with its summary, marked ✓ / ✗ when its result comes,
 * "waiting for your approval" while the parent's user is asked on its
 * behalf (subagent/relay.h), and the child's end. Once the call is done,
 * its committed card gets one line with the child's final state (its
 * specialist, status, tool calls, tokens and session id) from the result's
 * meta. */
#ifndef ZERO_UI_TUI_SUBAGENT_VIEW_H
#define ZERO_UI_TUI_SUBAGENT_VIEW_H

#include <jansson.h>

#include "agent/events.h"
#include "ui/tui/app.h"

/* Folds a ZAEV_SUBAGENT_START / _EVENT / _END into c, the card of the task
 * call it belongs to: c->live gets the child's steps (the newest last). */
void tui_subagent_fold(tui_card *c, const zagent_event *ev);

/* The final-state line of a finished task call (its result's meta: agent,
 * status, toolCalls, usage, sessionId), pushed to out; nothing without
 * meta. */
void tui_subagent_summary(const json_t *meta, const tui_theme *th, int width, tw_lines *out);

#endif
