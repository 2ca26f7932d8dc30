/* SPDX-License-Identifier: BSD-3-Clause */
#include <stddef.h>

#include "suites.h"

static const struct dpk_bench_suite *const own[] = {
        &dpk_suite_floor, &dpk_suite_ring,   &dpk_suite_service,
        &dpk_suite_pool,  &dpk_suite_packet, &dpk_suite_distributor,
};

const struct dpk_bench_suite *dpk_bench_suite_at(unsigned i)
{
	const unsigned nown = sizeof(own) / sizeof(own[0]);

	if (i < nown)
		return own[i];
	for (unsigned k = 0; dpk_bench_ref_suites[k]; k++)
		if (k == i - nown)
			return dpk_bench_ref_suites[k];
	return NULL;
}
