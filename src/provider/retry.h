/* retry.h — the retry policy shared by every wire protocol, and the
 * explanation of HTTP error answers.
 *
 * What is retried (and nothing else):
 *  - HTTP 429, 502, 503, 504 and 529 (overloaded): after the server's
 *    Retry-After (delta-seconds or HTTP date, one wait capped at 60 s; a
 *    Google RetryInfo retryDelay in the body when there is no header) or,
 *    without one, exponential backoff with jitter (base 500 ms, cap 30 s);
 *    not a 429 whose body says insufficient_quota (out of credit);
 *  - transport failures before the request reached the server
 *    (err->retryable from zhttp_perform);
 *  - a stream that broke before anything was emitted to the caller.
 * Never after a text / reasoning / tool event went out: the caller has shown
 * it, and a second answer would be a different one.
 *
 * Waits poll zcancel_fd() so Ctrl-C interrupts them at once (ZE_CANCELLED).
 * ZERO_RETRY_BASE_MS overrides the backoff base (tests use 1–20 ms).
 */
#ifndef ZERO_PROVIDER_RETRY_H
#define ZERO_PROVIDER_RETRY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "provider/provider.h"

#define ZRETRY_DEFAULT_MAX 4
#define ZRETRY_DEFAULT_BASE_MS 500
#define ZRETRY_DEFAULT_CAP_MS 30000
#define ZRETRY_AFTER_CAP_MS 60000

typedef struct zretry_policy {
  int max_retries;            /* retries after the first attempt */
  int64_t base_ms;            /* first backoff step */
  int64_t cap_ms;             /* largest backoff step */
  int64_t retry_after_cap_ms; /* largest single wait a server may ask for */
} zretry_policy;

/* Fills the defaults: max_retries from the argument (<= 0 = 4), base from
 * ZERO_RETRY_BASE_MS when it holds a non-negative integer, else 500 ms. */
void zretry_policy_init(zretry_policy *pol, int max_retries);

/* true for the statuses worth another try (429, 500, 502, 503, 504, 529). */
bool zretry_status_retryable(long status);

/* The wait before retry number `retry` (1 = the first retry). When
 * retry_after is a usable Retry-After value it wins (capped at
 * retry_after_cap_ms); otherwise backoff = min(cap, base * 2^(retry-1)) and
 * the delay is backoff/2 + jitter * backoff/2, with jitter in [0, 1]. */
int64_t zretry_delay_ms(const zretry_policy *pol, int retry, const char *retry_after,
                        double jitter);

/* A uniform random number in [0, 1] for zretry_delay_ms (getrandom). */
double zretry_jitter(void);

/* Sleeps ms milliseconds while watching zcancel_fd(). Returns 0, or -1 with
 * ZE_CANCELLED when cancellation arrived first. */
int zretry_wait(int64_t ms, zerr *err);

/* What one attempt reports back to zretry_run besides its error. */
typedef struct zretry_info {
  char *retry_after; /* Retry-After of an error answer; owned (freed by zretry_run) */
  bool emitted;      /* the attempt sent visible events to the caller */
} zretry_info;

/* One attempt: returns 0 on success, -1 with err set. err->retryable says
 * whether the failure itself may go away on a retry (a retryable status, a
 * transport failure before sending, a stream cut before output). */
typedef int (*zretry_attempt_fn)(void *ud, int attempt, zretry_info *info, zerr *err);

/* Runs attempt until it succeeds, fails for good, or the policy gives up.
 * Before each wait it emits ZPEV_RETRY (attempt = the attempt about to start,
 * delay_ms, text = why) through fn; a nonzero return from fn cancels. After
 * the last retry the error says how many attempts were made. */
int zretry_run(const zretry_policy *pol, zretry_attempt_fn attempt, void *attempt_ud,
               zprov_event_fn fn, void *ud, zerr *err);

/* Sets err (ZE_PROVIDER, http_status, retryable per zretry_status_retryable)
 * for an HTTP error answer. The message names the provider (opts->name),
 * says what to do for the status, and quotes the server's error message
 * (JSON error.message, error as a string, message, or the start of a plain
 * text body). url is the endpoint, quoted for 404. */
void zprov_http_error(const zprov_opts *opts, const char *url, long status, const char *body,
                      size_t body_len, zerr *err);

/* Replaces the credentials of opts (the API key, custom header values and
 * their last word, e.g. a Bearer token) in msg with [REDACTED]: servers
 * echo a rejected key in their error messages, and those messages are
 * shown, sent to stream-json and recorded in the session. */
void zprov_scrub_secrets(const zprov_opts *opts, char *msg, size_t cap);

/* Gemini (and other Google APIs) say when to retry in the error body, not
 * in a Retry-After header: {"error":{"details":[{"@type":"…RetryInfo",
 * "retryDelay":"37s"}]}}. That delay as Retry-After delta-seconds (rounded
 * up; caller frees), or NULL. */
char *zprov_retry_delay_from_body(const char *body, size_t len);

/* The server's own error message from an error body (see zprov_http_error);
 * caller frees; NULL when there is none. */
char *zprov_error_message(const char *body, size_t len);

#endif
