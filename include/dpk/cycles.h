/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dpk/cycles.h - the time-stamp counter: plain and fenced reads, the CPU pause hint, and
 * the counter's frequency with the place it came from.
 *
 * On x86-64 the counter is the TSC. It ticks at a fixed reference rate, not at the core
 * clock, so "cycles" in dpkit are TSC ticks. On aarch64 it is the generic timer
 * (cntvct_el0), usually much slower than the core. Elsewhere it is CLOCK_MONOTONIC_RAW in
 * nanoseconds.
 *
 * Timing windows: take dpk_tsc_begin() before and dpk_tsc_end() after the code under test.
 * The fences keep the measured instructions inside the window; a plain dpk_tsc() may be
 * reordered with the code around it by the CPU.
 *
 * All calls may be made from any thread at any time.
 */
#ifndef DPK_CYCLES_H
#define DPK_CYCLES_H

#include <stdint.h>

#include <dpk/common.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Where dpk_tsc_hz() got its value. */
enum dpk_tsc_source {
	DPK_TSC_SRC_CPUID,       /**< x86 CPUID leaf 0x15 (crystal ratio) */
	DPK_TSC_SRC_CNTFRQ,      /**< aarch64 cntfrq_el0 */
	DPK_TSC_SRC_CALIBRATED,  /**< measured against CLOCK_MONOTONIC_RAW */
	DPK_TSC_SRC_NANOSECONDS, /**< the counter is clock_gettime itself: 1 GHz */
};

/* Inline reads, one file per architecture. */
#if defined(__x86_64__)
#include <dpk/impl/cycles_x86_64.h>
#elif defined(__aarch64__)
#include <dpk/impl/cycles_aarch64.h>
#else
#include <dpk/impl/cycles_generic.h>
#endif

/*
 * The inline header above provides:
 *
 * uint64_t dpk_tsc(void);        plain read, no ordering with the code around it
 * uint64_t dpk_tsc_begin(void);  read after all earlier instructions have completed and
 *                                before any later one starts (x86: lfence;rdtsc;lfence)
 * uint64_t dpk_tsc_end(void);    read after the timed instructions have completed
 *                                (x86: rdtscp;lfence)
 * uint64_t dpk_tsc_end_cpu(unsigned *cpu); as dpk_tsc_end(), also returning the CPU the
 *                                read ran on (x86: TSC_AUX; elsewhere sched_getcpu() or
 *                                DPK_CPU_MAX when unknown), so a caller can see a migration
 * void dpk_pause(void);          spin-wait hint (x86: pause; aarch64: yield)
 */

/**
 * Frequency of the counter read by dpk_tsc(), in Hz. The first call finds it (CPUID leaf
 * 0x15 where it gives a value, cntfrq_el0 on aarch64, else a calibration of about 50 ms
 * against CLOCK_MONOTONIC_RAW); later calls return the same value. Thread-safe.
 */
uint64_t dpk_tsc_hz(void);

/** Where dpk_tsc_hz() got its value; calls dpk_tsc_hz() first if needed. */
enum dpk_tsc_source dpk_tsc_hz_source(void);

/** A short name for @p src: "cpuid", "cntfrq", "calibrated" or "clock_gettime". */
const char *dpk_tsc_source_name(enum dpk_tsc_source src);

/**
 * Measure the counter frequency against CLOCK_MONOTONIC_RAW over about @p ms milliseconds
 * of busy waiting, without touching the cached value. Each end of the window is a counter
 * read between two clock reads, the tightest of five tries, so that a preemption between
 * reads does not move it. Used by dpk_tsc_hz() and by the harness to cross-check a CPUID
 * figure.
 *
 * @retval >0 the measured frequency in Hz
 * @retval 0  @p ms was 0 or the clock could not be read
 */
uint64_t dpk_tsc_calibrate(unsigned ms);

/** Convert @p ticks of the counter to nanoseconds with dpk_tsc_hz(). */
double dpk_tsc_to_ns(double ticks);

#ifdef __cplusplus
}
#endif

#endif /* DPK_CYCLES_H */
