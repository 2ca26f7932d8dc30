/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Lcores: the spec parser, one pinned thread per worker lcore, and launch/wait.
 *
 * A worker sleeps on a condition variable until it is launched or told to quit. Its state
 * word carries the hand-offs: the main lcore publishes fn and arg by storing RUNNING with
 * release (L1), the worker acquires it (W1); the worker publishes the return value and
 * everything the function wrote by storing FINISHED with release (F1), and wait and state
 * acquire it (C1). The mutex only guards the sleeping, so a wakeup is never lost.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dpk/lcore.h>

#include "internal.h"

_Static_assert(DPK_CPU_MAX <= CPU_SETSIZE, "a dpk_cpuset must fit in a cpu_set_t");
_Static_assert(DPK_LCORE_MAX <= DPK_CPU_MAX, "an lcore id must be usable as a CPU number");

/* ---------------------------------------------------------------------------------------- */
/* Spec parsing */

struct spec_parser {
	const char *text; /* the whole spec, for messages */
	const char *p;    /* the next character to read */
};

/* The most bytes of a spec a message echoes: a long spec is cut, so that the reason after it
 * fits dpk_last_error()'s buffer whole. */
#define ECHO_MAX 40

/* A spec, or the rest of one, as a message echoes it: whole, or its start and "...". */
struct echo {
	char s[ECHO_MAX + 4];
};

static struct echo echo(const char *s)
{
	struct echo e;

	if (strlen(s) <= ECHO_MAX)
		snprintf(e.s, sizeof(e.s), "%s", s);
	else
		snprintf(e.s, sizeof(e.s), "%.*s...", ECHO_MAX, s);
	return e;
}

/* Length of the token at @p s for messages: up to the next delimiter, and at least the
 * delimiter itself so that a stray one names itself; at most ECHO_MAX. */
static int token_len(const char *s)
{
	size_t n = strcspn(s, ",()@-");

	if (n > ECHO_MAX)
		n = ECHO_MAX;
	return (int)(n ? n : (*s ? 1 : 0));
}

/* Length of the text from @p a to @p b for messages: at most ECHO_MAX. */
static int span_len(const char *a, const char *b)
{
	return (int)(b - a > ECHO_MAX ? ECHO_MAX : b - a);
}

static int spec_error_missing(const struct spec_parser *ps)
{
	if (*ps->p == '\0')
		dpk__set_error("lcore spec '%s': number missing at the end", echo(ps->text).s);
	else
		dpk__set_error("lcore spec '%s': number missing before '%s'", echo(ps->text).s,
		               echo(ps->p).s);
	return -EINVAL;
}

/* A decimal number below @p max; @p what names it in messages ("lcore id", "CPU"). */
static int spec_number(struct spec_parser *ps, unsigned max, const char *what, unsigned *out)
{
	const char *start = ps->p;
	unsigned long v = 0;

	if (*ps->p == '\0' || strchr(",()@-", *ps->p))
		return spec_error_missing(ps);
	while (*ps->p >= '0' && *ps->p <= '9') {
		if (v < DPK_CPU_MAX)
			v = v * 10 + (unsigned long)(*ps->p - '0');
		ps->p++;
	}
	if (ps->p == start || (*ps->p != '\0' && !strchr(",()@-", *ps->p))) {
		dpk__set_error("lcore spec '%s': bad number '%.*s'", echo(ps->text).s,
		               token_len(start), start);
		return -EINVAL;
	}
	if (v >= max) {
		dpk__set_error("lcore spec '%s': %s '%.*s' is not below %u", echo(ps->text).s, what,
		               span_len(start, ps->p), start, max);
		return -EINVAL;
	}
	*out = (unsigned)v;
	return 0;
}

/* "n" or "n-m" into @p set; with @p unique, a number already in the set is an error. */
static int spec_range(struct spec_parser *ps, unsigned max, const char *what, bool unique,
                      struct dpk_cpuset *set)
{
	const char *start = ps->p;
	unsigned lo, hi;
	int rc;

	rc = spec_number(ps, max, what, &lo);
	if (rc)
		return rc;
	hi = lo;
	if (*ps->p == '-') {
		ps->p++;
		rc = spec_number(ps, max, what, &hi);
		if (rc)
			return rc;
		if (hi < lo) {
			dpk__set_error("lcore spec '%s': reversed range '%.*s'", echo(ps->text).s,
			               span_len(start, ps->p), start);
			return -EINVAL;
		}
	}
	for (unsigned v = lo; v <= hi; v++) {
		if (unique && dpk_cpuset_isset(set, v)) {
			dpk__set_error("lcore spec '%s': lcore %u given twice", echo(ps->text).s,
			               v);
			return -EINVAL;
		}
		dpk_cpuset_set(set, v);
	}
	return 0;
}

/* A range, or a parenthesised list of ranges; *paren (when not NULL) says which. */
static int spec_set(struct spec_parser *ps, unsigned max, const char *what, bool unique,
                    struct dpk_cpuset *set, bool *paren)
{
	const char *open = ps->p;
	int rc;

	dpk_cpuset_zero(set);
	if (paren)
		*paren = *ps->p == '(';
	if (*ps->p != '(')
		return spec_range(ps, max, what, unique, set);
	ps->p++;
	for (;;) {
		rc = spec_range(ps, max, what, unique, set);
		if (rc)
			return rc;
		if (*ps->p == ')') {
			ps->p++;
			return 0;
		}
		if (*ps->p == '\0') {
			dpk__set_error("lcore spec '%s': missing ')' after '%s'", echo(ps->text).s,
			               echo(open).s);
			return -EINVAL;
		}
		if (*ps->p != ',') {
			dpk__set_error("lcore spec '%s': unexpected '%s'", echo(ps->text).s,
			               echo(ps->p).s);
			return -EINVAL;
		}
		ps->p++;
	}
}

int dpk_lcore_spec_parse(const char *text, struct dpk_lcore_spec *out)
{
	struct spec_parser ps = {text, text};
	struct dpk_cpuset have, cpus_of[DPK_LCORE_MAX];
	unsigned n = 0, id;
	int rc;

	if (!text || !out) {
		dpk__set_error("lcore spec: NULL argument");
		return -EINVAL;
	}
	if (*text == '\0') {
		dpk__set_error("lcore spec '': empty");
		return -EINVAL;
	}
	dpk_cpuset_zero(&have);
	for (;;) {
		struct dpk_cpuset lcores, cpus;
		bool lparen, at;

		rc = spec_set(&ps, DPK_LCORE_MAX, "lcore id", true, &lcores, &lparen);
		if (rc)
			return rc;
		at = *ps.p == '@';
		if (at) {
			ps.p++;
			rc = spec_set(&ps, DPK_CPU_MAX, "CPU", false, &cpus, NULL);
			if (rc)
				return rc;
		} else if (lparen) {
			/* As DPDK: "(0-3)" without '@' lets each lcore run on all of 0-3. */
			cpus = lcores;
		}
		if (*ps.p != '\0' && *ps.p != ',') {
			dpk__set_error("lcore spec '%s': unexpected '%s'", echo(text).s,
			               echo(ps.p).s);
			return -EINVAL;
		}
		DPK_CPUSET_FOREACH(id, &lcores)
		{
			if (dpk_cpuset_isset(&have, id)) {
				dpk__set_error("lcore spec '%s': lcore %u given twice",
				               echo(text).s, id);
				return -EINVAL;
			}
			dpk_cpuset_set(&have, id);
			if (at || lparen) {
				cpus_of[id] = cpus;
			} else {
				/* "0-3" puts each lcore on the CPU of the same number. */
				dpk_cpuset_zero(&cpus_of[id]);
				dpk_cpuset_set(&cpus_of[id], id);
			}
		}
		if (*ps.p == '\0')
			break;
		ps.p++;
	}
	DPK_CPUSET_FOREACH(id, &have)
	{
		out->ids[n] = id;
		out->cpus[n] = cpus_of[id];
		n++;
	}
	out->count = n;
	return 0;
}

/* A spec as the parser makes it: 1..DPK_LCORE_MAX lcores, ids ascending and in range,
 * each with at least one CPU. */
static bool spec_valid(const struct dpk_lcore_spec *spec)
{
	if (!spec || spec->count == 0 || spec->count > DPK_LCORE_MAX) {
		dpk__set_error("lcore spec: %s", spec ? "bad lcore count" : "NULL argument");
		return false;
	}
	for (unsigned i = 0; i < spec->count; i++) {
		if (spec->ids[i] >= DPK_LCORE_MAX || (i > 0 && spec->ids[i] <= spec->ids[i - 1]) ||
		    dpk_cpuset_count(&spec->cpus[i]) == 0) {
			dpk__set_error("lcore spec: entry %u (lcore %u) is out of order, out of "
			               "range or has no CPU",
			               i, spec->ids[i]);
			return false;
		}
	}
	return true;
}

int dpk_lcore_spec_check(const struct dpk_lcore_spec *spec, const struct dpk_topo *topo)
{
	if (!spec_valid(spec))
		return -EINVAL;
	if (!topo) {
		topo = dpk_topo_system();
		if (!topo) {
			/* dpk_topo_system() has said which file is missing. */
			return -ENODEV;
		}
	}
	for (unsigned i = 0; i < spec->count; i++) {
		unsigned c;

		DPK_CPUSET_FOREACH(c, &spec->cpus[i])
		{
			if (!dpk_cpuset_isset(dpk_topo_present(topo), c)) {
				dpk__set_error("lcore %u: CPU %u does not exist under %s",
				               spec->ids[i], c, dpk_topo_root(topo));
				return -ENODEV;
			}
			if (!dpk_cpuset_isset(dpk_topo_online(topo), c)) {
				dpk__set_error("lcore %u: CPU %u is offline", spec->ids[i], c);
				return -ENODEV;
			}
		}
	}
	return 0;
}

int dpk_lcore_spec_pair(const struct dpk_lcore_spec *spec, const struct dpk_topo *topo,
                        enum dpk_placement p, unsigned *a, unsigned *b)
{
	if (!spec || !a || !b || spec->count > DPK_LCORE_MAX ||
	    (p != DPK_PLACE_SMT && p != DPK_PLACE_CORE && p != DPK_PLACE_LLC &&
	     p != DPK_PLACE_NUMA && p != DPK_PLACE_OVERSUB)) {
		dpk__set_error("lcore pair: bad argument (placement %s)", dpk_placement_name(p));
		return -EINVAL;
	}
	if (!topo)
		topo = dpk_topo_system();
	if (!topo)
		return -ENOENT;
	for (unsigned i = 0; i < spec->count; i++) {
		if (dpk_cpuset_count(&spec->cpus[i]) != 1)
			continue;
		for (unsigned j = i + 1; j < spec->count; j++) {
			if (dpk_cpuset_count(&spec->cpus[j]) != 1)
				continue;
			if (dpk_topo_is_pair(topo, p, dpk_cpuset_first(&spec->cpus[i]),
			                     dpk_cpuset_first(&spec->cpus[j]))) {
				*a = spec->ids[i];
				*b = spec->ids[j];
				return 0;
			}
		}
	}
	dpk__set_error("lcore pair: no two single-CPU lcores in placement %s",
	               dpk_placement_name(p));
	return -ENOENT;
}

/* ---------------------------------------------------------------------------------------- */
/* Running lcores */

struct worker {
	_Alignas(DPK_CACHE_LINE) _Atomic int state; /* enum dpk_lcore_state */
	dpk_lcore_fn fn;                            /* written by main before L1 */
	void *arg;                                  /* written by main before L1 */
	int ret;                                    /* written by the worker before F1 */
	unsigned id;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t wake; /* the worker sleeps here until launched or told to quit */
	pthread_cond_t done; /* main sleeps here for FINISHED and for the start-up report */
	bool quit;           /* under lock: leave the loop */
	bool started;        /* under lock: start_err is set */
	int start_err;       /* under lock: 0, or the errno of pinning */
	cpu_set_t cpus;
};

static struct {
	pthread_mutex_t api_lock; /* serialises init and fini */
	/* Number of lcores, 0 when not initialised; stored last by init (I1). */
	_Atomic unsigned count;
	unsigned main_id;
	struct dpk_lcore_spec spec;
	int index[DPK_LCORE_MAX]; /* dense index of each id, -1 for none */
	struct worker *workers[DPK_LCORE_MAX];
	pthread_t main_thread;
	cpu_set_t main_saved; /* the main thread's affinity before init */
} lc = {.api_lock = PTHREAD_MUTEX_INITIALIZER};

/* The calling thread's lcore id, read inline by dpk_lcore_id() (see lcore.h). */
_Thread_local unsigned dpk__lcore_id __attribute__((tls_model("initial-exec"))) = DPK_LCORE_ANY;
#define this_lcore dpk__lcore_id

static void to_cpu_set(const struct dpk_cpuset *s, cpu_set_t *out)
{
	unsigned c;

	CPU_ZERO(out);
	DPK_CPUSET_FOREACH(c, s)
	CPU_SET(c, out);
}

/* The number of lcores as published by init: I2 pairs with I1 in dpk_lcore_init_spec(),
 * so a thread that sees it non-zero also sees the tables. */
static unsigned published_count(void)
{
	return atomic_load_explicit(&lc.count, memory_order_acquire); /* I2 */
}

static bool lcore_exists(unsigned id)
{
	return id < DPK_LCORE_MAX && published_count() != 0 && lc.index[id] >= 0;
}

static struct worker *worker_of(unsigned id)
{
	if (!lcore_exists(id) || id == lc.main_id)
		return NULL;
	return lc.workers[id];
}

static void *worker_main(void *p)
{
	struct worker *w = p;
	char name[16];
	int err;

	err = pthread_setaffinity_np(pthread_self(), sizeof(w->cpus), &w->cpus);
	snprintf(name, sizeof(name), "dpk-lcore-%u", w->id);
	pthread_setname_np(pthread_self(), name);
	this_lcore = w->id;

	pthread_mutex_lock(&w->lock);
	w->started = true;
	w->start_err = err;
	pthread_cond_broadcast(&w->done);
	if (err) {
		pthread_mutex_unlock(&w->lock);
		return NULL;
	}
	for (;;) {
		/* W1: pairs with L1 in dpk_lcore_launch(): fn, arg and whatever the main lcore
		 * wrote before launching are visible here. */
		while (!w->quit &&
		       atomic_load_explicit(&w->state, memory_order_acquire) != DPK_LCORE_RUNNING)
			pthread_cond_wait(&w->wake, &w->lock);
		if (w->quit)
			break;
		pthread_mutex_unlock(&w->lock);

		w->ret = w->fn(w->arg);

		pthread_mutex_lock(&w->lock);
		/* F1: pairs with C1 in dpk_lcore_wait() and dpk_lcore_state(): ret and the
		 * function's writes are visible to the main lcore once it sees FINISHED. */
		atomic_store_explicit(&w->state, DPK_LCORE_FINISHED, memory_order_release);
		pthread_cond_broadcast(&w->done);
	}
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

static void worker_destroy(struct worker *w)
{
	pthread_cond_destroy(&w->done);
	pthread_cond_destroy(&w->wake);
	pthread_mutex_destroy(&w->lock);
	free(w);
}

/* Tell a started worker to leave its loop, join it and free it. */
static void worker_stop(struct worker *w)
{
	pthread_mutex_lock(&w->lock);
	w->quit = true;
	pthread_cond_signal(&w->wake);
	pthread_mutex_unlock(&w->lock);
	pthread_join(w->thread, NULL);
	worker_destroy(w);
}

/* Start lcore @p id's thread and wait until it has pinned itself. */
static int worker_start(unsigned id, const struct dpk_cpuset *cpus, struct worker **out)
{
	struct worker *w;
	int err;

	w = aligned_alloc(DPK_CACHE_LINE, sizeof(*w));
	if (!w) {
		dpk__set_error("lcore %u: out of memory", id);
		return -ENOMEM;
	}
	memset(w, 0, sizeof(*w));
	w->id = id;
	atomic_init(&w->state, DPK_LCORE_WAIT);
	to_cpu_set(cpus, &w->cpus);
	pthread_mutex_init(&w->lock, NULL);
	pthread_cond_init(&w->wake, NULL);
	pthread_cond_init(&w->done, NULL);

	err = pthread_create(&w->thread, NULL, worker_main, w);
	if (err) {
		dpk__set_error("lcore %u: cannot create its thread: %s", id, strerror(err));
		worker_destroy(w);
		return -err;
	}
	pthread_mutex_lock(&w->lock);
	while (!w->started)
		pthread_cond_wait(&w->done, &w->lock);
	err = w->start_err;
	pthread_mutex_unlock(&w->lock);
	if (err) {
		char buf[64];

		dpk__set_error("lcore %u: cannot pin its thread to CPUs %s: %s", id,
		               dpk_cpulist_format(cpus, buf, sizeof(buf)), strerror(err));
		pthread_join(w->thread, NULL);
		worker_destroy(w);
		return -err;
	}
	*out = w;
	return 0;
}

static void stop_workers(void)
{
	for (unsigned i = 0; i < DPK_LCORE_MAX; i++) {
		if (lc.workers[i]) {
			worker_stop(lc.workers[i]);
			lc.workers[i] = NULL;
		}
	}
}

int dpk_lcore_init_spec(const struct dpk_lcore_spec *spec)
{
	cpu_set_t main_cpus;
	int rc, err;

	pthread_mutex_lock(&lc.api_lock);
	if (atomic_load_explicit(&lc.count, memory_order_relaxed) != 0) {
		dpk__set_error("lcores are already initialised");
		rc = -EALREADY;
		goto out_unlock;
	}
	rc = dpk_lcore_spec_check(spec, NULL);
	if (rc)
		goto out_unlock;

	lc.spec = *spec;
	lc.main_id = spec->ids[0];
	for (unsigned i = 0; i < DPK_LCORE_MAX; i++)
		lc.index[i] = -1;
	for (unsigned i = 0; i < spec->count; i++)
		lc.index[spec->ids[i]] = (int)i;

	lc.main_thread = pthread_self();
	err = pthread_getaffinity_np(lc.main_thread, sizeof(lc.main_saved), &lc.main_saved);
	if (err) {
		dpk__set_error("lcore %u: cannot read the main thread's affinity: %s", lc.main_id,
		               strerror(err));
		rc = -err;
		goto out_unlock;
	}
	to_cpu_set(&spec->cpus[0], &main_cpus);
	err = pthread_setaffinity_np(lc.main_thread, sizeof(main_cpus), &main_cpus);
	if (err) {
		char buf[64];

		dpk__set_error("lcore %u: cannot pin the main thread to CPUs %s: %s", lc.main_id,
		               dpk_cpulist_format(&spec->cpus[0], buf, sizeof(buf)), strerror(err));
		rc = -err;
		goto out_unlock;
	}
	for (unsigned i = 1; i < spec->count; i++) {
		rc = worker_start(spec->ids[i], &spec->cpus[i], &lc.workers[spec->ids[i]]);
		if (rc)
			goto out_stop_workers;
	}
	this_lcore = lc.main_id;
	/* I1: pairs with I2 in published_count(): the tables above are visible to any
	 * thread that sees a non-zero count. */
	atomic_store_explicit(&lc.count, spec->count, memory_order_release);
	pthread_mutex_unlock(&lc.api_lock);
	return 0;

out_stop_workers:
	stop_workers();
	pthread_setaffinity_np(lc.main_thread, sizeof(lc.main_saved), &lc.main_saved);
out_unlock:
	pthread_mutex_unlock(&lc.api_lock);
	return rc;
}

int dpk_lcore_init(const char *text)
{
	struct dpk_lcore_spec spec;
	int rc;

	if (published_count() != 0) {
		dpk__set_error("lcores are already initialised");
		return -EALREADY;
	}
	rc = dpk_lcore_spec_parse(text, &spec);
	if (rc)
		return rc;
	return dpk_lcore_init_spec(&spec);
}

int dpk_lcore_fini(void)
{
	pthread_mutex_lock(&lc.api_lock);
	if (atomic_load_explicit(&lc.count, memory_order_relaxed) == 0) {
		pthread_mutex_unlock(&lc.api_lock);
		return 0;
	}
	/* Another thread would stop the lcores under the main one, which keeps its id. */
	if (!pthread_equal(pthread_self(), lc.main_thread)) {
		dpk__set_error("lcore fini: only the thread that called init may");
		pthread_mutex_unlock(&lc.api_lock);
		return -EPERM;
	}
	for (unsigned i = 0; i < DPK_LCORE_MAX; i++) {
		struct worker *w = lc.workers[i];

		if (w &&
		    atomic_load_explicit(&w->state, memory_order_acquire) == DPK_LCORE_RUNNING) {
			dpk__set_error("lcore %u is still running a launched function", i);
			pthread_mutex_unlock(&lc.api_lock);
			return -EBUSY;
		}
	}
	atomic_store_explicit(&lc.count, 0, memory_order_relaxed);
	stop_workers();
	/* The saved affinity was the thread's own a moment before init; only a change of
	 * the process's cpuset since then can make it fail, and then there is nothing
	 * better to restore. */
	pthread_setaffinity_np(lc.main_thread, sizeof(lc.main_saved), &lc.main_saved);
	this_lcore = DPK_LCORE_ANY;
	lc.main_id = DPK_LCORE_ANY;
	pthread_mutex_unlock(&lc.api_lock);
	return 0;
}

/* ---------------------------------------------------------------------------------------- */
/* Queries */

unsigned dpk_lcore_main(void)
{
	return published_count() ? lc.main_id : DPK_LCORE_ANY;
}

unsigned dpk_lcore_count(void)
{
	return published_count();
}

bool dpk_lcore_is_enabled(unsigned id)
{
	return lcore_exists(id);
}

int dpk_lcore_index(unsigned id)
{
	if (!lcore_exists(id))
		return -EINVAL;
	return lc.index[id];
}

unsigned dpk_lcore_next(unsigned id, bool skip_main)
{
	unsigned n = published_count();

	for (unsigned i = 0; i < n; i++) {
		unsigned x = lc.spec.ids[i];

		if ((id == DPK_LCORE_ANY || x > id) && !(skip_main && x == lc.main_id))
			return x;
	}
	return DPK_LCORE_ANY;
}

int dpk_lcore_cpus(unsigned id, struct dpk_cpuset *out)
{
	if (!out || !lcore_exists(id))
		return -EINVAL;
	*out = lc.spec.cpus[lc.index[id]];
	return 0;
}

unsigned dpk_lcore_cpu(unsigned id)
{
	if (!lcore_exists(id))
		return DPK_CPU_MAX;
	return dpk_cpuset_first(&lc.spec.cpus[lc.index[id]]);
}

int dpk_lcore_pair(enum dpk_placement p, unsigned *a, unsigned *b)
{
	static const struct dpk_lcore_spec none;

	return dpk_lcore_spec_pair(published_count() ? &lc.spec : &none, NULL, p, a, b);
}

/* ---------------------------------------------------------------------------------------- */
/* Launch and wait */

/* Only the main lcore moves a worker out of WAIT or FINISHED, so its own relaxed read of
 * the state is current for those two; RUNNING may turn into FINISHED at any time. */
static enum dpk_lcore_state main_view(struct worker *w)
{
	return atomic_load_explicit(&w->state, memory_order_relaxed);
}

static void launch(struct worker *w, dpk_lcore_fn fn, void *arg)
{
	w->fn = fn;
	w->arg = arg;
	pthread_mutex_lock(&w->lock);
	/* L1: pairs with W1 in worker_main(). */
	atomic_store_explicit(&w->state, DPK_LCORE_RUNNING, memory_order_release);
	pthread_cond_signal(&w->wake);
	pthread_mutex_unlock(&w->lock);
}

int dpk_lcore_launch(unsigned id, dpk_lcore_fn fn, void *arg)
{
	struct worker *w = worker_of(id);

	if (!w || !fn) {
		dpk__set_error("lcore launch: %s", !fn ? "NULL function" : "not a worker lcore");
		return -EINVAL;
	}
	/* The launch/wait hand-off has one writer, the main lcore; a second launcher could
	 * race it between the state check and the store of fn and arg. */
	if (dpk_lcore_id() != lc.main_id) {
		dpk__set_error("lcore launch on %u: only the main lcore launches", id);
		return -EPERM;
	}
	if (main_view(w) != DPK_LCORE_WAIT) {
		dpk__set_error("lcore %u has not been waited for since its last launch", id);
		return -EBUSY;
	}
	launch(w, fn, arg);
	return 0;
}

int dpk_lcore_wait(unsigned id)
{
	struct worker *w = worker_of(id);
	int s, ret;

	if (!w) {
		dpk__set_error("lcore wait: %u is not a worker lcore", id);
		return -EINVAL;
	}
	if (dpk_lcore_id() != lc.main_id) {
		dpk__set_error("lcore wait on %u: only the main lcore waits", id);
		return -EPERM;
	}
	/* C1: pairs with F1 in worker_main(). */
	s = atomic_load_explicit(&w->state, memory_order_acquire);
	if (s == DPK_LCORE_WAIT)
		return 0;
	if (s == DPK_LCORE_RUNNING) {
		pthread_mutex_lock(&w->lock);
		/* C1: pairs with F1 in worker_main(). */
		while (atomic_load_explicit(&w->state, memory_order_acquire) != DPK_LCORE_FINISHED)
			pthread_cond_wait(&w->done, &w->lock);
		pthread_mutex_unlock(&w->lock);
	}
	ret = w->ret;
	/* The worker is asleep until the next L1, which follows this store. */
	atomic_store_explicit(&w->state, DPK_LCORE_WAIT, memory_order_relaxed);
	return ret;
}

enum dpk_lcore_state dpk_lcore_state(unsigned id)
{
	struct worker *w = worker_of(id);

	if (!w)
		return DPK_LCORE_WAIT;
	/* C1: pairs with F1 in worker_main(). */
	return atomic_load_explicit(&w->state, memory_order_acquire);
}

int dpk_lcore_launch_all(dpk_lcore_fn fn, void *arg, bool call_main)
{
	unsigned id;

	if (!fn || published_count() == 0) {
		dpk__set_error("lcore launch: %s", !fn ? "NULL function" : "no lcores");
		return -EINVAL;
	}
	if (dpk_lcore_id() != lc.main_id) {
		dpk__set_error("lcore launch of all: only the main lcore launches");
		return -EPERM;
	}
	DPK_LCORE_FOREACH_WORKER(id)
	{
		if (main_view(lc.workers[id]) != DPK_LCORE_WAIT) {
			dpk__set_error("lcore %u has not been waited for since its last launch",
			               id);
			return -EBUSY;
		}
	}
	DPK_LCORE_FOREACH_WORKER(id)
	launch(lc.workers[id], fn, arg);
	if (call_main)
		return fn(arg);
	return 0;
}

int dpk_lcore_wait_all(void)
{
	unsigned id;
	int first = 0;

	DPK_LCORE_FOREACH_WORKER(id)
	{
		int ret = dpk_lcore_wait(id);

		if (first == 0)
			first = ret;
	}
	return first;
}
