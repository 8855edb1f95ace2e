/* hooks.c — hook definitions and their loader; see hooks.h. */
#include "ext/hooks.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/common.h"
#include "base/fs.h"
#include "base/json.h"

/* Go zero's names, then the Claude Code name accepted for each (NULL when
 * Claude Code has none). */
static const struct {
  const char *name, *alias;
} EVENTS[] = {
    {"sessionStart", "SessionStart"},   {"sessionEnd", "SessionEnd"},
    {"userPromptSubmit", "UserPromptSubmit"}, {"beforeTool", "PreToolUse"},
    {"afterTool", "PostToolUse"},       {"afterToolFailure", "PostToolUseFailure"},
    {"afterToolBatch", NULL},           {"beforeCompact", "PreCompact"},
    {"afterCompact", NULL},             {"stop", "Stop"},
    {"subagentStop", "SubagentStop"},   {"notification", "Notification"},
};

static const char *const EVENT_NAMES[] = {
    "sessionStart", "sessionEnd", "userPromptSubmit", "beforeTool", "afterTool",
    "afterToolFailure", "afterToolBatch", "beforeCompact", "afterCompact", "stop",
    "subagentStop", "notification", NULL};

const char *zhook_event_canonical(const char *name) {
  if (!name) return NULL;
  for (size_t i = 0; i < ZARRAY_LEN(EVENTS); i++)
    if (!strcmp(name, EVENTS[i].name) || (EVENTS[i].alias && !strcmp(name, EVENTS[i].alias)))
      return EVENTS[i].name;
  return NULL;
}

bool zhook_event_gating(const char *canonical) {
  return canonical && (!strcmp(canonical, "beforeTool") || !strcmp(canonical, "userPromptSubmit"));
}

const char *const *zhook_events(void) { return EVENT_NAMES; }

static void problem(zhooks *hs, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void problem(zhooks *hs, const char *fmt, ...) {
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  strvec_push(&hs->problems, msg);
}

static zhook *hook_push(zhooks *hs) {
  ZALLOC_GROW(hs->v, hs->n, hs->cap, 8);
  zhook *h = &hs->v[hs->n++];
  memset(h, 0, sizeof *h);
  return h;
}

/* argv for a command and its optional args array: direct when args are
 * given (or the command has no blank), else through /bin/sh -c. */
static char **hook_argv(const char *command, const json_t *args) {
  strvec v = STRVEC_INIT;
  if (json_is_array(args) || !strpbrk(command, " \t\n;|&$<>`'\"")) {
    strvec_push(&v, command);
    size_t i;
    json_t *a;
    json_array_foreach(args, i, a) {
      if (json_is_string(a)) strvec_push(&v, json_string_value(a));
    }
  } else {
    strvec_pushl(&v, "/bin/sh", "-c", command, NULL);
  }
  return strvec_detach(&v);
}

/* One hook entry (Go zero's object); event given when the entry sits under
 * a Claude Code event key. Returns 1 when a hook was added. */
static int add_entry(zhooks *hs, const json_t *e, const char *event_given, const char *matcher,
                     const char *source, bool project, size_t index) {
  if (!json_is_object(e)) {
    problem(hs, "%s: hook %zu is not an object; write {\"event\": …, \"command\": …}", source,
            index + 1);
    return 0;
  }
  if (!zjson_bool_or(e, "enabled", true)) return 0;
  const char *ev_name = event_given ? event_given : zjson_str(e, "event");
  const char *event = zhook_event_canonical(ev_name);
  const char *command = zjson_str(e, "command");
  const char *id = zjson_str(e, "id");
  if (!event) {
    problem(hs, "%s: hook %s has unknown event \"%s\"; use one of sessionStart, sessionEnd, "
                "userPromptSubmit, beforeTool, afterTool, afterToolFailure, afterToolBatch, "
                "beforeCompact, afterCompact, stop, subagentStop, notification",
            source, id ? id : "", ev_name ? ev_name : "(none)");
    return 0;
  }
  const char *type = zjson_str(e, "type");
  if (type && strcmp(type, "command") != 0) {
    problem(hs, "%s: hook %s has type \"%s\"; only \"command\" hooks run in zero", source,
            id ? id : "", type);
    return 0;
  }
  if (!command || !*command) {
    problem(hs, "%s: hook %s (%s) has no \"command\"; give the program to run", source,
            id ? id : "", event);
    return 0;
  }
  zhook *h = hook_push(hs);
  char idbuf[64];
  snprintf(idbuf, sizeof idbuf, "%s#%zu", event, index + 1);
  h->id = xstrdup(id && *id ? id : idbuf);
  h->event = event;
  h->argv = hook_argv(command, json_object_get(e, "args"));
  int64_t t = zjson_int_or(e, "timeoutMs", 0);
  if (t <= 0) t = zjson_int_or(e, "timeout", 0) * 1000; /* Claude Code: seconds */
  h->timeout_ms = t > 0 && t < 3600000 ? (int)t : ZHOOK_DEFAULT_TIMEOUT_MS;
  const char *m = zjson_str(e, "matcher");
  if (!m) m = matcher;
  h->matcher = m && *m ? xstrdup(m) : NULL;
  h->source = xstrdup(source);
  h->project = project;
  return 1;
}

/* Claude Code's shape: {"PreToolUse": [{"matcher", "hooks": [...]}]}. */
static size_t load_claude(zhooks *hs, const json_t *byevent, const char *source, bool project) {
  size_t added = 0, index = 0;
  const char *key;
  json_t *groups;
  json_object_foreach((json_t *)byevent, key, groups) {
    if (!zhook_event_canonical(key)) {
      problem(hs, "%s: unknown hook event \"%s\"; see docs/extensions.md for the event names",
              source, key);
      continue;
    }
    size_t gi;
    json_t *g;
    json_array_foreach(groups, gi, g) {
      const char *matcher = zjson_str(g, "matcher");
      size_t hi;
      json_t *e;
      json_array_foreach(json_object_get(g, "hooks"), hi, e) {
        added += (size_t)add_entry(hs, e, key, matcher, source, project, index++);
      }
    }
  }
  return added;
}

size_t zhooks_load_json(zhooks *hs, const json_t *hooks, const char *source, bool project) {
  if (json_is_object(hooks)) return load_claude(hs, hooks, source, project);
  if (!json_is_array(hooks)) {
    if (hooks)
      problem(hs, "%s: \"hooks\" must be an array of hooks (or Claude Code's object by event)",
              source);
    return 0;
  }
  size_t added = 0, i;
  json_t *e;
  json_array_foreach(hooks, i, e) added += (size_t)add_entry(hs, e, NULL, NULL, source, project, i);
  return added;
}

size_t zhooks_load_file(zhooks *hs, const char *path, bool project) {
  if (!zfs_exists(path)) return 0;
  zerr err = ZERR_INIT;
  json_t *doc = zjson_load_file(path, &err);
  if (!doc) {
    problem(hs, "%s; fix the JSON (the other hooks still load)", err.msg);
    return 0;
  }
  size_t added = 0;
  if (!json_is_object(doc))
    problem(hs, "%s: expected an object {\"enabled\": true, \"hooks\": [...]}", path);
  else if (zjson_bool_or(doc, "enabled", true))
    added = zhooks_load_json(hs, json_object_get(doc, "hooks"), path, project);
  json_decref(doc);
  return added;
}

bool zhook_matches(const zhook *h, const char *tool) {
  if (!h->matcher || !tool || !strcmp(h->matcher, "*") || !*h->matcher) return true;
  /* "a|b|c": any of the names (Claude Code's matchers are mostly that). */
  size_t tl = strlen(tool);
  for (const char *p = h->matcher; *p;) {
    size_t len = strcspn(p, "|");
    if (len == tl && !strncmp(p, tool, len)) return true;
    p += len;
    if (*p == '|') p++;
  }
  return false;
}

json_t *zhook_json(const zhook *h) {
  json_t *argv = json_array();
  for (char **a = h->argv; a && *a; a++) json_array_append_new(argv, json_string(*a));
  json_t *o = json_pack("{s:s, s:s, s:o, s:i, s:s, s:s}", "id", h->id, "event", h->event,
                        "command", argv, "timeoutMs", h->timeout_ms, "source", h->source,
                        "scope", h->project ? "project" : "user");
  if (h->matcher) json_object_set_new(o, "matcher", json_string(h->matcher));
  return o;
}

void zhooks_release(zhooks *hs) {
  for (size_t i = 0; i < hs->n; i++) {
    free(hs->v[i].id);
    strvec_free_array(hs->v[i].argv);
    free(hs->v[i].matcher);
    free(hs->v[i].source);
  }
  free(hs->v);
  strvec_clear(&hs->problems);
  memset(hs, 0, sizeof *hs);
}
