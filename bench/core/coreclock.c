/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * coreclock.c - a chain of dependent multiplies timed with the fenced counter reads the
 * samples use. Each multiply takes the previous one's result, so nothing overlaps: the
 * chain's time is its length in cycles at the core's clock. The whole loop is one asm
 * statement: its counter and branch sit off the chain's path, the compiler cannot fold the
 * chain to a constant, and no build type can put a store and a load of the chain's value
 * between two multiplies (an unoptimised build keeps a C variable on the stack and would do
 * so around every asm statement, adding a store-to-load forward to the chain). The memory
 * clobber keeps it between the counter reads, whose asm clobbers memory too. The checking
 * chain adds a register: some cores execute an add of a small constant at rename, in no
 * cycle at all, but none does so for an add of a register.
 */
#include <math.h>
#include <stdint.h>

#include <dpk/cycles.h>

#include "coreclock.h"
#include "hotcode.h"

#if defined(__x86_64__)
#define MUL8                                                                                       \
	"imul %0, %0\n\timul %0, %0\n\timul %0, %0\n\timul %0, %0\n\t"                             \
	"imul %0, %0\n\timul %0, %0\n\timul %0, %0\n\timul %0, %0\n\t"

__attribute__((noinline)) DPK_BENCH_HOT_CODE double dpk_bench_coreclock_timing(void)
{
	uint64_t x = 3, n = DPK_CORECLOCK_MULS / 8, t0 = dpk_tsc_begin(), t1;

	__asm__ volatile("1:\n\t" MUL8 "dec %1\n\tjnz 1b" : "+r"(x), "+r"(n) : : "cc", "memory");
	t1 = dpk_tsc_end();
	return (double)(t1 - t0);
}

#define ADD8                                                                                       \
	"add %2, %0\n\tadd %2, %0\n\tadd %2, %0\n\tadd %2, %0\n\t"                                 \
	"add %2, %0\n\tadd %2, %0\n\tadd %2, %0\n\tadd %2, %0\n\t"

__attribute__((noinline)) DPK_BENCH_HOT_CODE double dpk_bench_coreclock_add_timing(void)
{
	uint64_t x = 3, n = DPK_CORECLOCK_ADDS / 8, y = 1, t0 = dpk_tsc_begin(), t1;

	__asm__ volatile("1:\n\t" ADD8 "dec %1\n\tjnz 1b"
	                 : "+r"(x), "+r"(n)
	                 : "r"(y)
	                 : "cc", "memory");
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
	if (isfinite(add) && isfinite(mul) && add > 0 && mul > 0)
		cycles = mul / add * (double)DPK_CORECLOCK_ADDS / (double)DPK_CORECLOCK_MULS;
	*mul_cycles = cycles;
	return isfinite(cycles) && fabs(cycles - DPK_CORECLOCK_MUL_CYCLES) <=
	                                   DPK_CORECLOCK_MUL_TOLERANCE * DPK_CORECLOCK_MUL_CYCLES;
}
