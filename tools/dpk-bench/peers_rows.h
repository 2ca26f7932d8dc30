/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * peers_rows.h - the rows of dpk-bench peers: a dpkit case and a peer's twin of it, the ratio
 * peer / dpkit with its interval, and the verdict; printed as tables and written as the
 * "peers" member of the results file (peers_table.c). cmd_peers.c makes them from one
 * process's results; peers_procs.c from several processes' files, merged (--processes).
 */
#ifndef DPK_BENCH_PEERS_ROWS_H
#define DPK_BENCH_PEERS_ROWS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "json.h"

struct dpk_bench_suite;

/** Processes: the default, and the most. */
#define DPK_PEERS_PROCESSES     2
#define DPK_PEERS_PROCESSES_MAX 8

enum dpk_peer_verdict { DPK_PV_FASTER, DPK_PV_SLOWER, DPK_PV_NOISE, DPK_PV_NONE, DPK_PV_COUNT };

/** One side of a row. */
struct dpk_peer_side {
	const char *suite, *status; /**< status: "ok", "skipped", "failed" */
	double p50;                 /**< median ticks per unit; NaN unless ok */
	double floor;               /**< the cache-line round trip beside it; NaN: none */
};

/** What one process gave a merged row. */
struct dpk_peer_proc {
	double t_p50, p_p50; /**< the two medians (NaN: that side did not run) */
	double r, lo, hi;    /**< the ratio (NaN: none) and its interval (NaN: none) */
	const char *how;     /**< NULL without a ratio */
	enum dpk_peer_verdict v;
};

struct dpk_peer_row {
	const char *block; /**< the dpkit suite */
	const char *name, *place, *unit;
	char params[128];          /**< "esize=8 n=32" */
	struct dpk_peer_side t, p; /**< dpkit's twin, the peer */
	bool ok;                   /**< a ratio: both sides ran */
	double r, lo, hi;          /**< the ratio and its interval (NaN bounds: none) */
	const char *how;           /**< "paired", "as run", "unpaired", "mixed"; NULL unless ok */
	char note[288];            /**< why no interval or no ratio, or a remark; "" */
	enum dpk_peer_verdict v;
	unsigned nproc; /**< processes merged; 0: the row is one process's */
	struct dpk_peer_proc proc[DPK_PEERS_PROCESSES_MAX];
};

/** The rows, block by block, each block's twins in plan order with their peers. */
struct dpk_peer_table {
	struct dpk_peer_row *row;
	size_t n;
	double noise;       /**< the verdicts' threshold, a fraction */
	unsigned processes; /**< processes the rows rest on */
	double mhz;         /**< the TSC's rate */
};

extern const char *const dpk_peer_verdict_key[DPK_PV_COUNT];

/** "dpkit faster" above 1 + @p noise, "dpkit slower" below 1 - @p noise, by the whole
 *  interval [lo, hi]; no verdict without one (a NaN bound). */
enum dpk_peer_verdict dpk_peer_verdict_of(double lo, double hi, double noise);

/** The verdict of key @p s ("dpkit_faster", ...), or DPK_PV_COUNT. */
enum dpk_peer_verdict dpk_peer_verdict_parse(const char *s);

/**
 * The tables to @p f: a header saying what the figures and intervals are, a line per peer
 * suite the rows name (@p suites: the program's, for their descriptions), then a table
 * per block with its tally.
 */
void dpk_peers_print(FILE *f, const struct dpk_peer_table *t,
                     const struct dpk_bench_suite *const *suites);

/** The "peers" member of a results file: every row, block by block, and the tally. */
void dpk_peers_json(struct dpk_json *j, const struct dpk_peer_table *t);

struct dpk_cli;
struct dpk_output;

/**
 * dpk-bench peers as @p np processes of this program, one after the other, each given
 * --time / np a case; their rows merged and printed to @p out (TSC at @p mhz), and written
 * to @p json (checked; path NULL: nowhere) as the first process's results with the merged
 * rows (peers_procs.c). The exit status: 0, 1 (a case failed), 2 (a process failed or its
 * file could not be read: nothing written), 130 (interrupted).
 */
int dpk_peers_processes(struct dpk_cli *cli, unsigned np, struct dpk_output *json, FILE *out,
                        double mhz);

#endif /* DPK_BENCH_PEERS_ROWS_H */
