/* SPDX-License-Identifier: BSD-3-Clause */
#include "suites.h"

const struct dpk_bench_suite *const dpk_bench_suites[] = {
	&dpk_suite_floor,
	&dpk_suite_ring,
	NULL,
};
