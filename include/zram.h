/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef ZRAM_RECOMPD_ZRAM_H
#define ZRAM_RECOMPD_ZRAM_H

/*
 * The zram device model: parsers for the attribute formats, the capability table keyed
 * on files present plus kernel version, and validated command builders. Only strings
 * built here are ever written to the kernel (the kernel accepts typos silently:
 * "type=idel" recompresses every slot). No logging; -errno returns.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "write_cost.h"

#define ZRAM_NAME_MAX 16
#define ZRAM_ALGO_MAX 32
#define ZRAM_MAX_AVAIL 16
#define ZRAM_MAX_PRIO 3 /* secondary priorities 1..3 (ZRAM_MAX_COMPS 4 incl. primary) */
/* Longest command zram_write() takes (without the newline it adds): a writeback by index
 * holds up to 1 KiB of page_indexes= keys, well below the PAGE_SIZE of a sysfs store. */
#define ZRAM_CMD_MAX 1024u
/*
 * A zram slot is one page of the kernel's PAGE_SIZE (4 KiB on x86-64, 16 KiB on the
 * Raspberry Pi 5's arm64 kernel, 64 KiB on some arm64 and ppc64el builds): disksize /
 * PAGE_SIZE slots, max_pages= and block_state's indexes count them, huge_class_size is
 * below it, and mm_stat's same_pages, pages_compacted, huge_pages and huge_pages_since
 * count such pages (the other mm_stat fields are bytes). A device carries its page size
 * (struct zram_dev page_size, zram_read_page_size()); nothing here assumes 4 KiB.
 */
#define ZRAM_PAGE_SIZE_MIN 4096u
#define ZRAM_PAGE_SIZE_MAX 65536u
/*
 * writeback_limit and bd_stat count 4 KiB units whatever PAGE_SIZE: 6.2-7.3
 * drivers/block/zram/zram_drv.c print bd_stat through FOUR_K() (count << (PAGE_SHIFT - 12))
 * and take 1 << (PAGE_SHIFT - 12) off bd_wb_limit per page written back. <= 6.18 a limit
 * that is not a multiple of PAGE_SIZE / 4096 wraps (6.19+ rounds it down): the limit
 * written here is always whole pages. io_stat counts requests and slots, no size.
 */
#define ZRAM_WB_UNIT 4096u

/* The recompress type= values zram-recompd uses; a pass runs one of them. */
enum pass_type {
	PASS_HUGE_IDLE = 0, /* kernel "huge_idle" */
	PASS_IDLE = 1,	    /* kernel "idle" */
	PASS_HUGE = 2,	    /* kernel "huge" */
};
#define PASS_NR_TYPES 3

/* Kernel name of a pass type ("huge_idle", "idle", "huge"); "unknown" out of range. */
const char *pass_type_name(enum pass_type t);

/* The writeback modes (every version 6.2+ has all four; 6.16+ spells them type=NAME). */
enum wb_type {
	WB_INCOMPRESSIBLE = 0, /* slots recompression gave up on ('n') */
	WB_HUGE = 1,	       /* slots stored uncompressed ('h') */
	WB_HUGE_IDLE = 2,      /* ... and marked idle */
	WB_IDLE = 3,	       /* every slot marked idle */
};
#define WB_NR_TYPES 4

/* Kernel name of a writeback mode; "unknown" out of range. */
const char *wb_type_name(enum wb_type t);
/* Whether the mode selects by the idle mark (an idle write comes first). */
bool wb_type_idle(enum wb_type t);

struct kver {
	unsigned major, minor, sub;
};

/* Parse "6.12.118-amd64", "7.0", "6.15.0-rc3+" (sub defaults to 0). -EINVAL otherwise. */
int kver_parse(const char *s, struct kver *ret);
/* v >= major.minor.sub */
bool kver_ge(const struct kver *v, unsigned major, unsigned minor, unsigned sub);

enum mm_field {
	MM_ORIG_DATA_SIZE,
	MM_COMPR_DATA_SIZE,
	MM_MEM_USED_TOTAL,
	MM_MEM_LIMIT,
	MM_MEM_USED_MAX,
	MM_SAME_PAGES,
	MM_PAGES_COMPACTED,
	MM_HUGE_PAGES,
	MM_HUGE_PAGES_SINCE,
	MM_NR_FIELDS,
};

struct zram_mm_stat {
	uint64_t v[MM_NR_FIELDS];
	unsigned nfields; /* fields present in the kernel's line (older kernels print fewer) */
};

const char *mm_field_name(enum mm_field f);
/*
 * Parsers take the bytes read and their count, never a C string: NUL bytes count as
 * whitespace (6.17+ pads recomp_algorithm with them), as do missing or extra newlines.
 */

/* Whitespace-separated, never fixed columns; 3..9+ fields accepted (extra ignored). */
int zram_parse_mm_stat(const char *s, size_t len, struct zram_mm_stat *ret);

/* comp_algorithm: "lzo-rle lzo lz4 [zstd] deflate \n" */
struct zram_algo_list {
	unsigned n;
	int selected; /* index into name[], -1 when none is bracketed */
	char name[ZRAM_MAX_AVAIL][ZRAM_ALGO_MAX];
};
int zram_parse_algo_list(const char *line, size_t len, struct zram_algo_list *ret);
bool zram_algo_list_has(const struct zram_algo_list *l, const char *name);

/*
 * recomp_algorithm listing, one record per configured priority: "#1: lzo lz4 [zstd] \n".
 * 6.17+ (through 7.3.4 at least) puts NUL runs between and after the records
 * ("#1: … \n\0\0\0\0#2: … \n\0…"): they are separators. Empty text = nothing
 * configured. Records must be "#P: " with P in 1..3, strictly increasing, each with
 * exactly one bracketed name; anything else is -EINVAL.
 */
struct zram_recomp {
	char name[ZRAM_MAX_PRIO + 1][ZRAM_ALGO_MAX]; /* [1..3]; [0] unused */
	bool set[ZRAM_MAX_PRIO + 1];
	unsigned count;	  /* priorities that have a name */
	unsigned highest; /* highest priority with a name, 0 when none */
	bool gap; /* gap below highest: 6.15+ would mark every scanned slot incompressible */
	struct zram_algo_list avail; /* the list shown on the first line */
};
int zram_parse_recomp_listing(const char *s, size_t len, struct zram_recomp *ret);
/* Priority holding name, searching upwards from 1 like the kernel's algo= lookup; 0 if none. */
unsigned zram_recomp_find(const struct zram_recomp *r, const char *name);

/* Tri-state for capabilities that can only be known by trying. */
enum tri { TRI_NO = 0, TRI_YES = 1, TRI_UNKNOWN = -1 };

struct zram_caps {
	bool multi_comp; /* recomp_algorithm + recompress exist (CONFIG_ZRAM_MULTI_COMP, 6.2+) */
	bool max_pages;	 /* recompress max_pages= (6.10+) */
	bool priority;	 /* recompress priority= (6.12+) */
	bool algorithm_params; /* algorithm_params attribute (6.12+) */
	enum tri idle_age;   /* "echo N > idle" (TRACK_ENTRY_ACTIME 6.8+, MEMORY_TRACKING before) */
	bool block_state;    /* debugfs block_state readable (MEMORY_TRACKING + DEBUG_FS) */
	int block_state_err; /* !block_state: why, -errno (-EACCES: debugfs is root's only) */
	bool eagain;	     /* concurrent recompress/writeback gets -EAGAIN (6.12.y, 6.13-6.19) */
	bool prio_max_active;	 /* 6.15+: prio_max = number of active algorithms */
	bool writeback;		 /* CONFIG_ZRAM_WRITEBACK */
	bool threshold_pagesize; /* 6.2-6.4: threshold bound is PAGE_SIZE, not huge_class_size */
	bool clears_idle;	 /* recompress clears IDLE of every page it tries (6.12.y, 6.13+) */
	bool walk_all;	  /* 6.13+: each recompress write scans every slot, whatever max_pages */
	bool blocking_pp; /* 7.0+: recompress/writeback hold the device lock exclusively:
			   * a second one and every lock-taking read (mm_stat ...) wait */
	bool single_prio; /* 7.1+: one priority per write (1 without priority=/algo=),
			   * 'n' only at the highest, unknown type= is -EINVAL */
	bool params_busy; /* algorithm_params after disksize is -EBUSY (7.0.10+, 7.1+) */
	bool params_reset_on_algo; /* 7.3+: an algorithm write resets that priority's params */
	bool wb_type_key;	   /* 6.16+: writeback takes "type=MODE" (before: the bare word) */
	bool wb_batch_size;	   /* writeback_batch_size exists (6.19+) */
	bool compressed_wb;	   /* compressed_writeback exists (7.0+) */
};

/*
 * What a pass learnt that the next pass of the daemon can use (--once starts empty). Where
 * the kernel does not mark the pages every priority failed on (6.12-6.14 with several
 * secondaries, and any chain ending below the highest priority), they would be decompressed
 * and tried again at every pass. As long as nothing was written to the device (write_sig),
 * no page changed, so a chain whose candidates are no more than those it left is skipped.
 */
struct zram_memo {
	uint64_t write_sig;	      /* zram_read_write_sig() when it was recorded */
	bool valid[PASS_NR_TYPES];    /* per enum pass_type */
	uint64_t left[PASS_NR_TYPES]; /* candidates the whole chain tried and left as they were */
};

/*
 * What the daemon's passes learn of a device, kept from pass to pass while the device keeps
 * its setup (one struct, so that a re-probe carries all of it over); --once starts empty.
 */
struct zram_learnt {
	struct zram_memo memo;
	/* the daemon's huge step: passes it waits, and the wait it was last given
	 * (policy_huge_wait) */
	unsigned huge_wait_left, huge_wait;
	/*
	 * The kernel's cost per page as learnt from this device's recompress writes, per type
	 * and priority (index 0: no priority= key), for max-write-ms (write_cost.h).
	 */
	struct write_cost wcost[PASS_NR_TYPES][ZRAM_MAX_PRIO + 1];
	/* the "idle writeback needs block_state" notice was logged (once per device) */
	bool wb_no_ages_logged;
	/* the "backing_dev is already ...; backing-device not applied" notice was logged */
	bool backing_noted;
};

struct zram_dev {
	unsigned id;
	char name[ZRAM_NAME_MAX];
	bool initialized;
	uint64_t disksize;
	uint32_t page_size;	    /* the kernel's PAGE_SIZE (zram_read_page_size) */
	struct zram_algo_list comp; /* comp_algorithm; comp.selected is the primary */
	struct zram_recomp recomp;  /* the kernel's secondary list (the user-space mirror) */
	struct zram_mm_stat mm;
	struct zram_caps caps;
	/* io_stat: failed_reads failed_writes invalid_io notify_free (6.4+: column 3 is 0) */
	bool has_io_stat;
	uint64_t io_stat[4];
	/* bd_stat (CONFIG_ZRAM_WRITEBACK): bd_count bd_reads bd_writes, as the kernel prints
	 * them: in ZRAM_WB_UNIT (4 KiB) units, not pages (zram_units_to_pages) */
	bool has_bd_stat;
	uint64_t bd_stat[3];
	/* backing_dev (CONFIG_ZRAM_WRITEBACK): the path, "" for the kernel's "none" */
	char backing_dev[128];
	/* What passes learnt of this device: kept while it keeps its setup (refresh_dev). */
	struct zram_learnt learnt;
};

/*
 * A counter that grows with every change of the device's contents: block-layer write and
 * discard requests (sys/block/zramN/stat, fields 5 and 12) plus freed slots (io_stat
 * notify_free). None of these files takes zram's device lock. -ENOENT without them.
 */
int zram_read_write_sig(int root_fd, unsigned id, uint64_t *ret);

/*
 * Sectors (512 bytes) read from the device since it was set up (sys/block/zramN/stat,
 * field 3): swap-ins on a swap device. Lock-free like the write signature.
 */
int zram_read_sectors_read(int root_fd, unsigned id, uint64_t *ret);

/* The first n whitespace-separated decimal fields (io_stat, bd_stat); later columns that a
 * newer kernel may add are ignored. */
int zram_parse_fields(const char *s, size_t len, uint64_t *ret, unsigned n);

/* Primary algorithm name ("" when unknown). */
const char *zram_primary(const struct zram_dev *d);

/*
 * Capabilities from files present plus kernel version. config_idle_age is what the
 * kernel config says about TRACK_ENTRY_ACTIME (TRI_UNKNOWN when no config is readable).
 */
void zram_caps_derive(struct zram_caps *ret, const struct kver *kv, bool has_recomp_files,
		      bool has_algorithm_params, bool has_block_state, bool has_writeback,
		      enum tri config_idle_age);

/*
 * The kernel's recompression semantics where they matter to a user, one sentence each
 * ("one priority per write (7.1+)", "concurrent passes block (7.0+)"). Returns the count.
 */
unsigned zram_caps_semantics(const struct zram_caps *c, char out[][256], unsigned max);

/*
 * Explain each missing capability in one sentence (which option or version). Returns the
 * number of lines written into out[max].
 */
unsigned zram_caps_explain(const struct zram_caps *c, const struct kver *kv, char out[][256],
			   unsigned max);

/*
 * Read everything about zramN under root_fd. -ENODEV when the device is gone; on other
 * errors *ret_attr names the attribute that could not be read or parsed.
 */
int zram_probe(int root_fd, const struct kver *kv, enum tri config_idle_age, unsigned id,
	       struct zram_dev *ret, const char **ret_attr);
int zram_read_mm_stat(int root_fd, unsigned id, struct zram_mm_stat *ret);
int zram_read_initstate(int root_fd, unsigned id, bool *ret);

/* bd_stat column 3, bd_writes, in pages of d's page size (CONFIG_ZRAM_WRITEBACK). */
int zram_read_bd_writes(int root_fd, const struct zram_dev *d, uint64_t *ret_pages);
/* bd_stat: bd_count bd_reads bd_writes (ZRAM_WB_UNIT units); -ENOENT without
 * CONFIG_ZRAM_WRITEBACK. */
int zram_read_bd_stat(int root_fd, unsigned id, uint64_t ret[3]);
/* disksize in bytes. */
int zram_read_disksize(int root_fd, unsigned id, uint64_t *ret);
/* comp_algorithm, read and parsed (zram_parse_algo_list). */
int zram_read_comp_algorithm(int root_fd, unsigned id, struct zram_algo_list *ret);
/* recomp_algorithm, read and parsed; -ENOENT without CONFIG_ZRAM_MULTI_COMP. */
int zram_read_recomp_algorithm(int root_fd, unsigned id, struct zram_recomp *ret);

/*
 * The stored pages themselves, through /dev/zramN (root_fd-relative dev/zramN). Reading a
 * slot marks it accessed: its idle mark is cleared, so readahead is switched off (the
 * neighbours would lose theirs too) and only the slots asked for are read.
 */
int zram_open_slots(int root_fd, unsigned id, int *ret_fd);
/*
 * Slot slot's page_size bytes into page; the page cache keeps no copy (it would cost the
 * memory that recompression saves). Returns the bytes read, fewer than page_size past the
 * end of the device, or -errno (-EINVAL for an invalid page_size or offset).
 */
ssize_t zram_read_slot(int fd, uint64_t slot, uint32_t page_size, void *page);

/* A power of two from ZRAM_PAGE_SIZE_MIN to ZRAM_PAGE_SIZE_MAX. */
bool zram_page_size_valid(uint64_t page_size);
/*
 * The kernel's PAGE_SIZE as zramN shows it: queue/physical_block_size, which zram sets to
 * PAGE_SIZE (6.2-7.3 zram_drv.c, zram_add(): physical_block_size, io_min and io_opt are
 * PAGE_SIZE; logical_block_size is its fixed 4 KiB ZRAM_LOGICAL_BLOCK_SIZE). Read relative
 * to root_fd, so a fake root chooses it. Without the file (a fake root that has none; every
 * kernel with zram has it) the page size of the kernel this process runs on, which is the
 * one whose zram it drives. -EINVAL for a value zram_page_size_valid() refuses.
 */
int zram_read_page_size(int root_fd, unsigned id, uint32_t *ret);
/* The running kernel's page size (sysconf(_SC_PAGESIZE), the AT_PAGESZ it passed us). */
uint32_t zram_host_page_size(void);

/* ZRAM_WB_UNIT units per page of d (1 for 4 KiB pages, 4 for 16 KiB). */
static inline uint64_t zram_units_per_page(const struct zram_dev *d)
{
	return d->page_size > ZRAM_WB_UNIT ? d->page_size / ZRAM_WB_UNIT : 1;
}
/* writeback_limit or bd_stat units as whole pages of d (rounded down). */
static inline uint64_t zram_units_to_pages(const struct zram_dev *d, uint64_t units)
{
	return units / zram_units_per_page(d);
}

/* ---- command builders (src/kernel/zram_cmd.c): validate, then format; the only strings ever
 * written ---- */

struct recompress_cmd {
	enum pass_type type;
	uint32_t threshold; /* bytes; 0 = no threshold= key */
	uint64_t max_pages; /* 0 = no max_pages= key (unbounded) */
	const char *algo;   /* NULL = no algo= key */
	unsigned priority;  /* 0 = no priority= key */
};

/*
 * recompress command for device d. -EOPNOTSUPP: no MULTI_COMP, or a key the kernel
 * would silently ignore (max_pages < 6.10, priority < 6.12); -EINVAL: invalid value
 * (unknown type, threshold >= d's page size, algo not in the mirror list, priority out of
 * range or empty); -ENOBUFS: buffer too small.
 */
int zram_build_recompress(const struct zram_dev *d, const struct recompress_cmd *c, char *buf,
			  size_t size);
/* "algo=NAME priority=P" (P 1..3; NAME a plausible kernel name, and in comp list when known). */
int zram_build_recomp_algorithm(const struct zram_dev *d, const char *name, unsigned prio,
				char *buf, size_t size);
/*
 * Level range a backend accepts (7.3 checks them at disksize): 0, -EOPNOTSUPP for
 * backends without levels (lzo, lzo-rle, 842), -ENOENT for names not known here.
 */
int zram_level_range(const char *algo, int *ret_min, int *ret_max);

/*
 * "priority=P level=L" (6.12+, uninitialized devices only). When P holds a name the
 * level is checked against its backend: -ERANGE out of range, -EOPNOTSUPP no levels.
 */
int zram_build_algorithm_params(const struct zram_dev *d, unsigned prio, int level, char *buf,
				size_t size);
/*
 * The same with an optional level and an optional dict=PATH (6.12+ zstd backend; the file
 * is read when the key is written): "priority=P[ level=L][ dict=PATH]". A dictionary only
 * where priority P holds zstd (-EOPNOTSUPP otherwise: 7.3 refuses dict= for deflate, lzo,
 * lzo-rle and 842 at disksize) and only a path zram_dict_path_valid() accepts (-EINVAL).
 * Neither level nor dictionary: -EINVAL.
 */
#define ZRAM_DICT_PATH_MAX 256
bool zram_dict_path_valid(const char *path);
int zram_build_algorithm_params_dict(const struct zram_dev *d, unsigned prio, bool has_level,
				     int level, const char *dict, char *buf, size_t size);
/*
 * writeback: "type=MODE" on 6.16+, the bare mode word before (6.2-6.15 compare the whole
 * buffer). -EOPNOTSUPP without CONFIG_ZRAM_WRITEBACK, -ENODEV without a backing device,
 * -EINVAL for an unknown mode.
 */
int zram_build_writeback(const struct zram_dev *d, enum wb_type t, char *buf, size_t size);
/* An inclusive range of slot indexes. */
struct wb_range {
	uint64_t lo, hi;
};
/*
 * writeback by slot index, from ranges r[0..n) (ordered, disjoint), continuing at *pos and
 * *off (the slots of r[*pos] already done), both advanced past what the command holds.
 * 6.16+: as many "page_indexes=LO-HI" (or "page_index=N" for one slot) keys as fit in size,
 * space-separated (these select every allocated slot in range, no IDLE/HUGE filter); 6.2-6.15:
 * one "page_index=N" (the whole buffer is one key). Every index is checked against the
 * device's slots (disksize); a range that is empty, inverted, out of order or past the end
 * is -ERANGE. -ENOENT when nothing is left.
 */
int zram_build_writeback_index(const struct zram_dev *d, const struct wb_range *r, size_t n,
			       size_t *pos, uint64_t *off, char *buf, size_t size);
/*
 * writeback_limit for pages of d: written in the kernel's ZRAM_WB_UNIT units (pages x
 * PAGE_SIZE / 4096, saturating; u64 base 10), so always a whole number of pages.
 */
int zram_build_writeback_limit(const struct zram_dev *d, uint64_t pages, char *buf, size_t size);
/* writeback_batch_size (6.19+): 1..UINT32_MAX; -EOPNOTSUPP without the attribute. */
int zram_build_writeback_batch_size(const struct zram_dev *d, uint64_t n, char *buf, size_t size);
/*
 * backing_dev and compressed_writeback, before disksize only (-EBUSY once initialized):
 * a plain path under /dev/ (zram_blockdev_path_valid); "1" or "0" (7.0+).
 */
int zram_build_backing_dev(const struct zram_dev *d, const char *path, char *buf, size_t size);
int zram_build_compressed_writeback(const struct zram_dev *d, bool on, char *buf, size_t size);
/* A path under /dev/ of [A-Za-z0-9/_.:+-], no empty, "." or ".." component, < 128 bytes. */
bool zram_blockdev_path_valid(const char *path);
/* backing_dev read back: the path, or "" when the kernel says "none". */
int zram_parse_backing_dev(const char *s, size_t len, char *ret, size_t size);
/* writeback_limit: the whole pages of d left (the kernel's 4 KiB units, rounded down). */
int zram_read_writeback_limit(int root_fd, const struct zram_dev *d, uint64_t *ret_pages);

/* "all" for age 0, else the age in decimal (never a leading zero: the kernel parses base 0). */
int zram_build_idle(const struct zram_dev *d, uint64_t age_sec, char *buf, size_t size);

/* Plausible kernel compressor name: [a-z0-9-], 1..31 chars. */
bool zram_algo_name_valid(const char *name);

/*
 * Write a built command to sys/block/zramN/<attr> (a '\n' is appended, as echo(1)
 * does; the kernel strips it). Allowlisted attributes only (sysfs.h).
 */
int zram_write(int root_fd, unsigned id, const char *attr, const char *cmd);

#endif
