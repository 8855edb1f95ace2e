/* sampling.c — a sampling/createMessage request read and answered; see
 * sampling.h. */
#include "mcp/sampling.h"

#include <string.h>

#include "base/common.h"
#include "base/json.h"

#define RATE_WINDOW_MS 60000

/* The image types every provider takes (as view_image's). */
static bool image_type_ok(const char *mime) {
  static const char *const types[] = {"image/png", "image/jpeg", "image/gif", "image/webp"};
  for (size_t i = 0; mime && i < ZARRAY_LEN(types); i++)
    if (!strcmp(mime, types[i])) return true;
  return false;
}

/* One content block of message number idx into text / images. */
static int add_block(const json_t *block, size_t idx, bool user, zbuf *text, json_t *images,
                     zerr *err) {
  const char *type = zjson_str_or(block, "type", "");
  if (!strcmp(type, "text")) {
    if (text->len) zbuf_addch(text, '\n');
    zbuf_addstr(text, zjson_str_or(block, "text", ""));
    return 0;
  }
  if (!strcmp(type, "image")) {
    const char *mime = zjson_str(block, "mimeType"), *data = zjson_str(block, "data");
    if (!user)
      return zerr_set(err, ZE_USAGE,
                      "message %zu: zero sends images to the model only in "
                      "user messages",
                      idx);
    if (!image_type_ok(mime) || !data || !data[0])
      return zerr_set(err, ZE_USAGE,
                      "message %zu: an image must be PNG, JPEG, GIF or WebP "
                      "with base64 data",
                      idx);
    json_array_append_new(images, json_pack("[s,s]", mime, data));
    return 0;
  }
  if (!strcmp(type, "tool_use") || !strcmp(type, "tool_result"))
    return zerr_set(err, ZE_USAGE,
                    "message %zu: zero offers no tools in sampling (it does not "
                    "declare sampling.tools)",
                    idx);
  return zerr_set(err, ZE_USAGE,
                  "message %zu: zero cannot send \"%s\" content to the model "
                  "(text and images only)",
                  idx, type);
}

/* A message's content, one block or an array of them, into text / images. */
static int add_content(const json_t *content, size_t idx, bool user, zbuf *text, json_t *images,
                       zerr *err) {
  if (json_is_object(content)) return add_block(content, idx, user, text, images, err);
  size_t i;
  json_t *b;
  json_array_foreach(content, i, b) {
    if (add_block(b, idx, user, text, images, err) < 0) return -1;
  }
  return 0;
}

/* One SamplingMessage: {role, content: block | [block…]}. */
static int add_message(zmcp_sampling_req *r, const json_t *m, size_t idx, zerr *err) {
  const char *role = zjson_str(m, "role");
  bool user = role && !strcmp(role, "user");
  if (!user && !(role && !strcmp(role, "assistant")))
    return zerr_set(err, ZE_USAGE, "message %zu: role must be \"user\" or \"assistant\"", idx);
  const json_t *content = json_object_get(m, "content");
  if (!json_is_object(content) && !json_is_array(content))
    return zerr_set(err, ZE_USAGE,
                    "message %zu: content must be a content block or an array of them", idx);
  zbuf text = ZBUF_INIT;
  json_t *images = json_array();
  int rc = add_content(content, idx, user, &text, images, err);
  if (rc == 0) {
    const char *t = text.data ? text.data : "";
    zmsg *msg = user ? zconv_add_user(&r->conv, t) : zconv_add_assistant(&r->conv, t, NULL);
    size_t i;
    json_t *img;
    json_array_foreach(images, i, img) {
      zmsg_add_image(msg, json_string_value(json_array_get(img, 0)),
                     json_string_value(json_array_get(img, 1)));
    }
  }
  zbuf_release(&text);
  json_decref(images);
  return rc;
}

static void take_hints(zmcp_sampling_req *r, const json_t *params) {
  r->hints = json_array();
  const json_t *prefs = json_object_get(params, "modelPreferences");
  size_t i;
  json_t *h;
  json_array_foreach(json_object_get(prefs, "hints"), i, h) {
    const char *name = zjson_str(h, "name");
    if (name) json_array_append_new(r->hints, json_string(name));
  }
}

/* maxTokens: a positive integer (the spec requires it; absent, the cap). */
static int take_max_tokens(zmcp_sampling_req *r, const json_t *params, zerr *err) {
  const json_t *mt = json_object_get(params, "maxTokens");
  if (mt && (!json_is_integer(mt) || json_integer_value(mt) <= 0))
    return zerr_set(err, ZE_USAGE, "maxTokens must be a positive integer");
  json_int_t asked = mt ? json_integer_value(mt) : 0;
  r->asked_tokens = asked > INT32_MAX ? INT32_MAX : (int)asked;
  r->max_tokens =
      asked > 0 && asked < ZMCP_SAMPLING_MAX_TOKENS ? (int)asked : ZMCP_SAMPLING_MAX_TOKENS;
  return 0;
}

int zmcp_sampling_parse(const json_t *params, zmcp_sampling_req *out, zerr *err) {
  memset(out, 0, sizeof *out);
  out->conv = (zconv)ZCONV_INIT;
  take_hints(out, params);
  const json_t *msgs = json_object_get(params, "messages");
  const json_t *sys = json_object_get(params, "systemPrompt");
  int rc = 0;
  if (json_object_get(params, "tools"))
    rc = zerr_set(err, ZE_USAGE,
                  "zero offers no tools in sampling (it does not declare "
                  "sampling.tools)");
  else if (!json_is_array(msgs) || !json_array_size(msgs))
    rc = zerr_set(err, ZE_USAGE, "messages must be a non-empty array");
  else if (sys && !json_is_string(sys))
    rc = zerr_set(err, ZE_USAGE, "systemPrompt must be a string");
  else rc = take_max_tokens(out, params, err);
  size_t i;
  json_t *m;
  json_array_foreach(msgs, i, m) {
    if (rc < 0) break;
    rc = add_message(out, m, i, err);
  }
  if (rc < 0) {
    zmcp_sampling_req_release(out);
    return -1;
  }
  if (sys && json_string_length(sys)) out->system = xstrdup(json_string_value(sys));
  return 0;
}

void zmcp_sampling_req_release(zmcp_sampling_req *r) {
  free(r->system);
  zconv_release(&r->conv);
  json_decref(r->hints);
  memset(r, 0, sizeof *r);
}

void zmcp_sampling_preview(const zmcp_sampling_req *r, zbuf *out) {
  size_t start = out->len;
  if (r->system) zbuf_addf(out, "system: %s\n", r->system);
  for (size_t i = 0; i < r->conv.len; i++) {
    const zmsg *m = &r->conv.items[i];
    zbuf_addf(out, "%s: %s", m->role == ZROLE_USER ? "user" : "assistant",
              m->content ? m->content : "");
    if (m->nimages) zbuf_addf(out, " [%zu image%s]", m->nimages, m->nimages == 1 ? "" : "s");
    zbuf_addch(out, '\n');
  }
  if (out->len - start > ZMCP_SAMPLING_PREVIEW) {
    /* cut on a UTF-8 character boundary */
    size_t cut = start + ZMCP_SAMPLING_PREVIEW;
    while (cut > start && ((unsigned char)out->data[cut] & 0xC0) == 0x80) cut--;
    zbuf_setlen(out, cut);
    zbuf_addstr(out, "…");
  }
}

const char *zmcp_sampling_stop_reason(const char *finish_reason) {
  if (!finish_reason || !strcmp(finish_reason, "stop") || !strcmp(finish_reason, "end_turn"))
    return "endTurn";
  if (!strcmp(finish_reason, "length") || !strcmp(finish_reason, "max_tokens")) return "maxTokens";
  return finish_reason;
}

json_t *zmcp_sampling_result(const char *text, const char *model, const char *finish_reason) {
  return json_pack("{s:s, s:{s:s, s:s}, s:s, s:s}", "role", "assistant", "content", "type", "text",
                   "text", text ? text : "", "model", model ? model : "unknown", "stopReason",
                   zmcp_sampling_stop_reason(finish_reason));
}

bool zmcp_rate_take(zmcp_rate *r, int64_t now_ms) {
  if (r->n < ZMCP_SAMPLING_PER_MINUTE) {
    r->at[r->n++] = now_ms;
    return true;
  }
  /* Full: the oldest of the last N takes must have left the window. */
  if (now_ms - r->at[r->next] < RATE_WINDOW_MS) return false;
  r->at[r->next] = now_ms;
  r->next = (r->next + 1) % ZMCP_SAMPLING_PER_MINUTE;
  return true;
}
