/* in_answers.c — answers to ask_user questions on `-i stream-json` input;
 * see input.h. */
#include <string.h>

#include "base/json.h"
#include "ui/input.h"

/* Whether the line (n bytes) is an answer line; *o then holds it. */
static bool answer_line(const char *p, size_t n, json_t **o) {
  size_t i = 0;
  while (i < n && strchr(" \t\r", p[i])) i++;
  if (i == n || p[i] != '{') return false;
  json_t *v = zjson_parse_line(p, n);
  const char *type = v ? zjson_str(v, "type") : NULL;
  if (!type || strcmp(type, "answer") != 0) {
    json_decref(v);
    return false;
  }
  *o = v;
  return true;
}

int zin_stream_json_take_answers(zbuf *raw, json_t *answers, zerr *err) {
  size_t lineno = 0;
  for (size_t pos = 0; pos < raw->len;) {
    char *nl = memchr(raw->data + pos, '\n', raw->len - pos);
    size_t n = (nl ? (size_t)(nl - raw->data) : raw->len) - pos;
    lineno++;
    json_t *o = NULL;
    if (answer_line(raw->data + pos, n, &o)) {
      const char *content = zjson_str(o, "content");
      json_t *ver = json_object_get(o, "schemaVersion");
      if (!content || !json_is_integer(ver) || json_integer_value(ver) != 2) {
        json_decref(o);
        return zerr_set(err, ZE_USAGE,
                        "Invalid stream-json input at line %zu: an answer needs schemaVersion 2 "
                        "and content (a string)",
                        lineno);
      }
      json_array_append_new(answers, json_string(content));
      json_decref(o);
      memset(raw->data + pos, ' ', n); /* a blank line: later line numbers stay right */
    }
    pos += n + 1;
  }
  return 0;
}
