/* test_oauth.c — the shared OAuth pieces of `zero auth`: the device
 * authorization answer (RFC 8628 §3.2 defaults), provider names and their
 * definitions (environment over user config, the variable names), and the
 * one token store (schemaVersion, several entries side by side, 0600,
 * $ZERO_OAUTH_TOKENS_PATH, a newer schema refused and left alone). */
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
#include "base/json.h"
#include "base/strvec.h"
#include "oauth/oauth.h"
#include "oauth/provider.h"

static void test_device_code_defaults_and_fields(void **state) {
  (void)state;
  zoauth_device_code d;
  zerr err = ZERR_INIT;
  const char *full = "{\"device_code\":\"dc\",\"user_code\":\"WDJB-MJHT\",\"verification_uri\":"
                     "\"https://x/device\",\"verification_uri_complete\":\"https://x/device?c=1\","
                     "\"expires_in\":1800,\"interval\":7}";
  assert_int_equal(zoauth_parse_device_code(full, strlen(full), 1000, &d, &err), 0);
  assert_string_equal(d.user_code, "WDJB-MJHT");
  assert_string_equal(d.verification_uri_complete, "https://x/device?c=1");
  assert_int_equal(d.expires_at, 2800);
  assert_int_equal(d.interval_s, 7);
  zoauth_device_code_release(&d);
  /* Absent interval: 5 s; absent expires_in: 10 minutes. */
  const char *bare =
      "{\"device_code\":\"dc\",\"user_code\":\"U\",\"verification_uri\":\"https://x\"}";
  assert_int_equal(zoauth_parse_device_code(bare, strlen(bare), 1000, &d, &err), 0);
  assert_int_equal(d.interval_s, ZOAUTH_DEVICE_INTERVAL_S);
  assert_int_equal(d.interval_s, 5);
  assert_int_equal(d.expires_at, 1000 + 600);
  assert_null(d.verification_uri_complete);
  zoauth_device_code_release(&d);
  const char *bad[] = {"{\"user_code\":\"U\",\"verification_uri\":\"https://x\"}",
                       "{\"device_code\":\"d\",\"verification_uri\":\"https://x\"}",
                       "{\"device_code\":\"d\",\"user_code\":\"U\"}", "[]", "nope"};
  for (size_t i = 0; i < ZARRAY_LEN(bad); i++) {
    zerr e = ZERR_INIT;
    assert_int_equal(zoauth_parse_device_code(bad[i], strlen(bad[i]), 0, &d, &e), -1);
  }
}

static void test_provider_names(void **state) {
  (void)state;
  assert_true(zoauth_provider_name_ok("acme"));
  assert_true(zoauth_provider_name_ok("Acme.prod-2_x"));
  assert_true(zoauth_provider_name_ok("0"));
  char longest[65];
  memset(longest, 'a', 64);
  longest[64] = '\0';
  assert_true(zoauth_provider_name_ok(longest));
  char too_long[66];
  memset(too_long, 'a', 65);
  too_long[65] = '\0';
  assert_false(zoauth_provider_name_ok(too_long));
  const char *bad[] = {"", "-a", ".a", "_a", "a b", "a/b", "a:b", "ä"};
  for (size_t i = 0; i < ZARRAY_LEN(bad); i++) assert_false(zoauth_provider_name_ok(bad[i]));
  cleanup_free char *key = zoauth_provider_key("acme");
  assert_string_equal(key, "provider:acme");
}

static char *temp_config(void) {
  char dir[] = "/tmp/zero-oauth-XXXXXX";
  assert_non_null(mkdtemp(dir));
  setenv("XDG_CONFIG_HOME", dir, 1);
  unsetenv("ZERO_OAUTH_TOKENS_PATH");
  return xstrdup(dir);
}

static void test_provider_from_environment_over_config(void **state) {
  (void)state;
  cleanup_free char *dir = temp_config();
  char cfg[4096];
  snprintf(cfg, sizeof cfg, "%s/zero", dir);
  assert_int_equal(mkdir(cfg, 0700), 0);
  snprintf(cfg, sizeof cfg, "%s/zero/config.json", dir);
  FILE *f = fopen(cfg, "w");
  assert_non_null(f);
  fputs("{\"auth\":{\"providers\":{\"my-corp.eu\":{\"client_id\":\"from-config\","
        "\"tokenUrl\":\"https://idp/token\",\"scopes\":\"a,b c\",\"flow\":\"device\"}}}}",
        f);
  fclose(f);
  zoauth_provider p;
  zerr err = ZERR_INIT;
  assert_int_equal(zoauth_provider_load("my-corp.eu", &p, &err), 0);
  assert_string_equal(p.client_id, "from-config");
  assert_string_equal(p.token_url, "https://idp/token");
  assert_string_equal(p.scopes, "a b c");
  assert_string_equal(p.flow, "device");
  assert_null(p.client_secret);
  zoauth_provider_release(&p);
  /* '-' and '.' become '_', upper-cased; the environment wins per key. */
  setenv("ZERO_OAUTH_MY_CORP_EU_CLIENT_ID", "from-env", 1);
  setenv("ZERO_OAUTH_MY_CORP_EU_DEVICE_URL", "https://idp/device", 1);
  assert_int_equal(zoauth_provider_load("my-corp.eu", &p, &err), 0);
  assert_string_equal(p.client_id, "from-env");
  assert_string_equal(p.device_url, "https://idp/device");
  assert_string_equal(p.token_url, "https://idp/token");
  zoauth_provider_release(&p);
  unsetenv("ZERO_OAUTH_MY_CORP_EU_CLIENT_ID");
  unsetenv("ZERO_OAUTH_MY_CORP_EU_DEVICE_URL");
  /* Undefined and invalid names. */
  zerr e = ZERR_INIT;
  assert_int_equal(zoauth_provider_load("nobody", &p, &e), -1);
  assert_int_equal(e.kind, ZE_NOT_FOUND);
  assert_non_null(strstr(e.msg, "ZERO_OAUTH_NOBODY_CLIENT_ID"));
  assert_int_equal(zoauth_provider_load("../x", &p, &e), -1);
  assert_int_equal(e.kind, ZE_USAGE);
  unlink(cfg);
  snprintf(cfg, sizeof cfg, "%s/zero", dir);
  rmdir(cfg);
  rmdir(dir);
}

static void test_store_holds_every_login_in_one_private_file(void **state) {
  (void)state;
  cleanup_free char *dir = temp_config();
  char path[4096];
  snprintf(path, sizeof path, "%s/elsewhere/tokens.json", dir);
  setenv("ZERO_OAUTH_TOKENS_PATH", path, 1);
  cleanup_free char *got_path = zoauth_store_path();
  assert_string_equal(got_path, path);
  zerr err = ZERR_INIT;
  char **keys = zoauth_store_keys(&err);
  assert_non_null(keys);
  assert_null(keys[0]);
  strvec_free_array(keys);
  zoauth_tokens a = {.access_token = "at-a", .refresh_token = "rt-a", .expires_at = 5},
                b = {.access_token = "at-b", .scope = "x y"};
  assert_int_equal(zoauth_store_save("provider:a", &a, &err), 0);
  assert_int_equal(zoauth_tokens_save("srv", &b, &err), 0); /* "mcp:srv" */
  struct stat st;
  assert_int_equal(stat(path, &st), 0);
  assert_int_equal(st.st_mode & 0777, 0600);
  json_t *doc = zjson_load_file(path, &err);
  assert_non_null(doc);
  assert_int_equal(zjson_int_or(doc, "schemaVersion", 0), 1);
  json_t *tokens = json_object_get(doc, "tokens");
  assert_string_equal(zjson_str(json_object_get(tokens, "provider:a"), "access_token"), "at-a");
  assert_string_equal(zjson_str(json_object_get(tokens, "mcp:srv"), "scope"), "x y");
  json_decref(doc);
  zoauth_tokens got;
  assert_int_equal(zoauth_store_load("provider:a", &got, &err), 0);
  assert_string_equal(got.refresh_token, "rt-a");
  assert_int_equal(got.expires_at, 5);
  zoauth_tokens_release(&got);
  keys = zoauth_store_keys(&err);
  assert_string_equal(keys[0], "provider:a");
  assert_string_equal(keys[1], "mcp:srv");
  assert_null(keys[2]);
  strvec_free_array(keys);
  /* Deleting one keeps the other. */
  assert_int_equal(zoauth_store_delete("provider:a", &err), 1);
  assert_int_equal(zoauth_store_delete("provider:a", &err), 0);
  zerr nf = ZERR_INIT;
  assert_int_equal(zoauth_store_load("provider:a", &got, &nf), -1);
  assert_int_equal(nf.kind, ZE_NOT_FOUND);
  assert_int_equal(zoauth_tokens_load("srv", &got, &err), 0);
  zoauth_tokens_release(&got);
  /* A store of a newer schema is refused and left as it is. */
  FILE *f = fopen(path, "w");
  fputs("{\"schemaVersion\":2,\"tokens\":{}}", f);
  fclose(f);
  zerr e = ZERR_INIT;
  assert_int_equal(zoauth_store_save("provider:a", &a, &e), -1);
  assert_non_null(strstr(e.msg, "schemaVersion"));
  char buf[64] = "";
  f = fopen(path, "r");
  assert_non_null(fgets(buf, sizeof buf, f));
  fclose(f);
  assert_string_equal(buf, "{\"schemaVersion\":2,\"tokens\":{}}");
  unlink(path);
  char lock[4200];
  snprintf(lock, sizeof lock, "%s.lock", path);
  unlink(lock);
  *strrchr(path, '/') = '\0';
  rmdir(path);
  rmdir(dir);
  unsetenv("ZERO_OAUTH_TOKENS_PATH");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_device_code_defaults_and_fields),
      cmocka_unit_test(test_provider_names),
      cmocka_unit_test(test_provider_from_environment_over_config),
      cmocka_unit_test(test_store_holds_every_login_in_one_private_file),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
