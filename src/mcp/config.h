/* config.h — MCP servers from the configuration files, and the trust list.
 *
 * Servers are read from the same files as config/config.c: the user file
 * ($XDG_CONFIG_HOME/zero/config.json) and the project file
 * (<workspace>/.zero/config.json, else the git root's). Keys:
 *   "mcp": { "servers": { "<name>": SERVER } }   (canonical)
 *   "mcpServers" / "mcp_servers": { "<name>": SERVER }  (aliases, as other
 *   MCP clients write them; the same name in both forms of one file is an error)
 * SERVER: { "type": "stdio" | "http" | "sse" (default stdio with "command",
 *           http with "url"; "streamable-http"/"streamableHttp" = http),
 *           "command", "args": [..], "env": {K: V}, "cwd",
 *           "url", "headers": {Name: value}, "disabled": bool,
 *           "timeoutMs": per-request timeout, "startupTimeoutMs",
 *           "auth": "oauth" | "none" (default: OAuth when the server asks for it),
 *           "oauth": { "clientID", "clientSecret", "scopes": [..],
 *                      "authorizationEndpoint", "tokenEndpoint",
 *                      "registrationEndpoint", "issuerURL", "clientMetadataURL",
 *                      "privateKeyFile", "signingAlgorithm",
 *                      "idp": { "issuerURL", "tokenEndpoint", "clientID",
 *                               "clientSecret", "idTokenFile" } } }
 *           (see oauth/oauth.h)
 * A project file runs commands from a repository someone else wrote, so its
 * servers are loaded only when the user trusted the workspace
 * (`zero mcp trust`, stored in $XDG_CONFIG_HOME/zero/trusted-workspaces.json).
 * A project server with the same name as a user one replaces it.
 */
#ifndef ZERO_MCP_CONFIG_H
#define ZERO_MCP_CONFIG_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "base/err.h"

typedef enum zmcp_type { ZMCP_STDIO, ZMCP_HTTP, ZMCP_SSE } zmcp_type;

typedef enum zmcp_auth {
  ZMCP_AUTH_AUTO,  /* stored OAuth tokens are used; a 401 asks for `zero mcp login` */
  ZMCP_AUTH_OAUTH, /* OAuth expected: no tokens is an error before connecting */
  ZMCP_AUTH_NONE,  /* never send or ask for OAuth tokens */
} zmcp_auth;

/* "oauth.idp": the enterprise identity provider of cross-app access
 * (Enterprise-Managed Authorization, SEP-990): zero exchanges the user's ID
 * token there for an ID-JAG (RFC 8693 token exchange), then the ID-JAG at
 * the MCP server's authorization server for an access token (RFC 7523
 * jwt-bearer grant). All may be NULL. */
typedef struct zmcp_idp_cfg {
  char *issuer_url;     /* whose metadata gives the token endpoint */
  char *token_endpoint; /* or this, directly */
  char *client_id;      /* zero's client at the IdP */
  char *client_secret;  /* may be NULL: a public client */
  char *id_token_file;  /* a file holding the user's current ID token (what an SSO login
                         * wrote); absolute once parsed */
} zmcp_idp_cfg;

/* The "oauth" object: what to use instead of discovery / registration. All
 * may be NULL. */
typedef struct zmcp_oauth_cfg {
  char *client_id;
  char *client_secret;
  char **scopes;                 /* NULL-terminated, may be NULL */
  char *authorization_endpoint;
  char *token_endpoint;
  char *registration_endpoint;
  char *issuer_url;
  char *client_metadata_url; /* an https URL serving zero's Client ID Metadata Document,
                              * used as client_id where the issuer supports that */
  char *private_key_file;    /* private_key_jwt instead of a secret (oauth/jwt.h); absolute
                              * once parsed ("~/" expanded) */
  char *signing_algorithm;   /* its JWS algorithm; NULL = from the key */
  zmcp_idp_cfg idp;          /* cross-app access (SEP-990) when idp.token_endpoint or
                              * idp.issuer_url is set */
} zmcp_oauth_cfg;

typedef struct zmcp_server_cfg {
  char *name;
  zmcp_type type;
  char **argv;         /* stdio: command + args, NULL-terminated */
  char **env;          /* stdio: extra "K=V", NULL-terminated (may be NULL) */
  char *cwd;           /* stdio: working directory (NULL = the workspace) */
  char *url;           /* http / sse */
  char **headers;      /* http / sse: "Name: value", NULL-terminated (may be NULL) */
  bool disabled;
  bool project;        /* came from the project file */
  int timeout_ms;      /* per request; 0 = default */
  int startup_timeout_ms;
  char *origin;        /* the file it came from */
  zmcp_auth auth;
  zmcp_oauth_cfg oauth;
} zmcp_server_cfg;

typedef struct zmcp_config {
  zmcp_server_cfg *servers;
  size_t n;
  char *user_path;
  char *project_path;
  bool project_trusted;
  /* Names of project servers skipped because the workspace is untrusted
   * (NULL-terminated, may be NULL). */
  char **skipped_untrusted;
} zmcp_config;

const char *zmcp_type_name(zmcp_type t);

/* Loads servers for workspace. Malformed entries fail with ZE_USAGE naming
 * the file and server. */
int zmcp_config_load(zmcp_config *cfg, const char *workspace, zerr *err);
void zmcp_config_release(zmcp_config *cfg);
const zmcp_server_cfg *zmcp_config_find(const zmcp_config *cfg, const char *name);

/* Parses one SERVER object (exposed for tests and `zero mcp add`). */
int zmcp_server_parse(const char *name, const json_t *obj, const char *origin,
                      zmcp_server_cfg *out, zerr *err);
void zmcp_server_cfg_release(zmcp_server_cfg *s);

/* Declares the credentials cfg configures to base/secrets.h: the "env"
 * entries that look like credentials (their names are kept from every
 * other child), credential headers, OAuth client secrets. */
void zmcp_config_declare_secrets(const zmcp_config *cfg);

/* Trust list: whether workspace (absolute) is trusted; trusting adds it. */
bool zmcp_workspace_trusted(const char *workspace);
int zmcp_trust_workspace(const char *workspace, zerr *err);

/* Edits the "mcp.servers" object of the config file at path (created when
 * missing) through fn, then writes it back atomically (0600). Entries in
 * the mcpServers alias with the same name are moved to mcp.servers first. */
int zmcp_config_edit(const char *path, int (*fn)(void *ud, json_t *servers, zerr *err),
                     void *ud, zerr *err);

#endif
