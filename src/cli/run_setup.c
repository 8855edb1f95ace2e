/* run_setup.c — shared run assembly; see run_setup.h. */
#include "cli/run_setup.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent/prompt.h"
#include "base/common.h"
#include "base/fs.h"
#include "base/json.h"
#include "net/curl_loader.h"

int zrun_setup_workspace(zrun_setup *s, const char *cwd, const char *const *add_dirs, size_t n,
                         zerr *err) {
  if (cwd) {
    if (!zfs_is_dir(cwd)) return zerr_set(err, ZE_USAGE, "cwd must be an existing directory: %s", cwd);
    if (chdir(cwd) < 0) return zerr_set(err, ZE_USAGE, "cannot enter the --cwd directory");
  }
  char *here = getcwd(NULL, 0);
  if (!here) return zerr_set(err, ZE_INTERNAL, "cannot determine the current directory");
  /* The real path, so confinement checks compare like with like. */
  char *real = realpath(here, NULL);
  s->workspace = real ? real : xstrdup(here);
  free(here);
  s->add_dirs = xcalloc(n + 1, sizeof *s->add_dirs);
  for (size_t i = 0; i < n; i++) {
    char *r = realpath(add_dirs[i], NULL);
    if (!r) return zerr_set(err, ZE_USAGE, "--add-dir %s: %s", add_dirs[i], strerror(errno));
    s->add_dirs[i] = r;
    s->n_add_dirs = i + 1;
  }
  return 0;
}

static int make_provider(zrun_setup *s, const char *model, zprovider **out, zerr *err) {
  zprov_opts popts = {.name = s->rp.name, .kind = s->rp.kind, .base_url = s->rp.base_url,
                      .api_key = s->rp.api_key, .api_key_env = s->rp.api_key_env,
                      .model = model, .headers = s->rp.headers};
  if (zcurl_load(err) < 0 || !(*out = zprovider_new(&popts, err))) {
    err->kind = ZE_PROVIDER;
    return -1;
  }
  return 0;
}

int zrun_setup_provider(zrun_setup *s, const zconfig_flags *flags, zerr *err) {
  if (zconfig_load(&s->cfg, s->workspace, flags, err) < 0 ||
      zconfig_resolve_provider(&s->cfg, &s->rp, err) < 0)
    return -1;
  return make_provider(s, s->rp.model, &s->provider, err);
}

int zrun_setup_switch_model(zrun_setup *s, const char *model, zerr *err) {
  if (!model || !*model) return zerr_set(err, ZE_USAGE, "name a model, e.g. /model gpt-4.1");
  char *copy = xstrdup(model);
  zprovider *p = NULL;
  if (make_provider(s, copy, &p, err) < 0) {
    free(copy);
    return -1;
  }
  /* The provider keeps a pointer to the model string: swap both together. */
  if (s->provider) zprovider_free(s->provider);
  free(s->rp.model);
  s->rp.model = copy;
  s->provider = p;
  return 0;
}

int zrun_setup_switch_provider(zrun_setup *s, const char *name, zerr *err) {
  zrun_setup t = {.workspace = s->workspace};
  zconfig_flags flags = {.provider = name};
  if (zconfig_load(&t.cfg, s->workspace, &flags, err) < 0 ||
      zconfig_resolve_provider(&t.cfg, &t.rp, err) < 0 ||
      make_provider(&t, t.rp.model, &t.provider, err) < 0) {
    if (t.provider) zprovider_free(t.provider);
    zresolved_provider_release(&t.rp);
    zconfig_release(&t.cfg);
    return -1;
  }
  if (s->provider) zprovider_free(s->provider);
  zresolved_provider_release(&s->rp);
  zconfig_release(&s->cfg);
  s->cfg = t.cfg;
  s->rp = t.rp;
  s->provider = t.provider;
  return 0;
}

void zrun_title_from_prompt(const char *prompt, size_t len, char out[81]) {
  snprintf(out, 81, "%.*s", (int)zutf8_boundary(prompt, len < 80 ? len : 80), prompt);
  for (char *p = out; *p; p++)
    if (*p == '\n' || *p == '\r' || *p == '\t') *p = ' ';
}

int zrun_setup_session(zrun_setup *s, bool resume, const char *resume_id, const char *title,
                       zconv *conv, void (*warn)(void *ud, const char *msg), void *warn_ud,
                       zerr *err) {
  if (!s->session_root) s->session_root = zsession_root();
  if (resume) {
    s->resumed_id = resume_id ? xstrdup(resume_id)
                              : zsession_latest(s->session_root, s->workspace, err);
    if (!s->resumed_id) {
      if (!err->msg[0])
        zerr_set(err, ZE_USAGE,
                 "no session to resume in this directory; start one with zero exec \"prompt\" "
                 "or name one with --resume ID (see zero sessions list)");
      err->kind = ZE_USAGE;
      return -1;
    }
    if (zsession_load_conv(s->session_root, s->resumed_id, conv, warn, warn_ud, err) < 0 ||
        !(s->session = zsession_open(s->session_root, s->resumed_id, err))) {
      err->kind = ZE_USAGE;
      return -1;
    }
    return 0;
  }
  s->session = zsession_create(s->session_root, s->workspace, s->rp.name, s->rp.model, title, err);
  if (!s->session) {
    err->kind = ZE_INTERNAL;
    return -1;
  }
  return 0;
}

char *zrun_setup_system_prompt(const zrun_setup *s, zperm_mode mode) {
  zprompt_opts po = {.cwd = s->workspace, .provider = s->rp.name, .model = s->rp.model,
                     .permission_mode = zperm_mode_name(mode)};
  return zprompt_build(&po, NULL);
}

void zrun_setup_release(zrun_setup *s) {
  if (s->session) zsession_close(s->session);
  if (s->provider) zprovider_free(s->provider);
  zresolved_provider_release(&s->rp);
  zconfig_release(&s->cfg);
  if (s->add_dirs) {
    for (size_t i = 0; i < s->n_add_dirs; i++) free(s->add_dirs[i]);
    free(s->add_dirs);
  }
  free(s->workspace);
  free(s->session_root);
  free(s->resumed_id);
  memset(s, 0, sizeof *s);
}
