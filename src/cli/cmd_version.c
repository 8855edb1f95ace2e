/* cmd_version.c — `zero --version`: version, commit and libraries.
 *
 * Kept cheap on purpose: libcurl is loaded only when the network is needed
 * (net/curl_loader.h), so this prints the libcurl version zero was built
 * against; `zero version --verbose` loads libcurl and prints what it links
 * (TLS, HTTP/2, …). jansson is linked, so its runtime version is shown. */
#include <curl/curlver.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "base/common.h"
#include "base/opts.h"
#include "cli/cli.h"
#include "cli/commands.h"
#include "net/curl_loader.h"
#include "net/http.h"

enum { V_HELP = 1, V_VERBOSE };

static const zopt VERSION_OPTS[] = {
    {V_VERBOSE, "verbose", 'V', ZOPT_FLAG, 0, NULL,
     "also load libcurl and print its runtime version", "Flags"},
    {V_HELP, "help", 'h', ZOPT_FLAG, 0, NULL, "show this help", NULL},
};

const zopt_spec zcli_version_opts = {.command = "version", .opts = VERSION_OPTS,
                                     .n_opts = ZARRAY_LEN(VERSION_OPTS),
                                     .see = " (see zero version --help)"};

int cmd_version(int argc, char **argv) {
  bool verbose = false;
  zopt_parser op;
  zopt_hit hit;
  zerr perr = ZERR_INIT;
  zopt_init(&op, &zcli_version_opts, argc, argv);
  while (zopt_next(&op, &hit, &perr) > 0) {
    if (hit.id == V_HELP) {
      printf("Usage: zero --version [--verbose]\n\n"
             "Prints the version, the commit it was built from and the versions of the\n"
             "libraries it uses. --verbose also loads libcurl and prints its runtime\n"
             "version with its TLS, HTTP/2 and compression libraries.\n\n");
      zopt_print_flags(stdout, &zcli_version_opts);
      printf("\nExample:\n  zero --version\n  zero version --verbose\n");
      return ZEXIT_SUCCESS;
    }
    if (hit.id == V_VERBOSE) {
      verbose = true;
    } else {
      zerr_set(&perr, ZE_USAGE, "unknown flag \"%s\" (see zero version --help)", hit.value);
      break;
    }
  }
  if (perr.kind != ZE_OK) return zcli_usage_error("version", perr.msg);
  printf("zero %s\n", ZERO_VERSION);
  printf("commit: %s\n", ZERO_COMMIT);
  printf("libraries: jansson/%s libcurl/%s (loaded on first network use)\n",
         jansson_version_str(), LIBCURL_VERSION);
  if (verbose) {
    zerr err = ZERR_INIT;
    if (zcurl_load(&err) == 0)
      printf("libcurl runtime: %s\n", zhttp_version());
    else
      printf("libcurl runtime: unavailable: %s\n", err.msg);
  }
  return fflush(stdout) == 0 ? ZEXIT_SUCCESS : ZEXIT_INTERNAL;
}
