/* message.c — the structured conversation; see message.h. */
#include "provider/message.h"

#include <string.h>

#include "base/common.h"

static char *dup_opt(const char *s) { return s ? xstrdup(s) : NULL; }

static zmsg *push(zconv *c, zrole role) {
  if (c->len == c->cap) {
    c->cap = c->cap ? c->cap * 2 : 16;
    c->items = xrealloc(c->items, c->cap * sizeof *c->items);
  }
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

void zmsg_add_call(zmsg *m, const char *id, const char *name, const char *arguments) {
  m->calls = xrealloc(m->calls, (m->ncalls + 1) * sizeof *m->calls);
  ztool_call *tc = &m->calls[m->ncalls++];
  tc->id = xstrdup(id ? id : "");
  tc->name = xstrdup(name ? name : "");
  tc->arguments = xstrdup(arguments ? arguments : "");
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

static void msg_release(zmsg *m) {
  free(m->content);
  free(m->reasoning);
  for (size_t i = 0; i < m->ncalls; i++) {
    free(m->calls[i].id);
    free(m->calls[i].name);
    free(m->calls[i].arguments);
  }
  free(m->calls);
  free(m->tool_call_id);
  free(m->tool_name);
}

void zconv_release(zconv *c) {
  for (size_t i = 0; i < c->len; i++) msg_release(&c->items[i]);
  free(c->items);
  c->items = NULL;
  c->len = c->cap = 0;
}
