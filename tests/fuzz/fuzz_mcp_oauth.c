/* fuzz_mcp_oauth.c — what an OAuth server sends back to zero during an MCP
 * login: the WWW-Authenticate challenge (as a NUL-terminated string), the
 * protected-resource and authorization-server metadata, the token answer,
 * and metadata URLs built from a server-supplied issuer.
 *   ./build-fuzz/tests/fuzz/fuzz_mcp_oauth -max_total_time=60
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/common.h"
#include "base/strvec.h"
#include "oauth/oauth.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *s = xstrndup((const char *)data, size);
  free(zoauth_challenge_param(s, "resource_metadata"));
  free(zoauth_challenge_param(s, "scope"));
  strvec_free_array(zoauth_resource_md_urls(s));
  strvec_free_array(zoauth_as_md_urls(s));
  free(zoauth_origin(s));
  zerr err = ZERR_INIT;
  zoauth_resource_md rm;
  if (zoauth_parse_resource_md((const char *)data, size, &rm, &err) == 0)
    zoauth_resource_md_release(&rm);
  zoauth_as_md am;
  if (zoauth_parse_as_md((const char *)data, size, "https://issuer.example", &am, &err) == 0)
    zoauth_as_md_release(&am);
  zoauth_tokens t = {0};
  zoauth_parse_token_response((const char *)data, size, 1000, &t, &err);
  zoauth_tokens_release(&t);
  free(s);
  return 0;
}
