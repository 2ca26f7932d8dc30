/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dpk/common.h - what every dpkit header shares: the version, the cache-line size,
 * a CPU set type that does not need _GNU_SOURCE, and the per-thread error message.
 *
 * Build code that includes dpkit's headers with optimisation (-O2): the ring, pool,
 * packet and lcore fast paths are inline functions compiled into it, and at -O0 each is an
 * out-of-line call that keeps every value in memory, many times slower.
 */
#ifndef DPK_COMMON_H
#define DPK_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define DPK_VERSION_MAJOR  0
#define DPK_VERSION_MINOR  1
#define DPK_VERSION_PATCH  0
#define DPK_VERSION_STRING "0.1.0"

/** Size of a cache line; shared and private data are kept this far apart. */
#define DPK_CACHE_LINE 64

/** Highest CPU number + 1 that dpkit can address. */
#define DPK_CPU_MAX 1024

/** Value returned by topology queries when sysfs does not say. */
#define DPK_UNKNOWN (-1)

/** A set of CPU numbers, 0 .. DPK_CPU_MAX-1. */
struct dpk_cpuset {
	uint64_t bits[DPK_CPU_MAX / 64]; /**< bit c set: CPU c is in the set */
};

/** Empty @p s. */
static inline void dpk_cpuset_zero(struct dpk_cpuset *s)
{
	for (unsigned i = 0; i < DPK_CPU_MAX / 64; i++)
		s->bits[i] = 0;
}

/** Add CPU @p cpu (ignored when out of range). */
static inline void dpk_cpuset_set(struct dpk_cpuset *s, unsigned cpu)
{
	if (cpu < DPK_CPU_MAX)
		s->bits[cpu / 64] |= UINT64_C(1) << (cpu % 64);
}

/** Remove CPU @p cpu (ignored when out of range). */
static inline void dpk_cpuset_clear(struct dpk_cpuset *s, unsigned cpu)
{
	if (cpu < DPK_CPU_MAX)
		s->bits[cpu / 64] &= ~(UINT64_C(1) << (cpu % 64));
}

/** True when CPU @p cpu is in @p s. */
static inline bool dpk_cpuset_isset(const struct dpk_cpuset *s, unsigned cpu)
{
	return cpu < DPK_CPU_MAX && (s->bits[cpu / 64] >> (cpu % 64)) & 1;
}

/** Number of CPUs in @p s. */
static inline unsigned dpk_cpuset_count(const struct dpk_cpuset *s)
{
	unsigned n = 0;
	for (unsigned i = 0; i < DPK_CPU_MAX / 64; i++)
		n += (unsigned)__builtin_popcountll(s->bits[i]);
	return n;
}

/** Lowest CPU in @p s, or DPK_CPU_MAX when it is empty. */
static inline unsigned dpk_cpuset_first(const struct dpk_cpuset *s)
{
	for (unsigned i = 0; i < DPK_CPU_MAX / 64; i++)
		if (s->bits[i])
			return i * 64 + (unsigned)__builtin_ctzll(s->bits[i]);
	return DPK_CPU_MAX;
}

/** Next CPU in @p s after @p cpu, or DPK_CPU_MAX when there is none. */
static inline unsigned dpk_cpuset_next(const struct dpk_cpuset *s, unsigned cpu)
{
	for (unsigned c = cpu + 1; c < DPK_CPU_MAX; c++)
		if (dpk_cpuset_isset(s, c))
			return c;
	return DPK_CPU_MAX;
}

/** True when @p a and @p b hold the same CPUs. */
static inline bool dpk_cpuset_equal(const struct dpk_cpuset *a, const struct dpk_cpuset *b)
{
	for (unsigned i = 0; i < DPK_CPU_MAX / 64; i++)
		if (a->bits[i] != b->bits[i])
			return false;
	return true;
}

/** Iterate @p cpu over the members of @p set in ascending order. */
#define DPK_CPUSET_FOREACH(cpu, set)                                                               \
	for ((cpu) = dpk_cpuset_first(set); (cpu) < DPK_CPU_MAX;                                   \
	     (cpu) = dpk_cpuset_next((set), (cpu)))

/**
 * The message left by the last dpkit call that failed on this thread, naming what was
 * wrong ("lcore spec '0-x': bad CPU number 'x'"). Never NULL; "" when there is none.
 * Calls that succeed do not clear it.
 */
const char *dpk_last_error(void);

/** The library's version string, e.g. "0.1.0". */
const char *dpk_version(void);

#ifdef __cplusplus
}
#endif

#endif /* DPK_COMMON_H */
