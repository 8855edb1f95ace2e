/* placeholder.h — the empty files that keep a missing protected name
 * (.agents, .git/config, .git/hooks) from being created in a sandbox, and
 * the empty directories that do the same for a missing .git or .zero.
 *
 * bwrap can only bind /dev/null over a name that exists, and the workspace is
 * the host's directory, so the mount point is a real (empty) file on the
 * host. zero creates it itself, marked (mode 01400: sticky + owner-read, on an
 * empty regular file — nothing a user makes by accident), holds a shared
 * flock on it for as long as the sandbox lives, and removes it when the last
 * holder lets go. The lock is what makes concurrent commands safe: unlinking a
 * file that is a mount point in another sandbox detaches that mount there and
 * would make the name creatable again, so a placeholder is only removed by a
 * holder that can take it exclusively. A placeholder left behind by a zero
 * that was killed with SIGKILL carries the mark, so the next sandboxed
 * command in that workspace adopts it and removes it when done.
 *
 * The stash. Making a file and deleting it again on every command is not
 * free: ext4 without a journal (common on VMs) skips every inode freed in the
 * last 30 s when it allocates one, so under a steady stream of commands each
 * creation scanned hundreds of inodes (~0.5 ms). With a stash directory set
 * (zero's runtime base, <base>/.placeholders, which no sandbox can write:
 * bwrap binds it read-only when a write root covers it), a placeholder nobody
 * holds any more is moved there (rename, same file system only) instead of
 * being deleted, and the next acquire moves one back instead of creating a
 * file. An entry is reused only when it is still exactly a placeholder we
 * own (empty, the mark, one link, our uid) and nothing else has it open (a
 * write lease can be taken, which the kernel refuses while any other
 * descriptor for the file exists); otherwise a fresh file is made as before.
 * A failed rename (another file system: EXDEV) falls back to create/unlink.
 */
#ifndef ZERO_SANDBOX_PLACEHOLDER_H
#define ZERO_SANDBOX_PLACEHOLDER_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "base/err.h"

#define ZSB_PH_MODE 01400
#define ZSB_PH_DIR_MODE 01500 /* the mark of a directory placeholder (a missing .git) */
#define ZSB_PH_TEXT_MAX 2     /* a placeholder holds at most this much text (".\n") */
#define ZSB_PH_STASH_SLOTS 8 /* entries kept in the stash: <stash>/0 … /7 */

/* The placeholders one sandboxed command holds. */
typedef struct zsb_holds {
  const char *stash; /* stash directory (not owned), or NULL: create and unlink */
  size_t n;
  struct zsb_hold {
    char *path;
    int fd;        /* shared flock held on the placeholder */
    bool dir;      /* a directory placeholder: removed with rmdir, never stashed */
  } *v;
} zsb_holds;

/* Makes (or adopts) the placeholder at path and holds it. Returns 1 when a
 * placeholder is held, 0 when path is a real file or directory (the caller
 * protects it read-only instead), -1 when it could not be made (errno). */
int zsb_ph_acquire(zsb_holds *h, const char *path);
/* The same, for a name that git on the host reads while the sandbox lives:
 * the placeholder holds text (none, or ZSB_PH_TEXT_MAX bytes) that git
 * accepts — ".\n" for a missing .git/commondir, which git reads as "this
 * git dir" where an empty file stops every git command in the repository
 * ("failed to read .git/commondir"). Never stashed. */
int zsb_ph_acquire_text(zsb_holds *h, const char *path, const char *text);
/* The same for a missing .git: an empty directory with the mark (mode
 * 01500), not a file. Git on the host, which may run while the command
 * does, treats an empty .git directory as "no repository here" and goes on
 * to the parent directory, while an empty .git *file* is a broken gitfile it
 * stops at ("invalid gitfile format"). The sandbox binds the directory
 * read-only over itself: nothing can be created in it, and as a mount point
 * it cannot be removed or renamed. Never stashed (made with mkdir, removed
 * with rmdir, which also keeps whatever the user put in it meanwhile).
 * Returns as zsb_ph_acquire. */
int zsb_ph_acquire_dir(zsb_holds *h, const char *path);
/* zero's own folder at path (a workspace's .zero), for zero to make
 * folders and files in: made with mode when missing, kept when it is a real
 * folder, and claimed when it is a directory placeholder of ours — chmod to
 * mode under a shared lock, so no releasing holder removes it meanwhile; it
 * is a real folder from then on, left in place when the sandboxes holding it
 * end, and they keep seeing it (and what zero puts in it) read-only. A file
 * placeholder nobody holds (left by an older zero) is replaced by the
 * folder. A symlink or any other file is refused, as is a file placeholder a
 * running sandbox still holds. 0, or -1 with err. */
int zsb_ph_make_own_dir(const char *path, mode_t mode, zerr *err);
/* Lets go of every hold; removes each placeholder nobody else holds. Safe to
 * call on an empty set; leaves h empty. Only after every process that saw the
 * placeholders as mounts has exited. */
void zsb_ph_release(zsb_holds *h);
/* true when st describes a placeholder (a regular file with the mark, empty
 * or of exactly ZSB_PH_TEXT_MAX bytes: the commondir text). */
struct stat;
bool zsb_ph_is_placeholder(const struct stat *st);
/* true when st describes a directory placeholder (a directory with the mark;
 * its emptiness is checked by rmdir when it is removed). */
bool zsb_ph_is_dir_placeholder(const struct stat *st);

#endif
