/* store.c — durable local sessions: create, open (resume), append, metadata,
 * latest, list. Reading events back lives in replay.c. See store.h.
 *
 * Durability story, two kinds of failure:
 *  - the process dies (SIGKILL, crash): every event is one line written with
 *    one write() on an O_APPEND descriptor as it happens, so the kernel has
 *    it; at most one torn last line can exist, and open() repairs it;
 *  - the machine dies (power loss): what was fdatasync'd survives. The log is
 *    synced at the points the agent chooses (zsession_sync: the end of every
 *    model turn, before tools run) and on flush / close, not after every
 *    event, which would cost a disk flush per event.
 * metadata.json holds what the log cannot say (cwd, provider, model, title),
 * written durably when the session is created and on zsession_set_meta, and
 * derived fields (eventCount, updatedAt, lastEventType) rewritten without a
 * sync on flush / close. If it is stale, the log is the truth: open()
 * recomputes the last sequence, listing takes updatedAt from the log's mtime
 * when that is newer, and a missing or unreadable metadata.json is rebuilt
 * from the events.
 */
#include "session/store.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/common.h"
#include "base/fs.h"
#include "base/json.h"
#include "base/num.h"
#include "base/path.h"
#include "base/time.h"
#include "session/jsonl.h"

#define META_FILE "metadata.json"
#define EVENTS_FILE "events.jsonl"
#define LOCK_FILE "session.lock"

/* The process-wide id counter (the "<n>" of generated ids). A singleton by
 * design: uniqueness of ids created within the same nanosecond. */
static atomic_ullong zsession_id_counter;

char *zsession_root(void) {
  cleanup_free char *data = zpath_data_dir();
  return zpath_join(data, "sessions");
}

bool zsession_id_valid(const char *id) {
  if (!id) return false;
  size_t n = 0;
  for (; id[n]; n++) {
    char c = id[n];
    bool alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    if (n == 0 ? !alnum : !(alnum || c == '_' || c == '-')) return false;
    if (n >= 128) return false;
  }
  return n > 0;
}

char *zsession_new_id(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  struct tm tm;
  gmtime_r(&ts.tv_sec, &tm);
  unsigned long long n = atomic_fetch_add(&zsession_id_counter, 1) + 1;
  long long nanos = (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
  zbuf b = ZBUF_INIT;
  zbuf_addf(&b, "zero_%04d%02d%02d%02d%02d%02d_%lld_%llu", tm.tm_year + 1900, tm.tm_mon + 1,
            tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, nanos, n);
  return zbuf_detach(&b, NULL);
}

/* Rewrites metadata.json: pretty (2-space indent, keys in insertion order)
 * with a trailing newline, atomically, mode 0600. */
static int write_meta(const char *dir, const json_t *meta, bool durable, zerr *err) {
  cleanup_free char *path = zpath_join(dir, META_FILE);
  cleanup_free char *text = json_dumps(meta, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
  if (!text) return zerr_set(err, ZE_INTERNAL, "cannot serialize session metadata");
  zbuf b = ZBUF_INIT;
  zbuf_addstr(&b, text);
  zbuf_addch(&b, '\n');
  int rc = zfs_write_atomic_ex(path, b.data, b.len, 0600, durable, err);
  zbuf_release(&b);
  return rc;
}

static int open_events(const char *dir, int extra_flags, zerr *err) {
  cleanup_free char *path = zpath_join(dir, EVENTS_FILE);
  int fd = open(path, O_RDWR | O_APPEND | O_CLOEXEC | O_NOFOLLOW | extra_flags, 0600);
  if (fd < 0) {
    if (errno == ELOOP)
      return zerr_set(err, ZE_IO, "refusing %s: it is a symbolic link, not a file this store "
                      "created; remove it", path);
    return zerr_errno(err, errno == ENOENT ? ZE_NOT_FOUND : ZE_IO, "cannot open %s", path);
  }
  struct stat st;
  if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_nlink != 1) {
    close(fd);
    return zerr_set(err, ZE_IO, "refusing %s: it is not a regular file with a single link (a "
                    "hard link could redirect writes elsewhere); move it away", path);
  }
  return fd;
}

/* Rebuilds the derived metadata of session `id` in `dir` from its events
 * (createdAt of the first, updatedAt / lastEventType of the last, the count),
 * for a metadata.json lost or emptied by a power failure. What only the
 * metadata knew (cwd, provider, model, title) is gone; the session still
 * lists and resumes. NULL when there is no readable log. New reference. */
static json_t *meta_from_events(const char *dir, const char *id) {
  cleanup_free char *path = zpath_join(dir, EVENTS_FILE);
  cleanup_fd int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return NULL;
  zjsonl_reader r;
  zjsonl_reader_init(&r, fd);
  zjsonl_line line;
  int64_t count = 0;
  json_t *meta = json_object();
  json_object_set_new(meta, "sessionId", json_string(id));
  while (zjsonl_next(&r, &line) > 0) {
    json_t *ev = line.oversize ? NULL : json_loadb(line.text, line.len, JSON_ALLOW_NUL, NULL);
    if (json_is_object(ev)) {
      count++;
      const char *at = zjson_str(ev, "createdAt");
      if (at && !json_object_get(meta, "createdAt"))
        json_object_set_new(meta, "createdAt", json_string(at));
      if (at) json_object_set_new(meta, "updatedAt", json_string(at));
      const char *type = zjson_str(ev, "type");
      if (type) json_object_set_new(meta, "lastEventType", json_string(type));
    }
    json_decref(ev);
  }
  zjsonl_reader_release(&r);
  if (!json_object_get(meta, "createdAt")) {
    char now[ZTIME_RFC3339_LEN];
    ztime_rfc3339_now(now);
    json_object_set_new(meta, "createdAt", json_string(now));
    json_object_set_new(meta, "updatedAt", json_string(now));
  }
  json_object_set_new(meta, "eventCount", json_integer(count));
  return meta;
}

static zsession *session_new(const char *root, const char *id) {
  zsession *s = xcalloc(1, sizeof *s);
  s->id = xstrdup(id);
  s->dir = zpath_join(root, id);
  s->events_fd = -1;
  s->lock_fd = -1;
  return s;
}

int zsession_lock_dir(const char *dir, const char *id, zerr *err) {
  cleanup_free char *path = zpath_join(dir, LOCK_FILE);
  cleanup_fd int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) {
    if (errno == ELOOP)
      return zerr_set(err, ZE_IO, "refusing the lock file %s: it is a symbolic link; remove it",
                      path);
    return zerr_errno(err, ZE_IO, "cannot open the lock file %s", path);
  }
  struct stat st;
  if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_nlink != 1)
    return zerr_set(err, ZE_IO, "refusing the lock file %s: not a regular file with a single "
                    "link; remove it", path);
  if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
    if (errno != EWOULDBLOCK) return zerr_errno(err, ZE_IO, "cannot lock %s", path);
    char pidbuf[32] = "";
    ssize_t n = pread(fd, pidbuf, sizeof pidbuf - 1, 0);
    long pid = n > 0 ? strtol(pidbuf, NULL, 10) : 0;
    if (pid > 0)
      return zerr_set(err, ZE_INVALID, "session %s is in use by another zero process (pid %ld); "
                      "wait for it to finish, or fork the session with `zero sessions fork %s`",
                      id, pid, id);
    return zerr_set(err, ZE_INVALID, "session %s is in use by another zero process; wait for it "
                    "to finish, or fork the session with `zero sessions fork %s`", id, id);
  }
  /* The holder's pid, for the message above; the lock itself is the flock. */
  char pidbuf[32];
  int len = snprintf(pidbuf, sizeof pidbuf, "%ld\n", (long)getpid());
  if (ftruncate(fd, 0) < 0 || pwrite(fd, pidbuf, (size_t)len, 0) != len) {
    /* Not fatal: the flock is held; only the pid in messages is missing. */
  }
  return steal_fd(&fd);
}

bool zsession_kind_resumable(const char *kind) { return !kind || strcmp(kind, "side") != 0; }

static void set_str_opt(json_t *obj, const char *key, const char *v) {
  if (v && v[0]) json_object_set_new(obj, key, json_string(v));
}

zsession *zsession_create_with_id(const char *root, const char *id, const char *cwd,
                                  const char *provider, const char *model,
                                  const char *title, zerr *err) {
  if (id && !zsession_id_valid(id)) {
    zerr_set(err, ZE_USAGE,
             "invalid session id \"%s\": use 1-128 letters, digits, '_' or '-', starting "
             "with a letter or digit", id);
    return NULL;
  }
  if (zfs_mkdir_p(root, 0700, err) < 0) return NULL;

  /* mkdir is the claim: two processes can never get the same directory. A
   * generated id that collides (same nanosecond, other process) is retried. */
  cleanup_free char *chosen = NULL;
  cleanup_free char *dir = NULL;
  for (int attempt = 0;; attempt++) {
    free(chosen);
    free(dir);
    chosen = id ? xstrdup(id) : zsession_new_id();
    dir = zpath_join(root, chosen);
    if (mkdir(dir, 0700) == 0) break;
    if (errno != EEXIST || id || attempt >= 100) {
      if (errno == EEXIST)
        zerr_set(err, ZE_INVALID, "session %s already exists; choose another id", chosen);
      else
        zerr_errno(err, ZE_IO, "cannot create session directory %s", dir);
      return NULL;
    }
  }

  char now[ZTIME_RFC3339_LEN];
  ztime_rfc3339_now(now);
  zsession *s = session_new(root, chosen);
  if ((s->lock_fd = zsession_lock_dir(s->dir, chosen, err)) < 0) {
    zsession_close(s);
    zsession_remove_dir(dir); /* ours alone: the mkdir above claimed it */
    return NULL;
  }
  s->meta = json_object();
  json_object_set_new(s->meta, "sessionId", json_string(chosen));
  json_object_set_new(s->meta, "createdAt", json_string(now));
  json_object_set_new(s->meta, "updatedAt", json_string(now));
  json_object_set_new(s->meta, "eventCount", json_integer(0));
  set_str_opt(s->meta, "cwd", cwd);
  set_str_opt(s->meta, "provider", provider);
  set_str_opt(s->meta, "modelId", model);
  set_str_opt(s->meta, "title", title);

  s->events_fd = open_events(s->dir, O_CREAT | O_EXCL, err);
  if (s->events_fd < 0 || write_meta(s->dir, s->meta, true, err) < 0) {
    /* A half-made session (a full disk) would be listed and resumed as an
     * empty one: nothing of it stays. */
    zsession_close(s);
    zsession_remove_dir(dir);
    return NULL;
  }
  return s;
}

zsession *zsession_create(const char *root, const char *cwd, const char *provider,
                          const char *model, const char *title, zerr *err) {
  return zsession_create_with_id(root, NULL, cwd, provider, model, title, err);
}

/* Scans events.jsonl from the start for the highest sequence and repairs a
 * torn tail so that the next append starts on a fresh line: a final line
 * without '\n' that is not a whole event is cut off (readers ignore it
 * anyway); one that is a whole event just gets its missing newline. */
static int scan_full(int fd, const char *dir, int64_t *last_seq, zerr *err) {
  if (lseek(fd, 0, SEEK_SET) < 0)
    return zerr_errno(err, ZE_IO, "cannot seek %s/" EVENTS_FILE, dir);
  zjsonl_reader r;
  zjsonl_reader_init(&r, fd);
  int64_t seq = 0, good_end = 0;
  bool torn = false, needs_newline = false;
  zjsonl_line line;
  int rc;
  while ((rc = zjsonl_next(&r, &line)) > 0) {
    /* JSON_ALLOW_NUL as in replay.c: an event whose output holds \u0000 is
     * whole, and skipping it would reuse its sequence number. */
    json_t *ev = line.oversize ? NULL : json_loadb(line.text, line.len, JSON_ALLOW_NUL, NULL);
    int64_t n = json_is_object(ev) ? zjson_int_or(ev, "sequence", 0) : 0;
    json_decref(ev);
    if (!line.newline) {
      if (n > 0) {
        needs_newline = true;
      } else {
        torn = true;
        break;
      }
    } else {
      good_end = r.offset;
    }
    if (n > seq) seq = n;
  }
  zjsonl_reader_release(&r);
  if (rc < 0) return zerr_errno(err, ZE_IO, "cannot read %s/" EVENTS_FILE, dir);
  if (torn && ftruncate(fd, good_end) < 0)
    return zerr_errno(err, ZE_IO, "cannot cut the torn last line of %s/" EVENTS_FILE, dir);
  if (needs_newline && (zfs_write_all(fd, "\n", 1) < 0 || fdatasync(fd) < 0))
    return zerr_errno(err, ZE_IO, "cannot repair %s/" EVENTS_FILE, dir);
  *last_seq = seq;
  return 0;
}

/* Reads the line that ends just before byte `end` (exclusive; the '\n' at
 * end, if any, is not part of it) by reading backwards: its bytes go to out
 * and its start offset to *start. -1 when it is longer than the reader's
 * line limit or on a read error. */
static int read_line_before(int fd, int64_t end, zbuf *out, int64_t *start) {
  enum { STEP = 65536 };
  int64_t pos = end;
  zbuf_reset(out);
  char chunk[STEP];
  while (pos > 0) {
    size_t n = pos >= STEP ? STEP : (size_t)pos;
    if (pread(fd, chunk, n, pos - (int64_t)n) != (ssize_t)n) return -1;
    char *nl = memrchr(chunk, '\n', n);
    size_t take = nl ? n - (size_t)(nl - chunk) - 1 : n;
    /* Prepend: the line grows towards the start of the file. */
    zbuf tmp = ZBUF_INIT;
    zbuf_add(&tmp, chunk + (n - take), take);
    zbuf_add(&tmp, out->data, out->len);
    zbuf_release(out);
    *out = tmp;
    pos -= (int64_t)take;
    if (nl) break;
    if (out->len > ZJSONL_MAX_LINE) return -1;
  }
  *start = pos;
  return 0;
}

static int64_t line_sequence(const zbuf *line) {
  json_t *ev = json_loadb(line->data, line->len, JSON_ALLOW_NUL, NULL);
  int64_t n = json_is_object(ev) ? zjson_int_or(ev, "sequence", 0) : 0;
  json_decref(ev);
  return n;
}

/* Cuts the bytes of a failed append back off the log (before: the length
 * before it; < 0 when unknown). Best effort: when even that fails, the torn
 * last line stays, and the next open() repairs it (scan_full). */
static void cut_failed_append(int fd, off_t before) {
  if (before < 0) return;
  if (ftruncate(fd, before) < 0) {
    /* nothing better to do: the caller is already reporting the failure */
  }
}

/* Finds the last sequence and repairs a torn tail (see scan_full) reading
 * only the end of the file: resuming a 200 MB log must not read 200 MB.
 * Appends are whole lines in sequence order, so the last whole line holds
 * the highest sequence. Anything unexpected falls back to the full scan. */
static int scan_and_repair(int fd, const char *dir, int64_t *last_seq, int64_t *cut,
                           zerr *err) {
  struct stat st;
  if (fstat(fd, &st) < 0) return zerr_errno(err, ZE_IO, "cannot stat %s/" EVENTS_FILE, dir);
  int64_t size = st.st_size;
  if (size == 0) {
    *last_seq = 0;
    return 0;
  }
  char last;
  if (pread(fd, &last, 1, size - 1) != 1) return scan_full(fd, dir, last_seq, err);
  zbuf line = ZBUF_INIT;
  int64_t start = 0, seq = 0;
  int rc = 0;
  if (last == '\n') {
    if (read_line_before(fd, size - 1, &line, &start) < 0 || (seq = line_sequence(&line)) <= 0)
      rc = 1;
  } else if (read_line_before(fd, size, &line, &start) < 0) {
    rc = 1;
  } else if ((seq = line_sequence(&line)) > 0) {
    /* A whole event that only lacks its newline. */
    if (zfs_write_all(fd, "\n", 1) < 0 || fdatasync(fd) < 0)
      rc = zerr_errno(err, ZE_IO, "cannot repair %s/" EVENTS_FILE, dir);
  } else {
    /* A torn last line: cut it, then the line before it has the sequence. */
    *cut = size - start;
    if (ftruncate(fd, start) < 0) {
      rc = zerr_errno(err, ZE_IO, "cannot cut the torn last line of %s/" EVENTS_FILE, dir);
    } else if (start == 0) {
      seq = 0;
    } else if (read_line_before(fd, start - 1, &line, &start) < 0 ||
               (seq = line_sequence(&line)) <= 0) {
      rc = 1;
    }
  }
  zbuf_release(&line);
  if (rc < 0) return -1;
  if (rc > 0) return scan_full(fd, dir, last_seq, err);
  *last_seq = seq;
  return 0;
}

zsession *zsession_open(const char *root, const char *id, zerr *err) {
  cleanup_free char *dir = zsession_existing_dir(root, id, err);
  if (!dir) return NULL;
  zsession *s = session_new(root, id);
  /* The lock first: nothing below may race another writer's repair. */
  if ((s->lock_fd = zsession_lock_dir(s->dir, id, err)) < 0) {
    zsession_close(s);
    return NULL;
  }
  cleanup_free char *meta_path = zpath_join(s->dir, META_FILE);
  zerr lerr = ZERR_INIT;
  s->meta = zjson_load_file(meta_path, &lerr);
  if (!json_is_object(s->meta)) {
    /* Lost or emptied by a power failure (it is written without a sync on
     * close): rebuild it from the log, and rewrite it durably. */
    json_t *rebuilt = meta_from_events(s->dir, id);
    if (rebuilt) {
      json_decref(s->meta);
      s->meta = rebuilt;
      write_meta(s->dir, s->meta, true, NULL);
    }
  }
  if (!s->meta || !json_is_object(s->meta)) {
    if (s->meta)
      zerr_set(err, ZE_INVALID, "%s is not a JSON object", meta_path);
    else
      zerr_set(err, lerr.kind == ZE_NOT_FOUND ? ZE_NOT_FOUND : ZE_INVALID,
               "cannot read session %s metadata: %s", id, lerr.msg);
    zsession_close(s);
    return NULL;
  }
  json_object_set_new(s->meta, "sessionId", json_string(id));

  s->events_fd = open_events(s->dir, O_CREAT, err);
  if (s->events_fd < 0 || scan_and_repair(s->events_fd, s->dir, &s->sequence, &s->torn_cut, err) < 0) {
    zsession_close(s);
    return NULL;
  }
  return s;
}

/* A new event's envelope without its payload, in the order every line of
 * events.jsonl has: {id "<session>:<seq>", sessionId, sequence, type,
 * createdAt}. */
static json_t *event_envelope(const zsession *s, int64_t seq, const char *type,
                              const char *now) {
  json_t *ev = json_object();
  zbuf idb = ZBUF_INIT;
  zbuf_addf(&idb, "%s:%lld", s->id, (long long)seq);
  json_object_set_new(ev, "id", json_string(idb.data));
  zbuf_release(&idb);
  json_object_set_new(ev, "sessionId", json_string(s->id));
  json_object_set_new(ev, "sequence", json_integer(seq));
  json_object_set_new(ev, "type", json_string(type));
  json_object_set_new(ev, "createdAt", json_string(now));
  return ev;
}

/* Records that event seq (of type, written at now) is in events.jsonl: the
 * next sequence, the fsync still owed, and the metadata it changes (saved
 * later, meta_dirty). Returns 0. */
static int appended(zsession *s, int64_t seq, const char *type, const char *now) {
  s->sequence = seq;
  s->unsynced = true;
  json_object_set_new(s->meta, "updatedAt", json_string(now));
  json_object_set_new(s->meta, "eventCount", json_integer(seq));
  json_object_set_new(s->meta, "lastEventType", json_string(type));
  s->meta_dirty = true;
  return 0;
}

int zsession_append(zsession *s, const char *type, const json_t *payload, zerr *err) {
  if (!s || s->events_fd < 0) return zerr_set(err, ZE_INTERNAL, "session is not open");
  if (!type || !type[0]) return zerr_set(err, ZE_INTERNAL, "session event needs a type");
  int64_t seq = s->sequence + 1;
  char now[ZTIME_RFC3339_LEN];
  ztime_rfc3339_now(now);
  json_t *ev = event_envelope(s, seq, type, now);
  /* jansson has no const API; the payload is only read (its refcount aside). */
  if (payload) json_object_set(ev, "payload", (json_t *)payload);

  /* Compact JSON escapes control characters, so the line holds no raw '\n'. */
  zbuf line = ZBUF_INIT;
  zjson_dump_to(ev, &line);
  json_decref(ev);
  zbuf_addch(&line, '\n');

  /* One write() of the whole line. If it fails or comes up short the partial
   * bytes are cut off again so the log never keeps a torn line we made. */
  off_t before = lseek(s->events_fd, 0, SEEK_END);
  ssize_t n;
  do {
    n = write(s->events_fd, line.data, line.len);
  } while (n < 0 && errno == EINTR);
  if (n != (ssize_t)line.len) {
    int saved = n < 0 ? errno : ENOSPC;
    cut_failed_append(s->events_fd, before);
    zbuf_release(&line);
    errno = saved;
    return zerr_errno(err, ZE_IO, "cannot append to session %s", s->id);
  }
  zbuf_release(&line);
  return appended(s, seq, type, now);
}

/* ---- streamed append of one long text member (zsession_append_text) ---- */

/* Length of the valid UTF-8 sequence at s (n bytes left, s[0] >= 0x80), 0
 * when invalid. */
static size_t text_utf8_len(const unsigned char *s, size_t n) {
  unsigned c = s[0];
  size_t need = c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3 : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
  if (!need || n < need) return 0;
  for (size_t i = 1; i < need; i++)
    if ((s[i] & 0xC0) != 0x80) return 0;
  if (c == 0xE0 && s[1] < 0xA0) return 0; /* overlong */
  if (c == 0xED && s[1] > 0x9F) return 0; /* surrogate */
  if (c == 0xF0 && s[1] < 0x90) return 0; /* overlong */
  if (c == 0xF4 && s[1] > 0x8F) return 0; /* > U+10FFFF */
  return need;
}

/* Appends the JSON escape of text (no quotes) to out, as jansson's compact
 * dump writes it. */
static void text_escape(zbuf *out, const char *text, size_t len) {
  const unsigned char *p = (const unsigned char *)text, *end = p + len;
  while (p < end) {
    const unsigned char *run = p;
    while (p < end && *p >= 0x20 && *p != '"' && *p != '\\' && *p < 0x80) p++;
    zbuf_add(out, run, (size_t)(p - run));
    if (p >= end) break;
    unsigned c = *p;
    if (c >= 0x80) {
      size_t n = text_utf8_len(p, (size_t)(end - p));
      if (n) zbuf_add(out, p, n);
      else zbuf_add(out, "\\uFFFD", 6);
      p += n ? n : 1;
      continue;
    }
    switch (c) {
      case '"': zbuf_add(out, "\\\"", 2); break;
      case '\\': zbuf_add(out, "\\\\", 2); break;
      case '\b': zbuf_add(out, "\\b", 2); break;
      case '\f': zbuf_add(out, "\\f", 2); break;
      case '\n': zbuf_add(out, "\\n", 2); break;
      case '\r': zbuf_add(out, "\\r", 2); break;
      case '\t': zbuf_add(out, "\\t", 2); break;
      default: zbuf_addf(out, "\\u%04X", c); break;
    }
    p++;
  }
}

/* Writes all of b; false on a failure or short write. */
static bool write_all(int fd, const zbuf *b) {
  size_t off = 0;
  while (off < b->len) {
    ssize_t n = write(fd, b->data + off, b->len - off);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    off += (size_t)n;
  }
  return true;
}

int zsession_append_text(zsession *s, const char *type, const json_t *payload, const char *key,
                         const char *text, size_t len, zerr *err) {
  if (!s || s->events_fd < 0) return zerr_set(err, ZE_INTERNAL, "session is not open");
  if (!type || !type[0] || !key || !key[0])
    return zerr_set(err, ZE_INTERNAL, "session event needs a type and a key");
  int64_t seq = s->sequence + 1;
  char now[ZTIME_RFC3339_LEN];
  ztime_rfc3339_now(now);
  /* The envelope as zsession_append writes it; the payload comes last, so
   * its closing "}}" is cut off and the long member written in its place. */
  json_t *ev = event_envelope(s, seq, type, now);
  zbuf line = ZBUF_INIT;
  json_t *pl = json_is_object(payload) ? json_copy((json_t *)payload) : json_object();
  json_object_del(pl, key);
  bool members = json_object_size(pl) > 0;
  json_object_set_new(ev, "payload", pl);
  zjson_dump_to(ev, &line);
  json_decref(ev);
  zbuf_setlen(&line, line.len - 2); /* "}}" */
  zbuf_addf(&line, "%s\"%s\":\"", members ? "," : "", key);

  off_t before = lseek(s->events_fd, 0, SEEK_END);
  bool ok = true;
  const size_t piece = 64 * 1024;
  errno = 0;
  size_t off = 0;
  while (ok && off < len) {
    size_t n = len - off < piece ? len - off : piece;
    /* Never split a UTF-8 sequence between two pieces. */
    for (int k = 0; k < 3 && off + n < len && n > 1 && ((unsigned char)text[off + n] & 0xC0) == 0x80; k++)
      n--;
    text_escape(&line, text + off, n);
    off += n;
    if (line.len >= piece) {
      ok = write_all(s->events_fd, &line);
      zbuf_reset(&line);
    }
  }
  zbuf_addstr(&line, "\"}}\n");
  if (ok) ok = write_all(s->events_fd, &line);
  zbuf_release(&line);
  if (!ok) {
    int saved = errno ? errno : ENOSPC;
    cut_failed_append(s->events_fd, before);
    errno = saved;
    return zerr_errno(err, ZE_IO, "cannot append to session %s", s->id);
  }
  return appended(s, seq, type, now);
}

int zsession_truncate(zsession *s, int64_t keep, zerr *err) {
  if (!s || s->events_fd < 0) return zerr_set(err, ZE_INTERNAL, "session is not open");
  if (lseek(s->events_fd, 0, SEEK_SET) < 0)
    return zerr_errno(err, ZE_IO, "cannot seek %s/" EVENTS_FILE, s->dir);
  zjsonl_reader r;
  zjsonl_reader_init(&r, s->events_fd);
  zjsonl_line line;
  int64_t cut = -1;
  int rc;
  while ((rc = zjsonl_next(&r, &line)) > 0) {
    json_t *ev = line.oversize ? NULL : json_loadb(line.text, line.len, JSON_ALLOW_NUL, NULL);
    int64_t n = json_is_object(ev) ? zjson_int_or(ev, "sequence", 0) : 0;
    json_decref(ev);
    if (n > keep) {
      cut = line.start;
      break;
    }
  }
  zjsonl_reader_release(&r);
  if (rc < 0) return zerr_errno(err, ZE_IO, "cannot read %s/" EVENTS_FILE, s->dir);
  if (cut >= 0) {
    if (ftruncate(s->events_fd, cut) < 0 || fdatasync(s->events_fd) < 0)
      return zerr_errno(err, ZE_IO, "cannot truncate %s/" EVENTS_FILE, s->dir);
  }
  if (keep < s->sequence) s->sequence = keep;
  json_object_set_new(s->meta, "eventCount", json_integer(s->sequence));
  s->meta_dirty = true;
  return 0;
}

int zsession_sync(zsession *s, zerr *err) {
  if (!s || s->events_fd < 0 || !s->unsynced) return 0;
  if (fdatasync(s->events_fd) < 0)
    return zerr_errno(err, ZE_IO, "cannot sync session %s to disk", s->id);
  s->unsynced = false;
  return 0;
}

int zsession_flush(zsession *s, zerr *err) {
  if (zsession_sync(s, err) < 0) return -1;
  if (!s || !s->meta || !s->meta_dirty) return 0;
  if (write_meta(s->dir, s->meta, false, err) < 0) return -1;
  s->meta_dirty = false;
  return 0;
}

/* Sets key to value in the metadata (takes the reference), or removes it
 * when value is NULL. */
static void meta_put(zsession *s, const char *key, json_t *value) {
  if (value) json_object_set_new(s->meta, key, value);
  else json_object_del(s->meta, key);
}

int zsession_set_meta(zsession *s, const char *key, json_t *value, zerr *err) {
  if (!s || !s->meta || !key) {
    json_decref(value);
    return zerr_set(err, ZE_INTERNAL, "session is not open");
  }
  if (!strcmp(key, "sessionId")) {
    json_decref(value);
    return zerr_set(err, ZE_INTERNAL, "the session id cannot be changed");
  }
  meta_put(s, key, value);
  if (write_meta(s->dir, s->meta, true, err) < 0) return -1;
  s->meta_dirty = false;
  return 0;
}

int zsession_set_meta_deferred(zsession *s, const char *key, json_t *value, zerr *err) {
  if (!s || !s->meta || !key || !strcmp(key, "sessionId")) {
    json_decref(value);
    return zerr_set(err, ZE_INTERNAL, "session is not open or the key cannot be changed");
  }
  meta_put(s, key, value);
  s->meta_dirty = true;
  return 0;
}

void zsession_close(zsession *s) {
  if (!s) return;
  /* Best effort: the log is the truth if this fails (see the top comment). */
  zsession_flush(s, NULL);
  if (s->events_fd >= 0) close(s->events_fd);
  if (s->lock_fd >= 0) close(s->lock_fd); /* releases the flock */
  json_decref(s->meta);
  free(s->id);
  free(s->dir);
  free(s);
}

/* ---- listing ---------------------------------------------------------- */

static int cmp_meta(const void *a, const void *b) {
  const json_t *ma = *(json_t *const *)a, *mb = *(json_t *const *)b;
  int64_t sa = 0, sb = 0;
  long na = 0, nb = 0;
  bool oka = ztime_rfc3339_parse(zjson_str(ma, "updatedAt"), &sa, &na);
  bool okb = ztime_rfc3339_parse(zjson_str(mb, "updatedAt"), &sb, &nb);
  if (oka != okb) return oka ? -1 : 1; /* unparseable timestamps sort last */
  if (sa != sb) return sa > sb ? -1 : 1;
  if (na != nb) return na > nb ? -1 : 1;
  return strcmp(zjson_str_or(ma, "sessionId", ""), zjson_str_or(mb, "sessionId", ""));
}

static void add_warning(json_t **warnings, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void add_warning(json_t **warnings, const char *fmt, ...) {
  if (!warnings) return;
  if (!*warnings) *warnings = json_array();
  va_list ap;
  va_start(ap, fmt);
  char *msg = xstrvfmt(fmt, ap);
  va_end(ap);
  json_array_append_new(*warnings, json_string(msg));
  free(msg);
}

/* metadata.json is rewritten lazily (see the top comment): when the event
 * log changed after it (a run killed before it could flush), updatedAt comes
 * from the log's modification time so "latest" stays right. */
static void freshen_updated_at(const char *dir, json_t *meta) {
  cleanup_free char *events = zpath_join(dir, EVENTS_FILE);
  struct stat st;
  if (stat(events, &st) < 0 || st.st_size == 0) return;
  int64_t sec = 0;
  long nsec = 0;
  const char *cur = zjson_str(meta, "updatedAt");
  if (cur && ztime_rfc3339_parse(cur, &sec, &nsec) &&
      (sec > st.st_mtim.tv_sec || (sec == st.st_mtim.tv_sec && nsec >= st.st_mtim.tv_nsec)))
    return;
  char ts[ZTIME_RFC3339_LEN];
  ztime_rfc3339(&st.st_mtim, ts);
  json_object_set_new(meta, "updatedAt", json_string(ts));
}

json_t *zsession_list(const char *root, json_t **warnings, zerr *err) {
  if (warnings && !*warnings) *warnings = json_array();
  DIR *d = opendir(root);
  if (!d) {
    if (errno == ENOENT) return json_array();
    zerr_errno(err, ZE_IO, "cannot read the sessions directory %s", root);
    return NULL;
  }
  ZVEC(json_t *) metas = ZVEC_INIT;
  struct dirent *de;
  while ((de = readdir(d))) {
    const char *name = de->d_name;
    if (name[0] == '.') continue;
    struct stat st;
    /* Symlinked entries are not sessions this store created: skip silently. */
    if (fstatat(dirfd(d), name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISDIR(st.st_mode)) continue;
    if (!zsession_id_valid(name)) {
      add_warning(warnings, "skipped %s/%s: not a valid session id", root, name);
      continue;
    }
    cleanup_free char *dir = zpath_join(root, name);
    cleanup_free char *path = zpath_join(dir, META_FILE);
    zerr lerr = ZERR_INIT;
    json_t *meta = zjson_load_file(path, &lerr);
    if (!meta && (meta = meta_from_events(dir, name)))
      add_warning(warnings, "session %s: %s; its details were rebuilt from the event log", name,
                  lerr.msg);
    if (!meta) {
      add_warning(warnings, "skipped session %s: %s", name, lerr.msg);
      continue;
    }
    if (!json_is_object(meta)) {
      add_warning(warnings, "skipped session %s: %s is not a JSON object", name, path);
      json_decref(meta);
      continue;
    }
    /* The directory name is the id that resume will use. */
    json_object_set_new(meta, "sessionId", json_string(name));
    freshen_updated_at(dir, meta);
    /* metas is a vector of pointers: the element size is a pointer's (the
     * check cannot tell that from sizeof(struct *) on clang-tidy 14). */
    // NOLINTNEXTLINE(bugprone-sizeof-expression)
    zvec_push(&metas, meta);
  }
  closedir(d);
  // NOLINTNEXTLINE(bugprone-sizeof-expression): a vector of pointers, as above
  if (metas.len > 1) qsort(metas.items, metas.len, sizeof *metas.items, cmp_meta);
  json_t *arr = json_array();
  for (size_t i = 0; i < metas.len; i++) json_array_append_new(arr, metas.items[i]);
  zvec_free(&metas);
  return arr;
}

char *zsession_latest(const char *root, const char *cwd, zerr *err) {
  json_t *all = zsession_list(root, NULL, err);
  if (!all) return NULL;
  char *id = NULL;
  size_t i;
  json_t *m;
  json_array_foreach(all, i, m) {
    if (!zsession_kind_resumable(zjson_str(m, "sessionKind"))) continue;
    if (cwd) {
      const char *mc = zjson_str(m, "cwd");
      if (!mc || strcmp(mc, cwd) != 0) continue;
    }
    id = xstrdup(zjson_str(m, "sessionId"));
    break;
  }
  json_decref(all);
  return id;
}

/* ---- delete ------------------------------------------------------------ */

int zsession_remove_dir(const char *dir) { return zfs_remove_tree(dir); }

char *zsession_existing_dir(const char *root, const char *id, zerr *err) {
  if (!zsession_id_valid(id)) {
    zerr_set(err, ZE_USAGE, "invalid session id \"%s\"; run `zero sessions list` to see saved "
             "sessions", id ? id : "");
    return NULL;
  }
  char *dir = zpath_join(root, id);
  struct stat st;
  if (lstat(dir, &st) < 0 || !S_ISDIR(st.st_mode)) {
    zerr_set(err, ZE_NOT_FOUND, "session %s not found in %s; run `zero sessions list` to see "
             "saved sessions", id, root);
    free(dir);
    return NULL;
  }
  return dir;
}

int zsession_delete(const char *root, const char *id, zerr *err) {
  cleanup_free char *dir = zsession_existing_dir(root, id, err);
  if (!dir) return -1;
  /* Never delete a session another process is writing. */
  cleanup_fd int lock = zsession_lock_dir(dir, id, err);
  if (lock < 0) return -1;
  if (zsession_remove_dir(dir) < 0)
    return zerr_errno(err, ZE_IO, "cannot remove %s", dir);
  return 0;
}
