/* dlib.c — libraries opened on first use; see dlib.h for the contract. */
#include "base/dlib.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

/* Opens the first soname of the ':'-separated list that loads; on failure
 * copies the first one's name and dlerror's reason into first / why. */
static void *open_first(const char *sonames, char *first, size_t first_cap, char *why,
                        size_t why_cap) {
  snprintf(why, why_cap, "no library named");
  first[0] = '\0';
  for (const char *p = sonames; *p;) {
    size_t n = strcspn(p, ":");
    char name[256];
    snprintf(name, sizeof name, "%.*s", (int)n, p);
    if (!first[0]) snprintf(first, first_cap, "%s", name);
    void *h = dlopen(name, RTLD_LAZY | RTLD_LOCAL);
    if (h) return h;
    const char *e = dlerror();
    if (p == sonames) snprintf(why, why_cap, "%s", e ? e : "unknown error");
    p += n + (p[n] == ':');
  }
  return NULL;
}

/* Describes, opens and resolves; runs once, under l->mu. Returns 1 or -1. */
static int open_and_resolve(zdlib *l, void (*describe)(zdlib_spec *)) {
  zdlib_spec s;
  memset(&s, 0, sizeof s);
  describe(&s);
  char first[256], why[256];
  l->handle = open_first(s.sonames, first, sizeof first, why, sizeof why);
  if (!l->handle) {
    snprintf(l->error, sizeof l->error,
             "cannot load %s (%s); zero needs %s %s: install it with `apt-get install %s`", first,
             why, s.what, s.purpose, s.package);
    return -1;
  }
  for (size_t i = 0; i < s.nsyms; i++) {
    const zdlib_sym *sym = &s.syms[i];
    void **slot = (void **)((char *)s.table + sym->offset);
    *slot = dlsym(l->handle, sym->name);
    if (!*slot && !sym->optional) {
      snprintf(l->error, sizeof l->error, "%s has no %s; zero needs %s or newer", first,
               sym->name, s.min_version ? s.min_version : s.what);
      return -1;
    }
  }
  if (s.after_load) s.after_load(l->handle);
  return 1;
}

bool zdlib_load(zdlib *l, void (*describe)(zdlib_spec *spec)) {
  int st = __atomic_load_n(&l->state, __ATOMIC_ACQUIRE);
  if (st) return st > 0;
  pthread_mutex_lock(&l->mu);
  st = __atomic_load_n(&l->state, __ATOMIC_RELAXED);
  if (!st) {
    st = open_and_resolve(l, describe);
    __atomic_store_n(&l->state, st, __ATOMIC_RELEASE);
  }
  pthread_mutex_unlock(&l->mu);
  return st > 0;
}

int zdlib_require(zdlib *l, void (*describe)(zdlib_spec *spec), zerr *err) {
  if (zdlib_load(l, describe)) return 0;
  return zerr_set(err, ZE_INTERNAL, "%s", l->error);
}

bool zdlib_loaded(const zdlib *l) { return __atomic_load_n(&l->state, __ATOMIC_ACQUIRE) > 0; }

const char *zdlib_error(const zdlib *l) {
  return __atomic_load_n(&l->state, __ATOMIC_ACQUIRE) < 0 ? l->error : "";
}
