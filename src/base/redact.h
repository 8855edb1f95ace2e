/* redact.h — the one redactor every output goes through: tool results
 * before the model sees them, error messages (base/err.c redacts each one
 * as it is made), and what the CLI prints from the configuration or from a
 * server's answer (URLs, headers, bodies).
 *
 * What it replaces with "[REDACTED:<kind>]":
 *   - the known secret values of this run (base/secrets.h: configured keys,
 *     credential headers, OAuth tokens), wherever they appear;
 *   - provider API keys by their shape (OpenAI, Anthropic, Google, GitHub,
 *     Slack, Stripe, Hugging Face, Groq, xAI, AWS access key ids) and
 *     private key blocks;
 *   - in URLs: the user:password part, and the values of query parameters
 *     that carry credentials (token, access_token, refresh_token, id_token,
 *     auth, key, api_key / apikey, sig / signature, X-Amz-Signature,
 *     X-Amz-Security-Token, password / passwd / pwd, secret, client_secret,
 *     code_verifier);
 *   - header values: Authorization / Proxy-Authorization (after the scheme
 *     word: "Bearer [REDACTED…]"), X-Api-Key, Api-Key, X-Auth-Token,
 *     X-Access-Token, Private-Token, Cookie / Set-Cookie; bearer tokens
 *     anywhere;
 *   - values of .env-style assignments and JSON members whose name says
 *     key / secret / token / password / credential / authorization.
 * Overlapping matches become one redacted span (their union, named by the
 * longest), so a nested match cannot corrupt a larger one and no part of a
 * match survives beside a marker; redacting twice changes nothing more.
 */
#ifndef ZERO_BASE_REDACT_H
#define ZERO_BASE_REDACT_H

#include <stddef.h>
#include <stdio.h>

#include "base/buf.h"

/* Redacts text in place. Returns the number of redactions. Thread-safe. */
size_t zredact(zbuf *text);

/* A redacted copy of s (NULL for NULL). Caller frees. */
char *zredact_str(const char *s);

/* Redacts the NUL-terminated string in buf (capacity cap) in place; a
 * result longer than cap is cut on a UTF-8 boundary. */
void zredact_inplace(char *buf, size_t cap);

/* Writes s to f redacted: for everything the CLI prints that came from the
 * configuration or from a server (URLs, commands, headers, bodies). */
void zredact_fputs(const char *s, FILE *f);

#endif
