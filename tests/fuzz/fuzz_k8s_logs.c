/* fuzz_k8s_logs.c — libFuzzer target for the pod logs `zero batch collect
 * --k8s-logs` reads (batch/k8s.h): whatever the tasks' pods printed, which
 * the user does not control.
 *
 * Invariants: no crash or leak; every result kept is a JSON object whose
 * "id" is a non-empty string equal to its key and whose "exitCode" is an
 * integer; the count returned is at least the number of ids kept (a later
 * line for an id replaces the earlier one).
 */
#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "batch/k8s.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  json_t *by_id = json_object();
  long n = zbatch_k8s_scan_log((const char *)data, size, by_id);
  if (n < (long)json_object_size(by_id)) __builtin_trap();
  const char *key;
  json_t *r;
  json_object_foreach(by_id, key, r) {
    json_t *id = json_object_get(r, "id");
    if (!json_is_object(r) || !json_is_string(id) || !*json_string_value(id) ||
        strcmp(json_string_value(id), key) != 0 || !json_is_integer(json_object_get(r, "exitCode")))
      __builtin_trap();
  }
  json_decref(by_id);
  return 0;
}
