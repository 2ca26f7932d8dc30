/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the harness engine's tests share (bench_fixture.h): a runner started on a lcore
 * spec and stopped however a case ends, synthetic bodies and cases, a case dearer in its
 * first slices, cases that log their set-ups, and a scripted speed witness.
 */
#define _GNU_SOURCE
#include "bench_fixture.h"

struct dpk_bench_runner runner;

static bool runner_up;

/* Stop the runner started by start(); also run when a case ends, however it ends, so an
 * ASSERT that fails with lcores running does not fail every later case. */
void stop(void)
{
	if (runner_up)
		dpk_bench_runner_fini(&runner);
	runner_up = false;
}

int start(const char *spec)
{
	struct dpk_bench_options o;
	int rc;

	dpk_bench_options_default(&o);
	o.time_s = 0.02;
	o.warmup_s = 0.005;
	o.lcores = spec;
	o.raw = true;
	/* The scripted witness tests set their own clock-check reading; the rest need no more
	 * than the sixteen readings. */
	o.witness_check_s = 0;
	rc = dpk_bench_runner_init(&runner, &o);
	runner_up = rc == 0;
	dpk_test_on_end(stop);
	return rc;
}

uint64_t body_spin(struct dpk_bench_run *run, unsigned role, uint64_t n)
{
	uint64_t acc = 0;

	(void)run;
	(void)role;
	for (uint64_t i = 0; i < n; i++)
		acc += i;
	DPK_BENCH_KEEP(acc);
	return n;
}

atomic_ulong fail_calls;

uint64_t body_fails(struct dpk_bench_run *run, unsigned role, uint64_t n)
{
	(void)role;
	if (atomic_fetch_add(&fail_calls, 1) == 3)
		dpk_bench_fail(run, "invariant %d broke", 42);
	return n;
}

/* Role 1 waits for a value role 0 never sends: only the stop flag ends it. */
uint64_t body_waits(struct dpk_bench_run *run, unsigned role, uint64_t n)
{
	if (role == 1) {
		while (!dpk_bench_stopped(run))
			dpk_pause();
		return 0;
	}
	return body_spin(run, role, n);
}

const struct dpk_bench_case c_single = {.name = "spin",
                                        .desc = "add",
                                        .kind = DPK_BENCH_SINGLE,
                                        .unit = DPK_UNIT_ITERATION,
                                        .body = body_spin,
                                        .params = {{"x", 3}}};
const struct dpk_bench_case c_fail = {.name = "fails",
                                      .desc = "breaks",
                                      .kind = DPK_BENCH_SINGLE,
                                      .unit = DPK_UNIT_CALL,
                                      .body = body_fails};
const struct dpk_bench_case c_pair = {.name = "pair",
                                      .desc = "two spinners",
                                      .kind = DPK_BENCH_PAIR,
                                      .unit = DPK_UNIT_ITERATION,
                                      .counted_roles = 2,
                                      .body = body_spin,
                                      .ops_multiple = 4};
const struct dpk_bench_case c_pair_fail = {.name = "pair fails",
                                           .desc = "two roles that fail",
                                           .kind = DPK_BENCH_PAIR,
                                           .unit = DPK_UNIT_ITERATION,
                                           .body = body_fails};
const struct dpk_bench_case c_wait = {.name = "waits",
                                      .desc = "role 1 blocks",
                                      .kind = DPK_BENCH_PAIR,
                                      .unit = DPK_UNIT_ITERATION,
                                      .counted_roles = 2,
                                      .body = body_waits};
const struct dpk_bench_case c_all = {.name = "all",
                                     .desc = "every worker",
                                     .kind = DPK_BENCH_ALL,
                                     .unit = DPK_UNIT_ITERATION,
                                     .body = body_spin};
const struct dpk_bench_suite suite = {.name = "t", .desc = "test"};

/* The CPUs the default lcore set should use, counted without the harness: online, and in
 * this thread's affinity mask (a taskset or a container's cpuset narrows it). Asked before
 * start(), which pins the thread to the main lcore's CPU. */
unsigned usable_cpus(void)
{
	const struct dpk_topo *t = dpk_topo_system();
	const size_t size = CPU_ALLOC_SIZE(DPK_CPU_MAX);
	cpu_set_t *mask = CPU_ALLOC(DPK_CPU_MAX);
	unsigned n = 0;

	if (t && mask && sched_getaffinity(0, size, mask) == 0)
		for (unsigned c = 0; c < DPK_CPU_MAX; c++)
			n += dpk_cpuset_isset(dpk_topo_online(t), c) && CPU_ISSET_S(c, size, mask);
	CPU_FREE(mask);
	return n;
}

bool have_two_cpus(void)
{
	return usable_cpus() >= 2;
}

/* ramp_factor (3) times the work per operation in its first ramp_dear slices (set-ups),
 * then one: a drift the raw samples must show, and slices the slow-round rule sets aside.
 * With ramp_up, the other way round. The body notes the batch sizes it is handed. */
unsigned ramp_setups, ramp_dear = 4, ramp_factor = 3;
bool ramp_up;
uint64_t ramp_n_first, ramp_n_last; /* the first slice's last batch, the last one */

int ramp_setup(struct dpk_bench_run *run)
{
	(void)run;
	ramp_setups++;
	return 0;
}

uint64_t body_ramp_down(struct dpk_bench_run *run, unsigned role, uint64_t n)
{
	body_spin(run, role, (ramp_setups <= ramp_dear) != ramp_up ? ramp_factor * n : n);
	if (ramp_setups == 1) /* the first slice ends with batches of its calibrated size */
		ramp_n_first = n;
	ramp_n_last = n;
	return n;
}

const struct dpk_bench_case c_ramp = {.name = "ramp",
                                      .desc = "dearer at first",
                                      .kind = DPK_BENCH_SINGLE,
                                      .unit = DPK_UNIT_ITERATION,
                                      .setup = ramp_setup,
                                      .body = body_ramp_down};

double median_of(const double *v, size_t n)
{
	double *c = malloc(n * sizeof(*c));
	double m;

	memcpy(c, v, n * sizeof(*c));
	m = dpk_stats_median(c, n);
	free(c);
	return m;
}

/* Set-up log of the rounds tests: one letter per set-up, in order. */
char setup_log[64];
unsigned setups, teardowns;

int log_setup(struct dpk_bench_run *run)
{
	const char *letter = run->c->arg;

	if (setups < sizeof(setup_log) - 1)
		setup_log[setups] = letter[0];
	setups++;
	return letter[0] == 'X' ? -ENOMEM : 0;
}

void log_teardown(struct dpk_bench_run *run)
{
	(void)run;
	teardowns++;
}

const struct dpk_bench_case c_log_a = LOGGED_CASE("A"), c_log_b = LOGGED_CASE("B"),
                            c_log_x = LOGGED_CASE("X");

/* Scripted witness timings, by slice (set-ups so far, of both logged and ramp cases, so the
 * timings after a slice's set-up belong to it): 20 (slow against a best of 10: over the 25%
 * limit) in the first wit_slow_slices slices, 10 after them. */
unsigned wit_slow_slices;

double wit_script(void)
{
	return setups + ramp_setups <= wit_slow_slices ? 20.0 : 10.0;
}

size_t total_samples(const struct dpk_bench_result *r)
{
	size_t n = 0;

	for (unsigned i = 0; i < DPK_REJECT_COUNT; i++)
		n += r->reject[i];
	return n;
}

/* Put scripted @p timing in the runner's witness, with an empty log whose clock check read
 * @p best. */
void reset_witness(double (*timing)(void), double best)
{
	runner.witness_time = timing;
	free(runner.witness.v);
	memset(&runner.witness, 0, sizeof(runner.witness));
	runner.witness.best = runner.witness.check = best;
}

/* Run @p cases in @p rounds rounds, the witness timing slow in its first @p slow_slices
 * slices and fast after them (0: always fast, so no round is added). */
void run_logged(const struct dpk_bench_case *const *cases, unsigned k, unsigned rounds,
                unsigned slow_slices, struct dpk_bench_result *res)
{
	const struct dpk_bench_suite *suites[4] = {&suite, &suite, &suite, &suite};

	reset_witness(wit_script, 10.0);
	wit_slow_slices = slow_slices;
	memset(setup_log, 0, sizeof(setup_log));
	setups = teardowns = ramp_setups = 0;
	runner.opt.rounds = rounds;
	dpk_bench_run_rounds(&runner, suites, cases, k, 0, res, NULL, NULL);
}
