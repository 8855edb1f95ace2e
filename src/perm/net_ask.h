/* net_ask.h — the question network "scoped" asks about a host on neither
 * list: the egress proxy's zeg_ask_fn (net/egress/proxy.h), answered
 * through the one prompt flow (perm/prompt.h) and remembered as host grants
 * (perm/grants.h, kind "host", tool "network").
 *
 * The proxy calls it from its connection threads while the command that
 * connects waits (its connection is held open, not failed). The caller:
 *   1. zperm_net_asker_init with the grants file and a way to reach the
 *      face (its approver may be set after the run is assembled: the TUI
 *      sets it per turn, so the face is read at each question);
 *   2. hands zperm_net_ask and the asker to the sandbox's spawner;
 *   3. zperm_net_asker_release once the proxy has stopped.
 *
 * Thread safety: the asker has its own grant store object (the same file)
 * and lock, so the proxy's threads never touch the store the agent's
 * worker uses; questions are asked one at a time. A host grant saved
 * "always" is in sandbox-grants.json like every other grant (`zero sandbox
 * grants` lists and removes it).
 *
 * Answers: headless (no approver) every question is a denial, and the
 * proxy's refusal says how to allow the host (--allow-domain, the lists).
 * A deny grant of the host wins over an allow grant.
 */
#ifndef ZERO_PERM_NET_ASK_H
#define ZERO_PERM_NET_ASK_H

#include <pthread.h>
#include <stdbool.h>

#include "base/err.h"
#include "perm/grants.h"
#include "perm/prompt.h"

typedef struct zperm_net_asker {
  pthread_mutex_t mu;
  zgrants grants;               /* host grants of the file plus this run's (mu) */
  zperm_face (*face)(void *ud); /* the face at the time of a question */
  void *face_ud;
  unsigned long asked; /* questions put to an approver (mu; tests) */
} zperm_net_asker;

/* Loads the grants of grants_path (NULL: the default file; one that cannot
 * be read counts as empty: the run's own warning about it is enough). */
void zperm_net_asker_init(zperm_net_asker *x, const char *grants_path, zperm_face (*face)(void *ud),
                          void *face_ud);
void zperm_net_asker_release(zperm_net_asker *x);
/* The run's workspace: "always" answers hold for it alone, and host grants
 * saved in another workspace do not answer here. NULL: none (every saved
 * host grant without a workspace still matches). Call before questions. */
void zperm_net_asker_set_workspace(zperm_net_asker *x, const char *workspace);

/* zeg_ask_fn: true when host:port may be reached (a grant, or the user's
 * answer). ud is the asker. */
bool zperm_net_ask(void *ud, const char *host, int port);

#endif
