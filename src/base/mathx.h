/* mathx.h — the few floating-point functions zero needs that would
 * otherwise come from libm.
 *
 * Why not libm: zero's only libm call was one logarithm (the IDF weights of
 * `zero sessions search`), and linking libm costs every start of zero — the
 * agent, `zero exec`, each `zero sandbox exec` — a sixth of its library
 * loading: the mapping of one more library (~9 page faults here) and one
 * more scope in every symbol lookup. */
#ifndef ZERO_BASE_MATHX_H
#define ZERO_BASE_MATHX_H

/* The natural logarithm of x, for finite x > 0 (normal or subnormal), to
 * within a few units in the last place of libm's log. Returns 0 for x <= 0,
 * NaN or infinity (callers clamp what they get; zero never needs log of
 * those). */
double zmath_ln(double x);

#endif
