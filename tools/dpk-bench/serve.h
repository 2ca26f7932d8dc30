/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * serve.h - the two sides of dpk-bench ab: a build that serves its sets round by round over
 * a pipe (serve), and the command that drives two such builds in turn (ab).
 *
 * The protocol is lines of text. The child announces itself and its sets, then runs what it
 * is told:
 *   child:  dpk-bench-serve PROTOCOL SCHEMA_VERSION VERSION GIT
 *   child:  set I KIND PLACEMENT CASES ROUNDS SECONDS  (KIND single or multi; SECONDS a
 *           round's expected length), then per case
 *   child:  case I ID                              (ID as results files name a case)
 *   child:  ready
 *   parent: round I Q      child: done I Q, or failed I Q ID REASON
 *   parent: close I        child: closed I         (the set's cases judged)
 *   parent: finish         child: finished         (the results file written; it exits 0)
 * Anything else from the parent ends the child with exit status 2.
 */
#ifndef DPK_BENCH_SERVE_H
#define DPK_BENCH_SERVE_H

#include <stdio.h>

#include "engine.h"
#include "output.h"
#include "report.h"

#define DPK_SERVE_PROTOCOL 1

/** A set of a plan: the items of one suite that run in rounds together. */
struct dpk_serve_set {
	size_t *at; /**< plan indices of its items */
	unsigned k;
	bool multi;
	enum dpk_placement placement;
};

/**
 * Cut @p plan into its sets (a suite's single-lcore cases; its multi-lcore cases on each
 * placement), in the order their first items come. Returns the number of sets, or 0 when
 * out of memory; free with dpk_serve_sets_free().
 */
unsigned dpk_serve_sets(const struct dpk_bench_plan *plan, struct dpk_serve_set **out);

void dpk_serve_sets_free(struct dpk_serve_set *sets, unsigned n);

/** A case's id as the results reader makes it: "ring/spsc_bulk/esize:8/n:32/placement:single". */
char *dpk_serve_case_id(const struct dpk_bench_item *it, char *buf, size_t len);

/**
 * Serve @p plan over @p in and @p out until told to finish, then write the results of the
 * sets run to @p json (checked by dpk_output_prepare() before; dpk_report_json()). Returns
 * the exit status: 0, or 2 on a broken protocol, a failed write or running out of memory.
 */
int dpk_serve(struct dpk_bench_runner *r, const struct dpk_bench_plan *plan,
              struct dpk_bench_meta *meta, struct dpk_output *json, FILE *in, FILE *out);

#endif /* DPK_BENCH_SERVE_H */
