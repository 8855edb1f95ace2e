/* test_oauth_jwt.c — signed client assertions (oauth/jwt.h): every JWS
 * algorithm zero signs with is checked by verifying the signature with
 * libcrypto against the key's public half (ES256's r||s turned back into
 * DER), the header and claims are decoded and compared, and the refusals
 * (an algorithm that does not fit the key, an unknown one, no key, a
 * missing file) are asserted with their messages. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <openssl/bn.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/common.h"
#include "base/json.h"
#include "oauth/jwt.h"

/* Throw-away test keys (openssl genpkey), never used anywhere else. */
static const char EC256[] = "-----BEGIN PRIVATE KEY-----\n"
                            "MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgU3fnA7zx1BrKcrdb\n"
                            "8vJ1n+xO62spqCRAbcQzAYqxTDahRANCAARySalSf+YDTgfvPN2M15UnDt6hj93s\n"
                            "yhCqEfiYahPlihDXiu9t8tjeTZUtoyXAda0BNP7CNk4VQ4wU7RIUSBln\n"
                            "-----END PRIVATE KEY-----\n";
static const char EC384[] = "-----BEGIN PRIVATE KEY-----\n"
                            "MIG2AgEAMBAGByqGSM49AgEGBSuBBAAiBIGeMIGbAgEBBDAjee5k9AkHpivOb6B7\n"
                            "gfsvbjQk44sWjAgit5Q5NWBf4Oz02+IKXFNYFd143QaTieChZANiAAT+uMvOps1C\n"
                            "7osg/35q+HhY+YIjgM5e4hNqUddoY8P5sccZ02CL6tBWwKiWnV1l8KJbDFFNOLcQ\n"
                            "LZ4u5LU0ykHwI4yvzopm54nyV3nepr/PNE+C/lmH2NEaVkQkgI5YcKQ=\n"
                            "-----END PRIVATE KEY-----\n";
static const char RSA1024[] = "-----BEGIN PRIVATE KEY-----\n"
                              "MIICdQIBADANBgkqhkiG9w0BAQEFAASCAl8wggJbAgEAAoGBALgzK9EZvxRbitIx\n"
                              "us38FOaKQpCHqhL+2LuNqsyVkbthAUWwPRHsZpOf7syZtcrg12oJ1Gyr8qvmeZx1\n"
                              "lqDjnDqoPBL9iWZCys0YSunJ6wJmPBeQ0H0nF1UUiZJRcGtFjvrteNl5rAPH4dX5\n"
                              "seAHxEBjaPM/WpMSHMCOm1fsrwG7AgMBAAECgYBX9s/o9nOixCiiQm9kKQrOIZ6y\n"
                              "KKdWlO9pebjkJFVI94VFA2nWol9GBm1itdD0BrW4hOM11lN4NgNDbYA2axvSs17T\n"
                              "dg9Il7dAeCzsCstuIgf9Fvyycv+2inJRTL+jpvtWzO3a5VqdbqzU+oD6uF8DYhlC\n"
                              "ZvNH4MO3ZJ3NYToGeQJBAOhGM2P7jYVgyDpHZNxnVghGrLG0YBItT6n//iG+hHHu\n"
                              "lBvfzy46YntrFsKAMYC5P+4dWL6IDZeoSCPtkGOSfH8CQQDLA9yybCYtVpUhCw0M\n"
                              "Z7tn3QAFNFSCgzj0g4L3rkygSF2GP88vvkR07Tl5jFGzkTdeGcKyT+a1xO7KY0uO\n"
                              "QMzFAkAUCQIjzK3/ZELBLClaDZvRKO96gJmM19W4TzmHhZx9C1xBL0P6s9SM2sbi\n"
                              "zhX3CYOnMWbXQHsTqtNWLga3YApXAkAeZqen+FYHOA4A8ryzfN0tgoS8Qsfc+3WN\n"
                              "+Bump21GG1AWCHwoNB/gOp3+u6qIb1iRON5VAW4VDjaMDC6GUOHZAkAFMtN/hK1z\n"
                              "7U2J0TxXZAJjOqRqya6tXWWTLxdEcLBJ18zNLjdfyGsungIeB11fmA6wDYDKbs4c\n"
                              "btBAWd3kv0FV\n"
                              "-----END PRIVATE KEY-----\n";
static const char ED25519[] = "-----BEGIN PRIVATE KEY-----\n"
                              "MC4CAQAwBQYDK2VwBCIEIABWmnAHF8wUMkS9WIuLfxt9/Fbbjr7f1JcrguSFDgjS\n"
                              "-----END PRIVATE KEY-----\n";

/* base64url (no padding) → bytes; -1 when it is not base64url. */
static int b64url_decode(const char *s, size_t n, zbuf *out) {
  zbuf std = ZBUF_INIT;
  for (size_t i = 0; i < n; i++) zbuf_addch(&std, s[i] == '-' ? '+' : s[i] == '_' ? '/' : s[i]);
  while (std.len % 4) zbuf_addch(&std, '=');
  unsigned char *buf = xmalloc(std.len + 1);
  int len = EVP_DecodeBlock(buf, (const unsigned char *)std.data, (int)std.len);
  size_t pad = n % 4 == 2 ? 2 : n % 4 == 3 ? 1 : 0;
  if (len >= 0) zbuf_add(out, buf, (size_t)len - pad);
  free(buf);
  zbuf_release(&std);
  return len < 0 ? -1 : 0;
}

/* The three parts of a compact JWS, decoded. */
typedef struct jws {
  zbuf header, claims, sig;
  size_t signed_len; /* bytes of "header.payload" */
} jws;

static void split(const char *jwt, jws *j) {
  memset(j, 0, sizeof *j);
  zbuf_init(&j->header), zbuf_init(&j->claims), zbuf_init(&j->sig);
  const char *d1 = strchr(jwt, '.');
  assert_non_null(d1);
  const char *d2 = strchr(d1 + 1, '.');
  assert_non_null(d2);
  assert_null(strchr(d2 + 1, '.'));
  assert_int_equal(b64url_decode(jwt, (size_t)(d1 - jwt), &j->header), 0);
  assert_int_equal(b64url_decode(d1 + 1, (size_t)(d2 - d1 - 1), &j->claims), 0);
  assert_int_equal(b64url_decode(d2 + 1, strlen(d2 + 1), &j->sig), 0);
  j->signed_len = (size_t)(d2 - jwt);
}

static void jws_release(jws *j) {
  zbuf_release(&j->header);
  zbuf_release(&j->claims);
  zbuf_release(&j->sig);
}

/* Verifies the signature with the public half of pem, as a relying party
 * would: ECDSA's fixed-width r||s is turned into DER first. */
static bool verifies(const char *pem, const char *jwt, const jws *j, const EVP_MD *md,
                     int ec_coord) {
  BIO *bio = BIO_new_mem_buf(pem, -1);
  EVP_PKEY *key = PEM_read_bio_PrivateKey(bio, NULL, NULL, NULL);
  BIO_free(bio);
  assert_non_null(key);
  unsigned char *der = NULL;
  const unsigned char *sig = (const unsigned char *)j->sig.data;
  size_t sig_len = j->sig.len;
  if (ec_coord) {
    assert_int_equal(j->sig.len, (size_t)(2 * ec_coord));
    ECDSA_SIG *es = ECDSA_SIG_new();
    ECDSA_SIG_set0(es, BN_bin2bn(sig, ec_coord, NULL), BN_bin2bn(sig + ec_coord, ec_coord, NULL));
    int n = i2d_ECDSA_SIG(es, &der);
    ECDSA_SIG_free(es);
    sig = der;
    sig_len = (size_t)n;
  }
  EVP_MD_CTX *ctx = EVP_MD_CTX_new();
  int ok = EVP_DigestVerifyInit(ctx, NULL, md, NULL, key) == 1 &&
           EVP_DigestVerify(ctx, sig, sig_len, (const unsigned char *)jwt, j->signed_len) == 1;
  EVP_MD_CTX_free(ctx);
  EVP_PKEY_free(key);
  OPENSSL_free(der);
  return ok;
}

static const char CLAIMS[] = "{\"iss\":\"c\",\"sub\":\"c\",\"aud\":\"https://as.example\"}";

static void check_alg(const char *pem, const char *alg, const char *want_alg, const EVP_MD *md,
                      int ec_coord) {
  zerr err = ZERR_INIT;
  char *jwt = zoauth_jwt_sign(pem, strlen(pem), alg, CLAIMS, &err);
  assert_non_null(jwt);
  jws j;
  split(jwt, &j);
  char want_header[64];
  snprintf(want_header, sizeof want_header, "{\"alg\":\"%s\",\"typ\":\"JWT\"}", want_alg);
  assert_string_equal(j.header.data, want_header);
  assert_string_equal(j.claims.data, CLAIMS);
  assert_true(verifies(pem, jwt, &j, md, ec_coord));
  /* A changed payload must not verify: the check above is a real one. */
  jwt[j.signed_len - 1] ^= 1;
  assert_false(verifies(pem, jwt, &j, md, ec_coord));
  jws_release(&j);
  free(jwt);
}

static void test_every_algorithm_verifies(void **state) {
  (void)state;
  check_alg(EC256, "ES256", "ES256", EVP_sha256(), 32);
  check_alg(EC256, NULL, "ES256", EVP_sha256(), 32); /* chosen from the key */
  check_alg(EC384, NULL, "ES384", EVP_sha384(), 48);
  check_alg(RSA1024, NULL, "RS256", EVP_sha256(), 0);
  check_alg(RSA1024, "RS512", "RS512", EVP_sha512(), 0);
  check_alg(ED25519, NULL, "EdDSA", NULL, 0);
}

static void test_refusals_say_why(void **state) {
  (void)state;
  zerr err = ZERR_INIT;
  assert_null(zoauth_jwt_sign(RSA1024, strlen(RSA1024), "ES256", CLAIMS, &err));
  assert_non_null(strstr(err.msg, "does not fit the signing algorithm ES256"));
  zerr_clear(&err);
  assert_null(zoauth_jwt_sign(EC256, strlen(EC256), "ES384", CLAIMS, &err));
  assert_non_null(strstr(err.msg, "does not fit"));
  zerr_clear(&err);
  assert_null(zoauth_jwt_sign(EC256, strlen(EC256), "HS256", CLAIMS, &err));
  assert_non_null(strstr(err.msg, "unknown JWT signing algorithm \"HS256\""));
  zerr_clear(&err);
  static const char junk[] = "-----BEGIN PRIVATE KEY-----\nnot a key\n-----END PRIVATE KEY-----\n";
  assert_null(zoauth_jwt_sign(junk, strlen(junk), NULL, CLAIMS, &err));
  assert_non_null(strstr(err.msg, "no PEM private key could be read"));
}

static void test_client_assertion_claims(void **state) {
  (void)state;
  char path[] = "/tmp/zero-jwt-key-XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  assert_int_equal(write(fd, EC256, strlen(EC256)), (ssize_t)strlen(EC256));
  close(fd);
  zerr err = ZERR_INIT;
  char *a = zoauth_client_assertion(path, "ES256", "my-client", "https://as.example", 1000, &err);
  char *b = zoauth_client_assertion(path, "ES256", "my-client", "https://as.example", 1000, &err);
  assert_non_null(a);
  assert_non_null(b);
  jws j;
  split(a, &j);
  assert_true(verifies(EC256, a, &j, EVP_sha256(), 32));
  json_t *c = json_loads(j.claims.data, 0, NULL);
  assert_string_equal(zjson_str(c, "iss"), "my-client");
  assert_string_equal(zjson_str(c, "sub"), "my-client");
  assert_string_equal(zjson_str(c, "aud"), "https://as.example");
  assert_int_equal(zjson_int_or(c, "iat", 0), 1000);
  assert_int_equal(zjson_int_or(c, "exp", 0), 1000 + ZOAUTH_ASSERTION_LIFETIME_S);
  assert_true(strlen(zjson_str(c, "jti")) >= 16);
  /* Each assertion carries its own jti (single use, RFC 7523 §3 item 7). */
  jws k;
  split(b, &k);
  json_t *d = json_loads(k.claims.data, 0, NULL);
  assert_string_not_equal(zjson_str(c, "jti"), zjson_str(d, "jti"));
  json_decref(c);
  json_decref(d);
  jws_release(&j);
  jws_release(&k);
  free(a);
  free(b);
  unlink(path);
  assert_null(zoauth_client_assertion(path, NULL, "x", "https://as", 1, &err));
  assert_non_null(strstr(err.msg, path));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_every_algorithm_verifies),
      cmocka_unit_test(test_refusals_say_why),
      cmocka_unit_test(test_client_assertion_claims),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
