/* guardrails.c — see guardrails.h. */
#include "agent/guardrails.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "base/common.h"

void zguard_init(zguard *g) { memset(g, 0, sizeof *g); }

void zguard_release(zguard *g) {
  for (size_t i = 0; i < g->n_failures; i++) free(g->failures[i].key);
  free(g->last_turn);
  memset(g, 0, sizeof *g);
}

/* name NUL arguments, the arguments as canonical JSON (sorted keys, no
 * spaces) when they parse, so {"a":1, "b":2} and {"b":2,"a":1} are the same
 * call; else the raw text. */
static void call_key(const char *name, const char *arguments, zbuf *out) {
  zbuf_addstr(out, name ? name : "");
  zbuf_addch(out, '\0');
  json_t *v = arguments && arguments[0] ? json_loads(arguments, JSON_DECODE_ANY, NULL) : NULL;
  char *canon = v ? json_dumps(v, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY) : NULL;
  zbuf_addstr(out, canon ? canon : arguments ? arguments : "");
  free(canon);
  json_decref(v);
}

static zguard_failure *find_failure(zguard *g, const zbuf *key) {
  for (size_t i = 0; i < g->n_failures; i++)
    if (g->failures[i].key_len == key->len && !memcmp(g->failures[i].key, key->data, key->len))
      return &g->failures[i];
  return NULL;
}

/* A slot for a new failing call; the oldest entries make room in turn. */
static zguard_failure *add_failure(zguard *g, zbuf *key) {
  zguard_failure *f;
  if (g->n_failures < ZGUARD_TRACKED_CALLS) {
    f = &g->failures[g->n_failures++];
  } else {
    f = &g->failures[g->next_evict];
    g->next_evict = (g->next_evict + 1) % ZGUARD_TRACKED_CALLS;
    free(f->key);
  }
  f->key_len = key->len;
  f->key = zbuf_detach(key, NULL);
  f->count = 0;
  return f;
}

bool zguard_note_result(zguard *g, const char *name, const char *arguments, bool ok, zbuf *why) {
  cleanup_zbuf zbuf key = ZBUF_INIT;
  call_key(name, arguments, &key);
  zguard_failure *f = find_failure(g, &key);
  if (ok) {
    g->consecutive_failures = 0;
    if (f) f->count = 0;
    return false;
  }
  if (!f) f = add_failure(g, &key);
  f->count++;
  g->consecutive_failures++;
  if (f->count >= ZGUARD_SAME_FAILURES) {
    zbuf_addf(why,
              "Agent stopped: the same %s call (same arguments) failed %d times, so the run "
              "halted instead of looping further. Check the request or the tool's arguments, "
              "then continue with zero exec --resume.",
              name ? name : "tool", f->count);
    return true;
  }
  int max = g->max_consecutive > 0 ? g->max_consecutive : ZGUARD_CONSECUTIVE_FAILURES;
  if (g->consecutive_failures >= max) {
    zbuf_addf(why,
              "Agent stopped: %d tool calls in a row failed, so the run halted instead of "
              "looping further. Check the request, then continue with zero exec --resume.",
              g->consecutive_failures);
    return true;
  }
  return false;
}

bool zguard_note_turn(zguard *g, const zmsg *m, zbuf *why) {
  cleanup_zbuf zbuf turn = ZBUF_INIT;
  zbuf_addstr(&turn, m->content ? m->content : "");
  for (size_t i = 0; i < m->ncalls; i++) {
    zbuf_addch(&turn, '\0');
    call_key(m->calls[i].name, m->calls[i].arguments, &turn);
  }
  if (g->last_turn && g->last_turn_len == turn.len && !memcmp(g->last_turn, turn.data, turn.len)) {
    g->identical_turns++;
  } else {
    free(g->last_turn);
    g->last_turn_len = turn.len;
    g->last_turn = zbuf_detach(&turn, NULL);
    g->identical_turns = 1;
  }
  if (g->identical_turns < ZGUARD_IDENTICAL_TURNS) return false;
  zbuf_addf(why,
            "Agent stopped: the model made the same turn (the same tool calls with the same "
            "arguments) %d times in a row, so the run halted instead of looping further. "
            "Rephrase the request, then continue with zero exec --resume.",
            g->identical_turns);
  return true;
}
