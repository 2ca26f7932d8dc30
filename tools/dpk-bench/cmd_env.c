/* SPDX-License-Identifier: BSD-3-Clause */
/* dpk-bench env: the environment report and the clock self-check. */
#include <stdio.h>

#include "commands.h"
#include "session.h"

int dpk_cmd_env(struct dpk_cli *cli)
{
	struct dpk_session s;
	int rc = dpk_session_check_lcores(cli);

	if (rc == 0)
		rc = dpk_session_start(cli, &s);
	if (rc)
		return rc;
	dpk_report_env(stdout, &s.env, &s.runner.clock);
	dpk_report_placements(stdout, &s.meta);
	dpk_session_stop(&s);
	return 0;
}
