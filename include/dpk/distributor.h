/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dpk/distributor.h - a packet distributor: one thread hands packets to N workers, keeping
 * the packets of one flow on one worker at a time and in order.
 *
 * Threads. One distributor thread calls process(), returned_pkts(), flush() and
 * clear_returns(). Each worker id w (0 .. workers-1) is driven by one thread at a time,
 * which calls get_pkt() (or request_pkt() and poll_pkt()) and return_pkt() with that id.
 * Distributors are independent: several may run at once in one process, and no state is
 * shared between them.
 *
 * Hand-off. A worker requests work by writing the packets it has finished (up to
 * DPK_DISTRIBUTOR_BURST_SIZE) into a request line of its own (a 64-byte cache line, alone
 * on its line pair) with a request flag; the distributor takes those packets into its
 * returns buffer. In single mode the distributor then writes the worker's next packet into
 * that same line and gives it back: one cache line round trip per hand-off. In burst mode
 * the packets (up to DPK_DISTRIBUTOR_BURST_SIZE) go into a second line, the hand-off line,
 * which the worker gives back as soon as it has copied them out; so the distributor writes
 * a worker's next full hand-off while the worker is still busy with the current one, and
 * a worker that asks again usually finds it there. No locks, no atomic read-modify-write.
 *
 * Backlogs. Between hand-offs, packets wait in a backlog of DPK_DISTRIBUTOR_BACKLOG
 * packets per worker, kept by the distributor thread. When a worker asks and its backlog
 * holds packets, the next hand-off takes them from the backlog in order.
 *
 * Flows. A packet's flow is its 32-bit flow tag (dpk_packet_flow_tag()); all 32 bits are
 * compared, so two packets are of the same flow exactly when their tags are equal: there
 * are no tag collisions (unlike DPDK's burst mode, which compares 15 bits). A packet is in
 * flight on worker W from the moment process() gives it to W's backlog until W asks for
 * its next hand-off after the one that carried the packet (and the distributor has taken
 * that request in, see Returns below). While a packet of flow T is in flight on W, every
 * other packet of T is given to W too, behind it in W's backlog; so packets of one flow
 * reach workers one worker at a time and in the order process() took them, and a worker
 * that returns each hand-off's packets in the order it received them gets them into the
 * returns buffer in that order. A worker must be done with the packets of a hand-off when
 * it asks for the next one. (Internally the tags in flight are found through a small hash
 * table that is always confirmed against the exact tags; its collisions cost a short
 * search, never a wrong match.)
 *
 * Placement of a packet whose flow is not in flight:
 *   single mode  a worker that is waiting for work, if there is one; with exactly one
 *                worker taking part, that worker's backlog. Otherwise process() stops
 *                there and the packet stays with the caller.
 *   burst mode   a backlog with room, filled up to DPK_DISTRIBUTOR_BACKLOG packets before
 *                moving on to the next worker, preferring workers waiting for work.
 * A full backlog is handed to its worker as soon as the worker asks (in burst mode, as
 * soon as the worker has copied its current hand-off out, with at most two hand-offs not
 * yet completed by a request); in burst mode the partly filled backlogs of waiting workers
 * are handed out at the end of every process().
 *
 * process() never waits. It takes the packets it can place, in order, and stops at the
 * first one it cannot (its flow's worker has a full backlog and has not asked yet, or no
 * worker has room); the rest stay with the caller, who calls again later. Every call also
 * takes in the workers' requests and hands out waiting backlogs; process(d, NULL, 0) does
 * only that.
 *
 * Returns. Packets that workers hand back go into a returns buffer of
 * DPK_DISTRIBUTOR_RETURNS packets, read with returned_pkts(). Nothing is ever overwritten:
 * when the buffer has no room for a request's returns, the request is left in the worker's
 * line (the worker keeps waiting, and the packets of that hand-off stay in flight) until
 * returned_pkts() or clear_returns() makes room and a later process() takes it in. This is
 * counted in dpk_distributor_stats.returns_full and reported by
 * dpk_distributor_returns_blocked(). A caller that never reads the returns stalls its
 * workers, so read them, or have the workers return nothing (nold = 0) when they dispose
 * of packets themselves.
 *
 * Taking part. A worker takes part from its first request on. return_pkt() hands back its
 * packets and leaves: the distributor then gives it nothing until it requests again, and
 * the packets waiting in its backlog go, in order, to the other workers (packets that
 * process() has not taken yet wait until they have). A worker with a request outstanding
 * cannot leave (-EBUSY) until the request is answered.
 *
 * flush() runs process(d, NULL, 0) until every packet taken is back (or disposed of by its
 * worker) and every worker taking part is waiting for work, then hands each waiting worker
 * an empty hand-off, on which get_pkt() returns 0. It has no fixed sleep and ends as long
 * as workers keep calling get_pkt() or return_pkt(). Only a flush answers a request with
 * nothing, which gives a way to stop workers: set a stop flag that a worker checks when
 * get_pkt() returns 0, then flush(); each worker sees the flag and calls return_pkt(), and
 * process(d, NULL, 0) takes their leaves in. (A worker that asks again after the flush
 * ended waits for the next flush; flush until every worker has left.)
 *
 * Concurrency (d = one distributor; calls on different distributors are independent):
 *
 *   call                                  thread            may run at the same time as
 *   create, free                          any               nothing on d
 *   process, returned_pkts, flush,        one thread, the   worker calls, stats calls
 *   clear_returns, returns_blocked        distributor
 *   get_pkt, request_pkt, poll_pkt,       one thread per    distributor calls, worker calls
 *   return_pkt for worker id w            id w at a time    for other ids, stats calls
 *   stats_get, worker_stats_get           any               anything on d but free
 *
 * Stats are snapshots; counters are exact once the threads they count have stopped.
 */
#ifndef DPK_DISTRIBUTOR_H
#define DPK_DISTRIBUTOR_H

#include <stdint.h>
#include <sys/types.h>

#include <dpk/common.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Most workers per distributor. */
#define DPK_DISTRIBUTOR_WORKERS_MAX 64u
/** Most packets in one hand-off (burst mode) and most returns per request (both modes). */
#define DPK_DISTRIBUTOR_BURST_SIZE 8u
/** Packets a worker's backlog holds. */
#define DPK_DISTRIBUTOR_BACKLOG 8u
/** Packets the returns buffer holds. */
#define DPK_DISTRIBUTOR_RETURNS 1024u

struct dpk_distributor;
struct dpk_packet;

/** How many packets one hand-off carries. */
enum dpk_distributor_mode {
	DPK_DISTRIBUTOR_SINGLE = 0, /**< one packet per hand-off */
	DPK_DISTRIBUTOR_BURST = 1,  /**< up to DPK_DISTRIBUTOR_BURST_SIZE per hand-off */
};

/** Counters of a distributor (see dpk_distributor_stats_get()). */
struct dpk_distributor_stats {
	uint64_t distributed;     /**< packets taken by process() */
	uint64_t returned;        /**< packets taken from workers into the returns buffer */
	uint64_t handoffs;        /**< hand-offs to workers, empty ones included */
	uint64_t returns_full;    /**< requests whose returns found no room and had to wait
	                               in the worker's line (each counted once) */
	unsigned in_flight;       /**< packets taken by process() and not yet back */
	unsigned returns;         /**< packets waiting in the returns buffer */
	unsigned active_workers;  /**< workers taking part */
	unsigned blocked_workers; /**< workers whose returns are waiting for room now */
};

/** Counters of one worker (see dpk_distributor_worker_stats_get()). */
struct dpk_distributor_worker_stats {
	uint64_t handled;  /**< packets handed to the worker */
	uint64_t handoffs; /**< hand-offs to the worker, empty ones included */
	bool active;       /**< the worker takes part */
};

/**
 * Create a distributor for @p workers workers, ids 0 .. @p workers - 1.
 * @return the distributor, or NULL with errno EINVAL (@p workers is 0 or above
 *         DPK_DISTRIBUTOR_WORKERS_MAX, or @p mode is not a dpk_distributor_mode) or ENOMEM;
 *         dpk_last_error() says which
 */
struct dpk_distributor *dpk_distributor_create(unsigned workers, enum dpk_distributor_mode mode);

/** The alignment dpk_distributor_init() needs: a pair of cache lines. */
#define DPK_DISTRIBUTOR_ALIGN 128

/**
 * Bytes a distributor for @p workers workers in mode @p mode takes, for
 * dpk_distributor_init() (a multiple of DPK_DISTRIBUTOR_ALIGN).
 * @retval -EINVAL as dpk_distributor_create() would refuse them; dpk_last_error() says why
 */
ssize_t dpk_distributor_memsize(unsigned workers, enum dpk_distributor_mode mode);

/**
 * Build a distributor in caller memory @p d of at least dpk_distributor_memsize() bytes,
 * aligned to DPK_DISTRIBUTOR_ALIGN: memory of the caller's choosing (a huge page, a NUMA
 * node's, a benchmark's arena). dpk_distributor_free() leaves it alone; the caller frees
 * the memory once no thread uses the distributor.
 * @retval 0
 * @retval -EINVAL bad arguments (as dpk_distributor_memsize()), @p d NULL or misaligned;
 *         @p d unchanged
 */
int dpk_distributor_init(struct dpk_distributor *d, unsigned workers,
                         enum dpk_distributor_mode mode);

/**
 * Free a distributor from dpk_distributor_create(); NULL is a no-op, and one from
 * dpk_distributor_init() is left alone (dpk_last_error() says so). Packets still in it
 * (in flight or in the returns buffer) are not freed: flush and read the returns first.
 * No thread may use @p d during or after the call.
 */
void dpk_distributor_free(struct dpk_distributor *d);

/**
 * Distribute packets (distributor thread). Takes @p pkts[0..ret-1] in order and stops at
 * the first packet it cannot place without waiting (see the file comment); the packets
 * taken belong to the distributor until they come back through dpk_distributor_returned_pkts()
 * (or are disposed of by their worker). Every call also takes in workers' requests and
 * returns and hands out waiting backlogs; with @p n = 0 that is all it does.
 * @retval 0..n    the number of packets taken
 * @retval -EINVAL @p d is NULL, @p pkts is NULL with @p n > 0, an entry of @p pkts is NULL,
 *                 or @p n is above INT_MAX; nothing taken or changed
 */
int dpk_distributor_process(struct dpk_distributor *d, struct dpk_packet *const *pkts, unsigned n);

/**
 * Move up to @p max packets from the returns buffer into @p pkts, oldest first
 * (distributor thread). Returns waiting in workers' lines for room are taken in by the
 * next dpk_distributor_process().
 * @retval 0..max  the number of packets written to @p pkts
 * @retval -EINVAL @p d is NULL, or @p pkts is NULL with @p max > 0; nothing changed
 */
int dpk_distributor_returned_pkts(struct dpk_distributor *d, struct dpk_packet **pkts,
                                  unsigned max);

/**
 * Wait until every packet taken by process() is back and every worker taking part is
 * waiting, then give each waiting worker an empty hand-off (distributor thread). The
 * packets that come back go to the returns buffer as usual. No fixed sleeps; the call
 * spins as long as the workers keep working.
 * @retval >=0      the number of packets that were in flight when the call began
 * @retval -EINVAL  @p d is NULL
 * @retval -ENOBUFS the returns buffer has no room for a worker's returns: read returns
 *                  and call again (nothing is lost; the flush is not complete)
 * @retval -ENODEV  packets of a worker that left are waiting and no worker takes part to
 *                  receive them; they go out when a worker requests again
 */
int dpk_distributor_flush(struct dpk_distributor *d);

/**
 * Drop every packet in the returns buffer without handing it back (distributor thread).
 * The packets are not freed. Returns waiting in workers' lines are not dropped.
 * @retval >=0     the number of packets dropped
 * @retval -EINVAL @p d is NULL
 */
int dpk_distributor_clear_returns(struct dpk_distributor *d);

/**
 * True when some worker's returns are waiting for room in the returns buffer, as found by
 * the last process() (distributor thread). False for NULL.
 */
bool dpk_distributor_returns_blocked(const struct dpk_distributor *d);

/**
 * Hand back finished packets and wait for new ones (worker @p w's thread). Spins until
 * the distributor answers: with packets, or with an empty hand-off at the end of
 * dpk_distributor_flush(). If this worker left with dpk_distributor_return_pkt() and the
 * distributor has not taken that in yet, it first waits for that too.
 * @param pkts    room for DPK_DISTRIBUTOR_BURST_SIZE packets (1 in single mode); may be the
 *                same array as @p oldpkts
 * @param oldpkts the packets to hand back, in the order they were received
 * @param nold    their number, 0 .. DPK_DISTRIBUTOR_BURST_SIZE
 * @retval 0..DPK_DISTRIBUTOR_BURST_SIZE the number of packets received in @p pkts
 * @retval -EINVAL @p d is NULL, @p w is not below the number of workers, @p pkts is NULL,
 *                 @p oldpkts is NULL with @p nold > 0, @p nold is too large or an old
 *                 packet is NULL; nothing changed
 * @retval -EBUSY  a request of this worker (dpk_distributor_request_pkt()) is outstanding;
 *                 poll it; nothing changed
 */
int dpk_distributor_get_pkt(struct dpk_distributor *d, unsigned w, struct dpk_packet **pkts,
                            struct dpk_packet *const *oldpkts, unsigned nold);

/**
 * Hand back finished packets and ask for new ones without waiting (worker @p w's thread);
 * collect the answer with dpk_distributor_poll_pkt().
 * @retval 0       requested
 * @retval -EINVAL as dpk_distributor_get_pkt() (no @p pkts here); nothing changed
 * @retval -EBUSY  a request is already outstanding, or this worker left and the
 *                 distributor has not taken that in yet; nothing changed
 */
int dpk_distributor_request_pkt(struct dpk_distributor *d, unsigned w,
                                struct dpk_packet *const *oldpkts, unsigned nold);

/**
 * Collect the answer to this worker's request, if it has come (worker @p w's thread).
 * @param pkts room for DPK_DISTRIBUTOR_BURST_SIZE packets (1 in single mode)
 * @retval 0..DPK_DISTRIBUTOR_BURST_SIZE the request is answered with this many packets
 *                 (0: an empty hand-off from dpk_distributor_flush())
 * @retval -EAGAIN no answer yet; poll again
 * @retval -EINVAL @p d or @p pkts is NULL, @p w is out of range, or no request of this
 *                 worker is outstanding
 */
int dpk_distributor_poll_pkt(struct dpk_distributor *d, unsigned w, struct dpk_packet **pkts);

/**
 * Hand back finished packets and leave (worker @p w's thread): the distributor gives this
 * worker nothing more until it requests again, and sends the packets waiting in its
 * backlog to other workers. Does not wait. A worker that does not take part may call it
 * to hand back packets; with @p n = 0 that is a no-op.
 * @retval 0       done
 * @retval -EINVAL as dpk_distributor_get_pkt() (no @p pkts here); nothing changed
 * @retval -EBUSY  a request of this worker is outstanding (poll it until it is answered),
 *                 or this worker left before and the distributor has not taken that in
 *                 yet; nothing changed
 */
int dpk_distributor_return_pkt(struct dpk_distributor *d, unsigned w,
                               struct dpk_packet *const *oldpkts, unsigned n);

/**
 * Read the distributor's counters (any thread).
 * @retval 0       *@p st is filled
 * @retval -EINVAL @p d or @p st is NULL
 */
int dpk_distributor_stats_get(const struct dpk_distributor *d, struct dpk_distributor_stats *st);

/**
 * Read worker @p w's counters (any thread).
 * @retval 0       *@p st is filled
 * @retval -EINVAL @p d or @p st is NULL, or @p w is out of range
 */
int dpk_distributor_worker_stats_get(const struct dpk_distributor *d, unsigned w,
                                     struct dpk_distributor_worker_stats *st);

#ifdef __cplusplus
}
#endif

#endif /* DPK_DISTRIBUTOR_H */
