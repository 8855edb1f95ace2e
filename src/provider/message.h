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
  char *signature; /* opaque thought signature (Gemini), sent back as is; may be NULL */
} ztool_call;

/* An image attached to a user message (or a tool result, rendered where the
 * protocol allows it). */
typedef struct zimage {
  char *media_type; /* image/png, image/jpeg, image/gif, image/webp */
  char *data;       /* base64, no data: prefix */
} zimage;

/* A message's rendered wire text, cached by provider/wirejson.c, with the
 * fingerprint it was rendered from. */
typedef struct zmsg_wire {
  const void *tag; /* which wire format */
  char *text;
  size_t len;
  const char *content;
  size_t content_len;
  const void *calls, *images, *tool_call_id;
  size_t ncalls, nimages;
  int is_error;
} zmsg_wire;

typedef struct zmsg {
  zrole role;
  char *content;         /* user / assistant text, tool output; may be NULL */
  char *reasoning;       /* assistant reasoning text; may be NULL */
  ztool_call *calls;     /* assistant tool calls */
  size_t ncalls;
  char *tool_call_id;    /* role == ZROLE_TOOL: the call this answers */
  char *tool_name;       /* role == ZROLE_TOOL */
  int is_error;          /* role == ZROLE_TOOL: the tool failed */
  char *thinking;        /* assistant: JSON array of thinking blocks to replay
                          * ({"thinking","signature"} or {"redacted":data}); may be NULL */
  zimage *images;        /* user / tool: attached images */
  size_t nimages;
  zmsg_wire *wire;       /* cached rendering (owned); see zmsg_touch */
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
/* Like zconv_add_assistant, but takes ownership of text (malloc'd, may be
 * NULL): a long streamed answer is moved into the conversation, not copied. */
zmsg *zconv_add_assistant_owned(zconv *c, char *text, const char *reasoning);
/* Appends a call to assistant message m (copies the strings). */
void zmsg_add_call(zmsg *m, const char *id, const char *name, const char *arguments);
/* Sets the thought signature of the last call of m (copies; NULL clears). */
void zmsg_set_last_call_signature(zmsg *m, const char *signature);
/* Attaches an image (copies both strings). */
void zmsg_add_image(zmsg *m, const char *media_type, const char *base64);
/* Appends one thinking block to m->thinking (redacted when signature is the
 * redacted data and redacted is nonzero). */
void zmsg_add_thinking(zmsg *m, const char *text, const char *signature, int redacted);
zmsg *zconv_add_tool_result(zconv *c, const char *call_id, const char *name,
                            const char *output, int is_error);
zmsg *zconv_last(zconv *c);
/* Drops m's cached wire rendering. Call it after changing any field of m
 * directly (the adders above do it themselves). */
void zmsg_touch(zmsg *m);
/* Frees everything m owns (for code that takes messages out of a zconv). */
void zmsg_release(zmsg *m);
void zconv_release(zconv *c);

#endif
