// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * src/advise/recommend.c and report.c on hand-built engines with fixed sizes and CPU times:
 * which chain, threshold and alternative are recommended and why, and the exact text and
 * JSON printed for them. The expected output was checked byte for byte against the
 * advisor as it was before it was split into src/advise/.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "advise_internal.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

/*
 * 64 sampled pages standing for 64000 (scale 1000), primary lzo-rle, candidates lz4hc,
 * zstd and deflate:9, chain zstd, with fixed CPU times per page (comp, decomp in ns:
 * lzo-rle 10000/2000, lz4hc 40000/2000, zstd 20000/4000, deflate 60000/8000).
 *   kind 0: 24 pages zstd wins (3000 -> 1500), 24 nobody wins (600), 16 huge ones only
 *           deflate shrinks (4096 -> 2000): the chain zstd,deflate pays, and a threshold
 *   kind 1: every page huge and incompressible: nothing pays
 *   kind 2: 32 pages 3000 (zstd 1500, deflate 1400), 16 of 800 (zstd 500), 16 huge
 *           (deflate 3300): deflate alone is best, zstd the cheaper alternative
 */
static uint16_t sizes[64 * 4];
static struct adv_engine eng;
static struct adv_report rep;

static void build(int kind, unsigned threshold)
{
	static const uint16_t rows[3][3][4] = {
		{{3000, 2500, 1500, 1600}, {600, 600, 596, 598}, {4096, 4000, 3800, 2000}},
		{{4096, 4000, 3900, 3800}, {4096, 4000, 3900, 3800}, {4096, 4000, 3900, 3800}},
		{{3000, 2500, 1500, 1400}, {800, 760, 500, 700}, {4096, 4000, 3800, 3300}},
	};
	static const unsigned first_of[3][2] = {{24, 48}, {24, 48}, {32, 48}};
	static const uint64_t ns[4][2] = {
		{10000, 2000}, {40000, 2000}, {20000, 4000}, {60000, 8000}};

	memset(&eng, 0, sizeof(eng));
	memset(&rep, 0, sizeof(rep));
	eng.zs = zs_model_default(4096);
	eng.page_size = 4096;
	eng.nspecs = 4;
	eng.spec[0] = (struct adv_spec){COMP_LZO_RLE, COMP_LEVEL_DEFAULT, false};
	eng.spec[1] = (struct adv_spec){COMP_LZ4HC, COMP_LEVEL_DEFAULT, false};
	eng.spec[2] = (struct adv_spec){COMP_ZSTD, COMP_LEVEL_DEFAULT, false};
	eng.spec[3] = (struct adv_spec){COMP_DEFLATE, 9, false};
	eng.npages = 64;
	eng.sizes = sizes;
	for (unsigned p = 0; p < 64; p++) {
		unsigned row = p < first_of[kind][0] ? 0 : p < first_of[kind][1] ? 1 : 2;

		memcpy(sizes + p * 4, rows[kind][row], sizeof(rows[kind][row]));
	}
	for (unsigned s = 0; s < 4; s++) {
		eng.comp_ns[s] = 64 * ns[s][0];
		eng.decomp_ns[s] = 64 * ns[s][1];
	}
	rep.scale = 1000;
	rep.ncand = 3;
	for (unsigned i = 0; i < 3; i++)
		rep.cand_spec[i] = i + 1;
	rep.chain.n = 1;
	rep.chain.spec[0] = 2;
	adv_evaluate(&eng, NULL, 0, 0, rep.scale, &rep.primary);
	for (unsigned i = 0; i < rep.ncand; i++)
		adv_evaluate(&eng, &rep.cand_spec[i], 1, threshold, rep.scale, &rep.cand[i]);
	adv_evaluate(&eng, rep.chain.spec, rep.chain.n, threshold, rep.scale, &rep.chain.ev);
	adv_recommend(&eng, threshold, &rep);
}

static const struct adv_source file_src = {
	.name = "pages.bin",
	.pages = 80,
	.same_pages = 16,
	.represented = 64000,
	.sampled = 64,
	.read = 80,
	.sampling = true,
};

static const struct adv_source dev_src = {
	.name = "zram1",
	.device = true,
	.pages = 70,
	.same_pages = 4,
	.wb_pages = 2,
	.represented = 64000,
	.sampled = 64,
	.read = 66,
	.sampling = true,
	.block_state = true,
	.have_now = true,
	.now = {.v = {[MM_COMPR_DATA_SIZE] = 123456789,
		      [MM_MEM_USED_TOTAL] = 130000000,
		      [MM_HUGE_PAGES] = 17}},
	.chain_from = "the device's recomp_algorithm",
};

/* The expected output, one printed line per source line. */
/* clang-format off */
static const char want_text_chain[] =
	"pages.bin: 80 pages, 16 same-filled\n"
	"sampled 64 compressed pages (80 read); figures are scaled to the 64000 compressed pages of the file (x1000.00)\n"
	"primary lzo-rle: compr_data_size 144.9 MiB, mem_used_total after compaction 146.8 MiB, 16000 huge pages\n"
	"\n"
	"candidate          compr_data_size  mem_used_total          mem saving   improved   incompr.  comp MiB/s decomp MiB/s\n"
	"lzo-rle                  144.9 MiB       146.8 MiB           (primary)          -          -       390.6       1953.1\n"
	"lz4hc                    133.5 MiB       134.2 MiB    12.6 MiB ( 8.6%)      24000      40000        97.7       1953.1\n"
	"zstd                     110.6 MiB       111.6 MiB    35.2 MiB (24.0%)      24000      40000       195.3        976.6\n"
	"deflate:9                 80.9 MiB        82.7 MiB    64.1 MiB (43.6%)      40000      24000        65.1        488.3\n"
	"\n"
	"chain zstd (configuration default): compr_data_size 110.6 MiB, mem_used_total 111.6 MiB, saves 35.2 MiB (24.0%), 24000 improved, 40000 incompressible, ~1.4 s CPU\n"
	"\n"
	"recommendation: secondaries zstd,deflate:9 (a chain beats every single secondary by more than 0.5% of the pool); saves 66.4 MiB (45.2%) of pool memory after compaction, ~3.8 s CPU\n"
	"  echo 'algo=zstd priority=1' > recomp_algorithm\n"
	"  echo 'algo=deflate priority=2' > recomp_algorithm; echo 'priority=2 level=9' > algorithm_params\n"
	"  config: recompress-algorithms = zstd deflate\n"
	"          algorithm-params = 2:level=9\n"
	"  priorities must be contiguous from 1 (6.15+ marks every slot incompressible after a gap)\n"
	"  threshold-bytes = 2048 pays: keeps 66.4 MiB of the saving for 48.3% of the CPU time\n"
	"  compact after recompressing: until then the freed space stays in partly used zspages\n";

static const char want_text_nothing[] =
	"pages.bin: 80 pages, 16 same-filled\n"
	"sampled 64 compressed pages (80 read); figures are scaled to the 64000 compressed pages of the file (x1000.00)\n"
	"primary lzo-rle: compr_data_size 250.0 MiB, mem_used_total after compaction 250.0 MiB, 64000 huge pages\n"
	"\n"
	"candidate          compr_data_size  mem_used_total          mem saving   improved   incompr.  comp MiB/s decomp MiB/s\n"
	"lzo-rle                  250.0 MiB       250.0 MiB           (primary)          -          -       390.6       1953.1\n"
	"lz4hc                    250.0 MiB       250.0 MiB         0 B ( 0.0%)          0      64000        97.7       1953.1\n"
	"zstd                     250.0 MiB       250.0 MiB         0 B ( 0.0%)          0      64000       195.3        976.6\n"
	"deflate:9                250.0 MiB       250.0 MiB         0 B ( 0.0%)          0      64000        65.1        488.3\n"
	"\n"
	"chain zstd (configuration default): compr_data_size 250.0 MiB, mem_used_total 250.0 MiB, saves 0 B (0.0%), 0 improved, 64000 incompressible, ~1.4 s CPU\n"
	"\n"
	"recommendation: recompression will not pay for this data: the best chain saves 0.0% of the pool (less than 2%)\n";

static const char want_text_device[] =
	"zram1: 70 pages stored, 4 same-filled, 2 written back\n"
	"sampled 64 compressed pages among the stored slots of block_state (66 read); figures are scaled to the 64000 compressed pages of the device (x1000.00)\n"
	"note: reading a slot marks it accessed (clears its idle mark)\n"
	"note: secondary levels are not readable (algorithm_params is write-only); kernel defaults assumed\n"
	"threshold: 2048 bytes\n"
	"primary lzo-rle: compr_data_size 166.3 MiB, mem_used_total after compaction 168.8 MiB, 16000 huge pages\n"
	"  device now: compr_data_size 117.7 MiB, mem_used_total 124.0 MiB, 17 huge pages\n"
	"\n"
	"candidate          compr_data_size  mem_used_total          mem saving   improved   incompr.  comp MiB/s decomp MiB/s\n"
	"lzo-rle                  166.3 MiB       168.8 MiB           (primary)          -          -       390.6       1953.1\n"
	"lz4hc                    166.3 MiB       168.8 MiB         0 B ( 0.0%)          0      16000        97.7       1953.1\n"
	"zstd                     120.5 MiB       121.9 MiB    46.9 MiB (27.8%)      32000      16000       195.3        976.6\n"
	"deflate:9                117.4 MiB       118.5 MiB    50.2 MiB (29.8%)      32000          0        65.1        488.3\n"
	"\n"
	"chain zstd (the device's recomp_algorithm): compr_data_size 120.5 MiB, mem_used_total 121.9 MiB, saves 46.9 MiB (27.8%), 32000 improved, 16000 incompressible, ~1.1 s CPU\n"
	"\n"
	"recommendation: secondaries deflate:9 (the best single secondary; a second one adds less than 0.5% of the pool); saves 50.2 MiB (29.8%) of pool memory after compaction, ~3.0 s CPU\n"
	"  echo 'algo=deflate priority=1' > recomp_algorithm; echo 'priority=1 level=9' > algorithm_params\n"
	"  config: recompress-algorithms = deflate\n"
	"          algorithm-params = 1:level=9\n"
	"  cheaper: zstd saves 46.9 MiB for 35.5% of the CPU time\n"
	"  priorities must be contiguous from 1 (6.15+ marks every slot incompressible after a gap)\n"
	"  threshold 2048 as given\n"
	"  compact after recompressing: until then the freed space stays in partly used zspages\n";

static const char want_json_chain[] =
	"{\"pages\":70,\"same_pages\":4,\"primary\":{\"algo\":\"lzo-rle\""
	",\"compr_bytes\":151936000,\"mem_bytes\":153915392}"
	",\"candidates\":[{\"algo\":\"lz4hc\",\"level\":9,\"compr_bytes\":139936000"
	",\"mem_bytes\":140709888,\"pages_improved\":24000,\"pages_incompressible\":40000"
	",\"compress_mb_s\":102.4,\"decompress_mb_s\":2048.0},{\"algo\":\"zstd\",\"level\":3"
	",\"compr_bytes\":115936000,\"mem_bytes\":117051392,\"pages_improved\":24000"
	",\"pages_incompressible\":40000,\"compress_mb_s\":204.8,\"decompress_mb_s\":1024.0}"
	",{\"algo\":\"deflate\",\"level\":9,\"compr_bytes\":84800000,\"mem_bytes\":86740992"
	",\"pages_improved\":40000,\"pages_incompressible\":24000,\"compress_mb_s\":68.3"
	",\"decompress_mb_s\":512.0}],\"chain\":{\"algos\":[\"zstd\"]"
	",\"compr_bytes\":115936000,\"mem_bytes\":117051392}"
	",\"recommendation\":{\"pays\":true,\"secondaries\":[{\"priority\":1"
	",\"algo\":\"zstd\",\"level\":3},{\"priority\":2,\"algo\":\"deflate\",\"level\":9}]"
	",\"threshold\":2048,\"mem_saving_bytes\":69632000,\"compr_saving_bytes\":69536000"
	",\"cpu_seconds\":3.81,\"config\":{\"recompress-algorithms\":\"zstd deflate\""
	",\"algorithm-params\":\"2:level=9\"},\"sampled_pages\":64,\"scaled\":true"
	",\"reason\":\"a chain beats every single secondary by more than 0.5% of the pool\"}}\n";

static const char want_json_alt[] =
	"{\"pages\":80,\"same_pages\":16,\"primary\":{\"algo\":\"lzo-rle\""
	",\"compr_bytes\":174336000,\"mem_bytes\":176947200}"
	",\"candidates\":[{\"algo\":\"lz4hc\",\"level\":9,\"compr_bytes\":174336000"
	",\"mem_bytes\":176947200,\"pages_improved\":0,\"pages_incompressible\":16000"
	",\"compress_mb_s\":102.4,\"decompress_mb_s\":2048.0},{\"algo\":\"zstd\",\"level\":3"
	",\"compr_bytes\":126336000,\"mem_bytes\":127795200,\"pages_improved\":32000"
	",\"pages_incompressible\":16000,\"compress_mb_s\":204.8,\"decompress_mb_s\":1024.0}"
	",{\"algo\":\"deflate\",\"level\":9,\"compr_bytes\":123136000,\"mem_bytes\":124256256"
	",\"pages_improved\":32000,\"pages_incompressible\":0,\"compress_mb_s\":68.3"
	",\"decompress_mb_s\":512.0}],\"chain\":{\"algos\":[\"zstd\"]"
	",\"compr_bytes\":126336000,\"mem_bytes\":127795200}"
	",\"recommendation\":{\"pays\":true,\"secondaries\":[{\"priority\":1"
	",\"algo\":\"deflate\",\"level\":9}],\"threshold\":2048,\"mem_saving_bytes\":52690944"
	",\"compr_saving_bytes\":51200000,\"cpu_seconds\":2.98"
	",\"config\":{\"recompress-algorithms\":\"deflate\""
	",\"algorithm-params\":\"1:level=9\"}"
	",\"alternative\":{\"secondaries\":[{\"priority\":1,\"algo\":\"zstd\",\"level\":3}]"
	",\"mem_saving_bytes\":49152000,\"cpu_seconds\":1.06},\"sampled_pages\":64"
	",\"scaled\":true"
	",\"reason\":\"the best single secondary; a second one adds less than 0.5% of the pool\"}}\n";

static const char want_json_none[] =
	"{\"pages\":80,\"same_pages\":16,\"primary\":{\"algo\":\"lzo-rle\""
	",\"compr_bytes\":262144000,\"mem_bytes\":262144000}"
	",\"candidates\":[{\"algo\":\"lz4hc\",\"level\":9,\"compr_bytes\":262144000"
	",\"mem_bytes\":262144000,\"pages_improved\":0,\"pages_incompressible\":64000"
	",\"compress_mb_s\":102.4,\"decompress_mb_s\":2048.0},{\"algo\":\"zstd\",\"level\":3"
	",\"compr_bytes\":262144000,\"mem_bytes\":262144000,\"pages_improved\":0"
	",\"pages_incompressible\":64000,\"compress_mb_s\":204.8,\"decompress_mb_s\":1024.0}"
	",{\"algo\":\"deflate\",\"level\":9,\"compr_bytes\":262144000,\"mem_bytes\":262144000"
	",\"pages_improved\":0,\"pages_incompressible\":64000,\"compress_mb_s\":68.3"
	",\"decompress_mb_s\":512.0}],\"chain\":{\"algos\":[\"zstd\"]"
	",\"compr_bytes\":262144000,\"mem_bytes\":262144000}"
	",\"recommendation\":{\"pays\":false,\"secondaries\":[],\"threshold\":0"
	",\"mem_saving_bytes\":0,\"compr_saving_bytes\":0,\"cpu_seconds\":0.00"
	",\"sampled_pages\":64,\"scaled\":true"
	",\"reason\":\"recompression will not pay for this data: the best chain saves 0.0% of the pool (less than 2%)\"}}\n";
/* clang-format on */

static char out_buf[16384];

/* adv_print_text() or adv_print_json() into out_buf. */
static void print(bool json, const struct adv_source *src, unsigned threshold)
{
	struct adv_opts o = {.threshold = threshold};
	FILE *f = tmpfile();
	int saved;
	size_t n;

	assert_non_null(f);
	fflush(stdout);
	saved = dup(1);
	dup2(fileno(f), 1);
	if (json)
		adv_print_json(&eng, src, &o, &rep);
	else
		adv_print_text(&eng, src, &o, &rep);
	fflush(stdout);
	dup2(saved, 1);
	close(saved);
	rewind(f);
	n = fread(out_buf, 1, sizeof(out_buf) - 1, f);
	out_buf[n] = '\0';
	fclose(f);
}

/* A chain beats every single secondary; threshold 2048 keeps it all for 48% of the CPU. */
static void test_recommend_chain(void **state)
{
	(void)state;
	build(0, 0);
	assert_true(rep.pays);
	assert_int_equal(rep.best.n, 2);
	assert_int_equal(rep.best.spec[0], 2); /* zstd */
	assert_int_equal(rep.best.spec[1], 3); /* deflate:9 */
	assert_non_null(strstr(rep.reason, "a chain beats every single secondary"));
	assert_int_equal(rep.threshold, 2048);
	assert_int_equal(adv_saving(&rep.primary, &rep.best_thr),
			 adv_saving(&rep.primary, &rep.best.ev));
	assert_int_equal(rep.probe_thr, 1024);
	assert_false(rep.have_alt);
}

/* Nothing shrinks: no recommendation, and no threshold searched. */
static void test_recommend_nothing(void **state)
{
	(void)state;
	build(1, 0);
	assert_false(rep.pays);
	assert_non_null(strstr(rep.reason, "will not pay"));
	assert_int_equal(rep.threshold, 0);
	assert_int_equal(rep.probe_thr, 0);
}

/* deflate alone is best; zstd keeps 93% of its saving for 35% of the CPU time. */
static void test_recommend_alternative(void **state)
{
	(void)state;
	build(2, 2048);
	assert_true(rep.pays);
	assert_int_equal(rep.best.n, 1);
	assert_int_equal(rep.best.spec[0], 3);
	assert_true(rep.have_alt);
	assert_int_equal(rep.alt.n, 1);
	assert_int_equal(rep.alt.spec[0], 2);
	/* The user's threshold: none searched. */
	assert_int_equal(rep.threshold, 0);
	assert_int_equal(rep.probe_thr, 0);
}

/* Savings below 2% of the pool do not pay, however cheap. */
static void test_recommend_small_saving(void **state)
{
	(void)state;
	build(1, 0);
	/* One page of 64 shrinks from huge to 2000 bytes with zstd: under 1% of the pool. */
	sizes[2] = 2000;
	adv_evaluate(&eng, NULL, 0, 0, rep.scale, &rep.primary);
	memset(&rep.best, 0, sizeof(rep.best));
	rep.pays = rep.have_alt = false;
	adv_recommend(&eng, 0, &rep);
	assert_true(adv_saving(&rep.primary, &rep.best.ev) > 0);
	assert_false(rep.pays);
	assert_non_null(strstr(rep.reason, "saves 0.8% of the pool (less than 2%)"));
}

static void test_text_chain(void **state)
{
	(void)state;
	build(0, 0);
	print(false, &file_src, 0);
	assert_string_equal(out_buf, want_text_chain);
}

static void test_text_nothing(void **state)
{
	(void)state;
	build(1, 0);
	print(false, &file_src, 0);
	assert_string_equal(out_buf, want_text_nothing);
}

/* A loss (zsmalloc's classes can make one) is a negative saving, bytes and share alike,
 * and the chain line says "takes ... more" instead of a saving with a minus. */
static void test_text_loss(void **state)
{
	(void)state;
	build(1, 0);
	rep.cand[1].mem_bytes = rep.primary.mem_bytes + 147456;
	rep.chain.ev.mem_bytes = rep.primary.mem_bytes + 147456;
	print(false, &file_src, 0);
	assert_non_null(strstr(out_buf, "zstd                     250.0 MiB       250.1 MiB  "
					"-144.0 KiB (-0.1%)"));
	assert_non_null(strstr(out_buf, "mem_used_total 250.1 MiB, takes 144.0 KiB (0.1%) more, "));
	assert_null(strstr(out_buf, "+144"));
}

/* A device: its counts, the notes, the figures now; a given threshold and an alternative. */
static void test_text_device(void **state)
{
	(void)state;
	build(2, 2048);
	print(false, &dev_src, 2048);
	assert_string_equal(out_buf, want_text_device);
}

static void test_json(void **state)
{
	(void)state;
	build(0, 0);
	print(true, &dev_src, 0);
	assert_string_equal(out_buf, want_json_chain);
	build(2, 2048);
	print(true, &file_src, 2048);
	assert_string_equal(out_buf, want_json_alt);
	build(1, 0);
	print(true, &file_src, 0);
	assert_string_equal(out_buf, want_json_none);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_recommend_chain),
		cmocka_unit_test(test_recommend_nothing),
		cmocka_unit_test(test_recommend_alternative),
		cmocka_unit_test(test_recommend_small_saving),
		cmocka_unit_test(test_text_chain),
		cmocka_unit_test(test_text_nothing),
		cmocka_unit_test(test_text_loss),
		cmocka_unit_test(test_text_device),
		cmocka_unit_test(test_json),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
