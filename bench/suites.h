/* SPDX-License-Identifier: BSD-3-Clause */
/* The suites dpk-bench knows, in the order they run. */
#ifndef DPK_BENCH_SUITES_H
#define DPK_BENCH_SUITES_H

#include "bench.h"

extern const struct dpk_bench_suite dpk_suite_floor;
extern const struct dpk_bench_suite dpk_suite_ring;

/** Every suite, NULL-terminated. */
extern const struct dpk_bench_suite *const dpk_bench_suites[];

#endif /* DPK_BENCH_SUITES_H */
