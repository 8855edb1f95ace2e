/* list_args.c — see list_args.h. */
#include "cli/list_args.h"

#include <string.h>

#include "base/err.h"
#include "cli/commands.h"
#include "cli/exit_codes.h"

int zcli_list_parse(const zcli_list_spec *s, int argc, char **argv, zcli_list_args *out) {
  *out = (zcli_list_args){0};
  zopt_parser op;
  zopt_hit hit;
  zerr perr = ZERR_INIT;
  int npos = 0;
  zopt_init(&op, s->opts, argc, argv);
  while (zopt_next(&op, &hit, &perr) > 0) {
    if (hit.id == s->help_id) {
      s->usage(stdout);
      return ZEXIT_SUCCESS;
    }
    if (hit.id == s->json_id) {
      out->json = true;
    } else if (s->value_id && hit.id == s->value_id) {
      out->value = hit.value;
    } else if (hit.id == ZOPT_ARG && npos++ == 0 && !strcmp(hit.value, "list")) {
      /* the one subcommand, and the default */
    } else {
      zerr_set(&perr, ZE_USAGE, "unknown argument \"%s\"", hit.value);
      break;
    }
  }
  if (perr.kind == ZE_OK) return -1;
  return zcli_usage_error(s->opts->command, perr.msg);
}
