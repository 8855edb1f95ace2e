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

#include "cli/cli.h"
#include "net/curl_loader.h"
#include "net/http.h"

int cmd_version(int argc, char **argv) {
  bool verbose = false;
  for (int i = 0; i < argc; i++) {
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      printf("Usage: zero --version [--verbose]\n\n"
             "Prints the version, the commit it was built from and the versions of the\n"
             "libraries it uses. --verbose also loads libcurl and prints its runtime\n"
             "version with its TLS, HTTP/2 and compression libraries.\n\n"
             "Example:\n  zero --version\n  zero version --verbose\n");
      return ZEXIT_SUCCESS;
    }
    if (!strcmp(argv[i], "--verbose") || !strcmp(argv[i], "-V")) {
      verbose = true;
    } else {
      fprintf(stderr, "zero version: unknown flag \"%s\" (see zero version --help)\n", argv[i]);
      return ZEXIT_USAGE;
    }
  }
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
