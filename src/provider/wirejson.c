/* wirejson.c — request bodies written straight into a buffer; see wirejson.h. */
#include "provider/wirejson.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/common.h"
#include "base/json.h"

bool zjw_str_body(zbuf *b, const char *s, size_t n) { return zjson_str_body_to(b, s, n); }

bool zjw_str(zbuf *b, const char *s, size_t n) {
  size_t mark = b->len;
  zbuf_addch(b, '"');
  if (!zjw_str_body(b, s, n)) {
    zbuf_setlen(b, mark);
    return false;
  }
  zbuf_addch(b, '"');
  return true;
}

bool zjw_kv_str(zbuf *b, const char *key, const char *s) {
  size_t mark = b->len;
  zjw_comma(b);
  zjw_key(b, key);
  if (zjw_cstr(b, s)) return true;
  zbuf_setlen(b, mark);
  return false;
}

void zjw_kv_raw(zbuf *b, const char *key, const char *raw) {
  zjw_comma(b);
  zjw_key(b, key);
  zbuf_addstr(b, raw);
}

bool zjw_cstr(zbuf *b, const char *s) { return zjw_str(b, s, strlen(s)); }

void zjw_key(zbuf *b, const char *key) {
  zbuf_addch(b, '"');
  zbuf_addstr(b, key);
  zbuf_add(b, "\":", 2);
}

void zjw_comma(zbuf *b) {
  if (b->len && b->data[b->len - 1] != '[' && b->data[b->len - 1] != '{') zbuf_addch(b, ',');
}

void zjw_json(zbuf *b, const json_t *v) { zjson_dump_to(v, b); }

/* ---------------------------------------------------------------- messages */

static void fingerprint(zmsg_wire *w, const zmsg *m) {
  w->content = m->content;
  w->content_len = m->content ? strlen(m->content) : 0;
  w->calls = m->calls;
  w->ncalls = m->ncalls;
  w->images = m->images;
  w->nimages = m->nimages;
  w->tool_call_id = m->tool_call_id;
  w->is_error = m->is_error;
}

static bool still_valid(const zmsg_wire *w, const zmsg *m, const void *tag) {
  return w->tag == tag && w->content == m->content && w->calls == m->calls &&
         w->ncalls == m->ncalls && w->images == m->images && w->nimages == m->nimages &&
         w->tool_call_id == m->tool_call_id && w->is_error == m->is_error &&
         w->content_len == (m->content ? strlen(m->content) : 0);
}

const char *zjw_msg(const zmsg *m, const void *tag, zjw_msg_fn fn, size_t *len) {
  /* The cache is not part of the message's value: filling it through a
   * const pointer is fine (every zmsg lives in writable memory). */
  zmsg *mm = (zmsg *)m;
  if (mm->wire && still_valid(mm->wire, m, tag)) {
    *len = mm->wire->len;
    return mm->wire->text;
  }
  zmsg_touch(mm);
  zbuf out = ZBUF_INIT;
  fn(&out, m);
  zmsg_wire *w = xcalloc(1, sizeof *w);
  w->tag = tag;
  w->text = zbuf_detach(&out, &w->len);
  fingerprint(w, m);
  mm->wire = w;
  *len = w->len;
  return w->text;
}

/* ---------------------------------------------------------------- tools */

void zjw_tools_render(zjw_tools *c, zbuf *out, const json_t *tools, zjw_tool_fn fn) {
  for (size_t k = 0; k < c->len; k++) c->items[k].used = false;
  size_t i;
  json_t *t;
  bool first = true;
  json_array_foreach(tools, i, t) {
    if (!json_is_object(t)) continue;
    zjw_tool_entry *e = NULL;
    for (size_t k = 0; k < c->len && !e; k++)
      if (c->items[k].key == t) e = &c->items[k];
    if (!e) {
      json_t *v = fn(t);
      zbuf b = ZBUF_INIT;
      if (v) zjson_dump_to(v, &b);
      json_decref(v);
      ZALLOC_GROW(c->items, c->len, c->cap, 16);
      e = &c->items[c->len++];
      e->key = json_incref(t);
      e->text = zbuf_detach(&b, &e->len);
    }
    e->used = true;
    if (!e->len) continue; /* a value jansson could not build: nothing appended */
    if (!first) zbuf_addch(out, ',');
    zbuf_add(out, e->text, e->len);
    first = false;
  }
  /* Drop what this request did not offer. */
  size_t keep = 0;
  for (size_t k = 0; k < c->len; k++) {
    if (c->items[k].used) {
      c->items[keep++] = c->items[k];
    } else {
      json_decref(c->items[k].key);
      free(c->items[k].text);
    }
  }
  c->len = keep;
}

void zjw_tools_release(zjw_tools *c) {
  for (size_t k = 0; k < c->len; k++) {
    json_decref(c->items[k].key);
    free(c->items[k].text);
  }
  free(c->items);
  c->items = NULL;
  c->len = c->cap = 0;
}

bool zjw_tools_member(zjw_tools *c, zbuf *out, const json_t *tools, zjw_tool_fn fn) {
  if (!json_is_array(tools) || json_array_size(tools) == 0) return false;
  zjw_comma(out);
  zjw_key(out, "tools");
  zbuf_addch(out, '[');
  zjw_tools_render(c, out, tools, fn);
  zbuf_addch(out, ']');
  return true;
}

const json_t *zjw_tool_head(json_t *decl, const json_t *t) {
  json_object_set_new(decl, "name", json_string(zjson_str_or(t, "name", "")));
  const char *desc = zjson_str(t, "description");
  if (desc) json_object_set_new(decl, "description", json_string(desc));
  const json_t *params = json_object_get(t, "parameters");
  return json_is_object(params) ? params : NULL;
}

json_t *zjw_tool_params(const json_t *params) {
  if (params) return json_incref((json_t *)params);
  return json_pack("{s:s, s:{}}", "type", "object", "properties");
}

json_t *zjw_tools_json(const json_t *tools, zjw_tool_fn fn) {
  if (!json_is_array(tools) || json_array_size(tools) == 0) return NULL;
  json_t *arr = json_array();
  size_t i;
  json_t *t;
  json_array_foreach(tools, i, t) {
    if (json_is_object(t)) json_array_append_new(arr, fn(t));
  }
  return arr;
}
