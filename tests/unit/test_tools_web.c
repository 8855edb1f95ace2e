/* test_tools_web.c — web_fetch's address policy and HTML conversion, and
 * view_image (type sniffing, size, the image in the result's meta). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include "base/json.h"
#include "tools/webutil.h"
#include "test_tools_util.h"

static const char *judge(const char *ip, bool loopback_ok) {
  struct sockaddr_storage ss;
  memset(&ss, 0, sizeof ss);
  if (strchr(ip, ':')) {
    struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;
    a->sin6_family = AF_INET6;
    assert_int_equal(inet_pton(AF_INET6, ip, &a->sin6_addr), 1);
  } else {
    struct sockaddr_in *a = (struct sockaddr_in *)&ss;
    a->sin_family = AF_INET;
    assert_int_equal(inet_pton(AF_INET, ip, &a->sin_addr), 1);
  }
  return zweb_address_refusal((struct sockaddr *)&ss, loopback_ok);
}

static void address_policy(void **state) {
  (void)state;
  const char *refused[] = {"127.0.0.1", "10.0.0.1", "172.16.5.4", "192.168.1.1",
                           "169.254.169.254", "100.64.0.1", "0.0.0.0", "224.0.0.1",
                           "::1", "::", "fe80::1", "fd00:ec2::254", "::ffff:10.0.0.1",
                           "::ffff:127.0.0.1", "64:ff9b::a9fe:a9fe", "ff02::1"};
  for (size_t i = 0; i < ZARRAY_LEN(refused); i++)
    if (!judge(refused[i], false)) fail_msg("%s was not refused", refused[i]);
  const char *allowed[] = {"8.8.8.8", "1.1.1.1", "93.184.216.34", "2606:4700::1111",
                           "::ffff:8.8.8.8"};
  for (size_t i = 0; i < ZARRAY_LEN(allowed); i++)
    if (judge(allowed[i], false)) fail_msg("%s was refused: %s", allowed[i], judge(allowed[i], false));
  assert_non_null(strstr(judge("169.254.169.254", false), "metadata"));
  /* The test switch lets IPv4 loopback through, nothing else. */
  assert_null(judge("127.0.0.1", true));
  assert_non_null(judge("::1", true));
  assert_non_null(judge("10.0.0.1", true));
}

static void html_to_markdown(void **state) {
  (void)state;
  const char *html =
      "<html><head><title>T</title><script>x()</script></head><body>"
      "<h2>Sub &lt;title&gt;</h2><p>a <em>b</em>   c<br>d</p><!-- gone -->"
      "<ol><li>x<ul><li>y</li></ul></li></ol><table><tr><td>1</td><td>2</td></tr></table>"
      "<p><code>f()</code> &#233; &#x263A; <img alt=\"pic\" src=a.png></p></body></html>";
  zbuf out = ZBUF_INIT;
  zweb_html_to_markdown(html, strlen(html), &out);
  assert_string_equal(out.data,
                      "# T\n\n## Sub <title>\n\na *b* c\nd\n\n- x\n\n  - y\n\n1 | 2\n\n"
                      "`f()` \xc3\xa9 \xe2\x98\xba [image: pic]");
  zbuf_release(&out);
}

static const unsigned char png_1x2[] = {
    0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0, 0, 0, 13, 'I', 'H', 'D', 'R',
    0, 0, 0, 1, 0, 0, 0, 2, 8, 6, 0, 0, 0, 0x1f, 0x15, 0xc4, 0x89};

static void view_image_puts_the_image_in_meta(void **state) {
  tfx *f = *state;
  tfx_write(f, "shot.png", png_1x2, sizeof png_1x2);
  assert_int_equal(tfx_run(f, "view_image", "{\"path\":\"shot.png\"}"), 0);
  assert_string_equal(f->res.output.data,
                      "Image shot.png (png, 1x2, 33 bytes) is attached for you to view.");
  json_t *img = json_object_get(f->res.meta, "image");
  assert_string_equal(zjson_str(img, "media_type"), "image/png");
  assert_string_equal(zjson_str(img, "data"), "iVBORw0KGgoAAAANSUhEUgAAAAEAAAACCAYAAAAfFcSJ");
  tfx_write_str(f, "fake.png", "not an image at all");
  assert_int_equal(tfx_run(f, "view_image", "{\"path\":\"fake.png\"}"), -1);
  assert_output_contains(f, "is not a PNG, JPEG, GIF or WebP image");
  f->ctx.images_unsupported = true;
  assert_int_equal(tfx_run(f, "view_image", "{\"path\":\"shot.png\"}"), -1);
  assert_output_contains(f, "does not accept image input");
  f->ctx.images_unsupported = false;
  /* Over 10 MiB is refused before reading. */
  char *big = tfx_path(f, "big.gif");
  FILE *fp = fopen(big, "wb");
  fwrite("GIF89a", 1, 6, fp);
  fseek(fp, 11 << 20, SEEK_SET);
  fputc(0, fp);
  fclose(fp);
  free(big);
  assert_int_equal(tfx_run(f, "view_image", "{\"path\":\"big.gif\"}"), -1);
  assert_output_contains(f, "up to 10 MiB");
}

/* A URL that is not http(s) is refused for that reason (file:// has no
 * host, which used to hide it), and a bare name asks for a full URL. */
static void web_fetch_names_what_is_wrong_with_a_url(void **state) {
  tfx *f = *state;
  assert_int_equal(tfx_run(f, "web_fetch", "{\"url\":\"file:///etc/passwd\"}"), -1);
  assert_output_contains(f, "only http and https URLs can be fetched, not file:");
  assert_int_equal(tfx_run(f, "web_fetch", "{\"url\":\"example.com/x\"}"), -1);
  assert_output_contains(f, "give a full http:// or https:// URL");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(address_policy),
      cmocka_unit_test(html_to_markdown),
      TFX_TEST(view_image_puts_the_image_in_meta),
      TFX_TEST(web_fetch_names_what_is_wrong_with_a_url),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
