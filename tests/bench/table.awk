# SPDX-License-Identifier: GPL-2.0-or-later
# make bench: the derived "key value" lines (derive.awk) as markdown tables on stdout.

function has(k) { return (k in V) && V[k] != "" && V[k] != "null" }
function g(k) { return has(k) ? V[k] : "–" }
function num(k) { return V[k] + 0 }
function mib(k) { return has(k) ? sprintf("%.2f MiB", num(k) / 1048576) : "–" }
function f(k, d) { return has(k) ? sprintf("%." d "f", num(k)) : "–" }
function s(k, d) { return has(k) ? sprintf("%." d "f s", num(k)) : "–" }
function row(a, b, c, d, e, f_, g_, h, i, j, k, l) {
	line = "| " a
	if (b != "") line = line " | " b
	if (c != "") line = line " | " c
	if (d != "") line = line " | " d
	if (e != "") line = line " | " e
	if (f_ != "") line = line " | " f_
	if (g_ != "") line = line " | " g_
	if (h != "") line = line " | " h
	if (i != "") line = line " | " i
	if (j != "") line = line " | " j
	if (k != "") line = line " | " k
	if (l != "") line = line " | " l
	print line " |"
}
# kname(pre): the kernel of key prefix pre, with the architecture and page size when it is
# not x86-64 (as derive.awk names it).
function kname(pre,    a)
{
	a = V[pre "meta.arch"]
	if (a == "" || a == "x86_64")
		return g(pre "meta.kernel")
	return g(pre "meta.kernel") " " a ", " (num(pre "meta.page_size") / 1024) " KiB pages"
}
function failed(sc) {
	if (has("vm." sc ".result") && V["vm." sc ".result"] != "PASS")
		print "\n*" sc ": " V["vm." sc ".result"] (has("vm." sc ".reason") ? " — " V["vm." sc ".reason"] : "") "*"
}

# The writeback row of one kernel (key prefix pre).
function writeback_row(pre, kern,    p)
{
	p = pre "writeback."
	if (!has(p "wb.mem_used_total"))
		return
	row(kern, mib(p "before.mem_used_total"), mib(p "recomp.mem_used_total"),
	    mib(p "wb.mem_used_total"), g(p "wb.written_pages") " (" mib(p "wb.written_bytes") ")",
	    mib(p "wb.freed_bytes"), s(p "recomp.kernel_s", 3), s(p "wb.writeback_kernel_s", 3),
	    f(p "wb.kernel_s_per_mib_written", 4), g(p "data_intact"))
}

# The static rows of one kernel (key prefix pre).
# The swap workload of one kernel (key prefix pre).
function swap_table(pre, kern,    i, p, SW)
{
	if (!has(pre "swap.none.mem_used_total"))
		return
	print "\n## Swap workload, " kern ": " g(pre "swap.mib") " MiB in " g(pre "swap.ram_mib") \
	      " MiB of RAM, zram swap (lzo-rle, zstd #1), 20% hot, a cold read every " g(pre "swap.cold_every") \
	      " operations; " g(pre "swap.warmup_seconds") " s warm-up, then " g(pre "swap.seconds") " s measured\n"
	row("policy", "mem_used_total", "orig_data_size", "pool / byte", "freed vs none", "hot ops/s", "× none",
	    "warm-up × none", "cold p50", "cold p99", "MemAvailable")
	row("---", "---:", "---:", "---:", "---:", "---:", "---:", "---:", "---:", "---:", "---:")
	split("none naive daemon", SW, " ")
	for (i = 1; i <= 3; i++) {
		p = pre "swap." SW[i]
		row(SW[i], mib(p ".mem_used_total"), mib(p ".orig_data_size"), f(p ".pool_per_byte", 4),
		    f(p ".freed_share", 4), f(p ".ops_per_s", 0), f(p ".throughput_ratio", 4),
		    f(p ".warmup_throughput_ratio", 4),
		    f(p ".cold_p50_us", 1) " µs", f(p ".cold_p99_us", 1) " µs",
		    has(p ".memavailable_kb") ? sprintf("%.1f MiB", num(p ".memavailable_kb") / 1024) : "–")
	}
	print "\nCPU share (warm-up / measured): daemon " f(pre "swap.daemon.warmup_cpu_share", 4) " / " \
	      f(pre "swap.daemon.cpu_share", 4) " (process CPU), naive job " f(pre "swap.naive.warmup_write_share", 4) \
	      " / " f(pre "swap.naive.write_share", 4) " (time in kernel writes). Daemon: " g(pre "swap.daemon.passes") \
	      " passes, re-paced " g(pre "swap.daemon.repaced") " times. Daemon / naive memory freed: " \
	      f(pre "swap.daemon_vs_naive_freed", 3) ". Hot pages in zram at the end (recompressed): none " \
	      g(pre "swap.none.hot_in_zram") ", naive " g(pre "swap.naive.hot_in_zram") " (" \
	      g(pre "swap.naive.hot_recompressed") "), daemon " g(pre "swap.daemon.hot_in_zram") " (" \
	      g(pre "swap.daemon.hot_recompressed") ")."
}

# A burst row's CPU: in the window where measured (cpu_window_s), else the daemon's passes'
# or the naive job's writes'.
function cpu_col(p, pol)
{
	if (has(p ".cpu_window_s"))
		return f(p ".cpu_window_s", 2)
	if (pol == "daemon")
		return f(p ".cpu.passes_s", 2)
	return pol == "naive" ? f(p ".cpu_s", 2) : "–"
}

# The first minute after a burst, one kernel (key prefix pre): a row per shape, run and policy.
function burst_table(pre, kern,    ns, S, i, r, j, b, p, L, c)
{
	if (!has(pre "burst.runs"))
		return
	print "\n## First minute after a burst, " kern ": " g(pre "burst.mib") " MiB in " g(pre "burst.ram_mib") \
	      " MiB of RAM, " g(pre "burst.seconds") " s from the end of the fill, no warm-up; " \
	      g(pre "meta.burst_vm_cpus") " vCPU, " g(pre "burst.runs") " runs\n"
	row("shape, run", "policy", "pool / byte", "freed vs none", "freed vs none, window mean", "× none (hot ops)", "CPU (s)",
	    "recompress / idle / block_state / compact / other / user (s)", "pages tried", "longest mm_stat read", "end's mm_stat waited",
	    "MiB freed / CPU s")
	row("---", "---", "---:", "---:", "---:", "---:", "---:", "---", "---:", "---:", "---:", "---:")
	ns = split(V[pre "burst.shapes"], S, " ")
	split("none naive daemon", L, " ")
	for (i = 1; i <= ns; i++)
		for (r = 1; r <= num(pre "burst.runs"); r++) {
			b = pre "burst." S[i] ".r" r
			for (j = 1; j <= 3; j++) {
				p = b "." L[j]
				c = L[j] == "daemon" ? f(p ".cpu.recompress_s", 2) " / " f(p ".cpu.idle_s", 2) " / " \
				    f(p ".cpu.block_state_s", 2) " / " f(p ".cpu.compact_s", 2) " / " f(p ".cpu.other_s", 2) " / " \
				    f(p ".cpu.user_s", 2) : "–"
				row(S[i] " " r, L[j], f(p ".pool_per_byte", 4), f(p ".freed_share", 4),
				    f(p ".mean_freed_share", 4), f(p ".throughput_ratio", 4),
				    cpu_col(p, L[j]),
				    c, L[j] == "daemon" ? g(p ".attempted") : "–", f(p ".mm_stat_read_max_s", 3) " s",
				    f(p ".mm_stat_wait_s", 3) " s", f(p ".freed_mib_per_cpu_s", 3))
			}
			print "| | daemon / naive | | " f(b ".daemon_vs_naive_freed", 3) " × | " \
			      f(b ".daemon_vs_naive_mean_freed", 3) " × | " \
			      f(b ".daemon_vs_naive_throughput", 4) " × | | | | | | |"
		}
	for (i = 1; i <= ns; i++)
		print "\n" S[i] ": worst run, daemon / naive: freed " f(pre "burst." S[i] ".worst.daemon_vs_naive_freed", 3) \
		      " × (spread " f(pre "burst." S[i] ".spread.daemon_vs_naive_freed", 3) "), freed over the window " \
		      f(pre "burst." S[i] ".worst.daemon_vs_naive_mean_freed", 3) " × (spread " \
		      f(pre "burst." S[i] ".spread.daemon_vs_naive_mean_freed", 3) ", not a target), hot throughput " \
		      f(pre "burst." S[i] ".worst.daemon_vs_naive_throughput", 4) " × (spread " \
		      f(pre "burst." S[i] ".spread.daemon_vs_naive_throughput", 4) "); longest mm_stat read " \
		      f(pre "burst." S[i] ".worst.daemon_read_max_s", 3) " s with the daemon, " \
		      f(pre "burst." S[i] ".worst.naive_read_max_s", 3) " s with the naive job. The naive job " \
		      "against its own other runs (run r+1 / run r): freed " f(pre "burst." S[i] ".worst.naive_vs_naive_freed", 3) \
		      " ×, hot throughput " f(pre "burst." S[i] ".worst.naive_vs_naive_throughput", 4) " × at worst."
}

# The dictionary rows of one kernel (key prefix pre).
function dict_table(pre, kernel,    i, p, P, L) {
	if (!has(pre "dict.limit9.mem_used_total"))
		return
	print "\nLinux " kernel ": " g(pre "dict.test_pages") " test pages of " g(pre "dict.page_size") \
	      " bytes; dictionary " g(pre "dict.dict_bytes") " bytes trained on the other " g(pre "dict.train_pages") \
	      " in " s(pre "dict.train_cpu_s", 2) " of CPU (advise predicted " g(pre "dict.predicted_l9_saving_pct") \
	      "% at level 9)\n"
	row("device", "mem_used_total", "× limit9", "compr_data_size", "CPU", "CPU per MiB saved", "read-back per page",
	    "intact")
	row("---", "---:", "---:", "---:", "---:", "---:", "---:", "---:")
	split("none limit9 limit3 cold cold_dict l3 l3_dict", P, " ")
	split("lzo-rle, no recompression|limit9: zstd level 9 primary|limit3: zstd level 3 primary|" \
	      "cold tier (zstd 3 #1, zstd 9 #2)|cold tier, dictionary at #2|one pass, zstd 3 #1|" \
	      "one pass, zstd 3 #1 with the dictionary", L, "|")
	for (i = 1; i <= 7; i++) {
		p = pre "dict." P[i]
		if (!has(p ".mem_used_total"))
			continue
		row(L[i], mib(p ".mem_used_total"), P[i] == "limit9" ? "1.000" : f(p ".mem_ratio9", 3),
		    mib(p ".compr_data_size"), s(p ".cpu_s", 2), s(p ".cpu_s_per_mib_saved", 3),
		    f(p ".readback_us_per_page", 1) " µs", g(p ".intact"))
	}
	print "\nWith the dictionary: cold tier " f(pre "dict.cold_dict.vs_cold", 3) " × the memory without, read-back " \
	      f(pre "dict.cold_dict.readback_vs_cold", 3) " × as long; one level-3 pass " f(pre "dict.l3_dict.vs_l3", 3) \
	      " × the memory, read-back " f(pre "dict.l3_dict.readback_vs_l3", 3) " × as long."
}

function static_table(pre, kernel,    i, p, P, L) {
	print "\nLinux " kernel ":\n"
	row("policy", "mem_used_total", "× limit", "compr_data_size", "× limit", "kernel writes", "writes",
	    "`r` slots", "`n` slots")
	row("---", "---:", "---:", "---:", "---:", "---:", "---:", "---:", "---:")
	split("none naive naive_compact once limit cold limit9", P, " ")
	split("no recompression|naive: idle all + recompress type=idle|naive + compact|" \
	      "zram-recompd --once (defaults, idle-age-max-sec = 0)|limit: zstd primary|" \
	      "daemon, cold tier: zstd 3 at #1, zstd 9 at #2 (× the zstd-9 limit)|" \
	      "limit9: zstd level 9 primary", L, "|")
	for (i = 1; i <= 7; i++) {
		p = pre "static." P[i]
		if (!has(p ".mem_used_total"))
			continue
		row(L[i], mib(p ".mem_used_total"),
		    P[i] ~ /cold|limit9/ ? f(p ".mem_ratio9", 3) : f(p ".mem_ratio", 3), mib(p ".compr_data_size"),
		    P[i] ~ /cold|limit9/ ? f(p ".compr_ratio9", 3) : f(p ".compr_ratio", 3),
		    P[i] ~ /^limit/ || P[i] == "cold" ? "–" : s(p ".kernel_write_s", 3),
		    P[i] ~ /^limit/ || P[i] == "cold" ? "–" : g(p ".writes"),
		    P[i] ~ /^limit/ ? "–" : g(p ".recompressed_slots"),
		    P[i] ~ /^limit/ ? "–" : g(p ".incompressible_slots"))
	}
	print "\n--once reports the time of its recompress and compact writes, not of the idle mark" \
	      " (naive: " s(pre "static.naive.idle_write_s", 3) "); its wall time was " s(pre "static.once.wall_s", 3) \
	      ". Its compaction freed " mib(pre "static.once.compact_freed") " (" f(pre "static.once.compact_share", 3) \
	      " of what the pass freed) in " s(pre "static.once.compact_s", 3) \
	      ". The cold tier reached its level after " g(pre "static.cold.passes") " daemon passes."
	if (has(pre "static.once.cpu_s"))
		print "\nThe --once process used " s(pre "static.once.cpu_s", 3) " of CPU (user " \
		      s(pre "static.once.user_s", 3) ", system " s(pre "static.once.sys_s", 3) \
		      ", its kernel writes included): **" f(pre "static.once.cpu_s_per_mib_saved", 4) \
		      " s per MiB saved** (" mib(pre "static.once.mem_saved_bytes") " of mem_used_total); " \
		      "naive + compact: " f(pre "static.naive_compact.kernel_s_per_mib_saved", 4) \
		      " s of kernel writes per MiB saved."
	if (has(pre "meta.corpus_layout"))
		print "\nPages of " g(pre "static.page_size") " bytes (" g(pre "static.pages") " of them): " \
		      g(pre "meta.corpus_layout") "."
}

{
	V[$1] = substr($0, length($1) + 2)
}

END {
	print "# zram-recompd bench"
	print ""
	print "Corpus: " g("meta.corpus") " (" g("meta.corpus_pages") " pages); Linux " g("meta.kernel") \
	      " under " g("meta.vm") "; commit " substr(g("meta.git_commit"), 1, 12) \
	      (V["meta.git_dirty"] == "true" ? " (uncommitted changes)" : "") "; " g("meta.date") \
	      "; host: " g("meta.host_cpu") ", " g("meta.host_cpus") " CPUs, load " g("meta.host_load_1min") " before the VM, " \
	      g("meta.host_load_1min_after_vm") " after."
	if (has("meta.kept.git_commit"))
		print "Kept (BENCH_KEEP=1): the keys of the scenarios and kernels not run now come from the run at commit " \
		      substr(g("meta.kept.git_commit"), 1, 12) " of " g("meta.kept.date") "."
	if (V["meta.clock"] ~ /^guest instructions/)
		print "Times in the VM count emulated instructions, 1 ns each (qemu -icount): they repeat from run to " \
		      "run whatever the host's load; compare them with each other, not with real hardware."
	else
		print "Times in the VM are host wall-clock time of an emulated CPU and move with the host's load."

	print "\n## 1. Static: one policy per fresh device (lzo-rle, zstd secondary), same pages, all idle\n"
	nk = split(V["meta.kernel_prefixes"], KP, " ")
	static_table("", g("meta.kernel"))
	for (j = 1; j <= nk; j++)
		static_table(KP[j], kname(KP[j]))
	failed("static")

	if (has("swap.none.mem_used_total") || has(KP[1] "swap.none.mem_used_total")) {
		swap_table("", g("meta.kernel"))
		for (j = 1; j <= nk; j++)
			swap_table(KP[j], g(KP[j] "meta.kernel"))
		failed("swap")
	}
	if (has("dict.limit9.mem_used_total") || has(KP[1] "dict.limit9.mem_used_total")) {
		print "\n## zstd dictionary: pages not trained on, cold tier and one pass, with and without\n"
		dict_table("", g("meta.kernel"))
		for (j = 1; j <= nk; j++)
			dict_table(KP[j], kname(KP[j]))
		failed("dict")
	}
	if (has("burst.runs") || has(KP[1] "burst.runs")) {
		burst_table("", g("meta.kernel"))
		for (j = 1; j <= nk; j++)
			burst_table(KP[j], g(KP[j] "meta.kernel"))
		failed("burst")
	}

	if (has("writeback.wb.mem_used_total") || has(KP[1] "writeback.wb.mem_used_total")) {
		print "\n## Writeback: the pages on lzo-rle + zstd #1 with a loop backing device; --once " \
		      "without, then with writeback = yes (shipped writeback defaults)\n"
		row("kernel", "mem_used before", "after recompression", "after + writeback",
		    "written back (pages)", "writeback freed", "kernel: recompression",
		    "kernel: writeback", "s / MiB written", "data intact")
		row("---", "---:", "---:", "---:", "---:", "---:", "---:", "---:", "---:", "---")
		writeback_row("", g("meta.kernel"))
		for (j = 1; j <= nk; j++)
			writeback_row(KP[j], g(KP[j] "meta.kernel"))
		failed("writeback")
	}

	if (has("wbcrypt.plain.written_pages") || has("wbcrypt.crypt.written_pages")) {
		print "\n## Writeback through dm-crypt: " g("wbcrypt.pages") " random pages written back " \
		      "to a backing file on ext4, on a plain loop device and behind dm-crypt " \
		      "(aes-xts-plain64), each set up by `zram-recompd backing setup`\n"
		row("backing", "backing_dev", "written back (pages)", "kernel: writeback",
		    "s / MiB written", "pool freed", "freed / written", "data intact")
		row("---", "---", "---:", "---:", "---:", "---:", "---:", "---")
		for (i = 1; i <= 2; i++) {
			v = i == 1 ? "wbcrypt.plain" : "wbcrypt.crypt"
			row(i == 1 ? "loop (backing-encryption = no)" : "dm-crypt on loop",
			    g(v ".backing_dev"), g(v ".written_pages") " (" mib(v ".written_bytes") ")",
			    s(v ".writeback_kernel_s", 3), f(v ".kernel_s_per_mib_written", 4),
			    mib(v ".freed_bytes"), f(v ".freed_per_written", 3), g(v ".data_intact"))
		}
		if (has("wbcrypt.crypt_vs_plain_kernel_s"))
			print "\ndm-crypt's kernel time per MiB written: " g("wbcrypt.crypt_vs_plain_kernel_s") \
			      "x the plain loop device's."
		failed("wbcrypt")
	}

	print "\n## 2. Churn: hot set (" g("churn.hot_pages") " pages, every " g("churn.hot_stride") \
	      "th) rewritten every " g("churn.interval_s") " s, " g("churn.intervals") " intervals\n"
	row("policy", "kernel writes", "saved at end", "CPU s / MiB saved", "cumulative saved",
	    "CPU s / cum. MiB", "mem_used_total at end", "hot recompressions", "hot `n` marks", "passes")
	row("---", "---:", "---:", "---:", "---:", "---:", "---:", "---:", "---:", "---:")
	row("daemon (interval " g("churn.interval_s") " s, idle age " g("churn.idle_age_s") " s)",
	    s("churn.daemon.kernel_write_s", 3), mib("churn.daemon.saved_end_bytes"),
	    f("churn.daemon.cpu_s_per_mib_saved", 4), mib("churn.daemon.bytes_saved_cumulative"),
	    f("churn.daemon.cpu_s_per_mib_saved_cumulative", 4), mib("churn.daemon.end.mem_used_total"),
	    g("churn.daemon.hot_recompressions"), g("churn.daemon.hot_incompressible_marks"),
	    g("churn.daemon.state.passes"))
	row("naive job (idle all + recompress + compact)", s("churn.naive.kernel_write_s", 3),
	    mib("churn.naive.saved_end_bytes"), f("churn.naive.cpu_s_per_mib_saved", 4),
	    mib("churn.naive.bytes_saved_cumulative"), f("churn.naive.cpu_s_per_mib_saved_cumulative", 4),
	    mib("churn.naive.end.mem_used_total"), g("churn.naive.hot_recompressions"),
	    g("churn.naive.hot_incompressible_marks"), g("churn.naive.runs"))
	print "\nDaemon / naive CPU per MiB saved: " f("churn.cpu_per_mib_ratio", 3) " (at the end), " \
	      f("churn.cpu_per_mib_ratio_cumulative", 3) " (cumulative). Daemon: " g("churn.daemon.empty_passes") \
	      " of its passes saved nothing and took " s("churn.daemon.empty_passes_kernel_s", 3) \
	      " of kernel writes; process CPU over the run " s("churn.daemon.process_cpu_s", 2) \
	      "; deferrals logged: " g("churn.daemon.deferrals") ". Naive job: first run " \
	      s("churn.naive.first_run_kernel_s", 3) ", later runs " s("churn.naive.later_run_kernel_s", 3) " each."
	failed("churn")

	print "\n## 3. Responsiveness (emulated CPU)\n"
	row("write", "time")
	row("---", "---:")
	row("naive: one `type=idle` write over the whole device", s("latency.naive_single_write_s", 3))
	row("`idle` = all (run 1)", s("latency.batched.run1.idle_write_s", 3))
	split("huge_idle idle huge", T, " ")
	for (i = 1; i <= 3; i++) {
		p = "latency.batched.run1." T[i]
		row("`type=" T[i] " max_pages=" g("latency.batched.max_pages") "` (run 1): " g(p ".writes") \
		    " writes, " s(p ".total_s", 3) " in all: " g(p ".each_s"), "longest " s(p ".max_s", 3))
	}
	row("`compact` (run 1)", s("latency.batched.run1.compact_write_s", 3))
	row("**longest write of a first pass**, median of " g("latency.reps") " runs (min–max)",
	    "**" s("latency.batched.longest_write_s", 3) "** (" f("latency.batched.longest_write_min_s", 3) \
	    "–" f("latency.batched.longest_write_max_s", 3) ")")
	row("next pass (zram-recompd --once on the recompressed device): " \
	    g("latency.next.run1.recompress_writes") " recompress writes, " \
	    s("latency.next.run1.kernel_write_s", 3) " reported, " g("latency.next.run1.skipped_steps") \
	    " steps skipped (nothing left to improve); idle mark " s("latency.next.run1.idle_mark_s", 3) \
	    ", median", "longest " s("latency.next.longest_write_s", 3))
	row("kernel: `type=idle max_pages=" g("latency.batched.max_pages") "` write over " \
	    g("latency.walk.recompressed_slots") " recompressed slots (" \
	    g("latency.walk.us_per_recompressed_slot") " µs each; what zram-recompd now skips), median",
	    s("latency.walk.max_s", 3))
	row("first pass, `type=idle max_pages=1024`: " g("latency.sweep.b1024.writes") " writes, " \
	    f("latency.sweep.b1024.kernel_ratio", 3) " × the kernel time of 2048 (run 1); median",
	    "longest " s("latency.sweep.b1024.max_s", 3))
	row("first pass, `type=idle max_pages=512`: " g("latency.sweep.b512.writes") " writes, " \
	    f("latency.sweep.b512.kernel_ratio", 3) " × the kernel time of 2048 (run 1); median",
	    "longest " s("latency.sweep.b512.max_s", 3))
	row("zram-recompd's own first pass, max-write-ms = 100 (default): " g("latency.own.bounded.writes") \
	    " writes, " s("latency.own.bounded.kernel_write_s", 3) ", " f("latency.own.bounded.kernel_s_per_mib_saved", 3) \
	    " s per MiB saved (" f("latency.own.kernel_ratio", 3) " × fixed batches)", "longest " s("latency.own.bounded.longest_write_s", 3))
	row("the same with fixed batches (max-write-ms = 0, 2048 pages): " g("latency.own.fixed.writes") \
	    " writes, " s("latency.own.fixed.kernel_write_s", 3) ", " f("latency.own.fixed.kernel_s_per_mib_saved", 3) \
	    " s per MiB saved", "longest " s("latency.own.fixed.longest_write_s", 3))
	for (j = 1; j <= nk; j++)
		if (has(KP[j] "latency.own.bounded.longest_write_s"))
			row("the same on " g(KP[j] "meta.kernel") ": max-write-ms " s(KP[j] "latency.own.bounded.kernel_write_s", 3) \
			    " (" f(KP[j] "latency.own.kernel_ratio", 3) " × fixed), fixed " s(KP[j] "latency.own.fixed.kernel_write_s", 3) \
			    " (longest " s(KP[j] "latency.own.fixed.longest_write_s", 3) ")", "longest " s(KP[j] "latency.own.bounded.longest_write_s", 3))
	row("**longest single write of a default zram-recompd pass (first or next)**",
	    "**" s("latency.longest_write_s", 3) "**")
	row("mean recompress write (batched; --once: sum / writes)",
	    s("latency.batched.recompress_mean_s", 3) " (" s("latency.once_mean_write_upper_s", 3) ")")
	row("SIGTERM → exit during a first pass (3 runs)", s("latency.sigterm.run1.exit_s", 3) ", " \
	    s("latency.sigterm.run2.exit_s", 3) ", " s("latency.sigterm.run3.exit_s", 3))
	failed("latency")

	print "\n## 4. Overhead of the idle daemon (interval-sec = 3600, " g("overhead.window_s") " s watched)\n"
	row("figure", "no watchdog", "WATCHDOG_USEC = " f("overhead.watchdog.watchdog_usec", 0) " µs")
	row("---", "---:", "---:")
	row("wake-ups (voluntary context switches, all threads)", g("overhead.plain.wakeups"),
	    g("overhead.watchdog.wakeups") " (pings expected: " g("overhead.watchdog.expected_pings_min") \
	    "–" g("overhead.watchdog.expected_pings_max") ")")
	row("CPU (utime + stime, 10 ms ticks)", g("overhead.plain.cpu_ticks"), g("overhead.watchdog.cpu_ticks"))
	row("VmHWM", g("overhead.plain.vmhwm_kb") " kB", g("overhead.watchdog.vmhwm_kb") " kB")
	row("RSS by mapping (no watchdog): binary, libraries, [heap], anonymous maps, [stack]",
	    g("overhead.plain.rss_binary_kb") ", " g("overhead.plain.rss_libraries_kb") ", " \
	    g("overhead.plain.rss_heap_kb") ", " g("overhead.plain.rss_anon_maps_kb") ", " \
	    g("overhead.plain.rss_stack_kb") " kB", "–")
	row("RSS at the end: anonymous + file + shmem (the guest's libraries live in tmpfs)",
	    g("overhead.plain.rss_anon_kb") " + " g("overhead.plain.rss_file_kb") " + " \
	    g("overhead.plain.rss_shmem_kb") " kB",
	    g("overhead.watchdog.rss_anon_kb") " + " g("overhead.watchdog.rss_file_kb") " + " \
	    g("overhead.watchdog.rss_shmem_kb") " kB")
	row("USS (private: what the daemon itself costs) / PSS, smaps_rollup", g("overhead.plain.uss_kb") " / " \
	    g("overhead.plain.pss_kb") " kB", g("overhead.watchdog.uss_kb") " / " g("overhead.watchdog.pss_kb") " kB")
	if (has("overhead.plain.uss_own_kb"))
		print "\nPrivate pages of the idle daemon (smaps, read once by awk): " g("overhead.plain.uss_lib_text_kb") " kB pages of shared library files " \
		      "that no other process in the VM maps + " g("overhead.plain.uss_own_kb") \
		      " kB the daemon's own (anonymous memory, relocated library data, the program)."
	print "\nChurn run: USS at most " g("churn.daemon.uss_max_kb") " kB (sampled once per interval), " \
	      g("churn.daemon.proc.uss_kb") " kB at its end (PSS " g("churn.daemon.proc.pss_kb") " kB)."
	print "\nPeak RSS over every daemon run of the bench (churn included): " g("overhead.peak_rss_mib") \
	      " MiB (churn: VmHWM " g("churn.daemon.proc.vmhwm_kb") " kB; at its end RssAnon " \
	      g("churn.daemon.proc.rss_anon_kb") " kB, RssShmem " g("churn.daemon.proc.rss_shmem_kb") " kB)."
	failed("overhead")

	print "\n## 5. block_state parser, natively (" g("parser.slots") " slots, " \
	      sprintf("%.0f", num("parser.bytes") / 1e6) " MB)\n"
	row("reader", "time", "GB/s")
	row("---", "---:", "---:")
	row("blockstate_parse, counts", s("parser.bsparse.parse_s", 3), f("parser.bsparse.parse_gbps", 2))
	row("blockstate_parse, counts + bitmaps", s("parser.bsparse.parse_bitmaps_s", 3),
	    f("parser.bsparse.parse_bitmaps_gbps", 2))
	row("blockstate_read (256 KiB reads, page cache)", s("parser.bsparse.read_s", 3),
	    f("parser.bsparse.read_gbps", 2))
	row(g("parser.awk.program") ", the same seven counts", s("parser.awk.seconds", 3), f("parser.awk.gbps", 2))
	row("grep -c, one flag only", s("parser.grep.seconds", 3), f("parser.grep.gbps", 2))
	print "\nParser = " g("parser.times_awk") "× awk, " g("parser.times_grep_one_flag") \
	      "× grep -c (which counts one flag of seven); counts equal bsgen's: " \
	      g("parser.bsparse.counts_match_bsgen") "."

	print "\n## Large devices, natively (fake /sys, bsgen block_state; tests/bench/scale.sh)\n"
	row("slots × devices", "block_state", "user CPU per device pass", "per round", "per M slots", "USS peak", "USS between passes",
	    "USS at end: library text / own", "PSS peak", "VmHWM")
	row("---", "---:", "---:", "---:", "---:", "---:", "---:", "---:", "---:", "---:")
	n = split("s1m_d1 s4m_d1 s16m_d1 s1m_d8 s1m_d32", SC, " ")
	for (i = 1; i <= n; i++) {
		p = "scale." SC[i]
		if (!has(p ".slots"))
			continue
		row(sprintf("%.0f M × %d", num(p ".slots") / 1048576, num(p ".devices")),
		    sprintf("%.0f MB", num(p ".block_state_bytes") / 1e6), s(p ".user_s_per_pass", 3),
		    s(p ".user_s_per_round", 3), s(p ".user_s_per_mslot", 4), g(p ".uss_peak_kb") " kB",
		    g(p ".uss_between_kb") " kB", g(p ".uss_lib_text_end_kb") " / " g(p ".uss_own_end_kb") " kB",
		    g(p ".pss_peak_kb") " kB", g(p ".vmhwm_kb") " kB")
	}

	print "\n## The largest device the VM's memory allows (real kernel, emulated CPU; bench_large.sh)\n"
	if (!has("large.slots")) {
		print "not measured"
	} else {
		row("slots (data)", "block_state read", "pass 1: user / system CPU", "later passes: user / system CPU each", "user per M slots", "USS peak", "USS between passes", "PSS peak", "VmHWM")
		row("---:", "---:", "---:", "---:", "---:", "---:", "---:", "---:", "---:")
		row(g("large.slots") " (" g("large.data_mib") " MiB of " g("large.memavailable_mib") " available)",
		    s("large.block_state_read_s", 2), s("large.pass1.user_s", 2) " / " s("large.pass1.sys_s", 2),
		    s("large.later.user_s_per_pass", 3) " / " s("large.later.sys_s_per_pass", 3) " (" g("large.later.passes") ")",
		    s("large.later.user_s_per_mslot", 3), g("large.uss_peak_kb") " kB", g("large.uss_between_kb") " kB",
		    g("large.pss_peak_kb") " kB", g("large.vmhwm_kb") " kB")
		print "\nPrivate pages after the last pass: " g("large.uss_anon_kb") " kB anonymous, " \
		      g("large.uss_file_kb") " kB file-backed (program and library pages only the daemon maps in the VM); " \
		      "of all private pages " g("large.uss_lib_text_kb") " kB are pages of library files, " \
		      g("large.uss_own_kb") " kB the daemon's own."
	}
	failed("large")

	print "\n## 6. Advisor (`advise --device`, then `--once`)\n"
	if (V["advise.available"] == "false") {
		print "not measured: advise not available"
	} else {
		row("figure", "predicted (" g("advise.sampled_pages") " samples, seed " g("advise.seed") ")",
		    "error", "predicted (every slot: " g("advise.all.sampled_pages") ")", "error", "measured")
		row("---", "---:", "---:", "---:", "---:", "---:")
		row("compr_data_size", mib("advise.predicted_compr_bytes"), f("advise.compr_error_pct", 2) " %",
		    mib("advise.all.predicted_compr_bytes"), f("advise.all.compr_error_pct", 2) " %",
		    mib("advise.measured_compr_bytes"))
		row("mem_used_total (after compaction)", mib("advise.predicted_mem_bytes"),
		    f("advise.mem_error_pct", 2) " %", mib("advise.all.predicted_mem_bytes"),
		    f("advise.all.mem_error_pct", 2) " %", mib("advise.measured_mem_bytes"))
		row("saving of mem_used_total", "–", f("advise.saving_error_pct", 2) " %", "–",
		    f("advise.all.saving_error_pct", 2) " %", "–")
		print "\nSpeed (five algorithms): " g("advise.sampled_pages") " pages in " s("advise.wall_s", 2) \
		      " (" g("advise.vm_pages_per_s") " pages/s) and " g("advise.all.sampled_pages") " in " \
		      s("advise.all.wall_s", 2) " (" g("advise.all.vm_pages_per_s") " pages/s) in the VM, emulated;" \
		      " natively " g("advise.native.pages_per_s") " pages/s (" g("advise.native.pages") " pages)."
	}
	failed("advise")

	print "\n## Targets\n"
	row("target", "measured", "limit", "result")
	row("---", "---:", "---:", "---")
	tl = "static_once_memory static_cold_memory swap_daemon_freed swap_daemon_throughput swap_daemon_hot_recompressed"
	for (j = 1; j <= nk; j++) {
		t = KP[j]
		sub(/\.$/, "", t)
		tl = tl " static_once_memory_" t " static_cold_memory_" t " swap_daemon_freed_" t " swap_daemon_throughput_" t \
		     " swap_daemon_hot_recompressed_" t
	}
	tl = tl " longest_write bounded_kernel_time"
	for (j = 1; j <= nk; j++) {
		t = KP[j]
		sub(/\.$/, "", t)
		tl = tl " longest_write_" t " bounded_kernel_time_" t
	}
	ns = split(V["burst.shapes"], BS, " ")
	for (i = 1; i <= ns; i++) {
		tl = tl " burst_freed_" BS[i] " burst_throughput_" BS[i] " burst_hot_" BS[i]
		for (j = 1; j <= nk; j++) {
			t = KP[j]
			sub(/\.$/, "", t)
			tl = tl " burst_freed_" BS[i] "_" t " burst_throughput_" BS[i] "_" t " burst_hot_" BS[i] "_" t
		}
	}
	tl = tl " dict_cold_memory dict_cold_readback dict_intact"
	for (j = 1; j <= nk; j++) {
		t = KP[j]
		sub(/\.$/, "", t)
		tl = tl " dict_cold_memory_" t " dict_cold_readback_" t " dict_intact_" t
	}
	split(tl " churn_cpu_per_mib churn_hot_recompressed sigterm_exit " \
	      "peak_rss uss_idle uss_passes scale_cpu_64g scale_uss_64g large_uss idle_wakeups idle_wakeups_watchdog " \
	      "parser_throughput parser_vs_awk advisor_error", I, " ")
	for (i = 1; i in I; i++) {
		p = "targets." I[i]
		# none for a kernel without targets (arm64: its figures are measurements)
		if (!((p ".text") in V))
			continue
		r = V[p ".result"]
		row(V[p ".text"], g(p ".measured") " " V[p ".unit"], V[p ".limit"],
		    r == "met" ? "met" : r == "missed" ? "**missed** (" g(p ".times_limit") " × the limit)" : \
		    g(p ".note"))
	}

	print "\n## Measurements without a target\n"
	row("figure", "measured")
	row("---", "---:")
	# per kernel, as the targets: the first kernel, then meta.kernel_prefixes
	for (j = 0; j <= nk; j++) {
		t = ""
		if (j > 0) {
			t = KP[j]
			sub(/\.$/, "", t)
			t = "_" t
		}
		split("static_once_memory static_once_compr static_once_cpu_per_mib", MI, " ")
		for (i = 1; i <= 3; i++) {
			p = "measurements." MI[i] t
			if (!((p ".text") in V))
				continue
			row(V[p ".text"], has(p ".measured") ? V[p ".measured"] " " V[p ".unit"] : "not measured")
		}
	}
}
