/* oauth.h — zero's one OAuth 2.1 client: remote MCP servers (MCP
 * authorization, revision 2025-06-18) and `zero auth` provider logins
 * (oauth/provider.h) share its flows, its HTTP (oauth/http.h, never a
 * redirect followed) and its token store.
 *
 * Files: oauth.c (encodings, metadata, MCP discovery, registration and
 * login, bearer), loopback.c (the authorization code flow with PKCE and its
 * loopback listener), device.c (RFC 8628), store.c (the token store),
 * http.c (requests), provider.c (operator-defined providers).
 *
 * The flow (`zero mcp login <server>`, zoauth_login):
 *   1. Discovery. The server is asked without a token; its 401 names the
 *      protected-resource metadata in WWW-Authenticate (resource_metadata=…),
 *      else the well-known URL is tried (RFC 9728:
 *      /.well-known/oauth-protected-resource[/path]). Its authorization_servers
 *      gives the issuer, whose metadata is read from
 *      /.well-known/oauth-authorization-server[/path], then the OpenID
 *      Connect locations (RFC 8414 §3, OIDC Discovery). A server without
 *      resource metadata falls back to its own origin as the issuer
 *      (revision 2025-03-26), and an issuer without metadata to
 *      /authorize, /token, /register there. Endpoints set in the config's
 *      "oauth" object skip discovery.
 *   2. Registration. With no configured clientID: where the issuer supports
 *      Client ID Metadata Documents and oauth.clientMetadataURL is set, that
 *      https URL is the client_id (no registration); else the client
 *      registers itself where the issuer offers dynamic registration (RFC
 *      7591) as a public client (token_endpoint_auth_method "none").
 *      An issuer that offers only the client-credentials grant (machine to
 *      machine, SEP-1046) with a configured clientID and clientSecret gets
 *      that grant instead of steps 3 and 4's code exchange: no browser.
 *   3. Authorization code with PKCE (RFC 7636, S256 only; an issuer whose
 *      metadata lists methods without S256 is refused), a random state
 *      checked on return, the RFC 8707 "resource" parameter, and the
 *      redirect to a one-shot loopback listener on 127.0.0.1:<ephemeral>
 *      (RFC 8252 §7.3). The user opens the URL; it is always printed.
 *   4. Token exchange; tokens are stored in the token store under
 *      "mcp:<server>", together with the client registration and token
 *      endpoint, so that a refresh needs no discovery.
 * Use: zoauth_bearer gives the access token for a server (refreshed first
 * when it expires within ZOAUTH_REFRESH_MARGIN_S). Tokens are bound to the
 * server URL they were issued for: a changed URL means a new login.
 * Redirects are never followed on any OAuth request (a token endpoint that
 * redirects is refused: the code or refresh token would go elsewhere).
 * Every endpoint is https, loopback excepted (zoauth_check_credential_url),
 * the configured ones, the discovered ones and the stored one a refresh
 * uses alike.
 * Random values come from getrandom(2); SHA-256 from libcrypto, loaded on
 * first use like libcurl (see net/curl_loader.h).
 */
#ifndef ZERO_OAUTH_OAUTH_H
#define ZERO_OAUTH_OAUTH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "base/err.h"
#include "mcp/config.h"

#define ZOAUTH_REFRESH_MARGIN_S 60
#define ZOAUTH_LOGIN_TIMEOUT_MS (5 * 60 * 1000)
#define ZOAUTH_CHALLENGE_LEN 43 /* base64url of 32 bytes, no padding */

/* ---- PKCE and encodings ---------------------------------------------------- */

/* base64url without padding (RFC 4648 §5). Caller frees. */
char *zoauth_base64url(const unsigned char *data, size_t len);
/* A random string of n bytes' entropy, base64url. Caller frees. */
char *zoauth_random_string(size_t nbytes);
/* The S256 challenge of a code verifier: BASE64URL(SHA256(verifier)). */
int zoauth_pkce_challenge(const char *verifier, char out[ZOAUTH_CHALLENGE_LEN + 1], zerr *err);
/* Appends s percent-encoded for application/x-www-form-urlencoded / query use. */
void zoauth_urlencode(zbuf *out, const char *s);

/* ---- metadata -------------------------------------------------------------- */

/* The value of parameter name of the Bearer challenge in a WWW-Authenticate
 * header value (quoted or token form), or NULL. Caller frees. */
char *zoauth_challenge_param(const char *header, const char *name);

/* RFC 9728 protected-resource metadata. */
typedef struct zoauth_resource_md {
  char *resource;               /* may be NULL */
  char **authorization_servers; /* NULL-terminated; at least one on success */
  char **scopes_supported;      /* NULL-terminated, may be NULL */
} zoauth_resource_md;
int zoauth_parse_resource_md(const char *json, size_t len, zoauth_resource_md *out, zerr *err);
void zoauth_resource_md_release(zoauth_resource_md *md);

/* RFC 8414 authorization-server metadata (or OpenID configuration). */
typedef struct zoauth_as_md {
  char *issuer;
  char *authorization_endpoint; /* NULL for a device-only issuer */
  char *token_endpoint;
  char *registration_endpoint;   /* NULL when dynamic registration is not offered */
  char *device_authorization_endpoint; /* RFC 8628 §4; NULL when not offered */
  bool s256;                     /* code_challenge_methods_supported lists S256 (or is absent) */
  bool methods_listed;           /* code_challenge_methods_supported was present */
  bool client_credentials_only;  /* grant_types_supported lists client_credentials and not
                                  * authorization_code: a machine-to-machine issuer */
  bool cimd;                     /* client_id_metadata_document_supported: a client_id may
                                  * be the https URL of the client's metadata document */
  unsigned token_auth_methods;   /* token_endpoint_auth_methods_supported as ZOAUTH_AUTH_*
                                  * bits; 0 when absent (or naming none zero knows) */
} zoauth_as_md;

/* Token endpoint client authentication methods (RFC 7591 §2 names). */
#define ZOAUTH_AUTH_BASIC 1u /* client_secret_basic: HTTP Basic with id and secret */
#define ZOAUTH_AUTH_POST 2u  /* client_secret_post: both in the form body */
#define ZOAUTH_AUTH_NONE 4u  /* none: a public client, client_id in the form only */
#define ZOAUTH_AUTH_PRIVATE_KEY_JWT 8u /* private_key_jwt: a signed assertion (RFC 7523) */

/* The method to authenticate to the token endpoint with: "none" without a
 * secret; else the one the registration answer named (registered, may be
 * NULL) when zero knows it; else, from what the issuer lists (supported,
 * ZOAUTH_AUTH_* bits), client_secret_basic when listed or nothing is listed
 * (RFC 8414's default), client_secret_post when that is and Basic is not,
 * none when only none is. Returns one of
 * "client_secret_basic", "client_secret_post", "none" (static strings). */
const char *zoauth_token_auth_method(const char *registered, unsigned supported,
                                     bool has_secret);
/* Fails when the document is not an object, lacks either endpoint, names an
 * issuer other than expected_issuer (when given), or lists PKCE methods
 * without S256. */
int zoauth_parse_as_md(const char *json, size_t len, const char *expected_issuer,
                       zoauth_as_md *out, zerr *err);
void zoauth_as_md_release(zoauth_as_md *md);

/* Where to look for metadata, in order (NULL-terminated, caller frees with
 * strvec_free_array from base/strvec.h). NULL when url is not an absolute http(s) URL. */
char **zoauth_resource_md_urls(const char *server_url);
char **zoauth_as_md_urls(const char *issuer);
/* "scheme://host[:port]" of an http(s) URL, or NULL. Caller frees. */
char *zoauth_origin(const char *url);

/* Every URL that carries or yields a credential — the MCP server a token is
 * sent to, the issuer and its metadata, the authorization, token and
 * registration endpoints — must be https; plain http only to a loopback
 * host (base/url.h zurl_is_loopback), where nothing crosses a network. 0 when
 * url qualifies, else -1 with err saying which endpoint (what) of which
 * server is refused and how to fix it. Checked before each request, and
 * again for what discovery returns. */
int zoauth_check_credential_url(const char *what, const char *url, const char *server,
                                zerr *err);

/* ---- tokens ---------------------------------------------------------------- */

typedef struct zoauth_tokens {
  char *access_token;
  char *refresh_token;   /* may be NULL */
  char *token_type;
  char *scope;           /* may be NULL */
  int64_t expires_at;    /* unix seconds; 0 = the issuer did not say */
  int64_t obtained_at;   /* when the access token was issued (unix seconds) */
  char *client_id;
  char *client_secret;   /* may be NULL */
  char *token_auth_method; /* how the token endpoint is told who we are; NULL = choose as
                            * zoauth_token_auth_method does with nothing listed */
  char *token_endpoint;
  char *resource;        /* the RFC 8707 resource the tokens are for */
  char *server_url;      /* the MCP server URL they were obtained for */
  char *grant_type;      /* "client_credentials" when no user took part: such tokens are
                          * renewed with that grant, not a refresh token; else NULL */
  char *step_up_scope;   /* scopes a 403 insufficient_scope asked for (may be NULL): the
                          * next login asks for them too (zoauth_remember_step_up) */
  char *private_key_file; /* private_key_jwt: the client's PEM key (oauth/jwt.h); NULL else */
  char *signing_alg;      /* its JWS algorithm (NULL: from the key) */
  char *issuer;           /* the authorization server's issuer: a client assertion's aud */
} zoauth_tokens;

/* Reads a token endpoint answer into t (access_token, token_type Bearer,
 * expires_in → expires_at from now, refresh_token, scope); fields not in the
 * answer are left as they are (a refresh that returns no refresh_token keeps
 * the old one). */
int zoauth_parse_token_response(const char *json, size_t len, int64_t now, zoauth_tokens *t,
                                zerr *err);
void zoauth_tokens_release(zoauth_tokens *t);

/* ---- token store -----------------------------------------------------------
 * One JSON file for every OAuth login: $ZERO_OAUTH_TOKENS_PATH, else
 * <config dir>/oauth-tokens.json (Go zero's name and shape):
 *   {"schemaVersion": 1, "tokens": {"mcp:<server>": {…}, "provider:<name>": {…}}}
 * Mode 0600, written atomically (base/fs.h) under the file's lock (a locked
 * read-modify-write: two zero processes refreshing different entries never
 * lose each other's change). A file with another schemaVersion is refused,
 * never overwritten. The sandbox hides it (sandbox/policy.c), and loading an
 * entry declares its secrets to the redactor (base/secrets.h). */

/* The store's path. Caller frees. */
char *zoauth_store_path(void);
/* The entry under key; ZE_NOT_FOUND when there is none. */
int zoauth_store_load(const char *key, zoauth_tokens *t, zerr *err);
int zoauth_store_save(const char *key, const zoauth_tokens *t, zerr *err);
/* Returns 1 when the entry was removed, 0 when there was none. */
int zoauth_store_delete(const char *key, zerr *err);
/* The keys in the store (empty when there is no file); NULL with err when
 * the file cannot be read. Free with strvec_free_array. */
char **zoauth_store_keys(zerr *err);

/* The entry of MCP server `server` ("mcp:<server>"). */
char *zoauth_token_path(const char *server); /* the store's path, for messages */
int zoauth_tokens_load(const char *server, zoauth_tokens *t, zerr *err);
int zoauth_tokens_save(const char *server, const zoauth_tokens *t, zerr *err);
int zoauth_tokens_delete(const char *server, zerr *err);

/* The space-separated scopes of a, then those of b not in a (either may be
 * NULL); NULL when both are empty. Caller frees. */
char *zoauth_scope_union(const char *a, const char *b);

/* A server answered 403 with WWW-Authenticate error="insufficient_scope",
 * scope="…" (MCP scope step-up): records those scopes in the server's token
 * file (a locked update; the tokens stay), so that the next `zero mcp
 * login` asks for them together with the ones it has. -1 with err when the
 * server has no token file. */
int zoauth_remember_step_up(const char *server, const char *scope, zerr *err);

/* Renews t at its token endpoint (a refresh token, or the client-credentials
 * grant again for tokens obtained without a user) and saves it under key.
 * what names the login in errors ("MCP server \"x\""), again is the command
 * that logs in afresh, said when the issuer refuses. */
int zoauth_refresh(const char *key, const char *what, const char *again, zoauth_tokens *t,
                   zerr *err);

/* When t should be refreshed: ZOAUTH_REFRESH_MARGIN_S before expiry, or
 * half its lifetime before for short-lived tokens (so they are not refreshed
 * on every use). 0 when the expiry is unknown. */
int64_t zoauth_refresh_at(const zoauth_tokens *t);

/* The access token to send to server cfg, refreshed (and saved) first when
 * zoauth_refresh_at has passed. *token NULL (return 0) when the server has
 * no stored tokens for its current URL. *refresh_at (may be NULL) tells when
 * to call again. A refresh the issuer refuses fails with a message that says
 * to run `zero mcp login`. */
int zoauth_bearer(const zmcp_server_cfg *cfg, char **token, int64_t *refresh_at, zerr *err);

/* ---- login ----------------------------------------------------------------- */

struct zoauth_device_code; /* below */
typedef struct zoauth_login_opts {
  int timeout_ms;                /* waiting for the browser; 0 = ZOAUTH_LOGIN_TIMEOUT_MS */
  /* Shows the authorization URL to the user (required). */
  void (*show_url)(void *ud, const char *url);
  void *ud;
  /* Status lines ("discovered …", "registered …"); may be NULL. */
  void (*note)(void *ud, const char *msg);
  /* --device: the device flow (RFC 8628) at the server's authorization
   * server instead of the browser redirect; show_code is then required,
   * sleep_s a test seam as in zoauth_device_req (NULL = real). */
  bool device;
  void (*show_code)(void *ud, const struct zoauth_device_code *d);
  int (*sleep_s)(void *ud, int s);
} zoauth_login_opts;

/* The whole flow above; tokens saved on success. */
int zoauth_login(const zmcp_server_cfg *cfg, const zoauth_login_opts *o, zerr *err);

/* ---- flows (loopback.c, device.c) ------------------------------------------- */

/* A one-shot listener on 127.0.0.1:<ephemeral> for the redirect; the fd, or
 * -1 with err. */
int zoauth_loopback_listen(int *port, zerr *err);
/* Waits (up to timeout_ms; cancellable, base/cancel.h) for the browser's
 * GET /callback?code=…&state=… on lfd; the state must match. *code on
 * success (caller frees). */
int zoauth_loopback_await(int lfd, const char *state, int timeout_ms, char **code, zerr *err);

/* What the authorization code flow needs. Borrowed strings. */
typedef struct zoauth_code_req {
  const char *authorization_endpoint, *token_endpoint;
  const char *redirect_uri;              /* http://127.0.0.1:<port>/callback of lfd */
  const char *client_id, *client_secret; /* secret may be NULL (public client) */
  const char *auth_method;               /* token endpoint client authentication; NULL = default */
  const char *scope, *resource;          /* may be NULL */
} zoauth_code_req;

/* The authorization code grant with PKCE (S256) and a random state: shows
 * the authorization URL (o->show_url), waits for the redirect on lfd,
 * exchanges the code. t gets the token answer (nothing saved). */
int zoauth_code_flow(const zoauth_code_req *r, int lfd, const zoauth_login_opts *o,
                     zoauth_tokens *t, zerr *err);

#define ZOAUTH_GRANT_DEVICE_CODE "urn:ietf:params:oauth:grant-type:device_code"
#define ZOAUTH_DEVICE_INTERVAL_S 5   /* RFC 8628 §3.2: when "interval" is absent */
#define ZOAUTH_DEVICE_SLOW_DOWN_S 5  /* §3.5: added on every slow_down */
#define ZOAUTH_DEVICE_LIFETIME_S 600 /* when "expires_in" is absent */

/* A device authorization answer (RFC 8628 §3.2). */
struct zoauth_device_code {
  char *device_code, *user_code, *verification_uri;
  char *verification_uri_complete; /* may be NULL */
  int64_t expires_at;              /* unix seconds */
  int interval_s;
};
typedef struct zoauth_device_code zoauth_device_code;
int zoauth_parse_device_code(const char *json, size_t len, int64_t now, zoauth_device_code *out,
                             zerr *err);
void zoauth_device_code_release(zoauth_device_code *d);

/* What the device flow needs. Borrowed strings. */
typedef struct zoauth_device_req {
  const char *device_endpoint, *token_endpoint;
  const char *client_id, *client_secret, *auth_method;
  const char *scope; /* may be NULL */
  const char *resource; /* RFC 8707 (an MCP server); may be NULL */
  /* Shows the user code and where to enter it (required). */
  void (*show_code)(void *ud, const zoauth_device_code *d);
  void *ud;
  /* Sleeps s seconds; returns -1 when cancelled. NULL = a cancellable
   * sleep (base/cancel.h). A seam for tests. */
  int (*sleep_s)(void *ud, int s);
} zoauth_device_req;

/* The device authorization grant (RFC 8628): asks for a device code, shows
 * it, then polls the token endpoint every interval (5 s by default, +5 s on
 * each slow_down) until the user approves, denies, or the code expires (10
 * min when the issuer does not say); the expiry is rechecked after every
 * sleep. t gets the token answer (nothing saved). */
int zoauth_device_flow(const zoauth_device_req *r, zoauth_tokens *t, zerr *err);

/* ---- cross-app access (xaa.c) ------------------------------------------------
 * Enterprise-Managed Authorization (MCP SEP-990, the conformance suite's
 * auth/cross-app-access-complete-flow): the user signed in to the
 * enterprise identity provider (IdP) and holds an ID token; no browser
 * takes part.
 *   1. RFC 8693 token exchange at the IdP's token endpoint: the ID token
 *      (subject_token_type id_token) for an Identity Assertion JWT
 *      Authorization Grant (requested_token_type id-jag) whose audience is
 *      the MCP server's authorization server and whose resource is the
 *      server.
 *   2. RFC 7523 jwt-bearer grant at the authorization server: the ID-JAG as
 *      the assertion, zero's client authenticating as the issuer's metadata
 *      lists. The answer is an ordinary access token.
 * Both endpoints must be https (loopback excepted). */
typedef struct zoauth_xaa_req {
  const zmcp_idp_cfg *idp;
  const char *server;                    /* the MCP server's name, for messages */
  const zoauth_as_md *as;                /* its authorization server */
  const char *client_id, *client_secret; /* zero's client there (secret may be NULL) */
  const char *scope, *resource;          /* may be NULL */
} zoauth_xaa_req;

#define ZOAUTH_GRANT_TOKEN_EXCHANGE "urn:ietf:params:oauth:grant-type:token-exchange"
#define ZOAUTH_GRANT_JWT_BEARER "urn:ietf:params:oauth:grant-type:jwt-bearer"
#define ZOAUTH_TOKEN_TYPE_ID_TOKEN "urn:ietf:params:oauth:token-type:id_token"
#define ZOAUTH_TOKEN_TYPE_ID_JAG "urn:ietf:params:oauth:token-type:id-jag"

/* Both steps; t gets the tokens and what identifies the client (id,
 * secret, token endpoint and auth method, resource, grant_type
 * jwt-bearer, issuer). Nothing saved. Tokens without a refresh token are
 * renewed by logging in again (the ID token may have changed meanwhile). */
int zoauth_cross_app_access(const zoauth_xaa_req *r, zoauth_tokens *t, zerr *err);

#endif
