/* corpus_main.c — runs a fuzz target over its corpus without libFuzzer, so
 * the ordinary (gcc) build replays every saved input as a regression test
 * in ctest (tests/CMakeLists.txt links this with each fuzz_*.c).
 *
 * Usage: <target>_corpus PATH...; each PATH is a file or a directory
 * searched recursively; every regular file is one input. Exits 0 when every
 * input ran (a broken invariant traps and kills the process, which ctest
 * reports with the input's name printed just before), 2 when a path cannot
 * be read or no input was found: an empty corpus would test nothing.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/buf.h"
#include "base/fs.h"
#include "base/path.h"
#include "fuzz_target.h"

enum { CORPUS_MAX_INPUT = 16 << 20 };

/* Feeds one file; returns 0, or -1 when it cannot be read. */
static int run_file(const char *path) {
  zbuf in = ZBUF_INIT;
  if (zfs_read_file(path, &in, CORPUS_MAX_INPUT, NULL) != 0) {
    fprintf(stderr, "corpus: cannot read %s\n", path);
    return -1;
  }
  fprintf(stderr, "corpus: %s (%zu bytes)\n", path, in.len);
  /* A copy of exactly len bytes, so reading past the input is caught by
   * ASan in the sanitizer build as it would be under libFuzzer. */
  uint8_t *copy = malloc(in.len ? in.len : 1);
  if (!copy) abort();
  if (in.len) memcpy(copy, in.data, in.len);
  LLVMFuzzerTestOneInput(copy, in.len);
  free(copy);
  zbuf_release(&in);
  return 0;
}

static int by_name(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Runs every regular file under path (sorted, for a stable order); adds the
 * number of inputs run to *count. Returns 0 or -1. */
static int run_path(const char *path, size_t *count) {
  struct stat st;
  if (stat(path, &st) != 0) {
    fprintf(stderr, "corpus: cannot stat %s\n", path);
    return -1;
  }
  if (S_ISREG(st.st_mode)) {
    (*count)++;
    return run_file(path);
  }
  if (!S_ISDIR(st.st_mode)) return 0;
  DIR *d = opendir(path);
  if (!d) return -1;
  char **names = NULL;
  size_t n = 0, cap = 0;
  for (struct dirent *de; (de = readdir(d));) {
    if (de->d_name[0] == '.') continue;
    if (n == cap) {
      cap = cap ? cap * 2 : 64;
      names = realloc(names, cap * sizeof *names);
      if (!names) abort();
    }
    names[n++] = zpath_join(path, de->d_name);
  }
  closedir(d);
  if (n) qsort(names, n, sizeof *names, by_name);
  int rc = 0;
  for (size_t i = 0; i < n; i++) {
    if (run_path(names[i], count) != 0) rc = -1;
    free(names[i]);
  }
  free(names);
  return rc;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s CORPUS_FILE_OR_DIR...\n", argv[0]);
    return 2;
  }
  size_t count = 0;
  int rc = 0;
  for (int i = 1; i < argc; i++)
    if (run_path(argv[i], &count) != 0) rc = 2;
  if (count == 0) {
    fprintf(stderr, "corpus: no inputs under the given paths\n");
    return 2;
  }
  fprintf(stderr, "corpus: %zu inputs ran\n", count);
  return rc;
}
