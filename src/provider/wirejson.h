/* wirejson.h — request bodies written straight into a buffer, byte for byte
 * what jansson's compact dump of the same tree gives, with the pieces that
 * do not change between turns rendered once.
 *
 * A request carries the whole conversation every turn. Building a jansson
 * tree of it, dumping it and freeing it again made request rendering the
 * largest cost of a long run (it grew with every turn). Instead:
 *
 *  - strings are escaped directly (zjw_str), exactly as jansson escapes them
 *    (", \, \b \f \n \r \t, other controls as \u00XX; UTF-8 passes through);
 *  - each message's rendered text is cached on the message itself
 *    (zmsg.wire, see zjw_msg) and spliced into later requests;
 *  - each tool schema's rendered text is cached per provider (zjw_tools),
 *    keyed by the schema object, which the cache holds a reference to.
 *
 * The jansson renderers stay as the reference (and the fallback for strings
 * jansson would refuse, i.e. invalid UTF-8): the unit tests check that both
 * give the same bytes.
 */
#ifndef ZERO_PROVIDER_WIREJSON_H
#define ZERO_PROVIDER_WIREJSON_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "base/buf.h"
#include "provider/message.h"

/* Appends s (n bytes) as a JSON string literal. Returns false, leaving b as
 * it was, when s is not valid UTF-8 (json_string refuses such text). */
bool zjw_str(zbuf *b, const char *s, size_t n);
/* The same without the quotes (to build one string from several parts). */
bool zjw_str_body(zbuf *b, const char *s, size_t n);
/* zjw_str of a C string (not NULL). */
bool zjw_cstr(zbuf *b, const char *s);
/* Appends `"key":` (key is a literal: no escaping needed). */
void zjw_key(zbuf *b, const char *key);
/* Appends `,` unless b ends with `[` or `{`. */
void zjw_comma(zbuf *b);
/* Appends `,"key":"s"` (no comma after [ or {); nothing when s is not
 * valid UTF-8, as json_object_set_new with json_string(s) leaves the key out. */
bool zjw_kv_str(zbuf *b, const char *key, const char *s);
/* Appends `,"key":raw` (raw is JSON text: true, null, 12, …). */
void zjw_kv_raw(zbuf *b, const char *key, const char *raw);
/* Appends the compact dump of v (jansson), for the parts written rarely. */
void zjw_json(zbuf *b, const json_t *v);

/* Renders one message as the comma-separated array elements it becomes on
 * the wire (possibly none). */
typedef void (*zjw_msg_fn)(zbuf *out, const zmsg *m);

/* The rendered text of m for the renderer identified by tag (any address
 * unique to one wire format), from m's cache when it is still valid, else
 * rendered with fn and cached. The cache is dropped when the message changes
 * through message.h (zmsg_touch and every adder) and is checked against a
 * fingerprint of the fields (pointers and lengths) on every use. */
const char *zjw_msg(const zmsg *m, const void *tag, zjw_msg_fn fn, size_t *len);

/* Per-provider cache of rendered tool schemas. */
typedef struct zjw_tool_entry {
  json_t *key; /* the schema object (a reference is held: its address stays unique) */
  char *text;
  size_t len;
  bool used;
} zjw_tool_entry;

typedef struct zjw_tools {
  zjw_tool_entry *items;
  size_t len, cap;
} zjw_tools;

#define ZJW_TOOLS_INIT { NULL, 0, 0 }

/* Renders one tool schema object into a new jansson value (the reference
 * renderer of the wire format). */
typedef json_t *(*zjw_tool_fn)(const json_t *t);

/* Appends the elements for every object in tools (a JSON array), comma
 * separated, from the cache where possible. Entries for schemas no longer
 * offered are dropped (MCP tools are new objects each turn). */
void zjw_tools_render(zjw_tools *c, zbuf *out, const json_t *tools, zjw_tool_fn fn);
void zjw_tools_release(zjw_tools *c);

/* The request's `"tools":[…]` member, written after a comma from the cache,
 * when tools is a non-empty array; false (nothing written) otherwise. */
bool zjw_tools_member(zjw_tools *c, zbuf *out, const json_t *tools, zjw_tool_fn fn);

/* Adds the members every wire's tool declaration starts with to decl, from
 * one tool schema t: "name" (empty when t has none), then "description"
 * when t has one. Returns t's "parameters" (borrowed) when it is an object,
 * NULL otherwise; the caller adds it in its wire's form. */
const json_t *zjw_tool_head(json_t *decl, const json_t *t);

/* A declaration's parameter schema: params itself (a new reference; the
 * request tree is only dumped, never changed) or, for a tool without one,
 * the empty object schema {"type":"object","properties":{}}. */
json_t *zjw_tool_params(const json_t *params);

/* The jansson renderers' "tools" array: fn(t) for every object of tools
 * (caller owns it), or NULL when tools is not a non-empty array. */
json_t *zjw_tools_json(const json_t *tools, zjw_tool_fn fn);

#endif
