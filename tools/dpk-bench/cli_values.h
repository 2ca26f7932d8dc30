/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cli_values.h - the setters of the option table (cli_table.c): each checks an option's
 * value and stores it in struct dpk_cli, or writes a message naming the option and the value
 * and returns -EINVAL. The generic ones store at the entry's field.
 */
#ifndef DPK_BENCH_CLI_VALUES_H
#define DPK_BENCH_CLI_VALUES_H

#include "cli.h"

/* The bounds of --time and --warmup, per case: at least a millisecond, in which a case takes
 * some samples, and at most a minute (a warm-up, ten seconds), past which a selection of
 * dozens of cases is no longer a run to wait for. --warmup 0 is no warm-up. */
#define DPK_CLI_TIME_MIN   1e-3
#define DPK_CLI_TIME_MAX   60.0
#define DPK_CLI_WARMUP_MAX 10.0

#define DPK_CLI_SETTER(name)                                                                       \
	int name(struct dpk_cli *cli, const struct dpk_cli_option *o, const char *v, char *err,    \
	         size_t errlen)

DPK_CLI_SETTER(dpk_cli_set_flag);      /* a bool at the field */
DPK_CLI_SETTER(dpk_cli_set_path);      /* a file name at the field; not empty */
DPK_CLI_SETTER(dpk_cli_set_text);      /* a string at the field */
DPK_CLI_SETTER(dpk_cli_set_glob);      /* a glob added to the struct dpk_cli_globs at the field */
DPK_CLI_SETTER(dpk_cli_set_pct);       /* a percentage at the field (a double), bounds by name */
DPK_CLI_SETTER(dpk_cli_set_duration);  /* a duration at the field (a double), bounds by name */
DPK_CLI_SETTER(dpk_cli_set_lcores);    /* --lcores */
DPK_CLI_SETTER(dpk_cli_set_placement); /* --placement */
DPK_CLI_SETTER(dpk_cli_set_count);     /* --repeat, --rounds */
DPK_CLI_SETTER(dpk_cli_set_sets);      /* --sets */
DPK_CLI_SETTER(dpk_cli_set_processes); /* --processes */
DPK_CLI_SETTER(dpk_cli_set_seed);      /* --seed */
DPK_CLI_SETTER(dpk_cli_set_format);    /* --format */
DPK_CLI_SETTER(dpk_cli_set_unit);      /* --unit */
DPK_CLI_SETTER(dpk_cli_set_to);        /* --to */

#endif /* DPK_BENCH_CLI_VALUES_H */
