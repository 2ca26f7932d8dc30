/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * commands.h - dpk-bench's commands, one file each (cmd_NAME.c), listed with their options in
 * cli_table.c. Each takes the parsed command line and returns the exit status: 0 fine, 1 a
 * case failed (run), the gate failed (compare) or a case spread over the limit (spread),
 * 2 bad input.
 */
#ifndef DPK_BENCH_COMMANDS_H
#define DPK_BENCH_COMMANDS_H

struct dpk_cli;

int dpk_cmd_run(struct dpk_cli *cli);
int dpk_cmd_list(struct dpk_cli *cli);
int dpk_cmd_env(struct dpk_cli *cli);
int dpk_cmd_compare(struct dpk_cli *cli);
int dpk_cmd_spread(struct dpk_cli *cli);
int dpk_cmd_report(struct dpk_cli *cli);
int dpk_cmd_convert(struct dpk_cli *cli);
int dpk_cmd_ab(struct dpk_cli *cli);
int dpk_cmd_serve(struct dpk_cli *cli);
int dpk_cmd_peers(struct dpk_cli *cli);

#endif /* DPK_BENCH_COMMANDS_H */
