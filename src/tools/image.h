/* image.h — recognising and encoding image files for image input (the
 * view_image tool, the TUI's /image). The type comes from the magic bytes,
 * never the name. */
#ifndef ZERO_TOOLS_IMAGE_H
#define ZERO_TOOLS_IMAGE_H

#include <stddef.h>

#include "base/buf.h"

#define ZIMAGE_MAX (10u << 20) /* bytes: the largest image handed to a model */

/* "image/png" / "image/jpeg" / "image/gif" / "image/webp" from the first n
 * bytes of p, with the pixel size when the header has it (else 0), or NULL
 * when p is none of these. */
const char *zimage_sniff(const unsigned char *p, size_t n, unsigned *w, unsigned *h);

#endif
