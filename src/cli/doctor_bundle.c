/* doctor_bundle.c — the bug-report bundle; see doctor_bundle.h. */
#include "cli/doctor_bundle.h"

#include <curl/curlver.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/common.h"
#include "base/fs.h"
#include "base/log.h"
#include "base/path.h"
#include "base/redact.h"
#include "base/tar.h"

static const char README[] =
    "zero bug-report bundle (zero doctor --bundle)\n"
    "\n"
    "version.txt   zero --version, and the kernel (uname)\n"
    "doctor.json   the checks of zero doctor\n"
    "config/       the user and project config files, redacted\n"
    "logs/         the debug log (zero --debug or ZERO_LOG=debug), with its rotated files\n"
    "\n"
    "Every file went through zero's redactor: API keys, tokens and credential\n"
    "headers read [REDACTED:...]. The log holds no prompt or conversation text\n"
    "unless ZERO_LOG_BODIES=1 was set while it was written. Look it over before\n"
    "you attach it.\n";

/* Adds text (redacted) as member name. */
static int add_redacted(FILE *f, const char *name, const char *text, size_t len, time_t now,
                        zerr *err) {
  zbuf b = ZBUF_INIT;
  zbuf_add(&b, text, len);
  zredact(&b);
  int rc = ztar_add(f, name, b.data ? b.data : "", b.len, now, err);
  zbuf_release(&b);
  return rc;
}

/* Adds the file at path, redacted, as member name; a missing file is
 * skipped (returns 0). */
static int add_file(FILE *f, const char *name, const char *path, time_t now, zerr *err) {
  if (!path) return 0;
  zbuf b = ZBUF_INIT;
  zerr rerr = ZERR_INIT;
  int rc = 0;
  if (zfs_read_file(path, &b, 64u << 20, &rerr) == 0)
    rc = add_redacted(f, name, b.data ? b.data : "", b.len, now, err);
  zbuf_release(&b);
  return rc;
}

static int add_version(FILE *f, time_t now, zerr *err) {
  struct utsname u;
  zbuf v = ZBUF_INIT;
  zbuf_addf(&v, "zero %s\ncommit: %s\nlibraries: jansson/%s libcurl/%s (built against)\n",
            ZERO_VERSION, ZERO_COMMIT, jansson_version_str(), LIBCURL_VERSION);
  if (uname(&u) == 0) zbuf_addf(&v, "system: %s %s %s\n", u.sysname, u.release, u.machine);
  int rc = ztar_add(f, "zero-report/version.txt", v.data, v.len, now, err);
  zbuf_release(&v);
  return rc;
}

/* zero.log, then zero.log.1 … as logs/… */
static int add_logs(FILE *f, time_t now, zerr *err) {
  cleanup_free char *dir = zlog_dir();
  for (int i = 0; i < ZLOG_KEEP; i++) {
    char file[64], member[96];
    if (i == 0) snprintf(file, sizeof file, "zero.log");
    else snprintf(file, sizeof file, "zero.log.%d", i);
    snprintf(member, sizeof member, "zero-report/logs/%s", file);
    cleanup_free char *path = zpath_join(dir, file);
    if (add_file(f, member, path, now, err) < 0) return -1;
  }
  return 0;
}

/* …/zero/reports/zero-report-<UTC time>.tar, created 0600. */
static FILE *create_archive(char **path, zerr *err) {
  cleanup_free char *state = zpath_state_dir();
  cleanup_free char *dir = zpath_join(state, "reports");
  if (zfs_mkdir_p(dir, 0700, err) < 0) return NULL;
  char name[64];
  time_t now = time(NULL);
  struct tm tm;
  gmtime_r(&now, &tm);
  strftime(name, sizeof name, "zero-report-%Y%m%dT%H%M%SZ.tar", &tm);
  *path = zpath_join(dir, name);
  int fd = open(*path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
  FILE *f = fd >= 0 ? fdopen(fd, "wb") : NULL;
  if (!f) {
    zerr_errno(err, ZE_IO, "cannot create %s", *path);
    if (fd >= 0) close(fd);
    free(*path);
    *path = NULL;
  }
  return f;
}

char *zcli_doctor_bundle(const json_t *checks, const char *user_cfg, const char *project_cfg,
                         zerr *err) {
  char *path = NULL;
  FILE *f = create_archive(&path, err);
  if (!f) return NULL;
  time_t now = time(NULL);
  char *report = json_dumps(checks, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
  int rc = ztar_add(f, "zero-report/README.txt", README, strlen(README), now, err);
  if (rc == 0) rc = add_version(f, now, err);
  if (rc == 0 && report)
    rc = add_redacted(f, "zero-report/doctor.json", report, strlen(report), now, err);
  if (rc == 0) rc = add_file(f, "zero-report/config/user.json", user_cfg, now, err);
  if (rc == 0 && !(user_cfg && project_cfg && !strcmp(user_cfg, project_cfg)))
    rc = add_file(f, "zero-report/config/project.json", project_cfg, now, err);
  if (rc == 0) rc = add_logs(f, now, err);
  if (rc == 0) rc = ztar_finish(f, err);
  free(report);
  if (fclose(f) != 0 && rc == 0) rc = zerr_errno(err, ZE_IO, "cannot write %s", path);
  if (rc < 0) {
    unlink(path);
    free(path);
    return NULL;
  }
  return path;
}
