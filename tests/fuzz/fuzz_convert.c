/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dpk-bench convert and the formats it writes: the input is one results file (or a
 * comparison, compare --json), or two split at the first NUL byte, whose comparison is
 * written as Markdown. Each output is read back by the rules of its format: the CSV has as
 * many fields in every record as in its header, each Markdown table row as many cells as
 * its header, Google Benchmark's JSON parses with its benchmarks array, and dpk-bench's
 * own JSON loads as a results file again and converts to the same bytes a second time.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "convert.h"
#include "fuzz.h"
#include "json_read.h"
#include "results.h"

/* The fields of the CSV record at *p (RFC 4180: quoted fields double their quotes), and
 * *p past its newline. */
static size_t csv_fields(const char **p, const char *end)
{
	size_t n = 1;
	bool quoted = false;

	for (; *p < end; (*p)++) {
		if (**p == '"')
			quoted = !quoted;
		else if (!quoted && **p == ',')
			n++;
		else if (!quoted && **p == '\n') {
			(*p)++;
			return n;
		}
	}
	if (quoted)
		dpk_fuzz_fail("CSV: a quoted field runs to the end");
	return n;
}

static void check_csv(const char *s, size_t len)
{
	const char *p = s, *end = s + len;
	size_t head = csv_fields(&p, end), row = 1;

	dpk_fuzz_check_text("CSV", s, len, false);
	while (p < end) {
		size_t n = csv_fields(&p, end);

		row++;
		if (n != head)
			dpk_fuzz_fail("CSV: record %zu has %zu fields, the header %zu", row, n,
			              head);
	}
}

/* The cells of a Markdown table row (GFM: a backslash escapes the next character). */
static size_t md_cells(const char *line, size_t n)
{
	size_t pipes = 0;

	for (size_t i = 0; i < n; i++) {
		if (line[i] == '\\')
			i++;
		else if (line[i] == '|')
			pipes++;
	}
	return pipes;
}

static void check_markdown(const char *s, size_t len)
{
	size_t head = 0, row = 0;

	dpk_fuzz_check_text("Markdown", s, len, false);
	for (const char *p = s, *end = s + len; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);

		row++;
		if (n && p[0] == '|') {
			size_t cells = md_cells(p, n);

			if (!head)
				head = cells;
			else if (cells != head)
				dpk_fuzz_fail(
				        "Markdown: line %zu has %zu cell borders, the header %zu",
				        row, cells, head);
		}
		p += n + 1;
	}
}

static void check_gbench(const char *s, size_t len)
{
	struct dpk_jv v;
	const struct dpk_jv *b;
	char err[256];

	if (dpk_jv_parse(s, len, &v, err, sizeof(err)) != 0)
		dpk_fuzz_fail("gbench JSON does not parse: %s", err);
	b = dpk_jv_get(&v, "benchmarks");
	if (!b || b->type != DPK_JV_ARRAY || !dpk_jv_get(&v, "context"))
		dpk_fuzz_fail("gbench JSON without its context and benchmarks");
	dpk_jv_free(&v);
}

/* dpk-bench's JSON of @p r loads again, with as many results, and writes the same. */
static void check_dpkit(const struct dpk_results *r, const char *s, size_t len)
{
	static struct dpk_fuzz_file again;
	struct dpk_results back;
	struct dpk_fuzz_out o = {0};
	char err[512];

	if (!again.path[0])
		dpk_fuzz_file_init(&again, "again.json");
	dpk_fuzz_file_set(&again, s, len);
	if (dpk_results_load(again.path, &back, err, sizeof(err)) != 0)
		dpk_fuzz_fail("convert --to dpkit wrote what does not load: %s", err);
	if (back.n != r->n)
		dpk_fuzz_fail("convert --to dpkit: %zu results, %zu loaded back", r->n, back.n);
	if (dpk_convert_dpkit(dpk_fuzz_out_open(&o), &back) != 0)
		dpk_fuzz_fail("convert --to dpkit of its own output failed");
	dpk_fuzz_out_close(&o);
	if (o.len != len || memcmp(o.buf, s, len) != 0)
		dpk_fuzz_fail("convert --to dpkit twice gives other bytes");
	dpk_fuzz_out_free(&o);
	dpk_results_free(&back);
}

/* One results file in every format. */
static void convert_one(const struct dpk_results *r)
{
	static const char *const names[] = {"gbench", "csv", "markdown", "dpkit"};

	for (unsigned k = 0; k < 4; k++) {
		struct dpk_fuzz_out o = {0};
		FILE *f = dpk_fuzz_out_open(&o);
		int rc;

		/* gbench needs the clock's frequency for its nanoseconds (convert checks). */
		if (k == 0 && !(r->tsc_hz > 0)) {
			dpk_fuzz_out_free(&o);
			continue;
		}
		rc = k == 0   ? dpk_convert_gbench(f, r)
		     : k == 1 ? dpk_convert_csv(f, r)
		     : k == 2 ? dpk_convert_markdown(f, r)
		              : dpk_convert_dpkit(f, r);
		dpk_fuzz_out_close(&o);
		if (rc == 0 && k == 0)
			check_gbench(o.buf, o.len);
		else if (rc == 0 && k == 1)
			check_csv(o.buf, o.len);
		else if (rc == 0 && k == 2)
			check_markdown(o.buf, o.len);
		else if (rc == 0)
			check_dpkit(r, o.buf, o.len);
		else if (k != 3) /* dpkit's writer nests less deep than the reader reads */
			dpk_fuzz_fail("convert --to %s failed to write to memory", names[k]);
		dpk_fuzz_out_free(&o);
	}
}

static void write_cmp(const struct dpk_cnv_cmp *c)
{
	struct dpk_fuzz_out o = {0};

	if (dpk_convert_markdown_cmp(dpk_fuzz_out_open(&o), c) != 0)
		dpk_fuzz_fail("the Markdown of a comparison failed to write to memory");
	dpk_fuzz_out_close(&o);
	check_markdown(o.buf, o.len);
	dpk_fuzz_out_free(&o);
}

/* A file that did not load as results may be a comparison. */
static void convert_comparison(const struct dpk_results *r)
{
	struct dpk_cnv_cmp c;
	char err[512] = "";

	if (r->doc.type != DPK_JV_OBJECT)
		return;
	if (dpk_convert_cmp_json(&r->doc, &c, err, sizeof(err)) == 0)
		write_cmp(&c);
	else
		dpk_fuzz_check_text("why a comparison was refused", err, strlen(err), false);
	dpk_convert_cmp_free(&c);
}

static void convert_two(const struct dpk_results *a, const struct dpk_results *b)
{
	const struct dpk_cmp_options o = {.noise = 0.02, .fail_above = -1.0, .resamples = 32};
	struct dpk_cmp_report rep;
	struct dpk_cnv_cmp c;
	char err[512];

	if (dpk_compare(a, b, &o, &rep, err, sizeof(err)) != 0)
		return;
	if (dpk_convert_cmp_report(&rep, a, b, &c) == 0)
		write_cmp(&c);
	dpk_convert_cmp_free(&c);
	dpk_cmp_report_free(&rep);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct dpk_fuzz_file f[2];
	const uint8_t *cut = memchr(data, 0, size);
	const size_t n0 = cut ? (size_t)(cut - data) : size;
	struct dpk_results r[2];
	char err[512];
	int rc[2] = {-EINVAL, -EINVAL};

	if (!f[0].path[0]) {
		dpk_fuzz_file_init(&f[0], "one.json");
		dpk_fuzz_file_init(&f[1], "two.json");
	}
	memset(r, 0, sizeof(r));
	dpk_fuzz_file_set(&f[0], data, n0);
	rc[0] = dpk_results_load(f[0].path, &r[0], err, sizeof(err));
	if (cut) {
		dpk_fuzz_file_set(&f[1], cut + 1, size - n0 - 1);
		rc[1] = dpk_results_load(f[1].path, &r[1], err, sizeof(err));
		if (rc[0] == 0 && rc[1] == 0)
			convert_two(&r[0], &r[1]);
	} else if (rc[0] == 0) {
		convert_one(&r[0]);
	} else {
		convert_comparison(&r[0]);
	}
	dpk_results_free(&r[0]);
	dpk_results_free(&r[1]);
	return 0;
}
