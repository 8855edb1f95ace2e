/* write_stdin.c — continues a session started by exec_command: sends
 * characters (empty = just wait for output, "\u0003" = interrupt) and returns
 * the output produced since the last call, or the exit status. */
#include <string.h>

#include "base/common.h"
#include "base/json.h"
#include "base/time.h"
#include "exec/proc.h"
#include "tools/output.h"
#include "tools/tools_internal.h"

#define STDIN_DEFAULT_YIELD_MS 1000
#define STDIN_POLL_YIELD_MS 10000

static const char write_stdin_schema[] =
    "{\"type\":\"object\",\"properties\":{"
    "\"session_id\":{\"type\":\"integer\",\"description\":\"The session id exec_command "
    "returned for a command still running.\"},"
    "\"chars\":{\"type\":\"string\",\"description\":\"Characters to send to the command's "
    "stdin (include \\\"\\\\n\\\" to press Enter). Empty: send nothing, just wait for more "
    "output. \\\"\\\\u0003\\\" interrupts (Ctrl-C).\"},"
    "\"yield_time_ms\":{\"type\":\"integer\",\"minimum\":250,\"maximum\":30000,\"description\":"
    "\"How long to wait for output before returning. Default 1000 when sending characters, "
    "10000 when only waiting.\"},"
    "\"max_output_tokens\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":200000,"
    "\"description\":\"Most output to return, in tokens. Default 10000.\"}"
    "},\"required\":[\"session_id\"],\"additionalProperties\":false}";

/* Models often spell Ctrl-C out instead of sending the character: the JSON
 * escape typed once too often ("\\u0003" arrives as six characters), "^C",
 * "ctrl-c", "interrupt". Whole-input matches only (case and spaces ignored),
 * so ordinary input containing these words is sent as it is. */
static bool means_interrupt(const char *s, size_t n) {
  static const char *const forms[] = {"\x03",   "\\u0003", "\\\\u0003", "\\x03",    "^c",
                                      "ctrl-c", "ctrl+c",  "control-c",  "sigint", "interrupt"};
  char norm[32];
  size_t k = 0;
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') continue;
    if (k + 1 >= sizeof norm) return false;
    norm[k++] = (char)(c >= 'A' && c <= 'Z' ? c + 32 : c);
  }
  norm[k] = '\0';
  for (size_t i = 0; i < ZARRAY_LEN(forms); i++)
    if (!strcmp(norm, forms[i])) return true;
  return false;
}

static int run_write_stdin(const ztool_ctx *ctx, const json_t *args, ztool_result *res) {
  int id = (int)zjson_int_or(args, "session_id", 0);
  const json_t *cv = json_object_get(args, "chars");
  const char *chars = cv ? json_string_value(cv) : "";
  size_t n = cv ? json_string_length(cv) : 0;
  int64_t yield = zjson_int_or(args, "yield_time_ms",
                               n ? STDIN_DEFAULT_YIELD_MS : STDIN_POLL_YIELD_MS);
  size_t max_bytes = (size_t)zjson_int_or(args, "max_output_tokens", 10000) * ZT_BYTES_PER_TOKEN;

  if (n > 1 && means_interrupt(chars, n)) {
    chars = "\x03";
    n = 1;
  }
  zexec_proc *p = zexec_table_get(zexec_table_default(), id);
  /* One text whatever the id: the answer must not tell which ids exist
   * (no probing oracle for other runs' sessions). */
  if (!p)
    return ztool_fail(res,
                      "write_stdin: there is no running session with that session_id; it has "
                      "finished (its exit status was reported) or was never started. Start the "
                      "command again with exec_command.");
  zerr err = ZERR_INIT;
  if (zexec_proc_write(p, chars, n, &err) < 0) return ztool_fail(res, "write_stdin: %s", err.msg);
  return zt_exec_wait_and_report(ctx, "write_stdin", p, ztime_mono_ms() + yield, max_bytes, res);
}

const ztool ztool_def_write_stdin = {
    .name = "write_stdin",
    .description =
        "Continue a command that exec_command left running (it returned a session_id): send "
        "characters to its stdin (needs tty: true on exec_command), or send nothing to wait "
        "for more output, or \"\\u0003\" to interrupt it. Returns the output since the last "
        "call, then the exit code once it has finished.",
    .parameters_json = write_stdin_schema,
    .side_effect = ZSIDE_SHELL,
    .read_only = false,
    .run = run_write_stdin,
};
