/* manager.c — see lsp.h. */
#include "lsp/lsp.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "base/common.h"
#include "base/fs.h"
#include "base/json.h"
#include "base/path.h"
#include "base/url.h"
#include "lsp/client.h"
#include "mcp/config.h"

typedef enum srv_state { SRV_RUNNING, SRV_CRASHED, SRV_FAILED } srv_state;

/* One started server: a (config, root) pair. */
typedef struct server {
  const zlsp_server_cfg *cfg;
  char *root;
  zlsp_client client;
  srv_state state;
  bool ever_started; /* initialize was answered once */
  bool warm;         /* it has been waited on once since it started */
  int restarts, timeouts;
  char *error; /* why it crashed or failed */
} server;

/* A file the run has synced to a server. */
typedef struct doc {
  char *path, *uri;
  server *srv;       /* the server it is open on, NULL when closed */
  int version;
  zbuf text;         /* the text last sent (its storage kept from edit to edit) */
  char *pre;         /* the text before the run's first edit (write hook) */
  bool have_pre;
  json_t *orig;      /* diagnostics before the run's first edit, or NULL */
  json_t *last;      /* diagnostics of the text last sent; NULL while they are late */
  json_t *shown;     /* diagnostics the model last saw (an edit's result, the
                        diagnostics tool, the final check), or NULL */
  int64_t sent_seq;  /* the client's sequence number when that text was sent */
  bool touched;      /* edited in this run */
  bool reported;     /* the last after-edit report listed errors */
} doc;

struct zlsp {
  zlsp_config cfg;
  char *workspace;
  struct zspawner *spawner;
  int *avail;        /* per cfg.servers: -1 unknown, 0 missing, 1 found */
  server **servers;
  size_t nservers;
  doc **docs;
  size_t ndocs;
  ztool_write_hook inner;
  bool final_asked;
  int relevant; /* the workspace has a covered file: -1 unknown, 0, 1 */
  /* An edited file's text as read from disk, kept from edit to edit (with
   * doc.text and the client's text_frame: a round trip on a big file
   * allocates no fresh pages once warm; see bench/lsp). */
  zbuf read_buf;
};

zlsp *zlsp_new(zlsp_config *cfg, const char *workspace) {
  zlsp *l = xcalloc(1, sizeof *l);
  l->cfg = *cfg;
  memset(cfg, 0, sizeof *cfg);
  l->workspace = xstrdup(workspace);
  l->relevant = -1;
  l->read_buf = (zbuf)ZBUF_INIT;
  l->avail = xcalloc(l->cfg.n ? l->cfg.n : 1, sizeof *l->avail);
  for (size_t i = 0; i < l->cfg.n; i++) l->avail[i] = -1;
  return l;
}

zlsp *zlsp_for_run(const char *workspace, const char *user_path, const char *project_path,
                   char **warning) {
  *warning = NULL;
  zlsp_config cfg;
  zerr err = ZERR_INIT;
  if (zlsp_config_load(&cfg, user_path, project_path, zmcp_workspace_trusted(workspace), &err) <
      0) {
    zbuf w = ZBUF_INIT;
    zbuf_addf(&w, "language servers are off for this run: %s", err.msg);
    *warning = zbuf_detach(&w, NULL);
    return NULL;
  }
  if (!cfg.enabled) {
    zlsp_config_release(&cfg);
    return NULL;
  }
  return zlsp_new(&cfg, workspace);
}

static void doc_free(doc *d) {
  free(d->path);
  free(d->uri);
  zbuf_release(&d->text);
  free(d->pre);
  json_decref(d->orig);
  json_decref(d->last);
  json_decref(d->shown);
  free(d);
}

void zlsp_free(zlsp *l) {
  if (!l) return;
  for (size_t i = 0; i < l->nservers; i++) {
    zlsp_client_stop(&l->servers[i]->client);
    free(l->servers[i]->root);
    free(l->servers[i]->error);
    free(l->servers[i]);
  }
  free(l->servers);
  for (size_t i = 0; i < l->ndocs; i++) doc_free(l->docs[i]);
  free(l->docs);
  zbuf_release(&l->read_buf);
  free(l->avail);
  zlsp_config_release(&l->cfg);
  free(l->workspace);
  free(l);
}

void zlsp_set_spawner(zlsp *l, struct zspawner *spawner) {
  if (l) l->spawner = spawner;
}

/* ---- which server ----------------------------------------------------------- */

/* Whether server i can run: a user-configured command is always tried (a
 * missing one is reported); a default only when found on PATH. */
static bool available(zlsp *l, size_t i) {
  const zlsp_server_cfg *s = &l->cfg.servers[i];
  if (s->disabled) return false;
  if (!s->builtin) return true;
  if (l->avail[i] < 0) {
    char *found = zpath_which(s->argv[0]);
    l->avail[i] = found != NULL;
    free(found);
  }
  return l->avail[i] == 1;
}

/* The server config for path: the first whose patterns match and that can
 * run. */
static const zlsp_server_cfg *match(zlsp *l, const char *path) {
  if (!l || !l->cfg.enabled) return NULL;
  for (size_t i = 0; i < l->cfg.n; i++)
    if (!l->cfg.servers[i].disabled && zlsp_server_matches(&l->cfg.servers[i], path) &&
        available(l, i))
      return &l->cfg.servers[i];
  return NULL;
}

/* The nearest directory from path's up to the workspace that holds one of
 * the root markers; the workspace when none does (or the file's own
 * directory for a file outside it). Caller frees. */
static char *find_root(const zlsp *l, const zlsp_server_cfg *s, const char *path) {
  char *dir = xstrdup(path);
  char *slash = strrchr(dir, '/');
  if (slash) *(slash == dir ? slash + 1 : slash) = '\0';
  bool inside = zpath_is_within(l->workspace, dir);
  for (;;) {
    for (char **m = s->root_markers; m && *m; m++) {
      char *cand = zpath_join(dir, *m);
      bool hit = zfs_exists(cand);
      free(cand);
      if (hit) return dir;
    }
    if (!inside || !strcmp(dir, l->workspace)) break;
    char *up = strrchr(dir, '/');
    if (!up || up == dir) break;
    *up = '\0';
  }
  if (inside) {
    free(dir);
    return xstrdup(l->workspace);
  }
  return dir;
}

static void set_error(server *sv, const char *msg) {
  free(sv->error);
  sv->error = xstrdup(msg);
}

/* The running server for (cfg, root): started, or restarted after a crash,
 * here. NULL with err when it cannot run. */
static server *server_for(zlsp *l, const zlsp_server_cfg *cfg, const char *root, zerr *err) {
  server *sv = NULL;
  for (size_t i = 0; i < l->nservers && !sv; i++)
    if (l->servers[i]->cfg == cfg && !strcmp(l->servers[i]->root, root)) sv = l->servers[i];
  if (!sv) {
    sv = xcalloc(1, sizeof *sv);
    sv->cfg = cfg;
    sv->root = xstrdup(root);
    sv->state = SRV_CRASHED; /* i.e. to be started */
    sv->restarts = -1;       /* the first start is not a restart */
    sv->client.child.pid = -1;
    // NOLINTNEXTLINE(bugprone-sizeof-expression): an array of pointers (servers stay put)
    l->servers = xrealloc(l->servers, (l->nservers + 1) * sizeof *l->servers);
    l->servers[l->nservers++] = sv;
  }
  if (sv->state == SRV_RUNNING && zlsp_client_alive(&sv->client)) return sv;
  if (sv->state == SRV_FAILED) {
    zerr_set(err, ZE_IO, "%s", sv->error ? sv->error : "the language server failed");
    return NULL;
  }
  zlsp_client_stop(&sv->client);
  /* Its documents are closed with it. */
  for (size_t i = 0; i < l->ndocs; i++)
    if (l->docs[i]->srv == sv) l->docs[i]->srv = NULL;
  if (++sv->restarts > ZLSP_MAX_RESTARTS) {
    sv->state = SRV_FAILED;
    char msg[sizeof err->msg];
    snprintf(msg, sizeof msg, "language server %s stopped %d times; not restarted again this run%s%s",
             cfg->name, ZLSP_MAX_RESTARTS + 1, sv->error ? " (last: " : "",
             sv->error ? sv->error : "");
    if (sv->error) snprintf(msg + strlen(msg), sizeof msg - strlen(msg), ")");
    set_error(sv, msg);
    zerr_set(err, ZE_IO, "%s", msg);
    return NULL;
  }
  if (zlsp_client_start(&sv->client, cfg, root, l->spawner, l->cfg.startup_timeout_ms, err) < 0) {
    /* A command that is not there will not appear later in the run. */
    sv->state = err->kind == ZE_NOT_FOUND ? SRV_FAILED : SRV_CRASHED;
    set_error(sv, err->msg);
    return NULL;
  }
  sv->state = SRV_RUNNING;
  sv->ever_started = true;
  sv->warm = false;
  sv->timeouts = 0;
  return sv;
}

/* Notes a failure of sv while in use: a dead server is stopped (and
 * restarted on next use); timeouts count toward a restart. */
static void server_trouble(zlsp *l, server *sv, const zerr *err) {
  set_error(sv, err->msg);
  bool dead = !zlsp_client_alive(&sv->client);
  if (!dead && err->kind == ZE_TIMEOUT && ++sv->timeouts < ZLSP_MAX_TIMEOUTS) return;
  if (err->kind == ZE_CANCELLED) return;
  zlsp_client_stop(&sv->client);
  sv->state = SRV_CRASHED;
  for (size_t i = 0; i < l->ndocs; i++)
    if (l->docs[i]->srv == sv) l->docs[i]->srv = NULL;
}

/* ---- documents ------------------------------------------------------------------ */

static doc *doc_get(zlsp *l, const char *path, bool create) {
  for (size_t i = 0; i < l->ndocs; i++)
    if (!strcmp(l->docs[i]->path, path)) return l->docs[i];
  if (!create) return NULL;
  doc *d = xcalloc(1, sizeof *d);
  d->path = xstrdup(path);
  d->uri = zurl_from_path(path);
  d->text = (zbuf)ZBUF_INIT;
  // NOLINTNEXTLINE(bugprone-sizeof-expression): an array of pointers
  l->docs = xrealloc(l->docs, (l->ndocs + 1) * sizeof *l->docs);
  l->docs[l->ndocs++] = d;
  return d;
}

static int before_write(void *ud, const char *tool, const char *abs_path, char **message) {
  zlsp *l = ud;
  if (match(l, abs_path)) {
    doc *d = doc_get(l, abs_path, true);
    if (!d->have_pre && !d->srv && !d->last) {
      zbuf text = ZBUF_INIT;
      zerr ignore = ZERR_INIT;
      d->have_pre = true;
      if (zfs_read_file(abs_path, &text, ZLSP_MAX_FILE, &ignore) == 0)
        d->pre = zbuf_detach(&text, NULL);
      zbuf_release(&text);
    }
  }
  return l->inner.before_write ? l->inner.before_write(l->inner.ud, tool, abs_path, message) : 0;
}

ztool_write_hook zlsp_write_hook(zlsp *l, ztool_write_hook inner) {
  if (!l) return inner;
  l->inner = inner;
  return (ztool_write_hook){.before_write = before_write, .ud = l};
}

/* Waits up to bound_ms for the diagnostics of the text last sent to d on
 * sv and keeps them in d->last. A server that missed zero's bound publishes
 * them later; they are read here instead of sending the same text again,
 * which a server need not answer (clangd publishes once per content).
 * Returns 0, or -1 with err (d->last stays NULL). */
static int wait_late(doc *d, server *sv, int bound_ms, zerr *err) {
  const json_t *items =
      zlsp_client_wait_diagnostics(&sv->client, d->uri, d->version, d->sent_seq, bound_ms, err);
  if (!items) return -1;
  sv->timeouts = 0;
  d->last = json_incref((json_t *)items);
  return 0;
}

/* Sends text as d's next version (didOpen when it is not open) and waits
 * for its diagnostics, kept in d->last: a new reference, or NULL with err
 * (d->last is then NULL until wait_late reads them). */
static json_t *sync_text(zlsp *l, doc *d, server *sv, const char *text, size_t len, zerr *err) {
  zlsp_client *c = &sv->client;
  int64_t seq = zlsp_client_seq(c);
  int rc;
  json_decref(d->last);
  d->last = NULL;
  if (d->srv != sv) {
    d->version = 1;
    rc = zlsp_client_open(c, d->uri, zlsp_language_id(sv->cfg, d->path), d->version, text, len,
                          err);
    if (rc == 0) d->srv = sv;
  } else {
    d->version++;
    rc = zlsp_client_change(c, d->uri, d->version, text, len, err);
  }
  if (rc < 0) return NULL;
  zbuf_reset(&d->text);
  zbuf_add(&d->text, text, len);
  d->sent_seq = seq;
  /* A server just started is still warming up (pyright reads its type
   * stubs: seconds on a busy machine): its first answer may take the
   * startup bound, later ones the diagnostics bound. */
  int bound = sv->warm ? l->cfg.diag_timeout_ms : l->cfg.startup_timeout_ms;
  sv->warm = true;
  if (wait_late(d, sv, bound, err) < 0) return NULL;
  return json_incref(d->last);
}

static bool is_error(const json_t *diag) { return zjson_int_or(diag, "severity", 1) == 1; }

/* The errors of now not matched (by message) by one of before's: new
 * reference. Lines are not compared: an edit above moves them. */
static json_t *new_errors(const json_t *now, const json_t *before) {
  json_t *out = json_array();
  size_t nb = json_array_size(before);
  bool *used = xcalloc(nb ? nb : 1, sizeof *used);
  size_t i;
  const json_t *d;
  json_array_foreach(now, i, d) {
    if (!is_error(d)) continue;
    const char *msg = zjson_str_or(d, "message", "");
    bool seen = false;
    for (size_t j = 0; j < nb && !seen; j++) {
      const json_t *b = json_array_get(before, j);
      if (!used[j] && is_error(b) && !strcmp(msg, zjson_str_or(b, "message", "")))
        seen = used[j] = true;
    }
    if (!seen) json_array_append((json_t *)out, (json_t *)d);
  }
  free(used);
  return out;
}

static const char *severity_name(const json_t *d) {
  switch (zjson_int_or(d, "severity", 1)) {
  case 2: return "warning";
  case 3: return "info";
  case 4: return "hint";
  default: return "error";
  }
}

/* " [source code]" of a diagnostic, when it names either. */
static void add_source(zbuf *out, const json_t *d) {
  const char *src = zjson_str(d, "source");
  const json_t *code = json_object_get(d, "code");
  bool has_code = json_is_string(code) || json_is_integer(code);
  if (!src && !has_code) return;
  zbuf_addstr(out, " [");
  if (src) zbuf_addstr(out, src);
  if (src && has_code) zbuf_addch(out, ' ');
  if (json_is_string(code)) zbuf_addstr(out, json_string_value(code));
  else if (has_code) zbuf_addf(out, "%lld", (long long)json_integer_value(code));
  zbuf_addch(out, ']');
}

/* "path:line:col: severity: message [source code]" per diagnostic, at most
 * ZLSP_MAX_LISTED; a message's own line breaks become spaces. */
static void list_diags(const zlsp *l, const char *path, const json_t *items, zbuf *out) {
  cleanup_free char *rel = zpath_relative(l->workspace, path);
  size_t i, n = json_array_size(items);
  const json_t *d;
  json_array_foreach(items, i, d) {
    if (i == ZLSP_MAX_LISTED) {
      zbuf_addf(out, "… and %zu more\n", n - i);
      break;
    }
    const json_t *start = json_object_get(json_object_get(d, "range"), "start");
    zbuf_addf(out, "%s:%lld:%lld: %s: ", rel, (long long)zjson_int_or(start, "line", 0) + 1,
              (long long)zjson_int_or(start, "character", 0) + 1, severity_name(d));
    for (const char *p = zjson_str_or(d, "message", ""); *p; p++)
      zbuf_addch(out, *p == '\n' ? ' ' : *p);
    add_source(out, d);
    zbuf_addch(out, '\n');
  }
}

static void unavailable(const zlsp *l, const char *path, const zerr *err, zbuf *out) {
  cleanup_free char *rel = zpath_relative(l->workspace, path);
  zbuf_addf(out, "\n\n[diagnostics unavailable for %s: %s]", rel, err->msg);
}

/* Brings d up to the text on disk on sv: the pre-edit text first when this
 * is its first sync and the write hook kept one (that is the baseline).
 * *baseline gets the diagnostics the last edit's result was judged against
 * (new ref, may be an empty array): when that edit's own came too late, its
 * errors are still new to the model now. Returns the diagnostics now (new
 * ref) or NULL with err. */
static json_t *sync_edit(zlsp *l, doc *d, server *sv, const zbuf *text, json_t **baseline,
                         zerr *err) {
  *baseline = NULL;
  if (d->srv != sv && !d->last && d->have_pre && d->pre) {
    *baseline = sync_text(l, d, sv, d->pre, strlen(d->pre), err);
    if (!*baseline) return NULL;
  } else {
    json_t *before = d->shown ? d->shown : d->orig;
    *baseline = before ? json_incref(before) : json_array();
  }
  return sync_text(l, d, sv, text->data ? text->data : "", text->len, err);
}

static void after_edit_one(zlsp *l, const char *path, zbuf *out) {
  const zlsp_server_cfg *cfg = match(l, path);
  if (!cfg) return;
  doc *d = doc_get(l, path, true);
  zbuf *text = &l->read_buf;
  zbuf_reset(text);
  zerr err = ZERR_INIT;
  if (zfs_read_file(path, text, ZLSP_MAX_FILE, &err) < 0) {
    if (d->srv) zlsp_client_close_doc(&d->srv->client, d->uri, &err);
    d->srv = NULL; /* deleted (or unreadable): nothing to check */
    return;
  }
  cleanup_free char *root = find_root(l, cfg, path);
  server *sv = server_for(l, cfg, root, &err);
  if (!sv) {
    unavailable(l, path, &err, out);
    return;
  }
  json_t *baseline = NULL;
  json_t *now = sync_edit(l, d, sv, text, &baseline, &err);
  if (!d->touched && baseline) {
    d->orig = json_incref(baseline);
  }
  d->touched = d->touched || baseline;
  if (!now) {
    json_decref(baseline);
    server_trouble(l, sv, &err);
    unavailable(l, path, &err, out);
    return;
  }
  json_decref(d->shown);
  d->shown = json_incref(now);
  json_t *fresh = new_errors(now, baseline);
  cleanup_free char *rel = zpath_relative(l->workspace, path);
  size_t n = json_array_size(fresh);
  if (n) {
    zbuf_addf(out, "\n\nLanguage server %s reports %zu new error%s in %s after this edit:\n",
              cfg->name, n, n == 1 ? "" : "s", rel);
    list_diags(l, path, fresh, out);
    zbuf_addstr(out, "Fix them before you finish.");
    d->reported = true;
  }
  size_t errors_now = 0;
  for (size_t i = 0; i < json_array_size(now); i++) errors_now += is_error(json_array_get(now, i));
  if (!n && d->reported && errors_now == 0) {
    zbuf_addf(out, "\n\nLanguage server %s: no errors remain in %s.", cfg->name, rel);
    d->reported = false;
  }
  json_decref(fresh);
  json_decref(baseline);
  json_decref(now);
}

void zlsp_after_edit(zlsp *l, const json_t *files, zbuf *out) {
  if (!l || !l->cfg.enabled) return;
  size_t i;
  const json_t *f;
  json_array_foreach(files, i, f) {
    if (json_is_string(f)) after_edit_one(l, json_string_value(f), out);
  }
}

/* Re-syncs d when its file changed on disk since it was last sent (a
 * command edited it), or waits for the diagnostics of that text when they
 * were late, so a check sees what is there now; the caller shows them to
 * the model. Returns 0, or -1 with err. */
static int refresh(zlsp *l, doc *d, zerr *err) {
  const zlsp_server_cfg *cfg = match(l, d->path);
  if (!cfg) return zerr_set(err, ZE_NOT_FOUND, "no language server covers %s", d->path);
  zbuf *text = &l->read_buf;
  zbuf_reset(text);
  if (zfs_read_file(d->path, text, ZLSP_MAX_FILE, err) < 0) return -1;
  cleanup_free char *root = find_root(l, cfg, d->path);
  server *sv = server_for(l, cfg, root, err);
  if (!sv) return -1;
  if (d->srv == sv && d->text.len == text->len && !memcmp(d->text.data, text->data, text->len)) {
    if (!d->last && wait_late(d, sv, l->cfg.diag_timeout_ms, err) < 0) {
      server_trouble(l, sv, err);
      return -1;
    }
  } else {
    json_t *now = sync_text(l, d, sv, text->data, text->len, err);
    if (!now) {
      server_trouble(l, sv, err);
      return -1;
    }
    json_decref(now);
  }
  json_decref(d->shown);
  d->shown = json_incref(d->last);
  return 0;
}

char *zlsp_final_check(zlsp *l) {
  if (!l || l->final_asked) return NULL;
  zbuf report = ZBUF_INIT;
  size_t total = 0;
  for (size_t i = 0; i < l->ndocs; i++) {
    doc *d = l->docs[i];
    zerr err = ZERR_INIT;
    if (!d->touched || refresh(l, d, &err) < 0) continue;
    json_t *left = new_errors(d->last, d->orig);
    if (json_array_size(left)) {
      list_diags(l, d->path, left, &report);
      total += json_array_size(left);
    }
    json_decref(left);
  }
  if (!total) {
    zbuf_release(&report);
    return NULL;
  }
  l->final_asked = true;
  zbuf msg = ZBUF_INIT;
  zbuf_addf(&msg,
            "Before you finish: the language server still reports %zu error%s this run "
            "introduced in the files you changed:\n%s"
            "Fix them, or explain why they are expected.",
            total, total == 1 ? "" : "s", report.data);
  zbuf_release(&report);
  return zbuf_detach(&msg, NULL);
}

int zlsp_file_diagnostics(zlsp *l, const char *abs_path, zbuf *out, zerr *err) {
  if (!l) return zerr_set(err, ZE_NOT_FOUND, "language servers are off (lsp.enabled)");
  const zlsp_server_cfg *cfg = match(l, abs_path);
  cleanup_free char *rel = zpath_relative(l->workspace, abs_path);
  if (!cfg)
    return zerr_set(err, ZE_NOT_FOUND,
                    "no language server covers %s (see `zero lsp status` and lsp.servers in "
                    "docs/lsp.md)",
                    rel);
  if (!zfs_exists(abs_path)) return zerr_set(err, ZE_NOT_FOUND, "%s does not exist", rel);
  doc *d = doc_get(l, abs_path, true);
  if (refresh(l, d, err) < 0) return -1;
  size_t n = json_array_size(d->last);
  if (!n) {
    zbuf_addf(out, "No problems reported by %s in %s.\n", cfg->name, rel);
    return 0;
  }
  zbuf_addf(out, "%s reports %zu problem%s in %s:\n", cfg->name, n, n == 1 ? "" : "s", rel);
  list_diags(l, abs_path, d->last, out);
  return 0;
}

bool zlsp_any_available(zlsp *l) {
  if (!l || !l->cfg.enabled) return false;
  for (size_t i = 0; i < l->cfg.n; i++)
    if (available(l, i)) return true;
  return false;
}

/* true when dir (and, depth > 0, its subfolders) holds a file an available
 * server covers: one of its patterns, or a root marker other than .git (every
 * repository has one). *budget bounds the entries read, so a huge tree costs
 * a few hundred readdir entries once a run, not a walk. */
static bool covers_some_file(zlsp *l, const char *dir, int depth, int *budget) {
  DIR *d = opendir(dir);
  if (!d) return false;
  bool found = false;
  struct dirent *e;
  while (!found && (*budget)-- > 0 && (e = readdir(d))) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") || !strcmp(e->d_name, ".git")) continue;
    if (e->d_type == DT_DIR) {
      if (depth > 0 && e->d_name[0] != '.') {
        cleanup_free char *sub = zpath_join(dir, e->d_name);
        found = covers_some_file(l, sub, depth - 1, budget);
      }
      continue;
    }
    for (size_t i = 0; !found && i < l->cfg.n; i++) {
      if (!available(l, i)) continue;
      const zlsp_server_cfg *s = &l->cfg.servers[i];
      found = zlsp_server_matches(s, e->d_name);
      for (char **m = s->root_markers; !found && m && *m; m++) found = !strcmp(*m, e->d_name);
    }
  }
  closedir(d);
  return found;
}

bool zlsp_tools_relevant(zlsp *l) {
  if (!zlsp_any_available(l)) return false;
  for (size_t k = 0; k < l->nservers; k++)
    if (l->servers[k]->ever_started) return true;
  if (l->relevant < 0) {
    int budget = 512;
    l->relevant = covers_some_file(l, l->workspace, 1, &budget);
  }
  return l->relevant == 1;
}

static const char *state_of(zlsp *l, size_t i, char *why, size_t cap) {
  const zlsp_server_cfg *s = &l->cfg.servers[i];
  why[0] = '\0';
  if (!l->cfg.enabled) return "off";
  if (s->disabled) return "disabled";
  const char *state = NULL;
  for (size_t k = 0; k < l->nservers; k++) {
    server *sv = l->servers[k];
    if (sv->cfg != s) continue;
    if (sv->state == SRV_RUNNING && zlsp_client_alive(&sv->client)) return "running";
    state = sv->state == SRV_FAILED || !sv->ever_started ? "failed" : "stopped";
    if (sv->error) snprintf(why, cap, "%s", sv->error);
  }
  if (state) return state;
  if (!available(l, i)) return "missing";
  return "not started";
}

/* The note under a server's row with --check: start it and say how it
 * answered. */
static void check_server(zlsp *l, const zlsp_server_cfg *s, char *why, size_t cap) {
  zerr err = ZERR_INIT;
  server *sv = server_for(l, s, l->workspace, &err);
  if (!sv) {
    snprintf(why, cap, "%s", err.msg);
    return;
  }
  const char *name = sv->client.server_name;
  snprintf(why, cap, "initialize answered in %lld ms%s%s", (long long)sv->client.init_ms,
           name ? " by " : "", name ? name : "");
}

static void join_words(zbuf *out, char *const *v) {
  for (char *const *p = v; p && *p; p++) zbuf_addf(out, "%s%s", p == v ? "" : " ", *p);
}

static void status_row(zlsp *l, size_t i, bool check, zbuf *out) {
  const zlsp_server_cfg *s = &l->cfg.servers[i];
  char why[1024] = "";
  bool checked = check && l->cfg.enabled && !s->disabled && available(l, i);
  if (checked) check_server(l, s, why, sizeof why);
  char note[1024];
  const char *state = state_of(l, i, note, sizeof note);
  cleanup_zbuf zbuf cmd = ZBUF_INIT;
  cleanup_zbuf zbuf pats = ZBUF_INIT;
  join_words(&cmd, s->argv);
  join_words(&pats, s->patterns);
  zbuf_addf(out, "%-16s %-12s %-40s %s\n", s->name, state, cmd.data ? cmd.data : "",
            pats.data ? pats.data : "");
  if (checked || note[0]) zbuf_addf(out, "  %s\n", checked ? why : note);
  if (!strcmp(state, "missing") && s->argv && s->argv[0])
    zbuf_addf(out, "  %s is not on PATH (install it to get %s diagnostics)\n", s->argv[0], s->name);
}

void zlsp_status(zlsp *l, bool check, zbuf *out) {
  if (!l) {
    zbuf_addstr(out, "Language servers are off (lsp.enabled is false).\n");
    return;
  }
  zbuf_addf(out, "%-16s %-12s %-40s %s\n", "NAME", "STATE", "COMMAND", "FILES");
  for (size_t i = 0; i < l->cfg.n; i++) status_row(l, i, check, out);
  for (char **n = l->cfg.skipped_untrusted; n && *n; n++)
    zbuf_addf(out,
              "%-16s %-12s the project's server; trust the workspace (zero mcp trust) to use it\n",
              *n, "untrusted");
}

/* ---- code navigation (the lsp tool) ------------------------------------------ */

static const char *const SYMBOL_KINDS[] = {"",         "file",        "module",        "namespace",
                                           "package",  "class",       "method",        "property",
                                           "field",    "constructor", "enum",          "interface",
                                           "function", "variable",    "constant",      "string",
                                           "number",   "boolean",     "array",         "object",
                                           "key",      "null",        "enum member",   "struct",
                                           "event",    "operator",    "type parameter"};

static const char *symbol_kind(const json_t *s) {
  json_int_t k = zjson_int_or(s, "kind", 0);
  return k > 0 && k < (json_int_t)ZARRAY_LEN(SYMBOL_KINDS) ? SYMBOL_KINDS[k] : "symbol";
}

/* "rel:line:col: text of that line" for one Location or LocationLink. */
static void add_location(const zlsp *l, const json_t *loc, zbuf *out) {
  const char *uri = zjson_str(loc, "uri");
  const json_t *range = json_object_get(loc, "range");
  if (!uri) { /* a LocationLink */
    uri = zjson_str(loc, "targetUri");
    range = json_object_get(loc, "targetSelectionRange");
  }
  cleanup_free char *path = zurl_to_path(uri);
  if (!path) return;
  const json_t *start = json_object_get(range, "start");
  json_int_t line = zjson_int_or(start, "line", 0), col = zjson_int_or(start, "character", 0);
  cleanup_free char *rel = zpath_relative(l->workspace, path);
  zbuf_addf(out, "%s:%lld:%lld", rel, (long long)line + 1, (long long)col + 1);
  cleanup_zbuf zbuf text = ZBUF_INIT;
  zerr ignore = ZERR_INIT;
  if (zfs_read_file(path, &text, ZLSP_MAX_FILE, &ignore) == 0 && text.data) {
    const char *p = text.data;
    for (json_int_t i = 0; i < line && p; i++) p = (p = strchr(p, '\n')) ? p + 1 : NULL;
    size_t n = p ? strcspn(p, "\n") : 0;
    while (n && (*p == ' ' || *p == '\t')) p++, n--;
    if (n) zbuf_addf(out, ": %.*s", (int)(n > 200 ? 200 : n), p);
  }
  zbuf_addch(out, '\n');
}

static void add_locations(const zlsp *l, const json_t *res, zbuf *out) {
  if (json_is_object(res)) {
    add_location(l, res, out);
    return;
  }
  size_t i, n = json_array_size(res);
  const json_t *loc;
  json_array_foreach(res, i, loc) {
    if (i == 50) {
      zbuf_addf(out, "… and %zu more\n", n - i);
      break;
    }
    add_location(l, loc, out);
  }
}

/* Hover contents: MarkupContent, a MarkedString, or an array of them. */
static void add_hover(const json_t *c, zbuf *out) {
  if (json_is_string(c)) {
    zbuf_addf(out, "%s\n", json_string_value(c));
  } else if (json_is_array(c)) {
    size_t i;
    const json_t *e;
    json_array_foreach(c, i, e) add_hover(e, out);
  } else if (zjson_str(c, "value")) {
    zbuf_addf(out, "%s\n", zjson_str(c, "value"));
  }
}

/* DocumentSymbol trees (children indented) or flat SymbolInformation. */
static void add_symbols(const json_t *syms, int depth, zbuf *out) {
  size_t i;
  const json_t *s;
  json_array_foreach(syms, i, s) {
    const json_t *range = json_object_get(s, "selectionRange");
    if (!range) range = json_object_get(json_object_get(s, "location"), "range");
    long long line = (long long)zjson_int_or(json_object_get(range, "start"), "line", 0) + 1;
    zbuf_addf(out, "%*s%s %s (line %lld)\n", depth * 2, "", symbol_kind(s),
              zjson_str_or(s, "name", "?"), line);
    add_symbols(json_object_get(s, "children"), depth + 1, out);
  }
}

static const char *query_method(const char *op) {
  if (!strcmp(op, "definition")) return "textDocument/definition";
  if (!strcmp(op, "references")) return "textDocument/references";
  if (!strcmp(op, "hover")) return "textDocument/hover";
  if (!strcmp(op, "symbols")) return "textDocument/documentSymbol";
  return NULL;
}

int zlsp_query(zlsp *l, const char *op, const char *abs_path, int line, int column, zbuf *out,
               zerr *err) {
  const char *method = query_method(op);
  if (!method)
    return zerr_set(err, ZE_USAGE,
                    "unknown operation \"%s\": use definition, references, hover or symbols", op);
  bool positional = strcmp(op, "symbols") != 0;
  if (positional && (line < 1 || column < 1))
    return zerr_set(err, ZE_USAGE, "%s needs line and column (1-based)", op);
  if (!l) return zerr_set(err, ZE_NOT_FOUND, "language servers are off (lsp.enabled)");
  const zlsp_server_cfg *cfg = match(l, abs_path);
  cleanup_free char *rel = zpath_relative(l->workspace, abs_path);
  if (!cfg) return zerr_set(err, ZE_NOT_FOUND, "no language server covers %s", rel);
  doc *d = doc_get(l, abs_path, true);
  if (refresh(l, d, err) < 0) return -1;
  json_t *params = json_pack("{s:{s:s}}", "textDocument", "uri", d->uri);
  if (positional)
    json_object_set_new(params, "position",
                        json_pack("{s:i, s:i}", "line", line - 1, "character", column - 1));
  if (!strcmp(op, "references"))
    json_object_set_new(params, "context", json_pack("{s:b}", "includeDeclaration", true));
  json_t *res = NULL;
  if (zlsp_client_request(&d->srv->client, method, params, l->cfg.startup_timeout_ms, &res, err) <
      0) {
    server_trouble(l, d->srv, err);
    return -1;
  }
  size_t before = out->len;
  if (!strcmp(op, "hover")) add_hover(json_object_get(res, "contents"), out);
  else if (!strcmp(op, "symbols")) add_symbols(res, 0, out);
  else add_locations(l, res, out);
  if (out->len == before) zbuf_addf(out, "%s found nothing for %s in %s.\n", cfg->name, op, rel);
  json_decref(res);
  return 0;
}
