/* banned.h — C library calls this tree does not use, made compile errors.
 *
 * After git's banned.h. Each banned name expands to an undeclared identifier
 * whose spelling is the reason and the replacement, so the compiler's error
 * message ("'sorry_strcpy_is_banned_use_snprintf_or_memcpy' undeclared")
 * explains itself. Why each one:
 *   strcpy, strcat, strncpy  no bound, or a bound that silently truncates
 *                            without a terminator: use zbuf (base/buf.h),
 *                            snprintf, or memcpy with a checked length.
 *   sprintf, vsprintf        no bound: snprintf / vsnprintf / zbuf_addf.
 *   strtok                   hidden static state, a data race when two
 *                            threads split strings (tools/walk.c once did):
 *                            strtok_r, strsep, or memchr over the buffer.
 *   gets                     cannot be used safely at all: fgets / getline.
 *   atoi, atol, atoll        no error report ("12x" and "" both parse):
 *                            strtol / strtoll with an end pointer and errno.
 *
 * The build force-includes this header into every translation unit
 * (CMakeLists.txt: -include), so new files are checked without anyone
 * remembering to include it. It first includes the system headers that
 * declare the banned functions, so their declarations are read before the
 * macros exist whatever a file includes next (include guards make the later
 * #include a no-op). The freestanding sandbox helper is compiled without it.
 */
#ifndef ZERO_BASE_BANNED_H
#define ZERO_BASE_BANNED_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#undef strcpy
#define strcpy(...) sorry_strcpy_is_banned_use_snprintf_or_memcpy
#undef strcat
#define strcat(...) sorry_strcat_is_banned_use_zbuf_or_snprintf
#undef strncpy
#define strncpy(...) sorry_strncpy_is_banned_use_snprintf_or_memcpy
#undef sprintf
#define sprintf(...) sorry_sprintf_is_banned_use_snprintf_or_zbuf_addf
#undef vsprintf
#define vsprintf(...) sorry_vsprintf_is_banned_use_vsnprintf
#undef strtok
#define strtok(...) sorry_strtok_is_banned_not_thread_safe_use_strtok_r
#undef gets
#define gets(...) sorry_gets_is_banned_use_fgets_or_getline
#undef atoi
#define atoi(...) sorry_atoi_is_banned_use_strtol_with_checks
#undef atol
#define atol(...) sorry_atol_is_banned_use_strtol_with_checks
#undef atoll
#define atoll(...) sorry_atoll_is_banned_use_strtoll_with_checks

#endif
