/* message.c — the structured conversation; see message.h. */
#include "provider/message.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "base/common.h"

static char *dup_opt(const char *s) { return s ? xstrdup(s) : NULL; }

static zmsg *push(zconv *c, zrole role) {
  ZALLOC_GROW(c->items, c->len, c->cap, 16);
  zmsg *m = &c->items[c->len++];
  memset(m, 0, sizeof *m);
  m->role = role;
  return m;
}

zmsg *zconv_add_user(zconv *c, const char *text) {
  zmsg *m = push(c, ZROLE_USER);
  m->content = dup_opt(text);
  return m;
}

zmsg *zconv_add_assistant(zconv *c, const char *text, const char *reasoning) {
  zmsg *m = push(c, ZROLE_ASSISTANT);
  m->content = dup_opt(text);
  m->reasoning = dup_opt(reasoning);
  return m;
}

zmsg *zconv_add_assistant_owned(zconv *c, char *text, const char *reasoning) {
  zmsg *m = push(c, ZROLE_ASSISTANT);
  m->content = text;
  m->reasoning = dup_opt(reasoning);
  return m;
}

void zmsg_add_call(zmsg *m, const char *id, const char *name, const char *arguments) {
  zmsg_touch(m);
  m->calls = xrealloc(m->calls, (m->ncalls + 1) * sizeof *m->calls);
  ztool_call *tc = &m->calls[m->ncalls++];
  tc->id = xstrdup(id ? id : "");
  tc->name = xstrdup(name ? name : "");
  tc->arguments = xstrdup(arguments ? arguments : "");
  tc->signature = NULL;
}

void zmsg_set_last_call_signature(zmsg *m, const char *signature) {
  zmsg_touch(m);
  if (!m->ncalls) return;
  ztool_call *tc = &m->calls[m->ncalls - 1];
  free(tc->signature);
  tc->signature = signature && *signature ? xstrdup(signature) : NULL;
}

void zmsg_add_image(zmsg *m, const char *media_type, const char *base64) {
  zmsg_touch(m);
  m->images = xrealloc(m->images, (m->nimages + 1) * sizeof *m->images);
  m->images[m->nimages].media_type = xstrdup(media_type ? media_type : "image/png");
  m->images[m->nimages].data = xstrdup(base64 ? base64 : "");
  m->nimages++;
}

void zmsg_add_thinking(zmsg *m, const char *text, const char *signature, int redacted) {
  zmsg_touch(m);
  json_t *arr = m->thinking ? json_loads(m->thinking, 0, NULL) : NULL;
  if (!json_is_array(arr)) {
    json_decref(arr);
    arr = json_array();
  }
  if (redacted)
    json_array_append_new(arr, json_pack("{s:s}", "redacted", signature ? signature : ""));
  else
    json_array_append_new(arr, json_pack("{s:s, s:s}", "thinking", text ? text : "",
                                         "signature", signature ? signature : ""));
  free(m->thinking);
  m->thinking = json_dumps(arr, JSON_COMPACT);
  json_decref(arr);
}

zmsg *zconv_add_tool_result(zconv *c, const char *call_id, const char *name,
                            const char *output, int is_error) {
  zmsg *m = push(c, ZROLE_TOOL);
  m->tool_call_id = xstrdup(call_id ? call_id : "");
  m->tool_name = dup_opt(name);
  m->content = xstrdup(output ? output : "");
  m->is_error = is_error;
  return m;
}

zmsg *zconv_last(zconv *c) { return c->len ? &c->items[c->len - 1] : NULL; }

void zmsg_touch(zmsg *m) {
  if (!m->wire) return;
  free(m->wire->text);
  free(m->wire);
  m->wire = NULL;
}

void zmsg_release(zmsg *m) {
  zmsg_touch(m);
  free(m->content);
  free(m->reasoning);
  for (size_t i = 0; i < m->ncalls; i++) {
    free(m->calls[i].id);
    free(m->calls[i].name);
    free(m->calls[i].arguments);
    free(m->calls[i].signature);
  }
  free(m->calls);
  free(m->tool_call_id);
  free(m->tool_name);
  free(m->thinking);
  for (size_t i = 0; i < m->nimages; i++) {
    free(m->images[i].media_type);
    free(m->images[i].data);
  }
  free(m->images);
}

void zconv_release(zconv *c) {
  for (size_t i = 0; i < c->len; i++) zmsg_release(&c->items[i]);
  free(c->items);
  c->items = NULL;
  c->len = c->cap = 0;
}
