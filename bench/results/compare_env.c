/* SPDX-License-Identifier: BSD-3-Clause */
/* compare_env.c - what differs between the two files' runs, as warnings (compare.h). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "compare.h"
#include "witness.h"

void dpk_cmp_warn(struct dpk_cmp_report *r, const char *fmt, ...)
{
	va_list ap;

	if (r->nwarn >= DPK_CMP_WARN_MAX)
		return;
	va_start(ap, fmt);
	vsnprintf(r->warn[r->nwarn++], sizeof(r->warn[0]), fmt, ap);
	va_end(ap);
}

static void env_differs(struct dpk_cmp_report *r, const struct dpk_results *a,
                        const struct dpk_results *b, const char *key, const char *what)
{
	const struct dpk_res_env *x = dpk_results_env(a, key), *y = dpk_results_env(b, key);
	const char *vx = x && x->value[0] ? x->value : "unknown";
	const char *vy = y && y->value[0] ? y->value : "unknown";

	if (strcmp(vx, vy) != 0)
		dpk_cmp_warn(r, "different %s: base \"%s\", new \"%s\"", what, vx, vy);
}

void dpk_cmp_env_warnings(struct dpk_cmp_report *r, const struct dpk_results *a,
                          const struct dpk_results *b)
{
	env_differs(r, a, b, "cpu_model", "CPU model");
	/* A file from before the item has none, which is no difference to warn of. */
	if (dpk_results_env(a, "libraries") && dpk_results_env(b, "libraries"))
		env_differs(r, a, b, "libraries", "libraries timed");
	/* Figures in cycles do not depend on the counter's rate. */
	if (!r->cycles && isfinite(a->tsc_hz) && isfinite(b->tsc_hz) && a->tsc_hz > 0 &&
	    fabs(b->tsc_hz / a->tsc_hz - 1.0) > 0.001)
		dpk_cmp_warn(
		        r,
		        "TSC frequency differs by %+.2f%%: base %.6g MHz, new %.6g MHz (ticks are "
		        "not comparable across clocks)",
		        (b->tsc_hz / a->tsc_hz - 1.0) * 100.0, a->tsc_hz / 1e6, b->tsc_hz / 1e6);
	else if (!r->cycles && isfinite(a->tsc_hz) != isfinite(b->tsc_hz))
		dpk_cmp_warn(r, "TSC frequency is known in only one file");
	/* Figures in cycles rest on a multiply of 3 cycles in both files; the clock check lets
	 * 10% either way pass, and load moves its reading by a few percent (docs/method.md,
	 * "Core cycles"). */
	if (r->cycles && isfinite(a->mul_cycles) && isfinite(b->mul_cycles) &&
	    fabs(b->mul_cycles / a->mul_cycles - 1.0) > DPK_CMP_MUL_CYCLES_DIFFER)
		dpk_cmp_warn(
		        r,
		        "core-clock multiply differs: base %.2f cycles, new %.2f (x%.3f); both "
		        "files' cycles take it as 3, so their ratio carries that factor",
		        a->mul_cycles, b->mul_cycles, b->mul_cycles / a->mul_cycles);
	if (isfinite(a->witness) && isfinite(b->witness) &&
	    fmax(a->witness, b->witness) > dpk_bench_witness_limit(fmin(a->witness, b->witness)))
		dpk_cmp_warn(
		        r,
		        "speed witness differs: %s base %.2f ticks, new %.2f (x%.2f); the machine "
		        "was "
		        "slower during the %s run, and its figures with it",
		        a->witness_fastest == b->witness_fastest
		                ? dpk_results_witness_kind(a)
		                : "reading (the fastest in the file from before the reference)",
		        a->witness, b->witness, b->witness / a->witness,
		        b->witness > a->witness ? "new" : "base");
	for (unsigned i = 0; i < 2; i++) {
		const struct dpk_results *x = i == 0 ? a : b;

		if (x->witness_slow_only)
			dpk_cmp_warn(r,
			             "%s: %u case runs kept mostly samples the speed witness found "
			             "slow; "
			             "their figures may be slowed",
			             i == 0 ? "base" : "new", x->witness_slow_only);
	}
	/* The store-bypass mitigation on in one run and off in the other, as the item's verdict
	 * says (env.c judges every mitigated form degraded, every unmitigated one ok); only
	 * where both files have the item (older files lack it). The forms' wording differs
	 * among themselves for no effect on the figures. */
	const struct dpk_res_env *sa = dpk_results_env(a, "ssb"), *sb = dpk_results_env(b, "ssb");
	if (sa && sb &&
	    ((strcmp(sa->verdict, "degraded") == 0 && strcmp(sb->verdict, "ok") == 0) ||
	     (strcmp(sa->verdict, "ok") == 0 && strcmp(sb->verdict, "degraded") == 0)))
		dpk_cmp_warn(r,
		             "speculative store bypass mitigated in one run only: base \"%s\", new "
		             "\"%s\" "
		             "(ring figures here were up to 3x slower with it)",
		             sa->value, sb->value);
	env_differs(r, a, b, "compiler", "compiler");
	env_differs(r, a, b, "cflags", "compiler flags");
	env_differs(r, a, b, "build_type", "build type");
	if (strcmp(a->lcores, b->lcores) != 0)
		dpk_cmp_warn(r, "different lcores: base \"%s\", new \"%s\"",
		             a->lcores[0] ? a->lcores : "unknown",
		             b->lcores[0] ? b->lcores : "unknown");
	if (strcmp(a->placements, b->placements) != 0)
		dpk_cmp_warn(r, "different placement sets: base \"%s\", new \"%s\"",
		             a->placements[0] ? a->placements : "unknown",
		             b->placements[0] ? b->placements : "unknown");
}
