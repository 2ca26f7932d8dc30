/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * layout.h - the sizes, alignments and field offsets of dpkit's structures, listed once so
 * that layout.c computes them as C and consumer.cpp as C++: the program fails unless
 * both languages lay every structure out alike. The atomic and over-aligned fields are
 * the ones a C++ mapping could move.
 */
#ifndef DPK_TEST_LAYOUT_H
#define DPK_TEST_LAYOUT_H

#include <stddef.h>

#include <dpk/bench.h>
#include <dpk/common.h>
#include <dpk/distributor.h>
#include <dpk/lcore.h>
#include <dpk/service.h>
#include <dpk/topology.h>
#ifndef DPK_TEST_NO_RING
#include <dpk/packet.h>
#include <dpk/pool.h>
#include <dpk/ring.h>
#endif

#ifdef __cplusplus
#define DPK_TEST_ALIGNOF(t) alignof(t)
#else
#define DPK_TEST_ALIGNOF(t) _Alignof(t)
#endif
#define DPK_TEST_SHAPE(X, type)        X(sizeof(struct type)) X(DPK_TEST_ALIGNOF(struct type))
#define DPK_TEST_FIELD(X, type, field) X(offsetof(struct type, field))

#define DPK_TEST_LAYOUT_COMMON(X)                                                                  \
	DPK_TEST_SHAPE(X, dpk_cpuset)                                                              \
	DPK_TEST_SHAPE(X, dpk_lcore_spec)                                                          \
	DPK_TEST_FIELD(X, dpk_lcore_spec, cpus)                                                    \
	DPK_TEST_SHAPE(X, dpk_cpu_info)                                                            \
	DPK_TEST_SHAPE(X, dpk_service_spec)                                                        \
	DPK_TEST_SHAPE(X, dpk_service_stats)                                                       \
	DPK_TEST_FIELD(X, dpk_service_stats, cycles_estimated)                                     \
	DPK_TEST_SHAPE(X, dpk_distributor_stats)                                                   \
	DPK_TEST_SHAPE(X, dpk_distributor_worker_stats)                                            \
	DPK_TEST_SHAPE(X, dpk_bench_case)                                                          \
	DPK_TEST_FIELD(X, dpk_bench_case, params)                                                  \
	DPK_TEST_FIELD(X, dpk_bench_case, body)                                                    \
	DPK_TEST_FIELD(X, dpk_bench_case, layouts)                                                 \
	DPK_TEST_FIELD(X, dpk_bench_case, group)                                                   \
	DPK_TEST_SHAPE(X, dpk_bench_run)                                                           \
	DPK_TEST_FIELD(X, dpk_bench_run, placement)                                                \
	DPK_TEST_FIELD(X, dpk_bench_run, stop)                                                     \
	DPK_TEST_SHAPE(X, dpk_bench_suite)                                                         \
	DPK_TEST_FIELD(X, dpk_bench_suite, default_on)

#ifdef DPK_TEST_NO_RING
#define DPK_TEST_LAYOUT_RING(X)
#else
#define DPK_TEST_LAYOUT_RING(X)                                                                    \
	DPK_TEST_SHAPE(X, dpk_ring)                                                                \
	DPK_TEST_FIELD(X, dpk_ring, prod)                                                          \
	DPK_TEST_FIELD(X, dpk_ring, cons)                                                          \
	DPK_TEST_SHAPE(X, dpk__ring_side)                                                          \
	DPK_TEST_SHAPE(X, dpk_ring_zc_data)                                                        \
	DPK_TEST_SHAPE(X, dpk_pool_cache)                                                          \
	DPK_TEST_FIELD(X, dpk_pool_cache, len)                                                     \
	DPK_TEST_FIELD(X, dpk_pool_cache, objs)                                                    \
	DPK_TEST_SHAPE(X, dpk_pool)                                                                \
	DPK_TEST_FIELD(X, dpk_pool, lcore_caches)                                                  \
	DPK_TEST_FIELD(X, dpk_pool, user_lock)                                                     \
	DPK_TEST_FIELD(X, dpk_pool, user_caches)                                                   \
	DPK_TEST_FIELD(X, dpk_pool, refused_puts)                                                  \
	DPK_TEST_FIELD(X, dpk_pool, corrupt_gets)                                                  \
	DPK_TEST_FIELD(X, dpk_pool, excess_puts)                                                   \
	DPK_TEST_FIELD(X, dpk_pool, owned)                                                         \
	DPK_TEST_SHAPE(X, dpk_pool_audit_report)                                                   \
	DPK_TEST_SHAPE(X, dpk_packet)                                                              \
	DPK_TEST_FIELD(X, dpk_packet, refs)                                                        \
	DPK_TEST_SHAPE(X, dpk_packet_pool)                                                         \
	DPK_TEST_FIELD(X, dpk_packet_pool, caches)                                                 \
	DPK_TEST_FIELD(X, dpk_packet_pool, pool)                                                   \
	DPK_TEST_SHAPE(X, dpk_packet_pool_params)
#endif

#define DPK_TEST_LAYOUT(X) DPK_TEST_LAYOUT_COMMON(X) DPK_TEST_LAYOUT_RING(X)

#ifdef __cplusplus
extern "C" {
#endif
/* The list as C computes it (layout.c), and its length. */
extern const size_t dpk_test_layout_c[];
extern const size_t dpk_test_layout_c_count;
#ifdef __cplusplus
}
#endif

#endif /* DPK_TEST_LAYOUT_H */
