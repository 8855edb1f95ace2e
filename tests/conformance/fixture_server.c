/* fixture_server.c — the MCP conformance suite's reference catalog (its
 * test_* tools, test:// resources and test_* prompts, as each server
 * scenario describes them) served by zero's own MCP server core and
 * Streamable HTTP transport (src/mcp/server.c, src/mcp/serve_http.c).
 *
 * Half the suite's server scenarios call fixtures by name
 * (test_simple_text, test://static-binary, …) that a coding agent has no
 * business shipping; this program lets those scenarios exercise zero's
 * protocol and transport code, while tests/e2e/test_mcp_conformance_server.py
 * runs the fixture-free scenarios against `zero serve --mcp --http` itself.
 *
 * Usage: zero-mcp-fixture-server [PORT]   (prints the endpoint URL on stdout;
 * SIGTERM or SIGINT stops it)
 */
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/buf.h"
#include "base/common.h"
#include "base/json.h"
#include "mcp/serve_http.h"
#include "mcp/server.h"

#define PNG \
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC"
#define WAV "UklGRiwAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YQgAAAAAAAAAAAAAAA=="

static const char TOOLS[] = "[{\"name\":\"test_simple_text\",\"description\":\"Returns simple "
                            "text\",\"inputSchema\":{\"type\":\"object\"}},"
                            "{\"name\":\"test_image_content\",\"description\":\"Returns an "
                            "image\",\"inputSchema\":{\"type\":\"object\"}},"
                            "{\"name\":\"test_audio_content\",\"description\":\"Returns "
                            "audio\",\"inputSchema\":{\"type\":\"object\"}},"
                            "{\"name\":\"test_embedded_resource\",\"description\":\"Returns an "
                            "embedded resource\",\"inputSchema\":{\"type\":\"object\"}},"
                            "{\"name\":\"test_multiple_content_types\",\"description\":\"Returns "
                            "mixed content\",\"inputSchema\":{\"type\":\"object\"}},"
                            "{\"name\":\"test_tool_with_logging\",\"description\":\"Logs while it "
                            "runs\",\"inputSchema\":{\"type\":\"object\"}},"
                            "{\"name\":\"test_error_handling\",\"description\":\"Always "
                            "fails\",\"inputSchema\":{\"type\":\"object\"}},"
                            "{\"name\":\"test_tool_with_progress\",\"description\":\"Reports "
                            "progress\",\"inputSchema\":{\"type\":\"object\"}},"
                            "{\"name\":\"test_sampling\",\"description\":\"Asks the client's "
                            "model\",\"inputSchema\":{\"type\":\"object\",\"properties\":{"
                            "\"prompt\":{\"type\":\"string\"}},\"required\":[\"prompt\"]}},"
                            "{\"name\":\"test_elicitation\",\"description\":\"Asks the "
                            "user\",\"inputSchema\":{\"type\":\"object\",\"properties\":{"
                            "\"message\":{\"type\":\"string\"}},\"required\":[\"message\"]}},"
                            "{\"name\":\"test_elicitation_sep1034_defaults\",\"description\":"
                            "\"Elicits with defaults\",\"inputSchema\":{\"type\":\"object\"}},"
                            "{\"name\":\"test_elicitation_sep1330_enums\",\"description\":"
                            "\"Elicits enums\",\"inputSchema\":{\"type\":\"object\"}},"
                            "{\"name\":\"test_reconnection\",\"description\":\"Closes its stream "
                            "mid-call\",\"inputSchema\":{\"type\":\"object\"}},"
                            "{\"name\":\"json_schema_2020_12_tool\",\"description\":\"Tool with "
                            "JSON Schema 2020-12 features\","
                            "\"inputSchema\":{\"$schema\":\"https://json-schema.org/draft/2020-12/"
                            "schema\",\"type\":\"object\","
                            "\"$defs\":{\"address\":{\"type\":\"object\",\"properties\":{"
                            "\"street\":{\"type\":\"string\"},\"city\":{\"type\":\"string\"}}}},"
                            "\"properties\":{\"name\":{\"type\":\"string\"},\"address\":{\"$ref\":"
                            "\"#/$defs/address\"}},\"additionalProperties\":false}}]";

static const char SEP1034[] = "{\"type\":\"object\",\"properties\":{"
                              "\"name\":{\"type\":\"string\",\"default\":\"John Doe\"},"
                              "\"age\":{\"type\":\"integer\",\"default\":30},"
                              "\"score\":{\"type\":\"number\",\"default\":95.5},"
                              "\"status\":{\"type\":\"string\",\"enum\":[\"active\",\"inactive\","
                              "\"pending\"],\"default\":\"active\"},"
                              "\"verified\":{\"type\":\"boolean\",\"default\":true}}}";

static const char SEP1330[] =
    "{\"type\":\"object\",\"properties\":{"
    "\"untitledSingle\":{\"type\":\"string\",\"enum\":[\"option1\",\"option2\",\"option3\"]},"
    "\"titledSingle\":{\"type\":\"string\",\"oneOf\":[{\"const\":\"value1\",\"title\":\"First "
    "Option\"},"
    "{\"const\":\"value2\",\"title\":\"Second Option\"},{\"const\":\"value3\",\"title\":\"Third "
    "Option\"}]},"
    "\"legacyEnum\":{\"type\":\"string\",\"enum\":[\"opt1\",\"opt2\",\"opt3\"],"
    "\"enumNames\":[\"Option One\",\"Option Two\",\"Option Three\"]},"
    "\"untitledMulti\":{\"type\":\"array\",\"items\":{\"type\":\"string\",\"enum\":[\"option1\","
    "\"option2\",\"option3\"]}},"
    "\"titledMulti\":{\"type\":\"array\",\"items\":{\"anyOf\":[{\"const\":\"value1\",\"title\":"
    "\"First Choice\"},"
    "{\"const\":\"value2\",\"title\":\"Second Choice\"},{\"const\":\"value3\",\"title\":\"Third "
    "Choice\"}]}}}}";

static const char ELICIT_SCHEMA[] = "{\"type\":\"object\",\"properties\":{\"username\":{\"type\":"
                                    "\"string\",\"description\":\"User's response\"},"
                                    "\"email\":{\"type\":\"string\",\"description\":\"User's email "
                                    "address\"}},\"required\":[\"username\",\"email\"]}";

static void sleep_ms(int ms) {
  struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
}

static json_t *text_result(const char *text, bool is_error) {
  return json_pack("{s:[{s:s, s:s}], s:b}", "content", "type", "text", "text", text, "isError",
                   is_error);
}

static json_t *fail(int *code, char *msg, size_t n, int c, const char *why) {
  *code = c;
  snprintf(msg, n, "%s", why);
  return NULL;
}

/* Sends method to the client and describes its answer as text (the
 * scenarios read it back). */
static json_t *ask_and_report(zmcp_call *c, const char *method, json_t *params,
                              const char *prefix) {
  zerr err = ZERR_INIT;
  json_t *r = zmcp_call_ask(c, method, params, 30000, &err);
  json_decref(params);
  if (!r) return text_result(err.msg, true);
  char *dump = zjson_dumps(r);
  zbuf text = ZBUF_INIT;
  zbuf_addf(&text, "%s%s", prefix, dump);
  json_t *out = text_result(text.data, false);
  zbuf_release(&text);
  free(dump);
  json_decref(r);
  return out;
}

/* The tools that just return content; NULL for the others. */
static json_t *content_tool(const char *name) {
  if (!strcmp(name, "test_simple_text"))
    return text_result("This is a simple text response for testing.", false);
  if (!strcmp(name, "test_image_content"))
    return json_pack("{s:[{s:s, s:s, s:s}]}", "content", "type", "image", "data", PNG, "mimeType",
                     "image/png");
  if (!strcmp(name, "test_audio_content"))
    return json_pack("{s:[{s:s, s:s, s:s}]}", "content", "type", "audio", "data", WAV, "mimeType",
                     "audio/wav");
  if (!strcmp(name, "test_embedded_resource"))
    return json_pack("{s:[{s:s, s:{s:s, s:s, s:s}}]}", "content", "type", "resource", "resource",
                     "uri", "test://embedded-resource", "mimeType", "text/plain", "text",
                     "This is an embedded resource content.");
  if (!strcmp(name, "test_multiple_content_types"))
    return json_pack("{s:[{s:s, s:s}, {s:s, s:s, s:s}, {s:s, s:{s:s, s:s, s:s}}]}", "content",
                     "type", "text", "text", "Multiple content types test:", "type", "image",
                     "data", PNG, "mimeType", "image/png", "type", "resource", "resource", "uri",
                     "test://mixed-content-resource", "mimeType", "application/json", "text",
                     "{\"test\":\"data\",\"value\":123}");
  if (!strcmp(name, "test_error_handling"))
    return text_result("This tool intentionally returns an error for testing", true);
  if (!strcmp(name, "json_schema_2020_12_tool")) return text_result("ok", false);
  return NULL;
}

static json_t *elicitation_tool(zmcp_call *c, const char *name, json_t *args);

/* The tools that talk to the client while they run; NULL for the others. */
static json_t *interactive_tool(zmcp_call *c, const char *name, json_t *args) {
  if (!strcmp(name, "test_tool_with_logging")) {
    const char *steps[] = {"Tool execution started", "Tool processing data",
                           "Tool execution completed"};
    for (size_t i = 0; i < ZARRAY_LEN(steps); i++) {
      if (i) sleep_ms(50);
      json_t *d = json_string(steps[i]);
      zmcp_call_log(c, "info", "fixture", d);
      json_decref(d);
    }
    return text_result("Tool with logging executed successfully", false);
  }
  if (!strcmp(name, "test_tool_with_progress")) {
    for (int p = 0; p <= 100; p += 50) {
      if (p) sleep_ms(50);
      zmcp_call_progress(c, p, 100, NULL);
    }
    return text_result("Tool with progress executed successfully", false);
  }
  if (!strcmp(name, "test_reconnection")) {
    zmcp_call_detach(c, 500);
    sleep_ms(100);
    return text_result("Reconnection test completed", false);
  }
  if (!strcmp(name, "test_sampling")) {
    if (!zmcp_call_client_has(c, "sampling"))
      return text_result("the client does not support sampling", true);
    const char *prompt = zjson_str(args, "prompt");
    return ask_and_report(c, "sampling/createMessage",
                          json_pack("{s:[{s:s, s:{s:s, s:s}}], s:i}", "messages", "role", "user",
                                    "content", "type", "text", "text", prompt ? prompt : "",
                                    "maxTokens", 100),
                          "LLM response: ");
  }
  return elicitation_tool(c, name, args);
}

static json_t *elicitation_tool(zmcp_call *c, const char *name, json_t *args) {
  if (!strncmp(name, "test_elicitation", 16)) {
    if (!zmcp_call_client_has(c, "elicitation"))
      return text_result("the client does not support elicitation", true);
    const char *schema = !strcmp(name, "test_elicitation_sep1034_defaults") ? SEP1034
                         : !strcmp(name, "test_elicitation_sep1330_enums")  ? SEP1330
                                                                            : ELICIT_SCHEMA;
    const char *message = zjson_str(args, "message");
    return ask_and_report(c, "elicitation/create",
                          json_pack("{s:s, s:o}", "message",
                                    message ? message : "Please review and update the form",
                                    "requestedSchema", json_loads(schema, 0, NULL)),
                          "Elicitation completed: ");
  }
  return NULL;
}

static json_t *call_tool(zmcp_call *c, const char *name, json_t *args, int *code, char *msg,
                         size_t n) {
  json_t *r = content_tool(name);
  if (!r) r = interactive_tool(c, name, args);
  if (r) return r;
  char why[200];
  snprintf(why, sizeof why, "unknown tool \"%.100s\"", name);
  return fail(code, msg, n, ZRPC_INVALID_PARAMS, why);
}

static json_t *read_resource(const char *uri, int *code, char *msg, size_t n) {
  if (!strcmp(uri, "test://static-text"))
    return json_pack("{s:[{s:s, s:s, s:s}]}", "contents", "uri", uri, "mimeType", "text/plain",
                     "text", "This is the content of the static text resource.");
  if (!strcmp(uri, "test://static-binary"))
    return json_pack("{s:[{s:s, s:s, s:s}]}", "contents", "uri", uri, "mimeType", "image/png",
                     "blob", PNG);
  if (!strcmp(uri, "test://watched-resource"))
    return json_pack("{s:[{s:s, s:s, s:s}]}", "contents", "uri", uri, "mimeType", "text/plain",
                     "text", "watched");
  char id[64];
  int end = 0;
  if (sscanf(uri, "test://template/%63[^/]/data%n", id, &end) == 1 && !uri[end]) {
    json_t *body =
        json_pack("{s:s, s:b, s:s+}", "id", id, "templateTest", 1, "data", "Data for ID: ", id);
    char *text = zjson_dumps(body);
    json_t *r = json_pack("{s:[{s:s, s:s, s:s}]}", "contents", "uri", uri, "mimeType",
                          "application/json", "text", text);
    free(text);
    json_decref(body);
    return r;
  }
  return fail(code, msg, n, -32002, "resource not found");
}

static json_t *get_prompt(const char *name, json_t *args, int *code, char *msg, size_t n) {
  if (!strcmp(name, "test_simple_prompt"))
    return json_pack("{s:[{s:s, s:{s:s, s:s}}]}", "messages", "role", "user", "content", "type",
                     "text", "text", "This is a simple prompt for testing.");
  if (!strcmp(name, "test_prompt_with_arguments")) {
    const char *a1 = zjson_str(args, "arg1"), *a2 = zjson_str(args, "arg2");
    if (!a1 || !a2) return fail(code, msg, n, ZRPC_INVALID_PARAMS, "arg1 and arg2 are required");
    char text[512];
    snprintf(text, sizeof text, "Prompt with arguments: arg1='%.200s', arg2='%.200s'", a1, a2);
    return json_pack("{s:[{s:s, s:{s:s, s:s}}]}", "messages", "role", "user", "content", "type",
                     "text", "text", text);
  }
  if (!strcmp(name, "test_prompt_with_embedded_resource")) {
    const char *uri = zjson_str(args, "resourceUri");
    if (!uri) return fail(code, msg, n, ZRPC_INVALID_PARAMS, "resourceUri is required");
    return json_pack("{s:[{s:s, s:{s:s, s:{s:s, s:s, s:s}}}, {s:s, s:{s:s, s:s}}]}", "messages",
                     "role", "user", "content", "type", "resource", "resource", "uri", uri,
                     "mimeType", "text/plain", "text", "Embedded resource content for testing.",
                     "role", "user", "content", "type", "text", "text",
                     "Please process the embedded resource above.");
  }
  if (!strcmp(name, "test_prompt_with_image"))
    return json_pack("{s:[{s:s, s:{s:s, s:s, s:s}}, {s:s, s:{s:s, s:s}}]}", "messages", "role",
                     "user", "content", "type", "image", "data", PNG, "mimeType", "image/png",
                     "role", "user", "content", "type", "text", "text",
                     "Please analyze the image above.");
  return fail(code, msg, n, ZRPC_INVALID_PARAMS, "unknown prompt");
}

static json_t *capabilities(void *ud) {
  ZUNUSED(ud);
  return json_pack("{s:{s:b}, s:{s:b, s:b}, s:{s:b}, s:{}}", "tools", "listChanged", 0, "resources",
                   "subscribe", 1, "listChanged", 0, "prompts", "listChanged", 0, "completions");
}

static json_t *request(void *ud, zmcp_call *c, const char *method, json_t *params, int *code,
                       char *msg, size_t n) {
  ZUNUSED(ud);
  const char *name = zjson_str(params, "name");
  json_t *args = json_object_get(params, "arguments");
  if (!strcmp(method, "tools/list")) return json_pack("{s:o}", "tools", json_loads(TOOLS, 0, NULL));
  if (!strcmp(method, "tools/call"))
    return name ? call_tool(c, name, args, code, msg, n)
                : fail(code, msg, n, ZRPC_INVALID_PARAMS, "name is required");
  if (!strcmp(method, "resources/list"))
    return json_pack("{s:[{s:s, s:s, s:s, s:s}, {s:s, s:s, s:s, s:s}, {s:s, s:s, s:s}]}",
                     "resources", "uri", "test://static-text", "name", "static-text", "description",
                     "A static text resource", "mimeType", "text/plain", "uri",
                     "test://static-binary", "name", "static-binary", "description", "A static PNG",
                     "mimeType", "image/png", "uri", "test://watched-resource", "name",
                     "watched-resource", "description", "A resource to subscribe to");
  if (!strcmp(method, "resources/templates/list"))
    return json_pack("{s:[{s:s, s:s, s:s, s:s}]}", "resourceTemplates", "uriTemplate",
                     "test://template/{id}/data", "name", "template", "description",
                     "A templated resource", "mimeType", "application/json");
  if (!strcmp(method, "resources/read")) {
    const char *uri = zjson_str(params, "uri");
    return uri ? read_resource(uri, code, msg, n)
               : fail(code, msg, n, ZRPC_INVALID_PARAMS, "uri is required");
  }
  if (!strcmp(method, "resources/subscribe") || !strcmp(method, "resources/unsubscribe"))
    return zjson_str(params, "uri") ? json_object()
                                    : fail(code, msg, n, ZRPC_INVALID_PARAMS, "uri is required");
  if (!strcmp(method, "prompts/list"))
    return json_pack("{s:[{s:s, s:s}, {s:s, s:s, s:[{s:s, s:s, s:b}, {s:s, s:s, s:b}]}, {s:s, s:s, "
                     "s:[{s:s, s:s, s:b}]}, {s:s, s:s}]}",
                     "prompts", "name", "test_simple_prompt", "description", "A simple prompt",
                     "name", "test_prompt_with_arguments", "description", "A prompt with arguments",
                     "arguments", "name", "arg1", "description", "First test argument", "required",
                     1, "name", "arg2", "description", "Second test argument", "required", 1,
                     "name", "test_prompt_with_embedded_resource", "description",
                     "A prompt with a resource", "arguments", "name", "resourceUri", "description",
                     "URI of the resource to embed", "required", 1, "name",
                     "test_prompt_with_image", "description", "A prompt with an image");
  if (!strcmp(method, "prompts/get"))
    return name ? get_prompt(name, args, code, msg, n)
                : fail(code, msg, n, ZRPC_INVALID_PARAMS, "name is required");
  if (!strcmp(method, "completion/complete"))
    return json_pack("{s:{s:[], s:i, s:b}}", "completion", "values", "total", 0, "hasMore", 0);
  *code = ZRPC_METHOD_NOT_FOUND;
  return NULL;
}

static volatile sig_atomic_t stop;
static void on_signal(int sig) {
  ZUNUSED(sig);
  stop = 1;
}

static void on_listen(void *ud, const char *url) {
  ZUNUSED(ud);
  printf("%s\n", url);
  fflush(stdout);
}

int main(int argc, char **argv) {
  zmcp_catalog cat = {.name = "zero-conformance-fixtures",
                      .version = "1.0.0",
                      .capabilities = capabilities,
                      .request = request};
  zmcp_http_opts o = {.host = "127.0.0.1",
                      .port = argc > 1 ? (int)strtol(argv[1], NULL, 10) : 0,
                      .on_listen = on_listen,
                      .stop = &stop};
  struct sigaction sa = {.sa_handler = on_signal};
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
  signal(SIGPIPE, SIG_IGN);
  zerr err = ZERR_INIT;
  if (zmcp_serve_http(&cat, &o, &err) < 0) {
    fprintf(stderr, "zero-mcp-fixture-server: %s\n", err.msg);
    return 1;
  }
  return 0;
}
