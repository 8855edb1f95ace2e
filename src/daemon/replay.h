/* replay.h — a session's newest output lines, for `attach` (Go zero keeps
 * 1,024): a ring of owned strings; the oldest line falls out when a new one
 * comes in and the ring is full. total counts every line ever added. */
#ifndef ZERO_DAEMON_REPLAY_H
#define ZERO_DAEMON_REPLAY_H

#include <stddef.h>
#include <stdint.h>

#define ZDMN_REPLAY_LINES 1024

typedef struct zdmn_replay {
  char **v; /* alloc slots, grown up to cap; NULL until first used */
  size_t *lens;
  size_t alloc;
  size_t cap;   /* fixed at init */
  size_t start; /* index of the oldest line */
  size_t n;     /* lines held */
  uint64_t total;
} zdmn_replay;

void zdmn_replay_init(zdmn_replay *r, size_t cap);
/* Copies line (len bytes, no newline). */
void zdmn_replay_add(zdmn_replay *r, const char *line, size_t len);
/* The i-th held line, oldest first (i < r->n); borrowed. */
const char *zdmn_replay_get(const zdmn_replay *r, size_t i, size_t *len);
void zdmn_replay_release(zdmn_replay *r);

#endif
