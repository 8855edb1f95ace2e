/* md4c_loader.h — md4c's md_parse without linking libmd4c: md4c_loader.c
 * defines md_parse (md4c's prototype, <md4c.h>) and forwards it to
 * libmd4c.so.0, dlopen'ed on the first call, so that commands which never
 * render markdown (`zero sandbox exec`, `zero exec`) do not map it. */
#ifndef ZERO_UI_TUI_MD4C_LOADER_H
#define ZERO_UI_TUI_MD4C_LOADER_H

#include <md4c.h>

/* What md_parse does when libmd4c cannot be loaded: the text as one
 * paragraph, its lines separated by hard breaks (MD_TEXT_BR). Returns 0, or
 * the first non-zero value a callback returned. */
int zmd_parse_plain(const MD_CHAR *text, MD_SIZE size, const MD_PARSER *parser, void *userdata);

#endif
