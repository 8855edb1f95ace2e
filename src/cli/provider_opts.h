/* provider_opts.h — from a resolved config profile to provider options,
 * with the model registry's limits; shared by exec, doctor and setup. */
#ifndef ZERO_CLI_PROVIDER_OPTS_H
#define ZERO_CLI_PROVIDER_OPTS_H

#include "config/config.h"
#include "provider/provider.h"

/* Fills *o from rp (strings borrowed from rp, which must outlive o). When the
 * model is unknown to the registry and the profile is an official vendor
 * endpoint, *warning gets a message (caller frees); else NULL. */
void zcli_provider_opts(const zconfig *cfg, const zresolved_provider *rp, zprov_opts *o,
                        char **warning);

/* Checks a reasoning effort asked for on the command line against the
 * model's levels in the registry: ZE_USAGE naming the levels the model takes
 * (or saying it has no reasoning control) when it is not one of them. A
 * model unknown to the registry takes any level. */
int zcli_check_effort(const zconfig *cfg, const char *model, const char *effort, zerr *err);

#endif
