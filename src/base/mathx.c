/* mathx.c — see mathx.h. */
#include "base/mathx.h"

#include <stdint.h>
#include <string.h>

double zmath_ln(double x) {
  if (!(x > 0) || x > 1.7976931348623157e308) return 0; /* <= 0, NaN, inf */
  int scale = 0;
  if (x < 2.2250738585072014e-308) { /* subnormal: make it normal first */
    x *= 18014398509481984.0;        /* 2^54 */
    scale = -54;
  }
  /* x = m · 2^e with m in [1, 2), read off the IEEE 754 bits. */
  uint64_t bits;
  memcpy(&bits, &x, sizeof bits);
  int e = (int)((bits >> 52) & 0x7ff) - 1023 + scale;
  bits = (bits & 0x000fffffffffffffULL) | 0x3ff0000000000000ULL;
  double m;
  memcpy(&m, &bits, sizeof m);
  /* Centre m on 1 (m in [0.707, 1.414]) so the series below converges fast. */
  if (m > 1.4142135623730951) {
    m *= 0.5;
    e++;
  }
  /* ln m = 2·atanh(s) = 2·(s + s³/3 + s⁵/5 + …) with s = (m−1)/(m+1), |s| <
   * 0.172: each term is 34× smaller than the one before, so 12 terms are
   * below double precision. Summed smallest first. */
  double s = (m - 1) / (m + 1), s2 = s * s;
  double pw[12];
  pw[0] = s;
  for (int k = 1; k < 12; k++) pw[k] = pw[k - 1] * s2;
  double sum = 0;
  for (int k = 11; k >= 0; k--) sum += pw[k] / (2 * k + 1);
  /* ln 2 split in two so e·ln2 keeps its precision for large |e|. */
  const double ln2_hi = 6.93147180369123816490e-01, ln2_lo = 1.90821492927058770002e-10;
  return (double)e * ln2_hi + (2 * sum + (double)e * ln2_lo);
}
