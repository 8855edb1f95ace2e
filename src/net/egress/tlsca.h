/* tlsca.h — the ephemeral certificate authority of TLS inspection
 * (sandbox.inspectTLS): made for one run, trusted only inside that run's
 * sandboxes, gone with it.
 *
 * It holds an ECDSA P-256 CA key and self-signed certificate, and one more
 * P-256 key shared by every leaf certificate it mints (a leaf per host the
 * sandbox reaches, cached for the run: minting costs one signature, a
 * fresh key per host would cost a key generation each). Nothing here is
 * trusted by zero itself: the proxy verifies upstream servers against the
 * system's or the configured CAs only.
 *
 * Life cycle: zeg_ca_new … zeg_ca_write_files (the PEM files a sandbox
 * trusts) … zeg_ca_leaf from any thread … zeg_ca_free.
 */
#ifndef ZERO_NET_EGRESS_TLSCA_H
#define ZERO_NET_EGRESS_TLSCA_H

#include "base/err.h"
#include "net/ossl.h"

typedef struct zeg_ca zeg_ca;

/* Loads OpenSSL, generates the CA key and certificate and the leaf key.
 * NULL with err (libssl missing, OpenSSL failed). */
zeg_ca *zeg_ca_new(zerr *err);

/* Where the CA goes on disk. Every file is created anew (an existing one
 * is replaced, never written through). */
typedef struct zeg_ca_files {
  const char *cert;          /* the CA certificate alone (NODE_EXTRA_CA_CERTS), 0644 */
  const char *bundle;        /* system_bundle's certificates + the CA certificate, 0644 */
  const char *key;           /* the CA private key, 0600 */
  const char *system_bundle; /* the trusted CAs to copy into bundle; NULL or missing: none */
} zeg_ca_files;
int zeg_ca_write_files(const zeg_ca *ca, const zeg_ca_files *f, zerr *err);

/* The CA certificate in PEM (borrowed, NUL-terminated). */
const char *zeg_ca_pem(const zeg_ca *ca);

/* The leaf certificate for host (normalized: a DNS name or an IP literal),
 * signed by the CA, minted on first use and cached for the CA's life;
 * borrowed. NULL with why filled when OpenSSL fails. Thread-safe. */
X509 *zeg_ca_leaf(zeg_ca *ca, const char *host, char *why, size_t cap);
/* The private key of every leaf (borrowed). */
EVP_PKEY *zeg_ca_leaf_key(const zeg_ca *ca);

void zeg_ca_free(zeg_ca *ca);

#endif
