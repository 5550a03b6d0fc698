# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
#
# Builders for fake sysfs/procfs roots (zram-recompd --sysroot DIR), sourced by run.sh.
#
# A fake root imitates what zram-recompd reads on a real kernel:
#   proc/sys/kernel/osrelease           the release decides version-keyed features
#   proc/meminfo                        MemTotal / MemAvailable for the idle age
#   sys/block/zramN -> ../devices/virtual/block/zramN   (a symlink, as in the real /sys)
#   sys/devices/virtual/block/zramN/<attr>             attribute set of that kernel version
#   sys/kernel/debug/zram/zramN/block_state            optional (CONFIG_ZRAM_MEMORY_TRACKING)
#   proc/config.gz or boot/config-<release>            optional kernel config
#
# Write-only attributes (idle, recompress, compact, ...) are empty regular files. The binary
# writes with O_APPEND and a trailing '\n', so after a run such a file holds exactly the
# sequence of commands written, one per line. Formats follow /work/shared/docs/zram-abi.md.

# Backend order of comp_algorithm: 6.12+ zram backends, 6.2-6.11 crypto API (ABI §2.2).
FR_ALGOS_BACKEND="lzo-rle lzo lz4 lz4hc zstd deflate 842"
FR_ALGOS_CRYPTO="lzo lzo-rle lz4 lz4hc 842 zstd"

# fr_ver_ge VER MIN: "6.12" >= "6.10"? (major.minor only)
fr_ver_ge() {
	local a=$1 b=$2 am an bm bn
	am=${a%%.*}
	an=${a#*.}
	an=${an%%.*}
	bm=${b%%.*}
	bn=${b#*.}
	bn=${bn%%.*}
	[ "$am" -gt "$bm" ] || { [ "$am" -eq "$bm" ] && [ "$an" -ge "$bn" ]; }
}

# Kernel release string used for a version label.
fr_release() {
	case $1 in
	6.2) echo 6.2.16 ;;
	6.10) echo 6.10.14 ;;
	6.12) echo 6.12.118 ;;
	6.15) echo 6.15.11 ;;
	7.0) echo 7.0.0 ;;
	7.3) echo 7.3.4 ;;
	# distribution kernels (build_version_root profiles ubuntu, fedora)
	ubuntu) echo 6.8.0-60-generic ;;
	fedora) echo 6.14.5-300.fc42.x86_64 ;;
	nomc-nozstd) echo 6.18.0-1-amd64 ;;
	nozstd) echo 6.12.118 ;;
	*) echo "$1.0" ;;
	esac
}

# fr_algo_list VER SELECTED: one comp_algorithm line, e.g. "lzo-rle lzo lz4 lz4hc [zstd] deflate 842 \n".
fr_algo_list() {
	local ver=$1 sel=$2 list out="" n found=0

	if fr_ver_ge "$ver" 6.12; then
		list=$FR_ALGOS_BACKEND
	else
		list=$FR_ALGOS_CRYPTO
	fi
	for n in $list; do
		if [ "$n" = "$sel" ]; then
			out="${out}[$n] "
			found=1
		else
			out="$out$n "
		fi
	done
	# 6.2-6.11: a selected crypto name missing from the list is appended as "[name] ".
	if [ $found = 0 ] && [ -n "$sel" ]; then
		out="${out}[$sel] "
	fi
	printf '%s\n' "$out"
}

# fr_mm_stat FILE F1..F9: the kernel's "%8llu %8llu %8llu %8lu %8ld %8llu %8lu %8llu %8llu\n".
fr_mm_stat() {
	local f=$1
	shift
	printf '%8s %8s %8s %8s %8s %8s %8s %8s %8s\n' "$@" >"$f"
}

# mm_stat figures used by the tests (bytes, bytes, bytes, ..., pages).
# High fragmentation: (37300000 - 30300000) / 37300000 = 18.8 % (>= 10 %: compact=auto compacts).
FR_MM_FRAG="104857600 30300000 37300000 0 43100000 120 0 1037 1037"
# Low fragmentation: (43100000 - 41000000) / 43100000 = 4.9 % (< 10 %: compact=auto does not).
# shellcheck disable=SC2034 # used by run.sh
FR_MM_LOWFRAG="104857600 41000000 43100000 0 43100000 120 0 1037 1037"
FR_MM_ZERO="0 0 0 0 0 0 0 0 0"

# fr_new ROOT VER: an empty root for kernel VER ("6.2", "6.10", "6.12", "6.15", "7.0").
# meminfo with MemAvailable == MemTotal (util 0: the idle age is idle-age-max-sec).
fr_new() {
	local r=$1 ver=$2

	mkdir -p "$r/proc/sys/kernel" "$r/sys/block" "$r/sys/devices/virtual/block" \
		"$r/sys/kernel/debug"
	fr_release "$ver" >"$r/proc/sys/kernel/osrelease"
	fr_meminfo "$r" 16318504 16318504
}

# fr_meminfo ROOT TOTAL_KB AVAILABLE_KB
fr_meminfo() {
	printf 'MemTotal:       %8s kB\nMemFree:        %8s kB\nMemAvailable:   %8s kB\nBuffers:          204800 kB\nCached:          3145728 kB\nSwapCached:            0 kB\n' \
		"$2" "$3" "$3" >"$1/proc/meminfo"
}

# fr_dev ROOT VER ID [key=value]...
#   init=1|0        initstate (default 1); disksize is 1 GiB when initialized, else 0
#   primary=NAME    selected comp_algorithm (default lzo-rle)
#   recomp="1:zstd 2:deflate"   secondary algorithms by priority (default "1:zstd"; "" = none)
#   recomp_raw=TEXT recomp_algorithm content verbatim (overrides recomp)
#   multi=1|0       CONFIG_ZRAM_MULTI_COMP: recomp_algorithm and recompress exist (default 1)
#   wb=1|0          CONFIG_ZRAM_WRITEBACK attributes (default 0)
#   mm="F1 .. F9"   mm_stat figures (default FR_MM_FRAG, or zeros when not initialized)
#   mm_raw=TEXT     mm_stat content verbatim
#   link=rel|abs|none   sys/block/zramN symlink: relative (default), absolute "/sys/devices/...",
#                   or none (the caller makes its own)
#   page=BYTES      the kernel's PAGE_SIZE, as queue/physical_block_size shows it (default 4096;
#                   16384 for a Raspberry Pi 5)
fr_dev() {
	local r=$1 ver=$2 id=$3
	shift 3
	local init=1 primary=lzo-rle recomp="1:zstd" recomp_raw="" has_raw=0 multi=1 wb=0
	local mm="" mm_raw="" has_mm_raw=0 link=rel page=4096 kv d p name

	for kv in "$@"; do
		case $kv in
		init=*) init=${kv#init=} ;;
		primary=*) primary=${kv#primary=} ;;
		recomp=*) recomp=${kv#recomp=} ;;
		recomp_raw=*)
			recomp_raw=${kv#recomp_raw=}
			has_raw=1
			;;
		multi=*) multi=${kv#multi=} ;;
		wb=*) wb=${kv#wb=} ;;
		mm=*) mm=${kv#mm=} ;;
		mm_raw=*)
			mm_raw=${kv#mm_raw=}
			has_mm_raw=1
			;;
		link=*) link=${kv#link=} ;;
		page=*) page=${kv#page=} ;;
		*)
			echo "fr_dev: unknown option $kv" >&2
			return 1
			;;
		esac
	done
	if [ -z "$mm" ]; then
		if [ "$init" = 1 ]; then mm=$FR_MM_FRAG; else mm=$FR_MM_ZERO; fi
	fi

	d=$r/sys/devices/virtual/block/zram$id
	mkdir -p "$d"
	# Block-layer files every disk has (never read by zram-recompd; must stay untouched).
	printf '252:%s\n' "$id" >"$d/dev"
	printf '0\n' >"$d/ro"
	printf 'MAJOR=252\nMINOR=%s\nDEVNAME=zram%s\nDEVTYPE=disk\n' "$id" "$id" >"$d/uevent"
	if [ "$init" = 1 ]; then
		printf '1073741824\n' >"$d/disksize"
		printf '2097152\n' >"$d/size"
	else
		printf '0\n' >"$d/disksize"
		printf '0\n' >"$d/size"
	fi
	printf '%s\n' "$init" >"$d/initstate"
	# zram sets physical_block_size to PAGE_SIZE (logical_block_size stays 4096)
	mkdir -p "$d/queue"
	printf '%s\n' "$page" >"$d/queue/physical_block_size"
	printf '4096\n' >"$d/queue/logical_block_size"
	# Write-only attributes of every version (ABI §2).
	for name in reset compact mem_limit mem_used_max idle; do
		: >"$d/$name"
	done
	fr_algo_list "$ver" "$primary" >"$d/comp_algorithm"
	if [ "$has_mm_raw" = 1 ]; then
		printf '%s' "$mm_raw" >"$d/mm_stat"
	else
		# shellcheck disable=SC2086
		fr_mm_stat "$d/mm_stat" $mm
	fi
	# io_stat: 6.4+ prints a literal 0 in column 3 (ABI §3).
	if fr_ver_ge "$ver" 6.4; then
		printf '%8s %8s 0 %8s\n' 0 0 1234 >"$d/io_stat"
	else
		printf '%8s %8s %8s %8s\n' 0 0 0 1234 >"$d/io_stat"
	fi
	# debug_stat: writestall is gone in 6.15 (prints 0).
	if fr_ver_ge "$ver" 6.15; then
		printf 'version: 1\n0 %8s\n' 0 >"$d/debug_stat"
	else
		printf 'version: 1\n%8s %8s\n' 0 0 >"$d/debug_stat"
	fi
	# max_comp_streams: 6.2-6.14 only.
	if ! fr_ver_ge "$ver" 6.15; then
		printf '2\n' >"$d/max_comp_streams"
	fi
	# algorithm_params: 6.12+.
	if fr_ver_ge "$ver" 6.12; then
		: >"$d/algorithm_params"
	fi
	if [ "$wb" = 1 ]; then
		printf 'none\n' >"$d/backing_dev"
		: >"$d/writeback"
		printf '0\n' >"$d/writeback_limit"
		printf '0\n' >"$d/writeback_limit_enable"
		printf '%8s %8s %8s\n' 0 0 0 >"$d/bd_stat"
		if fr_ver_ge "$ver" 6.19; then
			printf '32\n' >"$d/writeback_batch_size"
		fi
		if fr_ver_ge "$ver" 7.0; then
			printf '0\n' >"$d/compressed_writeback"
		fi
	fi
	if [ "$multi" = 1 ]; then
		: >"$d/recompress"
		if [ "$has_raw" = 1 ]; then
			printf '%s' "$recomp_raw" >"$d/recomp_algorithm"
		else
			: >"$d/recomp_algorithm"
			local at=0 rec
			for p in $recomp; do
				rec=$(printf '#%s: %s' "${p%%:*}" "$(fr_algo_list "$ver" "${p#*:}")")
				printf '%s\n' "$rec" >>"$d/recomp_algorithm"
				# 6.17+ (through 7.3.4): the kernel adds the record's absolute end
				# offset to its running size, so "start + 4" NULs follow each record
				# (ABI doc §12.3).
				if fr_ver_ge "$ver" 6.17; then
					head -c $((at + 4)) /dev/zero >>"$d/recomp_algorithm"
					at=$((2 * at + 8 + ${#rec} - 4 + 1))
				fi
			done
		fi
	fi
	case $link in
	rel) ln -s "../devices/virtual/block/zram$id" "$r/sys/block/zram$id" ;;
	abs) ln -s "/sys/devices/virtual/block/zram$id" "$r/sys/block/zram$id" ;;
	none) ;;
	esac
}

# fr_attr ROOT ID ATTR: path of an attribute file (the real file, not through sys/block).
fr_attr() {
	printf '%s/sys/devices/virtual/block/zram%s/%s\n' "$1" "$2" "$3"
}

# fr_blockstate ROOT VER ID: a debugfs block_state of 10 allocated slots, exactly 40 bytes per
# line ("%12zd %12lld.%06lu %c%c%c%c%c%c\n"; 7.0: u32 seconds and a literal ".000000").
# Counts: allocated 10, same 1, written_back 1, huge 4, idle 5, recompressed 3,
# incompressible 2.
fr_blockstate() {
	local r=$1 ver=$2 id=$3 f idx sec usec flags
	f=$r/sys/kernel/debug/zram/zram$id/block_state

	mkdir -p "${f%/*}"
	: >"$f"
	while read -r idx sec usec flags; do
		if fr_ver_ge "$ver" 7.0; then usec=0; fi
		printf '%12d %12d.%06d %s\n' "$idx" "$sec" "$usec" "$flags" >>"$f"
	done <<'EOF'
0 15001 120000 ...i..
1 15002 5 ..h...
2 0 0 ....r.
3 14000 250000 ..h..n
5 0 0 s.....
6 0 0 .w.i..
7 0 0 ...ir.
9 20000 1 ..hi..
10 0 0 ....r.
11 13999 999999 ..hi.n
EOF
}

# fr_kconfig ROOT WHERE LINE...: kernel config text; WHERE is "boot" (boot/config-<release>)
# or "gz" (proc/config.gz).
fr_kconfig() {
	local r=$1 where=$2 rel
	shift 2
	rel=$(cat "$r/proc/sys/kernel/osrelease")
	case $where in
	boot)
		mkdir -p "$r/boot"
		printf '%s\n' '#' '# Automatically generated file; DO NOT EDIT.' 'CONFIG_SWAP=y' "$@" \
			'CONFIG_ZSMALLOC=y' >"$r/boot/config-$rel"
		;;
	gz)
		printf '%s\n' '#' '# Automatically generated file; DO NOT EDIT.' 'CONFIG_SWAP=y' "$@" \
			'CONFIG_ZSMALLOC=y' | gzip -9n >"$r/proc/config.gz"
		;;
	esac
}

# fr_snapshot ROOT: one line per entry, sorted: "PATH TYPE [md5|link target]". Two snapshots
# differ exactly in the entries that were created, removed, or whose content changed.
fr_snapshot() {
	(
		cd "$1" || exit 1
		find . -mindepth 1 ! -type f -printf '%p %y %l\n'
		find . -type f -exec md5sum {} + | awk '{ h = $1; sub(/^[^ ]+  /, ""); print $0 " f " h }'
	) | LC_ALL=C sort
}

# fr_changed BEFORE AFTER: paths (relative, without "./") whose snapshot lines differ.
fr_changed() {
	awk 'FNR == NR { b[$1] = $0; next }
	     { a[$1] = $0; if (b[$1] != $0) ch[$1] = 1 }
	     END { for (p in b) if (!(p in a)) ch[p] = 1; for (p in ch) print substr(p, 3) }' \
		"$1" "$2" | LC_ALL=C sort
}

# build_version_root ROOT VER: a reference root of kernel VER (6.2, 6.10, 6.12, 6.15, 7.0, 7.3):
# one initialized zram0 with a secondary algorithm, like a distro kernel of that version.
# Two profiles of distribution kernels' zram options (issue 24) instead of a version:
#   ubuntu  Ubuntu 24.04's 6.8: no CONFIG_ZRAM_MULTI_COMP; WRITEBACK, TRACK_ENTRY_ACTIME and
#           MEMORY_TRACKING on (block_state with ages). zram0 as zram-config leaves it:
#           initialized, no backing device, no recomp_algorithm attribute.
#   fedora  Fedora 42's 6.14: MULTI_COMP on; WRITEBACK, ACTIME and MEMORY_TRACKING off (no
#           backing_dev, no block_state). zram0 set up by zram-generator with our drop-in
#           (primary lz4, secondary zstd); the generator's files are under usr/lib.
# And two kernels without zstd in zram:
#   nomc-nozstd  a 6.18 built without CONFIG_ZRAM_MULTI_COMP and without zstd:
#           comp_algorithm "lzo-rle lzo lz4"; zram0 initialized, no backing device.
#   nozstd  a 6.12 with MULTI_COMP but without zstd (comp_algorithm "lzo-rle lzo lz4 lz4hc
#           deflate"); zram0 initialized with secondary deflate.
build_version_root() {
	local r=$1 ver=$2

	fr_new "$r" "$ver"
	case $ver in
	6.2)
		# 6.2-6.7: ages need CONFIG_ZRAM_MEMORY_TRACKING; debugfs not mounted here.
		fr_dev "$r" 6.2 0
		fr_kconfig "$r" boot 'CONFIG_ZRAM=m' 'CONFIG_ZRAM_MEMORY_TRACKING=y' \
			'CONFIG_ZRAM_MULTI_COMP=y'
		;;
	6.10)
		fr_dev "$r" 6.10 0 wb=1
		fr_kconfig "$r" gz 'CONFIG_ZRAM=m' 'CONFIG_ZRAM_TRACK_ENTRY_ACTIME=y' \
			'# CONFIG_ZRAM_MEMORY_TRACKING is not set' 'CONFIG_ZRAM_MULTI_COMP=y'
		;;
	6.12)
		fr_dev "$r" 6.12 0 wb=1
		fr_blockstate "$r" 6.12 0
		;;
	6.15)
		fr_dev "$r" 6.15 0 primary=lz4 recomp="1:zstd 2:deflate"
		fr_blockstate "$r" 6.15 0
		;;
	7.0)
		# Absolute sys/block symlink: must resolve inside the root.
		fr_dev "$r" 7.0 0 wb=1 link=abs
		fr_blockstate "$r" 7.0 0
		;;
	7.3)
		# recomp_algorithm with the NUL padding of 6.17+ (fr_dev), two secondaries.
		fr_dev "$r" 7.3 0 wb=1 recomp="1:zstd 2:deflate"
		fr_blockstate "$r" 7.3 0
		;;
	ubuntu)
		fr_dev "$r" 6.8 0 multi=0 wb=1
		fr_blockstate "$r" 6.8 0
		fr_kconfig "$r" boot 'CONFIG_ZRAM=m' 'CONFIG_ZRAM_WRITEBACK=y' \
			'CONFIG_ZRAM_TRACK_ENTRY_ACTIME=y' 'CONFIG_ZRAM_MEMORY_TRACKING=y' \
			'# CONFIG_ZRAM_MULTI_COMP is not set'
		mkdir -p "$r/usr/lib/systemd/system"
		: >"$r/usr/lib/systemd/system/zram-config.service"
		;;
	fedora)
		fr_dev "$r" 6.14 0 primary=lz4
		fr_kconfig "$r" boot 'CONFIG_ZRAM=m' '# CONFIG_ZRAM_WRITEBACK is not set' \
			'# CONFIG_ZRAM_TRACK_ENTRY_ACTIME is not set' \
			'# CONFIG_ZRAM_MEMORY_TRACKING is not set' 'CONFIG_ZRAM_MULTI_COMP=y'
		mkdir -p "$r/usr/lib/systemd/system-generators" \
			"$r/usr/lib/systemd/system/systemd-zram-setup@.service.d"
		: >"$r/usr/lib/systemd/system-generators/zram-generator"
		: >"$r/usr/lib/systemd/system/systemd-zram-setup@.service"
		: >"$r/usr/lib/systemd/system/systemd-zram-setup@.service.d/zram-recompd.conf"
		;;
	nomc-nozstd)
		fr_dev "$r" 6.18 0 multi=0
		printf '%s\n' '[lzo-rle] lzo lz4 ' >"$r/sys/devices/virtual/block/zram0/comp_algorithm"
		fr_kconfig "$r" boot 'CONFIG_ZRAM=m' '# CONFIG_ZRAM_MULTI_COMP is not set' \
			'CONFIG_ZRAM_BACKEND_LZ4=y' '# CONFIG_ZRAM_BACKEND_ZSTD is not set'
		;;
	nozstd)
		fr_dev "$r" 6.12 0 recomp="1:deflate"
		printf '%s\n' '[lzo-rle] lzo lz4 lz4hc deflate ' \
			>"$r/sys/devices/virtual/block/zram0/comp_algorithm"
		printf '%s\n' '#1: lzo-rle lzo lz4 lz4hc [deflate] ' \
			>"$r/sys/devices/virtual/block/zram0/recomp_algorithm"
		fr_blockstate "$r" 6.12 0
		;;
	esac
}
