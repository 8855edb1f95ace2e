/* recorder.h — the session recorder: a zsink that appends every message,
 * tool call, tool result, permission decision, usage report and error to the
 * session's events.jsonl as it happens (see session/store.h for the format).
 */
#ifndef ZERO_AGENT_RECORDER_H
#define ZERO_AGENT_RECORDER_H

#include <stdio.h>

#include "agent/events.h"
#include "session/store.h"

/* The recorder borrows the session. A user message is made durable
 * (fdatasync) before the loop sends it, and so is each completed model turn.
 * A failed append or sync (disk full, I/O error) is reported once on diag
 * with what to do (diag may be NULL when the face reports the loop's error
 * itself); from then on check (zsink.check) fails with that error, so
 * the loop stops before sending or running anything the session would not
 * hold, and finish returns -1. */
zsink *zrecorder_new(zsession *session, FILE *diag);

#endif
