/* cmd_models.c — `zero models list [--provider p] [--json]`: the model
 * registry (compiled in, plus the config's "models" overrides). */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/common.h"
#include "base/json.h"
#include "base/opts.h"
#include "cli/cli.h"
#include "cli/commands.h"
#include "config/config.h"
#include "config/models.h"

enum { M_HELP = 1, M_JSON, M_PROVIDER };

static const zopt MODELS_OPTS[] = {
    {M_PROVIDER, "provider", 0, ZOPT_VALUE, 0, "P", "only the models of family or kind P", "Flags"},
    {M_JSON, "json", 0, ZOPT_FLAG, 0, NULL, "print a JSON array of model objects", NULL},
    {M_HELP, "help", 'h', ZOPT_FLAG, 0, NULL, "show this help", NULL},
};

const zopt_spec zcli_models_opts = {.command = "models", .opts = MODELS_OPTS,
                                    .n_opts = ZARRAY_LEN(MODELS_OPTS),
                                    .unknown = "unknown argument"};

static void usage(FILE *out) {
  fputs("Usage: zero models list [--provider P] [--json]\n"
        "\n"
        "Lists the models zero knows: context window, output limit, tool and image\n"
        "support, reasoning-effort levels and price per million tokens (input /\n"
        "cached input / output, USD). Add or override entries under \"models\" in\n"
        "~/.config/zero/config.json. P is a family (openai, anthropic, google,\n"
        "deepseek, xai, mistral, groq, local) or a provider kind.\n"
        "\n",
        out);
  zopt_print_flags(out, &zcli_models_opts);
  fputs("\n"
        "Examples:\n"
        "  zero models list\n"
        "  zero models list --provider anthropic --json\n",
        out);
}

typedef struct list_ctx {
  bool json;
  json_t *arr;
  size_t n;
} list_ctx;

static void on_model(void *ud, const zmodel_info *m) {
  list_ctx *c = ud;
  c->n++;
  if (c->json) {
    json_t *o = json_pack("{s:s, s:s, s:I, s:I, s:b, s:b}", "id", m->id, "provider", m->provider,
                          "contextWindow", (json_int_t)m->context_window, "maxOutputTokens",
                          (json_int_t)m->max_output, "tools", m->tools, "images", m->images);
    json_t *eff = json_array();
    char buf[64];
    const char *p = m->efforts;
    while (p && *p) {
      size_t n = strcspn(p, ",");
      snprintf(buf, sizeof buf, "%.*s", (int)n, p);
      json_array_append_new(eff, json_string(buf));
      p += n + (p[n] == ',');
    }
    json_object_set_new(o, "reasoningEfforts", eff);
    if (m->priced) {
      json_object_set_new(o, "inputPrice", json_real(m->input_price));
      json_object_set_new(o, "cachedInputPrice", json_real(m->cached_price));
      json_object_set_new(o, "outputPrice", json_real(m->output_price));
    }
    json_array_append_new(c->arr, o);
    return;
  }
  char price[64] = "local / unpriced";
  if (m->priced)
    snprintf(price, sizeof price, "$%.3g / $%.3g / $%.3g", m->input_price, m->cached_price,
             m->output_price);
  printf("  %-28s %-9s %8lldk ctx %6lldk out  %-5s %-6s %-24s %s\n", m->id, m->provider,
         (long long)(m->context_window / 1000), (long long)(m->max_output / 1000),
         m->tools ? "tools" : "-", m->images ? "images" : "-",
         m->efforts && *m->efforts ? m->efforts : "-", price);
}

/* For completion: the parser below takes `list` itself (the one
 * subcommand, and the default). */
static const zcli_subcommand MODELS_SUBS[] = {{"list", NULL, NULL, NULL}};

const zcli_subcommands zcli_models_subs = {MODELS_SUBS, ZARRAY_LEN(MODELS_SUBS)};

int cmd_models(int argc, char **argv) {
  const char *provider = NULL;
  bool json = false;
  zopt_parser op;
  zopt_hit hit;
  zerr perr = ZERR_INIT;
  int npos = 0;
  zopt_init(&op, &zcli_models_opts, argc, argv);
  while (zopt_next(&op, &hit, &perr) > 0) {
    if (hit.id == M_JSON) {
      json = true;
    } else if (hit.id == M_PROVIDER) {
      provider = hit.value;
    } else if (hit.id == M_HELP) {
      usage(stdout);
      return ZEXIT_SUCCESS;
    } else if (npos++ == 0 && !strcmp(hit.value, "list")) {
      /* the one subcommand, and the default */
    } else {
      zerr_set(&perr, ZE_USAGE, "unknown argument \"%s\"", hit.value);
      break;
    }
  }
  if (perr.kind != ZE_OK) {
    fprintf(stderr, "zero models: %s\n", perr.msg);
    zcli_short_usage(stderr, "models");
    return ZEXIT_USAGE;
  }
  zerr err = ZERR_INIT;
  zconfig cfg;
  char *cwd = getcwd(NULL, 0);
  bool have = zconfig_load(&cfg, cwd ? cwd : ".", NULL, &err) == 0;
  free(cwd);
  if (!have) fprintf(stderr, "[zero] warning: %s (showing the built-in registry)\n", err.msg);
  list_ctx c = {json, json ? json_array() : NULL, 0};
  if (!json)
    printf("  %-28s %-9s %12s %10s  %-5s %-6s %-24s %s\n", "MODEL", "PROVIDER", "CONTEXT",
           "OUTPUT", "TOOLS", "IMAGES", "REASONING", "PRICE/1M in / cached / out");
  zmodel_each(have ? &cfg : NULL, provider, on_model, &c);
  if (json) {
    zjson_print(stdout, c.arr, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    json_decref(c.arr);
  } else if (c.n == 0) {
    printf("No models for provider \"%s\". Try zero models list without --provider.\n",
           provider ? provider : "");
  }
  if (have) zconfig_release(&cfg);
  return ZEXIT_SUCCESS;
}
