/* tlsca.c — the run's inspection CA and its leaf certificates; see
 * tlsca.h. */
#include "net/egress/tlsca.h"

#include <arpa/inet.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/common.h"
#include "base/fs.h"
#include "net/egress/rules.h"

#define CA_DAYS 365   /* longer than any run; the CA dies with the run anyway */
#define LEAF_DAYS 365 /* under the 398 days some clients accept for a leaf */

typedef struct leaf {
  char *host;
  X509 *cert;
} leaf;

struct zeg_ca {
  EVP_PKEY *key, *leaf_key;
  X509 *cert;
  char *pem; /* cert, PEM */
  pthread_mutex_t mu;
  leaf *leaves; /* mu */
  size_t n_leaves;
};

typedef struct ext {
  int nid;
  const char *value;
} ext;

static int add_exts(X509 *x, X509 *issuer, const ext *e, size_t n) {
  X509V3_CTX ctx;
  memset(&ctx, 0, sizeof ctx);
  zossl.X509V3_set_ctx(&ctx, issuer, x, NULL, NULL, 0);
  for (size_t i = 0; i < n; i++) {
    X509_EXTENSION *xe = zossl.X509V3_EXT_conf_nid(NULL, &ctx, e[i].nid, e[i].value);
    if (!xe) return -1;
    int ok = zossl.X509_add_ext(x, xe, -1);
    zossl.X509_EXTENSION_free(xe);
    if (!ok) return -1;
  }
  return 0;
}

/* A certificate for pub named cn (NULL: no common name), issued by issuer
 * (NULL: self-signed with sign_key) and signed by sign_key, with exts.
 * NULL when OpenSSL fails. */
static X509 *make_cert(EVP_PKEY *pub, const char *cn, X509 *issuer, EVP_PKEY *sign_key,
                       const ext *exts, size_t n_exts, int days) {
  X509 *x = zossl.X509_new();
  if (!x) return NULL;
  uint64_t serial = 0;
  bool ok = zossl.X509_set_version(x, 2) == 1 &&
            zossl.RAND_bytes((unsigned char *)&serial, sizeof serial) == 1 &&
            zossl.ASN1_INTEGER_set_uint64(zossl.X509_get_serialNumber(x), (serial >> 1) | 1) == 1 &&
            zossl.X509_gmtime_adj(zossl.X509_getm_notBefore(x), -3600) &&
            zossl.X509_gmtime_adj(zossl.X509_getm_notAfter(x), (long)days * 86400) &&
            zossl.X509_set_pubkey(x, pub) == 1;
  X509_NAME *name = zossl.X509_get_subject_name(x);
  if (ok && cn && strlen(cn) <= 64)
    ok = zossl.X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, (const unsigned char *)cn, -1,
                                          -1, 0) == 1;
  if (ok && !issuer)
    ok = zossl.X509_NAME_add_entry_by_txt(name, "O", MBSTRING_ASC,
                                          (const unsigned char *)"zero sandbox", -1, -1, 0) == 1;
  X509 *iss = issuer ? issuer : x;
  ok = ok && zossl.X509_set_issuer_name(x, zossl.X509_get_subject_name(iss)) == 1 &&
       add_exts(x, iss, exts, n_exts) == 0 && zossl.X509_sign(x, sign_key, zossl.EVP_sha256()) > 0;
  if (!ok) {
    zossl.X509_free(x);
    return NULL;
  }
  return x;
}

static EVP_PKEY *p256(void) { return zossl.EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-256"); }

/* PEM of a certificate or key (caller frees); NULL when OpenSSL fails. */
static char *to_pem(X509 *cert, EVP_PKEY *key) {
  BIO *b = zossl.BIO_new(zossl.BIO_s_mem());
  if (!b) return NULL;
  int ok = cert ? zossl.PEM_write_bio_X509(b, cert)
                : zossl.PEM_write_bio_PrivateKey(b, key, NULL, NULL, 0, NULL, NULL);
  char *data = NULL;
  long n = ok ? zossl.BIO_ctrl(b, BIO_CTRL_INFO, 0, &data) : 0;
  char *out = n > 0 ? xstrndup(data, (size_t)n) : NULL;
  zossl.BIO_free(b);
  return out;
}

zeg_ca *zeg_ca_new(zerr *err) {
  if (zossl_load(err) < 0) return NULL;
  zeg_ca *ca = xcalloc(1, sizeof *ca);
  pthread_mutex_init(&ca->mu, NULL);
  static const ext ca_exts[] = {{NID_basic_constraints, "critical,CA:TRUE,pathlen:0"},
                                {NID_key_usage, "critical,keyCertSign,cRLSign"},
                                {NID_subject_key_identifier, "hash"}};
  ca->key = p256();
  ca->leaf_key = p256();
  if (ca->key && ca->leaf_key)
    ca->cert = make_cert(ca->key, "zero sandbox TLS inspection (this run only)", NULL, ca->key,
                         ca_exts, ZARRAY_LEN(ca_exts), CA_DAYS);
  if (ca->cert) ca->pem = to_pem(ca->cert, NULL);
  if (!ca->pem) {
    char why[256];
    zossl_last_error(why, sizeof why);
    zerr_set(err, ZE_INTERNAL, "sandbox.inspectTLS: cannot make the run's CA (%s)", why);
    zeg_ca_free(ca);
    return NULL;
  }
  return ca;
}

const char *zeg_ca_pem(const zeg_ca *ca) { return ca->pem; }

EVP_PKEY *zeg_ca_leaf_key(const zeg_ca *ca) { return ca->leaf_key; }

static X509 *mint(zeg_ca *ca, const char *host) {
  unsigned char ip[16];
  bool is_ip = inet_pton(AF_INET, host, ip) == 1 || inet_pton(AF_INET6, host, ip) == 1;
  char san[ZEG_HOST_MAX + 8];
  snprintf(san, sizeof san, "%s:%s", is_ip ? "IP" : "DNS", host);
  const ext leaf_exts[] = {{NID_basic_constraints, "critical,CA:FALSE"},
                           {NID_key_usage, "critical,digitalSignature"},
                           {NID_ext_key_usage, "serverAuth"},
                           {NID_subject_alt_name, san},
                           {NID_subject_key_identifier, "hash"},
                           {NID_authority_key_identifier, "keyid:always"}};
  return make_cert(ca->leaf_key, host, ca->cert, ca->key, leaf_exts, ZARRAY_LEN(leaf_exts),
                   LEAF_DAYS);
}

X509 *zeg_ca_leaf(zeg_ca *ca, const char *host, char *why, size_t cap) {
  pthread_mutex_lock(&ca->mu);
  X509 *x = NULL;
  for (size_t i = 0; i < ca->n_leaves && !x; i++)
    if (!strcmp(ca->leaves[i].host, host)) x = ca->leaves[i].cert;
  if (!x && (x = mint(ca, host))) {
    ca->leaves = xrealloc(ca->leaves, (ca->n_leaves + 1) * sizeof *ca->leaves);
    ca->leaves[ca->n_leaves++] = (leaf){xstrdup(host), x};
  }
  pthread_mutex_unlock(&ca->mu);
  if (!x) {
    char e[256];
    zossl_last_error(e, sizeof e);
    snprintf(why, cap, "cannot mint a certificate for %s (%s)", host, e);
  }
  return x;
}

int zeg_ca_write_files(const zeg_ca *ca, const zeg_ca_files *f, zerr *err) {
  cleanup_free char *key = to_pem(NULL, ca->key);
  if (!key) return zerr_set(err, ZE_INTERNAL, "sandbox.inspectTLS: cannot encode the CA key");
  zbuf bundle = ZBUF_INIT;
  zerr ignore = ZERR_INIT;
  if (f->system_bundle && zfs_read_file(f->system_bundle, &bundle, 16 << 20, &ignore) == 0 &&
      bundle.len && bundle.data[bundle.len - 1] != '\n')
    zbuf_addch(&bundle, '\n');
  zbuf_addstr(&bundle, ca->pem);
  int rc = 0;
  if (zfs_write_atomic_ex(f->key, key, strlen(key), 0600, false, err) < 0 ||
      zfs_write_atomic_ex(f->cert, ca->pem, strlen(ca->pem), 0644, false, err) < 0 ||
      zfs_write_atomic_ex(f->bundle, bundle.data, bundle.len, 0644, false, err) < 0) {
    zerr_prefix(err, "sandbox.inspectTLS: cannot write the run's CA files");
    rc = -1;
  }
  memset(key, 0, strlen(key));
  zbuf_release(&bundle);
  return rc;
}

void zeg_ca_free(zeg_ca *ca) {
  if (!ca) return;
  for (size_t i = 0; i < ca->n_leaves; i++) {
    free(ca->leaves[i].host);
    zossl.X509_free(ca->leaves[i].cert);
  }
  free(ca->leaves);
  if (ca->cert) zossl.X509_free(ca->cert);
  if (ca->key) zossl.EVP_PKEY_free(ca->key);
  if (ca->leaf_key) zossl.EVP_PKEY_free(ca->leaf_key);
  free(ca->pem);
  pthread_mutex_destroy(&ca->mu);
  free(ca);
}
