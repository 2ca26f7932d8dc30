/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The results reader through every path compare, spread, report and ab take: the input is
 * one results file, or two split at its first NUL byte (which no results file holds). Each
 * is loaded as the commands load it (from a file, by path); what loads is compared, paired,
 * spread and drawn, with options drawn from a hash of the input, and every text goes to
 * memory, where it must be UTF-8 without control characters, and every JSON must parse.
 * A refusal must say why in such text too.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ab.h"
#include "compare.h"
#include "fuzz.h"
#include "html.h"
#include "json_read.h"
#include "results.h"
#include "spread.h"

static const char *const some_patterns[] = {"*", "synth*", "ring/*", "*/placement:core"};

/* Fail unless the @p n bytes at @p s, which @p what names, parse as JSON. */
static void check_json(const char *what, const char *s, size_t n)
{
	struct dpk_jv v;
	char err[256];

	if (dpk_jv_parse(s, n, &v, err, sizeof(err)) != 0)
		dpk_fuzz_fail("%s is not JSON: %s", what, err);
	dpk_jv_free(&v);
}

/* Load file @p i of the input from @p f as the commands do; false when refused, after
 * checking the reason. */
static bool load(struct dpk_fuzz_file *f, const uint8_t *data, size_t n, struct dpk_results *r)
{
	char err[512] = "";

	dpk_fuzz_file_set(f, data, n);
	if (dpk_results_load(f->path, r, err, sizeof(err)) == 0)
		return true;
	if (!err[0])
		dpk_fuzz_fail("a results file was refused without a reason");
	dpk_fuzz_check_text("the reason a results file was refused", err, strlen(err), false);
	return false;
}

static void compare(const struct dpk_results *a, const struct dpk_results *b, uint64_t h)
{
	const struct dpk_cmp_options o = {
	        .noise = (h & 1) ? 0.02 : 0.005,
	        .fail_above = (h & 2) ? 0.05 : -1.0,
	        .patterns = some_patterns,
	        .npatterns = (h >> 2) & 1,
	        .unit = (enum dpk_cmp_unit_choice)((h >> 3) % 3),
	        .run_sigma = (h & 32) ? -1.0 : 0.0,
	        .resamples = 64,
	};
	const struct dpk_results *files[2] = {a, b};
	const struct dpk_html_options ho = {.cycles = (h >> 6) & 1};
	struct dpk_fuzz_out t = {0}, j = {0}, p = {0};
	struct dpk_cmp_report rep;
	char err[512] = "";

	if (dpk_compare(a, b, &o, &rep, err, sizeof(err)) != 0) {
		dpk_fuzz_check_text("why compare refused", err, strlen(err), false);
		return;
	}
	dpk_cmp_print(dpk_fuzz_out_open(&t), a, b, &rep);
	dpk_fuzz_out_close(&t);
	dpk_fuzz_check_text("compare's table", t.buf, t.len, false);
	for (unsigned i = 0; i < rep.nwarn; i++)
		dpk_fuzz_check_text("a compare warning", rep.warn[i], strlen(rep.warn[i]), false);
	if (dpk_cmp_write_json(dpk_fuzz_out_open(&j), a, b, &rep, 0) != 0)
		dpk_fuzz_fail("compare --json failed to write to memory");
	dpk_fuzz_out_close(&j);
	check_json("compare --json", j.buf, j.len);
	if (dpk_html_report(dpk_fuzz_out_open(&p), files, 2, &rep, &ho) != 0)
		dpk_fuzz_fail("the page of a comparison failed to write to memory");
	dpk_fuzz_out_close(&p);
	dpk_fuzz_check_text("the page of a comparison", p.buf, p.len, false);
	dpk_cmp_report_free(&rep);
	dpk_fuzz_out_free(&t);
	dpk_fuzz_out_free(&j);
	dpk_fuzz_out_free(&p);
}

static void ab(const struct dpk_results *a, const struct dpk_results *b, uint64_t h)
{
	const struct dpk_ab_options o = {.noise = (h & 1) ? 0.01 : 0.05,
	                                 .fail_above = (h & 2) ? 0.02 : -1.0,
	                                 .patterns = some_patterns,
	                                 .npatterns = (h >> 2) & 1};
	struct dpk_fuzz_out t = {0}, j = {0};
	struct dpk_ab_report rep;
	struct dpk_cmp_report cmp;
	char err[512] = "";

	if (dpk_ab_compare(a, b, &o, &rep, err, sizeof(err)) != 0) {
		dpk_fuzz_check_text("why ab refused", err, strlen(err), false);
		return;
	}
	dpk_ab_print(dpk_fuzz_out_open(&t), "base", "new", &rep);
	dpk_fuzz_out_close(&t);
	dpk_fuzz_check_text("ab's table", t.buf, t.len, false);
	if (dpk_ab_write_json(dpk_fuzz_out_open(&j), a, b, &rep, 0) != 0)
		dpk_fuzz_fail("ab --json failed to write to memory");
	dpk_fuzz_out_close(&j);
	check_json("ab --json", j.buf, j.len);
	if (dpk_ab_to_cmp(&rep, &cmp) == 0)
		dpk_cmp_report_free(&cmp);
	dpk_ab_report_free(&rep);
	dpk_fuzz_out_free(&t);
	dpk_fuzz_out_free(&j);
}

static void spread(const struct dpk_results *r, unsigned n, uint64_t h)
{
	const struct dpk_spread_options o = {.limit = (h & 1) ? 0.05 : 0.0,
	                                     .cycles = (h >> 1) & 1,
	                                     .patterns = some_patterns + 1,
	                                     .npatterns = (h >> 2) & 1};
	struct dpk_spread_sets sets = {0};
	struct dpk_spread s = {0};
	char err[512] = "";

	if (dpk_spread_compute(r, n, &o, &s, err, sizeof(err)) != 0)
		dpk_fuzz_check_text("why spread refused", err, strlen(err), false);
	else if (s.nruns >= 2 &&
	         dpk_spread_sets(&s, 2 + (unsigned)((h >> 3) % (s.nruns - 1)), &sets) == 0)
		free(sets.miss);
	dpk_spread_free(&s); /* whatever the result, as spread.h says */
}

/* The page of one file. */
static void page(const struct dpk_results *r, uint64_t h)
{
	const struct dpk_results *files[1] = {r};
	const struct dpk_html_options ho = {.title = "t", .cycles = h & 1};
	struct dpk_fuzz_out p = {0};

	if (dpk_html_report(dpk_fuzz_out_open(&p), files, 1, NULL, &ho) != 0)
		dpk_fuzz_fail("the page failed to write to memory");
	dpk_fuzz_out_close(&p);
	dpk_fuzz_check_text("the page", p.buf, p.len, false);
	dpk_fuzz_out_free(&p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct dpk_fuzz_file f[2];
	const uint8_t *cut = memchr(data, 0, size);
	const size_t n0 = cut ? (size_t)(cut - data) : size;
	const uint64_t h = dpk_fuzz_hash(data, size);
	struct dpk_results r[2];
	bool ok[2] = {false, false};

	if (!f[0].path[0]) {
		dpk_fuzz_file_init(&f[0], "base.json");
		dpk_fuzz_file_init(&f[1], "new.json");
	}
	memset(r, 0, sizeof(r));
	ok[0] = load(&f[0], data, n0, &r[0]);
	if (cut)
		ok[1] = load(&f[1], cut + 1, size - n0 - 1, &r[1]);
	if (ok[0] && (!cut || ok[1])) {
		const struct dpk_results *b = cut ? &r[1] : &r[0];

		page(&r[0], h);
		compare(&r[0], b, h);
		ab(&r[0], b, h >> 8);
		spread(r, cut ? 2 : 1, h >> 16);
	}
	dpk_results_free(&r[0]);
	dpk_results_free(&r[1]);
	return 0;
}
