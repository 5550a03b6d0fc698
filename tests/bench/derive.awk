# SPDX-License-Identifier: GPL-2.0-or-later
# make bench, step 3: reads the measured "key value" lines, prints them again followed by the
# derived figures (ratios, CPU per MiB saved) and the targets, each with measured value,
# limit and "met", "missed" or "not measured". Pure arithmetic: every input is a measurement
# the guest or run.sh took.

function has(k) { return (k in V) && V[k] != "" && V[k] != "null" }
function num(k) { return V[k] + 0 }
function put(k, v) { V[k] = v; print k, v }
function mib(b) { return b / 1048576 }
function fmt(x, d) { return sprintf("%." d "f", x) }

# target(id, text, measured key, limit, op, unit, why-not-measured)
function target(id, text, k, limit, op, unit, nm,    m, ok) {
	put("targets." id ".text", text)
	put("targets." id ".limit", limit)
	put("targets." id ".unit", unit)
	if (!has(k)) {
		put("targets." id ".measured", "null")
		put("targets." id ".result", "not_measured")
		put("targets." id ".note", nm != "" ? nm : "not measured: " k " missing")
		return
	}
	m = num(k)
	put("targets." id ".measured", V[k])
	if (op == "<=")
		ok = m <= limit
	else if (op == ">=")
		ok = m >= limit
	else
		ok = m == limit
	put("targets." id ".result", ok ? "met" : "missed")
	# by how much: measured / limit (a zero limit has no ratio)
	if (limit != 0)
		put("targets." id ".times_limit", fmt(m / limit, 3))
}

# measured(id, text, measured key, unit): a figure reported without a target (none was set for
# it): measurements.ID.{text,measured,unit}, "null" when it was not measured.
function measured(id, text, k, unit)
{
	put("measurements." id ".text", text)
	put("measurements." id ".unit", unit)
	put("measurements." id ".measured", has(k) ? V[k] : "null")
}

# kname(pre): the kernel of key prefix pre as the tables name it: its release, and for a
# kernel of another architecture than x86-64 the architecture and page size
# ("6.12.118 arm64, 16 KiB pages").
function kname(pre,    a)
{
	a = V[pre "meta.arch"]
	if (a == "" || a == "x86_64")
		return V[pre "meta.kernel"]
	return V[pre "meta.kernel"] " " a ", " (num(pre "meta.page_size") / 1024) " KiB pages"
}

# x86(pre): the kernel of key prefix pre is an x86-64 one (kept keys of older runs have no
# meta.arch: they all were).
function x86(pre) { return V[pre "meta.arch"] == "" || V[pre "meta.arch"] == "x86_64" }

# The measurements of every kernel: the daemon's CPU per MiB its --once pass saved; on a
# kernel of another architecture (arm64, 16 KiB pages: no target was set for it, issue 26)
# the once pass against the physical limit too.
function kernel_measurements(pre, suf,    kern)
{
	kern = kname(pre)
	measured("static_once_cpu_per_mib" suf, "static (" kern "): CPU of the zram-recompd --once process (user + system) per MiB of pool memory it saved",
		 pre "static.once.cpu_s_per_mib_saved", "s / MiB")
	if (x86(pre))
		return
	measured("static_once_memory" suf, "static (" kern "): mem_used_total after one --once against the physical limit (zstd primary)",
		 pre "static.once.mem_ratio", "x limit")
	measured("static_once_compr" suf, "static (" kern "): compr_data_size after one --once against the physical limit",
		 pre "static.once.compr_ratio", "x limit")
}

# The targets measured on every kernel (key prefix pre, target name suffix suf).
function kernel_targets(pre, suf, kern)
{
	target("static_once_memory" suf, "static (" kern "): mem_used_total after one --once <= 1.01 x the physical limit",
	       pre "static.once.mem_ratio", 1.01, "<=", "x limit")
	target("static_cold_memory" suf, "static (" kern "): the daemon's cold tier (zstd 3 + zstd 9) <= 1.01 x the zstd-9 limit",
	       pre "static.cold.mem_ratio9", 1.01, "<=", "x limit")
	target("longest_write" suf, "longest single write of a zram-recompd pass (first or next; max-write-ms = 100) <= 250 ms (" kern ", emulated CPU)",
	       pre "latency.longest_write_s", 0.25, "<=", "s")
	target("bounded_kernel_time" suf, "kernel time per MiB saved with max-write-ms <= 1.05 x fixed 2048-page batches (" kern ")",
	       pre "latency.own.kernel_ratio", 1.05, "<=", "x fixed")
	target("swap_daemon_freed" suf, "swap workload (" kern "): the daemon frees >= 0.9 x the pool memory the naive job frees",
	       pre "swap.daemon_vs_naive_freed", 0.9, ">=", "x naive")
	target("swap_daemon_throughput" suf, "swap workload (" kern "): hot throughput with the daemon >= 0.98 x without recompression (measured window)",
	       pre "swap.daemon.throughput_ratio", 0.98, ">=", "x none")
	target("swap_daemon_hot_recompressed" suf, "swap workload (" kern "): hot pages in zram the daemon recompressed = 0",
	       pre "swap.daemon.hot_recompressed", 0, "==", "pages")
}

# The swap workload of one kernel (key prefix pre): pool memory per byte stored (the runs
# swap out slightly different amounts), what each policy freed against no recompression,
# the workload's hot throughput against no recompression, the daemon's CPU share.
function derive_swap(pre,    i, p, L, base, t, w, wp)
{
	base = window_pool(pre "swap.none")
	if (base == "")
		return
	split("none naive daemon", L, " ")
	for (i = 1; i <= 3; i++) {
		p = pre "swap." L[i]
		wp = window_pool(p)
		if (wp == "")
			continue
		put(p ".pool_per_byte", fmt(wp, 4))
		put(p ".freed_share", fmt(1 - num(p ".pool_per_byte") / base, 4))
		if (num(pre "swap.none.ops_per_s") > 0)
			put(p ".throughput_ratio", fmt(num(p ".ops_per_s") / num(pre "swap.none.ops_per_s"), 4))
		if (num(pre "swap.none.warmup_ops_per_s") > 0 && has(p ".warmup_ops_per_s"))
			put(p ".warmup_throughput_ratio",
			    fmt(num(p ".warmup_ops_per_s") / num(pre "swap.none.warmup_ops_per_s"), 4))
	}
	if (has(pre "swap.naive.freed_share") && num(pre "swap.naive.freed_share") > 0)
		put(pre "swap.daemon_vs_naive_freed", fmt(num(pre "swap.daemon.freed_share") / num(pre "swap.naive.freed_share"), 3))
	# CPU share of the measured window; with a warm-up, of the warm-up apart (its first passes).
	if (has(pre "swap.daemon.proc.stime_ticks") && num(pre "swap.seconds") > 0) {
		t = num(pre "swap.daemon.proc.utime_ticks") + num(pre "swap.daemon.proc.stime_ticks")
		w = 0
		if (num(pre "swap.warmup_seconds") > 0 && has(pre "swap.daemon.warmup_cpu_ticks"))
			w = num(pre "swap.daemon.warmup_cpu_ticks")
		put(pre "swap.daemon.cpu_share", fmt((t - w) / 100 / num(pre "swap.seconds"), 4))
		if (w > 0)
			put(pre "swap.daemon.warmup_cpu_share", fmt(w / 100 / num(pre "swap.warmup_seconds"), 4))
	}
	if (has(pre "swap.naive.kernel_write_s") && num(pre "swap.seconds") > 0) {
		w = has(pre "swap.naive.warmup_kernel_write_s") ? num(pre "swap.naive.warmup_kernel_write_s") : 0
		put(pre "swap.naive.write_share", fmt((num(pre "swap.naive.kernel_write_s") - w) / num(pre "swap.seconds"), 4))
		if (num(pre "swap.warmup_seconds") > 0)
			put(pre "swap.naive.warmup_write_share", fmt(w / num(pre "swap.warmup_seconds"), 4))
	}
}

# window_pool(p): the pool per byte stored of one policy's swap or burst run at the end of
# its window, or "". The pool is read without the device lock where the run has it (its
# pages, nr_zspages): on 7.0+ mm_stat waits for a recompress write under way, which goes on
# recompressing and freeing objects meanwhile. orig_data_size, read with mm_stat, does not
# change while the workload waits after its window (a write does not change it, and only
# the workload frees slots). Runs before pool_end give mem_used_total.
function window_pool(p)
{
	if (has(p ".pool_end") && num(p ".orig_data_size") > 0)
		return num(p ".pool_end") / num(p ".orig_data_size")
	if (has(p ".mem_used_total") && num(p ".orig_data_size") > 0)
		return num(p ".mem_used_total") / num(p ".orig_data_size")
	return ""
}

# The first minute after a burst (bench_burst.sh), one kernel (key prefix pre): per shape
# and run, the swap figures of derive_swap against that run's none, the daemon against
# the naive job, and over the runs the worst (smallest) ratios and their spread: a
# target is met only when the worst run meets it.
function derive_burst(pre,    ns, S, i, j, r, n, b, p, L, k, q, fr, th, wf, wt, lf, lt, hot, sfx, rd, rn, nr, fb, wp, wm, lm, NFR, NTH)
{
	if (!has(pre "burst.runs"))
		return
	n = num(pre "burst.runs")
	ns = split(V[pre "burst.shapes"], S, " ")
	split("none naive daemon", L, " ")
	for (i = 1; i <= ns; i++) {
		wf = wt = wm = ""
		lf = lt = lm = ""
		hot = 0
		rd = rn = ""
		nr = 0
		for (r = 1; r <= n; r++) {
			b = pre "burst." S[i] ".r" r
			q = window_pool(b ".none")
			if (q == "")
				continue
			for (j = 1; j <= 3; j++) {
				p = b "." L[j]
				wp = window_pool(p)
				if (wp == "")
					continue
				put(p ".pool_per_byte", fmt(wp, 4))
				put(p ".freed_share", fmt(1 - wp / q, 4))
				# pool memory freed at 60 s against none (at none's pool per byte of
				# this run's stored bytes) per second of the policy's CPU in the window
				if (L[j] != "none" && num(p ".cpu_window_s") > 0) {
					fb = (q - wp) * num(p ".orig_data_size")
					put(p ".freed_mib_per_cpu_s", fmt(fb / 1048576 / num(p ".cpu_window_s"), 3))
				}
				# what mm_stat gave once the device lock was free (7.0+: after a write
				# under way at 60 s), for comparison
				if (has(p ".pool_end") && num(p ".orig_data_size") > 0)
					put(p ".mm_pool_per_byte", fmt(num(p ".mem_used_total") / num(p ".orig_data_size"), 4))
				if (num(b ".none.ops_per_s") > 0)
					put(p ".throughput_ratio", fmt(num(p ".ops_per_s") / num(b ".none.ops_per_s"), 4))
				# the pool through the window, per byte swapped out meanwhile (poolloop)
				if (num(p ".swap_used_mean") > 0 && num(b ".none.swap_used_mean") > 0)
					put(p ".mean_freed_share", fmt(1 - (num(p ".pool_mean") / num(p ".swap_used_mean")) / (num(b ".none.pool_mean") / num(b ".none.swap_used_mean")), 4))
			}
			if (!has(b ".daemon.freed_share") || !has(b ".naive.freed_share"))
				continue
			nr++
			NFR[nr] = num(b ".naive.freed_share")
			NTH[nr] = num(b ".naive.throughput_ratio")
			th = num(b ".naive.ops_per_s") > 0 ? num(b ".daemon.ops_per_s") / num(b ".naive.ops_per_s") : 0
			put(b ".daemon_vs_naive_throughput", fmt(th, 4))
			if (has(b ".daemon.cpu.passes_s") && num(b ".daemon.attempted") > 0)
				put(b ".daemon.cpu.ms_per_page", fmt(num(b ".daemon.cpu.passes_s") * 1000 / num(b ".daemon.attempted"), 3))
			# over the window (not a target: the issue's figure is the pool at 60 s)
			if (num(b ".naive.mean_freed_share") > 0 && has(b ".daemon.mean_freed_share")) {
				fr = num(b ".daemon.mean_freed_share") / num(b ".naive.mean_freed_share")
				put(b ".daemon_vs_naive_mean_freed", fmt(fr, 3))
				if (wm == "" || fr < wm) wm = fr
				if (lm == "" || fr > lm) lm = fr
			}
			if (num(b ".naive.freed_share") > 0) {
				fr = num(b ".daemon.freed_share") / num(b ".naive.freed_share")
				put(b ".daemon_vs_naive_freed", fmt(fr, 3))
				if (wf == "" || fr < wf) wf = fr
				if (lf == "" || fr > lf) lf = fr
			} else {
				# the naive job's pool ended larger than without recompression (a write
				# that held the device lock to the end, 7.3): no ratio; the daemon met
				# the figure unless it freed less still
				put(b ".naive_freed_nothing", 1)
				if (num(b ".daemon.freed_share") < num(b ".naive.freed_share"))
					wf = 0
			}
			if (wt == "" || th < wt) wt = th
			if (lt == "" || th > lt) lt = th
			if (num(b ".daemon.hot_recompressed") > hot)
				hot = num(b ".daemon.hot_recompressed")
			# the longest a reader of mm_stat waited (7.0+: a recompress write holds the lock)
			if (has(b ".daemon.mm_stat_read_max_s") && (rd == "" || num(b ".daemon.mm_stat_read_max_s") > rd))
				rd = num(b ".daemon.mm_stat_read_max_s")
			if (has(b ".naive.mm_stat_read_max_s") && (rn == "" || num(b ".naive.mm_stat_read_max_s") > rn))
				rn = num(b ".naive.mm_stat_read_max_s")
		}
		if (nr == 0)
			continue
		k = pre "burst." S[i]
		put(k ".runs_measured", nr)
		if (wf != "") {
			put(k ".worst.daemon_vs_naive_freed", fmt(wf, 3))
			put(k ".spread.daemon_vs_naive_freed", fmt((lf == "" ? wf : lf) - wf, 3))
		}
		if (wm != "") {
			put(k ".worst.daemon_vs_naive_mean_freed", fmt(wm, 3))
			put(k ".spread.daemon_vs_naive_mean_freed", fmt(lm - wm, 3))
		}
		put(k ".worst.daemon_vs_naive_throughput", fmt(wt, 4))
		put(k ".spread.daemon_vs_naive_throughput", fmt(lt - wt, 4))
		put(k ".worst.daemon_hot_recompressed", hot)
		naive_self(k, nr, NFR, NTH)
		if (rd != "")
			put(k ".worst.daemon_read_max_s", fmt(rd, 3))
		if (rn != "")
			put(k ".worst.naive_read_max_s", fmt(rn, 3))
	}
}

# naive_self(k, n, F, T): the naive job against its own other runs, a reference for the
# worst-run figures (not a target). Run r+1 (the last: the first) against run r, each
# figure against its run's none (freed share, throughput ratio): as many pairs of
# independent runs as the daemon's worst run is taken over, of two runs of one policy. A
# policy that behaved as the naive job would score about this against it.
function naive_self(k, n, F, T,    r, s, fr, th, wf, wt)
{
	if (n < 2)
		return
	wf = wt = ""
	for (r = 1; r <= n; r++) {
		s = r % n + 1
		if (F[r] > 0) {
			fr = F[s] / F[r]
			if (wf == "" || fr < wf) wf = fr
		}
		if (T[r] > 0) {
			th = T[s] / T[r]
			if (wt == "" || th < wt) wt = th
		}
	}
	if (wf != "")
		put(k ".worst.naive_vs_naive_freed", fmt(wf, 3))
	if (wt != "")
		put(k ".worst.naive_vs_naive_throughput", fmt(wt, 4))
}

# The burst targets of one kernel: per shape, the worst run.
function burst_targets(pre, suf, kern,    ns, S, i, k, n)
{
	ns = split(V[pre "burst.shapes"], S, " ")
	for (i = 1; i <= ns; i++) {
		k = pre "burst." S[i] ".worst."
		n = has(pre "burst." S[i] ".runs_measured") ? V[pre "burst." S[i] ".runs_measured"] : V[pre "burst.runs"]
		target("burst_freed_" S[i] suf, "first minute after a burst (" S[i] ", " kern ", worst of " n " runs): the daemon frees >= 1.0 x what the naive job frees",
		       k "daemon_vs_naive_freed", 1.0, ">=", "x naive")
		target("burst_throughput_" S[i] suf, "first minute after a burst (" S[i] ", " kern ", worst of " n " runs): hot throughput with the daemon >= 1.0 x with the naive job",
		       k "daemon_vs_naive_throughput", 1.0, ">=", "x naive")
		target("burst_hot_" S[i] suf, "first minute after a burst (" S[i] ", " kern "): hot pages in zram the daemon recompressed = 0 (every run)",
		       k "daemon_hot_recompressed", 0, "==", "pages")
	}
}

# zram-recompd's own first pass (key prefix pre): kernel time per MiB saved with max-write-ms
# and with fixed batches, and the longest single write of its passes (first or next).
function derive_own(pre,    i, p, L, lw)
{
	split("bounded fixed", L, " ")
	for (i = 1; i <= 2; i++) {
		p = pre "latency.own." L[i]
		if (has(p ".kernel_write_s") && num(p ".saved_bytes") > 0)
			put(p ".kernel_s_per_mib_saved", fmt(num(p ".kernel_write_s") / mib(num(p ".saved_bytes")), 4))
	}
	if (has(pre "latency.own.bounded.kernel_s_per_mib_saved") && num(pre "latency.own.fixed.kernel_s_per_mib_saved") > 0)
		put(pre "latency.own.kernel_ratio", fmt(num(pre "latency.own.bounded.kernel_s_per_mib_saved") / \
			num(pre "latency.own.fixed.kernel_s_per_mib_saved"), 4))
	if (has(pre "latency.own.bounded.longest_write_s")) {
		lw = num(pre "latency.own.bounded.longest_write_s")
		if (has(pre "latency.next.longest_write_s") && num(pre "latency.next.longest_write_s") > lw)
			lw = num(pre "latency.next.longest_write_s")
		put(pre "latency.longest_write_s", fmt(lw, 6))
	}
}

# Writeback of one kernel (key prefix pre): the pool memory writeback freed after
# recompression, against the bytes it wrote, and its kernel time per MiB written.
function derive_writeback(pre,    p, freed, w)
{
	p = pre "writeback."
	if (!has(p "wb.mem_used_total") || !has(p "recomp.mem_used_total"))
		return
	put(p "recomp.freed_bytes", num(p "before.mem_used_total") - num(p "recomp.mem_used_total"))
	freed = num(p "recomp.mem_used_total") - num(p "wb.mem_used_total")
	put(p "wb.freed_bytes", freed)
	if (num(p "recomp.mem_used_total") > 0)
		put(p "wb_vs_recomp_memory", fmt(num(p "wb.mem_used_total") / num(p "recomp.mem_used_total"), 4))
	w = num(p "wb.written_bytes")
	if (w > 0) {
		put(p "wb.freed_per_written", fmt(freed / w, 3))
		put(p "wb.kernel_s_per_mib_written", fmt(num(p "wb.writeback_kernel_s") / mib(w), 4))
	}
}

# Writeback through dm-crypt against a plain loop device (bench_wbcrypt): kernel time per MiB
# written and pool freed per byte written, per variant, and crypt's time against plain's.
function derive_wbcrypt(    i, v, w, c, p)
{
	for (i = 1; i <= 2; i++) {
		v = i == 1 ? "wbcrypt.plain" : "wbcrypt.crypt"
		w = num(v ".written_bytes")
		if (!has(v ".writeback_kernel_s") || w <= 0)
			continue
		put(v ".kernel_s_per_mib_written", fmt(num(v ".writeback_kernel_s") / mib(w), 4))
		put(v ".freed_per_written", fmt(num(v ".freed_bytes") / w, 3))
	}
	c = num("wbcrypt.crypt.kernel_s_per_mib_written")
	p = num("wbcrypt.plain.kernel_s_per_mib_written")
	if (p > 0 && has("wbcrypt.crypt.kernel_s_per_mib_written"))
		put("wbcrypt.crypt_vs_plain_kernel_s", fmt(c / p, 3))
}

# The dictionary scenario of one kernel (key prefix pre): memory against the zstd-9 limit
# without a dictionary (the cold tier) and against the same pass without one (level 3),
# CPU per MiB saved against no recompression, and read-back time with the dictionary
# against without (a swap-in decompresses the same way).
function derive_dict(pre,    i, p, L, b, ok)
{
	if (!has(pre "dict.limit9.mem_used_total"))
		return
	b = pre "dict."
	split("limit3 cold cold_dict l3 l3_dict", L, " ")
	for (i = 1; i <= 5; i++) {
		p = b L[i]
		if (!has(p ".mem_used_total"))
			continue
		put(p ".mem_ratio9", fmt(num(p ".mem_used_total") / num(b "limit9.mem_used_total"), 4))
		put(p ".mem_saved_bytes", num(b "none.mem_used_total") - num(p ".mem_used_total"))
		if (has(p ".cpu_s") && num(p ".mem_saved_bytes") > 0)
			put(p ".cpu_s_per_mib_saved", fmt(num(p ".cpu_s") / mib(num(p ".mem_saved_bytes")), 4))
	}
	if (has(b "cold_dict.mem_used_total") && has(b "cold.mem_used_total"))
		put(b "cold_dict.vs_cold", fmt(num(b "cold_dict.mem_used_total") / num(b "cold.mem_used_total"), 4))
	if (has(b "l3_dict.mem_used_total") && has(b "l3.mem_used_total"))
		put(b "l3_dict.vs_l3", fmt(num(b "l3_dict.mem_used_total") / num(b "l3.mem_used_total"), 4))
	if (num(b "cold.readback_us_per_page") > 0 && has(b "cold_dict.readback_us_per_page"))
		put(b "cold_dict.readback_vs_cold", fmt(num(b "cold_dict.readback_us_per_page") / num(b "cold.readback_us_per_page"), 4))
	if (num(b "l3.readback_us_per_page") > 0 && has(b "l3_dict.readback_us_per_page"))
		put(b "l3_dict.readback_vs_l3", fmt(num(b "l3_dict.readback_us_per_page") / num(b "l3.readback_us_per_page"), 4))
	# every device read back what was written
	ok = 1
	split("none limit9 limit3 cold cold_dict l3 l3_dict", L, " ")
	for (i = 1; i <= 7; i++)
		if (has(b L[i] ".intact") && num(b L[i] ".intact") != 1)
			ok = 0
	put(pre "dict.all_intact", ok)
}

# The dictionary targets of one kernel: the cold tier with the dictionary against the zstd-9
# limit without one, and swap-in (read-back) no slower than a few percent.
function dict_targets(pre, suf, kern)
{
	if (!has(pre "dict.limit9.mem_used_total"))
		return
	target("dict_cold_memory" suf, "zstd dictionary (" kern "): the cold tier with it <= 0.95 x the zstd-9 limit without one (pages not trained on)",
	       pre "dict.cold_dict.mem_ratio9", 0.95, "<=", "x limit9")
	target("dict_cold_readback" suf, "zstd dictionary (" kern "): read-back time per page of the cold tier with it <= 1.05 x without",
	       pre "dict.cold_dict.readback_vs_cold", 1.05, "<=", "x without")
	target("dict_intact" suf, "zstd dictionary (" kern "): every page read back intact on every device",
	       pre "dict.all_intact", 1, "==", "")
}

# Ratios of the static scenario of one kernel (key prefix pre): each policy against the
# zstd limit, the cold tier against the zstd level 9 limit.
function derive_static(pre,    i, p, n, L) {
	n = split("none naive naive_compact once limit", L, " ")
	for (i = 1; i <= n; i++) {
		p = pre "static." L[i]
		if (has(p ".mem_used_total") && has(pre "static.limit.mem_used_total")) {
			put(p ".mem_ratio", fmt(num(p ".mem_used_total") / num(pre "static.limit.mem_used_total"), 4))
			put(p ".compr_ratio", fmt(num(p ".compr_data_size") / num(pre "static.limit.compr_data_size"), 4))
			put(p ".mem_saved_bytes", num(pre "static.none.mem_used_total") - num(p ".mem_used_total"))
		}
	}
	if (has(pre "static.limit9.mem_used_total")) {
		put(pre "static.limit9.mem_ratio9", "1.0000")
		put(pre "static.limit9.compr_ratio9", "1.0000")
	}
	p = pre "static.cold"
	if (has(p ".mem_used_total") && has(pre "static.limit9.mem_used_total")) {
		put(p ".mem_ratio9", fmt(num(p ".mem_used_total") / num(pre "static.limit9.mem_used_total"), 4))
		put(p ".compr_ratio9", fmt(num(p ".compr_data_size") / num(pre "static.limit9.compr_data_size"), 4))
	}
	# compaction's share of the --once gain
	p = pre "static.once"
	if (has(p ".compact_freed") && num(p ".mem_saved_bytes") > 0)
		put(p ".compact_share", fmt(num(p ".compact_freed") / num(p ".mem_saved_bytes"), 3))
	# the daemon's CPU (its whole process: user, and system with the kernel's recompression in
	# its writes) per MiB of pool memory the pass saved; the naive job's kernel-write time per
	# MiB beside it (its writes are all it does)
	if (has(p ".cpu_s") && num(p ".mem_saved_bytes") > 0)
		put(p ".cpu_s_per_mib_saved", fmt(num(p ".cpu_s") / mib(num(p ".mem_saved_bytes")), 4))
	p = pre "static.naive_compact"
	if (has(p ".kernel_write_s") && num(p ".mem_saved_bytes") > 0)
		put(p ".kernel_s_per_mib_saved", fmt(num(p ".kernel_write_s") / mib(num(p ".mem_saved_bytes")), 4))
}

{
	k = $1
	v = substr($0, length($1) + 2)
	V[k] = v
	print
}

END {
	# ---- 1. static, per kernel ("" = the first kernel, then meta.kernel_prefixes) ----
	derive_static("")
	nk = split(V["meta.kernel_prefixes"], KP, " ")
	for (j = 1; j <= nk; j++)
		derive_static(KP[j])

	# ---- swap workload, per kernel ----
	derive_swap("")
	for (j = 1; j <= nk; j++)
		derive_swap(KP[j])

	# ---- the zstd dictionary, per kernel ----
	derive_dict("")
	for (j = 1; j <= nk; j++)
		derive_dict(KP[j])

	# ---- the first minute after a burst, per kernel ----
	derive_burst("")
	for (j = 1; j <= nk; j++)
		derive_burst(KP[j])

	# ---- writeback, per kernel ----
	derive_writeback("")
	for (j = 1; j <= nk; j++)
		derive_writeback(KP[j])

	# ---- writeback through dm-crypt (first kernel) ----
	derive_wbcrypt()

	# ---- 2. churn ----
	for (i = 1; i <= 2; i++) {
		p = i == 1 ? "churn.daemon" : "churn.naive"
		if (!has(p ".end.compr_data_size"))
			continue
		saved = num(p ".start.compr_data_size") - num(p ".end.compr_data_size")
		put(p ".saved_end_bytes", saved)
		put(p ".mem_saved_end_bytes", num(p ".start.mem_used_total") - num(p ".end.mem_used_total"))
		if (has(p ".kernel_write_s") && saved > 0)
			put(p ".cpu_s_per_mib_saved", fmt(num(p ".kernel_write_s") / mib(saved), 4))
		if (has(p ".kernel_write_s") && num(p ".bytes_saved_cumulative") > 0)
			put(p ".cpu_s_per_mib_saved_cumulative",
			    fmt(num(p ".kernel_write_s") / mib(num(p ".bytes_saved_cumulative")), 4))
	}
	if (has("churn.daemon.cpu_s_per_mib_saved") && num("churn.naive.cpu_s_per_mib_saved") > 0)
		put("churn.cpu_per_mib_ratio",
		    fmt(num("churn.daemon.cpu_s_per_mib_saved") / num("churn.naive.cpu_s_per_mib_saved"), 3))
	if (has("churn.daemon.cpu_s_per_mib_saved_cumulative") &&
	    num("churn.naive.cpu_s_per_mib_saved_cumulative") > 0)
		put("churn.cpu_per_mib_ratio_cumulative",
		    fmt(num("churn.daemon.cpu_s_per_mib_saved_cumulative") / \
			num("churn.naive.cpu_s_per_mib_saved_cumulative"), 3))
	if (has("churn.daemon.proc.utime_ticks"))
		put("churn.daemon.process_cpu_s",
		    fmt((num("churn.daemon.proc.utime_ticks") + num("churn.daemon.proc.stime_ticks")) / 100, 2))

	# ---- 3. responsiveness ----
	if (has("latency.batched.run1.recompress_writes") && num("latency.batched.run1.recompress_writes") > 0)
		put("latency.batched.recompress_mean_s",
		    fmt(num("latency.batched.run1.recompress_total_s") / \
			num("latency.batched.run1.recompress_writes"), 6))
	if (has("static.once.kernel_write_s") && num("static.once.writes") > 0)
		put("latency.once_mean_write_upper_s",
		    fmt(num("static.once.kernel_write_s") / num("static.once.writes"), 6))
	if (has("static.naive.recompress_write_s"))
		put("latency.naive_single_write_s", V["static.naive.recompress_write_s"])
	# the longest write of zram-recompd's own passes: the first pass (its own report) and
	# its next pass on the recompressed device (--once: the largest step or the idle mark). The kernel's walk over the recompressed slots
	# (latency.walk) is what that next pass skips; it is reported, not counted here.
	# With max-write-ms its own first pass counts (derive_own); the replay of fixed
	# 2048-page batches (latency.batched) stays as the reference.
	derive_own("")
	for (j = 1; j <= nk; j++)
		derive_own(KP[j])
	# smaller batches: kernel time of the first pass's type=idle writes against the default's
	for (b = 512; b <= 1024; b *= 2)
		if (has("latency.sweep.b" b ".run1.total_s") && num("latency.batched.run1.idle.total_s") > 0)
			put("latency.sweep.b" b ".kernel_ratio",
			    fmt(num("latency.sweep.b" b ".run1.total_s") / \
				num("latency.batched.run1.idle.total_s"), 4))

	# ---- 4. overhead ----
	hwm = 0
	split("overhead.plain.vmhwm_kb overhead.watchdog.vmhwm_kb churn.daemon.proc.vmhwm_kb", H, " ")
	for (i = 1; i <= 3; i++)
		if (has(H[i]) && num(H[i]) > hwm)
			hwm = num(H[i])
	if (hwm > 0)
		put("overhead.peak_rss_mib", fmt(hwm / 1024, 2))
	if (has("overhead.plain.uss_kb") && num("overhead.plain.uss_kb") > 0)
		put("overhead.plain.uss_mib", fmt(num("overhead.plain.uss_kb") / 1024, 3))
	if (has("churn.daemon.uss_max_kb") && num("churn.daemon.uss_max_kb") > 0)
		put("churn.daemon.uss_max_mib", fmt(num("churn.daemon.uss_max_kb") / 1024, 3))
	# ---- large devices (scale.sh, natively) ----
	n = split("s1m_d1 s4m_d1 s16m_d1 s1m_d8 s1m_d32", SC, " ")
	for (i = 1; i <= n; i++) {
		p = "scale." SC[i]
		if (has(p ".uss_peak_kb"))
			put(p ".uss_peak_mib", fmt(num(p ".uss_peak_kb") / 1024, 3))
		# per million slots: flat when nothing is worse than linear
		if (has(p ".user_s_per_round") && num(p ".slots") > 0)
			put(p ".user_s_per_mslot", fmt(num(p ".user_s_per_round") / (num(p ".slots") * num(p ".devices") / 1048576), 4))
	}
	# ---- the largest device the VM's memory allows (bench_large.sh, real kernel) ----
	if (has("large.uss_peak_kb"))
		put("large.uss_peak_mib", fmt(num("large.uss_peak_kb") / 1024, 3))
	if (has("large.later.user_s_per_pass") && num("large.slots") > 0)
		put("large.later.user_s_per_mslot", fmt(num("large.later.user_s_per_pass") / (num("large.slots") / 1048576), 3))
	if (has("overhead.plain.cpu_ticks"))
		put("overhead.plain.cpu_s", fmt(num("overhead.plain.cpu_ticks") / 100, 2))
	if (has("overhead.watchdog.watchdog_usec")) {
		per = num("overhead.watchdog.watchdog_usec") / 1e6
		w = num("overhead.window_s")
		# sd-event pings between 1/2 and 3/4 of the period after the last one
		put("overhead.watchdog.expected_pings_min", int(w / (per * 0.75)))
		put("overhead.watchdog.expected_pings_max", int(w / (per * 0.5)) + 1)
		if (has("overhead.watchdog.wakeups")) {
			extra = num("overhead.watchdog.wakeups") - V["overhead.watchdog.expected_pings_max"]
			put("overhead.watchdog.wakeups_beyond_watchdog", extra > 0 ? extra : 0)
		}
	}

	# ---- 5. parser ----
	if (has("parser.bsparse.parse_gbps") && num("parser.awk.gbps") > 0)
		put("parser.times_awk", fmt(num("parser.bsparse.parse_gbps") / num("parser.awk.gbps"), 1))
	if (has("parser.bsparse.parse_gbps") && num("parser.grep.gbps") > 0)
		put("parser.times_grep_one_flag", fmt(num("parser.bsparse.parse_gbps") / num("parser.grep.gbps"), 1))

	# ---- 6. advisor ----
	for (i = 1; i <= 2; i++) {
		p = i == 1 ? "advise" : "advise.all"
		if (!has(p ".predicted_compr_bytes") || num("advise.measured_compr_bytes") <= 0)
			continue
		ec = (num(p ".predicted_compr_bytes") - num("advise.measured_compr_bytes")) * 100 / \
		     num("advise.measured_compr_bytes")
		em = (num(p ".predicted_mem_bytes") - num("advise.measured_mem_bytes")) * 100 / \
		     num("advise.measured_mem_bytes")
		put(p ".compr_error_pct", fmt(ec, 2))
		put(p ".mem_error_pct", fmt(em, 2))
		ec = ec < 0 ? -ec : ec
		em = em < 0 ? -em : em
		put(p ".max_abs_error_pct", fmt(ec > em ? ec : em, 2))
		# the saving itself: predicted vs measured reduction of mem_used_total
		ps = num("advise.start_mem_bytes") - num(p ".predicted_mem_bytes")
		ms = num("advise.start_mem_bytes") - num("advise.measured_mem_bytes")
		if (has("advise.start_mem_bytes") && ms > 0)
			put(p ".saving_error_pct", fmt((ps - ms) * 100 / ms, 2))
		if (has(p ".sampled_pages") && num(p ".wall_s") > 0)
			put(p ".vm_pages_per_s", fmt(num(p ".sampled_pages") / num(p ".wall_s"), 0))
	}

	# ---- targets ----
	kernel_targets("", "", V["meta.kernel"])
	burst_targets("", "", V["meta.kernel"])
	dict_targets("", "", V["meta.kernel"])
	kernel_measurements("", "")
	for (j = 1; j <= nk; j++) {
		t = KP[j]
		sub(/\.$/, "", t)
		kernel_measurements(KP[j], "_" t)
		# no targets were set for another architecture: its figures are measurements
		if (!x86(KP[j]))
			continue
		kernel_targets(KP[j], "_" t, V[KP[j] "meta.kernel"])
		burst_targets(KP[j], "_" t, V[KP[j] "meta.kernel"])
		dict_targets(KP[j], "_" t, V[KP[j] "meta.kernel"])
	}
	target("churn_cpu_per_mib", "churn: daemon CPU (kernel writes) per MiB saved <= 0.5 x the naive job's",
	       "churn.cpu_per_mib_ratio", 0.5, "<=", "x naive")
	target("churn_hot_recompressed", "churn: hot pages recompressed by the daemon = 0",
	       "churn.daemon.hot_recompressions", 0, "==", "pages")
	target("sigterm_exit", "SIGTERM to exit while a pass runs <= 1 s (first passes)",
	       "latency.sigterm.max_exit_s", 1, "<=", "s")
	target("peak_rss", "daemon peak RSS (VmHWM) <= 3 MiB", "overhead.peak_rss_mib", 3, "<=", "MiB")
	target("uss_idle", "daemon USS (private memory, smaps_rollup) idle <= 1 MiB", "overhead.plain.uss_mib", 1, "<=", "MiB")
	target("uss_passes", "daemon USS sampled during the churn run's passes (largest) <= 1 MiB", "churn.daemon.uss_max_mib", 1, "<=", "MiB")
	target("scale_cpu_64g", "64 GiB fake device (16 M slots): user CPU per pass <= 1 s (native)", "scale.s16m_d1.user_s_per_pass", 1, "<=", "s")
	target("scale_uss_64g", "64 GiB fake device (16 M slots): USS peak <= 8 MiB", "scale.s16m_d1.uss_peak_mib", 8, "<=", "MiB")
	target("large_uss", "largest device the VM allows (real kernel): USS peak over its passes <= 1 MiB", "large.uss_peak_mib", 1, "<=", "MiB")
	target("idle_wakeups", "no wake-ups between scheduled passes (no watchdog configured)",
	       "overhead.plain.wakeups", 0, "==", "wake-ups")
	target("idle_wakeups_watchdog", "with a watchdog: no wake-ups beyond its pings",
	       "overhead.watchdog.wakeups_beyond_watchdog", 0, "==", "wake-ups")
	target("parser_throughput", "block_state parse >= 1 GB/s natively",
	       "parser.bsparse.parse_gbps", 1, ">=", "GB/s")
	target("parser_vs_awk", "block_state parse many times awk (>= 10x)",
	       "parser.times_awk", 10, ">=", "x awk")
	target("advisor_error", "advisor: predicted vs measured pool (compr and mem) within 5%",
	       "advise.max_abs_error_pct", 5, "<=", "%",
	       V["advise.available"] == "false" ? "not measured: advise not available" : \
	       has("advise.error") ? "not measured: advise failed (" V["advise.error"] ")" : "")
}
