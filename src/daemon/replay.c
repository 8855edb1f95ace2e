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

/* The slots grow by doubling up to cap, so a short session costs a few
 * pointers, not 1,024 of them (256 kept sessions: 4 MiB otherwise). While
 * they grow the ring has not wrapped (start is 0), so a plain realloc keeps
 * the order. */
static void grow(zdmn_replay *r) {
  size_t want = r->alloc ? r->alloc * 2 : 16;
  if (want > r->cap) want = r->cap;
  r->v = xrealloc(r->v, want * sizeof *r->v);
  r->lens = xrealloc(r->lens, want * sizeof *r->lens);
  r->alloc = want;
}

void zdmn_replay_add(zdmn_replay *r, const char *line, size_t len) {
  size_t slot;
  if (r->n < r->cap) {
    if (r->n == r->alloc) grow(r);
    slot = r->n++; /* not wrapped yet: start is 0 */
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
  for (size_t i = 0; i < r->n; i++) free(r->v[i]);
  free(r->v);
  free(r->lens);
  memset(r, 0, sizeof *r);
}
