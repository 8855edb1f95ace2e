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
#include "base/path.h"
#include "cli/provider_opts.h"
#include "config/models.h"
#include "ext/trust.h"
#include "lsp/lsp.h"
#include "mcp/config.h"
#include "oauth/oauth.h"
#include "subagent/task.h"
#include "tools/tracker.h"
#include "net/curl_loader.h"
#include "net/http.h"
#include "provider/wire.h"

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

int zrun_setup_workspace_at(zrun_setup *s, const char *dir, zerr *err) {
  if (!zfs_is_dir(dir))
    return zerr_set(err, ZE_USAGE, "cwd must be an existing directory: %s", dir);
  s->workspace = realpath(dir, NULL);
  if (!s->workspace) return zerr_errno(err, ZE_USAGE, "cannot resolve %s", dir);
  s->add_dirs = xcalloc(1, sizeof *s->add_dirs);
  return 0;
}

void zrun_collect_secrets(const char *workspace) {
  zconfig cfg;
  memset(&cfg, 0, sizeof cfg);
  zerr ignore = ZERR_INIT;
  bool loaded = zconfig_load(&cfg, workspace, NULL, &ignore) == 0;
  zconfig_declare_secrets(loaded ? &cfg : NULL);
  if (loaded) zconfig_release(&cfg);
  zmcp_config mcp;
  if (zmcp_config_load(&mcp, workspace, &ignore) < 0) return;
  zmcp_config_declare_secrets(&mcp);
  for (size_t i = 0; i < mcp.n; i++) {
    zoauth_tokens t;
    if (mcp.servers[i].type != ZMCP_STDIO && zoauth_tokens_load(mcp.servers[i].name, &t, &ignore) == 0)
      zoauth_tokens_release(&t); /* loading declares them */
  }
  zmcp_config_release(&mcp);
}

/* A grants file that cannot be read or understood is reported and ignored
 * for the run (as Go zero does not, it used to stop every run): the run
 * starts with no saved grants, so it asks (or, headless, denies) where a
 * grant would have allowed. The file is left as it is: a grant the user
 * saves during the run fails to save (the update re-reads and refuses the
 * broken file) rather than replacing it. */
static void ignore_broken_grants(zgrants *g, zerr *err) {
  char *path = g->path ? xstrdup(g->path) : zgrants_default_path();
  fprintf(stderr,
          "[zero] WARNING: %s; saved sandbox grants are ignored for this run (fix the file, "
          "or move it aside or run `zero sandbox grants clear` to start over)\n",
          err->msg);
  zgrants_release(g);
  zgrants_load_mcp(g, NULL);
  g->path = path;
  zerr_clear(err);
}

/* The face that answers the egress proxy's questions: the agent's, read at
 * each question (the TUI sets its approver per turn); none before the
 * agent exists. */
static zperm_face run_face(void *ud) {
  zrun_setup *s = ud;
  return s->agent ? zagent_face(s->agent) : (zperm_face){.name = "zero"};
}

int zrun_setup_sandbox(zrun_setup *s, zerr *err) {
  zrun_collect_secrets(s->workspace);
  zsb_policy_opts so = {.workspace = s->workspace,
                        .add_dirs = (const char *const *)s->add_dirs,
                        .n_add_dirs = s->n_add_dirs,
                        .allow_domains = s->opts.allow_domains,
                        .n_allow_domains = s->opts.n_allow_domains};
  if (zsb_policy_build(&s->sandbox.policy, &so, err) < 0) goto fail;
  for (const char *const *g = s->opts.git_write; g && *g; g++)
    zsb_strv_add(&s->sandbox.policy.allow_write, *g);
  if (s->opts.git_readonly) zsb_strv_add(&s->sandbox.policy.deny_write, s->opts.git_readonly);
  if (s->opts.offline) { /* --offline wins over sandbox.network */
    s->sandbox.policy.network = false;
    s->sandbox.policy.scoped = false;
  }
  if (zsb_spawner_init(&s->sandbox.spawner, &s->sandbox.policy, err) < 0) goto fail;
  s->sandbox.have_spawner = true;
  const char *grants_file = getenv("ZERO_GRANTS_FILE");
  if (zgrants_load(&s->sandbox.grants, grants_file && *grants_file ? grants_file : NULL, NULL,
                   err) < 0)
    ignore_broken_grants(&s->sandbox.grants, err);
  if (s->sandbox.grants.notice) fprintf(stderr, "[zero] %s\n", s->sandbox.grants.notice);
  if (s->sandbox.policy.scoped && !s->sandbox.have_net_asker) {
    if (zsb_egress_guard_init(&s->sandbox.web_guard, &s->sandbox.policy, zperm_net_ask,
                              &s->sandbox.net_asker, err) < 0)
      goto fail;
    zperm_net_asker_init(&s->sandbox.net_asker, s->sandbox.grants.path, run_face, s);
    zperm_net_asker_set_workspace(&s->sandbox.net_asker, s->workspace);
    zeg_queue_init(&s->sandbox.net_events);
    s->sandbox.have_net_asker = true;
  }
  if (s->sandbox.have_net_asker) /* a spawner made again starts with no hooks */
    s->sandbox.spawner.egress_hooks = (zsb_egress_hooks){.on_event = zeg_queue_push,
                                                         .ud = &s->sandbox.net_events,
                                                         .ask = zperm_net_ask,
                                                         .ask_ud = &s->sandbox.net_asker};
  /* Saved grants too broad to honour are ignored, and said so. */
  for (char **w = s->sandbox.grants.ignored; w && *w; w++)
    fprintf(stderr, "[zero] WARNING: %s\n", *w);
  return 0;
fail:
  if (err->kind != ZE_USAGE) err->kind = ZE_CONFIG;
  return -1;
}

int zrun_setup_add_dir(zrun_setup *s, const char *dir, const char **added, zerr *err) {
  char *real = dir && *dir ? realpath(dir, NULL) : NULL;
  if (!real || !zfs_is_dir(real)) {
    free(real);
    return zerr_set(err, ZE_USAGE, "%s is not an existing directory", dir && *dir ? dir : "(none given)");
  }
  for (size_t i = 0; i < s->n_add_dirs; i++) {
    if (!strcmp(s->add_dirs[i], real)) {
      free(real);
      *added = s->add_dirs[i];
      return 0;
    }
  }
  /* The policy is what the permission engine and the sandbox check writes
   * against: rebuild it with the new root before anything relies on it. */
  char **dirs = xcalloc(s->n_add_dirs + 2, sizeof *dirs);
  memcpy(dirs, s->add_dirs, s->n_add_dirs * sizeof *dirs);
  dirs[s->n_add_dirs] = real;
  zsb_policy_opts so = {.workspace = s->workspace,
                        .add_dirs = (const char *const *)dirs,
                        .n_add_dirs = s->n_add_dirs + 1,
                        .allow_domains = s->opts.allow_domains,
                        .n_allow_domains = s->opts.n_allow_domains};
  zsb_policy fresh = {0};
  if (zsb_policy_build(&fresh, &so, err) < 0) {
    free(dirs);
    free(real);
    return -1;
  }
  if (s->opts.offline) {
    fresh.network = false;
    fresh.scoped = false;
  }
  zsb_policy_release(&s->sandbox.policy);
  s->sandbox.policy = fresh; /* in place: the spawner and the engine point at it */
  free(s->add_dirs);
  s->add_dirs = dirs;
  s->n_add_dirs++;
  /* MCP servers learn the new root (roots/list). */
  zmcp_manager_set_roots(&s->mcp, (const char *const *)s->add_dirs, s->n_add_dirs);
  *added = real;
  return 0;
}

static int make_provider(const zprov_opts *popts, zprovider **out, zerr *err) {
  if (zcurl_load(err) < 0 || !(*out = zprovider_new(popts, err))) {
    err->kind = ZE_PROVIDER;
    return -1;
  }
  return 0;
}

char *zrun_probe_local_model(const char *base_url, void *ud) {
  (void)ud;
  zerr err = ZERR_INIT;
  if (zcurl_load(&err) < 0) return NULL;
  zbuf url = ZBUF_INIT;
  zbuf_addstr(&url, base_url);
  while (url.len && url.data[url.len - 1] == '/') zbuf_setlen(&url, url.len - 1);
  zbuf_addstr(&url, "/models");
  zhttp_request req = {.method = "GET",
                       .url = url.data,
                       .connect_timeout_ms = 1000,
                       .idle_timeout_ms = 3000,
                       .total_timeout_ms = 5000};
  char *id = NULL;
  json_t *root = zhttp_fetch_json(&req, 4u << 20);
  const char *first = zjson_str(json_array_get(json_object_get(root, "data"), 0), "id");
  if (first && *first) id = xstrdup(first);
  json_decref(root);
  zbuf_release(&url);
  return id;
}

int zrun_setup_provider(zrun_setup *s, const zconfig_flags *flags, zerr *err) {
  cleanup_free char *note = NULL;
  /* A mistyped idle timeout would silently become the 5-minute default. */
  const char *idle = getenv("ZERO_STREAM_IDLE_TIMEOUT");
  if (idle && *idle && zwire_parse_duration_ms(idle) < 0)
    return zerr_set(err, ZE_USAGE,
                    "ZERO_STREAM_IDLE_TIMEOUT must be a duration such as 300 (seconds), 90s, 5m "
                    "or 500ms, up to 24h (got \"%s\"); fix or unset it", idle);
  if (zconfig_load(&s->model.cfg, s->workspace, flags, err) < 0 ||
      zconfig_resolve_provider_probe(&s->model.cfg, &s->model.rp, zrun_probe_local_model, NULL,
                                     &note, err) < 0)
    return -1;
  zhttp_set_ca_bundle(s->model.cfg.ca_bundle); /* provider, web_fetch, MCP, OAuth */
  free(s->model.model_warning);
  s->model.model_warning = NULL;
  zcli_provider_opts(&s->model.cfg, &s->model.rp, &s->model.popts, &s->model.model_warning);
  if (note) {
    if (s->model.model_warning) {
      zbuf b = ZBUF_INIT;
      zbuf_addf(&b, "%s; %s", note, s->model.model_warning);
      free(s->model.model_warning);
      s->model.model_warning = zbuf_detach(&b, NULL);
    } else {
      s->model.model_warning = note;
      note = NULL;
    }
  }
  if (zcli_check_effort(&s->model.cfg, s->model.rp.model, s->opts.reasoning_effort, err) < 0) {
    err->kind = ZE_USAGE;
    return -1;
  }
  if (s->opts.reasoning_effort)
    s->model.popts.reasoning_effort = s->opts.reasoning_effort; /* -r over config */
  /* An effort from ZERO_REASONING_EFFORT or the profile is a standing
   * preference: for a model the registry says cannot take it, it is left
   * out (with a warning) rather than sent to be refused on every request. */
  zerr eff = ZERR_INIT;
  if (!s->opts.reasoning_effort && s->model.popts.reasoning_effort &&
      zcli_check_effort(&s->model.cfg, s->model.rp.model, s->model.popts.reasoning_effort, &eff) <
          0) {
    zmodel_info mi;
    zmodel_lookup(&s->model.cfg, s->model.rp.model, &mi);
    const char *env_effort = getenv("ZERO_REASONING_EFFORT");
    zbuf b = ZBUF_INIT;
    zbuf_addf(&b, "reasoning effort \"%s\" (%s) is not used with model %s: ",
              s->model.popts.reasoning_effort,
              env_effort && *env_effort ? "ZERO_REASONING_EFFORT" : "the profile's reasoningEffort",
              s->model.rp.model);
    if (*mi.efforts) zbuf_addf(&b, "its levels are %s", mi.efforts);
    else
      zbuf_addstr(&b, "it has no reasoning-effort control");
    if (s->model.model_warning) zbuf_addf(&b, "; %s", s->model.model_warning);
    free(s->model.model_warning);
    s->model.model_warning = zbuf_detach(&b, NULL);
    s->model.popts.reasoning_effort = NULL;
  }
  return make_provider(&s->model.popts, &s->model.provider, err);
}

int zrun_setup_switch_model(zrun_setup *s, const char *model, zerr *err) {
  if (!model || !*model) return zerr_set(err, ZE_USAGE, "name a model, e.g. /model gpt-4.1");
  zresolved_provider rp = s->model.rp;
  rp.model = xstrdup(model);
  zprov_opts popts;
  char *warning = NULL;
  zcli_provider_opts(&s->model.cfg, &rp, &popts, &warning);
  if (s->opts.reasoning_effort) popts.reasoning_effort = s->opts.reasoning_effort;
  zprovider *p = NULL;
  if (make_provider(&popts, &p, err) < 0) {
    free(rp.model);
    free(warning);
    return -1;
  }
  /* The provider borrows the model string: swap both together. */
  if (s->model.provider) zprovider_free(s->model.provider);
  free(s->model.rp.model);
  s->model.rp.model = rp.model;
  s->model.popts = popts;
  s->model.popts.model = s->model.rp.model;
  s->model.provider = p;
  free(s->model.model_warning);
  s->model.model_warning = warning;
  if (s->store.session) zprovider_set_cache_key(s->model.provider, s->store.session->id);
  return 0;
}

int zrun_setup_switch_provider(zrun_setup *s, const char *name, zerr *err) {
  zconfig cfg = {0};
  zresolved_provider rp = {0};
  zprov_opts popts;
  char *warning = NULL;
  zprovider *p = NULL;
  zconfig_flags flags = {.provider = name};
  if (zconfig_load(&cfg, s->workspace, &flags, err) < 0 ||
      zconfig_resolve_provider(&cfg, &rp, err) < 0) {
    zresolved_provider_release(&rp);
    zconfig_release(&cfg);
    return -1;
  }
  zcli_provider_opts(&cfg, &rp, &popts, &warning);
  if (make_provider(&popts, &p, err) < 0) {
    free(warning);
    zresolved_provider_release(&rp);
    zconfig_release(&cfg);
    return -1;
  }
  if (s->model.provider) zprovider_free(s->model.provider);
  zresolved_provider_release(&s->model.rp);
  zconfig_release(&s->model.cfg);
  free(s->model.model_warning);
  s->model.cfg = cfg;
  s->model.rp = rp;
  s->model.provider = p;
  s->model.model_warning = warning;
  /* popts borrows from rp: rebuild it against the moved copy. */
  char *again = NULL;
  zcli_provider_opts(&s->model.cfg, &s->model.rp, &s->model.popts, &again);
  free(again);
  if (s->store.session) zprovider_set_cache_key(s->model.provider, s->store.session->id);
  return 0;
}

void zrun_title_from_prompt(const char *prompt, size_t len, char out[81]) {
  snprintf(out, 81, "%.*s", (int)zutf8_boundary(prompt, len < 80 ? len : 80), prompt);
  for (char *p = out; *p; p++)
    if (*p == '\n' || *p == '\r' || *p == '\t') *p = ' ';
}

static void ensure_task(zrun_setup *s) {
  if (s->store.task_ready) return;
  ztask_init(&s->store.task);
  s->store.task_ready = true;
}

/* A sub-agent's session (--parent-session): a "child" in the session tree,
 * under its parent's root, one level deeper. */
static int mark_child_session(zrun_setup *s, zerr *err) {
  char *dir = zpath_join(s->store.root, s->opts.parent_session);
  char *file = zpath_join(dir, "metadata.json");
  zerr ignored = ZERR_INIT;
  json_t *pm = zjson_load_file(file, &ignored); /* a parent we cannot read: still a child */
  free(file);
  free(dir);
  const char *root = pm ? zjson_str(pm, "rootSessionId") : NULL;
  json_int_t depth = pm ? zjson_int_or(pm, "depth", 0) : 0;
  zsession *ses = s->store.session;
  int rc = zsession_set_meta_deferred(ses, "sessionKind", json_string("child"), err) < 0 ||
                   zsession_set_meta_deferred(ses, "parentSessionId",
                                              json_string(s->opts.parent_session), err) < 0 ||
                   zsession_set_meta_deferred(ses, "rootSessionId",
                                              json_string(root ? root : s->opts.parent_session),
                                              err) < 0 ||
                   zsession_set_meta(ses, "depth", json_integer(depth + 1), err) < 0
               ? -1
               : 0;
  json_decref(pm);
  return rc;
}

int zrun_setup_session(zrun_setup *s, bool resume, const char *resume_id, const char *title,
                       zconv *conv, void (*warn)(void *ud, const char *msg), void *warn_ud,
                       zerr *err) {
  if (!s->store.root) s->store.root = zsession_root();
  ensure_task(s);
  if (resume) {
    s->store.resumed_id =
        resume_id ? xstrdup(resume_id) : zsession_latest(s->store.root, s->workspace, err);
    if (!s->store.resumed_id) {
      if (!err->msg[0])
        zerr_set(err, ZE_USAGE,
                 "no session to resume in this directory; start one with zero exec \"prompt\" "
                 "or name one with --resume ID (see zero sessions list)");
      err->kind = ZE_USAGE;
      return -1;
    }
    /* Lock first, then read: nobody appends while the history loads. */
    if (!s->store.seen_files) s->store.seen_files = json_array();
    if (!(s->store.session = zsession_open(s->store.root, s->store.resumed_id, err)) ||
        zsession_load_conv_seen(s->store.root, s->store.resumed_id, conv, s->store.seen_files, warn,
                                warn_ud, err) < 0) {
      err->kind = ZE_USAGE;
      return -1;
    }
    if (s->store.session->torn_cut > 0 && warn) {
      char msg[256];
      snprintf(msg, sizeof msg,
               "session %s: cut a torn last line of %lld bytes (the previous run was stopped "
               "while writing it)",
               s->store.session->id, (long long)s->store.session->torn_cut);
      warn(warn_ud, msg);
    }
    if (!zsession_kind_resumable(zjson_str(s->store.session->meta, "sessionKind")))
      return zerr_set(err, ZE_USAGE,
                      "this is a side session, which cannot be resumed; fork it with zero exec "
                      "--fork ID, or resume its parent");
    ztask_from_json(&s->store.task, json_object_get(s->store.session->meta, "taskState"));
  } else {
    s->store.session = zsession_create_with_id(s->store.root, s->opts.init_session_id, s->workspace,
                                               s->model.rp.name, s->model.rp.model, title, err);
    if (!s->store.session) {
      /* A chosen id that is malformed or taken is the caller's to fix. */
      if (s->opts.init_session_id && (err->kind == ZE_USAGE || err->kind == ZE_INVALID)) {
        err->kind = ZE_USAGE;
        return -1;
      }
      char msg[sizeof err->msg];
      snprintf(msg, sizeof msg,
               "cannot create a session in %s (%s); sessions live in $XDG_DATA_HOME/zero/"
               "sessions (default ~/.local/share/zero/sessions): make it writable or point "
               "XDG_DATA_HOME elsewhere",
               s->store.root, err->msg);
      zerr_set(err, ZE_INTERNAL, "%s", msg);
      return -1;
    }
    if (s->opts.parent_session && mark_child_session(s, err) < 0) return -1;
    if (s->opts.schedule &&
        zsession_set_meta(s->store.session, "schedule", json_string(s->opts.schedule), err) < 0)
      return -1;
  }
  if (s->model.provider) zprovider_set_cache_key(s->model.provider, s->store.session->id);
  return 0;
}

int zrun_setup_fork(zrun_setup *s, const char *fork_id, zconv *conv,
                    void (*warn)(void *ud, const char *msg), void *warn_ud, zerr *err) {
  if (!s->store.root) s->store.root = zsession_root();
  ensure_task(s);
  s->store.session = zsession_fork(s->store.root, fork_id, 0, "fork", err);
  if (!s->store.seen_files) s->store.seen_files = json_array();
  if (!s->store.session || zsession_load_conv_seen(s->store.root, s->store.session->id, conv,
                                                   s->store.seen_files, warn, warn_ud, err) < 0) {
    err->kind = ZE_USAGE;
    return -1;
  }
  ztask_from_json(&s->store.task, json_object_get(s->store.session->meta, "taskState"));
  if (s->model.provider) zprovider_set_cache_key(s->model.provider, s->store.session->id);
  return 0;
}

const char *zrun_setup_system_prompt(zrun_setup *s, zperm_mode mode) {
  zprompt_opts po = {.cwd = s->workspace,
                     .provider = s->model.rp.name,
                     .model = s->model.rp.model,
                     .permission_mode = zperm_mode_name(mode)};
  free(s->prompt.system_prompt);
  json_decref(s->prompt.instruction_sources);
  s->prompt.instruction_sources = NULL;
  s->prompt.system_prompt = zprompt_build(&po, &s->prompt.instruction_sources);
  if (s->have_ext && s->ext.skills.n) {
    /* Only names and descriptions: the model loads a body with the skill tool. */
    char *index = zext_skills_prompt(&s->ext);
    zbuf b = ZBUF_INIT;
    zbuf_addstr(&b, s->prompt.system_prompt);
    zbuf_addstr(&b, index);
    free(index);
    free(s->prompt.system_prompt);
    s->prompt.system_prompt = zbuf_detach(&b, NULL);
  }
  return s->prompt.system_prompt;
}

/* The read guard for search tools: a path under a sandbox.denyRead entry
 * or a hidden credential (and not re-allowed by allowRead) is never listed,
 * opened or entered. */
static bool read_denied(void *ud, const char *abs_path) {
  return zsb_policy_read_denied(ud, abs_path);
}

static bool read_denied_below(void *ud, const char *abs_dir) {
  return zsb_policy_read_denied_below(ud, abs_dir);
}

/* The language servers (lsp/lsp.h): the config is read once a run (no
 * server starts until an edit needs one); servers started from now on run
 * confined like tool commands, and the write hook keeps covered files'
 * pre-edit text before the checkpointer's hook runs. */
static void setup_lsp(zrun_setup *s) {
  if (!s->lsp_loaded) {
    s->lsp_loaded = true;
    char *warning = NULL;
    s->lsp = zlsp_for_run(s->workspace, s->model.cfg.user_path, s->model.cfg.project_path,
                          &warning);
    if (warning) fprintf(stderr, "[zero] WARNING: %s\n", warning);
    free(warning);
    if (s->lsp) zlsp_agent_init(&s->lsp_agent, s->lsp);
  }
  if (!s->lsp) return;
  zlsp_set_spawner(s->lsp, s->tools.spawner);
  s->tools.write_hook = zlsp_write_hook(s->lsp, s->tools.write_hook);
}

void zrun_setup_tools(zrun_setup *s, zperm_mode mode, zautonomy autonomy) {
  ensure_task(s);
  if (!s->plan) s->plan = json_array();
  /* Unsafe mode means no confinement at all: commands run as the user. */
  bool confined = mode != ZPERM_UNSAFE && s->sandbox.have_spawner;
  s->tools = (ztool_ctx){.workspace = s->workspace,
                         .add_dirs = (const char *const *)s->add_dirs,
                         .n_add_dirs = s->n_add_dirs,
                         .plan = s->plan,
                         .spawner = confined ? &s->sandbox.spawner.base : NULL};
  if (!s->files) s->files = ztool_files_new();
  s->tools.files = s->files;
  /* A resumed session's earlier reads count: the model has them in its
   * history (each as the file was then; a change since still shows). */
  size_t i;
  json_t *stamp;
  json_array_foreach(s->store.seen_files, i, stamp) ztool_files_seed(s->files, stamp);
  json_decref(s->store.seen_files);
  s->store.seen_files = NULL;
  /* What a sandboxed command cannot read, the file tools (which run in
   * zero itself) do not read either: denyRead, and unless the mode is unsafe
   * the hidden credentials and zero's config dirs. */
  zsb_policy_prepare_read_guard(&s->sandbox.policy, mode != ZPERM_UNSAFE);
  if (s->sandbox.have_net_asker)
    s->tools.host_guard =
        (ztool_host_guard){.refused = zsb_egress_host_refused, .ud = &s->sandbox.web_guard};
  if (s->sandbox.policy.read_denied.n)
    s->tools.read_guard = (ztool_read_guard){.denied = read_denied,
                                             .denied_below = read_denied_below,
                                             .ud = &s->sandbox.policy};
  if (s->model.rp.model) {
    zmodel_info mi;
    zmodel_lookup(&s->model.cfg, s->model.rp.model, &mi);
    /* Only a model known to lack vision refuses images; unknown ones may try. */
    s->tools.images_unsupported = mi.known && !mi.images;
  }
  s->perm = (zperm_engine){.mode = mode,
                           .autonomy = autonomy,
                           .tools = &s->tools,
                           .policy = &s->sandbox.policy,
                           .sandbox_active = zsb_active(&s->sandbox.policy),
                           .grants = &s->sandbox.grants,
                           .offline = s->opts.offline,
                           .disabled_tools = s->opts.disabled_tools,
                           .extra_allowed = s->opts.extra_allowed};
  /* Checkpoints: every file a tool is about to change is saved first, into
   * the current session (the TUI may have switched sessions since). */
  if (s->checkpoints && (!s->store.session || !s->checkpoints_for ||
                         strcmp(s->checkpoints_for, s->store.session->id) != 0)) {
    zcheckpointer_free(s->checkpoints);
    s->checkpoints = NULL;
    free(s->checkpoints_for);
    s->checkpoints_for = NULL;
  }
  if (s->store.session && !s->checkpoints) {
    s->checkpoints = zcheckpointer_new(s->store.session, stderr);
    s->checkpoints_for = xstrdup(s->store.session->id);
  }
  /* Hooks and plugin tools run confined exactly like tool commands. */
  if (s->have_ext) zext_set_spawner(&s->ext, s->tools.spawner);
  if (s->have_ext && s->store.session) s->ext.session_id = s->store.session->id;
  if (s->checkpoints) {
    s->tools.write_hook =
        (ztool_write_hook){.before_write = zcheckpoint_before_write, .ud = s->checkpoints};
    if (s->agent) zcheckpointer_set_notify(s->checkpoints, zagent_checkpoint_taken, s->agent);
  }
  setup_lsp(s);
}

int zrun_setup_mcp(zrun_setup *s, void (*warn)(void *ud, const char *msg), void *warn_ud,
                   zerr *err) {
  zmcp_start_opts o = {.workspace = s->workspace,
                       .roots = (const char *const *)s->add_dirs,
                       .n_roots = s->n_add_dirs,
                       .spawner = s->tools.spawner,
                       .grants = &s->sandbox.grants,
                       .warn = warn,
                       .warn_ud = warn_ud,
                       .extra_servers = s->have_ext ? s->ext.mcp_servers : NULL};
  /* The face's servers join the plugins' (a name both have: the plugin's). */
  json_t *merged = NULL;
  if (s->opts.extra_mcp_servers) {
    merged = o.extra_servers ? json_deep_copy(o.extra_servers) : json_object();
    json_object_update_missing(merged, (json_t *)s->opts.extra_mcp_servers);
    o.extra_servers = merged;
  }
  int rc = zmcp_manager_start(&s->mcp, &o, err);
  json_decref(merged);
  if (rc < 0) {
    err->kind = ZE_PROVIDER;
    return -1;
  }
  return 0;
}

int zrun_setup_mcp_outside_run(zrun_setup *s, const char *cwd, const char *const *add_dirs,
                               size_t n, zperm_mode mode, zmcp_start_opts *o, zerr *err) {
  if (zrun_setup_workspace(s, cwd, add_dirs, n, err) < 0 || zrun_setup_sandbox(s, err) < 0)
    return -1;
  /* The same rule as zrun_setup_tools: unsafe mode means no confinement. */
  bool confined = mode != ZPERM_UNSAFE && s->sandbox.have_spawner;
  *o = (zmcp_start_opts){.workspace = s->workspace,
                         .roots = (const char *const *)s->add_dirs,
                         .n_roots = s->n_add_dirs,
                         .spawner = confined ? &s->sandbox.spawner.base : NULL,
                         .mode = mode,
                         .grants = &s->sandbox.grants};
  return 0;
}

/* A worktree run (--worktree) keeps the launch directory as its trust root:
 * trusted when the launch directory is and the worktree holds the very
 * files that trust was given for (its fingerprint), never a variant. */
static bool trusted_via_root(const zrun_setup *s) {
  const char *root = s->opts.trust_root;
  return root && ztrust_is_trusted(root, NULL) && ztrust_same_files(root, s->workspace);
}

void zrun_setup_extensions(zrun_setup *s) {
  if (s->have_ext) zext_release(&s->ext);
  zerr terr = ZERR_INIT;
  if (s->opts.trust_workspace && ztrust_save(s->workspace, &terr) < 0)
    fprintf(stderr, "[zero] WARNING: cannot save the workspace's trust: %s\n", terr.msg);
  zext_load(&s->ext, s->workspace,
            s->opts.trust_workspace || s->opts.trust_once || trusted_via_root(s));
  s->have_ext = true;
}

void zrun_setup_compaction(zrun_setup *s, FILE *diag) {
  ensure_task(s);
  zcompact_settings_load(&s->compaction.settings, s->model.cfg.user_path, s->model.cfg.project_path,
                         stderr);
  const char *cheap_model = zcompact_pick_model(&s->compaction.settings, s->model.rp.kind,
                                                s->model.rp.base_url, s->model.rp.model);
  if (cheap_model && !s->compaction.cheap_provider) {
    zprov_opts copts = s->model.popts;
    copts.model = cheap_model;
    zerr cerr = ZERR_INIT;
    s->compaction.cheap_provider =
        zprovider_new(&copts, &cerr); /* NULL: the main model summarizes */
  }
  s->compaction.compactor =
      (zcompactor){.window = zcompact_context_window(&s->compaction.settings, &s->model.cfg,
                                                     s->model.rp.model),
                   .main = s->model.provider,
                   .cheap = s->compaction.cheap_provider,
                   .main_model = s->model.rp.model,
                   .cheap_model = s->compaction.cheap_provider ? cheap_model : NULL,
                   .task = &s->store.task,
                   .instructions = s->prompt.instruction_sources,
                   .session = s->store.session,
                   .diag = diag};
}

void zrun_setup_agent(zrun_setup *s, zagent *agent) {
  /* stream-json "checkpoint" events and tool_result changedFiles */
  s->agent = agent;
  if (s->checkpoints) zcheckpointer_set_notify(s->checkpoints, zagent_checkpoint_taken, agent);
  agent->provider = s->model.provider;
  agent->system_prompt = s->prompt.system_prompt;
  agent->tools = &s->tools;
  agent->perm = &s->perm;
  agent->max_turns = s->model.cfg.max_turns;
  agent->model = s->model.rp.model;
  agent->compactor = s->compaction.compactor.main ? &s->compaction.compactor : NULL;
  agent->net_events = s->sandbox.have_net_asker ? &s->sandbox.net_events : NULL;
  size_t n = 0;
  if (s->mcp.n) s->agent_sources[n++] = s->mcp.source;
  if (s->have_ext) {
    s->agent_sources[n++] = s->ext.source;
    if (s->ext.hooks.n) { /* no hooks: no per-call cost */
      agent->gate = &s->ext.gate;
      s->ext.agent = agent;
      s->compaction.compactor.observe = zext_compaction_observe;
      s->compaction.compactor.observe_ud = &s->ext;
    }
  }
  if (s->subagents) s->agent_sources[n++] = *zsub_runtime_source(s->subagents);
  if (s->lsp) {
    s->agent_sources[n++] = s->lsp_agent.source;
    agent->checks = &s->lsp_agent.checks;
  }
  agent->sources = n ? s->agent_sources : NULL;
  agent->nsources = n;
}

/* swarm.maxTeamSize (1..16) of the project file, else the user's, else 0
 * (the default). A value out of range is ignored: it is only a cap. */
/* swarm.maxTeamSize (1-16, else 0) and swarm.enabled, the project's config
 * before the user's. */
static int swarm_config(const zconfig *cfg, bool *enabled) {
  const char *paths[] = {cfg->project_path, cfg->user_path};
  int size = 0;
  bool en_seen = false;
  *enabled = false;
  for (size_t i = 0; i < ZARRAY_LEN(paths); i++) {
    zerr err = ZERR_INIT;
    json_t *doc = paths[i] && zfs_exists(paths[i]) ? zjson_load_file(paths[i], &err) : NULL;
    json_t *sw = json_object_get(doc, "swarm");
    json_t *v = json_object_get(sw, "maxTeamSize");
    json_int_t n = json_is_integer(v) ? json_integer_value(v) : 0;
    json_t *e = json_object_get(sw, "enabled");
    if (!en_seen && json_is_boolean(e)) *enabled = json_is_true(e), en_seen = true;
    json_decref(doc);
    if (!size && n >= 1 && n <= 16) size = (int)n;
  }
  return size;
}

void zrun_setup_subagents(zrun_setup *s, const char *const *allowed, bool restricted,
                          const zsub_runtime_opts *ask) {
  const char *sid = s->store.session ? s->store.session->id : NULL;
  if (s->subagents) {
    zsub_runtime_set_session(s->subagents, sid);
    return;
  }
  zsub_runtime_opts o = {.workspace = s->workspace,
                         .add_dirs = (const char *const *)s->add_dirs,
                         .n_add_dirs = s->n_add_dirs,
                         .offline = s->opts.offline,
                         .session_id = sid,
                         .provider = s->model.rp.name,
                         .model = s->model.rp.model,
                         .reasoning_effort = s->opts.reasoning_effort,
                         .allowed = allowed,
                         .restricted = restricted,
                         .ask = ask ? ask->ask : NULL,
                         .ask_ud = ask ? ask->ask_ud : NULL};
  o.max_team_size = swarm_config(&s->model.cfg, &o.swarm);
  s->subagents = zsub_runtime_new(&o);
}

void zrun_setup_save_task(zrun_setup *s) {
  if (!s->store.session || !s->store.task_ready) return;
  zerr terr = ZERR_INIT;
  /* Written with the session's close, without a sync: two fsyncs per run
   * bought nothing the compaction events do not already keep. */
  zsession_set_meta_deferred(s->store.session, "taskState", ztask_to_json(&s->store.task), &terr);
}

void zrun_setup_release(zrun_setup *s) {
  zsub_runtime_free(s->subagents); /* background children end with the run */
  s->subagents = NULL;
  zmcp_manager_stop(&s->mcp);
  zlsp_free(s->lsp); /* the language servers stop with the run */
  if (s->have_ext) zext_release(&s->ext);
  zcheckpointer_free(s->checkpoints);
  free(s->checkpoints_for);
  ztool_files_free(s->files);
  json_decref(s->store.seen_files);
  if (s->compaction.cheap_provider) zprovider_free(s->compaction.cheap_provider);
  zcompact_settings_release(&s->compaction.settings);
  if (s->store.task_ready) ztask_release(&s->store.task);
  json_decref(s->prompt.instruction_sources);
  free(s->prompt.system_prompt);
  json_decref(s->plan);
  if (s->store.session) zsession_close(s->store.session);
  if (s->model.provider) zprovider_free(s->model.provider);
  free(s->model.model_warning);
  zresolved_provider_release(&s->model.rp);
  zconfig_release(&s->model.cfg);
  if (s->sandbox.have_spawner) zsb_spawner_release(&s->sandbox.spawner);
  /* after the spawner: its proxy, which asks, has stopped */
  if (s->sandbox.have_net_asker) {
    zsb_egress_guard_release(&s->sandbox.web_guard);
    zperm_net_asker_release(&s->sandbox.net_asker);
    zeg_queue_release(&s->sandbox.net_events);
  }
  zsb_policy_release(&s->sandbox.policy);
  zgrants_release(&s->sandbox.grants);
  if (s->add_dirs) {
    for (size_t i = 0; i < s->n_add_dirs; i++) free(s->add_dirs[i]);
    free(s->add_dirs);
  }
  free(s->workspace);
  free(s->store.root);
  free(s->store.resumed_id);
  memset(s, 0, sizeof *s);
}
