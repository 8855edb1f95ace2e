/* recorder.h — the session recorder: a zsink that appends every message,
 * tool call, tool result, permission decision, usage report and error to the
 * session's events.jsonl as it happens (see session/store.h for the format).
 */
#ifndef ZERO_AGENT_RECORDER_H
#define ZERO_AGENT_RECORDER_H

#include <stdio.h>

#include "agent/events.h"
#include "session/store.h"

/* The recorder borrows the session. A failed append (disk full, I/O error) is
 * reported once on diag with what to do, and the run goes on; finish then
 * returns -1. */
zsink *zrecorder_new(zsession *session, FILE *diag);

#endif
