/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dpk_test_lcore.h - lcores for a test case, stopped however the case ends, so that a
 * case failing with lcores running does not fail every later case of the program.
 */
#ifndef DPK_TEST_LCORE_H
#define DPK_TEST_LCORE_H

#include <errno.h>

#include <dpk/lcore.h>

#include "dpk_test.h"

/* Wait for the case's lcores and stop them; with none running, the errors mean nothing. */
static inline void dpk_test_stop_lcores(void)
{
	(void)dpk_lcore_wait_all();
	(void)dpk_lcore_fini();
}

/*
 * Start lcores from @p spec or, when a CPU of it is missing, from @p fallback (NULL: no
 * fallback, e.g. a spec for a one-CPU machine); skip the case when no CPU fits; stop them
 * when the case ends (dpk_test_on_end).
 */
static inline void dpk_test_start_lcores(const char *spec, const char *fallback)
{
	int rc = dpk_lcore_init(spec);

	if (rc == -ENODEV && fallback)
		rc = dpk_lcore_init(fallback);
	if (rc == -ENODEV)
		DPK_SKIP("a CPU of the lcore spec is not available");
	ASSERT_EQ(0, rc);
	dpk_test_on_end(dpk_test_stop_lcores);
}

#endif /* DPK_TEST_LCORE_H */
