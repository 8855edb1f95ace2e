/* exec_args.c — `zero exec` flag parsing; see exec_args.h. */
#include "cli/exec_args.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/common.h"
#include "base/ids.h"

/* Matches "--name" or "--name=value" (value returned in *inline_val). */
static bool flag_is(const char *arg, const char *name, const char **inline_val) {
  size_t n = strlen(name);
  if (strncmp(arg, name, n) != 0) return false;
  if (arg[n] == '\0') {
    *inline_val = NULL;
    return true;
  }
  if (arg[n] == '=' && name[1] == '-') {
    *inline_val = arg + n + 1;
    return true;
  }
  return false;
}

/* Takes the flag's value from "=value" or the next word. */
static const char *take_value(int argc, char **argv, int *i, const char *flag,
                              const char *inline_val, zerr *err) {
  if (inline_val) return inline_val;
  if (*i + 1 >= argc) {
    zerr_set(err, ZE_USAGE, "flag %s needs a value", flag);
    return NULL;
  }
  return argv[++*i];
}

static int parse_output(const char *v, zexec_args *a, zerr *err) {
  if (!strcmp(v, "text")) a->output = ZOUT_TEXT;
  else if (!strcmp(v, "json")) a->output = ZOUT_JSON;
  else if (!strcmp(v, "stream-json") || !strcmp(v, "debug")) a->output = ZOUT_STREAM_JSON;
  else
    return zerr_set(err, ZE_USAGE,
                    "Invalid output format \"%s\". Expected text, json or stream-json.", v);
  return 0;
}

/* Pre-pass: find -o so that errors in other flags are reported in it. */
static void scan_output(int argc, char **argv, zexec_args *a) {
  for (int i = 0; i < argc; i++) {
    const char *v = NULL;
    if (!strcmp(argv[i], "--")) return;
    if (!strcmp(argv[i], "-o") || flag_is(argv[i], "--output-format", &v)) {
      if (!v && i + 1 < argc) v = argv[i + 1];
      if (v) {
        zerr ignored;
        parse_output(v, a, &ignored);
      }
    }
  }
}

/* The shape of a generated session id, zero_<YYYYMMDDhhmmss>_<ns>_<n>: no
 * prompt starts like that, so after --resume it is an id even when no such
 * session exists (a mistyped id then fails as not found instead of sending
 * it as the prompt to the latest session). */
static bool generated_session_id(const char *s) {
  if (strncmp(s, "zero_", 5) != 0) return false;
  s += 5;
  for (int i = 0; i < 14; i++)
    if (!isdigit((unsigned char)*s++)) return false;
  for (int part = 0; part < 2; part++) {
    if (*s++ != '_' || !isdigit((unsigned char)*s)) return false;
    while (isdigit((unsigned char)*s)) s++;
  }
  return *s == '\0';
}

int zexec_args_parse(int argc, char **argv, zexec_args *a, bool (*is_session)(const char *id),
                     zerr *err) {
  memset(a, 0, sizeof *a);
  zbuf_init(&a->prompt);
  zbuf_init(&a->enabled_tools);
  zbuf_init(&a->disabled_tools);
  a->mode = ZPERM_AUTO;
  a->autonomy = ZAUTO_LOW;
  a->add_dirs = xcalloc((size_t)argc + 1, sizeof *a->add_dirs);
  a->images = xcalloc((size_t)argc + 1, sizeof *a->images);
  scan_output(argc, argv, a);

  for (int i = 0; i < argc; i++) {
    const char *arg = argv[i], *iv = NULL, *v;
    if (!strcmp(arg, "--")) {
      for (i++; i < argc; i++) {
        if (a->prompt.len) zbuf_addch(&a->prompt, ' ');
        zbuf_addstr(&a->prompt, argv[i]);
      }
      break;
    }
    if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
      a->help = true;
    } else if (!strcmp(arg, "-o") || flag_is(arg, "--output-format", &iv)) {
      if (!(v = take_value(argc, argv, &i, arg, iv, err))) return -1;
      if (parse_output(v, a, err) < 0) return -1;
    } else if (!strcmp(arg, "-i") || flag_is(arg, "--input-format", &iv)) {
      if (!(v = take_value(argc, argv, &i, arg, iv, err))) return -1;
      if (!strcmp(v, "text")) a->input = ZIN_TEXT;
      else if (!strcmp(v, "stream-json")) a->input = ZIN_STREAM_JSON;
      else
        return zerr_set(err, ZE_USAGE,
                        "Invalid input format \"%s\". Expected text or stream-json.", v);
    } else if (!strcmp(arg, "-p") || !strncmp(arg, "-p=", 3) || flag_is(arg, "--prompt", &iv)) {
      if (!strncmp(arg, "-p=", 3)) iv = arg + 3; /* Go zero accepts "-p=TEXT" (only -p) */
      if (!(v = take_value(argc, argv, &i, arg, iv, err))) return -1;
      if (a->prompt.len) zbuf_addch(&a->prompt, ' ');
      zbuf_addstr(&a->prompt, v);
    } else if (!strcmp(arg, "-f") || flag_is(arg, "--file", &iv)) {
      if (!(a->prompt_file = take_value(argc, argv, &i, arg, iv, err))) return -1;
    } else if (!strcmp(arg, "-m") || flag_is(arg, "--model", &iv)) {
      if (!(a->model = take_value(argc, argv, &i, arg, iv, err))) return -1;
    } else if (!strcmp(arg, "-r") || flag_is(arg, "--reasoning-effort", &iv)) {
      if (!(v = take_value(argc, argv, &i, arg, iv, err))) return -1;
      if (strcmp(v, "minimal") && strcmp(v, "low") && strcmp(v, "medium") && strcmp(v, "high"))
        return zerr_set(err, ZE_USAGE,
                        "Invalid reasoning effort \"%s\". Expected minimal, low, medium, or high.",
                        v);
      a->reasoning_effort = v;
    } else if (flag_is(arg, "--provider", &iv)) {
      if (!(a->provider = take_value(argc, argv, &i, arg, iv, err))) return -1;
    } else if (!strcmp(arg, "-C") || flag_is(arg, "--cwd", &iv)) {
      if (!(a->cwd = take_value(argc, argv, &i, arg, iv, err))) return -1;
    } else if (flag_is(arg, "--session-title", &iv)) {
      if (!(a->session_title = take_value(argc, argv, &i, arg, iv, err))) return -1;
    } else if (flag_is(arg, "--max-turns", &iv)) {
      if (!(v = take_value(argc, argv, &i, arg, iv, err))) return -1;
      char *end;
      errno = 0;
      long n = strtol(v, &end, 10);
      if (errno || *end || n <= 0 || n > 10000)
        return zerr_set(err, ZE_USAGE, "--max-turns must be a whole number from 1 to 10000, not \"%s\"",
                        v);
      a->max_turns = (int)n;
    } else if (flag_is(arg, "--resume", &iv)) {
      a->resume = true;
      if (iv && iv[0]) {
        a->resume_id = iv; /* "--resume=" alone means the latest, like "--resume" */
      } else if (i + 1 < argc && zid_is_safe(argv[i + 1]) &&
                 ((is_session && is_session(argv[i + 1])) || generated_session_id(argv[i + 1]))) {
        a->resume_id = argv[++i];
      }
    } else if (!strcmp(arg, "--resume-latest")) {
      a->resume = true;
      a->resume_id = NULL;
    } else if (flag_is(arg, "--init-session-id", &iv)) {
      if (!(a->init_session_id = take_value(argc, argv, &i, arg, iv, err))) return -1;
    } else if (!strcmp(arg, "--no-notify") || !strcmp(arg, "--no-completion-gate")) {
      /* Go zero's flags, accepted so its CI scripts run unchanged: zero exec
       * sends no notifications and has no completion gate to turn off. */
    } else if (flag_is(arg, "--profile", &iv)) {
      /* Legacy in Go zero too (ignored there): accepted and ignored. */
      if (!take_value(argc, argv, &i, arg, iv, err)) return -1;
    } else if (!strcmp(arg, "--plan")) {
      a->mode = ZPERM_PLAN; /* Go zero: the same as --permission-mode plan */
      a->mode_given = true;
    } else if (flag_is(arg, "--fork", &iv)) {
      if (!(a->fork_id = take_value(argc, argv, &i, arg, iv, err))) return -1;
    } else if (flag_is(arg, "--permission-mode", &iv)) {
      if (!(v = take_value(argc, argv, &i, arg, iv, err))) return -1;
      if (zperm_mode_parse(v, &a->mode, err) < 0) return -1;
      a->mode_given = true;
    } else if (flag_is(arg, "--auto", &iv)) {
      if (!(v = take_value(argc, argv, &i, arg, iv, err))) return -1;
      if (zautonomy_parse(v, &a->autonomy, err) < 0) return -1;
    } else if (!strcmp(arg, "--skip-permissions-unsafe")) {
      a->skip_permissions_unsafe = true;
    } else if (flag_is(arg, "--add-dir", &iv)) {
      if (!(v = take_value(argc, argv, &i, arg, iv, err))) return -1;
      a->add_dirs[a->n_add_dirs++] = v;
    } else if (flag_is(arg, "--image", &iv)) {
      if (!(v = take_value(argc, argv, &i, arg, iv, err))) return -1;
      a->images[a->n_images++] = v;
    } else if (!strcmp(arg, "--list-tools")) {
      a->list_tools = true;
    } else if (!strcmp(arg, "--offline")) {
      a->offline = true;
    } else if (flag_is(arg, "--enabled-tools", &iv) || flag_is(arg, "--disabled-tools", &iv)) {
      if (!(v = take_value(argc, argv, &i, arg, iv, err))) return -1;
      zbuf *list = !strncmp(arg, "--enabled", 9) ? &a->enabled_tools : &a->disabled_tools;
      zbuf_addf(list, "%s%s", list->len ? "," : "", v);
    } else if (arg[0] == '-' && arg[1] != '\0') {
      return zerr_set(err, ZE_USAGE, "unknown exec flag \"%s\" (see zero exec --help)", arg);
    } else {
      if (a->prompt.len) zbuf_addch(&a->prompt, ' ');
      zbuf_addstr(&a->prompt, arg);
    }
  }
  if (a->enabled_tools.len || a->disabled_tools.len) {
    err->msg[0] = '\0'; /* NULL below is an error only with a message */
    a->tools_off = zperm_tool_filter(a->enabled_tools.len ? a->enabled_tools.data : NULL,
                                     a->disabled_tools.len ? a->disabled_tools.data : NULL, err);
    if (!a->tools_off && err->msg[0]) return -1;
  }
  if (a->init_session_id && (a->resume || a->fork_id))
    return zerr_set(err, ZE_USAGE, "--init-session-id names a new session; it cannot be combined "
                    "with --resume or --fork");
  if (a->fork_id && a->resume)
    return zerr_set(err, ZE_USAGE, "--fork and --resume cannot be combined: --fork ID already "
                    "continues (a copy of) session ID");
  return 0;
}

void zexec_args_release(zexec_args *a) {
  zbuf_release(&a->prompt);
  zbuf_release(&a->enabled_tools);
  zbuf_release(&a->disabled_tools);
  zperm_tool_list_free(a->tools_off);
  a->tools_off = NULL;
  free(a->add_dirs);
  a->add_dirs = NULL;
  free(a->images);
  a->images = NULL;
}
