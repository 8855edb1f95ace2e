/* test_mailbox.c — a swarm's mailboxes (subagent/mailbox.h): names, modes,
 * the 64 KiB and 1,000-message limits, a malformed mailbox left as it is,
 * symbolic links refused, and worktree names (subagent/worktree.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/fs.h"
#include "base/path.h"
#include "subagent/mailbox.h"
#include "subagent/worktree.h"

typedef struct fixture {
  char ws[64];
  char *team;
} fixture;

static int setup(void **state) {
  fixture *f = calloc(1, sizeof *f);
  snprintf(f->ws, sizeof f->ws, "/tmp/zero-mbox-XXXXXX");
  if (!mkdtemp(f->ws)) return -1;
  zerr err = ZERR_INIT;
  f->team = zmbox_team_dir(f->ws, "t", true, &err);
  if (!f->team) return -1;
  *state = f;
  return 0;
}

static int teardown(void **state) {
  fixture *f = *state;
  zfs_remove_tree(f->ws);
  free(f->team);
  free(f);
  return 0;
}

static char *inbox(const fixture *f, const char *who) {
  zbuf b = ZBUF_INIT;
  zbuf_addf(&b, "%s/inboxes/%s.json", f->team, who);
  return zbuf_detach(&b, NULL);
}

static void names_are_sanitised(void **state) {
  (void)state;
  assert_true(zmbox_name_ok("a-b_9"));
  assert_false(zmbox_name_ok(""));
  assert_false(zmbox_name_ok("../x"));
  assert_false(zmbox_name_ok("a.b"));
  assert_false(zmbox_name_ok("-a"));
  assert_true(zwt_name_ok("sub-0a.b_c"));
  assert_false(zwt_name_ok("../evil"));
  assert_false(zwt_name_ok(".hidden"));
  assert_false(zwt_name_ok("a..b"));
  assert_false(zwt_name_ok("x.lock"));
  assert_false(zwt_name_ok("a/b"));
  char n[ZWT_NAME_MAX + 1];
  zwt_new_name("sub", n);
  assert_true(zwt_name_ok(n));
  assert_int_equal(strncmp(n, "sub-", 4), 0);
}

static void send_and_take_with_private_modes(void **state) {
  fixture *f = *state;
  zerr err = ZERR_INIT;
  assert_int_equal(zmbox_send(f->team, "a", "b", "message", "hi", &err), 0);
  assert_int_equal(zmbox_send(f->team, "c", "b", "handoff", "work", &err), 0);
  char *p = inbox(f, "b");
  struct stat st;
  assert_int_equal(stat(p, &st), 0);
  assert_int_equal(st.st_mode & 0777, 0600);
  char *dir = zpath_join(f->team, "inboxes");
  assert_int_equal(stat(dir, &st), 0);
  assert_int_equal(st.st_mode & 0777, 0700);
  json_t *m = zmbox_take(f->team, "b", &err);
  assert_non_null(m);
  assert_int_equal(json_array_size(m), 2);
  assert_string_equal(json_string_value(json_object_get(json_array_get(m, 1), "kind")), "handoff");
  assert_false(json_is_true(json_object_get(json_array_get(m, 0), "read")));
  json_decref(m);
  m = zmbox_take(f->team, "b", &err); /* read once */
  assert_int_equal(json_array_size(m), 0);
  json_decref(m);
  free(dir);
  free(p);
}

static void message_over_64_kib_is_refused(void **state) {
  fixture *f = *state;
  zerr err = ZERR_INIT;
  char *big = malloc(ZMBOX_MSG_MAX + 2);
  memset(big, 'x', ZMBOX_MSG_MAX + 1);
  big[ZMBOX_MSG_MAX + 1] = '\0';
  assert_int_equal(zmbox_send(f->team, "a", "b", "message", big, &err), -1);
  assert_int_equal(err.kind, ZE_TOO_LARGE);
  big[ZMBOX_MSG_MAX] = '\0'; /* exactly the limit fits */
  assert_int_equal(zmbox_send(f->team, "a", "b", "message", big, &err), 0);
  free(big);
}

static void full_mailbox_refuses_then_drops_read_messages_first(void **state) {
  fixture *f = *state;
  zerr err = ZERR_INIT;
  for (int i = 0; i < ZMBOX_MAX_MSGS; i++)
    assert_int_equal(zmbox_send(f->team, "a", "b", "message", "m", &err), 0);
  assert_int_equal(zmbox_send(f->team, "a", "b", "message", "one too many", &err), -1);
  assert_int_equal(err.kind, ZE_TOO_LARGE);
  json_decref(zmbox_take(f->team, "b", &err)); /* all read: room again */
  assert_int_equal(zmbox_send(f->team, "a", "b", "message", "fits now", &err), 0);
  json_t *m = zmbox_take(f->team, "b", &err);
  assert_int_equal(json_array_size(m), 1);
  json_decref(m);
}

static void malformed_mailbox_is_an_error_and_kept(void **state) {
  fixture *f = *state;
  char *p = inbox(f, "b");
  static const char junk[] = "[{\"text\": 1}] not json";
  FILE *fp = fopen(p, "w");
  fputs(junk, fp);
  fclose(fp);
  zerr err = ZERR_INIT;
  assert_int_equal(zmbox_send(f->team, "a", "b", "message", "x", &err), -1);
  assert_int_equal(err.kind, ZE_INVALID);
  assert_null(zmbox_take(f->team, "b", &err));
  zbuf b = ZBUF_INIT;
  assert_int_equal(zfs_read_file(p, &b, 0, &err), 0);
  assert_string_equal(b.data, junk);
  zbuf_release(&b);
  free(p);
}

static void symlinked_mailbox_or_folder_is_refused(void **state) {
  fixture *f = *state;
  char victim[128];
  snprintf(victim, sizeof victim, "%s/victim", f->ws);
  FILE *fp = fopen(victim, "w");
  fputs("[]", fp);
  fclose(fp);
  char *p = inbox(f, "b");
  assert_int_equal(symlink(victim, p), 0);
  zerr err = ZERR_INIT;
  assert_int_equal(zmbox_send(f->team, "a", "b", "message", "x", &err), -1);
  zbuf b = ZBUF_INIT;
  assert_int_equal(zfs_read_file(victim, &b, 0, &err), 0);
  assert_string_equal(b.data, "[]"); /* never written through the link */
  zbuf_release(&b);
  /* a team folder that is a link to elsewhere */
  char *swarm = zpath_join(f->ws, ".zero/swarm");
  char *other = zpath_join(swarm, "u");
  assert_int_equal(symlink(f->ws, other), 0);
  assert_null(zmbox_team_dir(f->ws, "u", true, &err));
  assert_int_equal(err.kind, ZE_USAGE);
  free(other);
  free(swarm);
  free(p);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(names_are_sanitised),
      cmocka_unit_test_setup_teardown(send_and_take_with_private_modes, setup, teardown),
      cmocka_unit_test_setup_teardown(message_over_64_kib_is_refused, setup, teardown),
      cmocka_unit_test_setup_teardown(full_mailbox_refuses_then_drops_read_messages_first, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(malformed_mailbox_is_an_error_and_kept, setup, teardown),
      cmocka_unit_test_setup_teardown(symlinked_mailbox_or_folder_is_refused, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
