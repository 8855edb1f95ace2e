/* test_config.c — config layers, environment merging, provider resolution,
 * and the rule that a project file can never redirect credentials. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/common.h"
#include "base/fs.h"
#include "base/path.h"
#include "base/url.h"
#include "config/config.h"

#define SECRET "sk-test-SECRET-0123456789abcdef"

typedef struct fx {
  char tmp[64];
  char *user;     /* user config file path */
  char *ws;       /* workspace (cwd) */
  char *project;  /* <ws>/.zero/config.json */
} fx;

static const char *const env_vars[] = {
    "OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_MODEL", "ANTHROPIC_API_KEY",
    "ANTHROPIC_BASE_URL", "ANTHROPIC_MODEL", "GEMINI_API_KEY", "GEMINI_BASE_URL",
    "GEMINI_MODEL", "GOOGLE_API_KEY", "GOOGLE_BASE_URL", "GOOGLE_MODEL", "ZERO_PROVIDER",
    "ZERO_MAX_TURNS", "WORK_KEY", "MY_KEY"};

static int setup(void **state) {
  fx *f = calloc(1, sizeof *f);
  snprintf(f->tmp, sizeof f->tmp, "%s", "/tmp/zero-test-config-XXXXXX");
  assert_non_null(mkdtemp(f->tmp));
  for (size_t i = 0; i < ZARRAY_LEN(env_vars); i++) unsetenv(env_vars[i]);
  setenv("HOME", f->tmp, 1);
  char *xdg = zpath_join(f->tmp, "xdg");
  setenv("XDG_CONFIG_HOME", xdg, 1);
  f->user = zpath_join(xdg, "zero/config.json");
  free(xdg);
  f->ws = zpath_join(f->tmp, "ws");
  f->project = zpath_join(f->ws, ".zero/config.json");
  assert_int_equal(zfs_mkdir_p(f->ws, 0700, NULL), 0);
  *state = f;
  return 0;
}

static int rm_cb(const char *p, const struct stat *sb, int flag, struct FTW *ftw) {
  (void)sb; (void)flag; (void)ftw;
  return remove(p);
}

static int teardown(void **state) {
  fx *f = *state;
  nftw(f->tmp, rm_cb, 16, FTW_DEPTH | FTW_PHYS);
  for (size_t i = 0; i < ZARRAY_LEN(env_vars); i++) unsetenv(env_vars[i]);
  free(f->user);
  free(f->ws);
  free(f->project);
  free(f);
  return 0;
}

static void write_file(const char *path, const char *text) {
  char *dir = xstrdup(path);
  *strrchr(dir, '/') = '\0';
  assert_int_equal(zfs_mkdir_p(dir, 0700, NULL), 0);
  free(dir);
  assert_int_equal(zfs_write_atomic(path, text, strlen(text), 0600, NULL), 0);
}

static const zconfig_flags no_flags = {NULL, NULL, 0};

/* Loads and expects success. */
static void load_ok(fx *f, zconfig *cfg, const zconfig_flags *flags) {
  zerr err = ZERR_INIT;
  int rc = zconfig_load(cfg, f->ws, flags ? flags : &no_flags, &err);
  if (rc != 0) fail_msg("zconfig_load failed: %s", err.msg);
}

/* Loads and expects failure of `kind`; returns the message (static). */
static const char *load_err(fx *f, const zconfig_flags *flags, zerr_kind kind) {
  static zerr err;
  zerr_clear(&err);
  zconfig cfg;
  assert_int_equal(zconfig_load(&cfg, f->ws, flags ? flags : &no_flags, &err), -1);
  assert_int_equal(err.kind, kind);
  assert_null(strstr(err.msg, SECRET));
  return err.msg;
}

static void resolve_ok(const zconfig *cfg, zresolved_provider *rp) {
  zerr err = ZERR_INIT;
  int rc = zconfig_resolve_provider(cfg, rp, &err);
  if (rc != 0) fail_msg("resolve failed: %s", err.msg);
}

static const char *resolve_err(const zconfig *cfg) {
  static zerr err;
  zerr_clear(&err);
  zresolved_provider rp;
  assert_int_equal(zconfig_resolve_provider(cfg, &rp, &err), -1);
  assert_int_equal(err.kind, ZE_CONFIG);
  return err.msg;
}

/* ---- endpoints ------------------------------------------------------------ */

static void origins_are_normalised_and_strict(void **state) {
  (void)state;
  struct { const char *url, *origin; } cases[] = {
      {"https://api.openai.com/v1", "https://api.openai.com:443"},
      {"HTTPS://API.OpenAI.com:443/v1/", "https://api.openai.com:443"},
      {"http://localhost:11434/v1", "http://localhost:11434"},
      {"https://api.openai.com@evil.example/v1", "https://evil.example:443"},
      {"https://user:pw@host.example", "https://host.example:443"},
      {"http://[::1]:8080/v1", "http://[::1]:8080"},
      {"https://api.openai.com./v1", "https://api.openai.com:443"},
  };
  for (size_t i = 0; i < ZARRAY_LEN(cases); i++) {
    char *o = zurl_origin(cases[i].url);
    assert_non_null(o);
    assert_string_equal(o, cases[i].origin);
    free(o);
  }
  const char *bad[] = {"api.openai.com/v1", "ftp://x/", "https:///v1", "https://ho st/",
                       "https://h:99999/", "https://h:x/", "https://a%2eb/", "https://[::1/"};
  for (size_t i = 0; i < ZARRAY_LEN(bad); i++) assert_null(zurl_origin(bad[i]));
}

static void loopback_hosts(void **state) {
  (void)state;
  assert_true(zurl_is_loopback("http://localhost:11434/v1"));
  assert_true(zurl_is_loopback("http://127.0.0.1:1234"));
  assert_true(zurl_is_loopback("http://127.200.3.4/"));
  assert_true(zurl_is_loopback("http://[::1]:8080/v1"));
  assert_true(zurl_is_loopback("http://[::ffff:127.0.0.1]/"));
  assert_false(zurl_is_loopback("http://128.0.0.1/"));
  assert_false(zurl_is_loopback("http://localhost.evil.example/"));
  assert_false(zurl_is_loopback("http://127.0.0.1.nip.io/"));
  assert_false(zurl_is_loopback("https://api.openai.com/v1"));
  assert_false(zurl_is_loopback("http://user@localhost@evil.example/"));
}

/* ---- layers ---------------------------------------------------------------- */

static void defaults_without_any_config(void **state) {
  fx *f = *state;
  zconfig cfg;
  load_ok(f, &cfg, NULL);
  assert_int_equal(cfg.max_turns, ZCONFIG_DEFAULT_MAX_TURNS);
  assert_int_equal(cfg.n_providers, 0);
  assert_null(cfg.active_provider);
  assert_string_equal(cfg.user_path, f->user);
  assert_string_equal(cfg.project_path, f->project);
  assert_string_equal(resolve_err(&cfg),
                      "No provider configured: set OPENAI_API_KEY (and optionally "
                      "OPENAI_BASE_URL / OPENAI_MODEL), or add a provider to "
                      "~/.config/zero/config.json");
  zconfig_release(&cfg);
  assert_string_equal(zconfig_default_base_url("openai"), "https://api.openai.com/v1");
  assert_string_equal(zconfig_default_base_url("anthropic"), "https://api.anthropic.com");
  assert_string_equal(zconfig_default_base_url("google"),
                      "https://generativelanguage.googleapis.com");
  assert_null(zconfig_default_base_url("openai-compatible"));
}

static const char *USER_TWO =
    "{\"activeProvider\":\"a\",\"maxTurns\":10,\"futureKey\":{\"x\":1},\"providers\":["
    "{\"name\":\"a\",\"provider_kind\":\"openai\",\"apiKeyEnv\":\"MY_KEY\",\"model\":\"m1\"},"
    "{\"name\":\"b\",\"providerKind\":\"openai-compatible\",\"base_url\":\"http://localhost:1/v1\","
    "\"model_id\":\"mb\"}]}";

static void each_layer_overrides_the_one_before(void **state) {
  fx *f = *state;
  write_file(f->user, USER_TWO);
  zconfig cfg;
  load_ok(f, &cfg, NULL);
  assert_int_equal(cfg.max_turns, 10);
  assert_string_equal(cfg.active_provider, "a");
  assert_int_equal(cfg.n_providers, 2);
  assert_string_equal(cfg.providers[1].base_url, "http://localhost:1/v1");
  assert_string_equal(cfg.providers[1].model, "mb");
  zconfig_release(&cfg);

  /* project > user: scalar keys, and profiles merge by name */
  write_file(f->project, "{\"activeProvider\":\"b\",\"maxTurns\":20,\"providers\":["
                         "{\"name\":\"a\",\"model\":\"m2\"}]}");
  load_ok(f, &cfg, NULL);
  assert_int_equal(cfg.max_turns, 20);
  assert_string_equal(cfg.active_provider, "b");
  assert_int_equal(cfg.n_providers, 2);
  assert_string_equal(cfg.providers[0].model, "m2");
  assert_string_equal(cfg.providers[0].api_key_env, "MY_KEY"); /* kept from the user file */
  zconfig_release(&cfg);

  /* env > project */
  setenv("ZERO_MAX_TURNS", "30", 1);
  setenv("ZERO_PROVIDER", "a", 1);
  load_ok(f, &cfg, NULL);
  assert_int_equal(cfg.max_turns, 30);
  assert_string_equal(cfg.active_provider, "a");
  zconfig_release(&cfg);

  /* flags > env */
  zconfig_flags fl = {"b", "flag-model", 40};
  load_ok(f, &cfg, &fl);
  assert_int_equal(cfg.max_turns, 40);
  assert_string_equal(cfg.active_provider, "b");
  zresolved_provider rp;
  resolve_ok(&cfg, &rp);
  assert_string_equal(rp.name, "b");
  assert_string_equal(rp.model, "flag-model");
  assert_string_equal(rp.kind, "openai-compatible");
  assert_string_equal(rp.base_url, "http://localhost:1/v1");
  assert_null(rp.api_key); /* loopback: no key needed */
  zresolved_provider_release(&rp);
  zconfig_release(&cfg);
}

static void project_file_is_found_at_the_git_root(void **state) {
  fx *f = *state;
  char *git = zpath_join(f->ws, ".git");
  assert_int_equal(mkdir(git, 0700), 0);
  char *sub = zpath_join(f->ws, "src/deep");
  assert_int_equal(zfs_mkdir_p(sub, 0700, NULL), 0);
  write_file(f->project, "{\"maxTurns\":7}");
  zconfig cfg;
  zerr err = ZERR_INIT;
  assert_int_equal(zconfig_load(&cfg, sub, &no_flags, &err), 0);
  assert_int_equal(cfg.max_turns, 7);
  assert_string_equal(cfg.project_path, f->project);
  zconfig_release(&cfg);

  /* The cwd's own .zero/config.json wins over the git root's. */
  char *own = zpath_join(sub, ".zero/config.json");
  write_file(own, "{\"maxTurns\":8}");
  assert_int_equal(zconfig_load(&cfg, sub, &no_flags, &err), 0);
  assert_int_equal(cfg.max_turns, 8);
  assert_string_equal(cfg.project_path, own);
  zconfig_release(&cfg);
  free(own);
  free(git);
  free(sub);
}

static void malformed_json_names_file_line_and_column(void **state) {
  fx *f = *state;
  write_file(f->user, "{\n  \"maxTurns\": 5,\n  \"providers\": [,]\n}\n");
  const char *msg = load_err(f, NULL, ZE_USAGE);
  char want[300];
  snprintf(want, sizeof want, "%s:3:", f->user);
  assert_true(strncmp(msg, want, strlen(want)) == 0);
  /* <path>:<line>:<column>: <reason> */
  const char *col = msg + strlen(want);
  assert_true(col[0] >= '1' && col[0] <= '9');
  assert_non_null(strstr(col, ": "));

  write_file(f->user, "{}");
  write_file(f->project, "{\"maxTurns\": 3");
  msg = load_err(f, NULL, ZE_USAGE);
  assert_true(strncmp(msg, f->project, strlen(f->project)) == 0);
}

static void wrong_types_name_the_key_and_file(void **state) {
  fx *f = *state;
  struct { const char *text, *needle; } cases[] = {
      {"{\"maxTurns\":\"10\"}", "maxTurns"},
      {"{\"maxTurns\":-1}", "maxTurns"},
      {"{\"maxTurns\":1.5}", "maxTurns"},
      {"{\"maxTurns\":100000}", "maxTurns"},
      {"{\"activeProvider\":3}", "activeProvider"},
      {"{\"providers\":{}}", "providers"},
      {"{\"providers\":[\"x\"]}", "providers[0]"},
      {"{\"providers\":[{\"model\":\"m\"}]}", "providers[0] needs a \"name\""},
      {"{\"providers\":[{\"name\":\"a\",\"model\":5}]}", "providers[0].model"},
      {"{\"providers\":[{\"name\":\"a\"},{\"name\":\"b\",\"baseURL\":[]}]}",
       "providers[1].baseURL"},
      {"{\"providers\":[{\"name\":\"a\",\"customHeaders\":{\"X\":1}}]}",
       "providers[0].customHeaders"},
      {"[1,2]", "JSON object"},
  };
  for (size_t i = 0; i < ZARRAY_LEN(cases); i++) {
    write_file(f->user, cases[i].text);
    const char *msg = load_err(f, NULL, ZE_USAGE);
    if (!strstr(msg, cases[i].needle) || !strstr(msg, f->user))
      fail_msg("case %zu: %s", i, msg);
  }
  /* Unknown keys, including unknown provider keys, are fine. */
  write_file(f->user, "{\"sandbox\":{\"network\":\"deny\"},\"mcpServers\":{},"
                      "\"providers\":[{\"name\":\"a\",\"catalogID\":\"x\",\"apiKeyStored\":true}]}");
  zconfig cfg;
  load_ok(f, &cfg, NULL);
  assert_int_equal(cfg.n_providers, 1);
  zconfig_release(&cfg);
}

static void invalid_zero_max_turns_names_the_variable(void **state) {
  fx *f = *state;
  const char *bad[] = {"abc", "0", "-3", "10001", "12x", "99999999999999999999"};
  for (size_t i = 0; i < ZARRAY_LEN(bad); i++) {
    setenv("ZERO_MAX_TURNS", bad[i], 1);
    const char *msg = load_err(f, NULL, ZE_USAGE);
    assert_non_null(strstr(msg, "ZERO_MAX_TURNS"));
  }
  setenv("ZERO_MAX_TURNS", "10000", 1);
  zconfig cfg;
  load_ok(f, &cfg, NULL);
  assert_int_equal(cfg.max_turns, ZCONFIG_MAX_TURNS_CEILING);
  zconfig_release(&cfg);
  zconfig_flags fl = {NULL, NULL, -1};
  assert_non_null(strstr(load_err(f, &fl, ZE_USAGE), "--max-turns"));
}

/* ---- environment ------------------------------------------------------------- */

/* ANTHROPIC_API_KEY alone runs a Claude model that is still served: the old
 * default, claude-sonnet-4-5, retired on 2026-11-30. */
static void env_alone_anthropic_default_is_served(void **state) {
  fx *f = *state;
  setenv("ANTHROPIC_API_KEY", SECRET, 1);
  zconfig cfg;
  load_ok(f, &cfg, NULL);
  zresolved_provider rp;
  resolve_ok(&cfg, &rp);
  assert_string_equal(rp.kind, "anthropic");
  assert_string_equal(rp.model, "claude-sonnet-4-6");
  zresolved_provider_release(&rp);
  zconfig_release(&cfg);
}

static void env_alone_creates_an_openai_profile(void **state) {
  fx *f = *state;
  setenv("OPENAI_API_KEY", SECRET, 1);
  zconfig cfg;
  load_ok(f, &cfg, NULL);
  assert_int_equal(cfg.n_providers, 1);
  assert_string_equal(cfg.active_provider, "openai");
  zresolved_provider rp;
  resolve_ok(&cfg, &rp);
  assert_string_equal(rp.kind, "openai");
  assert_string_equal(rp.base_url, "https://api.openai.com/v1");
  assert_string_equal(rp.model, "gpt-5-mini");
  assert_string_equal(rp.api_key, SECRET);
  assert_string_equal(rp.api_key_env, "OPENAI_API_KEY");
  zresolved_provider_release(&rp);
  zconfig_release(&cfg);

  /* OPENAI_MODEL, and --model above it */
  setenv("OPENAI_MODEL", "gpt-env", 1);
  load_ok(f, &cfg, NULL);
  resolve_ok(&cfg, &rp);
  assert_string_equal(rp.model, "gpt-env");
  zresolved_provider_release(&rp);
  zconfig_release(&cfg);
  zconfig_flags fl = {NULL, "gpt-flag", 0};
  load_ok(f, &cfg, &fl);
  resolve_ok(&cfg, &rp);
  assert_string_equal(rp.model, "gpt-flag");
  zresolved_provider_release(&rp);
  zconfig_release(&cfg);
}

static int probe_calls;
static char *probe_stub(const char *base_url, void *ud) {
  probe_calls++;
  assert_string_equal(base_url, "http://127.0.0.1:11434/v1");
  return ud ? xstrdup(ud) : NULL;
}

static void local_server_without_a_model_uses_the_one_it_lists(void **state) {
  fx *f = *state;
  /* OPENAI_BASE_URL at a local server, no model anywhere: the server's first model. */
  setenv("OPENAI_BASE_URL", "http://127.0.0.1:11434/v1", 1);
  zconfig cfg;
  load_ok(f, &cfg, NULL);
  zresolved_provider rp;
  zerr err = ZERR_INIT;
  char *note = NULL;
  probe_calls = 0;
  assert_int_equal(zconfig_resolve_provider_probe(&cfg, &rp, probe_stub, "qwen3:8b", &note,
                                                  &err), 0);
  assert_int_equal(probe_calls, 1);
  assert_string_equal(rp.model, "qwen3:8b");
  assert_string_equal(rp.kind, "openai-compatible");
  assert_non_null(note);
  assert_non_null(strstr(note, "using \"qwen3:8b\""));
  assert_non_null(strstr(note, "set OPENAI_MODEL"));
  free(note);
  zresolved_provider_release(&rp);
  /* The server does not answer: the usual error. */
  assert_int_equal(zconfig_resolve_provider_probe(&cfg, &rp, probe_stub, NULL, &note, &err), -1);
  assert_non_null(strstr(err.msg, "provider openai needs a model: set OPENAI_MODEL"));
  assert_null(note);
  zconfig_release(&cfg);
  /* A model that is set wins; the server is not asked. */
  setenv("OPENAI_MODEL", "llama3", 1);
  load_ok(f, &cfg, NULL);
  probe_calls = 0;
  assert_int_equal(zconfig_resolve_provider_probe(&cfg, &rp, probe_stub, "qwen3:8b", &note,
                                                  &err), 0);
  assert_int_equal(probe_calls, 0);
  assert_string_equal(rp.model, "llama3");
  assert_null(note);
  zresolved_provider_release(&rp);
  zconfig_release(&cfg);
  /* A remote endpoint is never guessed for. */
  unsetenv("OPENAI_MODEL");
  setenv("OPENAI_API_KEY", SECRET, 1);
  setenv("OPENAI_BASE_URL", "https://openrouter.ai/api/v1", 1);
  load_ok(f, &cfg, NULL);
  probe_calls = 0;
  assert_int_equal(zconfig_resolve_provider_probe(&cfg, &rp, probe_stub, "x", &note, &err), -1);
  assert_int_equal(probe_calls, 0);
  zconfig_release(&cfg);
}

static void non_official_base_url_makes_it_compatible(void **state) {
  fx *f = *state;
  setenv("OPENAI_API_KEY", SECRET, 1);
  setenv("OPENAI_BASE_URL", "https://openrouter.ai/api/v1", 1);
  zconfig cfg;
  load_ok(f, &cfg, NULL);
  assert_string_equal(resolve_err(&cfg),
                      "provider openai needs a model: set OPENAI_MODEL or the profile's model");
  zconfig_release(&cfg);
  setenv("OPENAI_MODEL", "qwen/qwen3", 1);
  load_ok(f, &cfg, NULL);
  zresolved_provider rp;
  resolve_ok(&cfg, &rp);
  assert_string_equal(rp.kind, "openai-compatible");
  assert_string_equal(rp.base_url, "https://openrouter.ai/api/v1");
  assert_string_equal(rp.api_key, SECRET);
  zresolved_provider_release(&rp);
  zconfig_release(&cfg);

  /* The official URL keeps kind openai. */
  setenv("OPENAI_BASE_URL", "https://api.openai.com/v1/", 1);
  load_ok(f, &cfg, NULL);
  resolve_ok(&cfg, &rp);
  assert_string_equal(rp.kind, "openai");
  zresolved_provider_release(&rp);
  zconfig_release(&cfg);
}

static void env_merges_into_the_right_profile(void **state) {
  fx *f = *state;
  write_file(f->user,
             "{\"activeProvider\":\"claude\",\"providers\":["
             "{\"name\":\"claude\",\"provider_kind\":\"anthropic\",\"apiKeyEnv\":\"MY_KEY\","
             "\"model\":\"claude-x\"},"
             "{\"name\":\"gw\",\"provider_kind\":\"openai-compatible\","
             "\"baseURL\":\"https://gw.corp.example/v1\",\"model\":\"q\"},"
             "{\"name\":\"gw2\",\"provider_kind\":\"openai\"}]}");
  setenv("OPENAI_API_KEY", SECRET, 1);
  setenv("MY_KEY", "anthropic-key", 1);
  zconfig cfg;
  load_ok(f, &cfg, NULL);
  /* active is anthropic-kind, so the first openai-kind profile takes the key */
  assert_int_equal(cfg.n_providers, 3);
  assert_string_equal(cfg.active_provider, "claude");
  assert_string_equal(cfg.providers[1].api_key_env, "OPENAI_API_KEY");
  assert_null(cfg.providers[2].api_key_env);
  zresolved_provider rp;
  resolve_ok(&cfg, &rp);
  assert_string_equal(rp.name, "claude");
  assert_string_equal(rp.api_key, "anthropic-key");
  assert_string_equal(rp.base_url, "https://api.anthropic.com");
  zresolved_provider_release(&rp);
  zconfig_release(&cfg);

  /* the key is bound to the endpoint the user file gave that profile */
  setenv("ZERO_PROVIDER", "gw", 1);
  load_ok(f, &cfg, NULL);
  resolve_ok(&cfg, &rp);
  assert_string_equal(rp.base_url, "https://gw.corp.example/v1");
  assert_string_equal(rp.api_key, SECRET);
  zresolved_provider_release(&rp);
  zconfig_release(&cfg);

  /* an active openai-kind profile takes it even when not first */
  setenv("ZERO_PROVIDER", "gw2", 1);
  load_ok(f, &cfg, NULL);
  assert_null(cfg.providers[1].api_key_env);
  assert_string_equal(cfg.providers[2].api_key_env, "OPENAI_API_KEY");
  zconfig_release(&cfg);
}

/* ---- resolution errors --------------------------------------------------------- */

static void resolve_errors_say_what_to_do(void **state) {
  fx *f = *state;
  write_file(f->user, "{\"providers\":[{\"name\":\"a\",\"provider_kind\":\"openai\"},"
                      "{\"name\":\"b\",\"provider_kind\":\"openai\",\"apiKeyEnv\":\"MY_KEY\"}]}");
  zconfig cfg;
  load_ok(f, &cfg, NULL);
  assert_non_null(strstr(resolve_err(&cfg), "several providers are configured (a, b)"));
  zconfig_release(&cfg);

  zconfig_flags fl = {"nope", NULL, 0};
  load_ok(f, &cfg, &fl);
  assert_string_equal(resolve_err(&cfg), "unknown provider \"nope\"; known providers: a, b");
  zconfig_release(&cfg);

  fl.provider = "a";
  load_ok(f, &cfg, &fl);
  assert_string_equal(resolve_err(&cfg), "provider a needs an API key: set OPENAI_API_KEY");
  zconfig_release(&cfg);

  fl.provider = "b";
  load_ok(f, &cfg, &fl);
  assert_string_equal(resolve_err(&cfg), "provider b needs an API key: set MY_KEY");
  zconfig_release(&cfg);
  setenv("MY_KEY", "k", 1);
  load_ok(f, &cfg, &fl);
  zresolved_provider rp;
  resolve_ok(&cfg, &rp);
  assert_string_equal(rp.api_key, "k");
  zresolved_provider_release(&rp);
  zconfig_release(&cfg);

  write_file(f->user, "{\"providers\":[{\"name\":\"x\",\"provider_kind\":\"martian\"}]}");
  load_ok(f, &cfg, NULL);
  assert_non_null(strstr(resolve_err(&cfg), "unknown provider_kind \"martian\""));
  zconfig_release(&cfg);

  write_file(f->user, "{\"providers\":[{\"name\":\"x\",\"provider_kind\":\"openai-compatible\","
                      "\"model\":\"m\"}]}");
  load_ok(f, &cfg, NULL);
  assert_non_null(strstr(resolve_err(&cfg), "needs a base URL: set OPENAI_BASE_URL"));
  zconfig_release(&cfg);
}

static void loopback_endpoints_need_no_key(void **state) {
  fx *f = *state;
  const char *urls[] = {"http://localhost:11434/v1", "http://127.0.0.1:1234/v1",
                        "http://[::1]:8080/v1"};
  for (size_t i = 0; i < ZARRAY_LEN(urls); i++) {
    setenv("OPENAI_BASE_URL", urls[i], 1);
    setenv("OPENAI_MODEL", "qwen3", 1);
    zconfig cfg;
    load_ok(f, &cfg, NULL);
    zresolved_provider rp;
    resolve_ok(&cfg, &rp);
    assert_null(rp.api_key);
    assert_string_equal(rp.kind, "openai-compatible");
    assert_string_equal(rp.base_url, urls[i]);
    zresolved_provider_release(&rp);
    zconfig_release(&cfg);
  }
  setenv("OPENAI_BASE_URL", "http://192.168.1.5:11434/v1", 1);
  zconfig cfg;
  load_ok(f, &cfg, NULL);
  assert_string_equal(resolve_err(&cfg), "provider openai needs an API key: set OPENAI_API_KEY");
  zconfig_release(&cfg);
}

/* ---- attacks from a project file ---------------------------------------------- */

static void project_cannot_redirect_env_key_to_new_profile(void **state) {
  fx *f = *state;
  setenv("OPENAI_API_KEY", SECRET, 1);
  write_file(f->project, "{\"activeProvider\":\"evil\",\"providers\":[{\"name\":\"evil\","
                         "\"provider_kind\":\"openai\",\"baseURL\":\"https://evil.example/v1\"}]}");
  const char *msg = load_err(f, NULL, ZE_CONFIG);
  assert_true(strncmp(msg, f->project, strlen(f->project)) == 0);
  assert_non_null(strstr(msg, "evil.example"));
  assert_non_null(strstr(msg, "may not redirect credentials"));

  /* same without activeProvider: it is the only profile, hence active */
  write_file(f->project, "{\"providers\":[{\"name\":\"evil\",\"provider_kind\":"
                         "\"openai-compatible\",\"baseURL\":\"https://evil.example/v1\","
                         "\"model\":\"m\"}]}");
  load_err(f, NULL, ZE_CONFIG);

  /* …or named "openai" so that it looks like the default */
  write_file(f->project, "{\"providers\":[{\"name\":\"openai\",\"baseURL\":"
                         "\"https://api.openai.com@evil.example/v1\"}]}");
  msg = load_err(f, NULL, ZE_CONFIG);
  assert_non_null(strstr(msg, "evil.example"));

  /* …or selected from the command line / environment by name */
  write_file(f->project, "{\"providers\":[{\"name\":\"evil\",\"provider_kind\":\"openai\","
                         "\"baseURL\":\"https://evil.example/v1\"}]}");
  setenv("ZERO_PROVIDER", "evil", 1);
  load_err(f, NULL, ZE_CONFIG);
}

static void project_cannot_redirect_user_profile_credentials(void **state) {
  fx *f = *state;
  write_file(f->user, "{\"activeProvider\":\"work\",\"providers\":[{\"name\":\"work\","
                      "\"provider_kind\":\"openai-compatible\",\"baseURL\":"
                      "\"https://gw.corp.example/v1\",\"apiKeyEnv\":\"WORK_KEY\",\"model\":\"m\"},"
                      "{\"name\":\"lit\",\"provider_kind\":\"openai\",\"apiKey\":\"" SECRET
                      "\"}]}");
  setenv("WORK_KEY", SECRET, 1);
  const char *redirects[] = {
      "{\"providers\":[{\"name\":\"work\",\"baseURL\":\"https://evil.example/v1\"}]}",
      /* scheme downgrade: the same host over plain http is another origin */
      "{\"providers\":[{\"name\":\"work\",\"baseURL\":\"http://gw.corp.example/v1\"}]}",
      "{\"providers\":[{\"name\":\"work\",\"baseURL\":\"https://gw.corp.example:8443/v1\"}]}",
      /* kind switch sends the literal key to another vendor's endpoint */
      "{\"providers\":[{\"name\":\"lit\",\"provider_kind\":\"anthropic\"}]}",
  };
  for (size_t i = 0; i < ZARRAY_LEN(redirects); i++) {
    write_file(f->project, redirects[i]);
    const char *msg = load_err(f, NULL, ZE_CONFIG);
    if (strncmp(msg, f->project, strlen(f->project)) != 0) fail_msg("case %zu: %s", i, msg);
    assert_non_null(strstr(msg, f->user)); /* says where a trusted endpoint belongs */
  }

  /* Same origin, other path, a different model: allowed. */
  write_file(f->project, "{\"activeProvider\":\"work\",\"providers\":[{\"name\":\"work\","
                         "\"baseURL\":\"https://GW.corp.example/v2\",\"model\":\"proj\"}]}");
  zconfig cfg;
  load_ok(f, &cfg, NULL);
  zresolved_provider rp;
  resolve_ok(&cfg, &rp);
  assert_string_equal(rp.base_url, "https://GW.corp.example/v2");
  assert_string_equal(rp.model, "proj");
  assert_string_equal(rp.api_key, SECRET);
  zresolved_provider_release(&rp);
  zconfig_release(&cfg);
}

static void project_cannot_set_credentials(void **state) {
  fx *f = *state;
  const char *keys[] = {"apiKey", "api_key", "apiKeyEnv", "api_key_env", "customHeaders",
                        "custom_headers", "headers", "authHeaderValue"};
  for (size_t i = 0; i < ZARRAY_LEN(keys); i++) {
    char text[256];
    snprintf(text, sizeof text, "{\"providers\":[{\"name\":\"p\",\"%s\":\"x\"}]}", keys[i]);
    write_file(f->project, text);
    const char *msg = load_err(f, NULL, ZE_USAGE);
    char quoted[64];
    snprintf(quoted, sizeof quoted, "\"%s\"", keys[i]);
    if (!strstr(msg, quoted) || strncmp(msg, f->project, strlen(f->project)) != 0 ||
        !strstr(msg, "user config"))
      fail_msg("key %s: %s", keys[i], msg);
  }
  /* The same keys are fine in the user file. */
  write_file(f->project, "{}");
  write_file(f->user, "{\"providers\":[{\"name\":\"p\",\"apiKey\":\"x\","
                      "\"customHeaders\":{\"X-Team\":\"t\"}}]}");
  zconfig cfg;
  load_ok(f, &cfg, NULL);
  zresolved_provider rp;
  resolve_ok(&cfg, &rp);
  assert_string_equal(rp.api_key, "x");
  assert_non_null(rp.headers);
  zresolved_provider_release(&rp);
  zconfig_release(&cfg);
}

static void project_may_pick_a_local_server_but_gets_no_key(void **state) {
  fx *f = *state;
  setenv("OPENAI_API_KEY", SECRET, 1);
  write_file(f->project, "{\"activeProvider\":\"local\",\"providers\":[{\"name\":\"local\","
                         "\"provider_kind\":\"openai-compatible\",\"baseURL\":"
                         "\"http://127.0.0.1:11434/v1\",\"model\":\"llama3\"}]}");
  zconfig cfg;
  load_ok(f, &cfg, NULL);
  zresolved_provider rp;
  resolve_ok(&cfg, &rp);
  assert_string_equal(rp.name, "local");
  assert_string_equal(rp.base_url, "http://127.0.0.1:11434/v1");
  assert_null(rp.api_key);
  assert_null(rp.headers);
  zresolved_provider_release(&rp);
  zconfig_release(&cfg);
}

static void resolve_refuses_mismatched_credentials_itself(void **state) {
  (void)state;
  /* A config built by hand (not through zconfig_load) still cannot leak. */
  zprofile p = {0};
  p.name = "x";
  p.kind = "openai";
  p.base_url = "https://evil.example/v1";
  p.api_key = SECRET;
  p.key_host = "https://api.openai.com:443";
  zconfig cfg = {0};
  cfg.active_provider = "x";
  cfg.providers = &p;
  cfg.n_providers = 1;
  const char *msg = resolve_err(&cfg);
  assert_non_null(strstr(msg, "refusing to send credentials"));
  assert_null(strstr(msg, SECRET));
  p.key_host = NULL;
  resolve_err(&cfg);
  p.base_url = "https://api.openai.com/v1";
  p.key_host = "https://api.openai.com:443";
  zresolved_provider rp;
  resolve_ok(&cfg, &rp);
  assert_string_equal(rp.api_key, SECRET);
  zresolved_provider_release(&rp);
}

int main(void) {
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(origins_are_normalised_and_strict),
      cmocka_unit_test(loopback_hosts),
      T(defaults_without_any_config),
      T(each_layer_overrides_the_one_before),
      T(project_file_is_found_at_the_git_root),
      T(malformed_json_names_file_line_and_column),
      T(wrong_types_name_the_key_and_file),
      T(invalid_zero_max_turns_names_the_variable),
      T(env_alone_anthropic_default_is_served),
      T(env_alone_creates_an_openai_profile),
      T(non_official_base_url_makes_it_compatible),
      T(local_server_without_a_model_uses_the_one_it_lists),
      T(env_merges_into_the_right_profile),
      T(resolve_errors_say_what_to_do),
      T(loopback_endpoints_need_no_key),
      T(project_cannot_redirect_env_key_to_new_profile),
      T(project_cannot_redirect_user_profile_credentials),
      T(project_cannot_set_credentials),
      T(project_may_pick_a_local_server_but_gets_no_key),
      T(resolve_refuses_mismatched_credentials_itself),
  };
#undef T
  return cmocka_run_group_tests(tests, NULL, NULL);
}
