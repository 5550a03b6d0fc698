/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef ZRAM_RECOMPD_DEVLOCK_H
#define ZRAM_RECOMPD_DEVLOCK_H

/*
 * The advisory locks (flock(2)) that keep adopt and the passes apart (src/kernel/devlock.c).
 * adopt holds its device's lock exclusively, and the lock "adopt" exclusively for the
 * temporary device it may add, for its whole run; the daemon and --once hold a device's lock
 * shared while they configure it or run a pass on it, and configure a device that is not
 * initialized only while they also hold "adopt" shared: a reset and the setup after it is
 * adopt's alone. The files are DEVLOCK_DIR/zramN and DEVLOCK_DIR/adopt beneath the root fd:
 * a fixed directory, a name built from the device id, no symbolic link followed, directories
 * created 0700 and files 0600 by the running user (root), never removed (a lock file removed
 * while held would let the next taker lock a new file). Functions return 0 or -errno and
 * never log.
 */

#include <stdbool.h>
#include <stddef.h>

/* Beneath the root fd; "run" must exist, the rest is created where missing. */
#define DEVLOCK_DIR "run/zram-recompd/lock"
/* The id of the lock "adopt" (no device name has it: zram_name_to_id stops at 999999999). */
#define DEVLOCK_ADOPT (~0u)

/* "zramN" or "adopt": the file's name for id, in out (size >= 16). */
void devlock_name(unsigned id, char *out, size_t size);

/*
 * The lock directory as a directory fd (O_RDONLY|O_DIRECTORY|O_CLOEXEC), each component
 * opened O_NOFOLLOW; with create, zram-recompd and lock made (0700) where missing. -EPERM
 * when zram-recompd or lock is not a directory of the running user writable by it alone.
 */
int devlock_dir_open(int root_fd, bool create, int *ret_fd);

/*
 * Take id's lock without waiting: exclusive or shared. *ret_fd holds it until closed.
 * -EAGAIN: held by another in a mode that conflicts. Any other -errno: no lock can be taken
 * (no run directory beneath this root, a read-only /run, a file that is not ours).
 */
int devlock_try(int root_fd, unsigned id, bool exclusive, int *ret_fd);

/* devlock_try again every 100 ms while -EAGAIN, for at most wait_ms. */
int devlock_wait(int root_fd, unsigned id, bool exclusive, unsigned wait_ms, int *ret_fd);

/* Close a held lock (fd >= 0) and set it to -1. */
void devlock_release(int *fd);

#endif
