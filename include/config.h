/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef ZRAM_RECOMPD_CONFIG_H
#define ZRAM_RECOMPD_CONFIG_H

/*
 * Configuration: zram-recompd.conf and the *.conf drop-ins of zram-recompd.conf.d/, found
 * along systemd's search path (/etc, /run, /usr/local/lib, /usr/lib), or one --config FILE;
 * in INI syntax. Section [global] holds defaults; [zramN] sections override the keys
 * they set for that device only. See docs/zram-recompd.conf.5 (FILES). config_file.c finds
 * and reads the files; config.c holds the key table (name, default, kind, fields, scope).
 */

#include "zram.h"

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define CFG_MAX_ALGOS 3		 /* the kernel has secondary priorities 1..3 */
#define CFG_AUTO_FALLBACK "zstd" /* recompress-algorithms = auto without usable advice */
#define CFG_ALGO_NAME_MAX 32	 /* longest kernel backend name is 7; keep room */
#define CFG_MAX_PASSES 8
#define CFG_MAX_ERRORS 32
#define CFG_MAX_WARNINGS 16
#define CFG_MAX_PARAMS (2 * CFG_MAX_ALGOS) /* algorithm-params tokens per section */
#define CFG_N_KEYS 42			   /* number of enum cfg_key bits */
#define CFG_PATH_MAX 128		   /* backing-device */

enum compact_mode {
	COMPACT_AUTO = 0,
	COMPACT_ALWAYS = 1,
	COMPACT_NEVER = 2,
};

/* Bits of dev_config.set: which keys a section set explicitly. */
enum cfg_key {
	CFG_K_ALGOS = 1u << 0,
	CFG_K_PARAMS = 1u << 1,
	CFG_K_PASSES = 1u << 2,
	CFG_K_THRESHOLD = 1u << 3,
	CFG_K_BATCH = 1u << 4,
	CFG_K_PASS_PAGES = 1u << 5,
	CFG_K_AGE_MIN = 1u << 6,
	CFG_K_AGE_MAX = 1u << 7,
	CFG_K_COMPACT = 1u << 8,
	/* daemon mode (manager.c, policy.c) */
	CFG_K_INTERVAL = 1u << 9,
	CFG_K_BACKOFF_MAX = 1u << 10,
	CFG_K_PRIO_HUGE_IDLE = 1u << 11,
	CFG_K_PRIO_IDLE = 1u << 12,
	CFG_K_PRIO_HUGE = 1u << 13,
	CFG_K_COLD_AGE = 1u << 14,
	CFG_K_COLD_PRIO = 1u << 15,
	CFG_K_PAGES_HOUR = 1u << 16,
	CFG_K_CPU_SHARE = 1u << 17,
	CFG_K_PSI_CPU = 1u << 18,
	CFG_K_MEM_STALL = 1u << 19,
	CFG_K_BATTERY = 1u << 20,
	CFG_K_BATTERY_PSI = 1u << 21,
	CFG_K_COMPACT_FRAG = 1u << 22,
	CFG_K_COMPACT_SAVED = 1u << 23,
	/* recompress-algorithms = auto (advice_store.h) */
	CFG_K_ADVISE_INTERVAL = 1u << 24,
	CFG_K_ADVISE_SAMPLES = 1u << 25,
	CFG_K_CPU_SHARE_PRESSURE = 1u << 26,
	/* writeback to the backing device (a GNU C enum: the bits go past 31) */
	CFG_K_WB = 1ull << 27,
	CFG_K_WB_TYPES = 1ull << 28,
	CFG_K_WB_AGE = 1ull << 29,
	CFG_K_WB_DAY = 1ull << 30,
	CFG_K_WB_PASS = 1ull << 31,
	CFG_K_WB_BATCH = 1ull << 32,
	CFG_K_BACKING_DEV = 1ull << 33,
	CFG_K_COMPRESSED_WB = 1ull << 34,
	CFG_K_MAX_WRITE_MS = 1ull << 35,
	/* the backing file or encrypted backing device (`backing setup`, backing.h) */
	CFG_K_BACKING_FILE = 1ull << 36,
	CFG_K_BACKING_FILE_SIZE = 1ull << 37,
	CFG_K_BACKING_MIN_FREE = 1ull << 38,
	CFG_K_BACKING_ENC = 1ull << 39,
	/* a zstd dictionary before disksize (dict_apply.h) */
	CFG_K_DICT = 1ull << 40,
	/* the idle age after a burst of swap-out (policy.h, struct policy_dev) */
	CFG_K_BURST_AGE = 1ull << 41,
};

/*
 * A size given as bytes or as a share of a filesystem: backing-file-size (of its free
 * space), backing-file-min-free (of its size). percent 0: bytes counts.
 */
struct cfg_share {
	uint64_t bytes;
	uint32_t percent;
};

/* backing-encryption: auto is yes with backing-file, no with backing-device. */
enum backing_enc {
	BACKING_ENC_AUTO = 0,
	BACKING_ENC_YES = 1,
	BACKING_ENC_NO = 2,
};

/* One algorithm-params token as written: "NAME:level=N" (prio 0) or "P:level=N". */
struct cfg_param {
	unsigned prio; /* 1..CFG_MAX_ALGOS, or 0 = by algorithm name */
	char algo[CFG_ALGO_NAME_MAX];
	int level;
};

/*
 * zstd-dictionary: whether --once and adopt give a secondary zstd priority the device's
 * dictionary (algorithm_params dict=, before disksize; dict_apply.h finds the file).
 */
enum dict_use {
	DICT_USE_NO = 0,    /* never */
	DICT_USE_AUTO = 1,  /* where advise's prediction recommended it (the .pred file) */
	DICT_USE_PRIOS = 2, /* at dict_prios, whatever the prediction (the operator's choice) */
};
/* "yes": every secondary priority that holds zstd (bit 4 tells it from "1 2 3") */
#define DICT_PRIOS_ZSTD 0x1eu

/* Where a key was last set: file index in load order (0 = main file) and line; line 0 = never. */
struct cfg_origin {
	unsigned file;
	unsigned line;
};

/*
 * Largest writeback-batch-size: 6.19+ allocates a page (GFP_KERNEL: reclaim, then the OOM
 * killer) per request in flight, up to writeback_batch_size of them per writeback write,
 * and writeback runs when memory is short. 512 is 16 times the kernel's default of 32:
 * 2 MiB with 4 KiB pages (32 MiB with 64 KiB ones), far more requests than a disk's
 * queue needs to stay busy with 4 KiB writes.
 */
#define CFG_WB_BATCH_MAX 512

/*
 * The settings of one device. The fields of each key are adjacent: a [zramN] section that
 * sets the key replaces them as one block (key_defs in config.c).
 */
struct dev_config {
	/*
	 * recompress-algorithms: secondary list in priority order (index 0 = priority 1).
	 * "auto" sets algos_auto and leaves the fallback list "zstd" here; the setup path
	 * replaces it with the stored advice (advice_apply() in advice_store.h).
	 */
	unsigned n_algos;
	char algos[CFG_MAX_ALGOS][CFG_ALGO_NAME_MAX];
	bool algos_auto;
	/*
	 * algorithm-params: compression level per priority (index 0 = priority 1), resolved
	 * from "NAME:level=N" (every priority holding NAME) or "P:level=N" tokens.
	 */
	bool has_level[CFG_MAX_ALGOS];
	int level[CFG_MAX_ALGOS];
	/*
	 * The tokens as written, applied left to right. They are kept because a section may
	 * inherit them while overriding recompress-algorithms (names then resolve against the
	 * section's list); config_effective() resolves them into has_level/level.
	 */
	unsigned n_params;
	struct cfg_param params[CFG_MAX_PARAMS];
	/* passes: kernel recompress types, run in this order. */
	unsigned n_passes;
	enum pass_type passes[CFG_MAX_PASSES];
	uint32_t threshold_bytes;     /* 0 = no threshold= key */
	uint64_t max_pages_per_batch; /* >= 1 */
	uint64_t max_write_ms;	      /* one recompress write's time bound; 0 = fixed batches */
	uint64_t max_pages_per_pass;  /* 0 = unlimited */
	uint64_t idle_age_min_sec;
	uint64_t idle_age_max_sec;   /* 0 = mark "all" */
	uint64_t burst_idle_age_sec; /* after a burst, under memory pressure (0 = off) */
	enum compact_mode compact;

	/* Mostly the daemon's; key_defs in config.c says who reads each key. */
	uint64_t interval_sec;	    /* time between passes of a device */
	uint64_t backoff_max_sec;   /* a pass that saves nothing doubles the wait, up to this */
	unsigned priority[3];	    /* per pass type (enum pass_type index): 0 = all secondaries */
	uint64_t cold_idle_age_sec; /* cold tier: pages idle this long (0 = no cold tier) */
	unsigned cold_priority;	    /* ... recompressed with this priority */
	uint64_t pages_per_hour;    /* token bucket of recompress pages; 0 = unlimited */
	uint64_t cpu_share_max_percent;	     /* kernel-write time over wall time (window 600 s) */
	uint64_t cpu_share_pressure_percent; /* ... rising to this under full memory pressure */
	uint64_t psi_cpu_max_percent; /* PSI cpu some avg10 above this defers a pass; 0 off */
	uint64_t memory_stall_us; /* PSI memory trigger: stall per 1 s bringing a pass forward */
	bool defer_on_battery;
	uint64_t battery_psi_memory_percent; /* ... unless PSI memory some avg10 is above this */
	uint64_t compact_fragmentation_percent;
	uint64_t compact_min_saved_bytes; /* auto also compacts when a pass saved this; 0 off */
	/* Advice refresh for recompress-algorithms = auto (daemon and --once). */
	uint64_t advise_interval_sec; /* at most once per this many seconds; 0 = never */
	uint64_t advise_samples;      /* slots read per refresh */

	/* Writeback to the backing device, after the recompression steps of a pass. */
	bool writeback;
	unsigned n_wb_types;
	enum wb_type wb_types[WB_NR_TYPES]; /* writeback-types: the steps, in order */
	uint64_t wb_idle_age_sec;	    /* idle mark of the idle and huge_idle modes; 0 = all */
	uint64_t wb_bytes_per_day;	    /* rolling 24 h budget (state file) */
	uint64_t wb_bytes_per_pass;
	uint64_t wb_batch_size; /* writeback_batch_size (6.19+); 0 = kernel default */
	/* Uninitialized devices only, before disksize (never replaces a backing_dev set). */
	char backing_device[CFG_PATH_MAX]; /* "" = none */
	bool compressed_writeback;	   /* 7.0+ */
	/*
	 * A file zram-recompd creates, allocates and attaches through a loop device (and
	 * dm-crypt) as the backing device: [zramN] only, never with backing_device.
	 */
	char backing_file[CFG_PATH_MAX];    /* "" = none */
	struct cfg_share backing_file_size; /* bytes, or percent of the free space */
	struct cfg_share backing_min_free;  /* bytes, or percent of the filesystem's size */
	enum backing_enc backing_encryption;
	/* zstd-dictionary: no, auto, yes (every zstd secondary) or a list of priorities */
	enum dict_use dict_use;
	unsigned dict_prios; /* DICT_USE_PRIOS: bit p = priority p (1..3) */

	uint64_t set;	    /* enum cfg_key bits */
	uint64_t with_unit; /* ... whose value was written with a unit (64M, 4h): shown so */
	/* Indexed by bit number of enum cfg_key; for errors found after all files are read. */
	struct cfg_origin origin[CFG_N_KEYS];
};

/* Whether d's backing device is wrapped in dm-crypt (backing-encryption, auto by kind). */
static inline bool config_backing_encrypted(const struct dev_config *d)
{
	return d->backing_encryption == BACKING_ENC_YES ||
	       (d->backing_encryption == BACKING_ENC_AUTO && d->backing_file[0]);
}

/*
 * Whether d's backing device is made by `zram-recompd backing setup` (a loop device over
 * backing-file, or dm-crypt over either) rather than written to backing_dev as it is.
 */
static inline bool config_backing_by_setup(const struct dev_config *d)
{
	return d->backing_file[0] || (d->backing_device[0] && config_backing_encrypted(d));
}

struct dev_section {
	unsigned id;		  /* N of [zramN] */
	struct cfg_origin origin; /* the header line of the first [zramN] that set a key */
	struct dev_config cfg;
};

/* The [global]-only keys, indexing config.global_origin[]. */
enum cfg_global_key {
	CFG_G_DEVICES,
	CFG_G_METRICS_FILE,
	CFG_G_SANDBOX,
	CFG_N_GLOBAL_KEYS,
};

/*
 * A configuration owns its sections and device list (any number of each, no device cap):
 * config_free() when done, config_copy() for a second one; a plain struct copy shares them.
 */
struct config {
	struct dev_config global;
	unsigned n_sections, cap_sections;
	struct dev_section *sections; /* in the order first seen */
	/* metrics-file = PATH: Prometheus textfile, [global] only; "" = none. */
	char metrics_file[256];
	/* sandbox = yes|no: Landlock self-restriction of writes (sandbox.h), [global] only. */
	bool sandbox;
	/* devices = all | zramN ...: which devices to manage. */
	bool devices_all;
	unsigned n_devices;
	unsigned *devices; /* n_devices ids, as listed */
	/* Where each [global]-only key was last set (line 0 = never). */
	struct cfg_origin global_origin[CFG_N_GLOBAL_KEYS];
};

struct config_errors {
	unsigned n;		       /* errors stored (at most CFG_MAX_ERRORS) */
	unsigned dropped;	       /* further errors not stored */
	char msg[CFG_MAX_ERRORS][512]; /* "FILE:LINE: message" */
	/* A key or section repeated in one file: loaded (the later value wins, as in systemd),
	 * but said: "FILE:LINE: warning: ..." naming the earlier line. */
	unsigned n_warn;
	char warn[CFG_MAX_WARNINGS][512];
};

/*
 * Compiled-in defaults (the values etc/zram-recompd.conf shows commented out). c owns nothing
 * before (what it held is not freed: config_free() it first) nor after.
 */
void config_init(struct config *c);

/* Free what c owns (sections, device list); c is then empty but for its global keys. */
void config_free(struct config *c);

/* dst: a copy of src that owns its own sections and list (dst owns nothing before). -ENOMEM. */
int config_copy(struct config *dst, const struct config *src);

/* c's sections by device number (free the array), or NULL without memory. */
const struct dev_section **config_sorted_sections(const struct config *c);

#define CFG_FILE_NAME "zram-recompd.conf"
#define CFG_DROPIN_DIR CFG_FILE_NAME ".d"
#define CFG_MAX_DIRS 5 /* SYSCONFDIR (when not /etc), /etc, /run, /usr/local/lib, /usr/lib */

/*
 * Where the configuration comes from: one file given on the command line, or the search
 * path. On the search path, CFG_FILE_NAME is read from the first directory that has one and
 * the *.conf files of CFG_DROPIN_DIR/ in all of them are merged by name (strcmp order); of
 * the same name only the one in the earliest directory counts. A link to /dev/null or an
 * empty file masks its name (nothing read from it, the later ones of that name are not
 * read either), as systemd's daemons do (systemd.unit(5), "drop-in"). A symlink that does
 * not resolve is ignored (systemd's conf-files logic drops it): it hides nothing.
 */
struct config_source {
	const char *file; /* --config FILE: only this file (no drop-ins); NULL: the search path */
	unsigned n_dirs;
	char dirs[CFG_MAX_DIRS][PATH_MAX]; /* earliest first */
};

/*
 * The search path under root (NULL or "" for /; the tests' fake trees): SYSCONFDIR first
 * when the build set another one than /etc (make install puts the file there), then /etc,
 * /run, /usr/local/lib, /usr/lib. Returns 0 or -ENAMETOOLONG.
 */
int config_source_search(struct config_source *src, const char *root);

/* What a load did with each file it found, in the order it considered them. */
enum config_file_state {
	CFG_FILE_READ,	     /* parsed */
	CFG_FILE_MASKED,     /* a link to /dev/null or an empty file: masks its name */
	CFG_FILE_OVERRIDDEN, /* not read: the same name in an earlier directory counts */
	CFG_FILE_DANGLING,   /* a symlink that does not resolve: ignored, hides nothing */
	CFG_FILE_NOT_FILE,   /* a drop-in directory's *.conf that is a directory, FIFO, ...: ignored */
	CFG_FILE_NOT_CONF,   /* a drop-in directory's entry not named *.conf: ignored */
};

struct config_file {
	char *path;
	enum config_file_state state;
	unsigned file; /* CFG_FILE_READ: its index in struct cfg_origin.file */
};

struct config_files {
	unsigned n;
	struct config_file *v;
};

void config_files_free(struct config_files *f);

/*
 * One line per file, "PREFIXread PATH" (or masked, overridden), in the order they were
 * considered; "PREFIXno configuration file: built-in defaults" when there was none.
 */
void config_files_print(const struct config_files *files, const char *prefix, FILE *f);

/*
 * Reset c to the defaults (config_init: c owns nothing before), then load what src
 * names. The search path: the main file (a missing one is not an error), then the
 * drop-ins; files there are opened without
 * following symlinks (only regular files are read; a symlink other than one to /dev/null
 * is an error naming it; other non-regular drop-in entries are skipped). src->file must
 * exist (-ENOENT, recorded) and may be a symlink. Cross-key checks (algorithm-params
 * names, idle-age-min <= idle-age-max) run once after the last file. files, when not
 * NULL, gets the files found (free with config_files_free, also after an error). errs is
 * cleared first and may be NULL. Returns 0, -EINVAL when any error was recorded in errs (c
 * then holds what parsed), or -errno when a file exists but cannot be read (also recorded).
 */
int config_load(struct config *c, const struct config_source *src, struct config_files *files,
		struct config_errors *errs);

/*
 * Parse one file into c on top of what c holds (no reset; call config_init first), then
 * run the cross-key checks. For single-file use and tests. errs is cleared first and may
 * be NULL. Same return convention; a missing file is an error here (-ENOENT, recorded).
 */
int config_load_file(struct config *c, const char *path, struct config_errors *errs);

/* Effective settings for device id: global overridden by the keys its section set. */
void config_effective(const struct config *c, unsigned id, struct dev_config *ret);

/* Whether device id is to be managed (devices = all, or listed). */
bool config_device_selected(const struct config *c, unsigned id);

const char *compact_mode_name(enum compact_mode m);

/* Print the effective configuration as a valid config file (--print-config). */
void config_print(const struct config *c, FILE *f);

/*
 * What reads a key when it runs: the daemon, --once, `backing setup` (status and
 * --check-config read every key). zram-recompd.conf(5) and etc/zram-recompd.conf say the
 * same for each key; tests/unit/test_doc_keys.c compares the three.
 */
enum cfg_reader {
	CFG_READ_DAEMON = 1u << 0,
	CFG_READ_ONCE = 1u << 1,
	CFG_READ_SETUP = 1u << 2,
};

/* Key i of the table (table order): its name, default as a file gives it, and readers
 * (enum cfg_reader bits). false past the last key. */
bool config_key_info(size_t i, const char **name, const char **def, unsigned *readers);

#endif
