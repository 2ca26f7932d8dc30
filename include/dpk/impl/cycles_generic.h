/* SPDX-License-Identifier: BSD-3-Clause */
/* Portable counter: CLOCK_MONOTONIC_RAW in ns; included by <dpk/cycles.h> only. */
#ifndef DPK_CYCLES_H
#error "include <dpk/cycles.h>, not <dpk/impl/cycles_generic.h>"
#endif

uint64_t dpk__clock_ns(void);
unsigned dpk__cpu_now(void);

static inline uint64_t dpk_tsc(void)
{
	return dpk__clock_ns();
}

static inline uint64_t dpk_tsc_begin(void)
{
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	return dpk__clock_ns();
}

static inline uint64_t dpk_tsc_end_cpu(unsigned *cpu)
{
	uint64_t v = dpk__clock_ns();
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
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
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
}
