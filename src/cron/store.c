/* store.c — cron.json (contracts in store.h). */
#include "cron/store.h"

#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/common.h"
#include "base/fs.h"
#include "base/ids.h"
#include "base/json.h"
#include "base/path.h"
#include "base/time.h"

#define STORE_VERSION 1

char *zcron_store_path(void) {
  char *dir = zpath_config_dir();
  char *p = zpath_join(dir, "cron.json");
  free(dir);
  return p;
}

bool zcron_id_valid(const char *id) { return zid_is_safe(id) && strlen(id) <= 64 && id[0] != '-'; }

/* The jobs array of doc, created when doc is an empty (new) object. NULL
 * with err when doc is not cron.json's shape. */
static json_t *jobs_of(json_t *doc, const char *path, zerr *err) {
  if (!json_is_object(doc)) {
    zerr_set(err, ZE_INVALID, "%s: expected a JSON object with a \"jobs\" array", path);
    return NULL;
  }
  json_t *jobs = json_object_get(doc, "jobs");
  if (!jobs && json_object_size(doc) == 0) {
    json_object_set_new(doc, "version", json_integer(STORE_VERSION));
    jobs = json_array();
    json_object_set_new(doc, "jobs", jobs);
  }
  size_t i;
  json_t *j;
  if (!json_is_array(jobs)) goto bad;
  json_array_foreach(jobs, i, j) {
    if (!json_is_object(j) || !zjson_str(j, "id") || !zjson_str(j, "schedule") ||
        !zjson_str(j, "prompt"))
      goto bad;
  }
  return jobs;
bad:
  zerr_set(err, ZE_INVALID,
           "%s: expected {\"jobs\": [{\"id\", \"schedule\", \"prompt\", …}]} (fix or remove the "
           "file; zero cron add writes it)",
           path);
  return NULL;
}

json_t *zcron_store_load(const char *path, zerr *err) {
  if (!zfs_exists(path)) return json_array();
  json_t *doc = zjson_load_file(path, err);
  if (!doc) return NULL;
  json_t *jobs = jobs_of(doc, path, err);
  if (jobs) json_incref(jobs);
  json_decref(doc);
  return jobs;
}

static json_t *find_job(json_t *jobs, const char *id, size_t *index) {
  size_t i;
  json_t *j;
  json_array_foreach(jobs, i, j) {
    if (!strcmp(zjson_str(j, "id"), id)) {
      if (index) *index = i;
      return j;
    }
  }
  return NULL;
}

int zcron_job_expr(const json_t *job, zcron_expr *e, zerr *err) {
  if (zcron_parse(zjson_str_or(job, "schedule", ""), e, err) == 0) return 0;
  zerr_prefix(err, "schedule %s", zjson_str_or(job, "id", "?"));
  return -1;
}

/* lastRunAt, else createdAt, else 0 (never ran, creation unknown: due). */
static time_t job_last(const json_t *job) {
  int64_t sec;
  long ns;
  if (ztime_rfc3339_parse(zjson_str(job, "lastRunAt"), &sec, &ns)) return (time_t)sec;
  if (ztime_rfc3339_parse(zjson_str(job, "createdAt"), &sec, &ns)) return (time_t)sec;
  return 0;
}

time_t zcron_job_next(const json_t *job, time_t now) {
  if (zjson_bool_or(job, "runNow", false)) return now;
  zcron_expr e;
  zerr err = ZERR_INIT;
  if (zcron_job_expr(job, &e, &err) < 0) return -1;
  time_t next = zcron_next(&e, job_last(job));
  return next < 0 ? -1 : next < now ? now : next;
}

static void stamp(json_t *obj, const char *key, time_t t) {
  struct timespec ts = {.tv_sec = t};
  char buf[ZTIME_RFC3339_LEN];
  ztime_rfc3339(&ts, buf);
  json_object_set_new(obj, key, json_string(buf));
}

typedef struct add_ctx {
  const char *path;
  json_t *job;
} add_ctx;

static int add_fn(json_t **doc, void *ud, zerr *err) {
  add_ctx *a = ud;
  json_t *jobs = jobs_of(*doc, a->path, err);
  if (!jobs) return -1;
  const char *id = zjson_str(a->job, "id");
  if (find_job(jobs, id, NULL))
    return zerr_set(err, ZE_USAGE, "a schedule named %s exists (zero cron remove %s first)", id,
                    id);
  json_array_append(jobs, a->job);
  return 0;
}

int zcron_store_add(const char *path, json_t *job, zerr *err) {
  const char *id = zjson_str(job, "id");
  if (!zcron_id_valid(id))
    return zerr_set(err, ZE_USAGE,
                    "a schedule id is 1 to 64 letters, digits, '.', '_' or '-', not \"%s\"",
                    id ? id : "");
  zcron_expr e;
  if (zcron_job_expr(job, &e, err) < 0) return -1;
  if (!zjson_str(job, "prompt") || !*zjson_str(job, "prompt"))
    return zerr_set(err, ZE_USAGE, "a schedule needs a prompt");
  if (!zjson_str(job, "createdAt")) stamp(job, "createdAt", time(NULL));
  if (!json_object_get(job, "runs")) json_object_set_new(job, "runs", json_integer(0));
  add_ctx a = {path, job};
  return zjson_update_file(path, JSON_PRESERVE_ORDER, 0600, add_fn, &a, err) < 0 ? -1 : 0;
}

typedef struct remove_ctx {
  const char *path, *id;
} remove_ctx;

static int remove_fn(json_t **doc, void *ud, zerr *err) {
  remove_ctx *r = ud;
  json_t *jobs = jobs_of(*doc, r->path, err);
  if (!jobs) return -1;
  size_t i;
  if (!find_job(jobs, r->id, &i)) return 1;
  json_array_remove(jobs, i);
  return 0;
}

int zcron_store_remove(const char *path, const char *id, zerr *err) {
  if (!zfs_exists(path)) return 1;
  remove_ctx r = {path, id};
  return zjson_update_file(path, JSON_PRESERVE_ORDER, 0600, remove_fn, &r, err);
}

typedef struct claim_ctx {
  const char *path, *only;
  const char *const *skip;
  time_t now;
  json_t *claimed; /* [job copy, session id] pairs, fired after the save */
  time_t next_due; /* over the jobs as saved */
} claim_ctx;

static bool skipped(const char *const *skip, const char *id) {
  for (; skip && *skip; skip++)
    if (!strcmp(*skip, id)) return true;
  return false;
}

static int claim_fn(json_t **doc, void *ud, zerr *err) {
  claim_ctx *c = ud;
  json_t *jobs = jobs_of(*doc, c->path, err);
  if (!jobs) return -1;
  size_t i;
  json_t *j;
  json_array_foreach(jobs, i, j) {
    const char *id = zjson_str(j, "id");
    if (c->only ? strcmp(c->only, id) != 0 : skipped(c->skip, id)) continue;
    time_t next = zcron_job_next(j, c->now);
    if (!c->only && (next < 0 || next > c->now)) continue;
    struct tm tm;
    char ts[32];
    gmtime_r(&c->now, &tm);
    strftime(ts, sizeof ts, "%Y%m%dT%H%M%SZ", &tm);
    zbuf sid = ZBUF_INIT;
    zbuf_addf(&sid, "cron-%s-%s", id, ts);
    stamp(j, "lastRunAt", c->now);
    json_object_set_new(j, "runs", json_integer(zjson_int_or(j, "runs", 0) + 1));
    json_object_set_new(j, "lastSession", json_string(sid.data));
    json_object_del(j, "runNow");
    json_array_append_new(c->claimed, json_pack("[O, s]", j, sid.data));
    zbuf_release(&sid);
  }
  c->next_due = zcron_jobs_next_due(jobs, c->now, c->skip);
  return json_array_size(c->claimed) ? 0 : 1;
}

int zcron_store_claim_due(const char *path, time_t now, const char *only_id,
                          const char *const *skip, zcron_fire_fn fire, void *ud, time_t *next_due,
                          zerr *err) {
  if (next_due) *next_due = -1;
  if (!zfs_exists(path)) {
    if (only_id) return zerr_set(err, ZE_USAGE, "no schedule named %s (zero cron list)", only_id);
    return 0;
  }
  claim_ctx c = {path, only_id, skip, now, json_array(), -1};
  int rc = zjson_update_file(path, JSON_PRESERVE_ORDER, 0600, claim_fn, &c, err);
  if (next_due && rc >= 0) *next_due = c.next_due;
  int fired = (int)json_array_size(c.claimed);
  if (rc >= 0 && only_id && fired == 0)
    rc = zerr_set(err, ZE_USAGE, "no schedule named %s (zero cron list)", only_id);
  size_t i;
  json_t *pair;
  json_array_foreach(rc < 0 ? NULL : c.claimed, i, pair) {
    json_t *job = json_deep_copy(json_array_get(pair, 0));
    fire(job, json_string_value(json_array_get(pair, 1)), ud);
  }
  json_decref(c.claimed);
  return rc < 0 ? -1 : fired;
}

time_t zcron_jobs_next_due(const json_t *jobs, time_t now, const char *const *skip) {
  time_t best = -1;
  size_t i;
  const json_t *j;
  json_array_foreach(jobs, i, j) {
    if (skipped(skip, zjson_str(j, "id"))) continue;
    time_t t = zcron_job_next(j, now);
    if (t >= 0 && (best < 0 || t < best)) best = t;
  }
  return best;
}
