/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef ZRAM_RECOMPD_CONFIG_CHECK_H
#define ZRAM_RECOMPD_CONFIG_CHECK_H

/*
 * What --check-config adds to loading (config.h): the checks that know the compression
 * backends and this machine. Errors are settings that cannot work anywhere (an algorithm
 * name no zram backend has, a level its backend refuses); warnings are settings that cannot
 * take effect on this machine or as written (a name this kernel does not offer, no
 * CONFIG_ZRAM_MULTI_COMP, writeback without a backing device, a priority above the
 * secondaries, a device that does not exist ...). A default is never an error. Each names
 * FILE:LINE and the key. Also the one-line notes the daemon and --once log at run time for the same
 * cases. Nothing here logs.
 */

#include "config.h"

#include <stdbool.h>
#include <stdio.h>

/* One device present under the root, as far as the checks need it. */
struct check_dev {
	unsigned id;
	bool probed;	  /* the fields below were read */
	bool initialized; /* disksize set: its secondaries are fixed until a reset */
	bool writeback;	  /* CONFIG_ZRAM_WRITEBACK */
	bool backing;	  /* a backing device is set */
	bool priority;	  /* recompress priority= (6.12+) */
	bool multi_comp;  /* CONFIG_ZRAM_MULTI_COMP: it has recomp_algorithm */
	unsigned n_secondaries;
	struct zram_recomp recomp;   /* its secondaries */
	char primary[ZRAM_ALGO_MAX]; /* its comp_algorithm's selected name, or "" */
};

struct check_machine {
	bool known; /* the root lists at least one zram device */
	unsigned n;
	struct check_dev *devs;	     /* ascending ids */
	bool have_avail;	     /* avail holds a probed device's comp_algorithm */
	unsigned no_multi_comp;	     /* a probed device without recomp_algorithm: its id + 1 */
	struct zram_algo_list avail; /* the backends this kernel offers */
	bool have_caps;		     /* caps, page_size and release are a probed device's */
	struct zram_caps caps;	     /* what this kernel's zram offers */
	uint32_t page_size;	     /* the kernel's PAGE_SIZE */
	char release[128];	     /* the kernel's release */
	struct kver kv;		     /* the same, parsed */
	int metrics_dir;	     /* the metrics-file's directory: 1 there, 0 not looked at,
				      * -errno when it cannot be opened under the root */
};

/*
 * The zram devices under root_fd (sys/block) and what the checks need of each. A device
 * that cannot be read is listed, not probed. Returns 0 (m->known false when there is no
 * device), or -errno when the root cannot be read (m then knows nothing). Free with
 * config_check_machine_free().
 */
int config_check_machine_read(int root_fd, struct check_machine *m);
void config_check_machine_free(struct check_machine *m);

/*
 * The checks of configuration c (loaded without errors). paths[i] names file index i of
 * struct cfg_origin (n_paths of them). m may be NULL (nothing known of the machine).
 * Errors go to errs, warnings to warns, both "FILE:LINE: ..." (cleared first).
 */
void config_check(const struct config *c, const char *const *paths, unsigned n_paths,
		  const struct check_machine *m, struct config_errors *errs,
		  struct config_errors *warns);

/*
 * --check-config after a load without errors: the checks against the machine under sysroot
 * (NULL: /), errors and warnings to err, a closing line to out ("configuration OK" or
 * "configuration OK, N warnings", N counting also the load's load_warnings, printed by the
 * caller; a note when no device could be looked at). Returns 0 when
 * there is no error (warnings do not count), -EINVAL otherwise.
 */
int config_check_print(const struct config *c, const struct config_files *files,
		       const char *sysroot, unsigned load_warnings, FILE *out, FILE *err);

/*
 * The daemon (at start and reload) and --once: the errors --check-config reports for
 * recompress-algorithms and algorithm-params (a name no zram backend has, a level its
 * backend refuses; a name this kernel lacks is a warning there, not here), as
 * "FILE:LINE: key '...': ..." into errs (cleared first). files: what config_load read
 * (NULL: paths unknown); root_fd: the root whose zram devices tell this kernel's backends
 * (-1: none). Returns how many errors.
 */
unsigned config_check_algos(const struct config *c, const struct config_files *files, int root_fd,
			    struct config_errors *errs);

/*
 * The daemon (at start and reload): the settings --check-config warns cannot take effect on
 * this kernel (config_check_effect.c), as "FILE:LINE: key '...': ..." into warns (cleared
 * first), except what the daemon says per device as it runs (a priority before 6.12) and
 * metrics-file's (the daemon does not know whether it runs with PrivateTmp=; a failed write
 * says so). Returns how many.
 */
unsigned config_check_effect(const struct config *c, const struct config_files *files, int root_fd,
			     struct config_errors *warns);
/* --once: the same, each error a line on err as a load error is printed. */
unsigned config_check_algos_print(const struct config *c, const struct config_files *files,
				  int root_fd, FILE *err);

/*
 * Run time: the priority keys of d a device with n_secondaries secondary algorithms cannot
 * honour (priority= needs 6.12: priority_supported). One sentence into buf ("" when none);
 * returns how many keys.
 */
unsigned config_priority_note(const struct dev_config *d, unsigned n_secondaries,
			      bool priority_supported, char *buf, size_t size);

/*
 * Run time: the devices c names (devices = zramN ..., [zramN] sections of selected devices)
 * that are not among present[0 .. n - 1], as "zram5 (devices), zram99 ([zram99])" into buf;
 * returns how many.
 */
unsigned config_absent_note(const struct config *c, const unsigned *present, unsigned n, char *buf,
			    size_t size);

/*
 * Run time, status and --check-config: device dev, set up (its secondaries stay until a
 * reset), runs the secondaries have instead of the ones cfg asks for. One sentence into buf,
 * without the device's name in front, naming both lists and the command that applies the
 * configured one ("" and false when they agree; when there is nothing to compare: auto, an
 * empty list, a device without secondaries, which reach.h reports; or when cfg's list could
 * not be written on this kernel: avail is its comp_algorithm, NULL or empty when unknown).
 */
bool config_algos_note(const struct dev_config *cfg, const char *dev,
		       const struct zram_recomp *have, const struct zram_algo_list *avail,
		       char *buf, size_t size);

#endif
