/* http.h — the OAuth module's own HTTP (internal to src/oauth/): one
 * request at a time over net/http.c, never following a redirect, bodies
 * bounded, and the token endpoint request every flow ends in (code,
 * refresh, device, client credentials). Not for use outside src/oauth/. */
#ifndef ZERO_OAUTH_HTTP_H
#define ZERO_OAUTH_HTTP_H

#include <stdbool.h>

#include "base/buf.h"
#include "base/err.h"
#include "oauth/oauth.h"

#define ZOAUTH_MD_MAX_BYTES (256 * 1024) /* metadata / token answers */
#define ZOAUTH_HTTP_TIMEOUT_MS 30000

/* One answer. Release with zoauth_fetch_release. */
typedef struct zoauth_fetch {
  zbuf body;
  char *location; /* Location header, if any */
  char *www_auth; /* WWW-Authenticate header, if any */
  bool too_large;
} zoauth_fetch;

/* Appends k=v (form-encoded, '&' between pairs); nothing when v is NULL. */
void zoauth_form_add(zbuf *b, const char *k, const char *v);

/* One request; never follows redirects. Returns the status (>0), or -1 with
 * err on transport failure. Bodies of >= 400 answers are in f->body too. */
long zoauth_http(const char *method, const char *url, const char *const *headers, const char *body,
                 zoauth_fetch *f, zerr *err);
void zoauth_fetch_release(zoauth_fetch *f);

/* GET url as JSON: 0 with the 200 answer in f (release it), else -1 with
 * err (ZE_NOT_FOUND for another status) and f released. */
int zoauth_get_json(const char *url, zoauth_fetch *f, zerr *err);

/* "error: error_description" of an OAuth error answer, or a description of
 * the body (never the body itself: it may hold credentials), redacted. */
void zoauth_error_text(const zoauth_fetch *f, char *out, size_t n);

/* POSTs form_in to the token endpoint and reads the answer into t. The
 * client authenticates with auth_method (zoauth_token_auth_method's names;
 * NULL chooses as it does with nothing listed): the secret in an HTTP Basic
 * header, or appended to the form for client_secret_post. When the endpoint
 * answers 400 with an OAuth error object and error_code is not NULL,
 * *error_code is its "error" (caller frees): the device flow polls on it. */
int zoauth_token_request(const char *endpoint, const char *form_in, const char *client_id,
                         const char *client_secret, const char *auth_method, zoauth_tokens *t,
                         char **error_code, zerr *err);

/* Who the client is at a token endpoint, all borrowed. */
typedef struct zoauth_client {
  const char *id;
  const char *secret;      /* may be NULL */
  const char *auth_method; /* zoauth_token_auth_method's names, or "private_key_jwt" */
  const char *key_file;    /* private_key_jwt: the PEM private key (oauth/jwt.h) */
  const char *key_alg;     /* its JWS algorithm; NULL = from the key */
  const char *audience;    /* the assertion's aud: the authorization server's issuer */
} zoauth_client;

/* The request of zoauth_token_request_as without reading the answer: 0
 * with the 200 answer in f (release it), or -1 with err (f released or
 * empty). For token endpoints whose answer is no access token for zero
 * (RFC 8693 token exchange). */
int zoauth_token_post(const char *endpoint, const char *form_in, const zoauth_client *c,
                      zoauth_fetch *f, char **error_code, zerr *err);

/* zoauth_token_request for any client authentication: with
 * "private_key_jwt" a fresh signed assertion (oauth/jwt.h) goes into the
 * form as client_assertion with client_id; no secret is sent. */
int zoauth_token_request_as(const char *endpoint, const char *form_in, const zoauth_client *c,
                            zoauth_tokens *t, char **error_code, zerr *err);

#endif
