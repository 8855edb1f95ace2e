/* cmd_sessions.c — `zero sessions [list|show <id>] [--json]`.
 *
 * list: newest first (updatedAt desc, then id). Text lines are
 *   "  - <sessionId>[ [<sessionKind>]] <updatedAt>[ <title or first prompt>][ (model=…, cwd=…)]"
 * and --json prints the metadata objects as a pretty JSON array.
 * show: one session's metadata and how many events of each type it holds.
 */
#include <stdio.h>
#include <string.h>

#include "agent/task_state.h"
#include "base/buf.h"
#include "base/common.h"
#include "base/json.h"
#include "base/path.h"
#include "base/opts.h"
#include "cli/cli.h"
#include "cli/commands.h"
#include "config/keys.h"
#include "session/checkpoint.h"
#include "session/store.h"

#define EXCERPT_MAX 60

enum {
  SS_HELP = 1,
  SS_JSON,
  SS_KIND,
  SS_AT,
  SS_TO,
  SS_DRY_RUN,
  SS_SEQUENCE,
  SS_EVENT,
  SS_EXCLUDE_TARGET
};

static const zopt SESSIONS_OPTS[] = {
    {SS_JSON, "json", 0, ZOPT_FLAG, 0, NULL,
     "print JSON (list, children: an array of metadata objects)", "Flags"},
    {SS_KIND, "kind", 0, ZOPT_VALUE, 0, "KIND",
     "list: only sessions of KIND (regular, fork, side, child)", NULL},
    {SS_AT, "at", 0, ZOPT_VALUE, 0, "SEQ", "fork: copy events up to SEQ (default: all)", NULL},
    {SS_TO, "to", 0, ZOPT_VALUE, 0, "SEQ", "rewind: keep events up to SEQ", NULL},
    {SS_DRY_RUN, "dry-run", 0, ZOPT_FLAG, 0, NULL, "rewind: show the plan, change nothing", NULL},
    {SS_SEQUENCE, "sequence", 0, ZOPT_VALUE, 0, "SEQ", "rewind, rewind-plan: the same as --to",
     NULL},
    {SS_EVENT, "event", 0, ZOPT_VALUE, 0, "ID",
     "rewind, rewind-plan: the target by event id (<session>:<seq>)", NULL},
    {SS_EXCLUDE_TARGET, "exclude-target", 0, ZOPT_FLAG, 0, NULL,
     "rewind, rewind-plan: drop the target event too (keep events before it)", NULL},
    {SS_HELP, "help", 'h', ZOPT_FLAG, 0, NULL, "show this help", NULL},
};

const zopt_spec zcli_sessions_opts = {.command = "sessions", .opts = SESSIONS_OPTS,
                                      .n_opts = ZARRAY_LEN(SESSIONS_OPTS),
                                      .unknown = "unknown sessions flag"};

static void usage(FILE *out) {
  zcli_subcommand_usage(out, "zero sessions", &zcli_sessions_subs);
  fputs("         (--sequence SEQ or --event ID for --to; --exclude-target keeps only the\n"
        "          events before the target)\n"
        "\n"
        "Lists saved sessions, most recently updated first; shows one session's\n"
        "metadata, task state and a count of its events by type; prints a session's\n"
        "fork tree, its direct children or its lineage (root -> … -> id); deletes a\n"
        "session; forks one (a copy of its events up to SEQ that continues\n"
        "independently); rewinds one to event SEQ (restores the files tools changed\n"
        "after it and cuts the conversation there; the plan is printed first).\n"
        "Sessions are stored in $XDG_DATA_HOME/zero/sessions (default\n"
        "~/.local/share/zero/sessions).\n"
        "\n",
        out);
  zopt_print_flags(out, &zcli_sessions_opts);
  fputs("\n"
        "Examples:\n"
        "  zero sessions\n"
        "  zero sessions list --json\n"
        "  zero sessions show zero_20260101120000_1767268800000000000_1\n",
        out);
}

/* A usage error of zero sessions (printf message, then the short usage; exit 2). */
#define usage_error(...) zcli_usage_errorf("sessions", __VA_ARGS__)

static void print_json(const json_t *v) {
  zjson_print(stdout, v, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_ENCODE_ANY);
}

static void print_warnings(const json_t *warnings) {
  size_t i;
  json_t *w;
  json_array_foreach(warnings, i, w) fprintf(stderr, "[zero] warning: %s\n", json_string_value(w));
}

/* ---- list -------------------------------------------------------------- */

typedef struct first_prompt {
  char *text;
} first_prompt;

static int find_first_prompt(void *ud, const json_t *ev) {
  first_prompt *fp = ud;
  const char *type = zjson_str(ev, "type");
  const json_t *payload = json_object_get(ev, "payload");
  if (!type || strcmp(type, "message") != 0) return 0;
  const char *role = zjson_str(payload, "role");
  const char *content = zjson_str(payload, "content");
  if (!role || strcmp(role, "user") != 0 || !content) return 0;
  fp->text = xstrdup(content);
  return 1; /* stop: only the first one is wanted */
}

/* Whitespace collapsed to single spaces, cut at a character boundary. */
static void add_excerpt(zbuf *out, const char *text) {
  zbuf b = ZBUF_INIT;
  bool space = false;
  for (const char *p = text; *p; p++) {
    if (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r') {
      space = b.len > 0;
      continue;
    }
    if (space) zbuf_addch(&b, ' ');
    space = false;
    zbuf_addch(&b, *p);
  }
  if (b.len > EXCERPT_MAX) {
    zbuf_setlen(&b, zutf8_boundary(b.data, EXCERPT_MAX));
    zbuf_rtrim(&b);
    zbuf_addstr(&b, "…");
  }
  zbuf_add(out, b.data, b.len);
  zbuf_release(&b);
}

static void print_session_line(const char *root, const json_t *m) {
  const char *id = zjson_str_or(m, "sessionId", "?");
  zbuf line = ZBUF_INIT;
  zbuf_addf(&line, "  - %s", id);
  /* Go zero's line, "- id [kind] title (agent=…, task=…, parent=…, model=…)",
   * plus the cwd among the details; times are in --json. */
  const char *kind = zjson_str(m, "sessionKind");
  if (kind && kind[0]) zbuf_addf(&line, " [%s]", kind);
  const char *title = zjson_str(m, "title");
  if (title && title[0]) {
    zbuf_addch(&line, ' ');
    add_excerpt(&line, title);
  } else {
    first_prompt fp = {NULL};
    zerr err = ZERR_INIT;
    /* Warnings about torn lines belong to `show`, not to a listing. */
    zsession_for_each_event(root, id, find_first_prompt, &fp, NULL, &err);
    if (fp.text && fp.text[0]) {
      zbuf_addch(&line, ' ');
      add_excerpt(&line, fp.text);
    }
    free(fp.text);
  }
  const char *keys[] = {"agentName", "taskId", "parentSessionId", "modelId", "cwd"};
  const char *labels[] = {"agent", "task", "parent", "model", "cwd"};
  bool any = false;
  for (size_t i = 0; i < ZARRAY_LEN(keys); i++) {
    const char *v = zjson_str(m, keys[i]);
    if (!v || !v[0]) continue;
    zbuf_addf(&line, "%s%s=%s", any ? ", " : " (", labels[i], v);
    any = true;
  }
  if (any) zbuf_addch(&line, ')');
  printf("%s\n", line.data);
  zbuf_release(&line);
}

/* A list of session metadata objects: a JSON array, or one line each under
 * a count ("No Zero sessions found." when empty). */
static void print_sessions(const char *root, const json_t *list, bool json) {
  if (json) {
    print_json(list);
    return;
  }
  if (json_array_size(list) == 0) {
    printf("No Zero sessions found.\n");
    return;
  }
  printf("Zero sessions (%zu):\n", json_array_size(list));
  size_t i;
  json_t *m;
  json_array_foreach(list, i, m) print_session_line(root, m);
}

static bool kind_matches(const json_t *m, const char *kind) {
  if (!kind) return true;
  const char *k = zjson_str(m, "sessionKind");
  if (!strcmp(kind, "regular")) return !k || !k[0];
  return k && !strcmp(k, kind);
}

static int run_list(bool json, const char *kind) {
  cleanup_free char *root = zsession_root();
  json_t *warnings = NULL;
  zerr err = ZERR_INIT;
  json_t *all = zsession_list(root, &warnings, &err);
  if (!all) {
    fprintf(stderr, "[zero] %s\n", err.msg);
    json_decref(warnings);
    return ZEXIT_INTERNAL;
  }
  print_warnings(warnings);
  json_decref(warnings);
  if (kind) {
    json_t *f = json_array();
    size_t i;
    json_t *m;
    json_array_foreach(all, i, m) if (kind_matches(m, kind)) json_array_append(f, m);
    json_decref(all);
    all = f;
  }
  print_sessions(root, all, json);
  json_decref(all);
  return ZEXIT_SUCCESS;
}

/* ---- show -------------------------------------------------------------- */

typedef struct type_counts {
  json_t *by_type;  /* type -> count */
  json_int_t total;
  json_t *warnings; /* skipped lines */
} type_counts;

static void count_warning(void *ud, const char *msg) {
  type_counts *tc = ud;
  json_array_append_new(tc->warnings, json_string(msg));
}

static int count_event(void *ud, const json_t *ev) {
  type_counts *tc = ud;
  const char *type = zjson_str_or(ev, "type", "(none)");
  json_int_t n = json_integer_value(json_object_get(tc->by_type, type));
  json_object_set_new(tc->by_type, type, json_integer(n + 1));
  tc->total++;
  return 0;
}

static int code_for_err(const zerr *err);

static int run_show(const char *id, bool json) {
  if (!zsession_id_valid(id)) {
    fprintf(stderr, "[zero] invalid session id \"%s\"; run `zero sessions list` to see saved "
            "sessions\n", id);
    return ZEXIT_USAGE;
  }
  cleanup_free char *root = zsession_root();
  cleanup_free char *dir = zpath_join(root, id);
  cleanup_free char *meta_path = zpath_join(dir, "metadata.json");
  type_counts tc = {json_object(), 0, json_array()};
  zerr err = ZERR_INIT;
  int code = ZEXIT_SUCCESS;
  json_t *meta = NULL;
  if (zsession_for_each_event(root, id, count_event, &tc, count_warning, &err) < 0) {
    fprintf(stderr, "[zero] %s\n", err.msg);
    code = code_for_err(&err);
    goto out;
  }
  meta = zjson_load_file(meta_path, &err);
  if (!meta || !json_is_object(meta)) {
    fprintf(stderr, "[zero] cannot read session %s metadata: %s\n", id,
            meta ? "not a JSON object" : err.msg);
    code = ZEXIT_INTERNAL;
    goto out;
  }
  if (json) {
    json_t *doc = json_object();
    json_object_set(doc, "metadata", meta);
    json_t *events = json_object();
    json_object_set_new(events, "count", json_integer(tc.total));
    json_object_set(events, "byType", tc.by_type);
    json_object_set_new(doc, "events", events);
    json_object_set(doc, "warnings", tc.warnings);
    print_json(doc);
    json_decref(doc);
  } else {
    print_warnings(tc.warnings);
    printf("Session %s\n", id);
    const char *key;
    json_t *v;
    json_object_foreach(meta, key, v) {
      if (!strcmp(key, "sessionId") || !strcmp(key, "taskState")) continue;
      if (json_is_string(v)) {
        printf("  %s: %s\n", key, json_string_value(v));
      } else {
        cleanup_free char *s = zjson_dumps(v);
        printf("  %s: %s\n", key, s);
      }
    }
    const json_t *ts = json_object_get(meta, "taskState");
    if (json_is_object(ts)) {
      printf("Task:\n");
      const char *obj = zjson_str(ts, "objective");
      if (obj) printf("  objective: %s\n", obj);
      size_t i;
      json_t *it;
      if (json_array_size(json_object_get(ts, "plan"))) printf("  plan:\n");
      json_array_foreach(json_object_get(ts, "plan"), i, it)
        printf("    [%s] %s\n", zjson_str_or(it, "status", "pending"), zjson_str_or(it, "step", ""));
      const json_t *tcalls = json_object_get(ts, "toolCalls");
      printf("  tool calls: %lld ok, %lld failed\n", (long long)zjson_int_or(tcalls, "ok", 0),
             (long long)zjson_int_or(tcalls, "failed", 0));
      if (json_array_size(json_object_get(ts, "changedFiles"))) {
        printf("  changed files:\n");
        json_array_foreach(json_object_get(ts, "changedFiles"), i, it)
          printf("    %s\n", json_string_value(it));
      }
    }
    printf("Events (%lld):\n", (long long)tc.total);
    /* Sorted by type name so the summary reads the same every time. */
    ZVEC(const char *) types = ZVEC_INIT;
    json_object_foreach(tc.by_type, key, v) zvec_push(&types, key);
    for (size_t i = 1; i < types.len; i++)
      for (size_t j = i; j > 0 && strcmp(types.items[j - 1], types.items[j]) > 0; j--) {
        const char *t = types.items[j];
        types.items[j] = types.items[j - 1];
        types.items[j - 1] = t;
      }
    for (size_t i = 0; i < types.len; i++)
      printf("  %s: %lld\n", types.items[i],
             (long long)json_integer_value(json_object_get(tc.by_type, types.items[i])));
    zvec_free(&types);
  }
out:
  json_decref(meta);
  json_decref(tc.by_type);
  json_decref(tc.warnings);
  return code;
}

/* ---- tree / lineage ---------------------------------------------------- */

static json_t *load_all(const char *root) {
  zerr err = ZERR_INIT;
  json_t *all = zsession_list(root, NULL, &err);
  if (!all) fprintf(stderr, "[zero] %s\n", err.msg);
  return all;
}

static const json_t *find_meta(const json_t *all, const char *id) {
  size_t i;
  json_t *m;
  json_array_foreach(all, i, m) if (!strcmp(zjson_str_or(m, "sessionId", ""), id)) return m;
  return NULL;
}

static int not_found(const char *id) {
  fprintf(stderr, "[zero] session %s not found; run `zero sessions list` to see saved sessions\n",
          id);
  return ZEXIT_USAGE;
}

/* Every saved session's metadata into *all (caller decrefs), provided id
 * is among them (*meta = its entry, when meta is non-NULL). 0, or the exit
 * status to return: internal error, or "not found" said on stderr. */
static int load_with(const char *root, const char *id, json_t **all, const json_t **meta) {
  *all = load_all(root);
  if (!*all) return ZEXIT_INTERNAL;
  const json_t *m = find_meta(*all, id);
  if (!m) {
    json_decref(*all);
    *all = NULL;
    return not_found(id);
  }
  if (meta) *meta = m;
  return 0;
}

static int run_lineage(const char *id, bool json) {
  cleanup_free char *root = zsession_root();
  json_t *all;
  int rc = load_with(root, id, &all, NULL);
  if (rc) return rc;
  json_t *chain = json_array();
  const char *cur = id;
  /* Walk parents; the bound guards against a cycle in edited metadata. */
  for (int guard = 0; cur && guard < 1000; guard++) {
    json_array_insert_new(chain, 0, json_string(cur));
    const json_t *m = find_meta(all, cur);
    cur = m ? zjson_str(m, "parentSessionId") : NULL;
  }
  if (json) {
    print_json(chain);
  } else {
    size_t i;
    json_t *v;
    json_array_foreach(chain, i, v) printf("%s%s", i ? " -> " : "", json_string_value(v));
    printf("\n");
  }
  json_decref(chain);
  json_decref(all);
  return ZEXIT_SUCCESS;
}

/* The sessions whose parent is id (forks, side and child sessions), most
 * recently updated first, in the list's format (Go zero's `children`). */
static int run_children(const char *id, bool json) {
  cleanup_free char *root = zsession_root();
  json_t *all;
  int rc = load_with(root, id, &all, NULL);
  if (rc) return rc;
  json_t *kids = json_array();
  size_t i;
  json_t *m;
  json_array_foreach(all, i, m) {
    const char *parent = zjson_str(m, "parentSessionId");
    if (parent && !strcmp(parent, id)) json_array_append(kids, m);
  }
  print_sessions(root, kids, json);
  json_decref(kids);
  json_decref(all);
  return ZEXIT_SUCCESS;
}

static json_t *tree_node(const json_t *all, const char *id, int depth) {
  json_t *node = json_object();
  const json_t *m = find_meta(all, id);
  json_object_set_new(node, "sessionId", json_string(id));
  const char *kind = m ? zjson_str(m, "sessionKind") : NULL;
  if (kind) json_object_set_new(node, "sessionKind", json_string(kind));
  json_t *kids = json_array();
  size_t i;
  json_t *c;
  if (depth < 64)
    json_array_foreach(all, i, c) {
      const char *parent = zjson_str(c, "parentSessionId");
      if (parent && !strcmp(parent, id))
        json_array_append_new(kids, tree_node(all, zjson_str(c, "sessionId"), depth + 1));
    }
  json_object_set_new(node, "children", kids);
  return node;
}

static void print_tree(const json_t *node, int depth) {
  const char *kind = zjson_str(node, "sessionKind");
  printf("%*s%s%s%s%s\n", 2 * (depth + 1), "", zjson_str_or(node, "sessionId", "?"),
         kind ? " [" : "", kind ? kind : "", kind ? "]" : "");
  size_t i;
  json_t *c;
  json_array_foreach(json_object_get(node, "children"), i, c) print_tree(c, depth + 1);
}

static int run_tree(const char *id, bool json) {
  cleanup_free char *root = zsession_root();
  json_t *all;
  const json_t *m;
  int rc = load_with(root, id, &all, &m);
  if (rc) return rc;
  /* The tree of the whole family: from the root session down. */
  const char *top = zjson_str(m, "rootSessionId");
  if (!top || !find_meta(all, top)) top = id;
  json_t *tree = tree_node(all, top, 0);
  if (json) {
    print_json(tree);
  } else {
    printf("Zero session tree:\n");
    print_tree(tree, 0);
  }
  json_decref(tree);
  json_decref(all);
  return ZEXIT_SUCCESS;
}

/* ---- delete / fork / rewind --------------------------------------------- */

/* The shared map, where an unknown or malformed session is the user's
 * mistake (a usage error), not an internal one. */
static int code_for_err(const zerr *err) {
  return err->kind == ZE_NOT_FOUND || err->kind == ZE_INVALID ? ZEXIT_USAGE
                                                               : zexit_for_error(err->kind);
}

static int run_delete(const char *id, bool json) {
  cleanup_free char *root = zsession_root();
  zerr err = ZERR_INIT;
  if (zsession_delete(root, id, &err) < 0) {
    fprintf(stderr, "[zero] %s\n", err.msg);
    return code_for_err(&err);
  }
  if (json) {
    json_t *o = json_pack("{s:s, s:b}", "sessionId", id, "deleted", 1);
    print_json(o);
    json_decref(o);
  } else {
    printf("Deleted session %s.\n", id);
  }
  return ZEXIT_SUCCESS;
}

static bool parse_seq(const char *v, int64_t *out) {
  if (!v) return false;
  /* Accept "<sessionId>:<seq>" event ids as well as bare numbers. */
  const char *colon = strrchr(v, ':');
  if (colon) v = colon + 1;
  char *end;
  long long n = strtoll(v, &end, 10);
  if (!*v || *end || n < 0) return false;
  *out = n;
  return true;
}

static int run_fork(const char *id, const char *at, const char *kind, bool json) {
  int64_t upto = 0;
  if (at && !parse_seq(at, &upto)) return usage_error("--at needs an event sequence number");
  cleanup_free char *root = zsession_root();
  zerr err = ZERR_INIT;
  zsession *s = zsession_fork(root, id, upto, kind ? kind : "fork", &err);
  if (!s) {
    fprintf(stderr, "[zero] %s\n", err.msg);
    return code_for_err(&err);
  }
  if (json) print_json(s->meta);
  else printf("Forked %s into %s (%lld events). Continue it with: zero exec --resume %s \"…\"\n",
              id, s->id, (long long)s->sequence, s->id);
  zsession_close(s);
  return ZEXIT_SUCCESS;
}

/* After a rewind the saved task state is rebuilt from what is left of the
 * log, so it keeps no files changed or plan steps made after the point. */
static void refresh_task_state(const char *root, const char *id) {
  zerr err = ZERR_INIT;
  zsession *s = zsession_open(root, id, &err);
  ztask_state t;
  ztask_init(&t);
  if (!s || ztask_replay(&t, root, id, &err) < 0 ||
      zsession_set_meta(s, "taskState", ztask_to_json(&t), &err) < 0)
    fprintf(stderr, "[zero] WARNING: the session's task state was not updated after the rewind "
            "(%s); it may list files changed after the rewind point\n", err.msg);
  ztask_release(&t);
  if (s) zsession_close(s);
}

/* The kinds a session can have (metadata sessionKind; "regular" = none). */
static const char *const SESSION_KINDS[] = {"regular", "fork", "side", "child", "spec", NULL};

/* --kind checked: for list any session kind, for fork the kinds a fork can
 * take. An unknown kind is a usage error naming the choices (it used to
 * list nothing). 0 when fine. */
static int check_kind(const char *sub, const char *kind) {
  if (!kind) return 0;
  bool fork = !strcmp(sub, "fork");
  for (const char *const *k = SESSION_KINDS; *k; k++)
    if (!strcmp(*k, kind) && (!fork || !strcmp(kind, "fork") || !strcmp(kind, "side"))) return 0;
  const char *near = zconfig_nearest_key(kind, SESSION_KINDS);
  return usage_error("invalid --kind \"%s\"%s%s%s; expected %s", kind,
                     near ? " (did you mean \"" : "", near ? near : "", near ? "\"?)" : "",
                     fork ? "fork or side" : "regular, fork, side, child or spec");
}

/* The rewind target of --to / --sequence / --event (at most one), moved
 * one event back by --exclude-target. NULL target: usage error written. */
typedef struct rewind_target {
  const char *to, *sequence, *event;
  bool exclude_target;
} rewind_target;

static int rewind_seq(const char *id, const rewind_target *t, int64_t *seq) {
  const char *v = t->to ? t->to : t->sequence ? t->sequence : t->event;
  int given = !!t->to + !!t->sequence + !!t->event;
  if (given > 1) return usage_error("give one of --to, --sequence and --event");
  if (!v)
    return usage_error("rewind needs --to SEQ (or --sequence SEQ, --event ID; see "
                       "`zero sessions show %s`)",
                       id);
  if (!parse_seq(v, seq))
    return usage_error("%s needs an event sequence number, not \"%s\"",
                       t->event      ? "--event"
                       : t->sequence ? "--sequence"
                                     : "--to",
                       v);
  if (t->exclude_target) {
    if (*seq < 1) return usage_error("--exclude-target needs a target after the first event");
    (*seq)--;
  }
  return 0;
}

static int run_rewind(const char *id, const rewind_target *t, bool dry_run, bool json) {
  int64_t seq = 0;
  int urc = rewind_seq(id, t, &seq);
  if (urc) return urc;
  cleanup_free char *root = zsession_root();
  zerr err = ZERR_INIT;
  json_t *plan = NULL;
  /* The plan is always computed and shown first. */
  if (zsession_rewind(root, id, seq, true, &plan, &err) < 0) {
    fprintf(stderr, "[zero] %s\n", err.msg);
    return code_for_err(&err);
  }
  if (!json) {
    printf("Rewind %s to event %lld (removes %lld events):\n", id, (long long)seq,
           (long long)zjson_int_or(plan, "removedEvents", 0));
    size_t i;
    json_t *r;
    json_array_foreach(json_object_get(plan, "restore"), i, r)
      printf("  %s %s\n", !strcmp(zjson_str_or(r, "action", ""), "delete") ? "delete " : "restore",
             zjson_str_or(r, "path", ""));
    json_array_foreach(json_object_get(plan, "notRestorable"), i, r) {
      if (zjson_str(r, "path"))
        printf("  NOT RESTORABLE %s: %s\n", zjson_str(r, "path"), zjson_str_or(r, "reason", ""));
      else
        printf("  NOT RESTORABLE: event %lld ran `%s`; %s\n",
               (long long)zjson_int_or(r, "sequence", 0), zjson_str_or(r, "command", ""),
               zjson_str_or(r, "reason", ""));
    }
    if (!json_array_size(json_object_get(plan, "restore")))
      printf("  (no files to restore)\n");
  }
  if (dry_run) {
    if (json) print_json(plan);
    else printf("Dry run: nothing was changed.\n");
    json_decref(plan);
    return ZEXIT_SUCCESS;
  }
  json_decref(plan);
  plan = NULL;
  if (zsession_rewind(root, id, seq, false, &plan, &err) < 0) {
    fprintf(stderr, "[zero] rewind failed: %s\n", err.msg);
    return code_for_err(&err);
  }
  refresh_task_state(root, id);
  if (json) print_json(plan);
  else printf("Rewound.\n");
  json_decref(plan);
  return ZEXIT_SUCCESS;
}

/* What cmd_sessions parsed: the flags every subcommand reads. */
typedef struct sessions_args {
  bool json, dry_run;
  const char *kind, *at;
  rewind_target target; /* --to / --sequence / --event, --exclude-target */
} sessions_args;

static int list_cmd(void *ctx, int argc, char **argv) {
  const sessions_args *a = ctx;
  if (argc > 0) return usage_error("unexpected argument \"%s\"", argv[0]);
  return run_list(a->json, a->kind);
}

static int show_cmd(void *ctx, int argc, char **argv) {
  const sessions_args *a = ctx;
  if (argc < 1) return usage_error("show needs a session id");
  if (argc > 1) return usage_error("unexpected argument \"%s\"", argv[1]);
  return run_show(argv[0], a->json);
}

/* The one session id the subcommands below take, checked; NULL, with *rc
 * the exit code of the message printed, when there is none. */
static const char *one_id(const char *sub, int argc, char **argv, int *rc) {
  if (argc < 1) *rc = usage_error("%s needs a session id", sub);
  else if (argc > 1) *rc = usage_error("unexpected argument \"%s\"", argv[1]);
  else if (!zsession_id_valid(argv[0])) *rc = not_found(argv[0]);
  else return argv[0];
  return NULL;
}

/* A subcommand that takes one session id and --json: its words checked,
 * then run(id, json). */
static int with_id(const char *sub, int (*run)(const char *id, bool json), void *ctx, int argc,
                   char **argv) {
  int rc = ZEXIT_USAGE;
  const char *id = one_id(sub, argc, argv, &rc);
  return id ? run(id, ((const sessions_args *)ctx)->json) : rc;
}

static int children_cmd(void *ctx, int argc, char **argv) {
  return with_id("children", run_children, ctx, argc, argv);
}

static int tree_cmd(void *ctx, int argc, char **argv) {
  return with_id("tree", run_tree, ctx, argc, argv);
}

static int lineage_cmd(void *ctx, int argc, char **argv) {
  return with_id("lineage", run_lineage, ctx, argc, argv);
}

static int delete_cmd(void *ctx, int argc, char **argv) {
  return with_id("delete", run_delete, ctx, argc, argv);
}

static int fork_cmd(void *ctx, int argc, char **argv) {
  const sessions_args *a = ctx;
  int rc = ZEXIT_USAGE;
  const char *id = one_id("fork", argc, argv, &rc);
  return id ? run_fork(id, a->at, a->kind, a->json) : rc;
}

static int rewind_cmd(void *ctx, int argc, char **argv) {
  const sessions_args *a = ctx;
  int rc = ZEXIT_USAGE;
  const char *id = one_id("rewind", argc, argv, &rc);
  return id ? run_rewind(id, &a->target, a->dry_run, a->json) : rc;
}

/* Go zero's `rewind-plan`: rewind --dry-run. */
static int rewind_plan_cmd(void *ctx, int argc, char **argv) {
  const sessions_args *a = ctx;
  int rc = ZEXIT_USAGE;
  const char *id = one_id("rewind-plan", argc, argv, &rc);
  return id ? run_rewind(id, &a->target, true, a->json) : rc;
}

/* The usage lines (usage()) and completion come from this table. */
static const zcli_subcommand SESSIONS_SUBS[] = {
    {"list", NULL, list_cmd, "[list] [--json] [--kind KIND]"},
    {"show", NULL, show_cmd, "show <id> [--json]"},
    {"children", NULL, children_cmd, "children <id> [--json]"},
    {"tree", NULL, tree_cmd, "tree <id> [--json]"},
    {"lineage", NULL, lineage_cmd, "lineage <id> [--json]"},
    {"delete", NULL, delete_cmd, "delete <id> [--json]"},
    {"fork", NULL, fork_cmd, "fork <id> [--at SEQ] [--kind fork|side] [--json]"},
    {"rewind", NULL, rewind_cmd, "rewind <id> --to SEQ [--dry-run] [--json]"},
    {"rewind-plan", NULL, rewind_plan_cmd, "rewind-plan <id> --to SEQ [--json]   (= rewind --dry-run)"},
};

const zcli_subcommands zcli_sessions_subs = {SESSIONS_SUBS, ZARRAY_LEN(SESSIONS_SUBS)};

/* `zero sessions` with no word lists. */
static const zcli_dispatch_spec SESSIONS_DISPATCH = {.subs = &zcli_sessions_subs,
                                                     .usage = usage,
                                                     .command = "sessions",
                                                     .unknown = "unknown sessions subcommand",
                                                     .implicit = list_cmd};

int cmd_sessions(int argc, char **argv) {
  sessions_args a = {0};
  char *positional[3] = {NULL, NULL, NULL};
  int npos = 0;
  zopt_parser op;
  zopt_hit hit;
  zerr perr = ZERR_INIT;
  int prc;
  zopt_init(&op, &zcli_sessions_opts, argc, argv);
  while ((prc = zopt_next(&op, &hit, &perr)) > 0) {
    switch (hit.id) {
      case SS_HELP: usage(stdout); return ZEXIT_SUCCESS;
      case SS_JSON: a.json = true; break;
      case SS_DRY_RUN: a.dry_run = true; break;
      case SS_KIND: a.kind = hit.value; break;
      case SS_AT: a.at = hit.value; break;
      case SS_TO: a.target.to = hit.value; break;
      case SS_SEQUENCE: a.target.sequence = hit.value; break;
      case SS_EVENT: a.target.event = hit.value; break;
      case SS_EXCLUDE_TARGET: a.target.exclude_target = true; break;
      default:
        if (npos == 3) return usage_error("unexpected argument \"%s\"", hit.value);
        positional[npos++] = (char *)hit.value; /* a word of argv itself */
    }
  }
  if (prc < 0) return usage_error("%s", perr.msg);
  const char *name = npos ? positional[0] : "list";
  int krc = zcli_help_word(name) ? 0 : check_kind(name, a.kind);
  return krc ? krc : zcli_dispatch(&SESSIONS_DISPATCH, &a, npos, positional);
}
