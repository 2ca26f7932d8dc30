/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * coreclock.c - a chain of dependent multiplies timed with the fenced counter reads the
 * samples use. Each multiply takes the previous one's result, so nothing overlaps: the
 * chain's time is its length in cycles at the core's clock. The loop's own counter and
 * branch sit off that path. The asm hides the values from the compiler, which could
 * otherwise fold the chain to a constant, and its memory clobber keeps it between the
 * counter reads, whose asm clobbers memory too. The checking chain adds a register whose
 * value the compiler cannot see: some cores execute an add of a small constant at rename,
 * in no cycle at all, but none does so for a register.
 */
#include <math.h>
#include <stdint.h>

#include <dpk/cycles.h>

#include "coreclock.h"

#if defined(__x86_64__)
#define MUL8                                                                                       \
	"imul %0, %0\n\timul %0, %0\n\timul %0, %0\n\timul %0, %0\n\t"                             \
	"imul %0, %0\n\timul %0, %0\n\timul %0, %0\n\timul %0, %0\n\t"

__attribute__((noinline, aligned(64))) double dpk_bench_coreclock_timing(void)
{
	uint64_t x = 3, t0 = dpk_tsc_begin(), t1;

	for (unsigned i = 0; i < DPK_CORECLOCK_MULS / 8; i++)
		__asm__ volatile(MUL8 : "+r"(x) : : "memory");
	t1 = dpk_tsc_end();
	return (double)(t1 - t0);
}

#define ADD8                                                                                       \
	"add %1, %0\n\tadd %1, %0\n\tadd %1, %0\n\tadd %1, %0\n\t"                                 \
	"add %1, %0\n\tadd %1, %0\n\tadd %1, %0\n\tadd %1, %0\n\t"

__attribute__((noinline, aligned(64))) double dpk_bench_coreclock_add_timing(void)
{
	uint64_t x = 3, y = 1, t0, t1;

	__asm__ volatile("" : "+r"(y)); /* y is no constant to the compiler or the core */
	t0 = dpk_tsc_begin();
	for (unsigned i = 0; i < DPK_CORECLOCK_ADDS / 8; i++)
		__asm__ volatile(ADD8 : "+r"(x) : "r"(y) : "memory");
	t1 = dpk_tsc_end();
	return (double)(t1 - t0);
}
#else
double dpk_bench_coreclock_timing(void)
{
	return 0;
}

double dpk_bench_coreclock_add_timing(void)
{
	return 0;
}
#endif

bool dpk_bench_coreclock_judge(double mul_ticks, double add_ticks, double read_cost,
                               double *mul_cycles)
{
	const double add = add_ticks - read_cost, mul = mul_ticks - read_cost;
	double cycles = NAN;

	/* The add chain is DPK_CORECLOCK_ADDS cycles, the multiply chain DPK_CORECLOCK_MULS
	 * multiplies: a multiply is mul / add * ADDS / MULS cycles. */
	if (mul_ticks > 0 && add_ticks > 0 && isfinite(mul_ticks) && isfinite(add_ticks) &&
	    isfinite(read_cost) && add > 0 && mul > 0)
		cycles = mul / add * (double)DPK_CORECLOCK_ADDS / (double)DPK_CORECLOCK_MULS;
	*mul_cycles = cycles;
	return isfinite(cycles) && fabs(cycles - DPK_CORECLOCK_MUL_CYCLES) <=
	                                   DPK_CORECLOCK_MUL_TOLERANCE * DPK_CORECLOCK_MUL_CYCLES;
}
