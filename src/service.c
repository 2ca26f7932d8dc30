/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Service cores, the hot path: the threads' slots and marks, the counting done on every
 * call, dpk_service_run_iter_on_app_lcore() with run_iter() and its handlers, and the
 * service-lcore loop. What is inlined into the entry point and the loop lives here, in one
 * translation unit. service_int.h has the structures, who writes what, the quiescence
 * protocol and the full memory-order legend; the labels used in this file:
 *   A1  mark_enter(): the runner's mark (A1' in seq_cst mode). Pairs with E1 in
 *       any_inside() (service_ctl.c).
 *   A2  run_iter_shared()'s seq_cst increment of dpk__service_shared_active[]. Pairs with E2.
 *   B1  run_iter()'s seq_cst load of the flags. Pairs with D1 and, as an acquire, P1-P3
 *       (service_ctl.c).
 *   B2  the same in run_iter_shared(), after A2.
 *   B3  the same in loop_run_one(), with the lcore's map. Pairs with D2 (service_ctl.c).
 *   C1  unmark()'s release of the mark; C3 the same in loop_run_one(). Pairs with E1.
 *   C2  run_iter_shared()'s release decrement of dpk__service_shared_active[]. Pairs with E2.
 *   L1  svc_trylock()'s acquire exchange. Pairs with U1.
 *   U1  svc_unlock()'s release store. Pairs with L1.
 *   T1  a thread slot's release store of claimed when given back. Pairs with T2.
 *   T2  claim_thread_slot()'s acquire CAS of claimed. Pairs with T1.
 *   W1  dpk__service_lcore_loop()'s release store of loop_active = 0. Pairs with W2 in
 *       dpk_service_lcore_may_be_active() (service_ctl.c).
 * The runners' other atomics are relaxed, as service_int.h says.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/membarrier.h>
#include <pthread.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <dpk/cycles.h>
#include <dpk/lcore.h>
#include <dpk/service.h>

#include "internal.h"
#include "service_int.h"

#define likely(x)     __builtin_expect(!!(x), 1)
#define unlikely(x)   __builtin_expect(!!(x), 0)
#define always_inline inline __attribute__((always_inline))
#define line_aligned  __attribute__((aligned(DPK_CACHE_LINE)))

struct service dpk__services[DPK_SERVICE_MAX];
struct lcore_ctl dpk__service_lcores[DPK_LCORE_MAX];
struct slot dpk__service_lcore_slots[DPK_LCORE_MAX];
struct slot dpk__service_thread_slots[DPK_SERVICE_THREAD_SLOTS];
struct slot dpk__service_shared_slot;
_Atomic uint32_t dpk__service_shared_active[DPK_SERVICE_MAX];
_Atomic int dpk__service_barrier_mode;

static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static pthread_key_t slot_key;
static bool slot_key_ok;

/* The calling thread's claimed slot, NULL before its first call (or when it has none). */
static _Thread_local struct slot *tls_slot __attribute__((tls_model("initial-exec")));
/* True when the pool was full at the thread's first call: it uses dpk__service_shared_slot. */
static _Thread_local bool tls_shared __attribute__((tls_model("initial-exec")));
/* Services the thread is inside through dpk__service_shared_slot, for the self checks. */
static _Thread_local uint64_t tls_shared_inside __attribute__((tls_model("initial-exec")));
/* The slot of the service-lcore loop running on this thread, if any. */
static _Thread_local struct slot *tls_loop_slot __attribute__((tls_model("initial-exec")));

/* ---- Set-up and barriers ---- */

static void release_thread_slot(void *p)
{
	struct slot *t = p;

	tls_slot = NULL;
	/* T1: pairs with T2 in claim_thread_slot(): the next owner continues from our counts. */
	atomic_store_explicit(&t->claimed, 0, memory_order_release);
}

static long sys_membarrier(int cmd)
{
	return syscall(SYS_membarrier, cmd, 0, 0);
}

static void service_init_once(void)
{
	const char *env = getenv("DPK_SERVICE_MEMBARRIER");
	long cmds;

	slot_key_ok = pthread_key_create(&slot_key, release_thread_slot) == 0;
	if (env && strcmp(env, "0") == 0)
		return;
	cmds = sys_membarrier(MEMBARRIER_CMD_QUERY);
	if (cmds < 0 || !(cmds & MEMBARRIER_CMD_PRIVATE_EXPEDITED))
		return;
	if (sys_membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED) != 0)
		return;
	/* Runs before any service is registered, so no call can have passed B yet. A runner
	 * that still reads BARRIER_SEQ_CST later only makes a stronger mark than needed. */
	atomic_store_explicit(&dpk__service_barrier_mode, BARRIER_MEMBARRIER, memory_order_relaxed);
}

void dpk__service_init(void)
{
	pthread_once(&init_once, service_init_once);
}

/* The quiescer's side of the barrier between D and E (see service_int.h). */
void dpk__service_heavy_barrier(void)
{
	if (atomic_load_explicit(&dpk__service_barrier_mode, memory_order_relaxed) !=
	    BARRIER_MEMBARRIER)
		return; /* D and E are seq_cst, as the runners' A */
	if (sys_membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED) != 0) {
		/* Cannot fail once registered; the runners rely on it, so going on is unsafe. */
		fprintf(stderr, "dpkit: membarrier failed after registration\n");
		abort();
	}
}

/* A: mark the caller inside the services of @p v before it checks whether it may run. */
static inline void mark_enter(struct slot *t, uint64_t v)
{
	if (likely(atomic_load_explicit(&dpk__service_barrier_mode, memory_order_relaxed) ==
	           BARRIER_MEMBARRIER)) {
		atomic_store_explicit(&t->active, v, memory_order_relaxed);
		/* A1: with dpk__service_heavy_barrier() in the quiescer, pairs with E1 in
		 * any_inside(). The compiler barrier keeps B after A; membarrier orders them in the
		 * CPU. */
		atomic_signal_fence(memory_order_seq_cst);
	} else {
		/* A1': pairs with E1 in any_inside() through the seq_cst total order. */
		atomic_store_explicit(&t->active, v, memory_order_seq_cst);
	}
}

/* ---- Statistics on the hot path ---- */

/* Add @p v to a counter only this thread writes: no read-modify-write. */
static inline void own_add(_Atomic uint64_t *c, uint64_t v)
{
	atomic_store_explicit(c, atomic_load_explicit(c, memory_order_relaxed) + v,
	                      memory_order_relaxed);
}

static inline void counter_add(_Atomic uint64_t *c, uint64_t v, bool shared)
{
	if (shared)
		atomic_fetch_add_explicit(c, v, memory_order_relaxed);
	else
		own_add(c, v);
}

/*
 * Calls with statistics. Every call timed (sample period 1): a charged call updates timed
 * and cycles, an idle one idle. The TSC reads are microcoded on some CPUs, and the
 * instructions around them are not free to overlap with them, so that path does nothing
 * else.
 *
 * Sampling with period n: a slot times one call, then lets n - 1 charged calls pass untimed
 * before it times the next one (idle calls in between do not count, so a service that is
 * idle for a long time is not timed over and over). An untimed call costs two loads, a
 * compare and a store before the callback and a test of its return value after it, inline
 * in its handler. A timed charged call stands for itself and the untimed charged calls the
 * slot made since its previous timed charged call (its weight), so a timed call that turns
 * out idle passes its window on instead of losing it, and a change of n needs no
 * bookkeeping.
 *
 * An untimed call is counted before its callback runs, with the value it compared and so
 * with one load of untimed per call. Counting it afterwards took a second load after the
 * callback, which the store of the previous call had to forward to (docs/measured-2026-11-30.md,
 * "How the call path was shaped"). A call nested in the
 * callback (a callback that runs a service on its own thread) then finds this one counted
 * and counts itself on top. Every other counter update is a load and a store made after the
 * callback returned, so nested calls are counted exactly.
 */
static always_inline void call_timed(struct service *s, struct counters *c, bool shared)
{
	uint64_t t0 = dpk_tsc();
	int rc = s->callback(s->userdata);

	if (likely(rc != -EAGAIN)) {
		counter_add(&c->cycles, dpk_tsc() - t0, shared);
		counter_add(&c->timed, 1, shared);
		if (unlikely(rc != 0))
			counter_add(&c->errors, 1, shared);
	} else {
		/* Idle: counted, not charged. */
		counter_add(&c->idle, 1, shared);
	}
}

static __attribute__((noinline)) void call_stats(struct service *s, struct counters *c)
{
	call_timed(s, c, false);
}

/* Threads of dpk__service_shared_slot time every call: a shared countdown would need one more RMW.
 */
static __attribute__((noinline)) void call_stats_shared(struct service *s, struct counters *c)
{
	call_timed(s, c, true);
}

/* A sampled call picked for timing. The next mark is set after the callback, so calls nested
 * in it are timed too; their weights are taken out of the untimed calls before this one's. */
static __attribute__((noinline)) void call_sampled_timed(struct counters *c, struct service *s)
{
	uint64_t n = atomic_load_explicit(&s->sample, memory_order_relaxed);
	uint64_t t0 = dpk_tsc(), ticks = 0, untimed, pos, last, weight;
	int rc = s->callback(s->userdata);

	if (rc != -EAGAIN)
		ticks = dpk_tsc() - t0;
	untimed = atomic_load_explicit(&c->untimed, memory_order_relaxed);
	atomic_store_explicit(&c->next, untimed + n - 1, memory_order_relaxed);
	if (rc == -EAGAIN) {
		own_add(&c->idle, 1);
		return;
	}
	/* The untimed charged calls so far; an outer call still running counts among them, and
	 * if it then returns -EAGAIN the position moves back, so a weight never goes below 1. */
	pos = untimed - atomic_load_explicit(&c->uidle, memory_order_relaxed);
	last = atomic_load_explicit(&c->last, memory_order_relaxed);
	weight = pos > last ? pos - last + 1 : 1;
	atomic_store_explicit(&c->last, pos, memory_order_relaxed);
	own_add(&c->cycles, ticks * weight);
	own_add(&c->timed, 1);
	if (rc != 0)
		own_add(&c->errors, 1);
}

/* The counters of service @p s in slot @p t. */
static inline struct counters *slot_counters(struct slot *t, struct service *s)
{
	return (struct counters *)((char *)t + s->coff);
}

/*
 * A sampled call that was not timed (and is counted in untimed) and did not return 0. An
 * idle one moves next on too, so that it does not count towards the n - 1 untimed calls.
 */
static __attribute__((noinline)) void count_untimed_rare(struct counters *c, int rc)
{
	if (rc == -EAGAIN) {
		own_add(&c->uidle, 1);
		own_add(&c->next, 1);
	} else {
		own_add(&c->errors, 1);
	}
}

/*
 * A sampled call of service @p s on slot @p t; the untimed case stays inline. A caller that
 * holds the try-lock passes its address in @p lock: it keeps that across the callback
 * anyway, so a call that did not return 0 finds the counters' address again from it instead
 * of keeping it in one more register.
 */
static always_inline void call_sampled(struct slot *t, struct service *s, _Atomic uint32_t *lock)
{
	struct counters *c = slot_counters(t, s);
	uint64_t untimed = atomic_load_explicit(&c->untimed, memory_order_relaxed);
	int rc;

	if (unlikely(untimed >= atomic_load_explicit(&c->next, memory_order_relaxed))) {
		call_sampled_timed(c, s);
		return;
	}
	atomic_store_explicit(&c->untimed, untimed + 1, memory_order_relaxed);
	rc = s->callback(s->userdata);
	if (unlikely(rc != 0)) {
		if (lock)
			c = slot_counters(t, (struct service *)((char *)lock -
			                                        offsetof(struct service, lock)));
		count_untimed_rare(c, rc);
	}
}

/* Call service @p s (flags @p f already read) for slot @p t and count the call there. */
static always_inline void call_service(struct slot *t, struct service *s, uint32_t f,
                                       _Atomic uint32_t *lock)
{
	if (likely(!(f & F_STATS)))
		s->callback(s->userdata);
	else if (f & F_SAMPLED)
		call_sampled(t, s, lock);
	else
		call_stats(s, slot_counters(t, s));
}

static inline bool svc_trylock(_Atomic uint32_t *lock)
{
	/* A taken lock costs a load, not a write that pulls the line away from its holder. */
	if (atomic_load_explicit(lock, memory_order_relaxed))
		return false;
	/* L1: pairs with U1 in svc_unlock(): we see what the previous runner wrote. */
	return atomic_exchange_explicit(lock, 1, memory_order_acquire) == 0;
}

static inline void svc_unlock(_Atomic uint32_t *lock)
{
	/* U1: pairs with L1 in svc_trylock(). */
	atomic_store_explicit(lock, 0, memory_order_release);
}

/* ---- Running on any thread ---- */

/* C1: pairs with E1 in any_inside(): a quiescer that sees us gone sees our effects. */
static always_inline void unmark(struct slot *t, uint64_t prev)
{
	atomic_store_explicit(&t->active, prev, memory_order_release);
}

enum run_mode {
	RUN_OFF,     /* stats off */
	RUN_EVERY,   /* stats on, every call timed */
	RUN_SAMPLED, /* stats on, sample period > 1 */
};

/*
 * The handlers of run_iter(), one per statistics mode and locking; run_iter() ends in a jump
 * to one of them, so that each is straight-line code with its own epilogue. Testing the
 * statistics flags inline instead cost an untimed sampled call two taken branches (into an
 * out-of-line block and back to the shared epilogue), which can cost more than the counting
 * itself. A call without statistics jumps to its handler directly, after one more test of
 * the flags; a call with statistics through a pointer picked when the mode changed
 * (s->run). Calls without statistics do not take the pointer: an indirect jump that sees
 * several targets, as on a thread that runs both MT-safe and MT-unsafe services, costs them
 * more than the test it saves. Each handler starts on a cache line, like the entry point, so
 * that where its few fetch blocks fall does not depend on the code the linker put before it
 * (docs/measured-2026-11-30.md, "How the call path was shaped").
 */
static always_inline int run_handler(struct slot *t, struct service *s, uint64_t prev,
                                     enum run_mode mode, bool locked)
{
	if (locked && !svc_trylock(&s->lock)) {
		unmark(t, prev);
		return -EBUSY;
	}
	if (mode == RUN_OFF) {
		s->callback(s->userdata);
		/* Keep s live across the call: with three callee-saved registers to save, the
		 * handler needs no stack adjustment to align the call (an explicit sub and add
		 * of the stack pointer), a measurable cost on a call this short. */
		__asm__("" : : "r"(s));
	} else if (mode == RUN_SAMPLED)
		call_sampled(t, s, locked ? &s->lock : NULL);
	else
		call_stats(s, slot_counters(t, s));
	if (locked)
		svc_unlock(&s->lock);
	unmark(t, prev);
	return 0;
}

static __attribute__((noinline)) line_aligned int run_off(struct slot *t, struct service *s,
                                                          uint64_t prev)
{
	return run_handler(t, s, prev, RUN_OFF, false);
}

static __attribute__((noinline)) line_aligned int run_off_locked(struct slot *t, struct service *s,
                                                                 uint64_t prev)
{
	return run_handler(t, s, prev, RUN_OFF, true);
}

static line_aligned int run_every(struct slot *t, struct service *s, uint64_t prev)
{
	return run_handler(t, s, prev, RUN_EVERY, false);
}

static line_aligned int run_every_locked(struct slot *t, struct service *s, uint64_t prev)
{
	return run_handler(t, s, prev, RUN_EVERY, true);
}

static line_aligned int run_sampled(struct slot *t, struct service *s, uint64_t prev)
{
	return run_handler(t, s, prev, RUN_SAMPLED, false);
}

static line_aligned int run_sampled_locked(struct slot *t, struct service *s, uint64_t prev)
{
	return run_handler(t, s, prev, RUN_SAMPLED, true);
}

/*
 * Point s->run at the handlers for flags @p f: the control lock held and @p f the flags just
 * stored, or before the service is published. run_iter() takes the pointer for calls with
 * statistics only. A runner may load the flags of one mode and the handler of the next (the
 * two are separate loads): the call is then counted as the handler says, which is one of the
 * two ways a call racing a change may be counted.
 */
void dpk__service_set_handlers(struct service *s, uint32_t f)
{
	static const run_fn free_[] = {run_off, run_every, run_sampled};
	static const run_fn locked[] = {run_off_locked, run_every_locked, run_sampled_locked};
	enum run_mode mode = !(f & F_STATS) ? RUN_OFF : (f & F_SAMPLED) ? RUN_SAMPLED : RUN_EVERY;

	atomic_store_explicit(&s->run[0], free_[mode], memory_order_relaxed);
	atomic_store_explicit(&s->run[1], (f & F_MT_SAFE) ? free_[mode] : locked[mode],
	                      memory_order_relaxed);
}

static always_inline int run_iter(struct slot *t, uint32_t id, bool serialize)
{
	struct service *s = &dpk__services[id];
	uint64_t prev = atomic_load_explicit(&t->active, memory_order_relaxed);
	uint32_t f;

	mark_enter(t, prev | (UINT64_C(1) << id));
	/* B1: pairs with D1 (run states, unregister) through A1/E1; its acquire side also
	 * pairs with P1-P3: callback, userdata and the handlers are set. */
	f = atomic_load_explicit(&s->flags, memory_order_seq_cst);
	if (unlikely((f & F_RUNNABLE) != F_RUNNABLE)) {
		unmark(t, prev);
		return (f & F_REGISTERED) ? -ENOEXEC : -EINVAL;
	}
	if (likely(!(f & F_STATS))) {
		/* Bit arithmetic rather than &&, for one branch that MT-safe services skip. */
		if (unlikely(serialize & ~(f >> __builtin_ctz(F_MT_SAFE)) & 1))
			return run_off_locked(t, s, prev);
		return run_off(t, s, prev);
	}
	return atomic_load_explicit(&s->run[serialize], memory_order_relaxed)(t, s, prev);
}

/* Call service @p s for a thread of dpk__service_shared_slot: every call with stats is timed. */
static inline void call_shared(struct service *s, uint32_t f, struct counters *c)
{
	if (!(f & F_STATS))
		s->callback(s->userdata);
	else
		call_stats_shared(s, c);
}

/* Threads without a slot of their own: shared counters, updated with read-modify-writes. */
static int run_iter_shared(uint32_t id, bool serialize)
{
	struct service *s = &dpk__services[id];
	uint64_t bit = UINT64_C(1) << id, prev = tls_shared_inside;
	uint32_t f;
	int rc = 0;

	tls_shared_inside = prev | bit;
	/* A2: a seq_cst read-modify-write orders itself before B2 in either barrier mode;
	 * pairs with E2 in any_inside(). */
	atomic_fetch_add_explicit(&dpk__service_shared_active[id], 1, memory_order_seq_cst);
	/* B2: as B1. */
	f = atomic_load_explicit(&s->flags, memory_order_seq_cst);
	if ((f & F_RUNNABLE) != F_RUNNABLE)
		rc = (f & F_REGISTERED) ? -ENOEXEC : -EINVAL;
	else if ((f & F_MT_SAFE) || !serialize)
		call_shared(s, f, &dpk__service_shared_slot.svc[id]);
	else if (svc_trylock(&s->lock)) {
		call_shared(s, f, &dpk__service_shared_slot.svc[id]);
		svc_unlock(&s->lock);
	} else
		rc = -EBUSY;
	/* C2: pairs with E2 in any_inside(). */
	atomic_fetch_sub_explicit(&dpk__service_shared_active[id], 1, memory_order_release);
	tls_shared_inside = prev;
	return rc;
}

/* First call of a thread: take a free slot of the pool, or fall back to dpk__service_shared_slot.
 */
static struct slot *claim_thread_slot(void)
{
	dpk__service_init();
	for (unsigned i = 0; slot_key_ok && i < DPK_SERVICE_THREAD_SLOTS; i++) {
		struct slot *t = &dpk__service_thread_slots[i];
		uint32_t free_ = 0;

		if (atomic_load_explicit(&t->claimed, memory_order_relaxed))
			continue;
		/* T2: pairs with T1 in release_thread_slot(): the counters the previous owner
		 * wrote are visible before we add to them. */
		if (!atomic_compare_exchange_strong_explicit(
		            &t->claimed, &free_, 1, memory_order_acquire, memory_order_relaxed))
			continue;
		if (pthread_setspecific(slot_key, t) != 0) {
			/* Without the destructor the slot would never come back. T1, as in
			 * release_thread_slot(): pairs with the next claimer's T2. */
			atomic_store_explicit(&t->claimed, 0, memory_order_release);
			break;
		}
		tls_slot = t;
		return t;
	}
	tls_shared = true;
	return NULL;
}

static int __attribute__((noinline)) run_iter_slow(uint32_t id, bool serialize)
{
	struct slot *t;

	if (tls_shared || (t = claim_thread_slot()) == NULL)
		return run_iter_shared(id, serialize);
	return run_iter(t, id, serialize);
}

/*
 * The hot entry point starts on a cache line: its paths are a few dozen bytes apart, and
 * where the line and fetch-block boundaries fall among them otherwise depends on whatever
 * code the linker put before it, which then moves the cost of a sampled call from build to
 * build.
 */
__attribute__((aligned(DPK_CACHE_LINE))) int
dpk_service_run_iter_on_app_lcore(uint32_t id, bool serialize_mt_unsafe)
{
	struct slot *t = tls_slot;

	if (unlikely(id >= DPK_SERVICE_MAX))
		return -EINVAL;
	if (unlikely(t == NULL))
		return run_iter_slow(id, serialize_mt_unsafe);
	return run_iter(t, id, serialize_mt_unsafe);
}

/* ---- Service lcore loop ---- */

static inline void loop_run_one(struct lcore_ctl *lc, struct slot *t, uint32_t id)
{
	struct service *s = &dpk__services[id];
	uint64_t bit = UINT64_C(1) << id;
	uint32_t f;
	uint64_t mapped;

	mark_enter(t, bit);
	/* B3: as B1, and for the map: pairs with D2 (unmap) through A1/E1. */
	f = atomic_load_explicit(&s->flags, memory_order_seq_cst);
	mapped = atomic_load_explicit(&lc->mapped, memory_order_seq_cst);
	if ((f & F_RUNNABLE) == F_RUNNABLE && (mapped & bit)) {
		/* MT-unsafe services always take the lock here, whoever else may run them. */
		if (f & F_MT_SAFE)
			call_service(t, s, f, NULL);
		else if (svc_trylock(&s->lock)) {
			call_service(t, s, f, &s->lock);
			svc_unlock(&s->lock);
		}
	}
	/* C3: as C1. */
	atomic_store_explicit(&t->active, 0, memory_order_release);
}

int dpk__service_lcore_loop(void *arg)
{
	struct lcore_ctl *lc = arg;
	struct slot *t = &dpk__service_lcore_slots[lc - dpk__service_lcores];

	tls_loop_slot = t;
	/* The stop request needs no ordering: dpk_lcore_wait() orders everything after. */
	while (atomic_load_explicit(&lc->run, memory_order_relaxed)) {
		uint64_t todo = atomic_load_explicit(&lc->mapped, memory_order_relaxed);

		if (!todo)
			dpk_pause();
		while (todo) {
			uint32_t id = (uint32_t)__builtin_ctzll(todo);

			todo &= todo - 1;
			loop_run_one(lc, t, id);
		}
		own_add(&t->loops, 1);
	}
	tls_loop_slot = NULL;
	/* W1: pairs with W2 in dpk_service_lcore_may_be_active(). */
	atomic_store_explicit(&lc->loop_active, 0, memory_order_release);
	return 0;
}

/* ---- Self checks, for the control calls ---- */

/* Whether the calling thread is itself inside a service of @p bits. */
bool dpk__service_self_inside(uint64_t bits)
{
	if (tls_slot && (atomic_load_explicit(&tls_slot->active, memory_order_relaxed) & bits))
		return true;
	if (tls_loop_slot &&
	    (atomic_load_explicit(&tls_loop_slot->active, memory_order_relaxed) & bits))
		return true;
	return (tls_shared_inside & bits) != 0;
}
