/* replay.c — the replay ring; see replay.h. */
#include "daemon/replay.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "base/common.h"

void zdmn_replay_init(zdmn_replay *r, size_t cap) {
  assert(cap > 0);
  memset(r, 0, sizeof *r);
  r->cap = cap;
}

void zdmn_replay_add(zdmn_replay *r, const char *line, size_t len) {
  if (!r->v) {
    r->v = xcalloc(r->cap, sizeof *r->v);
    r->lens = xcalloc(r->cap, sizeof *r->lens);
  }
  size_t slot;
  if (r->n < r->cap) {
    slot = (r->start + r->n) % r->cap;
    r->n++;
  } else {
    slot = r->start; /* the oldest goes */
    free(r->v[slot]);
    r->start = (r->start + 1) % r->cap;
  }
  r->v[slot] = xstrndup(line, len);
  r->lens[slot] = len;
  r->total++;
}

const char *zdmn_replay_get(const zdmn_replay *r, size_t i, size_t *len) {
  assert(i < r->n);
  size_t slot = (r->start + i) % r->cap;
  if (len) *len = r->lens[slot];
  return r->v[slot];
}

void zdmn_replay_release(zdmn_replay *r) {
  for (size_t i = 0; r->v && i < r->cap; i++) free(r->v[i]);
  free(r->v);
  free(r->lens);
  memset(r, 0, sizeof *r);
}
