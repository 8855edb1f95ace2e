/* sandbox.h — running commands confined by the OS.
 *
 * Backends, best first (zsb_probe picks one per machine):
 *   bwrap     outer stage: bubblewrap (new user, mount, pid and — when the
 *             network is denied — net namespaces; all capabilities dropped;
 *             read-only root, writable roots, protected names re-bound
 *             read-only, credentials hidden, private /tmp), then the inner
 *             stage below, inside the namespaces. Enforcement "full".
 *   landlock  no usable bwrap / user namespaces: the inner stage alone
 *             (writes confined by Landlock, seccomp filter, network by a
 *             socket filter). Enforcement "partial": credentials stay
 *             readable, .git/config and .git/hooks and .zero stay writable,
 *             /tmp is shared, no pid isolation. Reported as DOWNGRADED.
 *   none      neither: commands run unconfined and the permission engine
 *             asks for every one; a configured denyRead/denyWrite refuses.
 * Inner stage (zero-sandbox-inner, a 10 KB freestanding program built from
 * src/sandbox/helper/inner_helper.c, or `zero __sandbox-inner` — the same
 * steps in zero itself — where it is missing): PR_SET_NO_NEW_PRIVS,
 * seccomp (EPERM for ptrace, process_vm_*, io_uring_*, keyctl/add_key/
 * request_key, perf_event_open, bpf, userfaultfd, the mount family, chroot,
 * namespace creation, TIOCSTI/TIOCLINUX; AF_UNIX sockets with
 * blockUnixSockets), Landlock write rules + signal/abstract-socket scoping
 * when the kernel has them, then exec.
 */
#ifndef ZERO_SANDBOX_SANDBOX_H
#define ZERO_SANDBOX_SANDBOX_H

#include <stdbool.h>

#include "base/err.h"
#include "exec/spawn.h"
#include "sandbox/egress.h"
#include "sandbox/policy.h"

typedef enum zsb_backend { ZSB_BWRAP, ZSB_LANDLOCK, ZSB_NONE } zsb_backend;

/* What this machine offers. Each *_fix is a one-line instruction, "" when OK. */
typedef struct zsb_probe {
  zsb_backend backend;
  char bwrap_path[256];     /* "" when not found */
  bool userns_ok;
  char userns_fix[512];
  int landlock_abi;         /* 0 = unavailable */
  bool seccomp_ok;
  bool running_as_root;
} zsb_probe;

/* Cheap (no process started): PATH lookup, sysctls, Landlock ABI. Results are
 * computed once per process. ZERO_SANDBOX_FORCE_BACKEND=landlock|none (tests)
 * lowers, never raises, the chosen backend. */
const zsb_probe *zsb_probe_get(void);
/* For `zero doctor` / `zero sandbox check`: one line, e.g.
 * "bwrap (full): bubblewrap /usr/bin/bwrap, user namespaces, seccomp, landlock ABI 7". */
void zsb_probe_describe(const zsb_probe *pr, char *out, size_t cap);
const char *zsb_backend_name(zsb_backend b);   /* "bwrap", "landlock", "none" */
const char *zsb_enforcement(zsb_backend b);    /* "full", "partial", "none" */

/* The honest one-line account of what is not enforced when the policy runs
 * below full enforcement here (landlock or none backend, or the sandbox
 * disabled); false (out = "") when enforcement is full. Used for the
 * "DOWNGRADED:" banner line and the run's sandbox_degraded warning. */
bool zsb_downgrade_note(const zsb_policy *p, char *out, size_t cap);
/* {backend, enforcement, network} for events. New reference. */
json_t *zsb_state_json(const zsb_policy *p);

/* Runs argv under the policy in cwd (NULL = workspace) and waits. Returns the
 * exit status (128+signal when signalled), or -1 with err when the command
 * could not start or the policy cannot be enforced here. When banner is
 * non-NULL the "sandbox: backend=…" line (and a DOWNGRADED: line) is written
 * to it first. */
int zsb_run(const zsb_policy *p, char *const argv[], const char *cwd, FILE *banner, zerr *err);

/* A zspawner confining every command of a run to p (borrowed; must outlive
 * the spawner). wrap rewrites a command into the bwrap command line (or the
 * inner stage alone on the landlock backend) with the sandbox's environment,
 * or refuses when the policy cannot be enforced here. The placeholders made
 * for missing protected names are held by the wrapped command and let go of
 * through its on_exit hook, which the process that started it runs once the
 * command has exited: no zero process sits between the agent and bwrap. */
struct zsb_egress;
typedef struct zsb_spawner {
  zspawner base;
  const zsb_policy *policy;
  bool runtime_ready;     /* the runtime dir was prepared for this run */
  /* network "scoped": the run's egress proxy (sandbox/egress.h), started
   * with the first command that needs it, stopped by zsb_spawner_release. */
  struct zsb_egress *egress;
  /* The proxy's decisions (on_event NULL: refusals on stderr) and its
   * questions about hosts on neither list (ask NULL: refused); set before
   * the first command. Called from the proxy's threads. */
  zsb_egress_hooks egress_hooks;
} zsb_spawner;
/* An escalation is never the spawner's: it travels in the request
 * (zspawn_cmd.network / .unsandboxed), set from that call's decision. */
int zsb_spawner_init(zsb_spawner *s, const zsb_policy *p, zerr *err);
void zsb_spawner_release(zsb_spawner *s);

/* true when commands are really confined here (backend bwrap or landlock and
 * the policy enabled): the permission engine then allows them in auto mode. */
bool zsb_active(const zsb_policy *p);

/* The inner stage as its own small program (zero-sandbox-inner, next to zero
 * or in ../libexec/zero/), or NULL when there is none (or
 * ZERO_SANDBOX_INNER=builtin): then bwrap starts `zero __sandbox-inner`. Not
 * used for a policy under which sandboxed commands could write it. */
const char *zsb_inner_helper(void);
/* zsb_inner_helper() when commands under p cannot write it (it lies in no
 * write root, allowWrite path or the runtime dir), else NULL. */
const char *zsb_inner_helper_for(const zsb_policy *p);

/* Hidden subcommands (argv after the name). */
int zsb_inner_main(int argc, char **argv);   /* `zero __sandbox-inner` */

/* The inner confinement applied to the calling process (used by the inner
 * stage and the landlock backend). write_roots NULL-terminated. net_fallback:
 * no network namespace, so deny IP sockets by filter. -1 with err. */
typedef struct zsb_confine {
  const char *const *write_roots;
  bool block_unix_sockets;
  bool deny_ip_sockets;
} zsb_confine;
int zsb_confine_self(const zsb_confine *c, zerr *err);

#endif
