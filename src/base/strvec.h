/* strvec.h — a growable, NULL-terminated vector of owned strings, the one
 * way zero builds an argv or an environment (after git's strvec).
 *
 * Invariant: v is never NULL and v[nr] == NULL, so v can be handed straight
 * to execve / posix_spawn. An untouched STRVEC_INIT vector points v at a
 * shared empty array (alloc == 0); the first push allocates. Every string in
 * v is owned by the vector (malloc'd) until strvec_clear or strvec_detach.
 *
 * Life cycle: declare `strvec a = STRVEC_INIT;`, push, then either
 * strvec_clear(&a) or take the array with strvec_detach(&a) (freed later
 * with strvec_free_array).
 */
#ifndef ZERO_BASE_STRVEC_H
#define ZERO_BASE_STRVEC_H

#include <stddef.h>

extern char *strvec_empty[1];

typedef struct strvec {
  char **v;     /* NULL-terminated; the strings are owned */
  size_t nr;    /* strings in v, not counting the NULL */
  size_t alloc; /* slots allocated; 0 while v is strvec_empty */
} strvec;

#define STRVEC_INIT { strvec_empty, 0, 0 }

void strvec_init(strvec *sv);
/* Appends a copy of s; returns the copy (owned by sv). */
const char *strvec_push(strvec *sv, const char *s);
/* Appends s itself, taking ownership of the malloc'd string. */
const char *strvec_push_nodup(strvec *sv, char *s);
/* Appends a formatted string; returns it (owned by sv). */
const char *strvec_pushf(strvec *sv, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Appends copies of each argument up to a terminating NULL. */
void strvec_pushl(strvec *sv, ...) __attribute__((sentinel));
/* Appends copies of every string of the NULL-terminated v (NULL: nothing). */
void strvec_pushv(strvec *sv, char *const *v);
/* Takes over v, a NULL-terminated malloc'd array of malloc'd strings (as
 * strvec_detach returns it; NULL: nothing), appending its strings to sv and
 * freeing the array itself. */
void strvec_attach(strvec *sv, char **v);
/* Removes and frees the last string (nothing when empty). */
void strvec_pop(strvec *sv);
/* Frees every string and the array and resets sv to STRVEC_INIT. */
void strvec_clear(strvec *sv);
/* Returns the NULL-terminated array (never NULL; caller frees it with
 * strvec_free_array) and resets sv to STRVEC_INIT. */
char **strvec_detach(strvec *sv);
/* Frees a NULL-terminated array of malloc'd strings, as strvec_detach
 * returns it (NULL: nothing). */
void strvec_free_array(char **v);
/* A deep copy of the NULL-terminated v (NULL gives an empty array); caller
 * frees it with strvec_free_array. */
char **strvec_dup_array(char *const *v);

/* The qsort/bsearch comparator of an array of strings (char *), in byte
 * order (strcmp). */
int strvec_cmp(const void *a, const void *b);
/* Sorts sv's strings with strvec_cmp: listings that must not depend on the
 * order readdir or a hash table returned them in. */
void strvec_sort(strvec *sv);

static inline void strvec_cleanup(strvec *sv) { strvec_clear(sv); }
#define cleanup_strvec __attribute__((cleanup(strvec_cleanup)))

#endif
