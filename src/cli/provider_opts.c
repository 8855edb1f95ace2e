/* provider_opts.c — resolved profile → zprov_opts; see provider_opts.h. */
#include "cli/provider_opts.h"

#include <string.h>

#include "base/buf.h"
#include "config/models.h"
#include "oauth/provider.h"

/* Anthropic needs max_tokens on every request; very large values make some
 * gateways refuse the request, so the registry's limit is capped here. */
#define ANTHROPIC_MAX_TOKENS_CAP 32000

int zcli_check_effort(const zconfig *cfg, const char *model, const char *effort, zerr *err) {
  if (!effort) return 0;
  zmodel_info mi;
  zmodel_lookup(cfg, model, &mi);
  if (!mi.known) return 0;
  const char *levels = mi.efforts;
  if (!*levels)
    return zerr_set(err, ZE_USAGE,
                    "model %s has no reasoning-effort control, so --reasoning-effort %s cannot "
                    "apply; drop the flag or pick a reasoning model (see zero models list)",
                    model, effort);
  if (zmodel_effort_listed(levels, effort)) return 0;
  zbuf b = ZBUF_INIT;
  for (const char *p = levels; *p; p++) {
    if (*p == ',') zbuf_addstr(&b, ", ");
    else zbuf_addch(&b, *p);
  }
  zerr_set(err, ZE_USAGE,
           "model %s does not take reasoning effort \"%s\"; its levels are %s (see zero models "
           "list)", model, effort, b.data);
  zbuf_release(&b);
  return -1;
}

/* zprov_opts.renew_key: a forced refresh of the login (oauth/provider.h). */
static int renew_oauth_key(const char *login, char **key, zerr *err) {
  return zoauth_provider_bearer(login, true, key, err);
}

void zcli_provider_opts(const zconfig *cfg, const zresolved_provider *rp, zprov_opts *o,
                        char **warning) {
  memset(o, 0, sizeof *o);
  o->name = rp->name;
  o->kind = rp->kind;
  o->base_url = rp->base_url;
  o->api_key = rp->api_key;
  o->api_key_env = rp->api_key_env;
  o->model = rp->model;
  o->headers = rp->headers;
  o->wire_api = rp->wire_api;
  o->reasoning_effort = rp->reasoning_effort;
  o->parse_think_tags = rp->parse_think_tags;
  o->oauth_login = rp->oauth_login;
  o->renew_key = rp->oauth_login ? renew_oauth_key : NULL;
  zmodel_info mi;
  zmodel_lookup(cfg, rp->model, &mi);
  o->thinking = mi.thinking == ZTHINK_NONE          ? ZPT_NONE
                : mi.thinking == ZTHINK_ADAPTIVE    ? ZPT_ADAPTIVE
                : mi.thinking == ZTHINK_ADAPTIVE_ON ? ZPT_ADAPTIVE_ON
                                                    : ZPT_BUDGET;
  if (rp->kind && strstr(rp->kind, "anthropic"))
    o->max_output_tokens = (int)(mi.max_output < ANTHROPIC_MAX_TOKENS_CAP ? mi.max_output
                                                                         : ANTHROPIC_MAX_TOKENS_CAP);
  if (warning) {
    *warning = NULL;
    bool official = rp->kind && (!strcmp(rp->kind, "openai") || !strcmp(rp->kind, "anthropic") ||
                                 !strcmp(rp->kind, "google"));
    if (!mi.known && official) {
      zbuf b = ZBUF_INIT;
      zbuf_addf(&b,
                "model \"%s\" is not in zero's model registry: assuming a %d-token context "
                "and %d output tokens, cost unknown; add it under \"models\" in your config "
                "to set its limits and prices (see zero models list)",
                rp->model, ZMODEL_DEFAULT_CONTEXT, ZMODEL_DEFAULT_MAX_OUTPUT);
      *warning = zbuf_detach(&b, NULL);
    }
  }
}
