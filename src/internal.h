/* SPDX-License-Identifier: BSD-3-Clause */
/* Library internals shared between source files; never installed. */
#ifndef DPK_INTERNAL_H
#define DPK_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

/* Set this thread's dpk_last_error() message, printf-style. */
void dpk__set_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Per-architecture counter frequency: fills *hz and returns true when the hardware states
 * it (x86 CPUID 0x15, aarch64 cntfrq_el0), with *src saying which. */
struct dpk__tsc_arch_hz {
	uint64_t hz;
	int src; /* enum dpk_tsc_source */
};
bool dpk__tsc_arch_hz(struct dpk__tsc_arch_hz *out);

/* The CPU this thread runs on, DPK_CPU_MAX when unknown. */
unsigned dpk__cpu_now(void);

/* CLOCK_MONOTONIC_RAW in nanoseconds. */
uint64_t dpk__clock_ns(void);

#endif /* DPK_INTERNAL_H */
