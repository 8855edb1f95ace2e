/* landlock_compat.h — the Landlock UAPI, declared here because Debian 12's
 * kernel headers predate the ABI versions we use (the ABI is checked at run
 * time with LANDLOCK_CREATE_RULESET_VERSION, so older kernels just get fewer
 * rights handled). Values from the kernel's include/uapi/linux/landlock.h. */
#ifndef ZERO_SANDBOX_LANDLOCK_COMPAT_H
#define ZERO_SANDBOX_LANDLOCK_COMPAT_H

#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef __NR_landlock_create_ruleset
#define __NR_landlock_create_ruleset 444
#define __NR_landlock_add_rule 445
#define __NR_landlock_restrict_self 446
#endif

struct zll_ruleset_attr {
  uint64_t handled_access_fs;
  uint64_t handled_access_net; /* ABI 4 */
  uint64_t scoped;             /* ABI 6 */
};

struct zll_path_beneath_attr {
  uint64_t allowed_access;
  int32_t parent_fd;
} __attribute__((packed));

struct zll_net_port_attr {
  uint64_t allowed_access;
  uint64_t port;
};

#define ZLL_CREATE_RULESET_VERSION (1U << 0)
#define ZLL_RULE_PATH_BENEATH 1
#define ZLL_RULE_NET_PORT 2

#define ZLL_FS_EXECUTE (1ULL << 0)
#define ZLL_FS_WRITE_FILE (1ULL << 1)
#define ZLL_FS_READ_FILE (1ULL << 2)
#define ZLL_FS_READ_DIR (1ULL << 3)
#define ZLL_FS_REMOVE_DIR (1ULL << 4)
#define ZLL_FS_REMOVE_FILE (1ULL << 5)
#define ZLL_FS_MAKE_CHAR (1ULL << 6)
#define ZLL_FS_MAKE_DIR (1ULL << 7)
#define ZLL_FS_MAKE_REG (1ULL << 8)
#define ZLL_FS_MAKE_SOCK (1ULL << 9)
#define ZLL_FS_MAKE_FIFO (1ULL << 10)
#define ZLL_FS_MAKE_BLOCK (1ULL << 11)
#define ZLL_FS_MAKE_SYM (1ULL << 12)
#define ZLL_FS_REFER (1ULL << 13)    /* ABI 2 */
#define ZLL_FS_TRUNCATE (1ULL << 14) /* ABI 3 */

#define ZLL_NET_BIND_TCP (1ULL << 0)    /* ABI 4 */
#define ZLL_NET_CONNECT_TCP (1ULL << 1) /* ABI 4 */

#define ZLL_SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0) /* ABI 6 */
#define ZLL_SCOPE_SIGNAL (1ULL << 1)               /* ABI 6 */

static inline int zll_create_ruleset(const struct zll_ruleset_attr *attr, size_t size,
                                     uint32_t flags) {
  return (int)syscall(__NR_landlock_create_ruleset, attr, size, flags);
}
static inline int zll_add_rule(int fd, int type, const void *attr, uint32_t flags) {
  return (int)syscall(__NR_landlock_add_rule, fd, type, attr, flags);
}
static inline int zll_restrict_self(int fd, uint32_t flags) {
  return (int)syscall(__NR_landlock_restrict_self, fd, flags);
}
/* The kernel's Landlock ABI version, or 0 when Landlock is unavailable. */
static inline int zll_abi(void) {
  int v = zll_create_ruleset(NULL, 0, ZLL_CREATE_RULESET_VERSION);
  return v < 0 ? 0 : v;
}

#endif
