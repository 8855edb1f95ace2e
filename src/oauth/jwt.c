/* jwt.c — JWT signing over libcrypto loaded on first use; see jwt.h. */
#include "oauth/jwt.h"

#include <jansson.h>
#include <openssl/bn.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "base/base64.h"
#include "base/buf.h"
#include "base/common.h"
#include "base/dlib.h"
#include "base/fs.h"
#include "base/ids.h"
#include "oauth/oauth.h"

/* The signing half of libcrypto, one per process (a singleton by nature,
 * like base/hash.c's digest table; dlopen counts the second handle). */
typedef struct sign_fns {
  BIO *(*bio_mem)(const void *, int);
  int (*bio_free)(BIO *);
  EVP_PKEY *(*read_key)(BIO *, EVP_PKEY **, pem_password_cb *, void *);
  void (*key_free)(EVP_PKEY *);
  int (*key_id)(const EVP_PKEY *);
  int (*key_bits)(const EVP_PKEY *);
  EVP_MD_CTX *(*ctx_new)(void);
  void (*ctx_free)(EVP_MD_CTX *);
  int (*sign_init)(EVP_MD_CTX *, EVP_PKEY_CTX **, const EVP_MD *, ENGINE *, EVP_PKEY *);
  int (*sign)(EVP_MD_CTX *, unsigned char *, size_t *, const unsigned char *, size_t);
  const EVP_MD *(*sha256)(void);
  const EVP_MD *(*sha384)(void);
  const EVP_MD *(*sha512)(void);
  ECDSA_SIG *(*der_to_sig)(ECDSA_SIG **, const unsigned char **, long);
  void (*sig_get0)(const ECDSA_SIG *, const BIGNUM **, const BIGNUM **);
  void (*sig_free)(ECDSA_SIG *);
  int (*bn_pad)(const BIGNUM *, unsigned char *, int);
} sign_fns;
static sign_fns S;

static const zdlib_sym sign_syms[] = {
    ZDLIB_SYM(sign_fns, bio_mem, "BIO_new_mem_buf"),
    ZDLIB_SYM(sign_fns, bio_free, "BIO_free"),
    ZDLIB_SYM(sign_fns, read_key, "PEM_read_bio_PrivateKey"),
    ZDLIB_SYM(sign_fns, key_free, "EVP_PKEY_free"),
    ZDLIB_SYM(sign_fns, key_id, "EVP_PKEY_get_base_id"),
    ZDLIB_SYM(sign_fns, key_bits, "EVP_PKEY_get_bits"),
    ZDLIB_SYM(sign_fns, ctx_new, "EVP_MD_CTX_new"),
    ZDLIB_SYM(sign_fns, ctx_free, "EVP_MD_CTX_free"),
    ZDLIB_SYM(sign_fns, sign_init, "EVP_DigestSignInit"),
    ZDLIB_SYM(sign_fns, sign, "EVP_DigestSign"),
    ZDLIB_SYM(sign_fns, sha256, "EVP_sha256"),
    ZDLIB_SYM(sign_fns, sha384, "EVP_sha384"),
    ZDLIB_SYM(sign_fns, sha512, "EVP_sha512"),
    ZDLIB_SYM(sign_fns, der_to_sig, "d2i_ECDSA_SIG"),
    ZDLIB_SYM(sign_fns, sig_get0, "ECDSA_SIG_get0"),
    ZDLIB_SYM(sign_fns, sig_free, "ECDSA_SIG_free"),
    ZDLIB_SYM(sign_fns, bn_pad, "BN_bn2binpad"),
};

static void describe(zdlib_spec *s) {
  ZDLIB_DESCRIBE(s, "libcrypto.so.3", "OpenSSL's libcrypto", "to sign OAuth client assertions",
                 "libssl3", "OpenSSL 3", sign_syms, &S, NULL);
}

static zdlib libcrypto_sign = ZDLIB_INIT; /* one per process */

/* The JWS algorithms zero signs with (RFC 7518 §3.1). */
typedef enum key_kind { KIND_RSA, KIND_EC, KIND_ED25519 } key_kind;
typedef struct jws_alg {
  const char *name;
  key_kind kind;
  int bits;      /* SHA-2 size (0: EdDSA hashes itself) */
  int coord_len; /* ECDSA: bytes of r and of s */
} jws_alg;

static const jws_alg algs[] = {
    {"RS256", KIND_RSA, 256, 0},   {"RS384", KIND_RSA, 384, 0}, {"RS512", KIND_RSA, 512, 0},
    {"ES256", KIND_EC, 256, 32},   {"ES384", KIND_EC, 384, 48}, {"ES512", KIND_EC, 512, 66},
    {"EdDSA", KIND_ED25519, 0, 0},
};

static const jws_alg *find_alg(const char *name) {
  for (size_t i = 0; i < ZARRAY_LEN(algs); i++)
    if (!strcmp(algs[i].name, name)) return &algs[i];
  return NULL;
}

/* The algorithm a key implies when none is configured. */
static const jws_alg *default_alg(EVP_PKEY *key) {
  switch (S.key_id(key)) {
    case EVP_PKEY_RSA: return find_alg("RS256");
    case EVP_PKEY_EC: {
      int bits = S.key_bits(key);
      return find_alg(bits > 384 ? "ES512" : bits > 256 ? "ES384" : "ES256");
    }
    case EVP_PKEY_ED25519: return find_alg("EdDSA");
    default: return NULL;
  }
}

static bool alg_fits_key(const jws_alg *a, EVP_PKEY *key) {
  int id = S.key_id(key);
  if (a->kind == KIND_RSA) return id == EVP_PKEY_RSA;
  if (a->kind == KIND_ED25519) return id == EVP_PKEY_ED25519;
  /* ECDSA: the curve is fixed by the algorithm (RFC 7518 §3.4). */
  int want = a->coord_len == 66 ? 521 : a->coord_len * 8;
  return id == EVP_PKEY_EC && S.key_bits(key) == want;
}

/* Never prompts: an encrypted key fails instead of asking on the terminal. */
static int no_passphrase(char *buf, int size, int rwflag, void *ud) {
  (void)buf, (void)size, (void)rwflag;
  *(bool *)ud = true;
  return -1;
}

/* DER ECDSA-Sig-Value → the fixed-width r||s a JWS carries. */
static int ecdsa_raw(const unsigned char *der, size_t der_len, int coord_len, zbuf *out,
                     zerr *err) {
  const unsigned char *p = der;
  ECDSA_SIG *sig = S.der_to_sig(NULL, &p, (long)der_len);
  if (!sig) return zerr_set(err, ZE_INTERNAL, "libcrypto returned an unreadable ECDSA signature");
  const BIGNUM *r = NULL, *s = NULL;
  S.sig_get0(sig, &r, &s);
  unsigned char raw[2 * 66];
  int ok = S.bn_pad(r, raw, coord_len) == coord_len &&
           S.bn_pad(s, raw + coord_len, coord_len) == coord_len;
  S.sig_free(sig);
  if (!ok) return zerr_set(err, ZE_INTERNAL, "an ECDSA signature does not fit its curve");
  zbuf_add(out, raw, 2 * (size_t)coord_len);
  return 0;
}

/* Signs input with key under a; the JWS signature bytes into out. */
static int sign_bytes(EVP_PKEY *key, const jws_alg *a, const zbuf *input, zbuf *out, zerr *err) {
  const EVP_MD *md = a->bits == 256   ? S.sha256()
                     : a->bits == 384 ? S.sha384()
                     : a->bits == 512 ? S.sha512()
                                      : NULL;
  EVP_MD_CTX *ctx = S.ctx_new();
  size_t n = 0;
  unsigned char *sig = NULL;
  int rc = -1;
  if (ctx && S.sign_init(ctx, NULL, md, NULL, key) == 1 &&
      S.sign(ctx, NULL, &n, (const unsigned char *)input->data, input->len) == 1) {
    sig = xmalloc(n);
    if (S.sign(ctx, sig, &n, (const unsigned char *)input->data, input->len) == 1) rc = 0;
  }
  if (rc < 0) zerr_set(err, ZE_INTERNAL, "libcrypto could not sign with the %s key", a->name);
  else if (a->kind == KIND_EC) rc = ecdsa_raw(sig, n, a->coord_len, out, err);
  else zbuf_add(out, sig, n);
  free(sig);
  if (ctx) S.ctx_free(ctx);
  return rc;
}

/* Reads the PEM private key; NULL with err. */
static EVP_PKEY *read_key(const char *pem, size_t pem_len, zerr *err) {
  if (pem_len > ZOAUTH_KEY_MAX_BYTES) {
    zerr_set(err, ZE_TOO_LARGE, "the private key is larger than %d bytes", ZOAUTH_KEY_MAX_BYTES);
    return NULL;
  }
  BIO *bio = S.bio_mem(pem, (int)pem_len);
  bool encrypted = false;
  EVP_PKEY *key = bio ? S.read_key(bio, NULL, no_passphrase, &encrypted) : NULL;
  if (bio) S.bio_free(bio);
  if (!key)
    zerr_set(err, ZE_INVALID, "%s",
             encrypted ? "the private key is encrypted; zero reads only unencrypted PEM keys "
                         "(openssl pkey -in KEY -out PLAIN)"
                       : "no PEM private key could be read (expected \"-----BEGIN PRIVATE "
                         "KEY-----\" or its RSA / EC form)");
  return key;
}

char *zoauth_jwt_sign(const char *pem, size_t pem_len, const char *alg, const char *claims_json,
                      zerr *err) {
  if (zdlib_require(&libcrypto_sign, describe, err) < 0) return NULL;
  const jws_alg *a = alg ? find_alg(alg) : NULL;
  if (alg && !a) {
    zerr_set(err, ZE_CONFIG,
             "unknown JWT signing algorithm \"%.40s\" (zero signs with RS256, RS384, RS512, "
             "ES256, ES384, ES512 or EdDSA)",
             alg);
    return NULL;
  }
  EVP_PKEY *key = read_key(pem, pem_len, err);
  if (!key) return NULL;
  if (!a && !(a = default_alg(key))) {
    S.key_free(key);
    zerr_set(err, ZE_INVALID, "the private key is neither RSA, EC nor Ed25519");
    return NULL;
  }
  if (!alg_fits_key(a, key)) {
    S.key_free(key);
    zerr_set(err, ZE_CONFIG, "the private key does not fit the signing algorithm %s", a->name);
    return NULL;
  }
  zbuf jws = ZBUF_INIT, sig = ZBUF_INIT, header = ZBUF_INIT;
  zbuf_addf(&header, "{\"alg\":\"%s\",\"typ\":\"JWT\"}", a->name);
  zbase64url_add(&jws, header.data, header.len);
  zbuf_addch(&jws, '.');
  zbase64url_add(&jws, claims_json, strlen(claims_json));
  int rc = sign_bytes(key, a, &jws, &sig, err);
  S.key_free(key);
  zbuf_release(&header);
  if (rc == 0) {
    zbuf_addch(&jws, '.');
    zbase64url_add(&jws, sig.data, sig.len);
  }
  zbuf_release(&sig);
  if (rc < 0) {
    zbuf_release(&jws);
    return NULL;
  }
  return zbuf_detach(&jws, NULL);
}

char *zoauth_client_assertion(const char *key_file, const char *alg, const char *client_id,
                              const char *audience, int64_t now, zerr *err) {
  zbuf pem = ZBUF_INIT;
  if (zfs_read_file(key_file, &pem, ZOAUTH_KEY_MAX_BYTES, err) < 0) {
    zerr_prefix(err, "the OAuth private key %s", key_file);
    zbuf_release(&pem);
    return NULL;
  }
  cleanup_free char *jti = zoauth_random_string(16);
  json_t *claims = json_pack("{s:s, s:s, s:s, s:I, s:I, s:s}", "iss", client_id, "sub", client_id,
                             "aud", audience, "iat", (json_int_t)now, "exp",
                             (json_int_t)now + ZOAUTH_ASSERTION_LIFETIME_S, "jti", jti);
  char *text = claims ? json_dumps(claims, JSON_COMPACT) : NULL;
  json_decref(claims);
  char *jwt = NULL;
  if (!text) zerr_set(err, ZE_INVALID, "cannot build a client assertion for client %s", client_id);
  else jwt = zoauth_jwt_sign(pem.data ? pem.data : "", pem.len, alg, text, err);
  if (!jwt && text) zerr_prefix(err, "the OAuth private key %s", key_file);
  free(text);
  /* The key was in memory: wipe it before the buffer goes back. */
  if (pem.data) explicit_bzero(pem.data, pem.len);
  zbuf_release(&pem);
  return jwt;
}
