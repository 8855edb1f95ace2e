/* exec_profile.c — see exec_profile.h. */
#include "config/exec_profile.h"

#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/common.h"
#include "base/json.h"

static const char *const autonomy_levels[] = {"low", "medium", "high"};

/* 0, 1, 2 for low, medium, high; -1 for anything else. */
static int autonomy_rank(const char *s) {
  for (int i = 0; i < (int)ZARRAY_LEN(autonomy_levels); i++)
    if (s && !strcmp(s, autonomy_levels[i])) return i;
  return -1;
}

static int apply_max_autonomy(zconfig *cfg, const json_t *v, const char *path, bool project,
                              zerr *err) {
  const char *s = json_string_value(v);
  if (autonomy_rank(s) < 0)
    return zerr_set(err, ZE_USAGE, "%s: maxAutonomy must be \"low\", \"medium\" or \"high\"", path);
  /* A project file may only lower the cap the user set. */
  if (project && cfg->max_autonomy && autonomy_rank(s) > autonomy_rank(cfg->max_autonomy)) return 0;
  free(cfg->max_autonomy);
  cfg->max_autonomy = xstrdup(s);
  return 0;
}

/* The type each profile key must have; NULL key ends the table. */
static const struct {
  const char *key;
  json_type type;
} profile_keys[] = {
    {"model", JSON_STRING},     {"reasoningEffort", JSON_STRING},
    {"maxTurns", JSON_INTEGER}, {"autonomy", JSON_STRING},
    {"verify", JSON_TRUE},
};

static int check_profile(const char *name, const json_t *p, const char *path, bool project,
                         zerr *err) {
  if (!json_is_object(p))
    return zerr_set(err, ZE_USAGE, "%s: profiles.%s must be an object", path, name);
  for (size_t i = 0; i < ZARRAY_LEN(profile_keys); i++) {
    const json_t *v = json_object_get(p, profile_keys[i].key);
    if (!v || json_is_null(v)) continue;
    bool ok = profile_keys[i].type == JSON_TRUE ? json_is_boolean(v)
                                                : json_typeof(v) == profile_keys[i].type;
    if (!ok)
      return zerr_set(err, ZE_USAGE, "%s: profiles.%s.%s has the wrong type", path, name,
                      profile_keys[i].key);
  }
  const json_t *turns = json_object_get(p, "maxTurns");
  if (turns &&
      (json_integer_value(turns) < 0 || json_integer_value(turns) > ZCONFIG_MAX_TURNS_CEILING))
    return zerr_set(err, ZE_USAGE, "%s: profiles.%s.maxTurns must be from 1 to %d", path, name,
                    ZCONFIG_MAX_TURNS_CEILING);
  const json_t *aut = json_object_get(p, "autonomy");
  if (aut && !json_is_null(aut) && autonomy_rank(json_string_value(aut)) < 0)
    return zerr_set(err, ZE_USAGE, "%s: profiles.%s.autonomy must be low, medium or high", path,
                    name);
  if (aut && project)
    return zerr_set(err, ZE_USAGE,
                    "%s: profiles.%s.autonomy cannot be set in a project config (a repository "
                    "may not raise what a run is allowed to do); set it in your user config",
                    path, name);
  return 0;
}

int zconfig_apply_exec_keys(zconfig *cfg, const json_t *doc, const char *path, bool project,
                            zerr *err) {
  const json_t *v = json_object_get(doc, "maxAutonomy");
  if (v && !json_is_null(v) && apply_max_autonomy(cfg, v, path, project, err) < 0) return -1;
  v = json_object_get(doc, "profiles");
  if (!v || json_is_null(v)) return 0;
  if (!json_is_object(v))
    return zerr_set(err, ZE_USAGE, "%s: profiles must be an object {\"<name>\": {…}}", path);
  const char *name;
  json_t *p;
  json_object_foreach((json_t *)v, name, p) {
    if (check_profile(name, p, path, project, err) < 0) return -1;
  }
  if (!cfg->profiles) cfg->profiles = json_object();
  json_object_foreach((json_t *)v, name, p) {
    json_t *cur = json_object_get(cfg->profiles, name);
    if (cur) json_object_update(cur, p);
    else json_object_set_new(cfg->profiles, name, json_deep_copy(p));
  }
  return 0;
}

/* Go zero's built-in catalog. */
static const struct {
  const char *name;
  int max_turns;
  const char *effort;
  bool verify;
} builtin[] = {
    {"balanced", 0, NULL, false},
    {"fast", 30, "low", false},
    {"thorough", 160, "high", true},
};

/* true (and *at set) when name is a built-in profile. */
static bool builtin_index(const char *name, size_t *at) {
  for (size_t i = 0; i < ZARRAY_LEN(builtin); i++)
    if (!strcmp(name, builtin[i].name)) {
      if (at) *at = i;
      return true;
    }
  return false;
}

/* A tool list: an array of names or a comma / space separated string,
 * joined with commas (owned by *slot). */
static const char *tool_list(const json_t *v, char **slot) {
  if (json_is_string(v)) return json_string_value(v);
  if (!json_is_array(v)) return NULL;
  zbuf b = ZBUF_INIT;
  size_t i;
  const json_t *item;
  json_array_foreach(v, i, item) {
    if (json_is_string(item)) zbuf_addf(&b, "%s%s", b.len ? "," : "", json_string_value(item));
  }
  *slot = zbuf_detach(&b, NULL);
  return *slot;
}

int zexec_profile_resolve(const zconfig *cfg, const char *name, zexec_profile *out, zerr *err) {
  memset(out, 0, sizeof *out);
  out->name = name;
  size_t b;
  bool known = builtin_index(name, &b);
  if (known) {
    out->max_turns = builtin[b].max_turns;
    out->reasoning_effort = builtin[b].effort;
    out->verify = builtin[b].verify;
  }
  const json_t *p = cfg ? json_object_get(cfg->profiles, name) : NULL;
  if (!p && !known) {
    zbuf names = ZBUF_INIT;
    for (size_t i = 0; i < ZARRAY_LEN(builtin); i++) zbuf_addf(&names, "%s ", builtin[i].name);
    const char *k;
    const json_t *unused;
    json_object_foreach((json_t *)(cfg ? cfg->profiles : NULL), k, unused) {
      if (!builtin_index(k, NULL)) zbuf_addf(&names, "%s ", k);
    }
    zbuf_rtrim(&names);
    zerr_set(err, ZE_USAGE,
             "--profile %s: no such profile; known: %s (add \"profiles\": {\"%s\": {…}} to "
             "~/.config/zero/config.json)",
             name, names.data, name);
    zbuf_release(&names);
    return -1;
  }
  if (!p) return 0;
  out->model = zjson_str_or(p, "model", out->model);
  out->reasoning_effort = zjson_str_or(p, "reasoningEffort", out->reasoning_effort);
  int64_t turns = zjson_int_or(p, "maxTurns", 0);
  if (turns > 0) out->max_turns = (int)turns;
  out->autonomy = zjson_str(p, "autonomy");
  out->enabled_tools = tool_list(json_object_get(p, "enabledTools"), &out->owned[0]);
  out->disabled_tools = tool_list(json_object_get(p, "disabledTools"), &out->owned[1]);
  out->verify = zjson_bool_or(p, "verify", out->verify);
  return 0;
}

void zexec_profile_release(zexec_profile *p) {
  free(p->owned[0]);
  free(p->owned[1]);
  memset(p, 0, sizeof *p);
}
