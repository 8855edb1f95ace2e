/* tar.c — ustar writer; see tar.h. */
#include "base/tar.h"

#include <string.h>

enum { TAR_BLOCK = 512 };

/* The header fields this writer fills, at their ustar offsets. */
enum {
  H_NAME = 0,      /* 100 */
  H_MODE = 100,    /* 8 */
  H_UID = 108,     /* 8 */
  H_GID = 116,     /* 8 */
  H_SIZE = 124,    /* 12 */
  H_MTIME = 136,   /* 12 */
  H_CHKSUM = 148,  /* 8 */
  H_TYPE = 156,    /* 1 */
  H_MAGIC = 257,   /* 6: "ustar\0" */
  H_VERSION = 263, /* 2: "00" */
};

/* An octal field of width w: w-1 digits and a NUL, as ustar wants. */
static void octal(unsigned char *h, size_t off, size_t w, unsigned long long v) {
  char tmp[24];
  snprintf(tmp, sizeof tmp, "%0*llo", (int)(w - 1), v);
  memcpy(h + off, tmp, w - 1);
  h[off + w - 1] = '\0';
}

int ztar_add(FILE *f, const char *name, const void *data, size_t len, time_t mtime, zerr *err) {
  size_t nlen = strlen(name);
  if (!nlen || nlen > 99 || name[0] == '/' || strstr(name, ".."))
    return zerr_set(err, ZE_USAGE, "tar member name \"%s\" is not a short relative path", name);
  /* 11 octal digits hold 8 GiB; nothing zero bundles comes near it. */
  if ((unsigned long long)len >= 077777777777ULL)
    return zerr_set(err, ZE_USAGE, "tar member %s is too large", name);
  unsigned char h[TAR_BLOCK];
  memset(h, 0, sizeof h);
  memcpy(h + H_NAME, name, nlen);
  octal(h, H_MODE, 8, 0644);
  octal(h, H_UID, 8, 0);
  octal(h, H_GID, 8, 0);
  octal(h, H_SIZE, 12, len);
  octal(h, H_MTIME, 12, mtime > 0 ? (unsigned long long)mtime : 0);
  h[H_TYPE] = '0';
  memcpy(h + H_MAGIC, "ustar", 6);
  memcpy(h + H_VERSION, "00", 2);
  /* The checksum counts its own field as eight spaces. */
  memset(h + H_CHKSUM, ' ', 8);
  unsigned long sum = 0;
  for (size_t i = 0; i < sizeof h; i++) sum += h[i];
  char ck[8];
  snprintf(ck, sizeof ck, "%06lo", sum);
  memcpy(h + H_CHKSUM, ck, 6);
  h[H_CHKSUM + 6] = '\0';
  h[H_CHKSUM + 7] = ' ';
  static const unsigned char zeros[TAR_BLOCK];
  size_t pad = (TAR_BLOCK - len % TAR_BLOCK) % TAR_BLOCK;
  if (fwrite(h, 1, sizeof h, f) != sizeof h || (len && fwrite(data, 1, len, f) != len) ||
      (pad && fwrite(zeros, 1, pad, f) != pad))
    return zerr_errno(err, ZE_IO, "cannot write the archive");
  return 0;
}

int ztar_finish(FILE *f, zerr *err) {
  static const unsigned char zeros[2 * TAR_BLOCK];
  if (fwrite(zeros, 1, sizeof zeros, f) != sizeof zeros || fflush(f) != 0)
    return zerr_errno(err, ZE_IO, "cannot write the archive");
  return 0;
}
