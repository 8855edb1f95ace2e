/* server.c — zero's tools over MCP (stdio); see server.h. */
#include "mcp/server.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/common.h"
#include "base/json.h"
#include "mcp/client.h"
#include "mcp/jsonrpc.h"
#include "perm/prompt.h"

typedef struct serve_state {
  const ztool_ctx *ctx;
  const zperm_engine *perm; /* decides every call (the one permission module) */
  bool all_tools;
  FILE *out;
  bool write_failed;
} serve_state;

static void send_line(serve_state *s, zbuf *msg) {
  zbuf_addch(msg, '\n');
  if (fwrite(msg->data, 1, msg->len, s->out) != msg->len || fflush(s->out) != 0)
    s->write_failed = true;
  zbuf_release(msg);
}

static bool exposed(const serve_state *s, const ztool *t) { return s->all_tools || t->read_only; }

static json_t *tools_list(const serve_state *s) {
  size_t n;
  const ztool *const *all = ztool_all(&n);
  json_t *arr = json_array();
  for (size_t i = 0; i < n; i++) {
    if (!exposed(s, all[i])) continue;
    json_t *schema = json_loads(all[i]->parameters_json, 0, NULL);
    if (!schema) schema = json_pack("{s:s}", "type", "object");
    json_array_append_new(
        arr, json_pack("{s:s, s:s, s:o, s:{s:b, s:b}}", "name", all[i]->name, "description",
                       all[i]->description, "inputSchema", schema, "annotations",
                       "readOnlyHint", all[i]->read_only, "destructiveHint",
                       all[i]->side_effect == ZSIDE_WRITE || all[i]->side_effect == ZSIDE_SHELL));
  }
  return json_pack("{s:o}", "tools", arr);
}

static void handle_call(serve_state *s, const zrpc_msg *m, zbuf *out) {
  const char *name = zjson_str(m->params, "name");
  const ztool *t = name ? ztool_find(name) : NULL;
  if (!t || !exposed(s, t)) {
    char msg[300];
    snprintf(msg, sizeof msg, "unknown tool \"%.200s\"%s", name ? name : "",
             t ? " (not exposed; start zero serve --mcp --allow-unsafe-tools to expose it)" : "");
    zrpc_build_error(out, m->id, ZRPC_INVALID_PARAMS, msg);
    return;
  }
  json_t *args = json_object_get(m->params, "arguments");
  if (args && !json_is_object(args)) {
    zrpc_build_error(out, m->id, ZRPC_INVALID_PARAMS, "\"arguments\" must be an object");
    return;
  }
  char *text = args ? zjson_dumps(args) : xstrdup("{}");
  ztool_result res = ZTOOL_RESULT_INIT;
  /* The same decision as every face; nobody here can answer a prompt, so the
   * prompt flow's headless answer applies (a denial saying what allows it). */
  zperm_decision d = zperm_decide(s->perm, t, args);
  if (d.action == ZPERM_PROMPT) {
    zperm_face face = {.name = "zero serve --mcp"};
    zperm_prompt_resolve(&face, NULL, NULL, &d);
  }
  if (d.action == ZPERM_DENY)
    ztool_fail(&res, "permission denied for %s [%s]: %s", name, d.code, d.reason);
  else
    ztool_invoke_escalated(s->ctx, name, text, zperm_escalation(&d), &res);
  free(text);
  json_t *result = json_pack("{s:[{s:s, s:s#}], s:b}", "content", "type", "text", "text",
                             res.output.data, (int)res.output.len, "isError", res.is_error);
  /* view_image's picture (meta.image) goes to the client as MCP image
   * content, which its model can see, rather than as base64 in the
   * structured result. */
  json_t *img = json_object_get(res.meta, "image");
  const char *mime = zjson_str(img, "media_type"), *data = zjson_str(img, "data");
  if (mime && data) {
    json_array_append_new(json_object_get(result, "content"),
                          json_pack("{s:s, s:s, s:s}", "type", "image", "data", data, "mimeType",
                                    mime));
    json_object_del(res.meta, "image");
  }
  if (json_is_object(res.meta) && json_object_size(res.meta))
    json_object_set(result, "structuredContent", res.meta);
  zrpc_build_result(out, m->id, result);
  json_decref(result);
  ztool_result_release(&res);
}

static int on_msg(void *ud, zrpc_msg *m) {
  serve_state *s = ud;
  zbuf out = ZBUF_INIT;
  if (m->kind == ZRPC_REQUEST) {
    if (!strcmp(m->method, "initialize")) {
      const char *v = zjson_str(m->params, "protocolVersion");
      json_t *r = json_pack("{s:s, s:{s:{s:b}}, s:{s:s, s:s}, s:s}", "protocolVersion",
                            zmcp_protocol_supported(v) ? v : ZMCP_PROTOCOL_VERSION,
                            "capabilities", "tools", "listChanged", 0, "serverInfo", "name",
                            "zero", "version", ZERO_VERSION, "instructions",
                            "zero's coding tools: read files, list directories"
                            " (and, when allowed, write and edit files and run commands) in "
                            "the workspace.");
      zrpc_build_result(&out, m->id, r);
      json_decref(r);
    } else if (!strcmp(m->method, "ping")) {
      zrpc_build_result(&out, m->id, NULL);
    } else if (!strcmp(m->method, "tools/list")) {
      json_t *r = tools_list(s);
      zrpc_build_result(&out, m->id, r);
      json_decref(r);
    } else if (!strcmp(m->method, "tools/call")) {
      handle_call(s, m, &out);
    } else {
      char msg[200];
      snprintf(msg, sizeof msg, "method \"%.100s\" is not supported by zero", m->method);
      zrpc_build_error(&out, m->id, ZRPC_METHOD_NOT_FOUND, msg);
    }
  }
  /* Notifications and responses need no answer. */
  if (out.len) send_line(s, &out);
  zrpc_msg_release(m);
  return 0;
}

static int on_line(void *ud, const char *line, size_t len) {
  serve_state *s = ud;
  zerr err = ZERR_INIT;
  if (zrpc_parse(line, len, on_msg, s, &err) < 0) {
    zbuf out = ZBUF_INIT;
    zrpc_build_error(&out, NULL, err.kind == ZE_INVALID && strstr(err.msg, "malformed")
                                     ? ZRPC_PARSE_ERROR : ZRPC_INVALID_REQUEST, err.msg);
    send_line(s, &out);
  }
  return s->write_failed ? -1 : 0;
}

int zmcp_serve(int in_fd, FILE *out, const ztool_ctx *ctx, const zperm_engine *perm,
               bool all_tools, zerr *err) {
  serve_state s = {.ctx = ctx, .perm = perm, .all_tools = all_tools, .out = out};
  zrpc_framer f = ZRPC_FRAMER_INIT;
  char buf[65536];
  int rc = 0;
  for (;;) {
    ssize_t r = read(in_fd, buf, sizeof buf);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) {
      rc = zerr_errno(err, ZE_IO, "reading the MCP client's messages");
      break;
    }
    if (r == 0) break; /* the client closed stdin: clean shutdown */
    int fr = zrpc_framer_feed(&f, buf, (size_t)r, on_line, &s, err);
    if (fr < 0 && s.write_failed) {
      rc = zerr_set(err, ZE_IO, "writing to the MCP client failed (stdout closed)");
      break;
    }
    if (fr < 0) {
      /* Oversized message: answer once, then stop (the stream is out of step). */
      zbuf o = ZBUF_INIT;
      zrpc_build_error(&o, NULL, ZRPC_INVALID_REQUEST, err->msg);
      send_line(&s, &o);
      rc = -1;
      break;
    }
  }
  zrpc_framer_release(&f);
  return rc;
}
