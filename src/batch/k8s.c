/* k8s.c — the Kubernetes back end of `zero batch` (contracts in k8s.h). */
#include "batch/k8s.h"

#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/common.h"
#include "base/fs.h"
#include "base/path.h"
#include "base/strvec.h"

#define LOG_FILE_MAX (256u << 20) /* one pod's log: a task's line is at most a few MiB */

int zbatch_k8s_check_name(const char *name, const char *what, zerr *err) {
  size_t n = strlen(name);
  if (n == 0 || n > ZBATCH_K8S_NAME_MAX)
    return zerr_set(err, ZE_USAGE, "%s \"%s\": 1 to %d characters", what, name,
                    ZBATCH_K8S_NAME_MAX);
  if (strspn(name, "abcdefghijklmnopqrstuvwxyz0123456789-") != n)
    return zerr_set(err, ZE_USAGE,
                    "%s \"%s\": lower-case letters, digits and '-' only (a Kubernetes name)", what,
                    name);
  if (name[0] == '-' || name[n - 1] == '-')
    return zerr_set(err, ZE_USAGE, "%s \"%s\" must start and end with a letter or a digit", what,
                    name);
  return 0;
}

static json_t *labels(const char *name) {
  return json_pack("{s:s, s:s}", "app.kubernetes.io/name", "zero-batch",
                   "app.kubernetes.io/instance", name);
}

static json_t *configmap(const zbatch_k8s_opts *o, const char *cm_name) {
  return json_pack("{s:s, s:s, s:{s:s, s:o}, s:{s:s}}", "apiVersion", "v1", "kind", "ConfigMap",
                   "metadata", "name", cm_name, "labels", labels(o->name), "data", "tasks.jsonl",
                   o->tasks_jsonl);
}

/* The pod's one container: zero's entry point, the credentials, the mounts. */
static json_t *container(const zbatch_k8s_opts *o) {
  json_t *cmd = json_pack("[s, s, s, s, s, s, s, s]", "zero", "batch", "task", "--tasks",
                          ZBATCH_K8S_TASKS_MOUNT "/tasks.jsonl", "--state-dir",
                          ZBATCH_K8S_STATE_MOUNT, "--exit-zero");
  return json_pack("{s:s, s:s, s:o, s:[{s:{s:s, s:b}}], s:[{s:s, s:s, s:b}, {s:s, s:s}]}", "name",
                   "zero", "image", o->image, "command", cmd, "envFrom", "secretRef", "name",
                   o->secret, "optional", 1, "volumeMounts", "name", "tasks", "mountPath",
                   ZBATCH_K8S_TASKS_MOUNT, "readOnly", 1, "name", "state", "mountPath",
                   ZBATCH_K8S_STATE_MOUNT);
}

static json_t *job(const zbatch_k8s_opts *o, const char *cm_name) {
  json_t *state = o->pvc ? json_pack("{s:s, s:{s:s}}", "name", "state", "persistentVolumeClaim",
                                     "claimName", o->pvc)
                         : json_pack("{s:s, s:{}}", "name", "state", "emptyDir");
  json_t *pod =
      json_pack("{s:s, s:[o], s:[{s:s, s:{s:s}}, o]}", "restartPolicy", "Never", "containers",
                container(o), "volumes", "name", "tasks", "configMap", "name", cm_name, state);
  /* A task that fails still ends its pod with 0 (--exit-zero: its exit code
   * is in its result line), so backoffLimit only counts pods that could not
   * run their task at all: about one retry per task. */
  json_t *spec = json_pack("{s:s, s:I, s:I, s:I, s:{s:{s:o}, s:o}}", "completionMode", "Indexed",
                           "completions", (json_int_t)o->tasks, "parallelism",
                           (json_int_t)o->parallel, "backoffLimit", (json_int_t)o->tasks,
                           "template", "metadata", "labels", labels(o->name), "spec", pod);
  return json_pack("{s:s, s:s, s:{s:s, s:o}, s:o}", "apiVersion", "batch/v1", "kind", "Job",
                   "metadata", "name", o->name, "labels", labels(o->name), "spec", spec);
}

json_t *zbatch_k8s_manifest(const zbatch_k8s_opts *o, zerr *err) {
  size_t len = strlen(o->tasks_jsonl);
  if (len > ZBATCH_K8S_CONFIGMAP_MAX) {
    zerr_set(err, ZE_TOO_LARGE,
             "the tasks take %zu bytes, more than a ConfigMap holds (%u): split the batch", len,
             ZBATCH_K8S_CONFIGMAP_MAX);
    return NULL;
  }
  zbuf cm = ZBUF_INIT;
  zbuf_addf(&cm, "%s-tasks", o->name);
  json_t *list = json_pack("{s:s, s:s, s:[o, o]}", "apiVersion", "v1", "kind", "List", "items",
                           configmap(o, cm.data), job(o, cm.data));
  zbuf_release(&cm);
  return list;
}

/* The result object on one log line, or NULL. kubectl's "[pod/NAME/zero] "
 * prefix and an RFC 3339 stamp (--timestamps) may stand before it. */
static json_t *result_on_line(const char *line, size_t len) {
  const char *brace = memchr(line, '{', len);
  if (!brace) return NULL;
  json_t *r = json_loadb(brace, len - (size_t)(brace - line), 0, NULL);
  json_t *id = json_object_get(r, "id");
  if (json_is_object(r) && json_is_string(id) && *json_string_value(id) &&
      json_is_integer(json_object_get(r, "exitCode")))
    return r;
  json_decref(r);
  return NULL;
}

long zbatch_k8s_scan_log(const char *text, size_t len, json_t *by_id) {
  long found = 0;
  const char *p = text, *end = text + len;
  while (p < end) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    size_t n = (size_t)((nl ? nl : end) - p);
    json_t *r = result_on_line(p, n);
    if (r) {
      json_object_set_new(by_id, json_string_value(json_object_get(r, "id")), r);
      found++;
    }
    p += n + 1;
  }
  return found;
}

static long read_log(const char *path, json_t *by_id, zerr *err) {
  zbuf text = ZBUF_INIT;
  long found = -1;
  if (zfs_read_file(path, &text, LOG_FILE_MAX, err) == 0)
    found = zbatch_k8s_scan_log(text.data ? text.data : "", text.len, by_id);
  zbuf_release(&text);
  return found;
}

long zbatch_k8s_read_logs(const char *path, json_t **by_id, zerr *err) {
  *by_id = json_object();
  if (!zfs_is_dir(path)) {
    long n = read_log(path, *by_id, err);
    if (n < 0) zerr_prefix(err, "cannot read the pod logs");
    return n;
  }
  strvec names = STRVEC_INIT;
  if (zfs_list_dir(path, &names) < 0) {
    strvec_clear(&names);
    return zerr_errno(err, ZE_IO, "cannot list the pod logs in %s", path);
  }
  long total = 0;
  for (size_t i = 0; i < names.nr && total >= 0; i++) {
    char *p = zpath_join(path, names.v[i]);
    if (!zfs_is_dir(p)) {
      long n = read_log(p, *by_id, err);
      total = n < 0 ? -1 : total + n;
    }
    free(p);
  }
  strvec_clear(&names);
  return total;
}
