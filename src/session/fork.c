/* fork.c — fork, side and child sessions; see zsession_fork in store.h.
 *
 * A fork is a new session whose log starts with a renumbered copy of the
 * parent's events, so it resumes exactly like the parent would have at the
 * fork point; afterwards the two histories are independent. The copy streams
 * (one event in memory at a time) and skips provider_usage: the tokens were
 * spent by the parent, and summing usage over a fork must not count them
 * twice.
 */
#include <string.h>

#include "base/buf.h"
#include "base/common.h"
#include "base/json.h"
#include "base/path.h"
#include "session/store.h"

typedef struct fork_copy {
  zsession *child;
  int64_t upto;
  int64_t parent_count;  /* events seen in the parent (up to the fork point) */
  int64_t copied;
  int64_t last_seq;      /* parent sequence of the last event at the fork point */
  zerr *err;
} fork_copy;

static int copy_event(void *ud, const json_t *ev) {
  fork_copy *fc = ud;
  int64_t seq = zjson_int_or(ev, "sequence", 0);
  if (fc->upto > 0 && seq > fc->upto) return 1; /* past the fork point: stop */
  fc->parent_count++;
  fc->last_seq = seq;
  const char *type = zjson_str(ev, "type");
  if (!type || !strcmp(type, "provider_usage")) return 0;
  if (zsession_append(fc->child, type, json_object_get(ev, "payload"), fc->err) < 0) return -1;
  fc->copied++;
  return 0;
}

static bool kind_valid(const char *kind) {
  return kind && (!strcmp(kind, "fork") || !strcmp(kind, "side") || !strcmp(kind, "child"));
}

zsession *zsession_fork(const char *root, const char *parent_id, int64_t upto, const char *kind,
                        zerr *err) {
  if (!kind_valid(kind)) {
    zerr_set(err, ZE_USAGE, "unknown session kind \"%s\": use fork, side or child",
             kind ? kind : "");
    return NULL;
  }
  if (!zsession_id_valid(parent_id)) {
    zerr_set(err, ZE_USAGE, "invalid session id \"%s\"; run `zero sessions list` to see saved "
             "sessions", parent_id ? parent_id : "");
    return NULL;
  }
  cleanup_free char *dir = zpath_join(root, parent_id);
  cleanup_free char *meta_path = zpath_join(dir, "metadata.json");
  zerr lerr = ZERR_INIT;
  json_t *pmeta = zjson_load_file(meta_path, &lerr);
  if (!json_is_object(pmeta)) {
    json_decref(pmeta);
    zerr_set(err, ZE_NOT_FOUND, "session %s not found in %s (%s); run `zero sessions list` to "
             "see saved sessions", parent_id, root, lerr.msg);
    return NULL;
  }
  zsession *child = zsession_create(root, zjson_str(pmeta, "cwd"), zjson_str(pmeta, "provider"),
                                    zjson_str(pmeta, "modelId"), zjson_str(pmeta, "title"), err);
  if (!child) {
    json_decref(pmeta);
    return NULL;
  }
  fork_copy fc = {.child = child, .upto = upto, .err = err};
  int rc = zsession_for_each_event(root, parent_id, copy_event, &fc, NULL, err);
  if (rc < 0) goto fail;
  if (upto > 0 && fc.last_seq < upto) {
    zerr_set(err, ZE_USAGE, "session %s has no event %lld (it has %lld); see `zero sessions show "
             "%s`", parent_id, (long long)upto, (long long)fc.last_seq, parent_id);
    goto fail;
  }

  char from_id[192];
  snprintf(from_id, sizeof from_id, "%s:%lld", parent_id, (long long)fc.last_seq);
  json_t *p = json_object();
  json_object_set_new(p, "parentSessionId", json_string(parent_id));
  json_object_set_new(p, "parentEventCount", json_integer(fc.parent_count));
  json_object_set_new(p, "copiedEventCount", json_integer(fc.copied));
  json_object_set_new(p, "forkedFromEventId", json_string(from_id));
  json_object_set_new(p, "forkedFromSequence", json_integer(fc.last_seq));
  json_object_set_new(p, "sessionKind", json_string(kind));
  rc = zsession_append(child, "session_fork", p, err);
  json_decref(p);
  if (rc < 0) goto fail;

  json_t *m = child->meta;
  const char *root_id = zjson_str(pmeta, "rootSessionId");
  json_object_set_new(m, "sessionKind", json_string(kind));
  json_object_set_new(m, "parentSessionId", json_string(parent_id));
  json_object_set_new(m, "rootSessionId", json_string(root_id ? root_id : parent_id));
  json_object_set_new(m, "depth", json_integer(zjson_int_or(pmeta, "depth", 0) + 1));
  json_object_set_new(m, "forkedFromEventId", json_string(from_id));
  json_object_set_new(m, "forkedFromSequence", json_integer(fc.last_seq));
  json_t *ts = json_object_get(pmeta, "taskState");
  if (ts) json_object_set(m, "taskState", ts);
  json_decref(pmeta);
  pmeta = NULL;
  if (zsession_flush(child, err) < 0 || zsession_set_meta(child, "lastEventType",
                                                          json_string("session_fork"), err) < 0)
    goto fail;
  return child;

fail:
  json_decref(pmeta);
  {
    /* Leave no half-made fork behind. */
    char *cdir = xstrdup(child->dir);
    zsession_close(child);
    zsession_remove_dir(cdir);
    free(cdir);
  }
  return NULL;
}
