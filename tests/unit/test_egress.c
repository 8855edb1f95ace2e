/* test_egress.c — the egress rules of network "scoped" (net/egress/rules.h):
 * host normalization, IP literals in every spelling a resolver accepts,
 * the internal address classes, pattern parsing and the decision by name
 * and by address; and the policy layering of sandbox.allowedDomains. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/common.h"
#include "base/path.h"
#include "net/egress/rules.h"
#include "sandbox/egress.h"
#include "sandbox/policy.h"

static void normalize_lowercases_and_drops_one_trailing_dot(void **state) {
  (void)state;
  char out[ZEG_HOST_MAX];
  assert_true(zeg_host_normalize("Registry.NPMjs.org.", out, sizeof out));
  assert_string_equal(out, "registry.npmjs.org");
  assert_true(zeg_host_normalize("[::1]", out, sizeof out));
  assert_string_equal(out, "::1");
  assert_false(zeg_host_normalize("a..b", out, sizeof out));
  assert_false(zeg_host_normalize(".a", out, sizeof out));
  assert_false(zeg_host_normalize("a.b..", out, sizeof out));
  assert_false(zeg_host_normalize("", out, sizeof out));
  assert_false(zeg_host_normalize("a b", out, sizeof out));
  assert_false(zeg_host_normalize("evil.com/x", out, sizeof out));
  assert_false(zeg_host_normalize("a@b", out, sizeof out));
  assert_false(zeg_host_normalize("b\xc3\xbcro.example", out, sizeof out)); /* IDN unencoded */
  assert_true(zeg_host_normalize("xn--bro-hoa.example", out, sizeof out));
  assert_false(zeg_host_normalize("fe80::1%eth0x:zz", out, sizeof out));
}

static bool internal(const char *host) {
  struct sockaddr_storage ss;
  assert_true(zeg_parse_ip(host, &ss));
  return zeg_addr_is_internal((struct sockaddr *)&ss);
}

static void every_ipv4_spelling_of_loopback_is_internal(void **state) {
  (void)state;
  const char *loop[] = {"127.0.0.1", "127.1", "2130706433", "0177.0.0.1", "0x7f.0.0.1",
                        "0x7f000001", "017700000001", "127.255.255.254"};
  for (size_t i = 0; i < ZARRAY_LEN(loop); i++) assert_true(internal(loop[i]));
}

static void private_link_local_and_metadata_are_internal(void **state) {
  (void)state;
  const char *in[] = {"10.1.2.3", "172.16.0.1", "172.31.255.255", "192.168.1.1",
                      "169.254.169.254", "0.0.0.0", "100.64.0.1", "224.0.0.1",
                      "255.255.255.255", "::1", "::", "fc00::1", "fd00:ec2::254", "fe80::1",
                      "ff02::1", "::ffff:127.0.0.1", "::ffff:169.254.169.254", "::127.0.0.1",
                      "64:ff9b::a00:1", "2002:a00:1::1"};
  for (size_t i = 0; i < ZARRAY_LEN(in); i++) {
    if (!internal(in[i])) fail_msg("%s should be internal", in[i]);
  }
  const char *out[] = {"93.184.216.34", "172.32.0.1", "8.8.8.8", "2606:4700::1111",
                       "::ffff:8.8.8.8", "2002:808:808::1"};
  for (size_t i = 0; i < ZARRAY_LEN(out); i++) {
    if (internal(out[i])) fail_msg("%s should be public", out[i]);
  }
}

static void names_are_no_ip_literals(void **state) {
  (void)state;
  struct sockaddr_storage ss;
  assert_false(zeg_parse_ip("example.com", &ss));
  assert_false(zeg_parse_ip("1e100.net", &ss));
  assert_false(zeg_parse_ip("127.0.0.1.nip.io", &ss));
}

static void patterns_parse_or_say_what_is_wrong(void **state) {
  (void)state;
  zeg_pattern p;
  zerr e = ZERR_INIT;
  assert_int_equal(zeg_pattern_parse("*.Example.com.", &p, &e), 0);
  assert_true(p.wildcard);
  assert_string_equal(p.host, "example.com");
  assert_int_equal(zeg_pattern_parse("git.example.com:8443", &p, &e), 0);
  assert_int_equal(p.port, 8443);
  assert_int_equal(zeg_pattern_parse("10.0.0.0/8", &p, &e), 0);
  assert_true(p.is_addr);
  assert_int_equal(p.prefix, 8);
  assert_int_equal(zeg_pattern_parse("fd00::/8", &p, &e), 0);
  const char *bad[] = {"", "exa mple.com", "*example.com", "a.*.com", "host:0", "host:70000",
                       "10.0.0.0/33", "http://example.com", "10.1", "b\xc3\xbcro.example",
                       "*.", "example..com"};
  for (size_t i = 0; i < ZARRAY_LEN(bad); i++) {
    e = (zerr)ZERR_INIT;
    if (zeg_pattern_parse(bad[i], &p, &e) == 0) fail_msg("\"%s\" should be refused", bad[i]);
    assert_true(e.msg[0] != '\0');
  }
}

/* The authority of a CONNECT, a SOCKS5 domain or an absolute-form target:
 * host and port, or refused (and then nothing is dialled). */
static void authorities_split_strictly(void **state) {
  (void)state;
  char host[ZEG_HOST_MAX];
  int port = 0;
  const char *ok = "Example.COM:8443";
  assert_true(zeg_split_authority(ok, strlen(ok), true, 443, host, sizeof host, &port));
  assert_string_equal(host, "example.com");
  assert_int_equal(port, 8443);
  assert_true(zeg_split_authority("example.com", 11, false, 80, host, sizeof host, &port));
  assert_int_equal(port, 80);
  assert_false(zeg_split_authority("example.com", 11, true, 443, host, sizeof host, &port));
  assert_true(zeg_split_authority("[::1]:443", 9, true, 443, host, sizeof host, &port));
  assert_string_equal(host, "::1");
  assert_int_equal(port, 443);
  assert_true(zeg_split_authority("[fe80::1]", 9, false, 80, host, sizeof host, &port));
  assert_string_equal(host, "fe80::1");
  /* userinfo (whose host is it?), an unclosed or trailing bracket, a bare
   * IPv6 address (where does the port start?), a port that is none */
  const char *bad[] = {"user@example.com:443", "example.com:443@evil.com", "[::1:443", "[::1]x",
                       "[::1]443", "::1:443", "example.com:0", "example.com:65536",
                       "example.com:443x", "example.com:", ""};
  for (size_t i = 0; i < ZARRAY_LEN(bad); i++)
    if (zeg_split_authority(bad[i], strlen(bad[i]), false, 443, host, sizeof host, &port))
      fail_msg("\"%s\" should be refused", bad[i]);
  /* the length bounds what is read: the rest of the text is not looked at */
  assert_true(zeg_split_authority("example.com:443@x", 15, true, 443, host, sizeof host, &port));
  assert_string_equal(host, "example.com");
}

/* IP entries may be written in brackets; an IPv4-compatible IPv6 address
 * (::a.b.c.d) is judged by the IPv4 address it carries. */
static void bracketed_entries_and_compatible_addresses(void **state) {
  (void)state;
  zeg_pattern p;
  zerr e = ZERR_INIT;
  assert_int_equal(zeg_pattern_parse("[fd00::1]", &p, &e), 0);
  assert_true(p.is_addr);
  assert_int_equal(p.family, AF_INET6);
  assert_int_equal(p.prefix, 128);
  assert_true(internal("::10.0.0.1"));
  assert_true(internal("::127.0.0.1"));
  assert_false(internal("::8.8.8.8"));
  assert_true(internal("::"));
  assert_true(internal("::1"));
}

static void add(zeg_list *l, const char *text) { assert_int_equal(zeg_list_add(l, text, NULL), 0); }

static void deny_wins_and_wildcards_match_below_only(void **state) {
  (void)state;
  zeg_rules r = {0};
  add(&r.allow, "*.example.com");
  add(&r.allow, "example.org");
  add(&r.deny, "evil.example.com");
  assert_int_equal(zeg_rules_decide(&r, "pkg.example.com", 443, NULL, 0), ZEG_ALLOW);
  assert_int_equal(zeg_rules_decide(&r, "a.b.example.com", 80, NULL, 0), ZEG_ALLOW);
  assert_int_equal(zeg_rules_decide(&r, "example.com", 443, NULL, 0), ZEG_UNKNOWN);
  assert_int_equal(zeg_rules_decide(&r, "badexample.com", 443, NULL, 0), ZEG_UNKNOWN);
  assert_int_equal(zeg_rules_decide(&r, "evil.example.com", 443, NULL, 0), ZEG_DENY);
  assert_int_equal(zeg_rules_decide(&r, "example.org", 443, NULL, 0), ZEG_ALLOW);
  assert_int_equal(zeg_rules_decide(&r, "www.example.org", 443, NULL, 0), ZEG_UNKNOWN);
  /* the reason names the list that decided; an allowed host has none */
  char why[128] = "stale";
  assert_int_equal(zeg_rules_decide(&r, "evil.example.com", 443, why, sizeof why), ZEG_DENY);
  assert_string_equal(why, "on sandbox.deniedDomains");
  assert_int_equal(zeg_rules_decide(&r, "pkg.example.com", 443, why, sizeof why), ZEG_ALLOW);
  assert_string_equal(why, "");
  zeg_rules_release(&r);
}

static void other_ports_need_an_entry_that_names_them(void **state) {
  (void)state;
  zeg_rules r = {0};
  add(&r.allow, "example.org");
  add(&r.allow, "git.example.org:9418");
  char why[256];
  assert_int_equal(zeg_rules_decide(&r, "example.org", 22, why, sizeof why), ZEG_DENY);
  assert_non_null(strstr(why, "example.org:22"));
  assert_int_equal(zeg_rules_decide(&r, "git.example.org", 9418, NULL, 0), ZEG_ALLOW);
  assert_int_equal(zeg_rules_decide(&r, "git.example.org", 443, NULL, 0), ZEG_DENY);
  zeg_rules_release(&r);
}

static void ip_literals_need_an_ip_entry(void **state) {
  (void)state;
  zeg_rules r = {0};
  add(&r.allow, "example.org");
  add(&r.allow, "192.168.5.0/24");
  assert_int_equal(zeg_rules_decide(&r, "93.184.216.34", 443, NULL, 0), ZEG_UNKNOWN);
  assert_int_equal(zeg_rules_decide(&r, "192.168.5.7", 443, NULL, 0), ZEG_ALLOW);
  assert_int_equal(zeg_rules_decide(&r, "192.168.6.7", 443, NULL, 0), ZEG_UNKNOWN);
  struct sockaddr_storage ss;
  assert_true(zeg_parse_ip("192.168.5.7", &ss));
  assert_true(zeg_rules_address_ok(&r, (struct sockaddr *)&ss));
  assert_true(zeg_parse_ip("::ffff:192.168.5.7", &ss));
  assert_true(zeg_rules_address_ok(&r, (struct sockaddr *)&ss));
  assert_true(zeg_parse_ip("127.0.0.1", &ss));
  assert_false(zeg_rules_address_ok(&r, (struct sockaddr *)&ss));
  assert_true(zeg_parse_ip("169.254.169.254", &ss));
  assert_false(zeg_rules_address_ok(&r, (struct sockaddr *)&ss));
  assert_true(zeg_parse_ip("93.184.216.34", &ss));
  assert_true(zeg_rules_address_ok(&r, (struct sockaddr *)&ss));
  zeg_rules_release(&r);
}

static void a_project_list_only_narrows(void **state) {
  (void)state;
  zeg_rules r = {0};
  add(&r.allow, "*.example.com");
  add(&r.narrow, "pkg.example.com");
  add(&r.narrow, "other.org"); /* not on the user's list: stays out */
  r.narrowed = true;
  assert_int_equal(zeg_rules_decide(&r, "pkg.example.com", 443, NULL, 0), ZEG_ALLOW);
  assert_int_equal(zeg_rules_decide(&r, "git.example.com", 443, NULL, 0), ZEG_DENY);
  assert_int_equal(zeg_rules_decide(&r, "other.org", 443, NULL, 0), ZEG_UNKNOWN);
  zeg_rules_release(&r);
  zeg_rules empty = {.narrowed = true};
  add(&empty.allow, "*");
  assert_int_equal(zeg_rules_decide(&empty, "any.example", 443, NULL, 0), ZEG_DENY);
  zeg_rules_release(&empty);
}

/* ---- the policy layers ---------------------------------------------------- */

static char g_dir[256];

static void write_file(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fputs(text, f);
  fclose(f);
}

static int build(const char *user, const char *project, const char *flag, zsb_policy *p,
                 zerr *err) {
  char ucfg[512], pdir[512], pcfg[600];
  snprintf(ucfg, sizeof ucfg, "%s/user.json", g_dir);
  snprintf(pdir, sizeof pdir, "%s/ws/.zero", g_dir);
  snprintf(pcfg, sizeof pcfg, "%s/config.json", pdir);
  write_file(ucfg, user);
  unlink(pcfg);
  if (project) write_file(pcfg, project);
  char ws[512];
  snprintf(ws, sizeof ws, "%s/ws", g_dir);
  const char *flags[1] = {flag};
  zsb_policy_opts o = {.workspace = ws, .user_config = ucfg, .allow_domains = flags,
                       .n_allow_domains = flag ? 1 : 0};
  return zsb_policy_build(p, &o, err);
}

static int setup(void **state) {
  (void)state;
  snprintf(g_dir, sizeof g_dir, "/tmp/zero-egress-XXXXXX");
  assert_non_null(mkdtemp(g_dir));
  char d[512];
  snprintf(d, sizeof d, "%s/ws/.zero", g_dir);
  char ws[512];
  snprintf(ws, sizeof ws, "%s/ws", g_dir);
  assert_int_equal(mkdir(ws, 0700), 0);
  assert_int_equal(mkdir(d, 0700), 0);
  return 0;
}

static int teardown(void **state) {
  (void)state;
  /* what build() wrote: the two config files and the workspace */
  static const char *const made[] = {"user.json", "ws/.zero/config.json", NULL};
  static const char *const dirs[] = {"ws/.zero", "ws", "", NULL};
  char path[600];
  for (const char *const *m = made; *m; m++) {
    snprintf(path, sizeof path, "%s/%s", g_dir, *m);
    unlink(path);
  }
  for (const char *const *d = dirs; *d; d++) {
    snprintf(path, sizeof path, "%s/%s", g_dir, *d);
    if (rmdir(path) < 0) return -1;
  }
  return 0;
}

static void policy_layers_scoped_lists(void **state) {
  (void)state;
  zsb_policy p;
  zerr e = ZERR_INIT;
  assert_int_equal(build("{\"sandbox\":{\"network\":\"scoped\",\"allowedDomains\":[\"a.org\","
                         "\"*.b.org\"],\"deniedDomains\":[\"x.b.org\"]}}",
                         "{\"sandbox\":{\"allowedDomains\":[\"a.org\",\"c.org\"],"
                         "\"deniedDomains\":[\"y.b.org\"]}}",
                         NULL, &p, &e),
                   0);
  assert_true(p.scoped);
  assert_false(p.network);
  assert_string_equal(zsb_network_name(&p), "scoped");
  zeg_rules r;
  assert_int_equal(zsb_egress_rules(&p, &r, &e), 0);
  assert_int_equal(zeg_rules_decide(&r, "a.org", 443, NULL, 0), ZEG_ALLOW);
  assert_int_equal(zeg_rules_decide(&r, "c.org", 443, NULL, 0), ZEG_UNKNOWN); /* project only */
  assert_int_equal(zeg_rules_decide(&r, "z.b.org", 443, NULL, 0), ZEG_DENY);  /* narrowed */
  assert_int_equal(zeg_rules_decide(&r, "y.b.org", 443, NULL, 0), ZEG_DENY);
  zeg_rules_release(&r);
  zsb_policy_release(&p);
}

static void policy_project_cannot_loosen_and_flag_scopes_a_deny(void **state) {
  (void)state;
  zsb_policy p;
  zerr e = ZERR_INIT;
  /* the user denies: a project's "scoped" is ignored with a note */
  assert_int_equal(build("{}", "{\"sandbox\":{\"network\":\"scoped\"}}", NULL, &p, &e), 0);
  assert_false(p.scoped);
  assert_true(p.notes.n > 0);
  zsb_policy_release(&p);
  /* --allow-domain turns a deny into scoped … */
  assert_int_equal(build("{}", NULL, "pkg.example.org", &p, &e), 0);
  assert_true(p.scoped);
  assert_true(zsb_strv_has(&p.allowed_domains, "pkg.example.org"));
  zsb_policy_release(&p);
  /* … unless the project denies */
  assert_int_equal(build("{}", "{\"sandbox\":{\"network\":\"deny\"}}", "pkg.example.org", &p, &e),
                   0);
  assert_false(p.scoped);
  zsb_policy_release(&p);
  /* a user "allow" narrowed by the project to its own list */
  assert_int_equal(build("{\"sandbox\":{\"network\":\"allow\"}}",
                         "{\"sandbox\":{\"network\":\"scoped\",\"allowedDomains\":[\"a.org\"]}}",
                         NULL, &p, &e),
                   0);
  assert_true(p.scoped);
  assert_false(p.network);
  zeg_rules r;
  assert_int_equal(zsb_egress_rules(&p, &r, &e), 0);
  assert_int_equal(zeg_rules_decide(&r, "a.org", 443, NULL, 0), ZEG_ALLOW);
  assert_int_equal(zeg_rules_decide(&r, "b.org", 443, NULL, 0), ZEG_DENY);
  zeg_rules_release(&r);
  zsb_policy_release(&p);
}

static void policy_refuses_malformed_patterns(void **state) {
  (void)state;
  zsb_policy p;
  zerr e = ZERR_INIT;
  assert_int_equal(build("{\"sandbox\":{\"network\":\"scoped\",\"allowedDomains\":[\"a b\"]}}",
                         NULL, NULL, &p, &e),
                   -1);
  assert_non_null(strstr(e.msg, "allowedDomains[0]"));
  zsb_policy_release(&p);
  e = (zerr)ZERR_INIT;
  assert_int_equal(build("{}", NULL, "*bad", &p, &e), -1);
  assert_non_null(strstr(e.msg, "--allow-domain"));
  zsb_policy_release(&p);
  e = (zerr)ZERR_INIT;
  assert_int_equal(build("{\"sandbox\":{\"network\":\"some\"}}", NULL, NULL, &p, &e), -1);
  assert_non_null(strstr(e.msg, "scoped"));
  zsb_policy_release(&p);
}

static void policy_inspect_tls_only_turns_on_in_a_project(void **state) {
  (void)state;
  zsb_policy p;
  zerr e = ZERR_INIT;
  /* the user turns it on: a project's false is ignored with a note */
  assert_int_equal(build("{\"sandbox\":{\"network\":\"scoped\",\"inspectTLS\":true}}",
                         "{\"sandbox\":{\"inspectTLS\":false}}", NULL, &p, &e),
                   0);
  assert_true(p.inspect_tls);
  assert_true(p.notes.n > 0);
  assert_non_null(strstr(p.notes.v[p.notes.n - 1], "inspectTLS"));
  zsb_policy_release(&p);
  /* a project may turn it on */
  assert_int_equal(build("{\"sandbox\":{\"network\":\"scoped\"}}",
                         "{\"sandbox\":{\"inspectTLS\":true}}", NULL, &p, &e),
                   0);
  assert_true(p.inspect_tls);
  json_t *j = zsb_policy_to_json(&p);
  zsb_policy back;
  assert_int_equal(zsb_policy_from_json(&back, j, &e), 0);
  assert_true(back.inspect_tls);
  zsb_policy_release(&back);
  json_decref(j);
  zsb_policy_release(&p);
  /* off by default; anything but a boolean is an error that names the key */
  assert_int_equal(build("{\"sandbox\":{\"network\":\"scoped\"}}", NULL, NULL, &p, &e), 0);
  assert_false(p.inspect_tls);
  zsb_policy_release(&p);
  assert_int_equal(build("{\"sandbox\":{\"inspectTLS\":\"yes\"}}", NULL, NULL, &p, &e), -1);
  assert_non_null(strstr(e.msg, "sandbox.inspectTLS must be true or false"));
  zsb_policy_release(&p);
}

static void inspect_env_names_the_bundle_beside_the_socket(void **state) {
  (void)state;
  strvec e = STRVEC_INIT;
  zsb_egress_env(&e, "/r/.egress/7-1.sock", true);
  bool saw_cert = false, saw_node = false;
  for (size_t i = 0; i < e.nr; i++) {
    saw_cert |= !strcmp(e.v[i], "SSL_CERT_FILE=/r/.egress/7-1.bundle.pem");
    saw_node |= !strcmp(e.v[i], "NODE_EXTRA_CA_CERTS=/r/.egress/7-1.ca.pem");
  }
  assert_true(saw_cert);
  assert_true(saw_node);
  assert_true(zsb_egress_env_name("CURL_CA_BUNDLE=/x", true));
  assert_false(zsb_egress_env_name("CURL_CA_BUNDLE=/x", false)); /* not inspecting: the user's */
  assert_true(zsb_egress_env_name("https_proxy=x", false));
  strvec_clear(&e);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(normalize_lowercases_and_drops_one_trailing_dot),
      cmocka_unit_test(every_ipv4_spelling_of_loopback_is_internal),
      cmocka_unit_test(private_link_local_and_metadata_are_internal),
      cmocka_unit_test(names_are_no_ip_literals),
      cmocka_unit_test(patterns_parse_or_say_what_is_wrong),
      cmocka_unit_test(authorities_split_strictly),
      cmocka_unit_test(bracketed_entries_and_compatible_addresses),
      cmocka_unit_test(deny_wins_and_wildcards_match_below_only),
      cmocka_unit_test(other_ports_need_an_entry_that_names_them),
      cmocka_unit_test(ip_literals_need_an_ip_entry),
      cmocka_unit_test(a_project_list_only_narrows),
      cmocka_unit_test_setup_teardown(policy_layers_scoped_lists, setup, teardown),
      cmocka_unit_test_setup_teardown(policy_project_cannot_loosen_and_flag_scopes_a_deny, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(policy_refuses_malformed_patterns, setup, teardown),
      cmocka_unit_test_setup_teardown(policy_inspect_tls_only_turns_on_in_a_project, setup,
                                      teardown),
      cmocka_unit_test(inspect_env_names_the_bundle_beside_the_socket),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
