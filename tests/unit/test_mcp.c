/* test_mcp.c — JSON-RPC framing and classification, MCP server config
 * parsing, approvals, tool names and result rendering, and the stdio client
 * against a scripted shell server (ids matched, server requests answered,
 * list_changed before the initialize answer, malformed output). */
#include <ctype.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/common.h"
#include "base/json.h"
#include "base/path.h"
#include "mcp/client.h"
#include "mcp/config.h"
#include "mcp/jsonrpc.h"
#include "mcp/mcp.h"

/* ---- framing ---- */

static int collect_line(void *ud, const char *line, size_t len) {
  zbuf *b = ud;
  zbuf_add(b, line, len);
  zbuf_addch(b, '|');
  return 0;
}

static void test_framer_same_lines_for_every_split(void **state) {
  (void)state;
  const char *stream = "{\"a\":1}\r\n\n  \n{\"b\":2}\n{\"c\":3}";
  size_t n = strlen(stream);
  for (size_t cut = 0; cut <= n; cut++) {
    zrpc_framer f = ZRPC_FRAMER_INIT;
    zbuf got = ZBUF_INIT;
    zerr err = ZERR_INIT;
    assert_int_equal(zrpc_framer_feed(&f, stream, cut, collect_line, &got, &err), 0);
    assert_int_equal(zrpc_framer_feed(&f, stream + cut, n - cut, collect_line, &got, &err), 0);
    assert_string_equal(got.data, "{\"a\":1}|{\"b\":2}|");
    assert_int_equal(zrpc_framer_pending(&f), 7); /* the unterminated last line */
    zbuf_release(&got);
    zrpc_framer_release(&f);
  }
}

static void test_framer_oversized_line_fails_and_stays_failed(void **state) {
  (void)state;
  zrpc_framer f = ZRPC_FRAMER_INIT;
  f.max = 16;
  zbuf got = ZBUF_INIT;
  zerr err = ZERR_INIT;
  assert_int_equal(zrpc_framer_feed(&f, "0123456789", 10, collect_line, &got, &err), 0);
  assert_int_equal(zrpc_framer_feed(&f, "0123456789\n", 11, collect_line, &got, &err), -1);
  assert_int_equal(err.kind, ZE_TOO_LARGE);
  assert_non_null(strstr(err.msg, "16-byte limit"));
  assert_int_equal(zrpc_framer_feed(&f, "{}\n", 3, collect_line, &got, &err), -1);
  assert_int_equal(got.len, 0);
  zrpc_framer_release(&f);
}

/* ---- classification ---- */

typedef struct kinds {
  zbuf out;
} kinds;

static int record_kind(void *ud, zrpc_msg *m) {
  kinds *k = ud;
  static const char *const names[] = {"req", "note", "resp", "err", "orphan"};
  zbuf_addf(&k->out, "%s%s%s,", names[m->kind], m->method ? ":" : "", m->method ? m->method : "");
  zrpc_msg_release(m);
  return 0;
}

static void test_classify_kinds_and_batches(void **state) {
  (void)state;
  kinds k = {ZBUF_INIT};
  zerr err = ZERR_INIT;
  const char *batch =
      "[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"},"
      "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{}},"
      "{\"jsonrpc\":\"2.0\",\"id\":\"x\",\"result\":{}},"
      "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32700,\"message\":\"m\"}},"
      /* A reply with no id at all (a server answering a notification): kept
       * apart so receivers can drop it rather than fail the whole session. */
      "{\"jsonrpc\":\"2.0\",\"result\":{}},"
      "{\"jsonrpc\":\"2.0\",\"error\":{\"code\":1,\"message\":\"m\"}}]";
  assert_int_equal(zrpc_parse(batch, strlen(batch), record_kind, &k, &err), 0);
  assert_string_equal(k.out.data, "req:ping,note:notifications/progress,resp,err,orphan,orphan,");
  zbuf_release(&k.out);
}

static void test_classify_rejects_what_is_not_jsonrpc(void **state) {
  (void)state;
  const char *bad[] = {
      "{\"id\":1,\"result\":{}}",                                   /* no jsonrpc */
      "{\"jsonrpc\":\"2.0\",\"id\":1}",                             /* neither */
      "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":1,\"error\":{}}",   /* both */
      "{\"jsonrpc\":\"2.0\",\"id\":{},\"method\":\"x\"}",           /* bad id */
      "{\"jsonrpc\":\"2.0\",\"method\":7}",                          /* bad method */
      "[]", "42", "{not json",
  };
  for (size_t i = 0; i < ZARRAY_LEN(bad); i++) {
    kinds k = {ZBUF_INIT};
    zerr err = ZERR_INIT;
    assert_int_equal(zrpc_parse(bad[i], strlen(bad[i]), record_kind, &k, &err), -1);
    assert_true(err.msg[0]);
    zbuf_release(&k.out);
  }
}

static void test_builders_round_trip(void **state) {
  (void)state;
  zbuf b = ZBUF_INIT;
  json_t *params = json_pack("{s:s}", "k", "v");
  zrpc_build_request(&b, 7, "tools/list", params);
  assert_string_equal(b.data, "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/list\",\"params\":{\"k\":\"v\"}}");
  zbuf_reset(&b);
  json_t *id = json_string("abc");
  zrpc_build_error(&b, id, ZRPC_METHOD_NOT_FOUND, "nope");
  assert_non_null(strstr(b.data, "\"id\":\"abc\""));
  assert_non_null(strstr(b.data, "-32601"));
  zbuf_reset(&b);
  zrpc_build_result(&b, id, NULL);
  assert_string_equal(b.data, "{\"jsonrpc\":\"2.0\",\"id\":\"abc\",\"result\":{}}");
  json_decref(id);
  json_decref(params);
  zbuf_release(&b);
}

/* ---- config ---- */

static void test_server_parse_types_and_errors(void **state) {
  (void)state;
  zmcp_server_cfg s;
  zerr err = ZERR_INIT;
  json_t *o = json_pack("{s:s, s:[s,s], s:{s:s}}", "command", "node", "args", "a", "b", "env",
                        "K", "V");
  assert_int_equal(zmcp_server_parse("x", o, "f.json", &s, &err), 0);
  assert_int_equal(s.type, ZMCP_STDIO);
  assert_string_equal(s.argv[0], "node");
  assert_string_equal(s.argv[2], "b");
  assert_null(s.argv[3]);
  assert_string_equal(s.env[0], "K=V");
  zmcp_server_cfg_release(&s);
  json_decref(o);

  o = json_pack("{s:s, s:{s:s}}", "url", "http://h/mcp", "headers", "Authorization", "Bearer t");
  assert_int_equal(zmcp_server_parse("h", o, "f.json", &s, &err), 0);
  assert_int_equal(s.type, ZMCP_HTTP);
  assert_string_equal(s.headers[0], "Authorization: Bearer t");
  zmcp_server_cfg_release(&s);
  json_decref(o);

  o = json_pack("{s:s, s:s}", "type", "carrier-pigeon", "command", "x");
  assert_int_equal(zmcp_server_parse("p", o, "f.json", &s, &err), -1);
  assert_non_null(strstr(err.msg, "f.json: MCP server \"p\""));
  json_decref(o);
  o = json_pack("{s:s}", "type", "sse");
  assert_int_equal(zmcp_server_parse("p", o, "f.json", &s, &err), -1);
  assert_non_null(strstr(err.msg, "needs \"url\""));
  json_decref(o);
}

/* ---- approvals, names, results ---- */

/* MCP calls go through the one decision function (perm/engine.h) with the
 * MCP grants of the one grant store. */
static zperm_action mcp_decide(zperm_mode mode, zgrants *g, const char *server,
                               const char *tool) {
  ztool shown = {.name = "mcp_x", .side_effect = ZSIDE_NETWORK};
  zperm_engine e = {.mode = mode, .grants = g};
  zperm_call c = {.tool = &shown, .mcp_server = server, .mcp_tool = tool};
  return zperm_decide_call(&e, &c).action;
}

static void test_decide_modes_and_grants(void **state) {
  (void)state;
  zgrants g = {0};
  g.mcp = json_pack("{s:{s:{s:b}, s:{s:[s]}}}", "servers", "all", "all", 1, "some", "tools",
                    "read");
  assert_int_equal(mcp_decide(ZPERM_AUTO, &g, "all", "anything"), ZPERM_ALLOW);
  assert_int_equal(mcp_decide(ZPERM_AUTO, &g, "some", "read"), ZPERM_ALLOW);
  assert_int_equal(mcp_decide(ZPERM_AUTO, &g, "some", "write"), ZPERM_PROMPT);
  assert_int_equal(mcp_decide(ZPERM_ASK, &g, "other", "x"), ZPERM_PROMPT);
  assert_int_equal(mcp_decide(ZPERM_PLAN, &g, "all", "x"), ZPERM_DENY);
  assert_int_equal(mcp_decide(ZPERM_UNSAFE, &g, "other", "x"), ZPERM_ALLOW);
  zgrants_release(&g);
}

static void test_tool_names_are_model_safe(void **state) {
  (void)state;
  char *n = zmcp_tool_name("my.server", "get sum/v2");
  assert_string_equal(n, "mcp_my_server_get_sum_v2");
  free(n);
  n = zmcp_tool_name("s", "a-b_c");
  assert_string_equal(n, "mcp_s_a-b_c");
  free(n);
  char longname[200];
  memset(longname, 'x', sizeof longname - 1);
  longname[sizeof longname - 1] = '\0';
  n = zmcp_tool_name("s", longname);
  assert_int_equal(strlen(n), 64);
  free(n);
  /* Two long names with the same first 64 bytes stay apart (providers
   * refuse a request whose tool names repeat), and stay stable. */
  const char *a = "get_repository_collaborator_permission_level_for_the_user";
  const char *b = "get_repository_collaborator_permission_level_for_the_team";
  char *na = zmcp_tool_name("github-enterprise", a), *nb = zmcp_tool_name("github-enterprise", b);
  char *na2 = zmcp_tool_name("github-enterprise", a);
  assert_int_equal(strlen(na), 64);
  assert_int_equal(strlen(nb), 64);
  assert_string_not_equal(na, nb);
  assert_string_equal(na, na2);
  assert_memory_equal(na, "mcp_github-enterprise_get_repository_collaborator_pe", 52);
  for (const char *p = na; *p; p++)
    assert_true(isalnum((unsigned char)*p) || *p == '_' || *p == '-');
  free(na);
  free(nb);
  free(na2);
  /* Names that fit are left as they are. */
  n = zmcp_tool_name("s", "exactly");
  assert_string_equal(n, "mcp_s_exactly");
  free(n);
}

static void test_render_result_content_kinds(void **state) {
  (void)state;
  json_t *r = json_loads(
      "{\"content\":[{\"type\":\"text\",\"text\":\"hi\"},"
      "{\"type\":\"image\",\"mimeType\":\"image/png\",\"data\":\"AAAA\"},"
      "{\"type\":\"resource\",\"resource\":{\"uri\":\"file:///a\",\"text\":\"body\"}},"
      "{\"type\":\"resource_link\",\"uri\":\"file:///b\",\"name\":\"b\"}],\"isError\":true}",
      0, NULL);
  zbuf out = ZBUF_INIT;
  assert_true(zmcp_render_result(r, &out));
  assert_string_equal(out.data,
                      "hi\n[image: image/png, 3 bytes]\n[resource file:///a]\nbody\n"
                      "[resource link file:///b b]");
  zbuf_release(&out);
  json_decref(r);
  r = json_loads("{\"content\":[],\"structuredContent\":{\"n\":1}}", 0, NULL);
  assert_false(zmcp_render_result(r, &out));
  assert_string_equal(out.data, "{\"n\":1}");
  zbuf_release(&out);
  json_decref(r);
}

/* ---- the stdio client against a scripted server ---- */

/* A server written in sh: it sends list_changed and a ping request before
 * answering initialize, "answers" notifications/initialized with an id-less
 * result (the conformance suite's initialize scenario does; the client must
 * drop it, not die), answers tools/list twice (the second time with a new
 * tool), echoes a tools/call, and records what zero sends. */
static const char *SCRIPT =
    "read init; echo \"$init\" >> \"$LOG\";"
    "echo '{\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\"}';"
    "echo '{\"jsonrpc\":\"2.0\",\"id\":\"s1\",\"method\":\"ping\"}';"
    "echo '{\"jsonrpc\":\"2.0\",\"id\":\"s2\",\"method\":\"roots/list\"}';"
    "echo '{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"protocolVersion\":\"2025-03-26\","
    "\"capabilities\":{\"tools\":{\"listChanged\":true}},\"serverInfo\":{\"name\":\"sh\","
    "\"version\":\"1\"}}}';"
    "n=0; while read line; do echo \"$line\" >> \"$LOG\"; n=$((n+1));"
    " case \"$line\" in"
    "  *'notifications/initialized'*) echo '{\"jsonrpc\":\"2.0\",\"result\":{}}';;"
    "  *'\"tools/list\"'*) id=$(echo \"$line\" | sed 's/.*\"id\":\\([0-9]*\\).*/\\1/');"
    "    echo "
    "\"{\\\"jsonrpc\\\":\\\"2.0\\\",\\\"id\\\":$id,\\\"result\\\":{\\\"tools\\\":[{\\\"name\\\":"
    "\\\"t$n\\\",\\\"inputSchema\\\":{\\\"type\\\":\\\"object\\\"}}]}}\";;"
    "  *'\"tools/call\"'*) id=$(echo \"$line\" | sed 's/.*\"id\":\\([0-9]*\\).*/\\1/');"
    "    echo "
    "\"{\\\"jsonrpc\\\":\\\"2.0\\\",\\\"id\\\":$id,\\\"result\\\":{\\\"content\\\":[{\\\"type\\\":"
    "\\\"text\\\",\\\"text\\\":\\\"called\\\"}]}}\";;"
    " esac; done";

static void test_stdio_client_handles_server_messages(void **state) {
  (void)state;
  char dir[] = "/tmp/zero-mcp-unit-XXXXXX";
  assert_non_null(mkdtemp(dir));
  char log[256], env[300];
  snprintf(log, sizeof log, "%s/log", dir);
  snprintf(env, sizeof env, "LOG=%s", log);
  char *argv[] = {"/bin/sh", "-c", (char *)SCRIPT, NULL};
  char *envv[] = {env, NULL};
  zmcp_server_cfg cfg = {.name = "sh", .type = ZMCP_STDIO, .argv = argv, .env = envv};
  /* Regression: the client must not borrow the workspace string (zero mcp
   * freed it while the server could still ask for roots). */
  char *ws = xstrdup(dir);
  zmcp_client_opts o = {.workspace = ws};
  zmcp_client *c = zmcp_client_new(&cfg, &o);
  free(ws);
  zerr err = ZERR_INIT;
  assert_int_equal(zmcp_client_connect(c, &err), 0);
  assert_string_equal(c->protocol_version, "2025-03-26");
  /* list_changed arrived before the initialize answer: the first list is
   * fetched after it anyway, so it is not stale. */
  assert_int_equal(c->n_tools, 1);
  json_t *r = NULL;
  assert_int_equal(zmcp_call_tool(c, c->tools[0].name, NULL, 5000, &r, &err), 0);
  zbuf out = ZBUF_INIT;
  zmcp_render_result(r, &out);
  assert_string_equal(out.data, "called");
  zbuf_release(&out);
  json_decref(r);
  zmcp_client_close(c);
  zmcp_client_free(c);

  zbuf seen = ZBUF_INIT;
  FILE *f = fopen(log, "r");
  assert_non_null(f);
  char line[4096];
  while (fgets(line, sizeof line, f)) zbuf_addstr(&seen, line);
  fclose(f);
  assert_non_null(strstr(seen.data, "\"method\":\"initialize\""));
  assert_non_null(strstr(seen.data, "\"id\":\"s1\",\"result\":{}"));
  assert_non_null(strstr(seen.data, "\"roots\":[{\"uri\":\"file:///tmp/zero-mcp-unit-"));
  assert_non_null(strstr(seen.data, "notifications/initialized"));
  assert_non_null(strstr(seen.data, "\"progressToken\""));
  zbuf_release(&seen);
  unlink(log);
  rmdir(dir);
}

/* ---- elicitation ---- */

/* SEP-1034: every property's default is taken; a required property without
 * one makes the answer a decline (nobody is there to give it). */
static void test_elicit_accept_defaults(void **state) {
  (void)state;
  json_error_t je;
  json_t *p = json_loads("{\"message\":\"m\",\"requestedSchema\":{\"type\":\"object\","
                         "\"properties\":{\"name\":{\"type\":\"string\",\"default\":\"J\"},"
                         "\"age\":{\"type\":\"integer\",\"default\":30},\"x\":{\"type\":"
                         "\"string\"}},\"required\":[\"name\"]}}",
                         0, &je);
  assert_non_null(p);
  json_t *r = zmcp_elicit_accept_defaults(p);
  cleanup_free char *s = json_dumps(r, JSON_COMPACT | JSON_SORT_KEYS);
  assert_string_equal(s, "{\"action\":\"accept\",\"content\":{\"age\":30,\"name\":\"J\"}}");
  json_decref(r);
  json_array_append_new(json_object_get(json_object_get(p, "requestedSchema"), "required"),
                        json_string("x"));
  r = zmcp_elicit_accept_defaults(p);
  assert_string_equal(json_string_value(json_object_get(r, "action")), "decline");
  json_decref(r);
  json_decref(p);
}

/* ---- workspace trust ---- */

/* 20 zero processes trust 20 workspaces at once: the trust file ends with
 * every one (the add is a locked read-modify-write, zjson_update_file;
 * without the lock, concurrent adds lose each other's entry). A trust file
 * that is not an object is an error naming it, and is left as it is. */
static void test_trust_workspace_keeps_concurrent_adds(void **state) {
  (void)state;
  char dir[] = "/tmp/zero-test-XXXXXX";
  assert_non_null(mkdtemp(dir));
  setenv("XDG_CONFIG_HOME", dir, 1);
  enum { WRITERS = 20 };
  pid_t pids[WRITERS];
  for (int i = 0; i < WRITERS; i++) {
    pids[i] = fork();
    assert_true(pids[i] >= 0);
    if (pids[i] == 0) {
      char ws[64];
      snprintf(ws, sizeof ws, "/work/ws%d", i);
      zerr err = ZERR_INIT;
      _exit(zmcp_trust_workspace(ws, &err) == 0 ? 0 : 1);
    }
  }
  for (int i = 0; i < WRITERS; i++) {
    int st = 0;
    assert_int_equal(waitpid(pids[i], &st, 0), pids[i]);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
  }
  for (int i = 0; i < WRITERS; i++) {
    char ws[64];
    snprintf(ws, sizeof ws, "/work/ws%d", i);
    assert_true(zmcp_workspace_trusted(ws));
  }
  zerr err = ZERR_INIT;
  assert_int_equal(zmcp_trust_workspace("/work/ws0", &err), 0); /* present: no duplicate */
  char *file = zpath_join(dir, "zero/trusted-workspaces.json");
  json_t *doc = zjson_load_file(file, &err);
  assert_non_null(doc);
  assert_int_equal(json_array_size(json_object_get(doc, "workspaces")), WRITERS);
  json_decref(doc);
  FILE *f = fopen(file, "w");
  assert_non_null(f);
  fputs("[1]\n", f);
  fclose(f);
  assert_int_equal(zmcp_trust_workspace("/work/other", &err), -1);
  assert_non_null(strstr(err.msg, "trusted-workspaces.json"));
  free(file);
  unsetenv("XDG_CONFIG_HOME");
  char cmd[256];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  assert_int_equal(system(cmd), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_framer_same_lines_for_every_split),
      cmocka_unit_test(test_framer_oversized_line_fails_and_stays_failed),
      cmocka_unit_test(test_classify_kinds_and_batches),
      cmocka_unit_test(test_classify_rejects_what_is_not_jsonrpc),
      cmocka_unit_test(test_builders_round_trip),
      cmocka_unit_test(test_server_parse_types_and_errors),
      cmocka_unit_test(test_decide_modes_and_grants),
      cmocka_unit_test(test_tool_names_are_model_safe),
      cmocka_unit_test(test_render_result_content_kinds),
      cmocka_unit_test(test_stdio_client_handles_server_messages),
      cmocka_unit_test(test_elicit_accept_defaults),
      cmocka_unit_test(test_trust_workspace_keeps_concurrent_adds),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
