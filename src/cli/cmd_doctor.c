/* cmd_doctor.c — `zero doctor [--connectivity] [--json]`: checks that a run
 * can start, one row per check, each failing row with the next step.
 *
 * Rows: config (files parse), provider (the active profile resolves), key
 * (present, or not needed on loopback), model (known to the registry),
 * endpoint (--connectivity: one cheap authenticated GET of the model list),
 * sandbox (the backend the sandbox module finds on this machine), backends
 * (MCP servers and extensions: counts and what is broken; zero backends).
 * Exit status 0 when nothing failed, 3 otherwise.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/common.h"
#include "base/json.h"
#include "base/opts.h"
#include "base/path.h"
#include "base/url.h"
#include "base/redact.h"
#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/doctor_bundle.h"
#include "sandbox/sandbox.h"
#include "cli/provider_opts.h"
#include "cli/run_setup.h"
#include "config/config.h"
#include "config/models.h"
#include "net/curl_loader.h"
#include "net/http.h"
#include "provider/provider.h"
#include "provider/retry.h"
#include "provider/wire.h"

typedef struct doctor {
  json_t *rows;
  bool failed;
  bool json;
} doctor;

/* One check's result; detail and next are redacted first (they quote base
 * URLs and server answers). */
static void row(doctor *d, const char *check, const char *status, const char *raw_detail,
                const char *raw_next) {
  cleanup_free char *detail = zredact_str(raw_detail);
  cleanup_free char *next = zredact_str(raw_next);
  json_array_append_new(d->rows, json_pack("{s:s, s:s, s:s, s:s?}", "check", check, "status",
                                           status, "detail", detail, "next", next));
  if (!strcmp(status, "fail")) d->failed = true;
  if (!d->json) {
    printf("%-5s %-9s %s\n", !strcmp(status, "ok") ? "ok" : !strcmp(status, "fail") ? "FAIL"
                                                                                      : status,
           check, detail);
    if (next) printf("                next: %s\n", next);
  }
}

/* A denied (denyRead or hidden) file with other names is readable by a
 * sandboxed command through them: one warning row per file. The policy is
 * the current directory's, as a run there would build it. */
static void report_linked_denied_files(doctor *d) {
  zsb_policy p;
  zsb_policy_opts o = {0};
  zerr err = ZERR_INIT;
  if (zsb_policy_build(&p, &o, &err) < 0) {
    zsb_policy_release(&p);
    return;
  }
  zsb_policy_prepare_read_guard(&p, true);
  for (size_t i = 0; i < p.n_linked; i++) {
    char what[1200], fix[1200];
    zsb_linked_describe(&p.linked[i], what, sizeof what);
    snprintf(fix, sizeof fix, "find / -xdev -samefile '%s' lists them; remove the extra links",
             p.linked[i].path);
    row(d, "denyRead", "warn", what, fix);
  }
  zsb_policy_release(&p);
}

/* The MCP servers and extensions (zero backends' report: nothing is started,
 * no hook runs): one row of counts. An MCP server that cannot start fails
 * (every zero exec would fail on it); an extension that did not load warns
 * (the run goes on without it). */
static void report_backends(doctor *d) {
  cleanup_free char *cwd = getcwd(NULL, 0);
  size_t broken = 0;
  json_t *r = zcli_backends_report(cwd ? cwd : ".", &broken);
  size_t mcp_broken = 0, enabled = 0;
  size_t i;
  json_t *it;
  json_array_foreach(json_object_get(r, "mcpServers"), i, it) {
    if (!zjson_bool_or(it, "valid", true) && zjson_bool_or(it, "enabled", true)) mcp_broken++;
  }
  json_array_foreach(json_object_get(r, "plugins"), i, it) {
    if (zjson_bool_or(it, "enabled", false)) enabled++;
  }
  size_t untrusted = json_array_size(json_object_get(r, "untrusted"));
  zbuf m = ZBUF_INIT;
  zbuf_addf(&m, "%zu MCP servers, %zu hooks, %zu skills, %zu commands, %zu plugins (%zu enabled)",
            json_array_size(json_object_get(r, "mcpServers")),
            json_array_size(json_object_get(r, "hooks")),
            json_array_size(json_object_get(r, "skills")),
            json_array_size(json_object_get(r, "commands")),
            json_array_size(json_object_get(r, "plugins")), enabled);
  if (broken) zbuf_addf(&m, "; %zu broken", broken);
  if (untrusted) zbuf_addf(&m, "; %zu workspace files untrusted", untrusted);
  json_array_foreach(json_object_get(r, "mcpServers"), i, it) {
    const char *problem = zjson_str(it, "problem");
    if (problem) zbuf_addf(&m, "; MCP %s: %s", zjson_str_or(it, "name", "?"), problem);
  }
  json_array_foreach(json_object_get(r, "problems"), i, it) {
    zbuf_addf(&m, "; %s", json_string_value(it));
  }
  row(d, "backends",
      mcp_broken            ? "fail"
      : broken || untrusted ? "warn"
                            : "ok",
      m.data,
      broken      ? "zero backends doctor shows each problem and its fix"
      : untrusted ? "review them, then zero exec --trust-workspace"
                  : NULL);
  zbuf_release(&m);
  json_decref(r);
}

/* Keys of the config files that zero does not read (a typo does nothing
 * silently otherwise): one warning row each, with "did you mean". */
static void report_unknown_keys(doctor *d, const zconfig *cfg) {
  json_t *unknown = zcli_config_unknown_keys(cfg);
  size_t i;
  json_t *m;
  json_array_foreach(unknown, i, m)
      row(d, "config", "warn", json_string_value(m), "rename or remove the key");
  json_decref(unknown);
}

/* Go zero's model checks, each a failure: a blank model; on a built-in
 * provider (openai, anthropic, google at their own endpoints: their catalogs
 * are known), a model the registry does not know, or another provider's
 * model (openai + gemini-2.5-pro). true when a row was written. */
static bool check_model_fits(doctor *d, const zresolved_provider *rp, const zmodel_info *mi) {
  const char *m = rp->model ? rp->model : "";
  while (*m == ' ' || *m == '\t') m++;
  zbuf msg = ZBUF_INIT;
  const char *fix = NULL;
  bool builtin = rp->kind && (!strcmp(rp->kind, "openai") || !strcmp(rp->kind, "anthropic") ||
                              !strcmp(rp->kind, "google") || !strcmp(rp->kind, "gemini"));
  const char *family = builtin ? zmodel_family_for_kind(rp->kind) : NULL;
  if (!*m) {
    zbuf_addf(&msg, "the profile %s has a blank model", rp->name ? rp->name : "");
    fix = "set \"model\" in the profile (zero models list shows the choices)";
  } else if (family && !mi->known) {
    zbuf_addf(&msg, "%s is not among the %s models zero knows", m, family);
    fix = "pick one from zero models list --provider <family>, or describe it in "
          "~/.config/zero/models.json";
  } else if (family && strcmp(mi->provider, family)) {
    zbuf_addf(&msg, "%s is a %s model, but the provider %s is %s", m, mi->provider,
              rp->name ? rp->name : "", rp->kind);
    fix = "use a model of this provider (zero models list), or switch provider (zero "
          "providers use NAME)";
  }
  if (fix) row(d, "model", "fail", msg.data, fix);
  zbuf_release(&msg);
  return fix != NULL;
}

static int sink(void *ud, const char *data, size_t len) {
  zbuf *b = ud;
  if (b->len < 65536) zbuf_add(b, data, len);
  return 0;
}

/* One cheap authenticated request: the model list of the endpoint. */
static void check_endpoint(doctor *d, const zresolved_provider *rp, const zprov_opts *o) {
  zerr err = ZERR_INIT;
  if (zcurl_load(&err) < 0) {
    row(d, "endpoint", "fail", err.msg, "install libcurl4 (scripts/install-deps.sh)");
    return;
  }
  const char *wire = zprovider_wire_for(o);
  zbuf url = ZBUF_INIT, auth = ZBUF_INIT;
  const char *extra = "";
  if (wire && !strcmp(wire, "anthropic")) {
    cleanup_free char *u = zwire_url(rp->base_url, "/v1/models");
    zbuf_addstr(&url, u);
    if (rp->api_key) zbuf_addf(&auth, "x-api-key: %s", rp->api_key);
    extra = "anthropic-version: 2023-06-01";
  } else if (wire && !strcmp(wire, "gemini")) {
    cleanup_free char *u = zwire_url(rp->base_url, "/v1beta/models");
    zbuf_addstr(&url, u);
    if (rp->api_key) zbuf_addf(&auth, "x-goog-api-key: %s", rp->api_key);
  } else {
    cleanup_free char *u = zwire_url(rp->base_url, "/models");
    zbuf_addstr(&url, u);
    if (rp->api_key) zbuf_addf(&auth, "Authorization: Bearer %s", rp->api_key);
  }
  if (rp->oauth_login && rp->api_key) {
    /* An OAuth login's token is a bearer for every wire (provider/wire.c). */
    zbuf_reset(&auth);
    zbuf_addf(&auth, "Authorization: Bearer %s", rp->api_key);
  }
  const char *defaults[] = {auth.len && zwire_header_safe(auth.data) ? auth.data : "", extra, NULL};
  char **headers = zwire_headers_new(o, defaults);
  zbuf body = ZBUF_INIT;
  zhttp_request req = {.method = "GET", .url = url.data,
                       .headers = (const char *const *)headers, .connect_timeout_ms = 5000,
                       .idle_timeout_ms = 10000, .total_timeout_ms = 15000};
  zhttp_response resp = ZHTTP_RESPONSE_INIT;
  int rc = zhttp_perform(&req, &resp, sink, &body, &err);
  zbuf m = ZBUF_INIT;
  if (rc < 0 && resp.status == 0) {
    zbuf_addf(&m, "%s unreachable: %s", url.data, err.msg);
    row(d, "endpoint", "fail", m.data,
        zurl_is_loopback(rp->base_url) ? "start the local server (zero providers detect)"
                                       : "check the network, proxy and baseURL");
  } else if (resp.status >= 200 && resp.status < 300) {
    zbuf_addf(&m, "%s answered HTTP %ld", url.data, resp.status);
    row(d, "endpoint", "ok", m.data, NULL);
  } else {
    zerr herr = ZERR_INIT;
    zprov_http_error(o, url.data, resp.status, resp.error_body.data, resp.error_body.len, &herr);
    row(d, "endpoint", "fail", herr.msg,
        resp.status == 401 || resp.status == 403 ? "set a valid key in the variable named above"
                                                 : "check baseURL and the provider's status page");
  }
  zbuf_release(&m);
  zhttp_response_release(&resp);
  zwire_headers_free(headers);
  zbuf_release(&body);
  zbuf_release(&url);
  zbuf_release(&auth);
}

enum { D_HELP = 1, D_JSON, D_CONNECTIVITY, D_BUNDLE };

static const zopt DOCTOR_OPTS[] = {
    {D_CONNECTIVITY, "connectivity", 0, ZOPT_FLAG, 0, NULL,
     "also send one cheap request to the endpoint", "Flags"},
    {D_JSON, "json", 0, ZOPT_FLAG, 0, NULL, "print {ok, checks:[{check, status, detail, next}]}",
     NULL},
    {D_BUNDLE, "bundle", 0, ZOPT_FLAG, 0, NULL,
     "also pack the debug log, the redacted config, the version\n"
     "and these checks into a .tar to attach to a bug report",
     NULL},
    {D_HELP, "help", 'h', ZOPT_FLAG, 0, NULL, "show this help", NULL},
};

const zopt_spec zcli_doctor_opts = {.command = "doctor", .opts = DOCTOR_OPTS,
                                    .n_opts = ZARRAY_LEN(DOCTOR_OPTS),
                                    .unknown = "unknown argument",
                                    .see = " (see zero doctor --help)"};

static void doctor_usage(FILE *out) {
  fputs("Usage: zero doctor [--connectivity] [--json] [--bundle]\n\n"
        "Checks the config files, the active provider, its key and model, and with\n"
        "--connectivity the endpoint itself (one cheap authenticated request).\n"
        "Exit status 3 when a check fails.\n\n",
        out);
  zopt_print_flags(out, &zcli_doctor_opts);
  fputs("\nExamples:\n"
        "  zero doctor\n"
        "  zero doctor --connectivity --json\n"
        "  zero --debug exec \"…\"; zero doctor --bundle   # a bug report's attachment\n",
        out);
}

int cmd_doctor(int argc, char **argv) {
  doctor d = {json_array(), false, false};
  bool connectivity = false, bundle = false;
  zopt_parser op;
  zopt_hit hit;
  zerr perr = ZERR_INIT;
  zopt_init(&op, &zcli_doctor_opts, argc, argv);
  while (zopt_next(&op, &hit, &perr) > 0) {
    if (hit.id == D_JSON) {
      d.json = true;
    } else if (hit.id == D_CONNECTIVITY) {
      connectivity = true;
    } else if (hit.id == D_BUNDLE) {
      bundle = true;
    } else if (hit.id == D_HELP) {
      doctor_usage(stdout);
      json_decref(d.rows);
      return ZEXIT_SUCCESS;
    } else {
      zerr_set(&perr, ZE_USAGE, "unknown argument \"%s\" (see zero doctor --help)", hit.value);
      break;
    }
  }
  if (perr.kind != ZE_OK) {
    zcli_usage_error("doctor", perr.msg);
    json_decref(d.rows);
    return ZEXIT_USAGE;
  }
  zerr err = ZERR_INIT;
  zconfig cfg;
  zresolved_provider rp;
  memset(&rp, 0, sizeof rp);
  char *cwd = getcwd(NULL, 0);
  bool loaded = zconfig_load(&cfg, cwd ? cwd : ".", NULL, &err) == 0;
  free(cwd);
  if (!loaded) {
    row(&d, "config", "fail", err.msg, "fix the file named above");
  } else {
    zbuf m = ZBUF_INIT;
    zbuf_addf(&m, "user %s, project %s", cfg.user_path, cfg.project_path);
    row(&d, "config", "ok", m.data, NULL);
    zbuf_release(&m);
    report_unknown_keys(&d, &cfg);
    cleanup_free char *model_note = NULL; /* the model a local server named (as zero exec) */
    if (zconfig_resolve_provider_probe(&cfg, &rp, zrun_probe_local_model, NULL, &model_note,
                                       &err) < 0) {
      bool key = strstr(err.msg, "API key") != NULL;
      row(&d, key ? "key" : "provider", "fail", err.msg,
          cfg.n_providers ? "zero providers list" : "zero setup --provider <preset>");
    } else {
      zprov_opts o;
      cleanup_free char *warning = NULL;
      zcli_provider_opts(&cfg, &rp, &o, &warning);
      zbuf m2 = ZBUF_INIT;
      zbuf_addf(&m2, "%s (%s, %s) at %s", rp.name, rp.kind, zprovider_wire_for(&o), rp.base_url);
      row(&d, "provider", "ok", m2.data, NULL);
      zbuf_reset(&m2);
      if (rp.oauth_login) zbuf_addf(&m2, "OAuth login \"%s\" (zero auth)", rp.oauth_login);
      else if (rp.api_key) zbuf_addf(&m2, "from %s", rp.api_key_env ? rp.api_key_env : "config");
      else zbuf_addstr(&m2, "none needed (loopback endpoint)");
      row(&d, "key", "ok", m2.data, NULL);
      zbuf_reset(&m2);
      zmodel_info mi;
      zmodel_lookup(&cfg, rp.model, &mi);
      if (check_model_fits(&d, &rp, &mi)) {
        /* a failing row was written */
      } else if (model_note) {
        row(&d, "model", "warn", model_note, "set the model you want in the profile");
      } else if (mi.known) {
        zbuf_addf(&m2, "%s: %lld-token context, %lld output", rp.model,
                  (long long)mi.context_window, (long long)mi.max_output);
        row(&d, "model", "ok", m2.data, NULL);
      } else {
        zbuf_addf(&m2, "%s is not in the registry (conservative defaults)", rp.model);
        row(&d, "model", "warn", m2.data, "add it under \"models\" in your config");
      }
      zbuf_release(&m2);
      if (connectivity) check_endpoint(&d, &rp, &o);
      else row(&d, "endpoint", "skip", "not checked", "zero doctor --connectivity");
    }
  }
  /* The sandbox backend this machine offers (no process is started). */
  const zsb_probe *pr = zsb_probe_get();
  char sb[512];
  zsb_probe_describe(pr, sb, sizeof sb);
  if (pr->backend == ZSB_BWRAP)
    row(&d, "sandbox", "ok", sb, NULL);
  else
    row(&d, "sandbox", "warn", sb,
        pr->userns_fix[0] ? pr->userns_fix
        : pr->bwrap_path[0] ? "see docs/sandbox.md"
                            : "install bubblewrap (apt-get install bubblewrap) for full confinement");
  report_linked_denied_files(&d);
  report_backends(&d);
  cleanup_free char *bundle_path = NULL;
  if (bundle) {
    /* The config files even when they do not parse: that is what a report needs. */
    cleanup_free char *user_cfg = NULL, *project_cfg = NULL;
    if (loaded) {
      user_cfg = cfg.user_path ? xstrdup(cfg.user_path) : NULL;
      project_cfg = cfg.project_path ? xstrdup(cfg.project_path) : NULL;
    } else {
      cleanup_free char *cdir = zpath_config_dir();
      user_cfg = zpath_join(cdir, "config.json");
    }
    zerr berr = ZERR_INIT;
    bundle_path = zcli_doctor_bundle(d.rows, user_cfg, project_cfg, &berr);
    if (!bundle_path) {
      fprintf(stderr, "zero doctor: no bundle: %s\n", berr.msg);
      d.failed = true;
    } else if (!d.json) {
      printf("\nBug report bundle: %s\n"
             "(redacted: no keys; no prompts unless ZERO_LOG_BODIES=1; look it over, then "
             "attach it)\n",
             bundle_path);
    }
  }
  if (d.json) {
    json_t *o =
        json_pack("{s:b, s:O, s:s?}", "ok", !d.failed, "checks", d.rows, "bundle", bundle_path);
    zjson_print(stdout, o, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    json_decref(o);
  }
  json_decref(d.rows);
  zresolved_provider_release(&rp);
  if (loaded) zconfig_release(&cfg);
  return d.failed ? ZEXIT_PROVIDER : ZEXIT_SUCCESS;
}
