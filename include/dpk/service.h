/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dpk/service.h - service cores: functions ("services") that lcores call over and over.
 *
 * A service is a callback with user data, a name and a capability: MT-safe services may
 * run on several threads at once, MT-unsafe ones never do. The callback returns 0 when it
 * did work, -EAGAIN when it found nothing to do (an idle call) and any other value
 * (normally a negative errno) on error. A service runs only while both of its run states are on:
 * the component state (set by the code that registered it) and the application state.
 *
 * Services run in two ways:
 *   - on service lcores: worker lcores of dpk_lcore_init() handed to this runtime with
 *     dpk_service_lcore_add(). A started service lcore loops over the services mapped to it
 *     (dpk_service_map_lcore_set()) until it is stopped. The main lcore is never one.
 *   - one iteration at a time on any thread, lcore or not, with
 *     dpk_service_run_iter_on_app_lcore().
 *
 * An MT-unsafe service is serialised by a per-service try-lock: a service lcore that finds
 * it taken skips the service for that loop, and dpk_service_run_iter_on_app_lcore() with
 * serialize_mt_unsafe returns -EBUSY.
 *
 * Statistics (off by default, enabled per service with dpk_service_stats_enable()):
 *
 *   figure (per service)      sample period N = 1 (default)   N > 1
 *   calls                     exact                           exact
 *   idle_calls (-EAGAIN)      exact                           exact
 *   error_calls (other)       exact                           exact
 *   timed_calls               = charged calls                 charged calls that were timed,
 *                                                             about one in N
 *   cycles                    exact: TSC ticks summed over    estimate: each timed call's
 *                             every charged call              ticks times its weight
 *   cycles_estimated          false                           true once a call was left
 *                                                             untimed
 *
 * "Charged" calls are those that returned 0 or an error; idle calls are counted but never
 * charged cycles. With N > 1 each thread times one call, then lets N - 1 charged calls pass
 * untimed before it times another (idle calls in between do not count towards the N - 1).
 * The weight of a timed charged call is the number of charged calls it stands for: itself
 * and the untimed charged calls its thread made since its previous timed charged call (N
 * when nothing else happened in between; more when a call picked for timing returned
 * -EAGAIN). The cycles figure stays exact (cycles_estimated false) as long as no call since
 * the last reset was left untimed; going back to N = 1 leaves it estimated until the next
 * reset. A call left untimed is counted in calls when it starts (so that a call nested in
 * its callback finds it counted) and in idle_calls or error_calls when it returns. Per
 * service lcore the runtime also counts loops and the calls and cycles of the services its
 * loop ran, with the same rules.
 *
 * What statistics cost a call: with N = 1, two TSC reads around every charged call. With
 * N > 1, an untimed call adds a compare and a store before its callback, a test of the
 * result after it and one jump, and one call in N adds two TSC reads and the bookkeeping of
 * a timed call; the overhead per call is about (untimed cost) + (TSC pair + bookkeeping) / N.
 * The TSC pair, not the counting, sets how small N may be: where a pair of TSC reads costs a
 * few times a call that does nothing, every call timed costs several times such a call, and
 * N must be large before the pair averages out under a quarter of it. A callback
 * that does real work hides the difference. Sampling is not the default, since it turns
 * cycles into an estimate. Measured costs per N: docs/measured-2026-11-30.md, "What
 * statistics cost a call".
 *
 * Every call made while stats are on is counted exactly once, whichever thread made it:
 * each service lcore and each thread that calls dpk_service_run_iter_on_app_lcore() has
 * its own counters (single writer, no atomic read-modify-write), summed when read. Threads
 * that are not service-lcore loops take one of DPK_SERVICE_THREAD_SLOTS counter slots on
 * their first call and give it back when they exit (its counts stay in the totals). While
 * all slots are held, further threads share one extra slot (for as long as they live)
 * updated with atomic read-modify-writes: still exact, slower, and always timed as if N were
 * 1. A read made
 * while calls are running sums values each counter held at some moment of the read;
 * reads made after the callers stopped are exact. Resets never write a counter: they
 * record its value as a baseline that later reads subtract.
 *
 * Concurrency:
 *
 *   call                                  threads       may run at the same time as
 *   dpk_service_run_iter_on_app_lcore     any, many     everything below
 *   a started service lcore's loop        its lcore     everything below
 *   dpk_service_may_be_active,            any, many     everything
 *     _lcore_may_be_active, _runstate_get,
 *     _probe_capability, _count
 *   register, unregister, run states,     any, many     everything; serialised with each
 *     map, lcore add/remove, queries,                   other by an internal lock
 *     stats and attr calls, dump
 *   dpk_service_lcore_start, _stop,       main lcore    everything but each other and
 *     _stop_force, _lcore_reset_all,                    dpk_lcore_init/fini
 *     dpk_service_reset_all
 *
 * From inside a callback every call is allowed except: unregistering a service the
 * calling thread is inside (-EBUSY), and the main-lcore calls of the last row. Control
 * calls never wait for a callback while holding the internal lock, so a callback may use
 * them without deadlock, with one trap: dpk_service_unregister() waits until no thread is
 * inside the service it removes, so two callbacks that unregister each other's services
 * at the same time wait for each other forever. Unregister from outside callbacks, or
 * make sure the services unregistered from callbacks never do so in a cycle.
 *
 * Quiescing: dpk_service_may_be_active() returns false only when no thread is inside the
 * service's callback and no started service lcore can enter it. The usual way to free a
 * service's state: turn a run state off (or unmap it from every lcore), stop calling
 * dpk_service_run_iter_on_app_lcore() for it, poll dpk_service_may_be_active() until it
 * returns false, then free. dpk_service_unregister() does the waiting itself.
 *
 * Memory ordering: entering a callback is a store of the thread's "inside" mark followed
 * by a load of the service's run state; turning a service off is a store of the run state
 * (or of the lcore's map) followed, in dpk_service_may_be_active(), by loads of every
 * thread's mark. That store-load pattern needs a full barrier on both sides. Where Linux
 * membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED) is available the slow side issues it and the
 * hot path needs only a compiler barrier; elsewhere (or with the environment variable
 * DPK_SERVICE_MEMBARRIER=0 at the first call of this runtime) the mark is a seq_cst store.
 * dpk_service_dump() says which is in use.
 */
#ifndef DPK_SERVICE_H
#define DPK_SERVICE_H

#include <stdint.h>
#include <stdio.h>

#include <dpk/common.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Number of service ids: ids are 0 .. DPK_SERVICE_MAX-1. */
#define DPK_SERVICE_MAX 64

/** Size of a name buffer: names are 1 .. DPK_SERVICE_NAME_MAX-1 bytes long. */
#define DPK_SERVICE_NAME_MAX 32

/** Counter slots for threads that call dpk_service_run_iter_on_app_lcore(). */
#define DPK_SERVICE_THREAD_SLOTS 64

/** dpk_service_dump() id meaning every service. */
#define DPK_SERVICE_ALL UINT32_MAX

/** Capability: the callback may run on several threads at the same time. */
#define DPK_SERVICE_CAP_MT_SAFE (1u << 0)

/**
 * A cycle sample period for dpk_service_stats_sample_set() that keeps statistics under a
 * quarter of the cost of a call without them, even for a callback that does nothing, where
 * a TSC pair costs a few such calls (see "What statistics cost a call" above; the
 * measurements are in docs/measured-2026-11-30.md).
 */
#define DPK_SERVICE_STATS_SAMPLE_CHEAP 128

/**
 * A service callback. Returns 0 when it did work, -EAGAIN when it had nothing to do (an
 * idle call: counted, not charged cycles) and any other value (normally a negative errno)
 * on error (an error call: counted and charged).
 */
typedef int (*dpk_service_fn)(void *userdata);

/** What dpk_service_register() needs to know about a service. */
struct dpk_service_spec {
	const char *name;        /**< unique, 1 .. DPK_SERVICE_NAME_MAX-1 bytes; copied */
	dpk_service_fn callback; /**< called with @ref userdata; not NULL */
	void *userdata;          /**< passed to @ref callback */
	uint32_t capabilities;   /**< 0 or DPK_SERVICE_CAP_MT_SAFE */
};

/** Per-service statistics; see the table at the top of this header. */
struct dpk_service_stats {
	uint64_t calls;        /**< calls made while stats were on (exact) */
	uint64_t idle_calls;   /**< of which returned -EAGAIN (exact) */
	uint64_t error_calls;  /**< of which returned neither 0 nor -EAGAIN (exact) */
	uint64_t cycles;       /**< TSC ticks in charged calls: exact or estimated */
	uint64_t timed_calls;  /**< charged calls whose ticks were read */
	bool cycles_estimated; /**< true when @ref cycles is an estimate */
};

/** Per-service attributes for dpk_service_attr_get(). */
enum dpk_service_attr {
	DPK_SERVICE_ATTR_CALLS,            /**< struct dpk_service_stats.calls */
	DPK_SERVICE_ATTR_IDLE_CALLS,       /**< .idle_calls */
	DPK_SERVICE_ATTR_ERROR_CALLS,      /**< .error_calls */
	DPK_SERVICE_ATTR_CYCLES,           /**< .cycles */
	DPK_SERVICE_ATTR_TIMED_CALLS,      /**< .timed_calls */
	DPK_SERVICE_ATTR_CYCLES_ESTIMATED, /**< 1 when .cycles is an estimate, else 0 */
};

/** Per-service-lcore attributes for dpk_service_lcore_attr_get(). */
enum dpk_service_lcore_attr {
	DPK_SERVICE_LCORE_ATTR_LOOPS,            /**< loops over the mapped services (exact) */
	DPK_SERVICE_LCORE_ATTR_CALLS,            /**< calls the loop made, stats on (exact) */
	DPK_SERVICE_LCORE_ATTR_CYCLES,           /**< ticks in those calls that were charged */
	DPK_SERVICE_LCORE_ATTR_CYCLES_ESTIMATED, /**< 1 when CYCLES is an estimate, else 0 */
};

/* Registration and lookup. */

/**
 * Register a service in the lowest free id, with both run states off and stats off (sample
 * period 1). Its statistics start at zero.
 * @retval 0       success, *@p id is set
 * @retval -EINVAL @p spec or @p id NULL, name NULL, empty or DPK_SERVICE_NAME_MAX bytes or
 *                 longer, callback NULL, or an unknown capability bit
 * @retval -EEXIST a registered service has that name
 * @retval -ENOSPC DPK_SERVICE_MAX services are registered
 */
int dpk_service_register(const struct dpk_service_spec *spec, uint32_t *id);

/**
 * Unregister service @p id: turn its run states off, unmap it from every lcore, wait until
 * no thread is inside its callback, and free the id. After it returns nothing runs the
 * callback any more, so its state may be freed. A later registration may reuse the id, and
 * a caller still holding the old id then runs the new service.
 * @retval 0       success
 * @retval -EINVAL @p id is not a registered service
 * @retval -EBUSY  the calling thread is inside this service's callback; nothing changed
 */
int dpk_service_unregister(uint32_t id);

/** Number of registered services. */
unsigned dpk_service_count(void);

/**
 * Find a service by name.
 * @retval 0       found, *@p id is set
 * @retval -EINVAL @p name or @p id NULL
 * @retval -ENOENT no registered service has that name
 */
int dpk_service_get_by_name(const char *name, uint32_t *id);

/**
 * The name of service @p id, or NULL if it is not registered. The string stays valid until
 * the service is unregistered.
 */
const char *dpk_service_name(uint32_t id);

/** True when service @p id is registered and has every capability bit of @p cap. */
bool dpk_service_probe_capability(uint32_t id, uint32_t cap);

/* Run states. */

/**
 * Set the component run state of service @p id (the registering code's switch).
 * @retval 0       success
 * @retval -EINVAL @p id is not a registered service
 */
int dpk_service_component_runstate_set(uint32_t id, bool run);

/**
 * Set the application run state of service @p id (the application's switch).
 * @retval 0       success
 * @retval -EINVAL @p id is not a registered service
 */
int dpk_service_runstate_set(uint32_t id, bool run);

/**
 * Whether service @p id may run: both run states are on. Unlike DPDK, a mapped lcore is not
 * required, since dpk_service_run_iter_on_app_lcore() runs services without one.
 * @retval 1       both run states are on
 * @retval 0       at least one is off
 * @retval -EINVAL @p id is not a registered service
 */
int dpk_service_runstate_get(uint32_t id);

/* Running. */

/**
 * Run one iteration of service @p id on the calling thread, which may be any thread. The
 * callback's own return value only feeds the statistics.
 *
 * @p serialize_mt_unsafe: true takes the MT-unsafe service's try-lock, so the call returns
 * -EBUSY rather than run the service while another thread does. false skips the lock (and
 * its atomic operation): the caller promises that no other thread, service lcore or not,
 * runs the service meanwhile. It has no effect on MT-safe services.
 * @retval 0       the callback was called
 * @retval -EINVAL @p id is not a registered service
 * @retval -ENOEXEC a run state is off; the callback was not called
 * @retval -EBUSY  MT-unsafe, @p serialize_mt_unsafe set, and another thread is running it
 */
int dpk_service_run_iter_on_app_lcore(uint32_t id, bool serialize_mt_unsafe);

/**
 * Whether a thread may be inside the callback of service @p id, or a started service
 * lcore may enter it (both run states on and mapped to a started service lcore). False
 * means: at the time of the call no thread was inside the callback and none of its
 * effects is still pending for the caller to see; nothing will enter it again unless the
 * service is turned back on, mapped, or called through dpk_service_run_iter_on_app_lcore().
 * Costs a process-wide barrier (membarrier) or a scan with seq_cst loads; not for hot
 * paths. False for ids that are not registered.
 */
bool dpk_service_may_be_active(uint32_t id);

/* Service lcores. */

/**
 * Make worker lcore @p lcore a service lcore (stopped, nothing mapped). Its loop and cycle
 * statistics start at zero.
 * @retval 0         success
 * @retval -EINVAL   @p lcore is not an lcore, or is the main lcore
 * @retval -EALREADY it is already a service lcore
 */
int dpk_service_lcore_add(unsigned lcore);

/**
 * Give service lcore @p lcore back (its services are unmapped from it).
 * @retval 0       success
 * @retval -EINVAL @p lcore is not a service lcore
 * @retval -EBUSY  it is started; stop it first
 */
int dpk_service_lcore_remove(unsigned lcore);

/**
 * Start service lcore @p lcore: launch its loop with dpk_lcore_launch(). The loop runs each
 * mapped service once per loop, in id order, until the lcore is stopped; with nothing
 * mapped it spins with a pause hint. Main lcore only.
 * @retval 0         started
 * @retval -EINVAL   @p lcore is not a service lcore
 * @retval -EALREADY it is already started
 * @retval -EBUSY    the lcore is running (or has not been waited for after) another
 *                   function launched with dpk_lcore_launch()
 * @retval -EPERM    the caller is not the main lcore; nothing changed
 */
int dpk_service_lcore_start(unsigned lcore);

/**
 * Stop service lcore @p lcore and wait (dpk_lcore_wait()) until its loop has returned; no
 * callback runs on it after that. Refused when the lcore is the only started service lcore
 * mapped to a service whose run states are both on, since that service would stop running;
 * see dpk_service_lcore_stop_force(). Main lcore only; not from a callback.
 * @retval 0         stopped
 * @retval -EINVAL   @p lcore is not a service lcore
 * @retval -EALREADY it is not started
 * @retval -EBUSY    it is the only started lcore running a service that is still on;
 *                   nothing changed
 * @retval -EPERM    the caller is not the main lcore (a callback on a service lcore
 *                   included); nothing changed
 */
int dpk_service_lcore_stop(unsigned lcore);

/**
 * As dpk_service_lcore_stop() without the -EBUSY check.
 * @retval 0         stopped
 * @retval -EINVAL   @p lcore is not a service lcore
 * @retval -EALREADY it is not started
 * @retval -EPERM    the caller is not the main lcore; nothing changed
 */
int dpk_service_lcore_stop_force(unsigned lcore);

/**
 * Stop every service lcore (forced), unmap everything and remove them all. Main lcore only;
 * not from a callback. Call it before dpk_lcore_fini().
 * @retval 0      success
 * @retval -EPERM the caller is not the main lcore; nothing changed
 */
int dpk_service_lcore_reset_all(void);

/** Number of service lcores. */
unsigned dpk_service_lcore_count(void);

/**
 * Write the ids of the service lcores, ascending, to @p lcores.
 * @retval >=0     the number written
 * @retval -EINVAL @p lcores NULL while @p n > 0
 * @retval -ENOMEM @p n is smaller than dpk_service_lcore_count(); nothing written
 */
int dpk_service_lcore_list(unsigned *lcores, unsigned n);

/**
 * Number of services mapped to service lcore @p lcore.
 * @retval >=0     the count
 * @retval -EINVAL @p lcore is not a service lcore
 */
int dpk_service_lcore_count_services(unsigned lcore);

/**
 * Write the ids of the services mapped to service lcore @p lcore, ascending, to @p ids.
 * @retval >=0     the number written
 * @retval -EINVAL @p lcore is not a service lcore, or @p ids NULL while @p n > 0
 * @retval -ENOMEM @p n is smaller than the count; nothing written
 */
int dpk_service_lcore_services(unsigned lcore, uint32_t *ids, unsigned n);

/**
 * True while the loop of service lcore @p lcore has not returned: from
 * dpk_service_lcore_start() until its stop has waited for it. False for other lcores.
 */
bool dpk_service_lcore_may_be_active(unsigned lcore);

/**
 * Map service @p id to service lcore @p lcore (@p on) or unmap it. A started lcore picks the
 * change up at its next loop. An MT-unsafe service may be mapped to several lcores; they
 * take turns.
 * @retval 0       success (also when nothing changed)
 * @retval -EINVAL @p id is not a registered service, or @p lcore not a service lcore
 */
int dpk_service_map_lcore_set(uint32_t id, unsigned lcore, bool on);

/**
 * Whether service @p id is mapped to service lcore @p lcore.
 * @retval 1       mapped
 * @retval 0       not mapped
 * @retval -EINVAL @p id is not a registered service, or @p lcore not a service lcore
 */
int dpk_service_map_lcore_get(uint32_t id, unsigned lcore);

/* Statistics. */

/**
 * Turn statistics of service @p id on or off. Counters keep their values while off.
 * @retval 0       success
 * @retval -EINVAL @p id is not a registered service
 */
int dpk_service_stats_enable(uint32_t id, bool on);

/**
 * Set the cycle sample period of service @p id: with @p n > 1 only about one charged call
 * in @p n is timed (two TSC reads), and cycles become an estimate (see the table at the top
 * of this header); calls, idle and error counts stay exact. @p n = 1 (the default) times
 * every call. DPK_SERVICE_STATS_SAMPLE_CHEAP is a period that keeps statistics cheap; 16
 * is too small for that with a callback that does nothing. A thread that is inside a
 * sampling window when the period changes finishes that window first.
 * @retval 0       success
 * @retval -EINVAL @p id is not a registered service, or @p n is 0
 */
int dpk_service_stats_sample_set(uint32_t id, uint32_t n);

/**
 * Read the cycle sample period of service @p id into *@p n.
 * @retval 0       success
 * @retval -EINVAL @p id is not a registered service, or @p n NULL
 */
int dpk_service_stats_sample_get(uint32_t id, uint32_t *n);

/**
 * Read all statistics of service @p id since its registration or last reset, summed over
 * every thread that ran it (service lcores, lcores, other threads).
 * @retval 0       success
 * @retval -EINVAL @p id is not a registered service, or @p out NULL
 */
int dpk_service_stats_get(uint32_t id, struct dpk_service_stats *out);

/**
 * Read one statistic of service @p id (see dpk_service_stats_get()).
 * @retval 0       success, *@p value set
 * @retval -EINVAL @p id is not a registered service, @p attr unknown, or @p value NULL
 */
int dpk_service_attr_get(uint32_t id, enum dpk_service_attr attr, uint64_t *value);

/**
 * Reset every statistic of service @p id to zero. Calls running at the same time are
 * counted either before or after the reset, never lost from later reads (a call left
 * untimed may count in calls before it and in idle_calls or error_calls after).
 * @retval 0       success
 * @retval -EINVAL @p id is not a registered service
 */
int dpk_service_attr_reset_all(uint32_t id);

/**
 * Read one statistic of service lcore @p lcore since it was added or last reset. CALLS and
 * CYCLES cover the calls its loop made to services with stats on.
 * @retval 0       success, *@p value set
 * @retval -EINVAL @p lcore is not a service lcore, @p attr unknown, or @p value NULL
 */
int dpk_service_lcore_attr_get(unsigned lcore, enum dpk_service_lcore_attr attr, uint64_t *value);

/**
 * Reset every statistic of service lcore @p lcore (loops, calls and cycles) to zero.
 * @retval 0       success
 * @retval -EINVAL @p lcore is not a service lcore
 */
int dpk_service_lcore_attr_reset_all(unsigned lcore);

/**
 * Print service @p id (or every service, for DPK_SERVICE_ALL) with its state and
 * statistics, and the service lcores, to @p f.
 * @retval 0       success
 * @retval -EINVAL @p f NULL, or @p id neither DPK_SERVICE_ALL nor a registered service
 */
int dpk_service_dump(FILE *f, uint32_t id);

/**
 * Return the runtime to its empty state: dpk_service_lcore_reset_all(), then unregister
 * every service (waiting for callbacks in flight). Ids and counter slots keep nothing of
 * the old services: new registrations start from zero. Main lcore only, not from a
 * callback, and with no other control call at the same time; calls of
 * dpk_service_run_iter_on_app_lcore() may go on (they get -EINVAL).
 * @retval 0      success
 * @retval -EBUSY the calling thread is inside a service callback; nothing changed
 * @retval -EPERM the caller is not the main lcore; nothing changed
 */
int dpk_service_reset_all(void);

#ifdef __cplusplus
}
#endif

#endif /* DPK_SERVICE_H */
