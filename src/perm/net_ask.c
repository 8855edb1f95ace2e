/* net_ask.c — network "scoped": a host on neither list, asked about; see
 * net_ask.h. */
#include "perm/net_ask.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/common.h"

/* Stands in for a tool in the prompt: what the TUI shows and rates. */
static const ztool NETWORK_TOOL = {
    .name = "network",
    .description = "a connection of a sandboxed command through the egress proxy",
    .side_effect = ZSIDE_NETWORK,
};

void zperm_net_asker_init(zperm_net_asker *x, const char *grants_path, zperm_face (*face)(void *ud),
                          void *face_ud) {
  memset(x, 0, sizeof *x);
  pthread_mutex_init(&x->mu, NULL);
  zerr err = ZERR_INIT;
  if (zgrants_load(&x->grants, grants_path, NULL, &err) < 0) {
    char *path = grants_path ? xstrdup(grants_path) : zgrants_default_path();
    zgrants_release(&x->grants);
    x->grants.path = path; /* an answer "always" still tries to save there */
  }
  x->face = face;
  x->face_ud = face_ud;
}

void zperm_net_asker_set_workspace(zperm_net_asker *x, const char *workspace) {
  pthread_mutex_lock(&x->mu);
  free(x->grants.workspace);
  x->grants.workspace = workspace ? xstrdup(workspace) : NULL;
  pthread_mutex_unlock(&x->mu);
}

void zperm_net_asker_release(zperm_net_asker *x) {
  zgrants_release(&x->grants);
  pthread_mutex_destroy(&x->mu);
}

/* Under x->mu. */
static bool ask_locked(zperm_net_asker *x, const char *host, int port) {
  if (zgrants_match(&x->grants, "network", host, NULL, 0, false, false)) return false;
  if (zgrants_match(&x->grants, "network", host, NULL, 0, true, false)) return true;
  zperm_face face = x->face ? x->face(x->face_ud) : (zperm_face){0};
  if (!face.approve) return false; /* headless: the proxy's refusal says what to do */
  char args[512];
  snprintf(args, sizeof args, "{\"host\":\"%s\",\"port\":%d}", host, port);
  ztool_call call = {.id = "network", .name = "network", .arguments = args};
  zperm_decision d = {.action = ZPERM_PROMPT, .code = "network_host"};
  snprintf(d.reason, sizeof d.reason,
           "a sandboxed command wants to connect to %s:%d, which is on neither "
           "sandbox.allowedDomains nor sandbox.deniedDomains",
           host, port);
  zapproval_request req = {.tool = &NETWORK_TOOL,
                           .call = &call,
                           .code = d.code,
                           .reason = d.reason,
                           .can_remember = true,
                           .grant_kind = ZGRANT_HOST,
                           .grant_tool = "network",
                           .grant_value = host};
  x->asked++;
  json_decref(zperm_prompt_resolve(&face, &x->grants, &req, &d));
  return d.action == ZPERM_ALLOW;
}

bool zperm_net_ask(void *ud, const char *host, int port) {
  zperm_net_asker *x = ud;
  pthread_mutex_lock(&x->mu);
  bool ok = ask_locked(x, host, port);
  pthread_mutex_unlock(&x->mu);
  return ok;
}
