/* jwt.h — signed JWTs (RFC 7519, compact JWS of RFC 7515) for OAuth client
 * authentication: the private_key_jwt client assertion of RFC 7523 §2.2 /
 * OpenID Connect Core §9, which the client-credentials grant of MCP
 * (SEP-1046) uses instead of a client secret.
 *
 * Signing uses OpenSSL's libcrypto, loaded on first use (base/dlib.h) like
 * base/hash.c does: only a login with a private key needs it. The key is a
 * PEM private key (PKCS#8 "PRIVATE KEY", or the traditional RSA / EC
 * forms), never encrypted (zero does not prompt for passphrases).
 * Algorithms: RS256/RS384/RS512 (RSA, PKCS#1 v1.5), ES256/ES384/ES512
 * (ECDSA on P-256/P-384/P-521, signature as r||s per RFC 7518 §3.4) and
 * EdDSA (Ed25519). Without an algorithm, the key's kind chooses: RSA →
 * RS256, EC → ES256/384/512 by curve, Ed25519 → EdDSA.
 */
#ifndef ZERO_OAUTH_JWT_H
#define ZERO_OAUTH_JWT_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

#define ZOAUTH_ASSERTION_LIFETIME_S 300 /* exp - iat of a client assertion */
#define ZOAUTH_KEY_MAX_BYTES (64 * 1024)
/* RFC 7521 §4.2's client_assertion_type for a JWT. */
#define ZOAUTH_ASSERTION_TYPE "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"

/* Signs claims_json (a JSON object, as is) with the PEM private key pem
 * (pem_len bytes) under alg (NULL: chosen from the key, above); the header
 * is {"alg":…,"typ":"JWT"}. Returns "header.payload.signature" (caller
 * frees), or NULL with err: a key libcrypto cannot read, an alg zero does
 * not know, or one that does not fit the key (ES256 with an RSA key). */
char *zoauth_jwt_sign(const char *pem, size_t pem_len, const char *alg, const char *claims_json,
                      zerr *err);

/* A private_key_jwt client assertion (RFC 7523 §3): iss and sub the
 * client_id, aud the authorization server's issuer (what the MCP SDKs send
 * and the suite checks; RFC 7523 allows the issuer or the token endpoint),
 * iat now, exp ZOAUTH_ASSERTION_LIFETIME_S later, a random jti so that
 * each assertion is used once. The key is read from key_file at each call
 * (it may be rotated). Caller frees; NULL with err naming the file. */
char *zoauth_client_assertion(const char *key_file, const char *alg, const char *client_id,
                              const char *audience, int64_t now, zerr *err);

#endif
