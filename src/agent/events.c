/* events.c — see events.h. */
#include "agent/events.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "base/common.h"

zagent_event_copy *zagent_event_copy_new(const zagent_event *ev) {
  zagent_event_copy *c = xcalloc(1, sizeof *c);
  c->ev = *ev;
  size_t ns = 0, nj = 0;
#define STR(f) c->ev.f = c->strs[ns++] = ev->f ? xstrdup(ev->f) : NULL
  STR(reasoning); STR(thinking); STR(signature); STR(session_id); STR(cwd); STR(provider);
  STR(model); STR(api_model); STR(id); STR(name); STR(arguments); STR(side_effect);
  STR(action); STR(reason); STR(mode); STR(code); STR(status); STR(permission);
  STR(autonomy); STR(decision_reason);
#undef STR
#define JSON(f) c->ev.f = c->json[nj++] = ev->f ? json_deep_copy(ev->f) : NULL
  JSON(meta); JSON(block); JSON(grant); JSON(risk); JSON(changed_files); JSON(files);
#undef JSON
  /* len counts the bytes of streamed deltas; other events (errors, warnings)
   * may leave it 0 and carry a NUL-terminated text. */
  c->ev.text = c->strs[ns++] = !ev->text ? NULL
                               : ev->len ? xstrndup(ev->text, ev->len)
                                         : xstrdup(ev->text);
  c->ev.len = c->ev.text ? strlen(c->ev.text) : 0;
  assert(ns <= sizeof c->strs / sizeof c->strs[0] && nj <= sizeof c->json / sizeof c->json[0]);
  return c;
}

void zagent_event_copy_free(zagent_event_copy *c) {
  if (!c) return;
  for (size_t i = 0; i < sizeof c->strs / sizeof c->strs[0]; i++) free(c->strs[i]);
  for (size_t i = 0; i < sizeof c->json / sizeof c->json[0]; i++) json_decref(c->json[i]);
  free(c);
}
