/* secrets.h — the credentials of this run: which environment variables hold
 * one, and which values are one, so that no child process inherits them and
 * no output prints them.
 *
 * Two sources decide that a variable is secret:
 *   1. its name looks like one (zsecret_name_looks_secret: …KEY, …TOKEN…,
 *      …SECRET…, …PASSWORD…, …PASSWD…, …PASSPHRASE…, …CREDENTIAL…, …AUTH…,
 *      and PASS / PRIVATE as a whole "_"-separated word), or
 *   2. the configuration names it (zsecret_add_name): a provider profile's
 *      apiKeyEnv, every preset's key variable, the variables of an MCP
 *      server's "env" — whatever the name.
 * A variable whose value is a known secret value (zsecret_add_value: the
 * configured keys, header credentials, OAuth tokens) is secret too, under
 * any name.
 *
 * The registry is one process-wide named singleton: the run's setup fills it
 * (cli/run_setup.c zrun_collect_secrets) before any child starts or any
 * output is written; it only grows. Every function here is thread-safe.
 */
#ifndef ZERO_BASE_SECRETS_H
#define ZERO_BASE_SECRETS_H

#include <stdbool.h>
#include <stddef.h>

#include "base/buf.h"

/* Values shorter than this are not remembered: a 3-character "key" would
 * redact every "abc" in the output, and is no credential anyway. */
#define ZSECRET_MIN_VALUE 8

/* Declares name (an environment variable name) as holding a credential; its
 * current value in zero's environment, if any, becomes a known value too. */
void zsecret_add_name(const char *name);

/* Declares value as a credential (copied). Ignored when NULL or shorter than
 * ZSECRET_MIN_VALUE. An "Authorization"-style value ("Bearer abc…") is
 * remembered whole and by its credential part. */
void zsecret_add_value(const char *value);

/* Declares one "env" entry of the configuration (an MCP server's): when
 * the name looks secret or the value looks like a credential
 * (zsecret_value_looks_random), the name and the value are declared; a
 * plain setting (PATH, NODE_ENV=production) is left alone, so it keeps
 * reaching every child. */
void zsecret_add_env_setting(const char *name, const char *value);

/* Declares a configured header's value when the header's name looks secret
 * (Authorization, X-Api-Key, Cookie, …) or the value looks like a
 * credential; "Accept: application/json" stays printable. */
void zsecret_add_header(const char *name, const char *value);

/* true when value looks like a generated credential: at least 16 bytes with
 * no space or '/', holding letters and digits. */
bool zsecret_value_looks_random(const char *value);

/* true when the first len bytes of name look like a secret's name (rule 1
 * above, case-insensitive). PATH, PWD, GOPRIVATE, GIT_AUTHOR_NAME do not. */
bool zsecret_name_looks_secret(const char *name, size_t len);

/* true when the "NAME=value" entry must not reach a child: its name looks
 * secret, is declared, or its value is a known secret value. */
bool zsecret_env_entry_is_secret(const char *kv);

/* A copy of env (NULL-terminated "NAME=value" strings) without its secret
 * entries (zsecret_env_entry_is_secret). Caller frees the strings and the
 * array. */
char **zsecret_scrub_env(char *const *env);

/* Replaces every occurrence of a known secret value in text with
 * "[REDACTED]" (the mark the providers use for a key they scrub). Returns the number replaced. */
size_t zsecret_redact_values(zbuf *text);

/* Forgets every declaration (tests only). */
void zsecret_reset(void);

#endif
