/* log.c — the debug log; see log.h. */
#include "base/log.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/common.h"
#include "base/fs.h"
#include "base/path.h"
#include "base/redact.h"
#include "base/time.h"

/* The process's log (the named singleton log.h describes). */
static struct {
  pthread_mutex_t mu;
  int fd;      /* -1: off */
  bool bodies; /* ZERO_LOG_BODIES=1 */
  char *path;  /* …/logs/zero.log */
  size_t size; /* of the file, as last seen */
} g_log = {PTHREAD_MUTEX_INITIALIZER, -1, false, NULL, 0};

char *zlog_dir(void) {
  cleanup_free char *state = zpath_state_dir();
  return zpath_join(state, "logs");
}

/* zero.log → zero.log.1 → … → zero.log.<KEEP-1>, the oldest dropped. Called
 * with the lock held (or before the log is shared). Another process may
 * rotate at the same moment: rename(2) is atomic, so at worst one file of
 * history is lost, never a line cut. */
static void rotate(void) {
  char from[4096], to[4096];
  snprintf(to, sizeof to, "%s.%d", g_log.path, ZLOG_KEEP - 1);
  (void)unlink(to);
  for (int i = ZLOG_KEEP - 2; i >= 0; i--) {
    if (i == 0) snprintf(from, sizeof from, "%s", g_log.path);
    else snprintf(from, sizeof from, "%s.%d", g_log.path, i);
    snprintf(to, sizeof to, "%s.%d", g_log.path, i + 1);
    (void)rename(from, to);
  }
}

/* Opens g_log.path for appending (rotating first when it is full).
 * Returns the descriptor or -1 with errno. */
static int open_file(void) {
  struct stat st;
  if (stat(g_log.path, &st) == 0 && (size_t)st.st_size >= ZLOG_MAX_BYTES) rotate();
  int fd = open(g_log.path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd >= 0) g_log.size = fstat(fd, &st) == 0 ? (size_t)st.st_size : 0;
  return fd;
}

void zlog_open(bool debug) {
  const char *env = getenv("ZERO_LOG");
  if (!debug && !(env && !strcasecmp(env, "debug"))) return;
  if (g_log.fd >= 0) return;
  if (debug) setenv("ZERO_LOG", "debug", 1); /* sub-agents and other zero children log too */
  const char *b = getenv("ZERO_LOG_BODIES");
  g_log.bodies = b && !strcmp(b, "1");
  cleanup_free char *dir = zlog_dir();
  zerr err = ZERR_INIT;
  if (zfs_mkdir_p(dir, 0700, &err) < 0) {
    fprintf(stderr, "[zero] WARNING: no debug log: %s\n", err.msg);
    return;
  }
  g_log.path = zpath_join(dir, "zero.log");
  g_log.fd = open_file();
  if (g_log.fd < 0) {
    fprintf(stderr, "[zero] WARNING: no debug log: cannot open %s: %s\n", g_log.path,
            strerror(errno));
    free(g_log.path);
    g_log.path = NULL;
    return;
  }
  atexit(zlog_close);
}

bool zlog_enabled(void) { return g_log.fd >= 0; }

bool zlog_bodies(void) { return g_log.fd >= 0 && g_log.bodies; }

/* Writes one finished line (redacted here, then cut at 8 KiB: cutting first
 * could leave a secret too short to be recognised), rotating when the file
 * is full. */
static void write_line(zbuf *line) {
  enum { MAX_LINE = 8192 };
  zredact(line);
  if (line->len > MAX_LINE) {
    size_t more = line->len - MAX_LINE;
    zbuf_setlen(line, MAX_LINE);
    zbuf_addf(line, " … (%zu bytes more)", more);
  }
  if (!line->len || line->data[line->len - 1] != '\n') zbuf_addch(line, '\n');
  pthread_mutex_lock(&g_log.mu);
  if (g_log.fd >= 0) {
    ssize_t n = write(g_log.fd, line->data, line->len);
    if (n > 0) g_log.size += (size_t)n;
    if (g_log.size >= ZLOG_MAX_BYTES) {
      close(g_log.fd);
      rotate();
      g_log.fd = open(g_log.path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
      g_log.size = 0;
    }
  }
  pthread_mutex_unlock(&g_log.mu);
}

static void line_start(zbuf *line, const char *area) {
  char ts[ZTIME_RFC3339_LEN];
  ztime_rfc3339_now(ts);
  zbuf_addf(line, "%s %ld %s: ", ts, (long)getpid(), area);
}

void zlog(const char *area, const char *fmt, ...) {
  if (g_log.fd < 0) return;
  zbuf line = ZBUF_INIT;
  line_start(&line, area);
  va_list ap;
  va_start(ap, fmt);
  zbuf_vaddf(&line, fmt, ap);
  va_end(ap);
  write_line(&line);
  zbuf_release(&line);
}

void zlog_argv(const char *area, const char *label, const char *const *argv) {
  if (g_log.fd < 0) return;
  zbuf line = ZBUF_INIT;
  line_start(&line, area);
  zbuf_addf(&line, "%s:", label);
  for (size_t i = 0; argv && argv[i]; i++) {
    const char *w = argv[i];
    if (w[0] && !strpbrk(w, " \t\n'\"")) zbuf_addf(&line, " %s", w);
    else {
      zbuf_addstr(&line, " '");
      for (; *w; w++) {
        if (*w == '\'') zbuf_addstr(&line, "'\\''");
        else if (*w == '\n') zbuf_addstr(&line, "\\n");
        else zbuf_addch(&line, *w);
      }
      zbuf_addch(&line, '\'');
    }
  }
  write_line(&line);
  zbuf_release(&line);
}

void zlog_close(void) {
  pthread_mutex_lock(&g_log.mu);
  if (g_log.fd >= 0) close(g_log.fd);
  g_log.fd = -1;
  free(g_log.path);
  g_log.path = NULL;
  pthread_mutex_unlock(&g_log.mu);
}
