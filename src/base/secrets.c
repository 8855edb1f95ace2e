/* secrets.c — the run's credentials by name and by value; see secrets.h. */
#include "base/secrets.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/common.h"

/* The registry: declared names and known values, both only ever added to.
 * Values are kept longest first, so that a value containing another is
 * redacted whole. */
static struct {
  pthread_mutex_t lock;
  ZVEC(char *) names;
  ZVEC(char *) values;
} reg = {PTHREAD_MUTEX_INITIALIZER, ZVEC_INIT, ZVEC_INIT};

/* ---- names ------------------------------------------------------------------ */

/* Parts that make a name secret wherever they appear in it. */
static const char *const secret_parts[] = {"API_KEY",    "APIKEY",     "TOKEN",      "SECRET",
                                           "PASSWORD",   "PASSWD",     "PASSPHRASE", "CREDENTIAL",
                                           "ACCESS_KEY", "PRIVATE_KEY", NULL};
/* Words that make a name secret only as a whole "_"-separated word: PATH is
 * not PASS, GOPRIVATE (Go's list of private module paths) is not PRIVATE. */
static const char *const secret_words[] = {"PASS", "PRIVATE", NULL};

static bool has_word(const char *name, size_t n, const char *word) {
  size_t wl = strlen(word);
  for (const char *p = name; (p = strstr(p, word)) != NULL; p++) {
    size_t at = (size_t)(p - name);
    bool starts = at == 0 || name[at - 1] == '_';
    bool ends = at + wl == n || name[at + wl] == '_';
    if (starts && ends) return true;
  }
  return false;
}

/* AUTH anywhere (OAUTH_…, GH_AUTH, XAUTHORITY, …AUTHORIZATION), except as
 * the start of AUTHOR: GIT_AUTHOR_NAME / _EMAIL are what git commits with. */
static bool has_auth(const char *name) {
  for (const char *p = name; (p = strstr(p, "AUTH")) != NULL; p++)
    if (strncmp(p + 4, "OR", 2) != 0 || p[6] == 'I') return true;
  return false;
}

bool zsecret_name_looks_secret(const char *name, size_t n) {
  char up[256];
  if (n >= sizeof up) return true; /* nobody names a harmless variable like this */
  for (size_t i = 0; i < n; i++)
    up[i] = (char)((name[i] >= 'a' && name[i] <= 'z') ? name[i] - 32 : name[i]);
  up[n] = '\0';
  for (const char *const *p = secret_parts; *p; p++)
    if (strstr(up, *p)) return true;
  for (const char *const *p = secret_words; *p; p++)
    if (has_word(up, n, *p)) return true;
  if (has_auth(up)) return true;
  /* a provider profile's apiKeyEnv may be any name; most end in _KEY */
  return n > 4 && !strcmp(up + n - 4, "_KEY");
}

static bool listed(char *const *items, size_t len, const char *s, size_t n) {
  for (size_t i = 0; i < len; i++)
    if (strlen(items[i]) == n && !memcmp(items[i], s, n)) return true;
  return false;
}

/* Adds a copy of value to the registry's values (lock held). */
static void add_value_locked(const char *value, size_t n) {
  if (n < ZSECRET_MIN_VALUE || listed(reg.values.items, reg.values.len, value, n)) return;
  size_t at = 0;
  while (at < reg.values.len && strlen(reg.values.items[at]) >= n) at++;
  char *copy = xstrndup(value, n);
  zvec_push(&reg.values, copy);
  memmove(reg.values.items + at + 1, reg.values.items + at,
          (reg.values.len - 1 - at) * sizeof *reg.values.items);
  reg.values.items[at] = copy;
}

void zsecret_add_name(const char *name) {
  if (!name || !*name) return;
  const char *value = getenv(name);
  pthread_mutex_lock(&reg.lock);
  if (!listed(reg.names.items, reg.names.len, name, strlen(name))) {
    char *copy = xstrdup(name);
    zvec_push(&reg.names, copy);
  }
  if (value) add_value_locked(value, strlen(value));
  pthread_mutex_unlock(&reg.lock);
}

void zsecret_add_value(const char *value) {
  if (!value) return;
  size_t n = strlen(value);
  while (n && (value[n - 1] == ' ' || value[n - 1] == '\t')) n--;
  pthread_mutex_lock(&reg.lock);
  add_value_locked(value, n);
  /* "Bearer abc…", "Basic abc…", "token abc…": the credential is the last word. */
  const char *sp = memchr(value, ' ', n);
  if (sp) {
    while (sp < value + n && *sp == ' ') sp++;
    if (!memchr(sp, ' ', (size_t)(value + n - sp))) add_value_locked(sp, (size_t)(value + n - sp));
  }
  pthread_mutex_unlock(&reg.lock);
}

bool zsecret_value_looks_random(const char *value) {
  if (!value || strlen(value) < 16 || strpbrk(value, " /\t")) return false;
  bool alpha = false, digit = false;
  for (const char *p = value; *p; p++) {
    alpha |= (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z');
    digit |= *p >= '0' && *p <= '9';
  }
  return alpha && digit;
}

void zsecret_add_env_setting(const char *name, const char *value) {
  if (!name || !*name) return;
  if (!zsecret_name_looks_secret(name, strlen(name)) && !zsecret_value_looks_random(value)) return;
  zsecret_add_name(name);
  zsecret_add_value(value);
}

void zsecret_add_header(const char *name, const char *value) {
  if (!name || !value) return;
  char env_like[128];
  size_t n = 0;
  for (; name[n] && n + 1 < sizeof env_like; n++) env_like[n] = name[n] == '-' ? '_' : name[n];
  env_like[n] = '\0';
  if (zsecret_name_looks_secret(env_like, n) || !strcasecmp(name, "Cookie") ||
      zsecret_value_looks_random(value))
    zsecret_add_value(value);
}

bool zsecret_env_entry_is_secret(const char *kv) {
  size_t n = strcspn(kv, "=");
  if (zsecret_name_looks_secret(kv, n)) return true;
  const char *value = kv[n] == '=' ? kv + n + 1 : "";
  pthread_mutex_lock(&reg.lock);
  bool secret = listed(reg.names.items, reg.names.len, kv, n) ||
                listed(reg.values.items, reg.values.len, value, strlen(value));
  pthread_mutex_unlock(&reg.lock);
  return secret;
}

char **zsecret_scrub_env(char *const *env) {
  size_t n = 0;
  while (env && env[n]) n++;
  char **out = xcalloc(n + 1, sizeof *out);
  size_t k = 0;
  for (size_t i = 0; i < n; i++)
    if (!zsecret_env_entry_is_secret(env[i])) out[k++] = xstrdup(env[i]);
  return out;
}

/* ---- values ------------------------------------------------------------------- */

size_t zsecret_redact_values(zbuf *text) {
  if (!text->len) return 0;
  size_t count = 0;
  pthread_mutex_lock(&reg.lock);
  for (size_t v = 0; v < reg.values.len; v++) {
    const char *val = reg.values.items[v];
    size_t vl = strlen(val);
    const char *hit = memmem(text->data, text->len, val, vl);
    if (!hit) continue;
    zbuf out = ZBUF_INIT;
    size_t pos = 0;
    while (hit) {
      size_t at = (size_t)(hit - text->data);
      zbuf_add(&out, text->data + pos, at - pos);
      zbuf_addstr(&out, "[REDACTED]");
      count++;
      pos = at + vl;
      hit = memmem(text->data + pos, text->len - pos, val, vl);
    }
    zbuf_add(&out, text->data + pos, text->len - pos);
    zbuf_release(text);
    *text = out;
  }
  pthread_mutex_unlock(&reg.lock);
  return count;
}

void zsecret_reset(void) {
  pthread_mutex_lock(&reg.lock);
  for (size_t i = 0; i < reg.names.len; i++) free(reg.names.items[i]);
  for (size_t i = 0; i < reg.values.len; i++) free(reg.values.items[i]);
  zvec_free(&reg.names);
  zvec_free(&reg.values);
  pthread_mutex_unlock(&reg.lock);
}
