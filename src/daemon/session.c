/* session.c — the daemon's session table; see session.h. */
#include "daemon/session.h"

#include <stdlib.h>
#include <string.h>

#include "base/common.h"
#include "base/strvec.h"

const char *zdmn_state_name(zdmn_state s) {
  switch (s) {
    case ZDMN_QUEUED: return "queued";
    case ZDMN_RUNNING: return "running";
    case ZDMN_DONE: return "done";
    case ZDMN_FAILED: return "failed";
    default: return "unknown";
  }
}

zdmn_session *zdmn_sessions_find(const zdmn_sessions *t, const char *id) {
  for (size_t i = 0; i < t->n; i++)
    if (!strcmp(t->v[i]->id, id)) return t->v[i];
  return NULL;
}

static void session_free(zdmn_session *s) {
  free(s->id);
  free(s->cwd);
  free(s->prompt);
  strvec_free_array(s->args);
  zdmn_replay_release(&s->replay);
  if (s->has_worker) zdmn_worker_release(&s->worker);
  free(s->reason);
  free(s->schedule);
  free(s->subs);
  free(s);
}

/* Drops the session that finished first; false when none has finished. */
static bool drop_oldest_finished(zdmn_sessions *t) {
  size_t best = t->n;
  for (size_t i = 0; i < t->n; i++) {
    uint64_t f = t->v[i]->finished_seq;
    if (f && (best == t->n || f < t->v[best]->finished_seq)) best = i;
  }
  if (best == t->n) return false;
  session_free(t->v[best]);
  // NOLINTNEXTLINE(bugprone-sizeof-expression): a vector of pointers
  memmove(&t->v[best], &t->v[best + 1], (t->n - best - 1) * sizeof *t->v);
  t->n--;
  return true;
}

zdmn_session *zdmn_sessions_add(zdmn_sessions *t, const char *id, const char *cwd,
                                const char *prompt, char *const *args, zerr *err) {
  if (zdmn_sessions_find(t, id)) {
    zerr_set(err, ZE_USAGE, "session %s already exists: choose another id", id);
    return NULL;
  }
  if (t->n >= ZDMN_SESSIONS_KEPT && !drop_oldest_finished(t)) {
    zerr_set(err, ZE_TOO_LARGE, "%d sessions are queued or running: wait for some to finish",
             ZDMN_SESSIONS_KEPT);
    return NULL;
  }
  // NOLINTNEXTLINE(bugprone-sizeof-expression): a vector of pointers
  ZALLOC_GROW(t->v, t->n, t->cap, 16);
  zdmn_session *s = xcalloc(1, sizeof *s);
  s->id = xstrdup(id);
  s->cwd = cwd ? xstrdup(cwd) : NULL;
  s->prompt = prompt ? xstrdup(prompt) : NULL;
  s->args = strvec_dup_array(args);
  s->state = ZDMN_QUEUED;
  s->seq = ++t->next_seq;
  zdmn_replay_init(&s->replay, ZDMN_REPLAY_LINES);
  t->v[t->n++] = s;
  return s;
}

void zdmn_session_finish(zdmn_sessions *t, zdmn_session *s, zdmn_state st, const char *reason) {
  s->state = st;
  s->finished_seq = ++t->next_finished;
  free(s->reason);
  s->reason = reason ? xstrdup(reason) : NULL;
}

void zdmn_session_subscribe(zdmn_session *s, struct zdmn_conn *c) {
  if (s->nsubs == s->capsubs) {
    s->capsubs = s->capsubs ? s->capsubs * 2 : 4;
    // NOLINTNEXTLINE(bugprone-sizeof-expression): a vector of pointers
    s->subs = xrealloc(s->subs, s->capsubs * sizeof *s->subs);
  }
  s->subs[s->nsubs++] = c;
}

void zdmn_session_unsubscribe(zdmn_session *s, struct zdmn_conn *c) {
  for (size_t i = 0; i < s->nsubs; i++) {
    if (s->subs[i] != c) continue;
    s->subs[i] = s->subs[--s->nsubs];
    return;
  }
}

json_t *zdmn_session_status(const zdmn_session *s) {
  json_t *o = json_pack("{s:s, s:s, s:I}", "id", s->id, "state", zdmn_state_name(s->state), "lines",
                        (json_int_t)s->replay.total);
  if (s->retry.attempts) json_object_set_new(o, "attempts", json_integer(s->retry.attempts));
  if (s->state == ZDMN_DONE || s->state == ZDMN_FAILED)
    json_object_set_new(o, "exitCode", json_integer(s->exit_code));
  if (s->reason) json_object_set_new(o, "reason", json_string(s->reason));
  return o;
}

static int by_id(const void *a, const void *b) {
  return strcmp((*(zdmn_session *const *)a)->id, (*(zdmn_session *const *)b)->id);
}

json_t *zdmn_sessions_status(const zdmn_sessions *t) {
  // NOLINTNEXTLINE(bugprone-sizeof-expression): a vector of pointers
  zdmn_session **sorted = xmalloc((t->n ? t->n : 1) * sizeof *sorted);
  // NOLINTNEXTLINE(bugprone-sizeof-expression): a vector of pointers
  if (t->n) memcpy(sorted, t->v, t->n * sizeof *sorted);
  // NOLINTNEXTLINE(bugprone-sizeof-expression): a vector of pointers
  qsort(sorted, t->n, sizeof *sorted, by_id);
  json_t *arr = json_array();
  for (size_t i = 0; i < t->n; i++) json_array_append_new(arr, zdmn_session_status(sorted[i]));
  free(sorted);
  return arr;
}

void zdmn_sessions_release(zdmn_sessions *t) {
  for (size_t i = 0; i < t->n; i++) session_free(t->v[i]);
  free(t->v);
  memset(t, 0, sizeof *t);
}
