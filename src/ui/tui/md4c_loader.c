/* md4c_loader.c — md4c's md_parse, forwarded to libmd4c.so.0 loaded on first
 * use (only the TUI renders markdown).
 *
 * zero starts on every sandboxed command (`zero sandbox exec`), where each
 * shared object mapped at start-up costs page faults; md4c is needed by the
 * interactive UI alone, so, like libcurl (src/net/curl_loader.c), it is not
 * linked. This file defines md_parse with md4c's own prototype, so
 * markdown.c is written against the ordinary API. When the library cannot be
 * loaded, the text is handed to the renderer as plain paragraphs (one line
 * each, hard breaks between them): the answer stays readable, unformatted.
 */
#include "ui/tui/md4c_loader.h"

#include <string.h>

#include "base/dlib.h"

typedef struct md4c_fns {
  int (*parse)(const MD_CHAR *, MD_SIZE, const MD_PARSER *, void *);
} md4c_fns;
static md4c_fns M; /* singleton: one libmd4c per process */

static const zdlib_sym md4c_syms[] = {ZDLIB_SYM(md4c_fns, parse, "md_parse")};

static void describe(zdlib_spec *s) {
  ZDLIB_DESCRIBE(s, "libmd4c.so.0", "md4c", "to render markdown", "libmd4c0", NULL, md4c_syms,
                 &M, NULL);
}

static zdlib libmd4c = ZDLIB_INIT;

int zmd_parse_plain(const MD_CHAR *text, MD_SIZE size, const MD_PARSER *p, void *ud) {
  int rc = 0;
  if (p->enter_block && (rc = p->enter_block(MD_BLOCK_DOC, NULL, ud)) != 0) return rc;
  if (p->enter_block && (rc = p->enter_block(MD_BLOCK_P, NULL, ud)) != 0) return rc;
  MD_SIZE off = 0;
  while (off < size && rc == 0) {
    const MD_CHAR *nl = memchr(text + off, '\n', size - off);
    MD_SIZE n = nl ? (MD_SIZE)(nl - (text + off)) : size - off;
    if (n && p->text) rc = p->text(MD_TEXT_NORMAL, text + off, n, ud);
    off += n + (nl ? 1 : 0);
    if (nl && off < size && rc == 0 && p->text) rc = p->text(MD_TEXT_BR, "\n", 1, ud);
  }
  if (rc) return rc;
  if (p->leave_block && (rc = p->leave_block(MD_BLOCK_P, NULL, ud)) != 0) return rc;
  if (p->leave_block) rc = p->leave_block(MD_BLOCK_DOC, NULL, ud);
  return rc;
}

int md_parse(const MD_CHAR *text, MD_SIZE size, const MD_PARSER *parser, void *userdata) {
  if (zdlib_load(&libmd4c, describe)) return M.parse(text, size, parser, userdata);
  return zmd_parse_plain(text, size, parser, userdata);
}
