/* SPDX-License-Identifier: BSD-3-Clause */
/* Reference suites when DPDK's development files are installed. */
#include <stddef.h>

#include "suites.h"

const struct dpk_bench_suite *const dpk_bench_ref_suites[] = {
        &dpk_suite_dpdk_ring,
        NULL,
};
