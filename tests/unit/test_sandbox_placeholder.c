/* test_sandbox_placeholder.c — the placeholders for missing protected names:
 * made with the mark, shared by concurrent holders and removed only by the
 * last, a leaked one adopted, a real file never touched. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sandbox/placeholder.h"

static char dir[64];
static char path[160];

static int setup(void **state) {
  (void)state;
  snprintf(dir, sizeof dir, "/tmp/zero-ph-XXXXXX");
  if (!mkdtemp(dir)) return -1;
  snprintf(path, sizeof path, "%s/.zero", dir);
  return 0;
}

static int teardown(void **state) {
  (void)state;
  unlink(path);
  rmdir(path);
  rmdir(dir);
  return 0;
}

static bool exists(void) {
  struct stat st;
  return lstat(path, &st) == 0;
}

static void made_with_the_mark_and_removed_by_its_holder(void **state) {
  (void)state;
  zsb_holds h = {0};
  assert_int_equal(zsb_ph_acquire(&h, path), 1);
  struct stat st;
  assert_int_equal(lstat(path, &st), 0);
  assert_true(S_ISREG(st.st_mode));
  assert_int_equal(st.st_mode & 07777, ZSB_PH_MODE);
  assert_int_equal(st.st_size, 0);
  assert_true(zsb_ph_is_placeholder(&st));
  zsb_ph_release(&h);
  assert_int_equal(h.n, 0);
  assert_false(exists());
}

static void the_last_of_concurrent_holders_removes_it(void **state) {
  (void)state;
  zsb_holds a = {0}, b = {0};
  assert_int_equal(zsb_ph_acquire(&a, path), 1);
  assert_int_equal(zsb_ph_acquire(&b, path), 1); /* adopts the same file */
  struct stat sa, sb;
  assert_int_equal(fstat(a.v[0].fd, &sa), 0);
  assert_int_equal(fstat(b.v[0].fd, &sb), 0);
  assert_int_equal(sa.st_ino, sb.st_ino);
  zsb_ph_release(&a); /* b still holds it: it stays, b's mount stays */
  assert_true(exists());
  zsb_ph_release(&b);
  assert_false(exists());
}

static void a_leaked_placeholder_is_adopted(void **state) {
  (void)state;
  int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
  assert_true(fd >= 0);
  assert_int_equal(fchmod(fd, ZSB_PH_MODE), 0);
  close(fd); /* no lock held: its maker was killed */
  zsb_holds h = {0};
  assert_int_equal(zsb_ph_acquire(&h, path), 1);
  zsb_ph_release(&h);
  assert_false(exists());
}

static void a_real_file_or_directory_is_left_alone(void **state) {
  (void)state;
  int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644); /* the user's own empty file */
  assert_true(fd >= 0);
  close(fd);
  zsb_holds h = {0};
  assert_int_equal(zsb_ph_acquire(&h, path), 0);
  assert_int_equal(h.n, 0);
  zsb_ph_release(&h);
  assert_true(exists());
  unlink(path);
  assert_int_equal(mkdir(path, 0755), 0);
  assert_int_equal(zsb_ph_acquire(&h, path), 0);
  assert_true(exists());
  /* A non-empty file with the mode of the mark is not a placeholder either. */
  rmdir(path);
  fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
  assert_int_equal(write(fd, "x", 1), 1);
  assert_int_equal(fchmod(fd, ZSB_PH_MODE), 0);
  close(fd);
  assert_int_equal(zsb_ph_acquire(&h, path), 0);
  assert_true(exists());
}

static void a_placeholder_replaced_while_held_is_not_removed(void **state) {
  (void)state;
  zsb_holds h = {0};
  assert_int_equal(zsb_ph_acquire(&h, path), 1);
  /* Someone swapped the name for a real file meanwhile: never unlink that. */
  assert_int_equal(unlink(path), 0);
  int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
  assert_true(fd >= 0);
  close(fd);
  zsb_ph_release(&h);
  assert_true(exists());
}

/* ---- the stash ----------------------------------------------------------- */

static char stash[128];

static int setup_stash(void **state) {
  if (setup(state) < 0) return -1;
  snprintf(stash, sizeof stash, "%s/stash", dir);
  return mkdir(stash, 0700);
}

static int teardown_stash(void **state) {
  for (int i = 0; i < ZSB_PH_STASH_SLOTS; i++) {
    char e[160];
    snprintf(e, sizeof e, "%s/%d", stash, i);
    unlink(e);
  }
  char e[160];
  snprintf(e, sizeof e, "%s/planted-link", dir);
  unlink(e);
  rmdir(stash);
  return teardown(state);
}

static ino_t ino_of(const char *p) {
  struct stat st;
  return lstat(p, &st) == 0 ? st.st_ino : 0;
}

static void a_released_placeholder_is_stashed_and_reused(void **state) {
  (void)state;
  char e0[160];
  snprintf(e0, sizeof e0, "%s/0", stash);
  zsb_holds h = {.stash = stash};
  assert_int_equal(zsb_ph_acquire(&h, path), 1); /* empty stash: made */
  ino_t made = ino_of(path);
  zsb_ph_release(&h);
  assert_false(exists());
  assert_int_equal(ino_of(e0), made); /* moved to the stash, not deleted */
  assert_int_equal(zsb_ph_acquire(&h, path), 1);
  assert_int_equal(ino_of(path), made); /* the same file came back */
  assert_int_equal(ino_of(e0), 0);
  struct stat st;
  assert_int_equal(lstat(path, &st), 0);
  assert_true(zsb_ph_is_placeholder(&st));
  /* Two holders, the second adopts it: the first to let go keeps it. */
  zsb_holds b = {.stash = stash};
  assert_int_equal(zsb_ph_acquire(&b, path), 1);
  zsb_ph_release(&h);
  assert_true(exists());
  assert_int_equal(ino_of(e0), 0);
  zsb_ph_release(&b);
  assert_false(exists());
  assert_int_equal(ino_of(e0), made);
}

/* A missing .git/commondir: git on the host reads it while the sandbox
 * lives, and an empty one stops every git command in the repository. The
 * placeholder says "." (the git dir itself), is never taken from the stash
 * nor put there, and goes when released. */
static void a_commondir_placeholder_holds_a_dot_and_is_never_stashed(void **state) {
  (void)state;
  char e0[160];
  snprintf(e0, sizeof e0, "%s/0", stash);
  zsb_holds h = {.stash = stash};
  assert_int_equal(zsb_ph_acquire(&h, path), 1);
  zsb_ph_release(&h); /* an empty one waits in the stash */
  ino_t stashed = ino_of(e0);
  assert_true(stashed != 0);
  assert_int_equal(zsb_ph_acquire_text(&h, path, ".\n"), 1);
  assert_true(ino_of(path) != stashed); /* made, not the empty one */
  char got[8] = {0};
  int fd = open(path, O_RDONLY);
  assert_int_equal(read(fd, got, sizeof got), 2);
  close(fd);
  assert_string_equal(got, ".\n");
  struct stat st;
  assert_int_equal(lstat(path, &st), 0);
  assert_true(zsb_ph_is_placeholder(&st));
  zsb_holds b = {.stash = stash};
  assert_int_equal(zsb_ph_acquire_text(&b, path, ".\n"), 1); /* adopted */
  zsb_ph_release(&h);
  assert_true(exists());
  zsb_ph_release(&b);
  assert_false(exists());
  assert_int_equal(ino_of(e0), stashed); /* deleted, not stashed over the empty one */
  char e1[160];
  snprintf(e1, sizeof e1, "%s/1", stash);
  assert_int_equal(ino_of(e1), 0);
}

/* Something planted in the stash by a process that still has it open (it
 * could write it once it is a workspace's .zero) is never used. */
static void a_stash_entry_open_elsewhere_is_not_used(void **state) {
  (void)state;
  char e0[160];
  snprintf(e0, sizeof e0, "%s/0", stash);
  int w = open(e0, O_RDWR | O_CREAT | O_EXCL, 0600);
  assert_true(w >= 0);
  assert_int_equal(fchmod(w, ZSB_PH_MODE), 0);
  ino_t planted = ino_of(e0);
  zsb_holds h = {.stash = stash};
  assert_int_equal(zsb_ph_acquire(&h, path), 1);
  assert_true(ino_of(path) != planted);
  assert_int_equal(ino_of(e0), planted); /* left where it was */
  assert_int_equal(write(w, "x", 1), 1);
  struct stat st;
  assert_int_equal(lstat(path, &st), 0);
  assert_int_equal(st.st_size, 0);
  close(w);
  zsb_ph_release(&h);
  assert_false(exists());
}

/* Not exactly a placeholder (content, another mode, a second link): not used. */
static void a_stash_entry_that_is_not_a_placeholder_is_not_used(void **state) {
  (void)state;
  char e0[160], e1[160], e2[160], link2[160];
  snprintf(e0, sizeof e0, "%s/0", stash);
  snprintf(e1, sizeof e1, "%s/1", stash);
  snprintf(e2, sizeof e2, "%s/2", stash);
  snprintf(link2, sizeof link2, "%s/planted-link", dir);
  int fd = open(e0, O_WRONLY | O_CREAT | O_EXCL, 0600);
  assert_true(fd >= 0);
  assert_int_equal(write(fd, "{}", 2), 2);
  assert_int_equal(fchmod(fd, ZSB_PH_MODE), 0);
  close(fd);
  fd = open(e1, O_WRONLY | O_CREAT | O_EXCL, 0400);
  assert_true(fd >= 0);
  close(fd);
  fd = open(e2, O_WRONLY | O_CREAT | O_EXCL, ZSB_PH_MODE);
  assert_true(fd >= 0);
  assert_int_equal(fchmod(fd, ZSB_PH_MODE), 0);
  close(fd);
  assert_int_equal(link(e2, link2), 0);
  ino_t i0 = ino_of(e0), i1 = ino_of(e1), i2 = ino_of(e2);
  zsb_holds h = {.stash = stash};
  assert_int_equal(zsb_ph_acquire(&h, path), 1);
  ino_t got = ino_of(path);
  assert_true(got != i0 && got != i1 && got != i2);
  assert_int_equal(ino_of(e0), i0);
  assert_int_equal(ino_of(e1), i1);
  assert_int_equal(ino_of(e2), i2);
  zsb_ph_release(&h);
  assert_false(exists());
}

/* A missing .git gets a directory placeholder (an empty .git file would
 * stop git on the host with "invalid gitfile format" while the command
 * runs): marked, shared by concurrent holders, removed by the last, kept
 * when something was put in it, and a real directory is never taken. */
static void a_directory_placeholder_for_a_missing_git(void **state) {
  (void)state;
  zsb_holds a = {0}, b = {0};
  assert_int_equal(zsb_ph_acquire_dir(&a, path), 1);
  struct stat st;
  assert_int_equal(lstat(path, &st), 0);
  assert_true(S_ISDIR(st.st_mode));
  assert_int_equal(st.st_mode & 07777, ZSB_PH_DIR_MODE);
  assert_true(zsb_ph_is_dir_placeholder(&st));
  assert_false(zsb_ph_is_placeholder(&st));
  assert_int_equal(zsb_ph_acquire_dir(&b, path), 1); /* adopted */
  zsb_ph_release(&a);
  assert_true(exists()); /* b's mount would still be there */
  zsb_ph_release(&b);
  assert_false(exists());
  /* a leaked one (its maker was killed) is adopted and removed */
  assert_int_equal(mkdir(path, 0700), 0);
  assert_int_equal(chmod(path, ZSB_PH_DIR_MODE), 0);
  assert_int_equal(zsb_ph_acquire_dir(&a, path), 1);
  /* the user ran git init meanwhile (as root, past the mode): kept */
  char inner[200];
  snprintf(inner, sizeof inner, "%s/HEAD", path);
  int fd = open(inner, O_WRONLY | O_CREAT | O_EXCL, 0644);
  if (fd >= 0) close(fd);
  zsb_ph_release(&a);
  assert_int_equal(exists(), fd >= 0);
  unlink(inner);
  rmdir(path);
  /* a real directory (a user's empty .git) is left alone */
  assert_int_equal(mkdir(path, 0755), 0);
  assert_int_equal(zsb_ph_acquire_dir(&a, path), 0);
  assert_int_equal(a.n, 0);
  assert_true(exists());
}

/* zero's own .zero while a sandbox holds its directory placeholder (the hook
 * runner lasts the whole run): claimed as a real folder, which the holder's
 * release then leaves in place with what zero put in it. */
static void zero_claims_a_held_directory_placeholder_as_its_folder(void **state) {
  (void)state;
  zsb_holds a = {0};
  zerr err = ZERR_INIT;
  assert_int_equal(zsb_ph_acquire_dir(&a, path), 1);
  assert_int_equal(zsb_ph_make_own_dir(path, 0700, &err), 0);
  struct stat st;
  assert_int_equal(lstat(path, &st), 0);
  assert_true(S_ISDIR(st.st_mode));
  assert_int_equal(st.st_mode & 07777, 0700);
  zsb_ph_release(&a);
  assert_true(exists()); /* no longer a placeholder: kept, even empty */
  assert_int_equal(zsb_ph_make_own_dir(path, 0700, &err), 0); /* a real folder: kept */
  rmdir(path);
  /* missing: made with the mode asked for */
  assert_int_equal(zsb_ph_make_own_dir(path, 0755, &err), 0);
  assert_int_equal(lstat(path, &st), 0);
  assert_int_equal(st.st_mode & 0777, 0755 & ~umask(umask(0)));
}

static void zero_replaces_only_a_file_placeholder_nobody_holds(void **state) {
  (void)state;
  zerr err = ZERR_INIT;
  zsb_holds a = {0};
  assert_int_equal(zsb_ph_acquire(&a, path), 1); /* a file placeholder (older zero) */
  assert_int_equal(zsb_ph_make_own_dir(path, 0700, &err), -1);
  assert_non_null(strstr(err.msg, "running sandboxed command holds"));
  struct stat st;
  assert_int_equal(lstat(path, &st), 0);
  assert_true(zsb_ph_is_placeholder(&st)); /* the mount point stays */
  zsb_ph_release(&a);
  /* left behind unheld (its zero was killed): replaced by the folder */
  int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
  assert_true(fd >= 0);
  close(fd);
  assert_int_equal(chmod(path, ZSB_PH_MODE), 0);
  err = (zerr)ZERR_INIT;
  assert_int_equal(zsb_ph_make_own_dir(path, 0700, &err), 0);
  assert_int_equal(lstat(path, &st), 0);
  assert_true(S_ISDIR(st.st_mode));
  rmdir(path);
  /* a symlink or a plain file is refused, and left as it is */
  assert_int_equal(symlink("/tmp", path), 0);
  err = (zerr)ZERR_INIT;
  assert_int_equal(zsb_ph_make_own_dir(path, 0700, &err), -1);
  assert_non_null(strstr(err.msg, "not a folder"));
  assert_int_equal(lstat(path, &st), 0);
  assert_true(S_ISLNK(st.st_mode));
  unlink(path);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(made_with_the_mark_and_removed_by_its_holder, setup, teardown),
      cmocka_unit_test_setup_teardown(the_last_of_concurrent_holders_removes_it, setup, teardown),
      cmocka_unit_test_setup_teardown(a_leaked_placeholder_is_adopted, setup, teardown),
      cmocka_unit_test_setup_teardown(a_real_file_or_directory_is_left_alone, setup, teardown),
      cmocka_unit_test_setup_teardown(a_released_placeholder_is_stashed_and_reused, setup_stash,
                                      teardown_stash),
      cmocka_unit_test_setup_teardown(a_commondir_placeholder_holds_a_dot_and_is_never_stashed,
                                      setup_stash, teardown_stash),
      cmocka_unit_test_setup_teardown(a_stash_entry_open_elsewhere_is_not_used, setup_stash,
                                      teardown_stash),
      cmocka_unit_test_setup_teardown(a_stash_entry_that_is_not_a_placeholder_is_not_used,
                                      setup_stash, teardown_stash),
      cmocka_unit_test_setup_teardown(a_placeholder_replaced_while_held_is_not_removed, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(a_directory_placeholder_for_a_missing_git, setup, teardown),
      cmocka_unit_test_setup_teardown(zero_claims_a_held_directory_placeholder_as_its_folder, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(zero_replaces_only_a_file_placeholder_nobody_holds, setup,
                                      teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
