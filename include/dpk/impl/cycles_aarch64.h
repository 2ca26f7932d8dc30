/* SPDX-License-Identifier: BSD-3-Clause */
/* aarch64 counter reads (generic timer); included by <dpk/cycles.h> only. */
#ifndef DPK_CYCLES_H
#error "include <dpk/cycles.h>, not <dpk/impl/cycles_aarch64.h>"
#endif

unsigned dpk__cpu_now(void);

static inline uint64_t dpk_tsc(void)
{
	uint64_t v;
	__asm__ volatile("mrs %0, cntvct_el0" : "=r"(v));
	return v;
}

static inline uint64_t dpk_tsc_begin(void)
{
	uint64_t v;
	/* isb before: earlier instructions are complete; isb after: later ones wait. */
	__asm__ volatile("isb\n\tmrs %0, cntvct_el0\n\tisb" : "=r"(v)::"memory");
	return v;
}

static inline uint64_t dpk_tsc_end_cpu(unsigned *cpu)
{
	uint64_t v;
	__asm__ volatile("isb\n\tmrs %0, cntvct_el0\n\tisb" : "=r"(v)::"memory");
	if (cpu)
		*cpu = dpk__cpu_now();
	return v;
}

static inline uint64_t dpk_tsc_end(void)
{
	return dpk_tsc_end_cpu((unsigned *)0);
}

static inline void dpk_pause(void)
{
	__asm__ volatile("yield");
}
