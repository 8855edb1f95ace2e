/* test_provider_registry.c — think-tag filtering at every split point, the
 * model registry (prefix matching, gateway prefixes, overrides, cost), the
 * presets and the idle-timeout parser. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "base/buf.h"
#include "base/common.h"
#include "config/models.h"
#include "config/presets.h"
#include "provider/think.h"
#include "provider/wire.h"

static int rec(void *ud, const zprov_event *ev) {
  zbuf *out = ud;
  if (ev->kind == ZPEV_TEXT) zbuf_addstr(out, "T:");
  else if (ev->kind == ZPEV_REASONING) zbuf_addstr(out, "R:");
  else zbuf_addstr(out, "X:");
  zbuf_add(out, ev->text ? ev->text : "", ev->len);
  zbuf_addch(out, '|');
  return 0;
}

/* Feeds s split at k through the filter, then a DONE; returns the text and
 * reasoning reassembled as "T=…;R=…". */
static char *through(const char *s, size_t k) {
  zbuf out = ZBUF_INIT;
  zthink_filter f;
  zthink_init(&f, rec, &out);
  zprov_event ev;
  memset(&ev, 0, sizeof ev);
  ev.kind = ZPEV_TEXT;
  ev.text = s;
  ev.len = k;
  zthink_on_event(&f, &ev);
  ev.text = s + k;
  ev.len = strlen(s) - k;
  zthink_on_event(&f, &ev);
  memset(&ev, 0, sizeof ev);
  ev.kind = ZPEV_DONE;
  zthink_on_event(&f, &ev);
  zthink_release(&f);
  zbuf t = ZBUF_INIT, r = ZBUF_INIT;
  for (char *p = out.data; p && *p;) {
    char *bar = strchr(p, '|');
    if (!strncmp(p, "T:", 2)) zbuf_add(&t, p + 2, (size_t)(bar - p - 2));
    if (!strncmp(p, "R:", 2)) zbuf_add(&r, p + 2, (size_t)(bar - p - 2));
    p = bar + 1;
  }
  zbuf res = ZBUF_INIT;
  zbuf_addf(&res, "T=%s;R=%s", t.data ? t.data : "", r.data ? r.data : "");
  zbuf_release(&t);
  zbuf_release(&r);
  zbuf_release(&out);
  return zbuf_detach(&res, NULL);
}

static void think_tags_split_anywhere(void **s) {
  (void)s;
  const char *in = "<think>plan: a<b</think>\n\nAnswer <th is here";
  for (size_t k = 0; k <= strlen(in); k++) {
    cleanup_free char *got = through(in, k);
    if (strcmp(got, "T=Answer <th is here;R=plan: a<b") != 0) fail_msg("split %zu: %s", k, got);
  }
}

static void think_held_bytes_flushed_before_done(void **s) {
  (void)s;
  cleanup_free char *got = through("Hello <thi", 10);
  assert_string_equal(got, "T=Hello <thi;R=");
  cleanup_free char *open = through("<think>unfinished", 3);
  assert_string_equal(open, "T=;R=unfinished");
}

static void think_default_families(void **s) {
  (void)s;
  assert_true(zthink_model_default("deepseek-r1:14b"));
  assert_true(zthink_model_default("Qwen/QwQ-32B"));
  assert_true(zthink_model_default("openai/gpt-oss-120b"));
  assert_false(zthink_model_default("gpt-5-mini"));
  assert_false(zthink_model_default(NULL));
}

static void registry_prefix_and_gateway(void **s) {
  (void)s;
  zmodel_info m;
  zmodel_lookup(NULL, "claude-sonnet-4-5-20250929", &m);
  assert_true(m.known);
  assert_string_equal(m.id, "claude-sonnet-4-5");
  assert_int_equal(m.max_output, 64000);
  zmodel_lookup(NULL, "gpt-4o-mini-2024-07-18", &m);
  assert_string_equal(m.id, "gpt-4o-mini"); /* not gpt-4o */
  zmodel_lookup(NULL, "openai/gpt-5-mini", &m);
  assert_string_equal(m.id, "gpt-5-mini");
  zmodel_lookup(NULL, "qwen3:8b", &m);
  assert_string_equal(m.id, "qwen3");
  assert_false(m.priced);
  zmodel_lookup(NULL, "gpt-5x", &m); /* not a separator: unknown */
  assert_false(m.known);
  assert_int_equal(m.context_window, ZMODEL_DEFAULT_CONTEXT);
}

/* Looks name up and checks the registry row it resolves to (NULL: unknown). */
static void resolves(const char *name, const char *want) {
  zmodel_info m;
  zmodel_lookup(NULL, name, &m);
  if (!want) {
    if (m.known) fail_msg("%s resolved to %s, want unknown", name, m.id);
    return;
  }
  if (!m.known || strcmp(m.id, want) != 0)
    fail_msg("%s resolved to %s, want %s", name, m.known ? m.id : "(unknown)", want);
}

/* A newer version must not inherit an older row's prices through the prefix
 * match, while snapshots, dates, sizes and tags still find their row. */
static void registry_versions_not_shadowed(void **s) {
  (void)s;
  resolves("claude-opus-5", "claude-opus-5");
  resolves("claude-opus-5-5", "claude-opus-5-5");
  resolves("claude-opus-5-5-20261001", "claude-opus-5-5");
  resolves("claude-opus-5-20260724", "claude-opus-5");
  resolves("claude-opus-4-5-20251101", "claude-opus-4-5");
  resolves("claude-opus-4-1-20250805", "claude-opus-4-1");
  resolves("claude-opus-4-0", "claude-opus-4");
  resolves("claude-sonnet-4-20250514", "claude-sonnet-4");
  resolves("claude-haiku-4-5@20251001", "claude-haiku-4-5");
  resolves("claude-sonnet-5-5", "claude-sonnet-5-5");
  /* OpenRouter writes Claude versions with dots. */
  resolves("anthropic/claude-sonnet-4.5", "claude-sonnet-4-5");
  /* Not claude-opus-4's $15/$75, gpt-5's or grok-4's prices: unknown. */
  resolves("claude-opus-4-9", NULL);
  resolves("claude-opus-5-7", NULL);
  resolves("gpt-5.5", NULL);
  resolves("gpt-5.2-2025-12-11", NULL);
  resolves("gpt-5-2025-08-07", "gpt-5");
  resolves("gpt-4.1-2025-04-14", "gpt-4.1");
  resolves("gpt-6.2-sol", "gpt-6.2-sol");
  resolves("openai/gpt-6-luna", "gpt-6-luna");
  resolves("grok-4-0709", "grok-4");
  resolves("grok-4.1-fast", NULL);
  resolves("grok-4.7", "grok-4.7");
  resolves("gemini-2.0-flash-001", "gemini-2.0-flash");
  resolves("gemini-2.5-flash-preview-05-20", "gemini-2.5-flash");
  resolves("qwen3-235b-a22b", "qwen3");
  resolves("qwen3.5", NULL);
  resolves("llama3.1:70b", "llama3.1");
}

/* The rows checked against the vendors' pages on 2026-12-02. */
static void registry_current_rows(void **s) {
  (void)s;
  zmodel_info m;
  zmodel_lookup(NULL, "claude-opus-5-5", &m);
  assert_int_equal(m.context_window, 1000000);
  assert_int_equal(m.max_output, 128000);
  assert_string_equal(m.provider, "anthropic");
  assert_true(m.input_price == 4.00 && m.cached_price == 0.20 && m.output_price == 20.00);
  zmodel_lookup(NULL, "claude-fable-5-1", &m);
  assert_true(m.input_price == 10.00 && m.cached_price == 0.25 && m.output_price == 50.00);
  /* Haiku 5.5: the band up to 100K prompt tokens. */
  zmodel_lookup(NULL, "claude-haiku-5-5", &m);
  assert_true(m.input_price == 0.10 && m.output_price == 0.50);
  assert_int_equal(m.context_window, 1000000);
  /* Adaptive-only models take output_config.effort's levels, not minimal. */
  assert_string_equal(m.efforts, "low,medium,high,xhigh,max");
  zmodel_lookup(NULL, "claude-opus-4-8", &m);
  assert_true(m.input_price == 5.00 && m.output_price == 25.00);
  zmodel_lookup(NULL, "gpt-6.2-sol", &m);
  assert_int_equal(m.context_window, 1050000);
  assert_true(m.input_price == 2.00 && m.cached_price == 0.10 && m.output_price == 10.00);
  assert_string_equal(m.efforts, "low,medium,high,xhigh,max");
  zmodel_lookup(NULL, "gpt-6-luna", &m);
  assert_string_equal(m.efforts, "none,low,medium,high,xhigh,max");
  assert_true(m.input_price == 0.10 && m.cached_price == 0.01 && m.output_price == 0.50);
  zmodel_lookup(NULL, "gpt-6.1-terra", &m);
  assert_true(m.input_price == 1.00 && m.cached_price == 0.05 && m.output_price == 5.00);
  zmodel_lookup(NULL, "grok-4.7", &m);
  assert_int_equal(m.context_window, 500000);
  assert_true(m.input_price == 2.00 && m.output_price == 6.00);
}

/* Which thinking shape each Anthropic generation takes; a wrong one is an
 * HTTP 400 from the real API. */
static void registry_thinking_styles(void **s) {
  (void)s;
  static const struct {
    const char *id;
    zmodel_thinking t;
    const char *efforts;
  } rows[] = {
      {"claude-fable-5-1", ZTHINK_ADAPTIVE_ON, "low,medium,high,xhigh,max"},
      {"claude-opus-5-5-20261001", ZTHINK_ADAPTIVE_ON, "low,medium,high,xhigh,max"},
      {"claude-sonnet-5-5", ZTHINK_ADAPTIVE_ON, "low,medium,high,xhigh,max"},
      {"claude-haiku-5-5", ZTHINK_ADAPTIVE_ON, "low,medium,high,xhigh,max"},
      {"claude-opus-4-8", ZTHINK_ADAPTIVE, "low,medium,high,xhigh,max"},
      {"anthropic/claude-opus-4.7", ZTHINK_ADAPTIVE, "low,medium,high,xhigh,max"},
      {"claude-sonnet-4-6", ZTHINK_ADAPTIVE, "low,medium,high,max"},
      {"claude-opus-4-5-20251101", ZTHINK_BUDGET, "minimal,low,medium,high"},
      {"claude-sonnet-4-5", ZTHINK_BUDGET, "minimal,low,medium,high"},
      {"claude-3-5-haiku", ZTHINK_NONE, ""},
      {"gpt-6.2-sol", ZTHINK_NONE, "low,medium,high,xhigh,max"},
      {"gpt-5.1", ZTHINK_NONE, "none,low,medium,high"},
  };
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    zmodel_info m;
    zmodel_lookup(NULL, rows[i].id, &m);
    if (m.thinking != rows[i].t || strcmp(m.efforts, rows[i].efforts) != 0)
      fail_msg("%s: thinking %d efforts %s", rows[i].id, (int)m.thinking, m.efforts);
  }
  zmodel_info m;
  zmodel_lookup(NULL, "claude-next-9", &m); /* unknown: the classic budget shape */
  assert_int_equal(m.thinking, ZTHINK_BUDGET);
  assert_string_equal(m.efforts, "");
  assert_true(zmodel_effort_known("xhigh") && zmodel_effort_known("none"));
  assert_false(zmodel_effort_known("ultra") || zmodel_effort_known(NULL));
  assert_true(zmodel_effort_listed("low,medium,high,xhigh,max", "max"));
  assert_false(zmodel_effort_listed("low,medium,high,xhigh,max", "high,"));
  assert_false(zmodel_effort_listed("low,medium,high", "hig"));
}

/* "reasoningEfforts" (array or comma string) and "thinking" in an override
 * are read, and bad ones refused with the accepted values named. */
static void registry_override_thinking(void **s) {
  (void)s;
  zconfig cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.models =
      json_pack("{s:{s:[s,s], s:s}, s:{s:s}}", "claude-opus-6", "reasoningEfforts", "low", "max",
                "thinking", "adaptive-on", "gw-model", "reasoningEfforts", "none,high");
  zmodel_info m;
  zmodel_lookup(&cfg, "claude-opus-6", &m);
  assert_string_equal(m.efforts, "low,max");
  assert_int_equal(m.thinking, ZTHINK_ADAPTIVE_ON);
  zmodel_lookup(&cfg, "gw-model", &m);
  assert_string_equal(m.efforts, "none,high");
  assert_int_equal(zmodel_check_override("x", json_object_get(cfg.models, "gw-model"), NULL), 0);
  json_t *bad = json_pack("{s:[s,s]}", "reasoningEfforts", "low", "ultra");
  zerr e = ZERR_INIT;
  assert_int_equal(zmodel_check_override("config.json: models.m", bad, &e), -1);
  assert_non_null(strstr(e.msg, "\"ultra\""));
  assert_non_null(strstr(e.msg, ZMODEL_EFFORT_NAMES));
  json_decref(bad);
  bad = json_pack("{s:s}", "thinking", "always");
  assert_int_equal(zmodel_check_override("m", bad, &e), -1);
  assert_non_null(strstr(e.msg, "adaptive-on"));
  json_decref(bad);
  json_decref(cfg.models);
}

static void registry_override_and_cost(void **s) {
  (void)s;
  zconfig cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.models = json_pack("{s:{s:i, s:f, s:f}}", "my-tune", "contextWindow", 4096, "inputPrice",
                         2.0, "outputPrice", 4.0);
  zmodel_info m;
  zmodel_lookup(&cfg, "my-tune", &m);
  assert_true(m.known && m.priced);
  assert_int_equal(m.context_window, 4096);
  /* 1M prompt of which 0 cached, 1M out: 2 + 4. Cached defaults to input. */
  assert_true(zmodel_cost(&m, 1000000, 0, 1000000) > 5.999);
  zmodel_lookup(&cfg, "gpt-4o-mini", &m);
  double c = zmodel_cost(&m, 1000000, 500000, 0);
  assert_true(c > 0.1124 && c < 0.1126); /* 0.5*0.15 + 0.5*0.075 */
  json_decref(cfg.models);
}

static void presets_known(void **s) {
  (void)s;
  const zpreset *p = zpreset_find("groq");
  assert_non_null(p);
  assert_string_equal(p->key_env, "GROQ_API_KEY");
  assert_true(zpreset_find("ollama")->local);
  assert_ptr_equal(zpreset_find("lm-studio"), zpreset_find("lmstudio"));
  assert_null(zpreset_find("nonesuch"));
}

/* Every hosted preset's default model is one the registry knows (a default
 * it does not know would run with a guessed window and no prices), and the
 * Anthropic default is not the retired Claude Sonnet 4.5. */
static void preset_defaults_known(void **s) {
  (void)s;
  size_t n;
  const zpreset *all = zpreset_all(&n);
  for (size_t i = 0; i < n; i++) {
    if (all[i].local || !all[i].model) continue;
    zmodel_info m;
    zmodel_lookup(NULL, all[i].model, &m);
    if (!m.known)
      fail_msg("preset %s: default %s is not in the registry", all[i].name, all[i].model);
  }
  assert_string_equal(zpreset_find("anthropic")->model, "claude-sonnet-4-6");
}

static void idle_timeout_values(void **s) {
  (void)s;
  assert_int_equal(zwire_parse_duration_ms("300"), 300000);
  assert_int_equal(zwire_parse_duration_ms("90s"), 90000);
  assert_int_equal(zwire_parse_duration_ms("5m"), 300000);
  assert_int_equal(zwire_parse_duration_ms("500ms"), 500);
  assert_int_equal(zwire_parse_duration_ms("0"), -1);
  assert_int_equal(zwire_parse_duration_ms("soon"), -1);
  assert_int_equal(zwire_parse_duration_ms("5x"), -1);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(think_tags_split_anywhere),
      cmocka_unit_test(think_held_bytes_flushed_before_done),
      cmocka_unit_test(think_default_families),
      cmocka_unit_test(registry_prefix_and_gateway),
      cmocka_unit_test(registry_versions_not_shadowed),
      cmocka_unit_test(registry_current_rows),
      cmocka_unit_test(registry_thinking_styles),
      cmocka_unit_test(registry_override_thinking),
      cmocka_unit_test(registry_override_and_cost),
      cmocka_unit_test(presets_known),
      cmocka_unit_test(preset_defaults_known),
      cmocka_unit_test(idle_timeout_values),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
