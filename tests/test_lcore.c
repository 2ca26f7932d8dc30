/* SPDX-License-Identifier: BSD-3-Clause */
/* Lcores on this machine: real pinned threads, launch and wait, ids, affinity, teardown. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <spawn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <dpk/lcore.h>

#include "dpk_test.h"

#define FIXTURES DPK_SOURCE_DIR "/tests/fixtures/sysfs"

extern char **environ;

/* A CPU this process may run on: online and in its affinity mask. */
static bool cpu_usable(unsigned cpu)
{
	const struct dpk_topo *t = dpk_topo_system();
	cpu_set_t mine;

	if (!t || !dpk_cpuset_isset(dpk_topo_online(t), cpu))
		return false;
	if (sched_getaffinity(0, sizeof(mine), &mine) != 0)
		return false;
	return CPU_ISSET(cpu, &mine);
}

/* Lcore threads of this process: those of /proc/self/task named "dpk-lcore-N". */
static unsigned lcore_threads(void)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *de;
	unsigned n = 0;

	if (!d)
		return 0;
	while ((de = readdir(d)) != NULL) {
		char path[300], comm[32] = "";
		FILE *f;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/comm", de->d_name);
		f = fopen(path, "r");
		if (!f)
			continue; /* the thread is gone */
		if (fgets(comm, sizeof(comm), f) && strncmp(comm, "dpk-lcore-", 10) == 0)
			n++;
		fclose(f);
	}
	closedir(d);
	return n;
}

/* Whether the number of lcore threads comes to @p n. A joined thread may stay listed for
 * a moment while the kernel reaps it, so this waits; the bound only catches a thread that
 * never goes away and is no timing. */
static bool lcore_threads_settle_to(unsigned n)
{
	uint64_t end = dpk_test_now_ms() + 10000;

	while (lcore_threads() != n) {
		if (dpk_test_now_ms() > end) {
			dpk_test_note("%u lcore threads, expected %u", lcore_threads(), n);
			return false;
		}
		sched_yield();
	}
	return true;
}

static bool error_mentions(const char *word)
{
	return strstr(dpk_last_error(), word) != NULL;
}

/* Gates that hold a launched function until the main lcore opens them. */
static atomic_int gate_open;

/* Leave no lcores behind from a case that ended early. */
static void clean_slate(void)
{
	atomic_store(&gate_open, 1);
	dpk_lcore_wait_all();
	dpk_lcore_fini();
	atomic_store(&gate_open, 0);
}

/* What a function saw, one slot per lcore. */
struct seen {
	atomic_uint runs;
	atomic_uint id;
	atomic_int cpu;
};

static struct seen seen[DPK_LCORE_MAX];

static void seen_reset(void)
{
	for (unsigned i = 0; i < DPK_LCORE_MAX; i++) {
		atomic_store(&seen[i].runs, 0);
		atomic_store(&seen[i].id, DPK_LCORE_ANY);
		atomic_store(&seen[i].cpu, -1);
	}
}

/* Records the caller's lcore id and CPU; returns 100 + id, so a result names its lcore. */
static int record(void *arg)
{
	unsigned id = dpk_lcore_id();

	(void)arg;
	if (id >= DPK_LCORE_MAX) {
		dpk_test_fail(__FILE__, __LINE__, "function ran on a thread with no lcore id");
		return -1;
	}
	atomic_fetch_add(&seen[id].runs, 1);
	atomic_store(&seen[id].id, id);
	atomic_store(&seen[id].cpu, sched_getcpu());
	return 100 + (int)id;
}

static int return_arg(void *arg)
{
	return *(const int *)arg;
}

static int wait_for_gate(void *arg)
{
	(void)arg;
	while (!atomic_load(&gate_open))
		sched_yield();
	return 7;
}

/* ---------------------------------------------------------------------------------------- */

static void queries_before_init(void)
{
	struct dpk_cpuset s;
	unsigned a, b;
	int v = 1;

	clean_slate();
	ASSERT_EQ(0, dpk_lcore_count());
	ASSERT_EQ(DPK_LCORE_ANY, dpk_lcore_main());
	ASSERT_EQ(DPK_LCORE_ANY, dpk_lcore_id());
	ASSERT_FALSE(dpk_lcore_is_enabled(0));
	ASSERT_EQ(-EINVAL, dpk_lcore_index(0));
	ASSERT_EQ(DPK_LCORE_ANY, dpk_lcore_next(DPK_LCORE_ANY, false));
	ASSERT_EQ(-EINVAL, dpk_lcore_cpus(0, &s));
	ASSERT_EQ(DPK_CPU_MAX, dpk_lcore_cpu(0));
	ASSERT_EQ(-EINVAL, dpk_lcore_launch(1, return_arg, &v));
	ASSERT_EQ(-EINVAL, dpk_lcore_wait(1));
	ASSERT_EQ(DPK_LCORE_WAIT, dpk_lcore_state(1));
	ASSERT_EQ(-EINVAL, dpk_lcore_launch_all(return_arg, &v, true));
	ASSERT_EQ(0, dpk_lcore_wait_all());
	ASSERT_EQ(-ENOENT, dpk_lcore_pair(DPK_PLACE_OVERSUB, &a, &b));
	ASSERT_EQ(0, dpk_lcore_fini());
}

static void two_cpus_each_lcore_on_its_own(void)
{
	struct dpk_cpuset s;
	unsigned id, n = 0;

	clean_slate();
	if (!cpu_usable(0) || !cpu_usable(1))
		DPK_SKIP("needs CPUs 0 and 1");
	seen_reset();
	ASSERT_EQ(0, dpk_lcore_init("0-1"));
	ASSERT_TRUE(lcore_threads_settle_to(1));
	ASSERT_EQ(2, dpk_lcore_count());
	ASSERT_EQ(0, dpk_lcore_main());
	ASSERT_EQ(0, dpk_lcore_id());
	ASSERT_TRUE(dpk_lcore_is_enabled(0));
	ASSERT_TRUE(dpk_lcore_is_enabled(1));
	ASSERT_FALSE(dpk_lcore_is_enabled(2));
	ASSERT_FALSE(dpk_lcore_is_enabled(DPK_LCORE_ANY));
	ASSERT_EQ(0, dpk_lcore_index(0));
	ASSERT_EQ(1, dpk_lcore_index(1));
	ASSERT_EQ(-EINVAL, dpk_lcore_index(2));
	ASSERT_EQ(0, dpk_lcore_cpus(1, &s));
	ASSERT_EQ(1, dpk_cpuset_count(&s));
	ASSERT_TRUE(dpk_cpuset_isset(&s, 1));
	ASSERT_EQ(-EINVAL, dpk_lcore_cpus(1, NULL));
	ASSERT_EQ(0, dpk_lcore_cpu(0));
	ASSERT_EQ(1, dpk_lcore_cpu(1));
	ASSERT_EQ(0, sched_getcpu()); /* the main thread is pinned to CPU 0 */
	DPK_LCORE_FOREACH(id)
	n++;
	ASSERT_EQ(2, n);
	DPK_LCORE_FOREACH_WORKER(id)
	ASSERT_EQ(1, id);

	ASSERT_EQ(0, dpk_lcore_launch(1, record, NULL));
	ASSERT_EQ(101, dpk_lcore_wait(1));
	ASSERT_EQ(1, atomic_load(&seen[1].runs));
	ASSERT_EQ(1, atomic_load(&seen[1].id));
	ASSERT_EQ(1, atomic_load(&seen[1].cpu));
	ASSERT_EQ(0, dpk_lcore_fini());
	ASSERT_EQ(0, dpk_lcore_count());
	ASSERT_EQ(DPK_LCORE_ANY, dpk_lcore_id());
}

static void launch_wait_return_values(void)
{
	static const int values[] = {0, 1, -1, 42, -EBUSY, 2147483647, -2147483647 - 1};

	clean_slate();
	if (!cpu_usable(0))
		DPK_SKIP("needs CPU 0");
	ASSERT_EQ(0, dpk_lcore_init("(0-2)@0"));
	for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
		ASSERT_EQ(0, dpk_lcore_launch(2, return_arg, (void *)&values[i]));
		ASSERT_EQ(values[i], dpk_lcore_wait(2));
		ASSERT_EQ(DPK_LCORE_WAIT, dpk_lcore_state(2));
		/* Nothing launched since: 0 at once. */
		ASSERT_EQ(0, dpk_lcore_wait(2));
	}
	ASSERT_EQ(0, dpk_lcore_wait(1));
	ASSERT_EQ(0, dpk_lcore_fini());
}

static void states_busy_and_fini_while_running(void)
{
	int v = 3;

	clean_slate();
	if (!cpu_usable(0))
		DPK_SKIP("needs CPU 0");
	ASSERT_EQ(0, dpk_lcore_init("(0-2)@0"));
	ASSERT_EQ(DPK_LCORE_WAIT, dpk_lcore_state(1));
	ASSERT_EQ(0, dpk_lcore_launch(1, wait_for_gate, NULL));
	ASSERT_EQ(DPK_LCORE_RUNNING, dpk_lcore_state(1));
	ASSERT_EQ(-EBUSY, dpk_lcore_launch(1, return_arg, &v));
	ASSERT_EQ(-EBUSY, dpk_lcore_fini());
	ASSERT_TRUE(error_mentions("lcore 1"));
	ASSERT_EQ(3, dpk_lcore_count());
	/* launch_all refuses while one worker is busy and launches none. */
	seen_reset();
	ASSERT_EQ(-EBUSY, dpk_lcore_launch_all(record, NULL, true));
	ASSERT_EQ(DPK_LCORE_WAIT, dpk_lcore_state(2));
	ASSERT_EQ(0, atomic_load(&seen[0].runs));
	ASSERT_EQ(0, atomic_load(&seen[2].runs));

	atomic_store(&gate_open, 1);
	while (dpk_lcore_state(1) != DPK_LCORE_FINISHED)
		sched_yield();
	/* Finished but not waited for: still busy for a launch. */
	ASSERT_EQ(-EBUSY, dpk_lcore_launch(1, return_arg, &v));
	ASSERT_EQ(7, dpk_lcore_wait(1));
	ASSERT_EQ(DPK_LCORE_WAIT, dpk_lcore_state(1));
	ASSERT_EQ(0, dpk_lcore_launch(1, return_arg, &v));
	ASSERT_EQ(3, dpk_lcore_wait(1));
	atomic_store(&gate_open, 0);
	ASSERT_EQ(0, dpk_lcore_fini());
}

static void bad_ids_and_arguments(void)
{
	int v = 1;

	clean_slate();
	if (!cpu_usable(0))
		DPK_SKIP("needs CPU 0");
	ASSERT_EQ(0, dpk_lcore_init("(2,5,9)@0"));
	ASSERT_EQ(2, dpk_lcore_main());
	ASSERT_EQ(2, dpk_lcore_id());
	/* The main lcore is not a launch target. */
	ASSERT_EQ(-EINVAL, dpk_lcore_launch(2, return_arg, &v));
	ASSERT_EQ(-EINVAL, dpk_lcore_wait(2));
	ASSERT_EQ(DPK_LCORE_WAIT, dpk_lcore_state(2));
	/* Ids that are no lcore. */
	ASSERT_EQ(-EINVAL, dpk_lcore_launch(0, return_arg, &v));
	ASSERT_EQ(-EINVAL, dpk_lcore_launch(6, return_arg, &v));
	ASSERT_EQ(-EINVAL, dpk_lcore_launch(DPK_LCORE_MAX, return_arg, &v));
	ASSERT_EQ(-EINVAL, dpk_lcore_launch(DPK_LCORE_ANY, return_arg, &v));
	ASSERT_EQ(-EINVAL, dpk_lcore_wait(DPK_LCORE_MAX));
	ASSERT_EQ(DPK_LCORE_WAIT, dpk_lcore_state(DPK_LCORE_ANY));
	/* No function. */
	ASSERT_EQ(-EINVAL, dpk_lcore_launch(5, NULL, &v));
	ASSERT_EQ(-EINVAL, dpk_lcore_launch_all(NULL, &v, false));
	ASSERT_EQ(DPK_LCORE_WAIT, dpk_lcore_state(5));
	/* Sparse ids: dense indexes and iteration skip the holes. */
	ASSERT_EQ(0, dpk_lcore_index(2));
	ASSERT_EQ(1, dpk_lcore_index(5));
	ASSERT_EQ(2, dpk_lcore_index(9));
	ASSERT_EQ(2, dpk_lcore_next(DPK_LCORE_ANY, false));
	ASSERT_EQ(5, dpk_lcore_next(DPK_LCORE_ANY, true));
	ASSERT_EQ(5, dpk_lcore_next(2, false));
	ASSERT_EQ(9, dpk_lcore_next(5, true));
	ASSERT_EQ(9, dpk_lcore_next(6, true));
	ASSERT_EQ(DPK_LCORE_ANY, dpk_lcore_next(9, false));
	ASSERT_EQ(0, dpk_lcore_fini());
}

static void init_twice_is_ealready(void)
{
	struct dpk_lcore_spec spec;
	int v = 5;

	clean_slate();
	if (!cpu_usable(0))
		DPK_SKIP("needs CPU 0");
	ASSERT_EQ(0, dpk_lcore_init("(0-1)@0"));
	ASSERT_EQ(-EALREADY, dpk_lcore_init("(0-1)@0"));
	ASSERT_EQ(-EALREADY, dpk_lcore_init("0-x"));
	ASSERT_EQ(0, dpk_lcore_spec_parse("0", &spec));
	ASSERT_EQ(-EALREADY, dpk_lcore_init_spec(&spec));
	/* The first set still works. */
	ASSERT_EQ(2, dpk_lcore_count());
	ASSERT_EQ(0, dpk_lcore_launch(1, return_arg, &v));
	ASSERT_EQ(5, dpk_lcore_wait(1));
	ASSERT_EQ(0, dpk_lcore_fini());
	ASSERT_EQ(0, dpk_lcore_fini());
}

static void init_rejects_bad_specs(void)
{

	clean_slate();
	ASSERT_EQ(-EINVAL, dpk_lcore_init("0-x"));
	ASSERT_TRUE(error_mentions("'x'"));
	ASSERT_EQ(-EINVAL, dpk_lcore_init(""));
	ASSERT_EQ(-EINVAL, dpk_lcore_init(NULL));
	ASSERT_EQ(-EINVAL, dpk_lcore_init_spec(NULL));
	ASSERT_EQ(-ENODEV, dpk_lcore_init("0@1000"));
	ASSERT_TRUE(error_mentions("CPU 1000"));
	ASSERT_EQ(-ENODEV, dpk_lcore_init("0,1@1023"));
	ASSERT_TRUE(error_mentions("CPU 1023"));
	ASSERT_EQ(0, dpk_lcore_count());
	ASSERT_EQ(DPK_LCORE_ANY, dpk_lcore_id());
	ASSERT_TRUE(lcore_threads_settle_to(0));
}

static void oversubscribed_launch_all(void)
{
	static const char *const specs[] = {"(0-3)@0", "0@0,(1-3)@(0-1)"};

	clean_slate();
	if (!cpu_usable(0))
		DPK_SKIP("needs CPU 0");
	for (size_t k = 0; k < sizeof(specs) / sizeof(specs[0]); k++) {
		unsigned id;

		if (k == 1 && !cpu_usable(1))
			break;
		ASSERT_EQ(0, dpk_lcore_init(specs[k]));
		ASSERT_EQ(4, dpk_lcore_count());

		/* Without the main lcore. */
		seen_reset();
		ASSERT_EQ(0, dpk_lcore_launch_all(record, NULL, false));
		ASSERT_EQ(101, dpk_lcore_wait_all()); /* first non-zero in id order */
		ASSERT_EQ(0, atomic_load(&seen[0].runs));
		DPK_LCORE_FOREACH_WORKER(id)
		{
			struct dpk_cpuset cpus;

			ASSERT_EQ(1, atomic_load(&seen[id].runs));
			ASSERT_EQ(id, atomic_load(&seen[id].id));
			ASSERT_EQ(0, dpk_lcore_cpus(id, &cpus));
			ASSERT_TRUE(dpk_cpuset_isset(&cpus, (unsigned)atomic_load(&seen[id].cpu)));
			ASSERT_EQ(DPK_LCORE_WAIT, dpk_lcore_state(id));
		}

		/* With it: the main lcore's result comes back from launch_all. */
		seen_reset();
		ASSERT_EQ(100, dpk_lcore_launch_all(record, NULL, true));
		ASSERT_EQ(101, dpk_lcore_wait_all());
		DPK_LCORE_FOREACH(id)
		{
			ASSERT_EQ(1, atomic_load(&seen[id].runs));
			ASSERT_EQ(id, atomic_load(&seen[id].id));
		}
		ASSERT_EQ(0, atomic_load(&seen[0].cpu));
		ASSERT_EQ(0, dpk_lcore_fini());
	}
}

/* Even lcores fail with their negated id. */
static int fail_on_even(void *arg)
{
	unsigned id = dpk_lcore_id();

	(void)arg;
	return id % 2 == 0 && id != 0 ? -(int)id : 0;
}

static void wait_all_returns_first_failure(void)
{
	clean_slate();
	if (!cpu_usable(0))
		DPK_SKIP("needs CPU 0");
	ASSERT_EQ(0, dpk_lcore_init("(0-4)@0"));
	/* Lcores 2 and 4 fail; the first in id order is reported whichever ends first. */
	ASSERT_EQ(0, dpk_lcore_launch_all(fail_on_even, NULL, true));
	ASSERT_EQ(-2, dpk_lcore_wait_all());
	ASSERT_EQ(0, dpk_lcore_launch_all(fail_on_even, NULL, false));
	ASSERT_EQ(-2, dpk_lcore_wait(2));
	ASSERT_EQ(-4, dpk_lcore_wait_all());
	ASSERT_EQ(0, dpk_lcore_wait_all());
	ASSERT_EQ(0, dpk_lcore_fini());
}

/* Plain (non-atomic) data handed over by launch and back by wait. */
struct handoff {
	unsigned round;
	unsigned in[64];
	unsigned out[64];
	unsigned long sum;
};

static int handoff_work(void *arg)
{
	struct handoff *h = arg;
	unsigned long sum = 0;

	for (unsigned i = 0; i < 64; i++) {
		if (h->in[i] != h->round * 64 + i)
			return -1; /* the launch did not publish the input */
		h->out[i] = h->in[i] * 3;
		sum += h->in[i];
	}
	h->sum = sum;
	return (int)(h->round & 0xffff);
}

static void memory_visibility(void)
{
	static struct handoff h[3];
	unsigned ms = dpk_test_stress_ms(300), rounds = 0;
	uint64_t end;

	clean_slate();
	if (!cpu_usable(0))
		DPK_SKIP("needs CPU 0");
	ASSERT_EQ(0, dpk_lcore_init(cpu_usable(1) ? "0,1@1,2@0" : "(0-2)@0"));
	end = dpk_test_now_ms() + ms;
	do {
		for (unsigned id = 1; id <= 2; id++) {
			struct handoff *x = &h[id];

			x->round = rounds;
			for (unsigned i = 0; i < 64; i++) {
				x->in[i] = rounds * 64 + i;
				x->out[i] = 0;
			}
			x->sum = 0;
			ASSERT_EQ(0, dpk_lcore_launch(id, handoff_work, x));
		}
		for (unsigned id = 1; id <= 2; id++) {
			struct handoff *x = &h[id];
			unsigned long want = 0;

			ASSERT_EQ((int)(rounds & 0xffff), dpk_lcore_wait(id));
			for (unsigned i = 0; i < 64; i++) {
				ASSERT_EQ((rounds * 64 + i) * 3, x->out[i]);
				want += rounds * 64 + i;
			}
			ASSERT_EQ(want, x->sum);
		}
		rounds++;
	} while (dpk_test_now_ms() < end || rounds < 100);
	dpk_test_note("%u hand-off rounds", rounds);
	ASSERT_EQ(0, dpk_lcore_fini());
}

static void *read_lcore_id(void *arg)
{
	*(unsigned *)arg = dpk_lcore_id();
	return NULL;
}

static void other_threads_have_no_lcore_id(void)
{
	unsigned id = 0;
	pthread_t t;

	clean_slate();
	if (!cpu_usable(0))
		DPK_SKIP("needs CPU 0");
	ASSERT_EQ(0, dpk_lcore_init("(0-1)@0"));
	ASSERT_EQ(0, pthread_create(&t, NULL, read_lcore_id, &id));
	ASSERT_EQ(0, pthread_join(t, NULL));
	ASSERT_EQ(DPK_LCORE_ANY, id);
	ASSERT_EQ(0, dpk_lcore_id());
	ASSERT_EQ(0, dpk_lcore_fini());
}

struct launch_try {
	int launch_rc, wait_rc, all_rc, wait_all_rc, fini_rc;
};

static void *launch_from_other_thread(void *arg)
{
	struct launch_try *t = arg;
	static const int v = 7;

	t->launch_rc = dpk_lcore_launch(1, return_arg, (void *)&v);
	t->wait_rc = dpk_lcore_wait(1);
	t->all_rc = dpk_lcore_launch_all(return_arg, (void *)&v, false);
	t->wait_all_rc = dpk_lcore_wait_all();
	t->fini_rc = dpk_lcore_fini();
	return NULL;
}

static int try_launch_from_worker(void *arg)
{
	static const int v = 9;

	(void)arg;
	return dpk_lcore_launch(2, return_arg, (void *)&v);
}

static int try_launch_all_from_worker(void *arg)
{
	static const int v = 9;

	(void)arg;
	return dpk_lcore_launch_all(return_arg, (void *)&v, false);
}

static void only_the_main_lcore_launches_and_waits(void)
{
	struct launch_try t = {0, 0, 0, 0, 0};
	pthread_t th;

	clean_slate();
	if (!cpu_usable(0))
		DPK_SKIP("needs CPU 0");
	ASSERT_EQ(0, dpk_lcore_init("(0-2)@0"));
	ASSERT_EQ(0, pthread_create(&th, NULL, launch_from_other_thread, &t));
	ASSERT_EQ(0, pthread_join(th, NULL));
	EXPECT_EQ(-EPERM, t.launch_rc);
	EXPECT_EQ(-EPERM, t.wait_rc);
	/* launch_all from another thread returned 0 and raced the main lcore's own launches;
	 * fini stopped the lcores under the main thread, which kept its lcore id. */
	EXPECT_EQ(-EPERM, t.all_rc);
	EXPECT_EQ(-EPERM, t.wait_all_rc);
	EXPECT_EQ(-EPERM, t.fini_rc);
	EXPECT_EQ(3, dpk_lcore_count());
	EXPECT_EQ(DPK_LCORE_WAIT, dpk_lcore_state(1)); /* nothing changed */
	EXPECT_EQ(DPK_LCORE_WAIT, dpk_lcore_state(2));
	/* A worker lcore is not the main lcore either. */
	ASSERT_EQ(0, dpk_lcore_launch(1, try_launch_from_worker, NULL));
	EXPECT_EQ(-EPERM, dpk_lcore_wait(1));
	EXPECT_EQ(DPK_LCORE_WAIT, dpk_lcore_state(2));
	ASSERT_EQ(0, dpk_lcore_launch(1, try_launch_all_from_worker, NULL));
	EXPECT_EQ(-EPERM, dpk_lcore_wait(1));
	EXPECT_EQ(DPK_LCORE_WAIT, dpk_lcore_state(2));
	ASSERT_EQ(0, dpk_lcore_fini());
}

static void init_fini_fifty_times(void)
{
	const char *spec;

	clean_slate();
	if (!cpu_usable(0))
		DPK_SKIP("needs CPU 0");
	spec = cpu_usable(1) ? "0-1,(2-3)@(0-1)" : "(0-3)@0";
	for (int i = 0; i < 50; i++) {
		int v = i;

		ASSERT_EQ(0, dpk_lcore_init(spec));
		ASSERT_TRUE(lcore_threads_settle_to(3));
		ASSERT_EQ(0, dpk_lcore_launch(1 + (unsigned)i % 3, return_arg, &v));
		ASSERT_EQ(i, dpk_lcore_wait(1 + (unsigned)i % 3));
		ASSERT_EQ(0, dpk_lcore_fini());
		ASSERT_EQ(0, dpk_lcore_count());
		ASSERT_TRUE(lcore_threads_settle_to(0));
	}
}

static void main_affinity_restored(void)
{
	cpu_set_t before, one, after;

	clean_slate();
	if (!cpu_usable(0) || !cpu_usable(1))
		DPK_SKIP("needs CPUs 0 and 1");
	ASSERT_EQ(0, sched_getaffinity(0, sizeof(before), &before));
	/* Start from CPU 1 alone, so that lcore 0's pinning to CPU 0 is a real change. */
	CPU_ZERO(&one);
	CPU_SET(1, &one);
	ASSERT_EQ(0, sched_setaffinity(0, sizeof(one), &one));
	ASSERT_EQ(0, dpk_lcore_init("0-1"));
	ASSERT_EQ(0, sched_getaffinity(0, sizeof(after), &after));
	EXPECT_EQ(1, CPU_COUNT(&after));
	EXPECT_TRUE(CPU_ISSET(0, &after));
	EXPECT_EQ(0, sched_getcpu());
	EXPECT_EQ(0, dpk_lcore_fini());
	ASSERT_EQ(0, sched_getaffinity(0, sizeof(after), &after));
	EXPECT_TRUE(CPU_EQUAL(&one, &after));
	/* A failed init leaves it alone too. */
	EXPECT_EQ(-ENODEV, dpk_lcore_init("0@1000"));
	ASSERT_EQ(0, sched_getaffinity(0, sizeof(after), &after));
	EXPECT_TRUE(CPU_EQUAL(&one, &after));
	ASSERT_EQ(0, sched_setaffinity(0, sizeof(before), &before));
}

static void pair_on_running_lcores(void)
{
	const struct dpk_topo *t = dpk_topo_system();
	unsigned a = 99, b = 99;

	clean_slate();
	if (!cpu_usable(0) || !cpu_usable(1))
		DPK_SKIP("needs CPUs 0 and 1");
	ASSERT_EQ(0, dpk_lcore_init("(0-1)@0,2@1,3@(0-1)"));
	ASSERT_EQ(0, dpk_lcore_pair(DPK_PLACE_OVERSUB, &a, &b));
	ASSERT_EQ(0, a);
	ASSERT_EQ(1, b);
	/* Whatever relation CPUs 0 and 1 have here, the pair for it is (0, 2). */
	for (int p = DPK_PLACE_SMT; p <= DPK_PLACE_NUMA; p++) {
		int rc = dpk_lcore_pair((enum dpk_placement)p, &a, &b);

		if (dpk_topo_is_pair(t, (enum dpk_placement)p, 0, 1)) {
			ASSERT_EQ(0, rc);
			ASSERT_EQ(0, a);
			ASSERT_EQ(2, b);
		} else {
			ASSERT_EQ(-ENOENT, rc);
		}
	}
	ASSERT_EQ(-EINVAL, dpk_lcore_pair(DPK_PLACE_ALL, &a, &b));
	ASSERT_EQ(0, dpk_lcore_fini());
}

/*
 * A worker that cannot be pinned: the process is run again with DPK_SYSFS_ROOT set to the
 * two-socket fixture, whose CPU 12 passes the spec check but does not exist here, so the
 * kernel refuses the affinity and init must undo everything.
 */
static void failed_pin_undoes_everything(void)
{
	static char self[4096];
	cpu_set_t before, after;
	int rc;

	if (!getenv("DPK_TEST_PIN_CHILD")) {
		char *argv[] = {self, "failed_pin_undoes_everything", NULL};
		posix_spawn_file_actions_t fa;
		pid_t pid;
		int status;
		ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

		if (n <= 0)
			DPK_SKIP("cannot find this program");
		self[n] = '\0';
		if (cpu_usable(12))
			DPK_SKIP("CPU 12 exists here");
		ASSERT_EQ(0, setenv("DPK_SYSFS_ROOT", FIXTURES "/xeon-2s-smt", 1));
		ASSERT_EQ(0, setenv("DPK_TEST_PIN_CHILD", "1", 1));
		/* The child's TAP lines go to stderr so that they do not mix with ours. */
		posix_spawn_file_actions_init(&fa);
		posix_spawn_file_actions_adddup2(&fa, 2, 1);
		rc = posix_spawn(&pid, self, &fa, NULL, argv, environ);
		posix_spawn_file_actions_destroy(&fa);
		unsetenv("DPK_SYSFS_ROOT");
		unsetenv("DPK_TEST_PIN_CHILD");
		ASSERT_EQ(0, rc);
		ASSERT_EQ(pid, waitpid(pid, &status, 0));
		ASSERT_TRUE(WIFEXITED(status));
		ASSERT_EQ(0, WEXITSTATUS(status));
		return;
	}
	/* In the child. */
	if (!cpu_usable(0))
		DPK_SKIP("needs CPU 0");
	ASSERT_EQ(0, sched_getaffinity(0, sizeof(before), &before));
	rc = dpk_lcore_init("0,1@0,12");
	ASSERT_TRUE(rc < 0);
	ASSERT_NE(-ENODEV, rc);
	dpk_test_note("init on a CPU that is not here: %d (%s)", rc, dpk_last_error());
	ASSERT_TRUE(error_mentions("lcore 12"));
	ASSERT_EQ(0, dpk_lcore_count());
	ASSERT_EQ(DPK_LCORE_ANY, dpk_lcore_id());
	ASSERT_TRUE(lcore_threads_settle_to(0));
	ASSERT_EQ(0, sched_getaffinity(0, sizeof(after), &after));
	ASSERT_TRUE(CPU_EQUAL(&before, &after));
	/* And lcores still start afterwards. */
	ASSERT_EQ(0, dpk_lcore_init("(0-1)@0"));
	ASSERT_EQ(0, dpk_lcore_fini());
}

static const struct dpk_test_case cases[] = {
        DPK_TEST(queries_before_init),
        DPK_TEST(two_cpus_each_lcore_on_its_own),
        DPK_TEST(launch_wait_return_values),
        DPK_TEST(states_busy_and_fini_while_running),
        DPK_TEST(bad_ids_and_arguments),
        DPK_TEST(init_twice_is_ealready),
        DPK_TEST(init_rejects_bad_specs),
        DPK_TEST(oversubscribed_launch_all),
        DPK_TEST(wait_all_returns_first_failure),
        DPK_TEST(memory_visibility),
        DPK_TEST(other_threads_have_no_lcore_id),
        DPK_TEST(only_the_main_lcore_launches_and_waits),
        DPK_TEST(init_fini_fifty_times),
        DPK_TEST(main_affinity_restored),
        DPK_TEST(pair_on_running_lcores),
        DPK_TEST(failed_pin_undoes_everything),
};

DPK_TEST_MAIN(cases)
