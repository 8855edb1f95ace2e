/* message.h — the structured conversation every provider renders into its
 * own wire format, and the session store replays from disk.
 *
 * The system prompt is not a message: it travels separately in the request.
 */
#ifndef ZERO_PROVIDER_MESSAGE_H
#define ZERO_PROVIDER_MESSAGE_H

#include <stddef.h>

typedef enum zrole { ZROLE_USER, ZROLE_ASSISTANT, ZROLE_TOOL } zrole;

typedef struct ztool_call {
  char *id;        /* provider-assigned call id */
  char *name;      /* tool name */
  char *arguments; /* raw JSON text as the model produced it (may be invalid) */
} ztool_call;

typedef struct zmsg {
  zrole role;
  char *content;         /* user / assistant text, tool output; may be NULL */
  char *reasoning;       /* assistant reasoning text; may be NULL */
  ztool_call *calls;     /* assistant tool calls */
  size_t ncalls;
  char *tool_call_id;    /* role == ZROLE_TOOL: the call this answers */
  char *tool_name;       /* role == ZROLE_TOOL */
  int is_error;          /* role == ZROLE_TOOL: the tool failed */
} zmsg;

typedef struct zconv {
  zmsg *items;
  size_t len, cap;
} zconv;

#define ZCONV_INIT { NULL, 0, 0 }

/* All adders copy their string arguments. They return the new message,
 * valid until the next add. */
zmsg *zconv_add_user(zconv *c, const char *text);
zmsg *zconv_add_assistant(zconv *c, const char *text, const char *reasoning);
/* Appends a call to assistant message m (copies the strings). */
void zmsg_add_call(zmsg *m, const char *id, const char *name, const char *arguments);
zmsg *zconv_add_tool_result(zconv *c, const char *call_id, const char *name,
                            const char *output, int is_error);
zmsg *zconv_last(zconv *c);
void zconv_release(zconv *c);

#endif
