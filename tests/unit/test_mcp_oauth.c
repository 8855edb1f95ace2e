/* test_mcp_oauth.c — OAuth for MCP: PKCE (RFC 7636 appendix B), encodings,
 * WWW-Authenticate challenges, protected-resource and authorization-server
 * metadata, well-known URLs, token answers, the token store (0600, bound to
 * the server URL) and the "auth" / "oauth" config keys. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/common.h"
#include "base/fs.h"
#include "base/strvec.h"
#include "mcp/config.h"
#include "oauth/oauth.h"

static void test_pkce_rfc7636_appendix_b(void **state) {
  (void)state;
  char ch[ZOAUTH_CHALLENGE_LEN + 1];
  zerr err = ZERR_INIT;
  assert_int_equal(zoauth_pkce_challenge("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk", ch, &err),
                   0);
  assert_string_equal(ch, "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM");
  /* The appendix's octets encode to its verifier. */
  const unsigned char octets[32] = {116, 24, 223, 180, 151, 153, 224, 37, 79, 250, 96,
                                    125, 216, 173, 187, 186, 22, 212, 37, 77, 105, 214,
                                    191, 240, 91, 88, 5, 88, 83, 132, 141, 121};
  cleanup_free char *v = zoauth_base64url(octets, sizeof octets);
  assert_string_equal(v, "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk");
}

static void test_random_strings_are_urlsafe_and_differ(void **state) {
  (void)state;
  cleanup_free char *a = zoauth_random_string(48), *b = zoauth_random_string(48);
  assert_int_equal(strlen(a), 64);
  assert_string_not_equal(a, b);
  assert_int_equal(strspn(a, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"),
                   64);
  zbuf q = ZBUF_INIT;
  zoauth_urlencode(&q, "a b&c=d/é~");
  assert_string_equal(q.data, "a%20b%26c%3Dd%2F%C3%A9~");
  zbuf_release(&q);
}

static void test_challenge_params(void **state) {
  (void)state;
  const char *h = "Bearer error=\"invalid_token\", resource_metadata=\"https://mcp.example.com/"
                  ".well-known/oauth-protected-resource/mcp\", scope=\"read write\"";
  cleanup_free char *md = zoauth_challenge_param(h, "resource_metadata");
  cleanup_free char *sc = zoauth_challenge_param(h, "scope");
  assert_string_equal(md, "https://mcp.example.com/.well-known/oauth-protected-resource/mcp");
  assert_string_equal(sc, "read write");
  assert_null(zoauth_challenge_param(h, "realm"));
  /* Parameters of another scheme do not count; token form and escapes do. */
  const char *two = "Basic realm=\"x\", resource_metadata=\"https://evil\", Bearer "
                    "resource_metadata=https://ok/md, realm=\"a\\\"b\"";
  cleanup_free char *ok = zoauth_challenge_param(two, "resource_metadata");
  cleanup_free char *realm = zoauth_challenge_param(two, "realm");
  assert_string_equal(ok, "https://ok/md");
  assert_string_equal(realm, "a\"b");
  assert_null(zoauth_challenge_param(NULL, "scope"));
  assert_null(zoauth_challenge_param("Bearer", "scope"));
}

static void test_resource_metadata(void **state) {
  (void)state;
  zoauth_resource_md md;
  zerr err = ZERR_INIT;
  const char *ok = "{\"resource\":\"https://mcp.example.com/mcp\",\"authorization_servers\":"
                   "[\"https://auth.example.com/tenant\"],\"scopes_supported\":[\"a\",\"b\"]}";
  assert_int_equal(zoauth_parse_resource_md(ok, strlen(ok), &md, &err), 0);
  assert_string_equal(md.resource, "https://mcp.example.com/mcp");
  assert_string_equal(md.authorization_servers[0], "https://auth.example.com/tenant");
  assert_null(md.authorization_servers[1]);
  assert_string_equal(md.scopes_supported[1], "b");
  zoauth_resource_md_release(&md);
  const char *bad[] = {"[]", "{\"authorization_servers\":[]}",
                       "{\"authorization_servers\":[\"javascript:alert(1)\"]}", "{nope"};
  for (size_t i = 0; i < ZARRAY_LEN(bad); i++) {
    zerr e = ZERR_INIT;
    assert_int_equal(zoauth_parse_resource_md(bad[i], strlen(bad[i]), &md, &e), -1);
    assert_true(e.msg[0] != 0);
  }
}

static void test_as_metadata(void **state) {
  (void)state;
  zoauth_as_md md;
  zerr err = ZERR_INIT;
  const char *ok = "{\"issuer\":\"https://auth.example.com/t/\",\"authorization_endpoint\":"
                   "\"https://auth.example.com/t/authorize\",\"token_endpoint\":"
                   "\"https://auth.example.com/t/token\",\"registration_endpoint\":"
                   "\"https://auth.example.com/t/register\","
                   "\"code_challenge_methods_supported\":[\"plain\",\"S256\"]}";
  assert_int_equal(zoauth_parse_as_md(ok, strlen(ok), "https://auth.example.com/t", &md, &err), 0);
  assert_string_equal(md.token_endpoint, "https://auth.example.com/t/token");
  assert_string_equal(md.registration_endpoint, "https://auth.example.com/t/register");
  assert_true(md.s256);
  zoauth_as_md_release(&md);
  /* Another issuer than asked for is refused (mix-up attack). */
  zerr e1 = ZERR_INIT;
  assert_int_equal(zoauth_parse_as_md(ok, strlen(ok), "https://other.example.com", &md, &e1), -1);
  assert_non_null(strstr(e1.msg, "issuer"));
  /* Methods listed without S256: refused. Absent: accepted. */
  const char *plain = "{\"authorization_endpoint\":\"https://a/x\",\"token_endpoint\":"
                      "\"https://a/y\",\"code_challenge_methods_supported\":[\"plain\"]}";
  zerr e2 = ZERR_INIT;
  assert_int_equal(zoauth_parse_as_md(plain, strlen(plain), NULL, &md, &e2), -1);
  assert_non_null(strstr(e2.msg, "S256"));
  const char *bare = "{\"authorization_endpoint\":\"https://a/x\",\"token_endpoint\":\"https://a/y\"}";
  assert_int_equal(zoauth_parse_as_md(bare, strlen(bare), NULL, &md, &err), 0);
  assert_null(md.registration_endpoint);
  assert_false(md.methods_listed);
  zoauth_as_md_release(&md);
  const char *noep = "{\"authorization_endpoint\":\"https://a/x\"}";
  assert_int_equal(zoauth_parse_as_md(noep, strlen(noep), NULL, &md, &e2), -1);
  /* token_endpoint_auth_methods_supported: the names zero knows, as bits
   * (private_key_jwt since client assertions). */
  const char *post = "{\"authorization_endpoint\":\"https://a/x\",\"token_endpoint\":"
                     "\"https://a/y\",\"token_endpoint_auth_methods_supported\":"
                     "[\"private_key_jwt\",\"client_secret_post\",7]}";
  assert_int_equal(zoauth_parse_as_md(post, strlen(post), NULL, &md, &err), 0);
  assert_int_equal(md.token_auth_methods, ZOAUTH_AUTH_POST | ZOAUTH_AUTH_PRIVATE_KEY_JWT);
  assert_false(md.cimd);
  assert_false(md.client_credentials_only);
  zoauth_as_md_release(&md);
  const char *cimd = "{\"authorization_endpoint\":\"https://a/x\",\"token_endpoint\":"
                     "\"https://a/y\",\"client_id_metadata_document_supported\":true,"
                     "\"grant_types_supported\":[\"client_credentials\"]}";
  assert_int_equal(zoauth_parse_as_md(cimd, strlen(cimd), NULL, &md, &err), 0);
  assert_true(md.cimd);
  assert_true(md.client_credentials_only); /* a machine-to-machine issuer */
  zoauth_as_md_release(&md);
}

/* How zero authenticates to the token endpoint: no secret, no
 * authentication; what registration named wins; else what the issuer lists,
 * Basic when it lists it or nothing (RFC 8414's default). */
static void test_token_endpoint_auth_method(void **state) {
  (void)state;
  assert_string_equal(zoauth_token_auth_method(NULL, ZOAUTH_AUTH_BASIC, false), "none");
  assert_string_equal(zoauth_token_auth_method("client_secret_post", 0, false), "none");
  assert_string_equal(zoauth_token_auth_method("client_secret_post", ZOAUTH_AUTH_BASIC, true),
                      "client_secret_post");
  assert_string_equal(zoauth_token_auth_method("none", ZOAUTH_AUTH_BASIC, true), "none");
  assert_string_equal(zoauth_token_auth_method("private_key_jwt", ZOAUTH_AUTH_POST, true),
                      "client_secret_post");
  assert_string_equal(zoauth_token_auth_method(NULL, 0, true), "client_secret_basic");
  assert_string_equal(zoauth_token_auth_method(NULL, ZOAUTH_AUTH_POST, true), "client_secret_post");
  assert_string_equal(zoauth_token_auth_method(NULL, ZOAUTH_AUTH_POST | ZOAUTH_AUTH_BASIC, true),
                      "client_secret_basic");
  assert_string_equal(zoauth_token_auth_method(NULL, ZOAUTH_AUTH_NONE, true), "none");
}

static void test_well_known_urls(void **state) {
  (void)state;
  char **r = zoauth_resource_md_urls("https://mcp.example.com/v1/mcp/?x=1#f");
  assert_string_equal(r[0], "https://mcp.example.com/.well-known/oauth-protected-resource/v1/mcp");
  assert_string_equal(r[1], "https://mcp.example.com/.well-known/oauth-protected-resource");
  assert_null(r[2]);
  strvec_free_array(r);
  r = zoauth_resource_md_urls("http://127.0.0.1:8080");
  assert_string_equal(r[0], "http://127.0.0.1:8080/.well-known/oauth-protected-resource");
  assert_null(r[1]);
  strvec_free_array(r);
  char **a = zoauth_as_md_urls("https://auth.example.com/tenant1");
  assert_string_equal(a[0], "https://auth.example.com/.well-known/oauth-authorization-server/tenant1");
  assert_string_equal(a[1], "https://auth.example.com/.well-known/openid-configuration/tenant1");
  assert_string_equal(a[2], "https://auth.example.com/tenant1/.well-known/openid-configuration");
  assert_null(a[3]);
  strvec_free_array(a);
  a = zoauth_as_md_urls("https://auth.example.com/");
  assert_string_equal(a[0], "https://auth.example.com/.well-known/oauth-authorization-server");
  assert_string_equal(a[1], "https://auth.example.com/.well-known/openid-configuration");
  assert_null(a[2]);
  strvec_free_array(a);
  assert_null(zoauth_as_md_urls("file:///etc/passwd"));
  assert_null(zoauth_resource_md_urls("https://"));
  cleanup_free char *o = zoauth_origin("https://h.example:8443/a/b");
  assert_string_equal(o, "https://h.example:8443");
}

static void test_token_response_and_refresh_time(void **state) {
  (void)state;
  zoauth_tokens t = {0};
  zerr err = ZERR_INIT;
  const char *a = "{\"access_token\":\"A1\",\"token_type\":\"bearer\",\"expires_in\":3600,"
                  "\"refresh_token\":\"R1\",\"scope\":\"mcp\"}";
  assert_int_equal(zoauth_parse_token_response(a, strlen(a), 1000, &t, &err), 0);
  assert_string_equal(t.access_token, "A1");
  assert_string_equal(t.token_type, "Bearer");
  assert_int_equal(t.expires_at, 4600);
  assert_int_equal(zoauth_refresh_at(&t), 4600 - ZOAUTH_REFRESH_MARGIN_S);
  /* A refresh without a new refresh token keeps the old one. */
  const char *b = "{\"access_token\":\"A2\",\"token_type\":\"Bearer\",\"expires_in\":30}";
  assert_int_equal(zoauth_parse_token_response(b, strlen(b), 2000, &t, &err), 0);
  assert_string_equal(t.access_token, "A2");
  assert_string_equal(t.refresh_token, "R1");
  assert_int_equal(zoauth_refresh_at(&t), 2015); /* short-lived: at half its life */
  const char *mac = "{\"access_token\":\"A3\",\"token_type\":\"mac\"}";
  assert_int_equal(zoauth_parse_token_response(mac, strlen(mac), 0, &t, &err), -1);
  const char *none = "{\"token_type\":\"Bearer\"}";
  assert_int_equal(zoauth_parse_token_response(none, strlen(none), 0, &t, &err), -1);
  assert_string_equal(t.access_token, "A2");
  zoauth_tokens_release(&t);
}

/* Scope step-up: unions keep order and drop repeats; a 403's scopes are
 * remembered in the token file (which keeps its tokens and its mode). */
static void test_scope_union_and_step_up(void **state) {
  (void)state;
  cleanup_free char *u1 = zoauth_scope_union("a b", " b  c a d");
  assert_string_equal(u1, "a b c d");
  cleanup_free char *u2 = zoauth_scope_union(NULL, "x");
  assert_string_equal(u2, "x");
  assert_null(zoauth_scope_union(NULL, "  "));
  char dir[] = "/tmp/zero-oauth-XXXXXX";
  assert_non_null(mkdtemp(dir));
  setenv("XDG_CONFIG_HOME", dir, 1);
  zerr err = ZERR_INIT;
  assert_int_equal(zoauth_remember_step_up("s", "mcp:write", &err), -1); /* no tokens yet */
  zoauth_tokens t = {.access_token = "tok",
                     .token_type = "Bearer",
                     .scope = "mcp:basic",
                     .server_url = "http://127.0.0.1:9/mcp"};
  assert_int_equal(zoauth_tokens_save("s", &t, &err), 0);
  assert_int_equal(zoauth_remember_step_up("s", "mcp:basic mcp:write", &err), 0);
  assert_int_equal(zoauth_remember_step_up("s", "mcp:admin", &err), 0);
  zoauth_tokens got;
  assert_int_equal(zoauth_tokens_load("s", &got, &err), 0);
  assert_string_equal(got.access_token, "tok");
  assert_string_equal(got.step_up_scope, "mcp:basic mcp:write mcp:admin");
  zoauth_tokens_release(&got);
  cleanup_free char *path = zoauth_token_path("s");
  struct stat st;
  assert_int_equal(stat(path, &st), 0);
  assert_int_equal(st.st_mode & 0777, 0600);
  assert_int_equal(zoauth_tokens_delete("s", &err), 1);
  assert_int_equal(zoauth_tokens_delete("s", &err), 0);
  char lock[4096];
  snprintf(lock, sizeof lock, "%s.lock", path);
  unlink(lock);
  unlink(path);
  cleanup_free char *sub = xstrdup(path);
  *strrchr(sub, '/') = '\0';
  rmdir(sub);
  rmdir(dir);
}

static void test_token_store_is_private_and_bound_to_the_url(void **state) {
  (void)state;
  char dir[] = "/tmp/zero-oauth-XXXXXX";
  assert_non_null(mkdtemp(dir));
  setenv("XDG_CONFIG_HOME", dir, 1);
  zoauth_tokens t = {.access_token = "tok", .token_type = "Bearer", .refresh_token = "r",
                     .client_id = "c", .token_endpoint = "http://127.0.0.1:1/token",
                     .server_url = "http://127.0.0.1:9/mcp", .resource = "http://127.0.0.1:9/mcp",
                     .expires_at = 4102444800LL /* 2100 */, .obtained_at = 1};
  zerr err = ZERR_INIT;
  assert_int_equal(zoauth_tokens_save("my server/..", &t, &err), 0);
  cleanup_free char *path = zoauth_token_path("my server/..");
  assert_non_null(strstr(path, "/zero/oauth-tokens.json"));
  struct stat st;
  assert_int_equal(stat(path, &st), 0);
  assert_int_equal(st.st_mode & 0777, 0600);
  zmcp_server_cfg cfg = {.name = "my server/..", .type = ZMCP_HTTP,
                         .url = "http://127.0.0.1:9/mcp"};
  char *tok = NULL;
  int64_t when = 0;
  assert_int_equal(zoauth_bearer(&cfg, &tok, &when, &err), 0);
  assert_string_equal(tok, "tok");
  assert_int_equal(when, 4102444800LL - ZOAUTH_REFRESH_MARGIN_S);
  free(tok);
  /* Another URL under the same name: the token is not sent there. */
  cfg.url = "http://127.0.0.1:10/mcp";
  assert_int_equal(zoauth_bearer(&cfg, &tok, NULL, &err), 0);
  assert_null(tok);
  /* auth none: never. */
  cfg.url = "http://127.0.0.1:9/mcp";
  cfg.auth = ZMCP_AUTH_NONE;
  assert_int_equal(zoauth_bearer(&cfg, &tok, NULL, &err), 0);
  assert_null(tok);
  assert_int_equal(zoauth_tokens_delete("my server/..", &err), 1);
  assert_int_equal(zoauth_tokens_delete("my server/..", &err), 0);
  cleanup_free char *sub = xstrdup(path);
  *strrchr(sub, '/') = '\0';
  rmdir(sub);
  *strrchr(sub, '/') = '\0';
  rmdir(sub);
  rmdir(dir);
}

static void test_config_auth_and_oauth_keys(void **state) {
  (void)state;
  json_error_t je;
  json_t *o = json_loads("{\"url\":\"https://x/mcp\",\"auth\":\"oauth\",\"oauth\":{\"clientID\":"
                         "\"cid\",\"clientSecret\":\"sec\",\"scopes\":[\"a\",\"b\"],"
                         "\"authorizationEndpoint\":\"https://x/authorize\",\"tokenEndpoint\":"
                         "\"https://x/token\",\"issuerURL\":\"https://x\",\"clientMetadataURL\":"
                         "\"https://zero.example/client.json\"}}",
                         0, &je);
  zmcp_server_cfg s;
  zerr err = ZERR_INIT;
  assert_int_equal(zmcp_server_parse("x", o, "cfg.json", &s, &err), 0);
  assert_int_equal(s.auth, ZMCP_AUTH_OAUTH);
  assert_string_equal(s.oauth.client_id, "cid");
  assert_string_equal(s.oauth.client_secret, "sec");
  assert_string_equal(s.oauth.scopes[1], "b");
  assert_null(s.oauth.scopes[2]);
  assert_string_equal(s.oauth.token_endpoint, "https://x/token");
  assert_null(s.oauth.registration_endpoint);
  assert_string_equal(s.oauth.client_metadata_url, "https://zero.example/client.json");
  zmcp_server_cfg_release(&s);
  json_decref(o);
  const char *bad[] = {"{\"url\":\"https://x\",\"auth\":\"kerberos\"}",
                       "{\"url\":\"https://x\",\"oauth\":[]}",
                       "{\"url\":\"https://x\",\"oauth\":{\"scopes\":\"a b\"}}",
                       "{\"url\":\"https://x\",\"oauth\":{\"tokenEndpoint\":\"https://x/t\"}}"};
  for (size_t i = 0; i < ZARRAY_LEN(bad); i++) {
    o = json_loads(bad[i], 0, &je);
    zerr e = ZERR_INIT;
    assert_int_equal(zmcp_server_parse("x", o, "cfg.json", &s, &e), -1);
    assert_non_null(strstr(e.msg, "cfg.json: MCP server \"x\""));
    json_decref(o);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_pkce_rfc7636_appendix_b),
      cmocka_unit_test(test_random_strings_are_urlsafe_and_differ),
      cmocka_unit_test(test_challenge_params),
      cmocka_unit_test(test_resource_metadata),
      cmocka_unit_test(test_as_metadata),
      cmocka_unit_test(test_token_endpoint_auth_method),
      cmocka_unit_test(test_scope_union_and_step_up),
      cmocka_unit_test(test_well_known_urls),
      cmocka_unit_test(test_token_response_and_refresh_time),
      cmocka_unit_test(test_token_store_is_private_and_bound_to_the_url),
      cmocka_unit_test(test_config_auth_and_oauth_keys),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
