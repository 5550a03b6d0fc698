/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef ZRAM_RECOMPD_DICT_APPLY_H
#define ZRAM_RECOMPD_DICT_APPLY_H

/*
 * Applying a zstd dictionary to a device (docs/dictionary.md):
 * where the file is, whether it may be given to the kernel, at which priorities.
 *
 * The kernel reads the file itself, by path, when `algorithm_params priority=P dict=PATH`
 * is written, so the path must be one the project controls, never one taken from input.
 * Looked up in this order:
 *
 *   /run/zram-recompd/dict/zramN.zdict  the memory-backed directory advise --dict-install
 *                                       writes (gone at reboot);
 *   $CREDENTIALS_DIRECTORY/zramN.zdict  systemd's credentials directory of the unit that
 *                                       runs --once, when it loads one itself;
 *   /run/credentials/zram-recompd-dict@zramN.service/zramN.zdict
 *                                       the saved dictionary, encrypted at rest
 *                                       (systemd-creds), decrypted at boot into that unit's
 *                                       credentials (LoadCredentialEncrypted=, ramfs): the
 *                                       opt-in persistence (systemd/zram-recompd-dict@.service).
 *
 * Beside each, zramN.zdict.pred holds advise's prediction (one line, no page content), and
 * /run/zram-recompd/dict holds zramN.zdict.applied, what --once or adopt gave the kernel
 * (for `status`). Every directory must be a real directory (no symbolic link on the way),
 * owned by the running user (root), writable by nobody else, on tmpfs or ramfs; every file a
 * regular file owned by that user with mode 0600 or stricter. A dictionary file must be a
 * zstd dictionary (magic 0xEC30A437, what ZDICT builds and advise predicted) of
 * DICT_FILE_MIN..DICT_FILE_MAX bytes. Anything else is refused with the reason, and the
 * device is set up without a dictionary.
 *
 * Pure functions first; they return -errno and never log.
 */

#include "config.h"
#include "zram.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#define DICT_DIR_DEFAULT "/run/zram-recompd/dict"
#define DICT_FILE_MIN 1024u
#define DICT_FILE_MAX (1024u * 1024u)
#define DICT_ZSTD_MAGIC 0xEC30A437u
#define DICT_EXT ".zdict"
#define DICT_PRED_EXT ".zdict.pred"
#define DICT_APPLIED_EXT ".zdict.applied"
#define DICT_LINE_MAX 512 /* a .pred or .applied file, at most */
#define DICT_NPRIO 4	  /* priority 0 (primary) to 3 */

/* advise's prediction for one device (the .pred file). */
struct dict_pred {
	bool known;	/* a .pred file was read */
	bool recommend; /* the net saving cleared advise's threshold */
	unsigned mask;	/* the best variant's priorities (bit p) */
	bool zstd[DICT_NPRIO];
	int level[DICT_NPRIO]; /* zstd's level each priority was predicted with */
	char net[16];	       /* net saving in percent of the pool, as advise printed it */
	/* the pool with the dictionary per byte of the non-same pages stored (mem_used_total /
	 * their orig bytes), predicted: what status compares with the device's own figure */
	char per_byte[16];
};

/* A dictionary file that passed every check. */
struct dict_found {
	char path[ZRAM_DICT_PATH_MAX]; /* absolute: what dict= names */
	bool credential;	       /* from $CREDENTIALS_DIRECTORY */
	uint64_t size;
	uint32_t id; /* the zstd dictionary ID of its header */
	struct dict_pred pred;
};

/* A directory's stat: a directory of owner, not writable by group or others. */
int dict_check_dir(const struct stat *st, uid_t owner, char *why, size_t why_size);
/* tmpfs or ramfs (statfs f_type): memory, not persistent storage. */
bool dict_fs_in_memory(long f_type);
/* A dictionary file's stat: regular, of owner, mode 0600 or stricter, size in range. */
int dict_check_file(const struct stat *st, uid_t owner, char *why, size_t why_size);
/* The first bytes of a file: a zstd dictionary header; its ID into *ret_id. */
int dict_check_header(const uint8_t *h, size_t len, uint32_t *ret_id);

/*
 * "recommend=yes|no priorities=P[,P] prioP=zstd:L ... net-percent=N pool-per-byte=F":
 * -EINVAL for anything else (unknown key, bad value, no recommend= or priorities=).
 */
int dict_pred_parse(const char *text, struct dict_pred *ret);
int dict_pred_format(const struct dict_pred *p, char *buf, size_t size);

/*
 * The secondary priorities (bit p, 1..3) of cfg that get the dictionary: zstd-dictionary =
 * auto: those of a recommending prediction where cfg has zstd at the level predicted;
 * yes: every zstd priority; a list: those, when they hold zstd. note says, in one line,
 * what was left out and why ("" when nothing was).
 */
unsigned dict_apply_mask(const struct dev_config *cfg, const struct dict_pred *pred, char *note,
			 size_t note_size);

/* The .applied record, parsed. */
struct dict_record {
	unsigned applied; /* priorities (bit p) */
	char file[ZRAM_DICT_PATH_MAX];
	uint64_t bytes;
	uint32_t id;
	bool credential;
	struct dict_pred pred; /* known when the record carries one */
};
/* "applied=P[,P] file=PATH bytes=N id=N source=run|credential [prediction]": -EINVAL else. */
int dict_record_parse(const char *line, struct dict_record *ret);

/* ---- files */

/* The memory-backed directory: $ZRAM_RECOMPD_DICT_DIR (tests) or DICT_DIR_DEFAULT. */
const char *dict_dir_path(void);
/*
 * Open dir (O_PATH-free, O_DIRECTORY, no symbolic link anywhere) and check it as above;
 * create: mkdir -p with mode 0700 first. A descriptor or -errno with the reason in why.
 */
int dict_dir_open(const char *dir, bool create, char *why, size_t why_size);
/*
 * Find and check device dev's dictionary (and its .pred): 0, -ENOENT when there is none
 * in either place, another -errno with the reason (naming the file) in why.
 */
int dict_find(const char *dev, struct dict_found *ret, char *why, size_t why_size);
/* len bytes into dir_fd/name, mode 0600, through a new temp file renamed over it. */
int dict_store(int dir_fd, const char *name, const void *buf, size_t len);

/* The .applied record of dev: what was written (mask of priorities, the file). */
int dict_record_write(const char *dev, const struct dict_found *f, unsigned mask);
/* Removed (absent is fine). */
int dict_record_remove(const char *dev);
/* Its line, checked as a file of ours, into buf: -ENOENT none. */
int dict_record_read(const char *dev, char *buf, size_t size);

#endif
