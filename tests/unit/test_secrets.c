/* test_secrets.c — the run's credentials (base/secrets.h): which variables a
 * child never sees, which values no output shows; the redactor's URL, header
 * and known-value rules (base/redact.h); error messages redacted as they are
 * made; the https-only rule of OAuth endpoints (oauth/oauth.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "base/common.h"
#include "base/err.h"
#include "base/redact.h"
#include "base/secrets.h"
#include "config/config.h"
#include "base/url.h"
#include "mcp/config.h"
#include "oauth/oauth.h"

static int reset(void **state) {
  (void)state;
  zsecret_reset();
  return 0;
}

static bool looks(const char *name) { return zsecret_name_looks_secret(name, strlen(name)); }

static void names_that_look_secret_and_names_that_do_not(void **state) {
  (void)state;
  const char *secret[] = {"OPENAI_API_KEY", "MY_KEY", "GH_TOKEN", "npm_token", "AWS_SECRET_ACCESS_KEY",
                          "DB_PASSWORD", "MYSQL_PWD_PASSWD", "PGPASSWORD", "SMTP_PASS", "PASS",
                          "PASS_FILE", "GPG_PASSPHRASE", "GOOGLE_APPLICATION_CREDENTIALS",
                          "SSH_PRIVATE", "PRIVATE_DATA", "OAUTH_CLIENT", "GH_AUTH",
                          "HTTP_AUTHORIZATION", "XAUTHORITY", "ZERO_API_KEY"};
  for (size_t i = 0; i < ZARRAY_LEN(secret); i++)
    if (!looks(secret[i])) fail_msg("%s should look secret", secret[i]);
  /* False positives that would break ordinary tools. */
  const char *plain[] = {"PATH", "PWD", "OLDPWD", "HOME", "GOPRIVATE", "GONOSUMDB",
                         "GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "PASSENGER_APP_ENV", "BYPASS_CACHE",
                         "COMPASS_HOME", "KEYBOARD", "LANG", "TERM", "MONKEY_COUNT"};
  for (size_t i = 0; i < ZARRAY_LEN(plain); i++)
    if (looks(plain[i])) fail_msg("%s should not look secret", plain[i]);
}

static bool entry_kept(char **env, const char *prefix) {
  for (char **e = env; *e; e++)
    if (!strncmp(*e, prefix, strlen(prefix))) return true;
  return false;
}

static void strv_release(char **v) {
  for (char **p = v; p && *p; p++) free(*p);
  free(v);
}

static void declared_names_and_known_values_are_scrubbed(void **state) {
  (void)state;
  setenv("WORKPROV", "prov-value-0123456789", 1);
  char *env[] = {"WORKPROV=prov-value-0123456789", "COPY_OF_IT=prov-value-0123456789",
                 "MCPSLACK=xoxb-whatever", "PATH=/usr/bin", "NODE_ENV=production",
                 "GIT_AUTHOR_NAME=me", "ANTHROPIC_API_KEY=x", NULL};
  char **out = zsecret_scrub_env(env);
  /* Before any declaration only the pattern applies. */
  assert_true(entry_kept(out, "WORKPROV="));
  assert_false(entry_kept(out, "ANTHROPIC_API_KEY="));
  strv_release(out);

  zsecret_add_name("WORKPROV"); /* an apiKeyEnv: any name */
  zsecret_add_env_setting("MCPSLACK", "xoxb-1234567890-abcdefghij");
  zsecret_add_env_setting("NODE_ENV", "production"); /* a plain setting stays */
  zsecret_add_env_setting("PATH", "/opt/server/bin:/usr/bin");
  out = zsecret_scrub_env(env);
  assert_false(entry_kept(out, "WORKPROV="));
  assert_false(entry_kept(out, "COPY_OF_IT=")); /* its value, under another name */
  assert_false(entry_kept(out, "MCPSLACK="));
  assert_true(entry_kept(out, "PATH="));
  assert_true(entry_kept(out, "NODE_ENV="));
  assert_true(entry_kept(out, "GIT_AUTHOR_NAME="));
  strv_release(out);
  unsetenv("WORKPROV");
}

static void config_declares_every_key_variable(void **state) {
  (void)state;
  zprofile p = {.name = "w", .api_key_env = "CORP_GATEWAY", .api_key = "literal-key-0123456789"};
  p.headers = json_pack("{s:s, s:s}", "X-Corp-Auth", "hdr-secret-value", "Accept",
                        "application/json");
  zconfig cfg = {.providers = &p, .n_providers = 1};
  zconfig_declare_secrets(&cfg);
  json_decref(p.headers);
  assert_true(zsecret_env_entry_is_secret("CORP_GATEWAY=x"));
  assert_true(zsecret_env_entry_is_secret("DEEPSEEK_API_KEY=x")); /* a preset's */
  zbuf b = ZBUF_INIT;
  zbuf_addstr(&b, "k=literal-key-0123456789 h=hdr-secret-value a=application/json");
  assert_int_equal(zsecret_redact_values(&b), 2);
  assert_string_equal(b.data, "k=[REDACTED] h=[REDACTED] a=application/json");
  zbuf_release(&b);
}

static void mcp_config_declares_env_headers_and_client_secret(void **state) {
  (void)state;
  char *env[] = {"SLACK_BOT=xoxb-1111111111-abcdefghijkl", "LOG_LEVEL=debug", NULL};
  char *headers[] = {"Authorization: Bearer mcp-bearer-abcdef", "Accept: text/event-stream", NULL};
  zmcp_server_cfg s = {.name = "x", .env = env, .headers = headers,
                       .oauth = {.client_secret = "client-secret-value"}};
  zmcp_config cfg = {.servers = &s, .n = 1};
  zmcp_config_declare_secrets(&cfg);
  assert_true(zsecret_env_entry_is_secret("SLACK_BOT=anything"));
  assert_false(zsecret_env_entry_is_secret("LOG_LEVEL=debug"));
  char *out = zredact_str("a mcp-bearer-abcdef b client-secret-value c text/event-stream");
  assert_string_equal(out, "a [REDACTED] b [REDACTED] c text/event-stream");
  free(out);
}

static void urls_and_headers_are_redacted(void **state) {
  (void)state;
  struct { const char *in, *want; } cases[] = {
      {"https://mcp.example.com/sse?token=abc123&x=1",
       "https://mcp.example.com/sse?token=[REDACTED:url-secret]&x=1"},
      {"GET https://h/p?a=1&access_token=t0k&api_key=k3y#f",
       "GET https://h/p?a=1&access_token=[REDACTED:url-secret]&api_key=[REDACTED:url-secret]#f"},
      {"https://s3/o?X-Amz-Signature=deadbeef&sig=zz",
       "https://s3/o?X-Amz-Signature=[REDACTED:url-secret]&sig=[REDACTED:url-secret]"},
      {"https://user:hunter2@db.example/x", "https://[REDACTED:url-userinfo]@db.example/x"},
      {"ssh://git@github.com/x", "ssh://git@github.com/x"}, /* a plain user name stays */
      {"Authorization: Basic dXNlcjpwYXNz", "Authorization: Basic [REDACTED:auth-header]"},
      {"authorization: tok-1", "authorization: [REDACTED:auth-header]"},
      {"X-Api-Key: abcd1234", "X-Api-Key: [REDACTED:secret-header]"},
      {"{\"Authorization\": \"Bearer x\"}", "{\"Authorization\": \"[REDACTED:json-secret]\"}"},
      {"https://example.com/search?q=token&page=2", "https://example.com/search?q=token&page=2"},
      {"headers = {\"Authorization\": f\"Bearer {token}\"}",
       "headers = {\"Authorization\": f\"Bearer {token}\"}"},
  };
  for (size_t i = 0; i < ZARRAY_LEN(cases); i++) {
    char *got = zredact_str(cases[i].in);
    if (strcmp(got, cases[i].want)) fail_msg("%s\n got  %s\n want %s", cases[i].in, got, cases[i].want);
    /* Redacting again changes nothing. */
    char *again = zredact_str(got);
    assert_string_equal(again, got);
    free(again);
    free(got);
  }
}

static void known_values_are_redacted_anywhere(void **state) {
  (void)state;
  zsecret_add_value("plainvalue-no-shape");
  zsecret_add_value("short"); /* too short to be remembered */
  char *got = zredact_str("x plainvalue-no-shapeplainvalue-no-shape short");
  assert_string_equal(got, "x [REDACTED][REDACTED] short");
  free(got);
}

static void error_messages_are_redacted_as_made(void **state) {
  (void)state;
  zsecret_add_value("oauth-access-token-1234");
  zerr err = ZERR_INIT;
  zerr_set(&err, ZE_PROVIDER, "server https://h/mcp?token=abc said %s", "oauth-access-token-1234");
  assert_null(strstr(err.msg, "abc"));
  assert_null(strstr(err.msg, "oauth-access-token-1234"));
  zerr_prefix(&err, "while at https://u:pw@h");
  assert_null(strstr(err.msg, ":pw@"));
}

static void oauth_endpoints_must_be_https_or_loopback(void **state) {
  (void)state;
  const char *ok[] = {"https://auth.example.com/token", "HTTPS://a.example/x",
                      "http://127.0.0.1:8080/token", "http://127.8.9.10/t", "http://localhost/t",
                      "http://LOCALHOST:99", "http://[::1]:5000/t", "https://[2001:db8::1]/t"};
  for (size_t i = 0; i < ZARRAY_LEN(ok); i++) {
    zerr err = ZERR_INIT;
    if (zoauth_check_credential_url("token endpoint", ok[i], "s", &err) < 0)
      fail_msg("%s refused: %s", ok[i], err.msg);
  }
  const char *bad[] = {"http://auth.example.com/token", "http://127.0.0.1.evil.com/t",
                       "http://localhost.evil.com/t", "http://127.0.0.1@evil.com/t",
                       "http://10.0.0.5/token", "http://[::2]/t", "http://0177.0.0.1/t",
                       "ftp://x/y", "", NULL};
  for (size_t i = 0; i < ZARRAY_LEN(bad); i++) {
    zerr err = ZERR_INIT;
    if (zoauth_check_credential_url("token endpoint", bad[i], "s", &err) == 0)
      fail_msg("%s accepted", bad[i] ? bad[i] : "NULL");
    assert_non_null(strstr(err.msg, "token endpoint"));
    assert_non_null(strstr(err.msg, "https://"));
  }
  assert_true(zurl_is_loopback("http://user:pw@127.0.0.1:1/x"));
  assert_false(zurl_is_loopback("http://127.0.0.1:1@evil.com/x"));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup(names_that_look_secret_and_names_that_do_not, reset),
      cmocka_unit_test_setup(declared_names_and_known_values_are_scrubbed, reset),
      cmocka_unit_test_setup(config_declares_every_key_variable, reset),
      cmocka_unit_test_setup(mcp_config_declares_env_headers_and_client_secret, reset),
      cmocka_unit_test_setup(urls_and_headers_are_redacted, reset),
      cmocka_unit_test_setup(known_values_are_redacted_anywhere, reset),
      cmocka_unit_test_setup(error_messages_are_redacted_as_made, reset),
      cmocka_unit_test_setup(oauth_endpoints_must_be_https_or_loopback, reset),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
