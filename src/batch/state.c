/* state.c — a cluster batch's state directory (layout in state.h). */
#include "batch/state.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/common.h"
#include "base/fs.h"
#include "base/json.h"
#include "base/path.h"

#define TASKS_FILE "tasks.jsonl"
#define INFO_FILE "batch.json"

int zbatch_state_prepare(const char *dir, const zbatch_task *tasks, size_t n, const char *base,
                         zerr *err) {
  static const char *const SUB[] = {"results", "logs", "data"};
  char *tasks_path = zpath_join(dir, TASKS_FILE);
  int rc = 0;
  if (zfs_exists(tasks_path))
    rc = zerr_set(err, ZE_USAGE,
                  "%s already holds a batch (%s): give each batch a state directory of its own",
                  dir, tasks_path);
  if (rc == 0 && zfs_mkdir_p(dir, 0700, err) < 0) rc = -1;
  for (size_t i = 0; rc == 0 && i < ZARRAY_LEN(SUB); i++) {
    char *p = zpath_join(dir, SUB[i]);
    if (zfs_mkdir_p(p, 0700, err) < 0) rc = -1;
    free(p);
  }
  zbuf text = ZBUF_INIT;
  if (rc == 0) zbatch_tasks_jsonl(tasks, n, base, &text);
  if (rc == 0 && zfs_write_atomic(tasks_path, text.data ? text.data : "", text.len, 0600, err) < 0)
    rc = -1;
  zbuf_release(&text);
  free(tasks_path);
  return rc;
}

/* Reads dir's tasks.jsonl into text. */
static int read_tasks(const char *dir, zbuf *text, zerr *err) {
  char *p = zpath_join(dir, TASKS_FILE);
  int rc = zfs_read_file(p, text, ZBATCH_LINE_MAX * 64ull, err);
  if (rc < 0) zerr_prefix(err, "%s is not a batch's state directory", dir);
  free(p);
  return rc;
}

/* Line index of text (a tasks.jsonl of good tasks) into *t; where names
 * the file for messages. */
static int task_at(const zbuf *text, const char *where, long index, zbatch_task *t, zerr *err) {
  const char *p = text->data ? text->data : "", *end = p + text->len;
  for (long i = 0; i < index && p < end; i++) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    p = nl ? nl + 1 : end;
  }
  if (index < 0 || p >= end) return zerr_set(err, ZE_NOT_FOUND, "%s has no task %ld", where, index);
  const char *nl = memchr(p, '\n', (size_t)(end - p));
  return zbatch_task_parse(p, (size_t)((nl ? nl : end) - p), (int)index + 1, t, err);
}

int zbatch_tasks_file_task(const char *path, long index, zbatch_task *t, zerr *err) {
  zbuf text = ZBUF_INIT;
  int rc = zfs_read_file(path, &text, ZBATCH_LINE_MAX * 64ull, err);
  if (rc == 0) rc = task_at(&text, path, index, t, err);
  zbuf_release(&text);
  return rc;
}

int zbatch_state_tasks(const char *dir, zbatch_tasks *ts, zerr *err) {
  char *p = zpath_join(dir, TASKS_FILE);
  int rc = zbatch_tasks_load(p, ts, err);
  if (rc < 0) zerr_prefix(err, "%s is not a batch's state directory", dir);
  /* zbatch_state_prepare wrote only good lines: a bad one is damage. */
  if (rc == 0 && ts->problems.nr)
    rc = zerr_set(err, ZE_INVALID, "%s is damaged: %s", p, ts->problems.v[0]);
  free(p);
  return rc;
}

int zbatch_state_task(const char *dir, long index, zbatch_task *t, zerr *err) {
  zbuf text = ZBUF_INIT;
  if (read_tasks(dir, &text, err) < 0) return -1;
  int rc = task_at(&text, dir, index, t, err);
  zbuf_release(&text);
  return rc;
}

char *zbatch_state_result_path(const char *dir, long index) {
  zbuf p = ZBUF_INIT;
  zbuf_addf(&p, "%s/results/%ld.jsonl", dir, index);
  return zbuf_detach(&p, NULL);
}

json_t *zbatch_state_result(const char *dir, long index) {
  char *p = zbatch_state_result_path(dir, index);
  zerr err = ZERR_INIT;
  json_t *r = zfs_exists(p) ? zjson_load_file(p, &err) : NULL;
  free(p);
  if (r && !json_is_object(r)) {
    json_decref(r);
    r = NULL;
  }
  return r;
}

int zbatch_state_save_info(const char *dir, json_t *info, zerr *err) {
  char *p = zpath_join(dir, INFO_FILE);
  int rc = zjson_save_file(p, info, JSON_PRESERVE_ORDER, 0600, err);
  free(p);
  return rc;
}

json_t *zbatch_state_load_info(const char *dir, zerr *err) {
  char *p = zpath_join(dir, INFO_FILE);
  json_t *info = zjson_load_file(p, err);
  if (!info) zerr_prefix(err, "%s holds no submitted batch", dir);
  free(p);
  return info;
}
