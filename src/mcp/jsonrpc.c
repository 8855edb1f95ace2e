/* jsonrpc.c — JSON-RPC 2.0 classification, framing and builders; see jsonrpc.h. */
#include "mcp/jsonrpc.h"

#include <string.h>

#include "base/common.h"
#include "base/json.h"

int zrpc_classify(json_t *root, zrpc_msg *out, zerr *err) {
  memset(out, 0, sizeof *out);
  if (!json_is_object(root))
    return zerr_set(err, ZE_INVALID, "a JSON-RPC message must be a JSON object");
  const char *ver = zjson_str(root, "jsonrpc");
  if (!ver || strcmp(ver, "2.0") != 0)
    return zerr_set(err, ZE_INVALID, "the message lacks \"jsonrpc\": \"2.0\"");
  json_t *id = json_object_get(root, "id");
  json_t *method = json_object_get(root, "method");
  if (id && !json_is_integer(id) && !json_is_string(id) && !json_is_null(id))
    return zerr_set(err, ZE_INVALID, "the message id must be a number or a string");
  if (method) {
    if (!json_is_string(method))
      return zerr_set(err, ZE_INVALID, "the message \"method\" must be a string");
    json_t *params = json_object_get(root, "params");
    if (params && !json_is_object(params) && !json_is_array(params))
      return zerr_set(err, ZE_INVALID, "the message \"params\" must be an object or an array");
    out->kind = id && !json_is_null(id) ? ZRPC_REQUEST : ZRPC_NOTIFICATION;
    out->id = out->kind == ZRPC_REQUEST ? id : NULL;
    out->method = json_string_value(method);
    out->params = params;
  } else {
    json_t *result = json_object_get(root, "result");
    json_t *error = json_object_get(root, "error");
    if (!id && (result || error)) {
      out->kind = ZRPC_ORPHAN;
    } else if (!id) {
      return zerr_set(err, ZE_INVALID, "a response must carry an id");
    } else if (result && !error) {
      if (json_is_null(id)) return zerr_set(err, ZE_INVALID, "a result must carry a non-null id");
      out->kind = ZRPC_RESPONSE;
      out->result = result;
    } else if (error && !result) {
      if (!json_is_object(error))
        return zerr_set(err, ZE_INVALID, "the \"error\" of a response must be an object");
      out->kind = ZRPC_ERROR;
      out->error = error;
    } else {
      return zerr_set(err, ZE_INVALID,
                      "a response must carry exactly one of \"result\" and \"error\"");
    }
    out->id = id;
  }
  out->root = root;
  return 0;
}

void zrpc_msg_release(zrpc_msg *m) {
  if (!m) return;
  json_decref(m->root);
  memset(m, 0, sizeof *m);
}

static int dispatch_one(json_t *v, zrpc_msg_fn fn, void *ud, zerr *err) {
  zrpc_msg m;
  json_incref(v);
  if (zrpc_classify(v, &m, err) < 0) {
    json_decref(v);
    return -1;
  }
  return fn(ud, &m);
}

int zrpc_parse(const char *text, size_t len, zrpc_msg_fn fn, void *ud, zerr *err) {
  if (len > ZRPC_MAX_MESSAGE)
    return zerr_set(err, ZE_TOO_LARGE, "a message of %zu bytes passes the %u-byte limit", len,
                    ZRPC_MAX_MESSAGE);
  json_error_t je;
  json_t *root = json_loadb(text, len, JSON_ALLOW_NUL, &je);
  if (!root)
    return zerr_set(err, ZE_INVALID, "malformed JSON at line %d column %d: %s", je.line,
                    je.column, je.text);
  int rc = 0;
  if (json_is_array(root)) {
    if (json_array_size(root) == 0) {
      json_decref(root);
      return zerr_set(err, ZE_INVALID, "an empty JSON-RPC batch");
    }
    size_t i;
    json_t *v;
    json_array_foreach(root, i, v) {
      rc = dispatch_one(v, fn, ud, err);
      if (rc) break;
    }
  } else {
    rc = dispatch_one(root, fn, ud, err);
  }
  json_decref(root);
  return rc;
}

/* ---- newline framing ----------------------------------------------------- */

static int emit_line(zrpc_framer *f, const char *s, size_t n, zrpc_line_fn fn, void *ud) {
  if (n && s[n - 1] == '\r') n--;
  size_t i = 0;
  while (i < n && (s[i] == ' ' || s[i] == '\t')) i++;
  if (i == n) return 0; /* blank */
  (void)f;
  return fn(ud, s, n);
}

int zrpc_framer_feed(zrpc_framer *f, const char *data, size_t len, zrpc_line_fn fn, void *ud,
                     zerr *err) {
  size_t max = f->max ? f->max : ZRPC_MAX_MESSAGE;
  if (f->failed)
    return zerr_set(err, ZE_TOO_LARGE, "the message stream was already abandoned after an "
                                       "oversized message");
  while (len) {
    const char *nl = memchr(data, '\n', len);
    size_t take = nl ? (size_t)(nl - data) : len;
    if (f->line.len + take > max + 1) { /* +1: room for a CR before the LF */
      f->failed = true;
      zbuf_release(&f->line);
      return zerr_set(err, ZE_TOO_LARGE,
                      "the server sent a message longer than the %zu-byte limit", max);
    }
    if (!nl) {
      zbuf_add(&f->line, data, len);
      return 0;
    }
    int rc;
    if (f->line.len) {
      zbuf_add(&f->line, data, take);
      rc = emit_line(f, f->line.data, f->line.len, fn, ud);
      zbuf_reset(&f->line);
    } else {
      rc = emit_line(f, data, take, fn, ud); /* whole line in this chunk: no copy */
    }
    if (rc) return rc;
    data += take + 1;
    len -= take + 1;
  }
  return 0;
}

size_t zrpc_framer_pending(const zrpc_framer *f) { return f->line.len; }

void zrpc_framer_release(zrpc_framer *f) { zbuf_release(&f->line); }

/* ---- builders ------------------------------------------------------------ */

static void dump_obj(zbuf *out, json_t *obj) {
  zjson_dump_to(obj, out);
  json_decref(obj);
}

void zrpc_build_request(zbuf *out, int64_t id, const char *method, const json_t *params) {
  json_t *o = json_pack("{s:s, s:I, s:s}", "jsonrpc", "2.0", "id", (json_int_t)id, "method",
                        method);
  if (params) json_object_set(o, "params", (json_t *)params);
  dump_obj(out, o);
}

void zrpc_build_notification(zbuf *out, const char *method, const json_t *params) {
  json_t *o = json_pack("{s:s, s:s}", "jsonrpc", "2.0", "method", method);
  if (params) json_object_set(o, "params", (json_t *)params);
  dump_obj(out, o);
}

void zrpc_build_result(zbuf *out, const json_t *id, const json_t *result) {
  json_t *o = json_pack("{s:s}", "jsonrpc", "2.0");
  json_object_set(o, "id", id ? (json_t *)id : json_null());
  if (result)
    json_object_set(o, "result", (json_t *)result);
  else
    json_object_set_new(o, "result", json_object());
  dump_obj(out, o);
}

void zrpc_build_error(zbuf *out, const json_t *id, int code, const char *message) {
  json_t *o = json_pack("{s:s, s:{s:i, s:s}}", "jsonrpc", "2.0", "error", "code", code,
                        "message", message);
  json_object_set(o, "id", id ? (json_t *)id : json_null());
  dump_obj(out, o);
}

char *zrpc_error_text(const json_t *error) {
  zbuf b = ZBUF_INIT;
  const char *msg = zjson_str(error, "message");
  json_t *code = json_object_get(error, "code");
  if (json_is_integer(code)) zbuf_addf(&b, "error %lld: ", (long long)json_integer_value(code));
  zbuf_addstr(&b, msg && msg[0] ? msg : "(no message)");
  return zbuf_detach(&b, NULL);
}
