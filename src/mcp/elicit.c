/* elicit.c — answers to a server's elicitation requests that need no
 * person; see client.h. */
#include <jansson.h>

#include "mcp/client.h"

json_t *zmcp_elicit_accept_defaults(const json_t *params) {
  const json_t *schema = json_object_get(params, "requestedSchema");
  const json_t *props = json_object_get(schema, "properties");
  json_t *content = json_object();
  const char *name;
  json_t *prop;
  json_object_foreach((json_t *)props, name, prop) {
    json_t *def = json_object_get(prop, "default");
    if (def) json_object_set(content, name, def);
  }
  size_t i;
  json_t *req;
  json_array_foreach(json_object_get(schema, "required"), i, req) {
    if (json_is_string(req) && !json_object_get(content, json_string_value(req))) {
      json_decref(content); /* a required answer nobody can give */
      return json_pack("{s:s}", "action", "decline");
    }
  }
  return json_pack("{s:s, s:o}", "action", "accept", "content", content);
}
