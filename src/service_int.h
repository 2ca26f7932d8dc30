/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Service cores, shared by the three parts of the implementation: service.c (the hot path:
 * slots, marks, counting, run_iter() and its handlers, the service-lcore loop),
 * service_ctl.c (registration, run states and flags, mapping, service lcores, quiescence)
 * and service_stats.c (statistics reads, dump). Never installed.
 *
 * Who writes what:
 *   struct service    control calls under dpk__service_ctl_lock (the control lock); the hot
 *                     paths only read it (and take the MT-unsafe try-lock)
 *   struct lcore_ctl  control calls under the control lock; the lcore's loop reads mapped
 *                     and run
 *   struct slot       one owner thread: a service lcore's loop (dpk__service_lcore_slots[]),
 *                     or a thread that claimed one of dpk__service_thread_slots[];
 *                     dpk__service_shared_slot is the exception, updated with atomic
 *                     read-modify-writes by every thread left without a slot of its own
 *
 * Quiescence (dpk_service_may_be_active(), unregister) is a store-load pattern on each side:
 *
 *   runner                                  quiescer
 *   A: active |= bit   (own slot)           D: clear run state / map bit   (seq_cst store or RMW)
 *   B: load flags (and map), seq_cst        dpk__service_heavy_barrier()
 *      run the callback if B allows         E: load every slot's active     (seq_cst)
 *   C: active = prev   (release)
 *
 * Either E sees A (and the quiescer waits for C, whose release makes the callback's effects
 * visible to it), or B sees D and the callback is not entered. That needs a full barrier
 * between A and B and between D and E. In BARRIER_MEMBARRIER mode the quiescer's
 * membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED) runs a full barrier on every thread of the
 * process that is running at that moment (a thread that is not running passes one when it
 * is switched in), so A only needs a compiler barrier before B. In BARRIER_SEQ_CST mode A is
 * a seq_cst store: A, B, D and E are then all seq_cst and the single total order forbids
 * both loads missing both stores.
 *
 * Memory orders, one label per pair, with the file of each site. Every acquire, release
 * and seq_cst operation names its label at the site, but for the two clears at the end,
 * which order nothing:
 *   A1  mark_enter() (service.c): the runner's mark (A above); a relaxed store and a
 *       compiler barrier in BARRIER_MEMBARRIER mode, where the quiescer's membarrier is the
 *       barrier in the CPU, a seq_cst store otherwise (A1'). Pairs with E1.
 *   B1  run_iter()'s seq_cst load of the flags (B above; service.c). Pairs with D1 through
 *       the two full barriers; as an acquire it also pairs with P1-P3, so a runner that
 *       sees a flag set sees what was stored before it.
 *   B2  the same in run_iter_shared() (service.c), after A2.
 *   B3  the same in loop_run_one() (service.c), with its seq_cst load of the lcore's map,
 *       which pairs with D2.
 *   C1  unmark() (service.c): the runner's release of its mark (C above; C3 in
 *       loop_run_one()). Pairs with E1: a quiescer that sees the mark gone sees the
 *       callback's effects.
 *   A2  run_iter_shared()'s seq_cst increment of dpk__service_shared_active[] (service.c):
 *       a read-modify-write, ordered before B2 in either barrier mode. Pairs with E2.
 *   C2  run_iter_shared()'s release decrement of dpk__service_shared_active[] (service.c).
 *       Pairs with E2.
 *   D1  the quiescer's seq_cst clear of a service's flags (drain_begin()) or of a run state
 *       (flag_set()) (D above; service_ctl.c). Pairs with B1-B3 through
 *       dpk__service_heavy_barrier() before E.
 *   D2  the seq_cst clear of map bits (service_ctl.c): by a quiescer (drain_begin(),
 *       unmapping in dpk_service_map_lcore_set()), pairing with B3 through
 *       dpk__service_heavy_barrier() before E; and by the lcore calls that clear the map of
 *       an lcore whose loop does not run, where dpk_lcore_launch() orders the store before
 *       the loop's first load.
 *   E1  any_inside()'s seq_cst loads of every slot's mark (service_ctl.c), after
 *       dpk__service_heavy_barrier() (E above). Pairs with A1 and C1/C3.
 *   E2  the same for dpk__service_shared_active[]. Pairs with A2 and C2.
 *   Q1  dpk_service_may_be_active()'s seq_cst loads of the flags and of a running loop's
 *       map, before its E (service_ctl.c): a runnable service mapped to a loop that has not
 *       returned may still be entered. Pairs with D1 and D2.
 *   P1  dpk_service_register()'s seq_cst store of the flags (service_ctl.c): publishes the
 *       fields stored before it (callback, user data, handlers, sample period, the slots'
 *       sampling state). Pairs with B1-B3 and G1.
 *   P2  flag_set() setting a flag (a run state, F_STATS; service_ctl.c): publishes as P1.
 *   P3  dpk_service_stats_sample_set() setting F_SAMPLED after the period (service_ctl.c):
 *       a runner that sees F_SAMPLED (B1-B3) sees the period.
 *   G1  the queries' acquire loads of the flags (dpk_service_probe_capability(),
 *       dpk_service_runstate_get(); service_ctl.c). Pairs with P1 and P2; only the flags'
 *       value is used.
 *   L1  svc_trylock()'s acquire exchange of an MT-unsafe service's lock (service.c). Pairs
 *       with U1.
 *   U1  svc_unlock()'s release store of the lock (service.c). Pairs with L1: the next
 *       holder sees what the last one wrote.
 *   T1  a thread slot given back: the release store of claimed (release_thread_slot(), and
 *       claim_thread_slot() when it cannot keep the slot; service.c). Pairs with T2.
 *   T2  claim_thread_slot()'s acquire CAS of claimed (service.c). Pairs with T1: the new
 *       owner sees the counters the previous one wrote before it adds to them.
 *   W1  dpk__service_lcore_loop()'s release store of loop_active = 0 as the loop returns
 *       (service.c). Pairs with W2.
 *   W2  dpk_service_lcore_may_be_active()'s acquire load of loop_active (service_ctl.c).
 *       Pairs with W1: after false, the loop's effects are visible.
 * Clearing F_STATS or F_SAMPLED is seq_cst like every write of the flags and orders
 * nothing: a runner that misses the clear counts one more call in the mode it saw. Every
 * other atomic is relaxed: counters have one writer each (read-modify-writes in
 * dpk__service_shared_slot) and are read as a snapshot; the sampling marks are the slot
 * owner's own (registration clears them before P1); the handler pointers are separate
 * loads from the flags (dpk__service_set_handlers() says how a call racing a change is
 * counted); a loop's start (run, loop_active) is ordered by dpk_lcore_launch() and its stop
 * request by dpk_lcore_wait(); the barrier mode is set before any service is registered;
 * the registered count is a snapshot.
 */
#ifndef DPK_SERVICE_INT_H
#define DPK_SERVICE_INT_H

#include <pthread.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <dpk/common.h>
#include <dpk/lcore.h>
#include <dpk/service.h>

/* The parts' shared state and helpers, hidden so that the hot path reaches them as it
 * reached statics (PC-relative, with no GOT load or PLT call) and libdpkit.so never
 * exports them. */
#define DPK__HIDDEN __attribute__((visibility("hidden")))

/* Service flags, read by every call with one load. */
#define F_REGISTERED (1u << 0)
#define F_COMP_RUN   (1u << 1)
#define F_APP_RUN    (1u << 2)
#define F_MT_SAFE    (1u << 3)
#define F_STATS      (1u << 4)
#define F_SAMPLED    (1u << 5) /* sample period > 1 */
#define F_RUNNABLE   (F_REGISTERED | F_COMP_RUN | F_APP_RUN)

_Static_assert(DPK_SERVICE_MAX == 64, "one 64-bit word holds a set of services");

/* Statistics sums (and baselines) of one service or one service lcore. */
struct totals {
	uint64_t idle, uidle, timed, untimed, errors, cycles;
};

/*
 * One service's counters in one slot, one cache line. Only the slot's owner writes them
 * (except in dpk__service_shared_slot): a relaxed load and a relaxed store, atomic so that
 * 64-bit values never tear on 32-bit targets and readers may sum them at any time.
 *
 * Every call moves exactly one of idle, timed and untimed, so their sum is the call count
 * and no counter is spent on it; uidle and errors only sort calls already counted there.
 * A sampled call that is not timed moves untimed before its callback runs and nothing else
 * when it returns 0, and untimed doubles as the sampling countdown: the first call made once
 * it has reached next is timed.
 */
struct counters {
	_Atomic uint64_t idle;    /* calls that returned -EAGAIN and were not counted in untimed */
	_Atomic uint64_t uidle;   /* calls counted in untimed that returned -EAGAIN */
	_Atomic uint64_t timed;   /* charged calls that were timed */
	_Atomic uint64_t untimed; /* calls the sampling left untimed, whatever they returned */
	_Atomic uint64_t errors;  /* charged calls that returned an error */
	_Atomic uint64_t cycles;  /* ticks of timed charged calls, each times its weight */
	_Atomic uint64_t next;    /* sampling: time a call once untimed has reached this */
	_Atomic uint64_t last;    /* sampling: untimed - uidle at the last timed charged call */
} __attribute__((aligned(DPK_CACHE_LINE)));

_Static_assert(sizeof(struct counters) == DPK_CACHE_LINE, "one line per service and slot");

/* A thread's marks and counters. */
struct slot {
	_Atomic uint64_t active;  /* bit i: the owner is inside service i's callback */
	_Atomic uint64_t loops;   /* service lcore slots: loops run */
	_Atomic uint32_t claimed; /* thread slots: held by a live thread */
	alignas(DPK_CACHE_LINE) struct counters svc[DPK_SERVICE_MAX];
};

struct service;

/*
 * What run_iter() jumps to once the service may run: the rest of the call (lock, callback,
 * statistics, unlock, unmark) for one statistics mode and locking, chosen when that mode
 * last changed. Returns what dpk_service_run_iter_on_app_lcore() returns.
 */
typedef int (*run_fn)(struct slot *t, struct service *s, uint64_t prev);

enum svc_state {
	SVC_FREE,
	SVC_REGISTERED,
	SVC_DRAINING, /* being unregistered: waiting for callbacks in flight */
};

struct service {
	/* Read by every call. */
	alignas(DPK_CACHE_LINE) _Atomic uint32_t flags;
	_Atomic uint32_t lock;   /* MT-unsafe try-lock, 1 when held */
	_Atomic uint32_t sample; /* cycle sample period, >= 1 */
	uint32_t coff;           /* offset of this service's counters in a struct slot */
	dpk_service_fn callback; /* written before F_REGISTERED is published */
	void *userdata;
	_Atomic(run_fn) run[2]; /* run_iter()'s handler, by serialize_mt_unsafe */
	/* Control state, under the control lock. */
	alignas(DPK_CACHE_LINE) enum svc_state state;
	char name[DPK_SERVICE_NAME_MAX];
	struct totals base;
};

enum lc_role {
	LC_NONE, /* not a service lcore */
	LC_STOPPED,
	LC_RUNNING,
	LC_STOPPING, /* run cleared, loop not yet waited for */
};

struct lcore_ctl {
	/* Read by the lcore's loop. */
	alignas(DPK_CACHE_LINE) _Atomic uint64_t mapped; /* bit i: service i is mapped here */
	_Atomic uint32_t run;                            /* the loop goes on while 1 */
	_Atomic uint32_t loop_active;                    /* 1 from start until the loop returns */
	/* Control state, under the control lock. */
	alignas(DPK_CACHE_LINE) enum lc_role role;
	uint64_t base_loops;
	struct totals base;
};

enum {
	BARRIER_SEQ_CST,
	BARRIER_MEMBARRIER,
};

/* Defined in service.c, where the hot path uses them. */
extern struct service dpk__services[DPK_SERVICE_MAX] DPK__HIDDEN;
extern struct lcore_ctl dpk__service_lcores[DPK_LCORE_MAX] DPK__HIDDEN;
extern struct slot dpk__service_lcore_slots[DPK_LCORE_MAX] DPK__HIDDEN;
extern struct slot dpk__service_thread_slots[DPK_SERVICE_THREAD_SLOTS] DPK__HIDDEN;
extern struct slot dpk__service_shared_slot DPK__HIDDEN;
/* Threads of dpk__service_shared_slot inside each service. */
extern _Atomic uint32_t dpk__service_shared_active[DPK_SERVICE_MAX] DPK__HIDDEN;
/* BARRIER_SEQ_CST until dpk__service_init() finds membarrier. */
extern _Atomic int dpk__service_barrier_mode DPK__HIDDEN;

/* Defined in service_ctl.c. */
extern pthread_mutex_t dpk__service_ctl_lock DPK__HIDDEN;
extern _Atomic unsigned dpk__service_n_registered DPK__HIDDEN;

/* service.c: set-up, once per process, before the first registration or claimed slot. */
DPK__HIDDEN void dpk__service_init(void);
/* service.c: the quiescer's side of the barrier between D and E (see the top). */
DPK__HIDDEN void dpk__service_heavy_barrier(void);
/* service.c: point s->run at the handlers for flags @p f. */
DPK__HIDDEN void dpk__service_set_handlers(struct service *s, uint32_t f);
/* service.c: the loop of a service lcore, for dpk_lcore_launch() with its struct lcore_ctl. */
DPK__HIDDEN int dpk__service_lcore_loop(void *arg);
/* service.c: whether the calling thread is itself inside a service of @p bits. */
DPK__HIDDEN bool dpk__service_self_inside(uint64_t bits);
/* service_stats.c: the sums of service @p id's counters over every slot. */
DPK__HIDDEN void dpk__service_sum(uint32_t id, struct totals *sum);
/* service_stats.c: make the lcore's statistics start from now (control lock held). */
DPK__HIDDEN void dpk__service_lcore_reset_base(unsigned lcore);

/* ---- Control helpers (control lock held) ---- */

static inline struct service *registered(uint32_t id)
{
	if (id >= DPK_SERVICE_MAX || dpk__services[id].state != SVC_REGISTERED)
		return NULL;
	return &dpk__services[id];
}

static inline bool is_service_lcore(unsigned lcore)
{
	return lcore < DPK_LCORE_MAX && dpk__service_lcores[lcore].role != LC_NONE;
}

#endif /* DPK_SERVICE_INT_H */
