/* swarm.c — several sub-agents at once on a team, with mailboxes and
 * handoffs.
 *
 * A member is an ordinary background child (runtime.h zsub_bg_launch: a
 * `zero exec --agent` of the orchestrator's mode, sandbox and depth rules),
 * started with ZERO_SWARM_DIR (the team's folder) and ZERO_SWARM_MEMBER (its
 * name) in its environment: its own run then offers swarm_send and
 * swarm_inbox on that team. There is no second agent loop and no daemon:
 * the orchestrator's tool calls move the team on (zsub_swarm_pump): a
 * queued member starts when a running one ends (at most maxTeamSize run at
 * once), a member that crashed is relaunched once (MAX_LAUNCHES) and
 * reported either way. Members that write get a git worktree each by
 * default (subagent/worktree.h), and swarm_collect returns each one's
 * branch and diff stat.
 *
 * Tools of the orchestrator: swarm_spawn, swarm_send, swarm_handoff,
 * swarm_collect, swarm_inbox (its own mailbox, "orchestrator"). Tools of a
 * member: swarm_send and swarm_inbox. A member cannot spawn a team.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/cancel.h"
#include "base/common.h"
#include "base/json.h"
#include "base/strvec.h"
#include "base/time.h"
#include "subagent/mailbox.h"
#include "subagent/runtime.h"

#define MAX_MEMBERS 32 /* members a team may have over its life */
#define MAX_TEAMS 8    /* teams a run may spawn */
#define MAX_LAUNCHES 2 /* a crashed member is relaunched once */
#define COLLECT_MAX_WAIT_MS (10 * 60 * 1000)
#define ANSWER_MAX 8000 /* of a member's answer quoted by swarm_collect */

typedef struct member {
  char name[ZMBOX_NAME_MAX + 1];
  json_t *spec;   /* its task arguments: agent, prompt, description, isolation */
  bg_task *t;     /* NULL while queued */
  int launches;   /* how often it was started */
  char *crash;    /* what the last crash said, or NULL */
  bool collected; /* its final report was returned once */
} member;

typedef struct team {
  char name[ZMBOX_NAME_MAX + 1];
  char *dir; /* <workspace>/.zero/swarm/<team> */
  member m[MAX_MEMBERS];
  size_t n;
} team;

struct zsub_swarm {
  team *teams[MAX_TEAMS];
  size_t n;
  /* This run as a member (ZERO_SWARM_DIR / ZERO_SWARM_MEMBER), else NULL. */
  char *my_dir, *my_name;
};

static const char *const ORCH_TOOLS[] = {"swarm_spawn", "swarm_handoff", "swarm_collect"};
static const char *const BOTH_TOOLS[] = {"swarm_send", "swarm_inbox"};

/* ---- schemas ---------------------------------------------------------------------- */

static const char SPAWN_SCHEMA[] =
    "{\"type\":\"object\",\"properties\":{"
    "\"team\":{\"type\":\"string\",\"description\":\"the team's name (letters, digits, _ -); "
    "spawning into an existing team adds members\"},"
    "\"members\":{\"type\":\"array\",\"items\":{\"type\":\"object\",\"properties\":{"
    "\"name\":{\"type\":\"string\"},"
    "\"prompt\":{\"type\":\"string\",\"description\":\"the member's whole job\"},"
    "\"agent\":{\"type\":\"string\",\"description\":\"the specialist (default general)\"},"
    "\"description\":{\"type\":\"string\"},"
    "\"isolation\":{\"type\":\"string\",\"enum\":[\"none\",\"worktree\"],\"description\":"
    "\"default: worktree for members that can write, in a git repository\"}},"
    "\"required\":[\"name\",\"prompt\"]}}},"
    "\"required\":[\"team\",\"members\"],\"additionalProperties\":false}";

static const char SEND_SCHEMA[] =
    "{\"type\":\"object\",\"properties\":{"
    "\"team\":{\"type\":\"string\",\"description\":\"the team (the orchestrator only)\"},"
    "\"to\":{\"type\":\"string\",\"description\":\"a member's name, or orchestrator\"},"
    "\"message\":{\"type\":\"string\",\"description\":\"at most 64 KiB\"}},"
    "\"required\":[\"to\",\"message\"],\"additionalProperties\":false}";

static const char HANDOFF_SCHEMA[] =
    "{\"type\":\"object\",\"properties\":{"
    "\"team\":{\"type\":\"string\"},"
    "\"to\":{\"type\":\"string\",\"description\":\"a running member (the work goes to its "
    "mailbox) or a new member's name (started with the work)\"},"
    "\"work\":{\"type\":\"string\"},"
    "\"agent\":{\"type\":\"string\",\"description\":\"a new member's specialist\"},"
    "\"isolation\":{\"type\":\"string\",\"enum\":[\"none\",\"worktree\"]}},"
    "\"required\":[\"team\",\"to\",\"work\"],\"additionalProperties\":false}";

static const char COLLECT_SCHEMA[] =
    "{\"type\":\"object\",\"properties\":{"
    "\"team\":{\"type\":\"string\"},"
    "\"wait_ms\":{\"type\":\"integer\",\"description\":\"wait up to this long for every "
    "member to finish (default 0: report at once)\"}},"
    "\"required\":[\"team\"],\"additionalProperties\":false}";

static const char INBOX_SCHEMA[] =
    "{\"type\":\"object\",\"properties\":{"
    "\"team\":{\"type\":\"string\",\"description\":\"the team (the orchestrator only)\"}},"
    "\"additionalProperties\":false}";

const ztool_def zsub_swarm_defs[] = {
    {"swarm_spawn",
     "Start several sub-agents at once as a team, each with its own job (and, when it can "
     "write, its own git worktree). Collect their results with swarm_collect.",
     SPAWN_SCHEMA, "shell"},
    {"swarm_send", "Put a message in a swarm member's (or the orchestrator's) mailbox.",
     SEND_SCHEMA, "none"},
    {"swarm_handoff",
     "Hand a piece of work to a swarm member: a running one finds it in its mailbox; a new name "
     "starts a member with it.",
     HANDOFF_SCHEMA, "shell"},
    {"swarm_collect",
     "The team's results: each member's status, final answer, branch and diff stat, and the "
     "messages sent to the orchestrator.",
     COLLECT_SCHEMA, "none"},
    {"swarm_inbox", "Read (and mark read) the new messages and handoffs in your mailbox.",
     INBOX_SCHEMA, "none"},
};
const size_t zsub_swarm_ndefs = ZARRAY_LEN(zsub_swarm_defs);

bool zsub_swarm_tool(const char *name) {
  for (size_t i = 0; i < ZARRAY_LEN(ORCH_TOOLS); i++)
    if (!strcmp(name, ORCH_TOOLS[i])) return true;
  for (size_t i = 0; i < ZARRAY_LEN(BOTH_TOOLS); i++)
    if (!strcmp(name, BOTH_TOOLS[i])) return true;
  return false;
}

/* The run's swarm state, made on first use (a member's identity comes from
 * the environment its orchestrator gave it). */
static struct zsub_swarm *swarm_of(zsub_runtime *r) {
  if (r->swarm) return r->swarm;
  struct zsub_swarm *s = xcalloc(1, sizeof *s);
  const char *dir = getenv("ZERO_SWARM_DIR"), *name = getenv("ZERO_SWARM_MEMBER");
  if (dir && dir[0] == '/' && name && zmbox_name_ok(name)) {
    s->my_dir = xstrdup(dir);
    s->my_name = xstrdup(name);
  }
  pthread_mutex_lock(&r->bg_mu); /* /ps reads r->swarm under it */
  r->swarm = s;
  pthread_mutex_unlock(&r->bg_mu);
  return s;
}

static bool is_member(const zsub_runtime *r) {
  const char *dir = getenv("ZERO_SWARM_DIR"), *name = getenv("ZERO_SWARM_MEMBER");
  (void)r;
  return dir && dir[0] == '/' && name && zmbox_name_ok(name);
}

bool zsub_swarm_offered(const zsub_runtime *r, const char *name) {
  /* An orchestrator's tools are opt-in (swarm.enabled): their schemas cost
   * every request ~760 tokens. A member has its mailbox, never a team of its
   * own. */
  if (!is_member(r)) return r->swarm_enabled;
  for (size_t i = 0; i < ZARRAY_LEN(BOTH_TOOLS); i++)
    if (!strcmp(name, BOTH_TOOLS[i])) return true;
  return false;
}

/* ---- teams and members ---------------------------------------------------------- */

static team *team_find(struct zsub_swarm *s, const char *name) {
  for (size_t i = 0; name && i < s->n; i++)
    if (!strcmp(s->teams[i]->name, name)) return s->teams[i];
  return NULL;
}

static member *member_find(team *t, const char *name) {
  for (size_t i = 0; name && i < t->n; i++)
    if (!strcmp(t->m[i].name, name)) return &t->m[i];
  return NULL;
}

/* Whether a running (started, not finished) member. */
static bool member_running(member *m) {
  if (!m->t) return false;
  pthread_mutex_lock(&m->t->mu);
  bool done = m->t->done;
  pthread_mutex_unlock(&m->t->mu);
  return !done;
}

/* A definition writes when it may use a tool that changes files or runs
 * commands (or every tool): its members get a worktree by default. */
static bool def_writes(const zsub_def *d) {
  static const char *const writers[] = {"write_file", "edit_file", "apply_patch", "exec_command",
                                        "multi_edit"};
  if (!d->tools) return true;
  for (size_t i = 0; i < ZARRAY_LEN(writers); i++)
    if (zsub_def_allows(d, writers[i])) return true;
  return false;
}

/* The prompt a member starts with: who it is, then its job. */
static char *member_prompt(const team *t, const member *m) {
  zbuf b = ZBUF_INIT;
  zbuf_addf(&b, "You are \"%s\", a member of the swarm team \"%s\". Other members:", m->name,
            t->name);
  for (size_t i = 0; i < t->n; i++)
    if (&t->m[i] != m) zbuf_addf(&b, " %s", t->m[i].name);
  zbuf_addstr(&b, ". swarm_inbox reads messages and handoffs sent to you; swarm_send messages "
                  "a member or the \"orchestrator\". Your final answer is your report to the "
                  "orchestrator.\n\nYour task:\n");
  zbuf_addstr(&b, zjson_str_or(m->spec, "prompt", ""));
  return zbuf_detach(&b, NULL);
}

/* Starts m (again): a background child with the team's environment.
 * -1 with res failed. */
static int member_launch(zsub_runtime *r, zagent *a, const char *call_id, team *t, member *m,
                         ztool_result *res) {
  json_t *args = json_deep_copy(m->spec);
  char *prompt = member_prompt(t, m);
  json_object_set_new(args, "prompt", json_string(prompt));
  free(prompt);
  if (!json_object_get(args, "description"))
    json_object_set_new(args, "description", json_string(m->name));
  task_req q = {0};
  int rc = zsub_task_parse(r, args, &q, res);
  char *env[3] = {NULL, NULL, NULL};
  if (rc == 0) {
    zbuf b = ZBUF_INIT;
    zbuf_addf(&b, "ZERO_SWARM_DIR=%s", t->dir);
    env[0] = zbuf_detach(&b, NULL);
    zbuf_addf(&b, "ZERO_SWARM_MEMBER=%s", m->name);
    env[1] = zbuf_detach(&b, NULL);
    q.env = (const char *const *)env;
    bg_task *bt = zsub_bg_launch(r, a, call_id, &q, res);
    if (!bt) rc = -1;
    pthread_mutex_lock(&r->bg_mu); /* /ps and /stop hold it while they use m->t */
    if (m->t) zsub_bg_free(m->t);  /* the crashed run it replaces (already reaped) */
    m->t = bt;
    m->launches++;
    pthread_mutex_unlock(&r->bg_mu);
  }
  free(env[0]);
  free(env[1]);
  zsub_defs_release(&q.defs);
  json_decref(args);
  return rc;
}

/* Whether m's run has ended, and (first time) records a crash. */
static bool member_ended(member *m, bool *crashed) {
  pthread_mutex_lock(&m->t->mu);
  bool done = m->t->done;
  *crashed = done && !strcmp(zsub_bg_status_locked(m->t), "crashed");
  if (*crashed && !m->crash) {
    zbuf b = ZBUF_INIT;
    zbuf_addf(&b, "crashed (%s)", m->t->outcome.diag.data ? m->t->outcome.diag.data : "no output");
    m->crash = zbuf_detach(&b, NULL);
  }
  pthread_mutex_unlock(&m->t->mu);
  return done;
}

/* Starts m; a failure is recorded as its crash. true when it runs. */
static bool member_try_launch(zsub_runtime *r, zagent *a, const char *call_id, team *t, member *m) {
  ztool_result tmp = ZTOOL_RESULT_INIT;
  bool ok = member_launch(r, a, call_id, t, m, &tmp) == 0;
  if (!ok && !m->crash) m->crash = xstrdup(tmp.output.data ? tmp.output.data : "could not start");
  ztool_result_release(&tmp);
  return ok;
}

/* Moves t on: a crashed member is relaunched (once), then queued members
 * start while fewer than the cap run. */
static void team_pump(zsub_runtime *r, zagent *a, const char *call_id, team *t) {
  size_t running = 0;
  for (size_t i = 0; i < t->n; i++) {
    member *m = &t->m[i];
    if (!m->t) continue;
    bool crashed = false;
    bool done = member_ended(m, &crashed);
    if (crashed && m->launches < MAX_LAUNCHES) done = !member_try_launch(r, a, call_id, t, m);
    if (!done) running++;
  }
  for (size_t i = 0; i < t->n && running < (size_t)r->max_team_size; i++) {
    member *m = &t->m[i];
    if (!m->t && !m->crash && member_try_launch(r, a, call_id, t, m)) running++;
  }
}

/* Adds one member from its spec; -1 with res failed. */
static int member_add(zsub_runtime *r, team *t, const json_t *spec, bool in_repo,
                      ztool_result *res) {
  const char *name = zjson_str(spec, "name");
  if (!json_is_object(spec) || !zmbox_name_ok(name) || !strcmp(name, ZMBOX_ORCHESTRATOR))
    return ztool_fail(res,
                      "each member needs a \"name\" (up to %d letters, digits, _ or -; not "
                      "\"orchestrator\") and a \"prompt\"",
                      ZMBOX_NAME_MAX);
  if (member_find(t, name))
    return ztool_fail(res, "team %s already has a member %s", t->name, name);
  if (t->n == MAX_MEMBERS) return ztool_fail(res, "a team has at most %d members", MAX_MEMBERS);
  /* Checked now, so a bad agent or prompt fails the call, not a later pump. */
  task_req q = {0};
  int rc = zsub_task_parse(r, spec, &q, res);
  bool writes = rc == 0 && def_writes(q.def);
  zsub_defs_release(&q.defs);
  if (rc < 0) return -1;
  member *m = &t->m[t->n]; /* filled, then counted: /ps reads members [0, n) */
  memset(m, 0, sizeof *m);
  snprintf(m->name, sizeof m->name, "%s", name);
  m->spec = json_deep_copy(spec);
  if (!json_object_get(m->spec, "isolation") && writes && in_repo)
    json_object_set_new(m->spec, "isolation", json_string("worktree"));
  json_object_del(m->spec, "name");
  json_object_del(m->spec, "background");
  json_object_del(m->spec, "resume");
  pthread_mutex_lock(&r->bg_mu);
  t->n++;
  pthread_mutex_unlock(&r->bg_mu);
  return 0;
}

static team *team_get(zsub_runtime *r, const char *name, bool make, ztool_result *res) {
  struct zsub_swarm *s = swarm_of(r);
  team *t = team_find(s, name);
  if (t || !make) {
    if (!t) ztool_fail(res, "no team \"%s\" in this run (swarm_spawn makes one)", name ? name : "");
    return t;
  }
  if (s->n == MAX_TEAMS) {
    ztool_fail(res, "a run may spawn at most %d teams", MAX_TEAMS);
    return NULL;
  }
  zerr err = ZERR_INIT;
  char *dir = zmbox_team_dir(r->workspace, name, true, &err);
  if (!dir) {
    ztool_fail(res, "cannot make team \"%s\": %s", name ? name : "", err.msg);
    return NULL;
  }
  t = xcalloc(1, sizeof *t);
  snprintf(t->name, sizeof t->name, "%s", name);
  t->dir = dir;
  pthread_mutex_lock(&r->bg_mu);
  s->teams[s->n++] = t;
  pthread_mutex_unlock(&r->bg_mu);
  return t;
}

/* ---- the tools ------------------------------------------------------------------ */

/* One started (or queued) member in swarm_spawn's answer. */
static json_t *spawn_line(const member *m, ztool_result *res) {
  const char *state = m->t ? "started" : m->crash ? "failed" : "queued";
  bool wt = !strcmp(zjson_str_or(m->spec, "isolation", "none"), "worktree");
  zbuf_addf(&res->output, "- %s (%s): %s%s%s%s\n", m->name,
            zjson_str_or(m->spec, "agent", "general"), state, wt ? ", in its own worktree" : "",
            m->crash ? ": " : "", m->crash ? m->crash : "");
  return json_pack("{s:s, s:s, s:s?, s:b}", "name", m->name, "state", state, "sessionId",
                   m->t ? m->t->outcome.session_id : NULL, "worktree", wt);
}

static void swarm_spawn(zsub_runtime *r, zagent *a, const ztool_call *call, const json_t *args,
                        ztool_result *res) {
  const json_t *members = json_object_get(args, "members");
  if (!json_is_array(members) || !json_array_size(members)) {
    ztool_fail(res, "swarm_spawn needs \"members\": [{name, prompt, agent?, isolation?}, …]");
    return;
  }
  if (r->depth >= r->max_depth) {
    ztool_fail(res, "swarm_spawn refused: this run is at depth %d and the limit is %d", r->depth,
               r->max_depth);
    return;
  }
  team *t = team_get(r, zjson_str(args, "team"), true, res);
  if (!t) return;
  size_t first = t->n;
  bool in_repo = zwt_in_repo(r->workspace);
  size_t i;
  json_t *spec;
  json_array_foreach(members, i, spec) {
    if (member_add(r, t, spec, in_repo, res) < 0) {
      /* nothing of this call starts: its members are dropped */
      size_t added = t->n;
      pthread_mutex_lock(&r->bg_mu);
      t->n = first;
      pthread_mutex_unlock(&r->bg_mu);
      for (size_t k = first; k < added; k++) json_decref(t->m[k].spec);
      return;
    }
  }
  team_pump(r, a, call->id, t);
  zbuf_addf(&res->output, "Team %s (mailboxes in %s/inboxes):\n", t->name, t->dir);
  json_t *list = json_array();
  for (size_t k = first; k < t->n; k++) json_array_append_new(list, spawn_line(&t->m[k], res));
  zbuf_addf(&res->output,
            "At most %d run at once; the rest wait. Collect results with swarm_collect "
            "{\"team\": \"%s\"}.",
            r->max_team_size, t->name);
  res->meta = json_pack("{s:s, s:o}", "team", t->name, "members", list);
}

/* The directory and name this run sends as: a member's own team, or the
 * orchestrator on one of its teams. NULL with res failed. */
static const char *sender(zsub_runtime *r, const json_t *args, const char **from,
                          ztool_result *res) {
  struct zsub_swarm *s = swarm_of(r);
  if (s->my_dir) {
    *from = s->my_name;
    return s->my_dir;
  }
  team *t = team_get(r, zjson_str(args, "team"), false, res);
  *from = ZMBOX_ORCHESTRATOR;
  return t ? t->dir : NULL;
}

static void swarm_send(zsub_runtime *r, const json_t *args, ztool_result *res) {
  const char *from = NULL;
  const char *dir = sender(r, args, &from, res);
  if (!dir) return;
  const char *to = zjson_str(args, "to"), *text = zjson_str(args, "message");
  if (!text) {
    ztool_fail(res, "swarm_send needs \"to\" and \"message\"");
    return;
  }
  zerr err = ZERR_INIT;
  if (zmbox_send(dir, from, to, "message", text, &err) < 0) {
    ztool_fail(res, "swarm_send: %s", err.msg);
    return;
  }
  zbuf_addf(&res->output, "Sent to %s's mailbox.", to);
}

static void swarm_inbox(zsub_runtime *r, const json_t *args, ztool_result *res) {
  const char *me = NULL;
  const char *dir = sender(r, args, &me, res);
  if (!dir) return;
  zerr err = ZERR_INIT;
  json_t *msgs = zmbox_take(dir, me, &err);
  if (!msgs) {
    ztool_fail(res, "swarm_inbox: %s", err.msg);
    return;
  }
  if (!json_array_size(msgs)) zbuf_addstr(&res->output, "No new messages.");
  size_t i;
  json_t *m;
  json_array_foreach(msgs, i, m) {
    zbuf_addf(&res->output, "[%s from %s] %s\n", zjson_str_or(m, "kind", "message"),
              zjson_str_or(m, "from", "?"), zjson_str_or(m, "text", ""));
  }
  res->meta = json_pack("{s:o}", "messages", msgs);
}

static void swarm_handoff(zsub_runtime *r, zagent *a, const ztool_call *call, const json_t *args,
                          ztool_result *res) {
  team *t = team_get(r, zjson_str(args, "team"), false, res);
  if (!t) return;
  const char *to = zjson_str(args, "to"), *work = zjson_str(args, "work");
  if (!work || !work[0]) {
    ztool_fail(res, "swarm_handoff needs \"to\" and \"work\"");
    return;
  }
  member *m = member_find(t, to);
  if (m && (member_running(m) || !m->t)) { /* running or queued: it reads it in its inbox */
    zerr err = ZERR_INIT;
    if (zmbox_send(t->dir, ZMBOX_ORCHESTRATOR, to, "handoff", work, &err) < 0) {
      ztool_fail(res, "swarm_handoff: %s", err.msg);
      return;
    }
    zbuf_addf(&res->output,
              "Handed the work to %s (in its mailbox; it reads it with "
              "swarm_inbox).",
              to);
    return;
  }
  if (m) {
    ztool_fail(res,
               "member %s has finished; hand the work to a new member name (a new member "
               "with that work is started)",
               to);
    return;
  }
  json_t *spec = json_pack("{s:s, s:s, s:s}", "name", to ? to : "", "prompt", work, "agent",
                           zjson_str_or(args, "agent", "general"));
  if (zjson_str(args, "isolation"))
    json_object_set_new(spec, "isolation", json_string(zjson_str(args, "isolation")));
  json_t *one = json_pack("{s:s, s:[O]}", "team", t->name, "members", spec);
  swarm_spawn(r, a, call, one, res);
  json_decref(one);
  json_decref(spec);
}

/* Whether every member of t has finished (none queued or running). */
static bool team_done(team *t) {
  for (size_t i = 0; i < t->n; i++) {
    member *m = &t->m[i];
    if (!m->t && !m->crash) return false;
    if (m->t && member_running(m)) return false;
  }
  return true;
}

/* One member's part of swarm_collect. */
static json_t *member_report(zsub_runtime *r, zagent *a, member *m, zbuf *out) {
  json_t *j = json_pack("{s:s, s:s, s:i}", "name", m->name, "agent",
                        zjson_str_or(m->spec, "agent", "general"), "launches", m->launches);
  if (m->crash) json_object_set_new(j, "crash", json_string(m->crash));
  if (!m->t) {
    json_object_set_new(j, "status", json_string(m->crash ? "failed" : "queued"));
    zbuf_addf(out, "## %s: %s\n%s\n", m->name, m->crash ? "failed to start" : "queued",
              m->crash ? m->crash : "");
    return j;
  }
  ztool_result one = ZTOOL_RESULT_INIT;
  pthread_mutex_lock(&m->t->mu);
  zsub_bg_report_locked(r, a, m->t, &one);
  bool done = m->t->done;
  pthread_mutex_unlock(&m->t->mu);
  const char *status = zjson_str_or(one.meta, "status", done ? "error" : "running");
  json_object_set_new(j, "status", json_string(status));
  json_object_set_new(j, "sessionId", json_string(m->t->outcome.session_id));
  const json_t *wt = json_object_get(one.meta, "worktree");
  if (wt) json_object_set(j, "worktree", (json_t *)wt);
  const char *text = one.output.data ? one.output.data : "";
  zbuf_addf(out, "## %s (%s)%s\n%.*s%s\n\n", m->name, status,
            m->launches > 1 ? " — relaunched after a crash" : "", ANSWER_MAX, text,
            strlen(text) > ANSWER_MAX ? "\n[… cut; read its session]" : "");
  if (done) m->collected = true;
  ztool_result_release(&one);
  return j;
}

static void swarm_collect(zsub_runtime *r, zagent *a, const ztool_call *call, const json_t *args,
                          ztool_result *res) {
  team *t = team_get(r, zjson_str(args, "team"), false, res);
  if (!t) return;
  int64_t wait = zjson_int_or(args, "wait_ms", 0);
  if (wait > COLLECT_MAX_WAIT_MS) wait = COLLECT_MAX_WAIT_MS;
  int64_t until = ztime_mono_ms() + wait;
  for (;;) {
    team_pump(r, a, call->id, t);
    if (team_done(t) || ztime_mono_ms() >= until || zcancel_requested()) break;
    struct pollfd pf = {zcancel_fd(), POLLIN, 0};
    (void)poll(&pf, 1, 200); /* the members' readers run meanwhile */
  }
  json_t *list = json_array();
  for (size_t i = 0; i < t->n; i++)
    json_array_append_new(list, member_report(r, a, &t->m[i], &res->output));
  zerr err = ZERR_INIT;
  json_t *mail = zmbox_take(t->dir, ZMBOX_ORCHESTRATOR, &err);
  size_t k;
  json_t *msg;
  json_array_foreach(mail, k, msg) {
    zbuf_addf(&res->output, "[message from %s] %s\n", zjson_str_or(msg, "from", "?"),
              zjson_str_or(msg, "text", ""));
  }
  if (!mail) zbuf_addf(&res->output, "(the orchestrator's mailbox: %s)\n", err.msg);
  bool done = team_done(t);
  res->meta = json_pack("{s:s, s:b, s:o, s:o}", "team", t->name, "done", done, "members", list,
                        "messages", mail ? mail : json_array());
}

void zsub_swarm_invoke(zsub_runtime *r, zagent *a, const ztool_call *call, const json_t *args,
                       ztool_result *res) {
  const char *n = call->name;
  if (!zsub_swarm_offered(r, n)) ztool_fail(res, "%s is for the orchestrator, not a member", n);
  else if (!strcmp(n, "swarm_spawn")) swarm_spawn(r, a, call, args, res);
  else if (!strcmp(n, "swarm_send")) swarm_send(r, args, res);
  else if (!strcmp(n, "swarm_inbox")) swarm_inbox(r, args, res);
  else if (!strcmp(n, "swarm_handoff")) swarm_handoff(r, a, call, args, res);
  else swarm_collect(r, a, call, args, res);
}

bg_task *zsub_swarm_task_at_locked(const zsub_runtime *r, size_t i, const char **team_name,
                                   const char **member_name) {
  const struct zsub_swarm *s = r->swarm;
  for (size_t k = 0; s && k < s->n; k++) {
    const struct team *t = s->teams[k];
    for (size_t j = 0; j < t->n; j++) {
      if (!t->m[j].t || i--) continue;
      *team_name = t->name;
      *member_name = t->m[j].name;
      return t->m[j].t;
    }
  }
  return NULL;
}

void zsub_swarm_free(struct zsub_swarm *s) {
  if (!s) return;
  for (size_t i = 0; i < s->n; i++) {
    team *t = s->teams[i];
    for (size_t k = 0; k < t->n; k++) {
      if (t->m[k].t) {
        zsub_bg_stop(t->m[k].t);
        zsub_bg_free(t->m[k].t);
      }
      json_decref(t->m[k].spec);
      free(t->m[k].crash);
    }
    free(t->dir);
    free(t);
  }
  free(s->my_dir);
  free(s->my_name);
  free(s);
}
