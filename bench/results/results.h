/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * results.h - a dpk-bench results file (schema "dpkit-bench", version 1) read back for
 * the compare and report commands.
 *
 * Loading checks the schema name and version and the shape of every field the commands
 * use, and names the first problem with its path and position:
 * "results[3].ticks.p50: expected a number, found a string (line 120, column 14)".
 * Metadata a command only prints (environment, lcores) may be missing; it then reads as
 * unknown. Strings point into the parsed document, which the struct owns.
 *
 * What would mislead is refused too: a clock.tsc_hz that is not a positive number, a
 * negative count or figure, and (json_read.h) invalid UTF-8, lone surrogates and U+0000. Every string is printable: each control character (C0, DEL
 * and C1) is replaced by U+FFFD at load, so no command writes one to a terminal or a page.
 * A file holds at most DPK_RES_RESULTS_MAX results, besides the reader's limits.
 */
#ifndef DPK_BENCH_RESULTS_H
#define DPK_BENCH_RESULTS_H

#include <stdbool.h>
#include <stddef.h>

#include "json_read.h"

/** The most results a file may hold: thirty times a default run's. Each costs about a
 *  kilobyte loaded, and compare and report match results by id in a time that grows with
 *  the square of their number. */
#define DPK_RES_RESULTS_MAX 4096u

/** The figures of one result, per operation (ticks or ns). NaN where the file has null. */
struct dpk_res_summary {
	double min, p50, p90, p99, max, mean, stddev, cv;
	double p50_lo, p50_hi; /**< 95% confidence interval of the median */
};

/** One result: a case on a placement in one repeat. */
struct dpk_res_entry {
	const char *suite, *name, *placement, *unit, *status, *desc;
	const char *reason; /**< why it failed or was skipped; "" when ok */
	char params[128];   /**< "esize=8 n=32", in the file's order */
	char id[320];       /**< "ring/spsc_bulk/esize:8/n:32/placement:single" */
	char family[192];   /**< "ring/spsc_bulk" */
	unsigned repeat;
	bool ok;                               /**< status "ok" */
	double kept, samples, batch_ops, mops; /**< NaN when absent */
	double witness_slices, witness_fast;   /**< its slices and fast samples; NaN when absent */
	double witness_kept_rounds; /**< the slices its kept samples came from; NaN when absent */
	bool witness_slow_only;     /**< most kept samples slow by the run's final reference */
	double code_layouts;        /**< code offsets its figures span (bench.h); NaN when absent */
	unsigned nroles;            /**< lcores listed for the result (0 when absent) */
	struct dpk_res_summary ticks, ns;
	struct dpk_res_summary cycles; /**< in core cycles; all NaN when the file has none */
	double core_mhz;               /**< the core clock the cycles rest on; NaN when absent */
	double cycles_kept;            /**< the samples the cycles rest on; NaN when absent */
	double *raw;                   /**< raw_ticks sorted ascending, or NULL when not recorded */
	size_t nraw;
	double *raw_cycles; /**< raw_cycles sorted ascending, or NULL when not recorded */
	size_t nraw_cycles;
	/* Its rounds (files from before rounds have none), in the order run, and with floors
	 * each one's floor beside it. */
	double *round_p50;    /**< each round's median; NaN for one left out (none kept, or set
	                           aside for its floor) */
	double *round_cycles; /**< each round's median in core cycles (NaN: none, or left out),
	                           or NULL when the file has none */
	double *round_floor;  /**< each round's floor, or NULL without floors */
	double *round_whole;  /**< one lcore: each round's median as run, slow samples included
	                           (NaN: none), or NULL when the file has none */
	double *round_whole_cycles; /**< the same in core cycles, or NULL */
	double *round_whole_wit;    /**< those rounds' median witness timings (NaN: none), or
	                                 NULL */
	size_t nrounds;       /**< rounds kept (finite round_p50) */
	unsigned rounds_run;  /**< rounds run: the length of both arrays */
	double floor_rt;      /**< the case's own floor (median round floor), ticks; NaN: none */
	double floor_min, floor_max; /**< its round floors' range; NaN: none */
	unsigned floor_set_aside;    /**< rounds set aside for their floor */
	unsigned nregimes;           /**< regimes its rounds fell into (0: one) */
	const struct dpk_jv *obj;    /**< the result's object in the file, for what the fields
	                                  above leave out (rejected counts, roles, interleaving) */
};

/** One environment item as the file has it. */
struct dpk_res_env {
	const char *key, *label, *value, *verdict, *detail;
};

/** A results file. */
struct dpk_results {
	const char *path; /**< as given to dpk_results_load */
	struct dpk_jv doc;
	const char *started, *command;
	double tsc_hz;        /**< NaN when absent */
	double resolution;    /**< the counter's step in ticks (the larger of its GCD and its
	                           smallest change); 0 when absent */
	double mul_cycles;    /**< clock.mul_cycles: the cycles a multiply of the core-clock chain
	                           took against a chain of adds; NaN when absent */
	double witness;       /**< the speed witness's reference reading (its fastest, in a file
	                           from before the reference), ticks; NaN when absent */
	bool witness_fastest; /**< witness is the fastest reading: the file has no reference */
	unsigned witness_slow_only; /**< results with witness_slow_only (0 when absent) */
	const char *tsc_source;
	struct dpk_res_env *env;
	size_t nenv;
	char lcores[256];     /**< "main 0, workers 1@0 2@1 3@0", or "" when absent */
	char placements[128]; /**< "single,smt,core,...", or "" when absent */
	bool raw;             /**< options.raw */
	struct dpk_res_entry *e;
	size_t n;
};

/**
 * Read and check the results file at @p path into @p r (free with dpk_results_free even
 * on failure). On failure @p err holds one message naming the problem, without the path.
 * @retval 0 loaded
 * @retval -EINVAL not JSON, not schema dpkit-bench v1, a field of the wrong shape or value,
 *         or more than DPK_RES_RESULTS_MAX results
 * @retval -EFBIG over the reader's limits (DPK_JV_FILE_MAX, DPK_JV_VALUES_MAX)
 * @retval -ENOENT, -EACCES, -EISDIR, ... cannot be read
 * @retval -ENOMEM out of memory
 */
int dpk_results_load(const char *path, struct dpk_results *r, char *err, size_t errlen);

void dpk_results_free(struct dpk_results *r);

/** Leave out of @p r the results @p drop picks (with @p ctx), freeing what they own; the
 *  others keep their order. */
void dpk_results_drop(struct dpk_results *r,
                      bool (*drop)(const struct dpk_res_entry *e, const void *ctx),
                      const void *ctx);

/** The environment item @p key of @p r, or NULL. */
const struct dpk_res_env *dpk_results_env(const struct dpk_results *r, const char *key);

/** Whether @p pattern (an fnmatch glob) selects @p e: on its suite, suite/case, or id. */
bool dpk_results_match(const char *pattern, const struct dpk_res_entry *e);

/** Whether any of the @p n patterns selects @p e; with none, every entry is selected. */
bool dpk_results_selected(const char *const *patterns, unsigned n, const struct dpk_res_entry *e);

/** What the witness figure of @p r is: "reference reading", or "fastest reading" in a file
 * from before the reference. */
static inline const char *dpk_results_witness_kind(const struct dpk_results *r)
{
	return r->witness_fastest ? "fastest reading" : "reference reading";
}

#endif /* DPK_BENCH_RESULTS_H */
