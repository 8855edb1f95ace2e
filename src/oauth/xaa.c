/* xaa.c — cross-app access: token exchange at the IdP, then the jwt-bearer
 * grant; see oauth.h "cross-app access". */
#include <ctype.h>
#include <string.h>
#include <time.h>

#include "base/common.h"
#include "base/fs.h"
#include "base/json.h"
#include "base/secrets.h"
#include "base/strvec.h"
#include "oauth/http.h"
#include "oauth/oauth.h"

#define ID_TOKEN_MAX_BYTES (64 * 1024)

/* The ID token from the file the SSO login left it in, trimmed; NULL with
 * err. Caller frees. */
static char *read_id_token(const char *path, zerr *err) {
  zbuf b = ZBUF_INIT;
  if (zfs_read_file(path, &b, ID_TOKEN_MAX_BYTES, err) < 0) {
    zerr_prefix(err, "the ID token file %s (\"oauth.idp.idTokenFile\")", path);
    zbuf_release(&b);
    return NULL;
  }
  char *s = b.data;
  while (*s && isspace((unsigned char)*s)) s++;
  size_t n = strlen(s);
  while (n && isspace((unsigned char)s[n - 1])) n--;
  char *tok = n && !memchr(s, ' ', n) && !memchr(s, '\n', n) ? xstrndup(s, n) : NULL;
  explicit_bzero(b.data, b.len);
  zbuf_release(&b);
  if (!tok)
    zerr_set(err, ZE_CONFIG,
             "the ID token file %s holds no token (one JWT expected); sign in to your "
             "identity provider again",
             path);
  else zsecret_add_value(tok);
  return tok;
}

/* The IdP's token endpoint: configured, or from its issuer's metadata. */
static char *idp_token_endpoint(const zoauth_xaa_req *r, zerr *err) {
  const zmcp_idp_cfg *idp = r->idp;
  if (idp->token_endpoint) return xstrdup(idp->token_endpoint);
  if (zoauth_check_credential_url("identity provider", idp->issuer_url, r->server, err) < 0)
    return NULL;
  char **urls = zoauth_as_md_urls(idp->issuer_url);
  if (!urls) {
    zerr_set(err, ZE_CONFIG, "\"oauth.idp.issuerURL\" of MCP server \"%s\" is not an http(s) URL",
             r->server);
    return NULL;
  }
  char *found = NULL;
  for (char **u = urls; *u && !found; u++) {
    zoauth_fetch f;
    zerr e = ZERR_INIT;
    if (zoauth_get_json(*u, &f, &e) < 0) continue;
    zoauth_as_md md;
    if (zoauth_parse_as_md(f.body.data, f.body.len, idp->issuer_url, &md, &e) == 0) {
      found = steal_pointer(&md.token_endpoint);
      zoauth_as_md_release(&md);
    }
    zoauth_fetch_release(&f);
  }
  strvec_free_array(urls);
  if (!found)
    zerr_set(err, ZE_NOT_FOUND,
             "the identity provider %s publishes no usable metadata; set "
             "\"oauth.idp.tokenEndpoint\" for MCP server \"%s\"",
             idp->issuer_url, r->server);
  return found;
}

/* Step 1: the ID token for an ID-JAG (RFC 8693 §2.1). Caller frees. */
static char *exchange_for_id_jag(const zoauth_xaa_req *r, const char *endpoint, zerr *err) {
  cleanup_free char *id_token = read_id_token(r->idp->id_token_file, err);
  if (!id_token) return NULL;
  zbuf form = ZBUF_INIT;
  zoauth_form_add(&form, "grant_type", ZOAUTH_GRANT_TOKEN_EXCHANGE);
  zoauth_form_add(&form, "requested_token_type", ZOAUTH_TOKEN_TYPE_ID_JAG);
  zoauth_form_add(&form, "audience", r->as->issuer);
  zoauth_form_add(&form, "resource", r->resource);
  zoauth_form_add(&form, "scope", r->scope);
  zoauth_form_add(&form, "subject_token", id_token);
  zoauth_form_add(&form, "subject_token_type", ZOAUTH_TOKEN_TYPE_ID_TOKEN);
  zoauth_form_add(&form, "client_id", r->idp->client_id);
  zoauth_client c = {.id = r->idp->client_id, .secret = r->idp->client_secret};
  zoauth_fetch f;
  int rc = zoauth_token_post(endpoint, form.data, &c, &f, NULL, err);
  explicit_bzero(form.data, form.len);
  zbuf_release(&form);
  if (rc < 0) {
    zerr_prefix(err, "the identity provider refused the token exchange");
    return NULL;
  }
  json_t *doc = json_loadb(f.body.data, f.body.len, 0, NULL);
  const char *jag = zjson_str(doc, "access_token");
  const char *type = zjson_str(doc, "issued_token_type");
  char *out = NULL;
  if (!jag || !jag[0] || !type || strcmp(type, ZOAUTH_TOKEN_TYPE_ID_JAG) != 0)
    zerr_set(err, ZE_PROVIDER,
             "the identity provider's token exchange answer holds no ID-JAG "
             "(issued_token_type %s expected)",
             ZOAUTH_TOKEN_TYPE_ID_JAG);
  else out = xstrdup(jag);
  zsecret_add_value(out);
  json_decref(doc);
  zoauth_fetch_release(&f);
  return out;
}

int zoauth_cross_app_access(const zoauth_xaa_req *r, zoauth_tokens *t, zerr *err) {
  if (!r->client_id)
    return zerr_set(err, ZE_CONFIG,
                    "cross-app access needs zero's client at the authorization server of MCP "
                    "server \"%s\": set \"oauth.clientID\" (and \"oauth.clientSecret\")",
                    r->server);
  cleanup_free char *idp_endpoint = idp_token_endpoint(r, err);
  if (!idp_endpoint ||
      zoauth_check_credential_url("identity provider's token endpoint", idp_endpoint, r->server,
                                  err) < 0 ||
      zoauth_check_credential_url("token endpoint", r->as->token_endpoint, r->server, err) < 0)
    return -1;
  cleanup_free char *jag = exchange_for_id_jag(r, idp_endpoint, err);
  if (!jag) return -1;
  /* Step 2: the ID-JAG as an authorization grant (RFC 7523 §2.1). */
  t->token_auth_method =
      xstrdup(zoauth_token_auth_method(NULL, r->as->token_auth_methods, r->client_secret != NULL));
  zbuf form = ZBUF_INIT;
  zoauth_form_add(&form, "grant_type", ZOAUTH_GRANT_JWT_BEARER);
  zoauth_form_add(&form, "assertion", jag);
  zoauth_form_add(&form, "scope", r->scope);
  zoauth_form_add(&form, "resource", r->resource);
  zoauth_form_add(&form, "client_id", r->client_id);
  zoauth_client c = {.id = r->client_id,
                     .secret = r->client_secret,
                     .auth_method = t->token_auth_method};
  int rc = zoauth_token_request_as(r->as->token_endpoint, form.data, &c, t, NULL, err);
  zbuf_release(&form);
  if (rc < 0) return -1;
  t->grant_type = xstrdup(ZOAUTH_GRANT_JWT_BEARER);
  t->client_id = xstrdup(r->client_id);
  t->client_secret = r->client_secret ? xstrdup(r->client_secret) : NULL;
  t->token_endpoint = xstrdup(r->as->token_endpoint);
  t->resource = r->resource ? xstrdup(r->resource) : NULL;
  t->issuer = xstrdup(r->as->issuer);
  if (!t->scope && r->scope) t->scope = xstrdup(r->scope);
  return 0;
}
