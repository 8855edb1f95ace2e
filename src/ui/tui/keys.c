/* keys.c — see keys.h. */
#include "ui/tui/keys.h"

#include <string.h>
#include <utf8proc.h>

void tui_keys_init(tui_keys *k) {
  zbuf_init(&k->pending);
  zbuf_init(&k->paste);
  k->in_paste = false;
}

void tui_keys_release(tui_keys *k) {
  zbuf_release(&k->pending);
  zbuf_release(&k->paste);
}

void tui_keys_feed(tui_keys *k, const char *data, size_t len) {
  zbuf_add(&k->pending, data, len);
  if (len) k->paste_idle = 0;
}

bool tui_keys_pending(const tui_keys *k) { return k->pending.len > 0 || k->in_paste; }

static void set_char(tui_key *key, uint32_t ch, int mods) {
  memset(key, 0, sizeof *key);
  key->type = TK_CHAR;
  key->ch = ch;
  key->mods = mods;
  utf8proc_ssize_t n = utf8proc_encode_char((utf8proc_int32_t)ch, (utf8proc_uint8_t *)key->utf8);
  key->utf8[n > 0 ? n : 0] = 0;
}

static void set_type(tui_key *key, tui_key_type t, int mods) {
  memset(key, 0, sizeof *key);
  key->type = t;
  key->mods = mods;
}

/* A single byte / code point without ESC prefix, with extra mods. */
static void decode_plain(tui_key *key, uint32_t c, int mods) {
  switch (c) {
    case '\r': set_type(key, TK_ENTER, mods); return;
    case '\n': set_type(key, TK_ENTER, mods | TK_CTRL); return; /* Ctrl+J: newline */
    case '\t': set_type(key, TK_TAB, mods); return;
    case 0x7f:
    case 0x08: set_type(key, TK_BACKSPACE, mods); return;
    case 0x1b: set_type(key, TK_ESC, mods); return;
    case 0: set_char(key, ' ', mods | TK_CTRL); return;
  }
  if (c < 0x20) set_char(key, c + 'a' - 1, mods | TK_CTRL);
  else set_char(key, c, mods);
}

/* Modifier parameter (1 + bitmask: shift 1, alt 2, ctrl 4). */
static int mods_from(int p) {
  if (p <= 1) return 0;
  int m = p - 1, r = 0;
  if (m & 1) r |= TK_SHIFT;
  if (m & 2) r |= TK_ALT;
  if (m & 4) r |= TK_CTRL;
  return r;
}

/* Decodes a CSI sequence body: params in p[0..np), final byte f. */
static void decode_csi(tui_key *key, const int *p, int np, char f, char priv) {
  int mods = np >= 2 ? mods_from(p[1]) : 0;
  switch (f) {
    case 'A': set_type(key, TK_UP, mods); return;
    case 'B': set_type(key, TK_DOWN, mods); return;
    case 'C': set_type(key, TK_RIGHT, mods); return;
    case 'D': set_type(key, TK_LEFT, mods); return;
    case 'H': set_type(key, TK_HOME, mods); return;
    case 'F': set_type(key, TK_END, mods); return;
    case 'Z': set_type(key, TK_BACKTAB, TK_SHIFT); return;
    case 'u':
      if (priv) break; /* a reply to a query, not a key */
      /* kitty: CSI code ; mods u */
      if (np >= 1) {
        int code = p[0];
        if (code == 13) set_type(key, TK_ENTER, mods);
        else if (code == 9) set_type(key, (mods & TK_SHIFT) ? TK_BACKTAB : TK_TAB, mods);
        else if (code == 27) set_type(key, TK_ESC, mods);
        else if (code == 127 || code == 8) set_type(key, TK_BACKSPACE, mods);
        else if ((mods & TK_CTRL) && code >= 'a' && code <= 'z') set_char(key, (uint32_t)code, mods);
        else if ((mods & TK_CTRL) && code >= 'A' && code <= 'Z') set_char(key, (uint32_t)code + 32, mods);
        else if (code >= 0x20) set_char(key, (uint32_t)code, mods & ~TK_SHIFT);
        else decode_plain(key, (uint32_t)code, mods);
        return;
      }
      break;
    case '~':
      if (np >= 1) {
        switch (p[0]) {
          case 1: case 7: set_type(key, TK_HOME, mods); return;
          case 4: case 8: set_type(key, TK_END, mods); return;
          case 3: set_type(key, TK_DELETE, mods); return;
          case 5: set_type(key, TK_PGUP, mods); return;
          case 6: set_type(key, TK_PGDN, mods); return;
          case 27: /* xterm modifyOtherKeys: CSI 27 ; mods ; code ~ */
            if (np >= 3) {
              int m = mods_from(p[1]);
              if (p[2] == 13) set_type(key, TK_ENTER, m);
              else if (p[2] == 9) set_type(key, (m & TK_SHIFT) ? TK_BACKTAB : TK_TAB, m);
              else if (p[2] == 27) set_type(key, TK_ESC, m);
              else if (p[2] == 127) set_type(key, TK_BACKSPACE, m);
              else if ((m & TK_CTRL) && p[2] >= 'a' && p[2] <= 'z') set_char(key, (uint32_t)p[2], m);
              else set_char(key, (uint32_t)p[2], m & ~TK_SHIFT);
              return;
            }
            break;
        }
      }
      break;
  }
  set_type(key, TK_UNKNOWN, 0);
}

static const char PASTE_END[] = "\x1b[201~";

/* Parses one key from buf; returns bytes consumed, 0 if incomplete. */
static size_t parse(tui_keys *k, const char *s, size_t n, tui_key *key, bool flush) {
  unsigned char c = (unsigned char)s[0];
  if (c != 0x1b) {
    if (c < 0x80) {
      decode_plain(key, c, 0);
      return 1;
    }
    utf8proc_int32_t cp;
    utf8proc_ssize_t m = utf8proc_iterate((const utf8proc_uint8_t *)s, (utf8proc_ssize_t)n, &cp);
    if (m <= 0) {
      /* Incomplete multi-byte character: wait, unless it can never complete. */
      int need = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 1;
      if ((size_t)need > n && !flush && need > 1) return 0;
      set_char(key, 0xFFFD, 0);
      return 1;
    }
    set_char(key, (uint32_t)cp, 0);
    return (size_t)m;
  }
  if (n == 1) {
    if (!flush) return 0;
    set_type(key, TK_ESC, 0);
    return 1;
  }
  if (s[1] == '[' || s[1] == 'O') {
    bool ss3 = s[1] == 'O';
    int p[8] = {0}, np = 0;
    char priv = 0;
    size_t i = 2;
    if (!ss3 && i < n && (s[i] == '?' || s[i] == '>' || s[i] == '<' || s[i] == '=')) priv = s[i++];
    bool digits = false;
    for (; i < n; i++) {
      unsigned char ch = (unsigned char)s[i];
      if (ch >= '0' && ch <= '9') {
        if (np == 0) np = 1;
        p[np - 1] = p[np - 1] * 10 + (ch - '0');
        digits = true;
      } else if (ch == ';' || ch == ':') {
        if (np == 0) np = 1;
        if (np < 8) np++;
        /* kitty sub-parameters (code:shifted) — keep only the first field */
        if (ch == ':') {
          while (i + 1 < n && ((s[i + 1] >= '0' && s[i + 1] <= '9') || s[i + 1] == ':')) i++;
          np--;
        }
      } else if (ch >= 0x40 && ch <= 0x7e) {
        (void)digits;
        if (!ss3 && ch == '~' && np == 1 && p[0] == 200) {
          k->in_paste = true;
          zbuf_reset(&k->paste);
          set_type(key, TK_UNKNOWN, 0);
          return i + 1;
        }
        decode_csi(key, p, np, (char)ch, priv);
        return i + 1;
      } else if (ch < 0x20 || ch > 0x7e) {
        set_type(key, TK_UNKNOWN, 0);
        return i; /* malformed: drop what was read */
      }
    }
    if (!flush) return 0;
    set_type(key, TK_UNKNOWN, 0);
    return n;
  }
  /* ESC + key: Alt+key. */
  size_t m = parse(k, s + 1, n - 1, key, flush);
  if (m == 0) return 0;
  key->mods |= TK_ALT;
  return m + 1;
}

/* Ends the paste collected in k->paste: it becomes the TK_PASTE key. */
static int paste_done(tui_keys *k, tui_key *key) {
  k->in_paste = false;
  k->paste_idle = 0;
  memset(key, 0, sizeof *key);
  key->type = TK_PASTE;
  key->paste = k->paste.data;
  key->paste_len = k->paste.len;
  return 1;
}

int tui_keys_next(tui_keys *k, tui_key *key, bool flush) {
  for (;;) {
    if (k->in_paste) {
      char *end = memmem(k->pending.data, k->pending.len, PASTE_END, sizeof PASTE_END - 1);
      if (!end && flush && ++k->paste_idle >= TUI_PASTE_GIVE_UP) {
        /* the end marker is not coming: deliver what there is */
        zbuf_add(&k->paste, k->pending.data, k->pending.len);
        zbuf_reset(&k->pending);
        return paste_done(k, key);
      }
      if (!end) {
        /* Keep a tail that may be the start of the end marker. */
        size_t keep = sizeof PASTE_END - 2;
        if (k->pending.len > keep) {
          size_t take = k->pending.len - keep;
          zbuf_add(&k->paste, k->pending.data, take);
          zbuf_consume(&k->pending, take);
        }
        return 0;
      }
      size_t take = (size_t)(end - k->pending.data);
      zbuf_add(&k->paste, k->pending.data, take);
      zbuf_consume(&k->pending, take + sizeof PASTE_END - 1);
      return paste_done(k, key);
    }
    if (!k->pending.len) return 0;
    size_t used = parse(k, k->pending.data, k->pending.len, key, flush);
    if (!used) return 0;
    zbuf_consume(&k->pending, used);
    if (key->type == TK_UNKNOWN && k->in_paste) continue;
    return 1;
  }
}

tui_key tui_key_as_arrow(const tui_key *k) {
  tui_key a = *k;
  if (k->type == TK_CHAR && k->mods == TK_CTRL && (k->ch == 'p' || k->ch == 'n')) {
    a.type = k->ch == 'p' ? TK_UP : TK_DOWN;
    a.mods = 0;
    a.ch = 0;
    a.utf8[0] = '\0';
  }
  return a;
}
