/* keys.h — decoding terminal input bytes into keys.
 *
 * Handles UTF-8 text, C0 control keys, ESC-prefixed Alt keys, CSI / SS3
 * sequences (arrows, Home/End, Delete, PgUp/PgDn, Shift+Tab, modifiers as
 * in CSI 1;5C), the kitty keyboard protocol and xterm modifyOtherKeys forms
 * (CSI 13;2u, CSI 27;2;13~ for Shift+Enter), and bracketed paste
 * (CSI 200~ … CSI 201~, delivered as one TK_PASTE). A lone ESC is ambiguous
 * until more bytes arrive or a short timeout passes: tui_keys_next returns 0
 * (need more) unless `flush` is set. Written by hand (terminfo does not cover
 * the modern extensions, and this is ~200 lines).
 */
#ifndef ZERO_UI_TUI_KEYS_H
#define ZERO_UI_TUI_KEYS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"

typedef enum tui_key_type {
  TK_CHAR,      /* ch (Unicode), utf8; Ctrl+letter has mods TK_CTRL and ch 'a'..'z' */
  TK_ENTER,
  TK_TAB,
  TK_BACKTAB,   /* Shift+Tab */
  TK_BACKSPACE,
  TK_DELETE,
  TK_ESC,
  TK_UP, TK_DOWN, TK_LEFT, TK_RIGHT,
  TK_HOME, TK_END, TK_PGUP, TK_PGDN,
  TK_PASTE,     /* paste / paste_len: the pasted bytes */
  TK_UNKNOWN,   /* an unrecognised sequence (ignored) */
} tui_key_type;

enum { TK_SHIFT = 1, TK_ALT = 2, TK_CTRL = 4 };

typedef struct tui_key {
  tui_key_type type;
  int mods;
  uint32_t ch;
  char utf8[8];
  const char *paste; /* valid until the next call */
  size_t paste_len;
} tui_key;

typedef struct tui_keys {
  zbuf pending; /* undecoded input */
  zbuf paste;   /* paste being collected */
  bool in_paste;
  unsigned paste_idle; /* flushes in a row with no input while in a paste */
} tui_keys;

/* A paste whose end marker never comes (a terminal that lost it, a stray
 * ESC[200~) would take every later key, Ctrl+C too: after this many idle
 * flushes (the caller flushes after ~30 ms without input, so about 3 s) what
 * was collected is delivered as the paste and keys work again. */
#define TUI_PASTE_GIVE_UP 100

void tui_keys_init(tui_keys *k);
void tui_keys_release(tui_keys *k);
void tui_keys_feed(tui_keys *k, const char *data, size_t len);
/* 1: *key filled; 0: need more input (flush: take a lone ESC as Esc). */
int tui_keys_next(tui_keys *k, tui_key *key, bool flush);
/* true when undecoded bytes wait or a paste is open (the caller then polls
 * with a short timeout and flushes). */
bool tui_keys_pending(const tui_keys *k);
/* k as the arrow it stands for: Ctrl+P is Up and Ctrl+N is Down (the
 * readline and Emacs keys, which every menu, the permission prompt and the
 * composer take as the arrows); any other key is returned as it is. */
tui_key tui_key_as_arrow(const tui_key *k);

#endif
