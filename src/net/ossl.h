/* ossl.h — the OpenSSL functions zero calls itself (libssl.so.3 and the
 * libcrypto.so.3 it depends on), loaded on first use: the daemon's TLS
 * bridge (net/tls.h) and the egress proxy's TLS inspection
 * (net/egress/inspect.h). libcurl keeps its own TLS; SHA-256 alone loads
 * only libcrypto (base/hash.c).
 *
 * Why a table and not wrappers (as net/curl_loader.c has): only these two
 * features need it, with some seventy functions; each field is declared with the
 * header's own prototype (__typeof__), so a call through `zossl.SSL_new`
 * is checked exactly as a direct call would be, and a function added to
 * ZOSSL_FUNCS is resolved by name without writing its prototype again.
 * OpenSSL's macros over *_ctrl (SSL_CTX_set_min_proto_version, …) are
 * written out as the ctrl calls they expand to.
 *
 * Life cycle: zossl_load before the first use (thread-safe, once per
 * process); the table then stays valid for the process's life.
 */
#ifndef ZERO_NET_OSSL_H
#define ZERO_NET_OSSL_H

#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include "base/err.h"

/* clang-format off */
#define ZOSSL_FUNCS(F) \
  /* libcrypto: errors, keys, randomness */ \
  F(OPENSSL_init_crypto) F(ERR_get_error) F(ERR_error_string_n) F(ERR_clear_error) \
  F(EVP_PKEY_Q_keygen) F(EVP_PKEY_free) F(EVP_sha256) F(RAND_bytes) \
  /* certificates */ \
  F(X509_new) F(X509_free) F(X509_set_version) F(X509_get_serialNumber) \
  F(ASN1_INTEGER_set_uint64) F(X509_getm_notBefore) F(X509_getm_notAfter) F(X509_gmtime_adj) \
  F(X509_get_subject_name) F(X509_NAME_add_entry_by_txt) F(X509_set_issuer_name) \
  F(X509_set_pubkey) F(X509V3_set_ctx) F(X509V3_EXT_conf_nid) F(X509_add_ext) \
  F(X509_EXTENSION_free) F(X509_sign) F(X509_get_default_cert_file) \
  F(X509_get_default_cert_file_env) F(X509_verify_cert_error_string) \
  F(X509_VERIFY_PARAM_set1_ip_asc) \
  /* PEM in memory */ \
  F(BIO_new) F(BIO_s_mem) F(BIO_ctrl) F(BIO_free) F(PEM_write_bio_X509) \
  F(PEM_write_bio_PrivateKey) \
  /* libssl: contexts */ \
  F(TLS_server_method) F(TLS_client_method) F(SSL_CTX_new) F(SSL_CTX_free) F(SSL_CTX_ctrl) \
  F(SSL_CTX_set_options) F(SSL_CTX_set_alpn_select_cb) F(SSL_CTX_set_alpn_protos) \
  F(SSL_CTX_set_verify) F(SSL_CTX_load_verify_locations) F(SSL_CTX_load_verify_file) \
  F(SSL_CTX_set_default_verify_paths) F(SSL_CTX_use_certificate_chain_file) \
  F(SSL_CTX_use_PrivateKey_file) F(SSL_CTX_check_private_key) \
  /* libssl: connections */ \
  F(SSL_new) F(SSL_free) F(SSL_set_fd) F(SSL_get_fd) F(SSL_use_certificate) \
  F(SSL_use_PrivateKey) F(SSL_accept) F(SSL_connect) F(SSL_read) F(SSL_write) F(SSL_pending) \
  F(SSL_get_error) F(SSL_shutdown) F(SSL_ctrl) F(SSL_set1_host) F(SSL_get0_param) \
  F(SSL_get_verify_result) F(SSL_get_version)
/* clang-format on */

/* A field named after the function, of its pointer type (a declarator:
 * no parentheses possible around name). */
#define ZOSSL_FIELD(name) __typeof__(name) *name; /* NOLINT(bugprone-macro-parentheses) */
typedef struct zossl_fns {
  ZOSSL_FUNCS(ZOSSL_FIELD)
} zossl_fns;
#undef ZOSSL_FIELD

/* The table: one OpenSSL per process, a named singleton filled once by
 * zossl_load. Read-only after that. */
extern zossl_fns zossl;

/* Loads libssl (and libcrypto) and fills zossl. -1 with err saying which
 * library is missing and what to install. */
int zossl_load(zerr *err);

/* The reason of OpenSSL's last error on this thread ("" when none), for a
 * message; clears the thread's error queue. */
void zossl_last_error(char *out, size_t cap);

#endif
