/* test_net_ask.c — network "scoped": the question about a host on neither
 * list (perm/net_ask.h), answered through the one prompt flow and
 * remembered as host grants: once, for the session, always (saved in the
 * grants file), a deny grant winning, headless denial. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/common.h"
#include "base/fs.h"
#include "base/path.h"
#include "perm/net_ask.h"

/* A face whose approver answers as told and counts the questions. */
typedef struct fake {
  zperm_action action;
  int scope;
  int asked;
  char last_value[256];
  int last_kind;
} fake;

static zapproval fake_approve(void *ud, const zapproval_request *req) {
  fake *f = ud;
  f->asked++;
  snprintf(f->last_value, sizeof f->last_value, "%s", req->grant_value);
  f->last_kind = req->grant_kind;
  return (zapproval){.action = f->action, .scope = f->scope};
}

static zperm_face with_approver(void *ud) {
  return (zperm_face){.approve = fake_approve, .approve_ud = ud, .name = "test"};
}

static zperm_face headless(void *ud) {
  (void)ud;
  return (zperm_face){.name = "zero exec"};
}

static char *tmp_grants(void) {
  char dir[] = "/tmp/zero-net-ask-XXXXXX";
  assert_non_null(mkdtemp(dir));
  return zpath_join(dir, "sandbox-grants.json");
}

static void rm_grants(char *path) {
  unlink(path);
  char *slash = strrchr(path, '/');
  *slash = '\0';
  rmdir(path);
  free(path);
}

static void once_asks_every_time_and_session_remembers(void **state) {
  (void)state;
  char *path = tmp_grants();
  fake f = {.action = ZPERM_ALLOW, .scope = ZGRANT_ONCE};
  zperm_net_asker x;
  zperm_net_asker_init(&x, path, with_approver, &f);
  assert_true(zperm_net_ask(&x, "registry.example", 443));
  assert_true(zperm_net_ask(&x, "registry.example", 443));
  assert_int_equal(f.asked, 2);
  assert_string_equal(f.last_value, "registry.example");
  assert_int_equal(f.last_kind, ZGRANT_HOST);
  f.scope = ZGRANT_SESSION;
  assert_true(zperm_net_ask(&x, "registry.example", 443));
  assert_true(zperm_net_ask(&x, "registry.example", 443)); /* remembered */
  assert_int_equal(f.asked, 3);
  /* another host is another question */
  f.action = ZPERM_DENY;
  f.scope = ZGRANT_ONCE;
  assert_false(zperm_net_ask(&x, "other.example", 443));
  assert_int_equal(f.asked, 4);
  assert_false(zfs_exists(path)); /* nothing saved */
  zperm_net_asker_release(&x);
  rm_grants(path);
}

static void always_is_saved_and_read_by_the_next_run(void **state) {
  (void)state;
  char *path = tmp_grants();
  fake f = {.action = ZPERM_ALLOW, .scope = ZGRANT_ALWAYS};
  zperm_net_asker x;
  zperm_net_asker_init(&x, path, with_approver, &f);
  assert_true(zperm_net_ask(&x, "git.example", 443));
  zperm_net_asker_release(&x);
  zbuf b = ZBUF_INIT;
  zerr err = ZERR_INIT;
  assert_int_equal(zfs_read_file(path, &b, 1 << 16, &err), 0);
  assert_non_null(strstr(b.data, "\"kind\": \"host\""));
  assert_non_null(strstr(b.data, "\"value\": \"git.example\""));
  zbuf_release(&b);
  /* the next run: allowed without a question, even headless */
  zperm_net_asker_init(&x, path, headless, NULL);
  assert_true(zperm_net_ask(&x, "git.example", 443));
  assert_false(zperm_net_ask(&x, "evil.example", 443));
  zperm_net_asker_release(&x);
  rm_grants(path);
}

static void a_deny_grant_wins_and_headless_denies(void **state) {
  (void)state;
  char *path = tmp_grants();
  zerr err = ZERR_INIT;
  assert_int_equal(zgrants_file_add(path, "network", ZGRANT_HOST, "both.example", true, &err), 0);
  assert_int_equal(zgrants_file_add(path, "network", ZGRANT_HOST, "both.example", false, &err), 0);
  fake f = {.action = ZPERM_ALLOW, .scope = ZGRANT_ONCE};
  zperm_net_asker x;
  zperm_net_asker_init(&x, path, with_approver, &f);
  assert_false(zperm_net_ask(&x, "both.example", 443));
  assert_int_equal(f.asked, 0); /* a grant answered: no question */
  zperm_net_asker_release(&x);
  zperm_net_asker_init(&x, path, headless, NULL);
  assert_false(zperm_net_ask(&x, "unknown.example", 443));
  zperm_net_asker_release(&x);
  rm_grants(path);
}

/* "always for this workspace": an always answer given in one workspace is
 * saved with it and answers only runs in that workspace. */
static void always_holds_for_its_workspace_only(void **state) {
  (void)state;
  char *path = tmp_grants();
  fake f = {.action = ZPERM_ALLOW, .scope = ZGRANT_ALWAYS};
  zperm_net_asker x;
  zperm_net_asker_init(&x, path, with_approver, &f);
  zperm_net_asker_set_workspace(&x, "/src/app");
  assert_true(zperm_net_ask(&x, "git.example", 443));
  assert_true(zperm_net_ask(&x, "git.example", 443)); /* this run: remembered */
  assert_int_equal(f.asked, 1);
  zperm_net_asker_release(&x);
  zbuf b = ZBUF_INIT;
  zerr err = ZERR_INIT;
  assert_int_equal(zfs_read_file(path, &b, 1 << 16, &err), 0);
  assert_non_null(strstr(b.data, "\"workspace\": \"/src/app\""));
  zbuf_release(&b);
  /* another workspace: the saved grant does not answer (headless: denied) */
  zperm_net_asker_init(&x, path, headless, NULL);
  zperm_net_asker_set_workspace(&x, "/src/other");
  assert_false(zperm_net_ask(&x, "git.example", 443));
  zperm_net_asker_release(&x);
  /* nor a run that names no workspace */
  zperm_net_asker_init(&x, path, headless, NULL);
  assert_false(zperm_net_ask(&x, "git.example", 443));
  zperm_net_asker_release(&x);
  /* the same workspace: allowed without a question */
  zperm_net_asker_init(&x, path, headless, NULL);
  zperm_net_asker_set_workspace(&x, "/src/app");
  assert_true(zperm_net_ask(&x, "git.example", 443));
  zperm_net_asker_release(&x);
  /* a grant added by the CLI (no workspace) holds everywhere */
  assert_int_equal(zgrants_file_add(path, "network", ZGRANT_HOST, "all.example", true, &err), 0);
  zperm_net_asker_init(&x, path, headless, NULL);
  zperm_net_asker_set_workspace(&x, "/src/other");
  assert_true(zperm_net_ask(&x, "all.example", 443));
  zperm_net_asker_release(&x);
  rm_grants(path);
}

static void a_host_grant_names_one_host(void **state) {
  (void)state;
  char why[256];
  assert_true(zgrant_too_broad(ZGRANT_HOST, "*.example", true, why, sizeof why));
  assert_true(zgrant_too_broad(ZGRANT_HOST, "", true, why, sizeof why));
  assert_false(zgrant_too_broad(ZGRANT_HOST, "a.example", true, why, sizeof why));
  zgrant_kind k;
  assert_true(zgrant_kind_parse("host", &k));
  assert_int_equal(k, ZGRANT_HOST);
  char *d = zgrant_describe(ZGRANT_HOST, "network", "a.example");
  assert_non_null(strstr(d, "a.example"));
  free(d);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(once_asks_every_time_and_session_remembers),
      cmocka_unit_test(always_is_saved_and_read_by_the_next_run),
      cmocka_unit_test(a_deny_grant_wins_and_headless_denies),
      cmocka_unit_test(a_host_grant_names_one_host),
      cmocka_unit_test(always_holds_for_its_workspace_only),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
