/* SPDX-License-Identifier: BSD-3-Clause */
#include <stddef.h>

#include "suites.h"

const struct dpk_bench_suite *const dpk_bench_dpkit_suites[] = {
        &dpk_suite_floor,
        &dpk_suite_ring,
        &dpk_suite_service,
        &dpk_suite_pool,
        &dpk_suite_packet,
        &dpk_suite_distributor,
        NULL,
};
