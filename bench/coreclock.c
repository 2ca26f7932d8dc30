/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * coreclock.c - a chain of dependent multiplies timed with the fenced counter reads the
 * samples use. Each multiply takes the previous one's result, so nothing overlaps: the
 * chain's time is its length in cycles at the core's clock. The loop's own counter and
 * branch sit off that path. The asm hides the values from the compiler, which could
 * otherwise fold the chain to a constant, and its memory clobber keeps it between the
 * counter reads, whose asm clobbers memory too.
 */
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
#else
double dpk_bench_coreclock_timing(void)
{
	return 0;
}
#endif
