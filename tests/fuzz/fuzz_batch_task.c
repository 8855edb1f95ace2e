/* fuzz_batch_task.c — libFuzzer target for the lines `zero batch` reads: a
 * task line of the tasks file (batch/task.h) and a worker's stream-json line
 * (batch/result.h), both from files or processes the user does not fully
 * control.
 *
 * Invariants: no crash or leak; a task that parses has an id of 1-128
 * characters from [A-Za-z0-9._-] other than "." and "..", so it can never
 * name a path outside a directory, and a non-empty prompt; the result built
 * from the input always encodes to one line.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/err.h"
#include "batch/result.h"
#include "batch/task.h"

static void check_task(const zbatch_task *t) {
  size_t n = strlen(t->id);
  if (n == 0 || n > ZBATCH_ID_MAX ||
      strspn(t->id, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                    "0123456789._-") != n)
    __builtin_trap();
  if (!strcmp(t->id, ".") || !strcmp(t->id, "..") || !t->prompt[0]) __builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  zbatch_task t;
  zerr err = ZERR_INIT;
  if (zbatch_task_parse((const char *)data, size, 1, &t, &err) == 0) {
    check_task(&t);
    zbatch_task_release(&t);
  }
  zbatch_result r = {0};
  zbatch_result_feed(&r, (const char *)data, size);
  int fds[2];
  /* small inputs only: a line past the pipe's 64 KiB would block the write */
  if (size < 16384 && pipe(fds) == 0) {
    zerr werr = ZERR_INIT;
    if (zbatch_result_write(fds[1], "id", &r, 0, 1, &werr) == 0) {
      char buf[4096];
      ssize_t got = read(fds[0], buf, sizeof buf);
      if (got <= 0 || (got < (ssize_t)sizeof buf &&
                       (buf[got - 1] != '\n' || memchr(buf, '\n', (size_t)got - 1))))
        __builtin_trap();
    }
    close(fds[0]);
    close(fds[1]);
  }
  zbatch_result_release(&r);
  return 0;
}
