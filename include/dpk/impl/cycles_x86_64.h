/* SPDX-License-Identifier: BSD-3-Clause */
/* x86-64 counter reads; included by <dpk/cycles.h> only. */
#ifndef DPK_CYCLES_H
#error "include <dpk/cycles.h>, not <dpk/impl/cycles_x86_64.h>"
#endif

static inline uint64_t dpk_tsc(void)
{
	uint32_t lo, hi;
	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}

static inline uint64_t dpk_tsc_begin(void)
{
	uint32_t lo, hi;
	/* The first lfence waits for earlier instructions, the second keeps later ones from
	 * starting before the read. Linux sets the AMD MSR that makes lfence serialise. */
	__asm__ volatile("lfence\n\trdtsc\n\tlfence" : "=a"(lo), "=d"(hi)::"memory");
	return ((uint64_t)hi << 32) | lo;
}

static inline uint64_t dpk_tsc_end_cpu(unsigned *cpu)
{
	uint32_t lo, hi, aux;
	/* rdtscp waits for earlier instructions; the lfence keeps later ones out. */
	__asm__ volatile("rdtscp\n\tlfence" : "=a"(lo), "=d"(hi), "=c"(aux)::"memory");
	if (cpu)
		*cpu = aux & 0xfff; /* Linux puts the CPU number in TSC_AUX bits 0-11 */
	return ((uint64_t)hi << 32) | lo;
}

static inline uint64_t dpk_tsc_end(void)
{
	return dpk_tsc_end_cpu((unsigned *)0);
}

static inline void dpk_pause(void)
{
	__asm__ volatile("pause");
}
