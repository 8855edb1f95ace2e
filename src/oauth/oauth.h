/* oauth.h — OAuth 2.1 for remote MCP servers (MCP authorization, revision
 * 2025-06-18).
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
 *   4. Token exchange; tokens are stored with mode 0600 in
 *      $XDG_CONFIG_HOME/zero/mcp-oauth/<server>.json (written atomically),
 *      together with the client registration and token endpoint, so that a
 *      refresh needs no discovery.
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
  char *authorization_endpoint;
  char *token_endpoint;
  char *registration_endpoint;   /* NULL when dynamic registration is not offered */
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
} zoauth_tokens;

/* Reads a token endpoint answer into t (access_token, token_type Bearer,
 * expires_in → expires_at from now, refresh_token, scope); fields not in the
 * answer are left as they are (a refresh that returns no refresh_token keeps
 * the old one). */
int zoauth_parse_token_response(const char *json, size_t len, int64_t now, zoauth_tokens *t,
                                zerr *err);
void zoauth_tokens_release(zoauth_tokens *t);

/* $XDG_CONFIG_HOME/zero/mcp-oauth/<server>.json (bytes outside
 * [A-Za-z0-9_-] of the name become '_'). Caller frees. */
char *zoauth_token_path(const char *server);
/* ZE_NOT_FOUND when there are none. */
int zoauth_tokens_load(const char *server, zoauth_tokens *t, zerr *err);
int zoauth_tokens_save(const char *server, const zoauth_tokens *t, zerr *err);
/* Returns 1 when a file was removed, 0 when there was none. */
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

typedef struct zoauth_login_opts {
  int timeout_ms;                /* waiting for the browser; 0 = ZOAUTH_LOGIN_TIMEOUT_MS */
  /* Shows the authorization URL to the user (required). */
  void (*show_url)(void *ud, const char *url);
  void *ud;
  /* Status lines ("discovered …", "registered …"); may be NULL. */
  void (*note)(void *ud, const char *msg);
} zoauth_login_opts;

/* The whole flow above; tokens saved on success. */
int zoauth_login(const zmcp_server_cfg *cfg, const zoauth_login_opts *o, zerr *err);

#endif
