/* cmd_version.c — `zero --version`: version, commit and linked libraries. */
#include <curl/curl.h>
#include <jansson.h>
#include <openssl/crypto.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"

int cmd_version(int argc, char **argv) {
  if (argc > 0 && (!strcmp(argv[0], "--help") || !strcmp(argv[0], "-h"))) {
    printf("Usage: zero --version\n\nPrints the version, the commit it was built from and the\n"
           "versions of the libraries it links.\n\nExample:\n  zero --version\n");
    return ZEXIT_SUCCESS;
  }
  /* curl_version() is cheap (no global init needed) and names curl's TLS and
   * HTTP/2 backends too. */
  printf("zero %s\n", ZERO_VERSION);
  printf("commit: %s\n", ZERO_COMMIT);
  printf("libraries: %s jansson/%s %s\n", curl_version(), JANSSON_VERSION,
         OpenSSL_version(OPENSSL_VERSION));
  return ZEXIT_SUCCESS;
}
