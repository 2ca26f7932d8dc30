/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bench_fixture.h - what the harness engine's tests share (test_bench_runner.c,
 * test_bench_multi.c, test_bench_witness.c, test_bench_clock.c): one runner, synthetic
 * bodies and cases, a case dearer in its first slices, cases that log their set-ups, and a
 * scripted speed witness. Defined in bench_fixture.c.
 */
#ifndef DPK_TEST_BENCH_FIXTURE_H
#define DPK_TEST_BENCH_FIXTURE_H

#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <dpk/cycles.h>

#include "coreclock.h"
#include "dpk_test.h"
#include "engine_int.h"
#include "report.h"
#include "suites.h"
#include "witness.h"

#if defined(__SANITIZE_ADDRESS__)
#define DPK_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define DPK_TEST_ASAN 1
#endif
#endif
#ifndef DPK_TEST_ASAN
#define DPK_TEST_ASAN 0
#endif

/* The runner start() starts (20 ms per case, 5 ms of warm-up, raw samples kept) on lcore
 * spec @p spec; stop() stops it, and runs by itself when a test case ends. */
extern struct dpk_bench_runner runner;
int start(const char *spec);
void stop(void);

/* Bodies: n additions; a failure on the fourth call (fail_calls counts them); role 1
 * waiting for the stop flag, role 0 adding. */
uint64_t body_spin(struct dpk_bench_run *run, unsigned role, uint64_t n);
extern atomic_ulong fail_calls;
uint64_t body_fails(struct dpk_bench_run *run, unsigned role, uint64_t n);
uint64_t body_waits(struct dpk_bench_run *run, unsigned role, uint64_t n);

/* Cases of those bodies, and the suite they are run under. */
extern const struct dpk_bench_case c_single, c_fail, c_pair, c_pair_fail, c_wait, c_all;
extern const struct dpk_bench_suite suite;

/* The CPUs the default lcore set should use (online, in this thread's affinity mask);
 * asked before start(), which pins the thread. */
unsigned usable_cpus(void);
bool have_two_cpus(void);

/* c_ramp: ramp_factor times the work per operation in its first ramp_dear set-ups, then
 * one (the other way round with ramp_up); ramp_n_first and ramp_n_last are the first
 * slice's last batch and the last batch. */
extern unsigned ramp_setups, ramp_dear, ramp_factor;
extern bool ramp_up;
extern uint64_t ramp_n_first, ramp_n_last;
int ramp_setup(struct dpk_bench_run *run);
uint64_t body_ramp_down(struct dpk_bench_run *run, unsigned role, uint64_t n);
extern const struct dpk_bench_case c_ramp;

/* The median of @p v (n values), left as it is. */
double median_of(const double *v, size_t n);

/* Logged cases: each set-up appends the case's letter to setup_log and counts in setups
 * (a letter X fails its set-up with -ENOMEM); teardowns are counted. */
extern char setup_log[64];
extern unsigned setups, teardowns;
int log_setup(struct dpk_bench_run *run);
void log_teardown(struct dpk_bench_run *run);
#define LOGGED_CASE(letter)                                                                        \
	{                                                                                          \
		.name = "logged_" letter, .desc = "logs its set-ups", .kind = DPK_BENCH_SINGLE,    \
		.unit = DPK_UNIT_ITERATION, .body = body_spin, .setup = log_setup,                 \
		.teardown = log_teardown, .arg = letter                                            \
	}
extern const struct dpk_bench_case c_log_a, c_log_b, c_log_x;

/* The scripted witness: 20 in the first wit_slow_slices slices, 10 after them. */
extern unsigned wit_slow_slices;
double wit_script(void);
/* Samples taken by @p r, kept or not. */
size_t total_samples(const struct dpk_bench_result *r);
/* Put scripted @p timing in the runner's witness, its clock check reading @p best. */
void reset_witness(double (*timing)(void), double best);
/* Run @p cases (@p k) in @p rounds rounds, the witness slow in its first @p slow_slices. */
void run_logged(const struct dpk_bench_case *const *cases, unsigned k, unsigned rounds,
                unsigned slow_slices, struct dpk_bench_result *res);

#endif /* DPK_TEST_BENCH_FIXTURE_H */
