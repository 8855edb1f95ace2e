/* k8s.h — the Kubernetes back end of `zero batch` (docs/batch.md): the batch
 * is one Indexed Job, one completion per task. zero writes the manifest and
 * never talks to a cluster: the user applies it with kubectl, and reads the
 * pods' logs back with `zero batch collect --k8s-logs`.
 *
 * The manifest is one JSON document, a v1 List (kubectl apply -f takes it):
 *   ConfigMap NAME-tasks   data."tasks.jsonl": the good tasks, line N = index N
 *   Job NAME (batch/v1)    completionMode Indexed, completions = tasks,
 *                          parallelism = -j; each pod runs
 *                          `zero batch task --tasks /etc/zero-batch/tasks.jsonl
 *                           --state-dir /var/lib/zero-batch --exit-zero`,
 *                          which picks its line by $JOB_COMPLETION_INDEX (set
 *                          by Kubernetes) and prints its result line on stdout.
 * The state directory is an emptyDir, or a PersistentVolumeClaim shared by
 * every pod (results/N.jsonl and the sessions then outlive the pods). The
 * provider's credentials come from a Secret (envFrom, optional).
 */
#ifndef ZERO_BATCH_K8S_H
#define ZERO_BATCH_K8S_H

#include <jansson.h>
#include <stddef.h>

#include "base/err.h"

#define ZBATCH_K8S_NAME_MAX 52 /* pod host names are NAME-INDEX, at most 63 */
#define ZBATCH_K8S_TASKS_MOUNT "/etc/zero-batch"
#define ZBATCH_K8S_STATE_MOUNT "/var/lib/zero-batch"
/* A ConfigMap holds at most 1 MiB (etcd's object limit); a little is kept
 * for the object's own fields. */
#define ZBATCH_K8S_CONFIGMAP_MAX (1000u * 1024u)

typedef struct zbatch_k8s_opts {
  const char *name;        /* a DNS-1123 label (zbatch_k8s_check_name) */
  const char *image;       /* holds zero (on PATH) and what the tasks need */
  const char *secret;      /* the Secret whose keys become the pods' environment */
  const char *pvc;         /* a PersistentVolumeClaim for the state, or NULL: emptyDir */
  long tasks;              /* completions (≥ 1) */
  long parallel;           /* pods at once (≥ 1) */
  const char *tasks_jsonl; /* the ConfigMap's tasks.jsonl (zbatch_tasks_jsonl) */
} zbatch_k8s_opts;

/* 0 when name is a DNS-1123 label of at most ZBATCH_K8S_NAME_MAX
 * characters ([a-z0-9-], starting and ending alphanumeric); -1 with err
 * (ZE_USAGE) saying which rule it breaks. `what` names it ("--name"). */
int zbatch_k8s_check_name(const char *name, const char *what, zerr *err);

/* The manifest (a new reference), or NULL with err (ZE_TOO_LARGE) when
 * the tasks do not fit in a ConfigMap. */
json_t *zbatch_k8s_manifest(const zbatch_k8s_opts *o, zerr *err);

/* The result lines in pod logs: path is one file (`kubectl logs -l
 * job-name=NAME`) or a directory of them (one per pod, read in name
 * order). A result line is a JSON object with a string "id" and an integer
 * "exitCode", alone on its line or after kubectl's "[pod/…] " prefix or
 * --timestamps stamp; other lines are ignored. A later line for the same
 * id replaces the earlier one (a pod run again). Fills *by_id (a new
 * object: id → result, in the order first seen); returns the number of
 * result lines read, or -1 with err when path cannot be read. */
long zbatch_k8s_read_logs(const char *path, json_t **by_id, zerr *err);

/* The same over one log's text (len bytes): its result lines into by_id.
 * Returns how many it found. */
long zbatch_k8s_scan_log(const char *text, size_t len, json_t *by_id);

#endif
