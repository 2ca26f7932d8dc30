/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The dpdk_distributor suite: DPDK's packet distributor (rte_distributor.h) through the
 * distributor suite's cases, each with its twin's name and unit, and DPDK's own
 * cache-line switch beside dpkit's.
 *
 *   clswitch_relaxed        distributor_perf's cache-line switch as DPDK writes it: one
 *                           line, relaxed loads and stores and rte_pause(); the ping waits
 *                           for 0 and writes 1, the pong waits for 1 and writes 0; one
 *                           round trip per operation (the twin of dpkit's relaxed variant)
 *   {single,burst}_e2e      per packet, end to end: a burst of 64 given to
 *                           rte_distributor_process() and the distributor waits until all
 *                           64 are back
 *   {single,burst}_stream   per packet, distributor side: process() kept fed with bursts
 *                           of 64, returns taken as they come
 * on every pair placement and on "all" (role 0 the distributor, every other role a
 * worker, which hands back what it got and polls for more: request_pkt + poll_pkt).
 * Packets are mbufs carrying 64 flows (hash.usr) and a per-flow sequence number.
 *
 * Two things DPDK 22.11 needs that dpkit does not:
 * - Its calls wait for the other side with no way out: process() for a worker's request
 *   (single mode) or poll (burst mode), a burst-mode request_pkt() for the distributor's
 *   next process(). A role the harness stops between two batches never comes back to
 *   answer, so the roles pass a gate (below): a role makes such a call only while every
 *   other role is in its body, and leaves its body only once no other role is in such a
 *   call, answering with calls that never wait until then. A gate costs a locked store and
 *   a load of a line the other side rarely writes per call that may wait.
 * - A distributor cannot be freed, so one per mode and worker count is made once and kept;
 *   each round starts from it drained (teardown plays every role until all packets are
 *   back: the invariant the twin checks with its counts).
 * DPDK keeps at most 127 returns between two returned_pkts() calls and drops the oldest
 * beyond that, so the stream sends only while no more than 63 packets are out (the twin
 * keeps the same bound). Both suites stamp each packet once, when it enters a stage that
 * is refilled only once empty, and offer process() the stage's waiting packets: DPDK's
 * process() places all it is given before it returns, dpkit's may take a few per call,
 * and the harness's work per packet must not depend on which.
 *
 * Memory orders (labels of this file):
 *   G1  gate_enter()'s seq_cst store of busy, then its seq_cst load of every other
 *       role's present (G2 in others()); pairs with G3/G4 of a role leaving its body.
 *   G3  gate_leave()'s seq_cst store of present = false, then its seq_cst load of every
 *       other role's busy (G4 in others()); pairs with G1/G2. Each side stores, then
 *       loads what the other stores, all in the single total order: of a role entering
 *       a call and one leaving its body at least one sees the other's flag, so the call
 *       is not made or the leaver stays to answer it.
 *   G2, G4  the seq_cst loads in others(), for G1 and G3.
 * Everything else of the gate and the clswitch line is relaxed: the flags carry no data
 * (DPDK's own calls order the packets), and the roles are joined before teardown reads.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include <rte_distributor.h>
#include <rte_errno.h>
#include <rte_mbuf.h>
#include <rte_pause.h>

#include <dpk/cycles.h>

#include "dpdk_eal.h"
#include "peers.h"

/* ---- DPDK's cache-line switch ------------------------------------------------------ */

struct clswitch {
	_Alignas(64) atomic_uint_fast64_t flag;
	/* Each role's count on a line pair of its own: were they on one line, each role's
	 * update would pull it from the other, a second line crossing per round trip. */
	struct {
		_Alignas(128) uint64_t n;
	} rounds[2];
};

static int cl_setup(struct dpk_bench_run *run)
{
	struct clswitch *cs = dpk_bench_alloc(run, sizeof(*cs), 128);

	if (!cs)
		return -ENOMEM;
	atomic_init(&cs->flag, 0);
	run->state = cs;
	return 0;
}

static void cl_teardown(struct dpk_bench_run *run)
{
	struct clswitch *cs = run->state;
	uint64_t a = cs->rounds[0].n, b = cs->rounds[1].n;

	/* One round trip may be in flight when the stop flag rises. */
	if ((a > b ? a - b : b - a) > 1)
		dpk_bench_fail(run, "sent %llu, answered %llu", (unsigned long long)a,
		               (unsigned long long)b);
}

/* Ping waits for 0 and writes 1, pong waits for 1 and writes 0 (flip_bit()). */
static uint64_t body_cl(struct dpk_bench_run *run, unsigned role, uint64_t n)
{
	struct clswitch *cs = run->state;
	const uint64_t wait_for = role == 0 ? 0 : 1;

	for (uint64_t i = 0; i < n; i++) {
		uint64_t v;

		while ((v = atomic_load_explicit(&cs->flag, memory_order_relaxed)) != wait_for) {
			if (v > 1) {
				dpk_bench_fail(run, "role %u saw %llu on the line", role,
				               (unsigned long long)v);
				return i;
			}
			if (dpk_bench_stopped(run))
				return i;
			rte_pause();
		}
		atomic_store_explicit(&cs->flag, 1 - wait_for, memory_order_relaxed);
		cs->rounds[role].n++;
	}
	return n;
}

/* ---- the distributor hand-off ----------------------------------------------------- */

#define DIST_FLOWS 64u
#define DIST_PKTS  1024u
#define WBURST     8u  /* packets per worker line (RTE_DIST_BURST_SIZE, not public) */
#define MAX_OUT    63u /* stream: packets out before the next burst (returns fit 127) */
#define KEEP_MAX   8u  /* distributors kept: modes x worker counts */
#define WORKERS    64u /* DPDK's most workers (RTE_DISTRIB_MAX_WORKERS) */

struct dist_arg {
	unsigned mode; /* RTE_DIST_ALG_SINGLE or RTE_DIST_ALG_BURST */
	bool stream;
};

/* A distributor kept across rounds, and where each of its workers stands. */
struct dist_keep {
	struct rte_distributor *d;
	unsigned mode, nworkers;
	bool requested[WORKERS]; /* worker w has a request out (its next call is a poll) */
};

static struct dist_keep kept[KEEP_MAX];

/* A role's gate flags and, for a worker, its packets; each on lines of its own. */
struct dist_role {
	_Alignas(64) atomic_bool present; /* in its body */
	atomic_bool busy;                 /* in a call that may wait for another role */
	_Alignas(64) struct rte_mbuf *held[WBURST];
	unsigned nheld;
	bool requested;
	unsigned surplus; /* packets polled past the last batch's n, counted in the next */
};

struct dist_state {
	struct dist_keep *k;
	struct rte_distributor *d;
	struct rte_mempool *mp;
	unsigned nworkers, nroles;
	bool burst;
	/* distributor role's own */
	struct rte_mbuf *free[DIST_PKTS];
	unsigned nfree;
	struct rte_mbuf *stage[DIST_FLOWS]; /* stamped, not yet taken by process() */
	unsigned stage_head, nstage;        /* stage[stage_head..nstage-1] are waiting */
	uint32_t next_seq[DIST_FLOWS];
	uint32_t want_seq[DIST_FLOWS];
	unsigned next_flow;
	uint64_t sent, received;
	struct dist_role r[];
};

struct dist_stamp {
	uint32_t flow, seq;
};

static inline const struct dist_stamp *stamp_of(struct rte_mbuf *m)
{
	return rte_pktmbuf_mtod(m, const struct dist_stamp *);
}

/* ---- the gate ------------------------------------------------------------------- */

static bool others(struct dist_state *st, unsigned me, bool busy)
{
	for (unsigned i = 0; i < st->nroles; i++) {
		if (i == me)
			continue;
		if (busy ? atomic_load(&st->r[i].busy)      /* G4: pairs with G1 */
		         : !atomic_load(&st->r[i].present)) /* G2: pairs with G3 */
			return true;
	}
	return false;
}

/* Enter a call that may wait for another role: false (and nothing entered) while some
 * other role is out of its body. */
static bool gate_enter(struct dist_state *st, unsigned me)
{
	atomic_store(&st->r[me].busy, true); /* G1: pairs with G4 of a leaving role */
	if (!others(st, me, false))
		return true;
	atomic_store_explicit(&st->r[me].busy, false, memory_order_relaxed);
	return false;
}

static void gate_exit(struct dist_state *st, unsigned me)
{
	atomic_store_explicit(&st->r[me].busy, false, memory_order_relaxed);
}

static bool dist_collect(struct dpk_bench_run *run, struct dist_state *st);
static void worker_step(struct dist_state *st, unsigned role);

/* Leave the body: answer, with calls that never wait, every role still in such a call. */
static void gate_leave(struct dpk_bench_run *run, struct dist_state *st, unsigned me)
{
	atomic_store(&st->r[me].present, false); /* G3: pairs with G2 of an entering role */
	while (others(st, me, true)) {
		if (me == 0) {
			rte_distributor_process(st->d, NULL, 0);
			(void)dist_collect(run, st);
		} else {
			worker_step(st, me);
		}
		rte_pause();
	}
}

/* ---- the distributor's side ----------------------------------------------------- */

/* Take returns back onto the free stack, checking per-flow order. */
static bool dist_collect(struct dpk_bench_run *run, struct dist_state *st)
{
	struct rte_mbuf *ret[64];
	int got = rte_distributor_returned_pkts(st->d, ret, 64);

	for (int i = 0; i < got; i++) {
		const struct dist_stamp *sp = stamp_of(ret[i]);
		if (sp->seq != st->want_seq[sp->flow]) {
			dpk_bench_fail(run, "flow %u returned sequence %u, expected %u", sp->flow,
			               sp->seq, st->want_seq[sp->flow]);
			return false;
		}
		st->want_seq[sp->flow]++;
		st->free[st->nfree++] = ret[i];
	}
	st->received += got > 0 ? (unsigned)got : 0;
	return true;
}

/* Once the stage is empty, fill it with up to @p k packets, stamping each once: the next
 * flow and that flow's next sequence. The stage holds at most 64 packets, so a flow appears
 * in it at most once, and process() takes its packets in stage order. Refilling only an
 * empty stage stamps a burst at a time however many packets each process() takes. */
static void dist_stage(struct dist_state *st, unsigned k)
{
	if (st->stage_head < st->nstage)
		return;
	if (k > st->nfree)
		k = st->nfree;
	st->stage_head = st->nstage = 0;
	st->nfree -= k;
	/* The top k of the free stack, in stack order. */
	while (st->nstage < k) {
		struct rte_mbuf *m = st->free[st->nfree + st->nstage];
		struct dist_stamp *sp = rte_pktmbuf_mtod(m, struct dist_stamp *);
		unsigned f = st->next_flow;

		sp->flow = f;
		sp->seq = st->next_seq[f]++;
		m->hash.usr = f;
		st->next_flow = (f + 1) % DIST_FLOWS;
		st->stage[st->nstage++] = m;
	}
}

/* Offer up to @p k staged packets to process(); returns how many it took (none while a
 * worker is out of its body: process() could wait for it). */
static unsigned dist_send(struct dist_state *st, unsigned k)
{
	unsigned left;
	int taken;

	dist_stage(st, k);
	if (!gate_enter(st, 0))
		return 0;
	left = st->nstage - st->stage_head;
	taken = rte_distributor_process(st->d, st->stage + st->stage_head, k < left ? k : left);
	gate_exit(st, 0);
	if (taken <= 0)
		return 0;
	st->stage_head += (unsigned)taken; /* the rest stays, stamped as it was */
	st->sent += (unsigned)taken;
	return (unsigned)taken;
}

/* End to end: a burst of 64 out, then wait until all are back. */
static uint64_t dist_e2e(struct dpk_bench_run *run, struct dist_state *st, uint64_t n)
{
	uint64_t done = 0;

	while (done < n) {
		unsigned sent = 0;
		while (sent < DIST_FLOWS) {
			sent += dist_send(st, DIST_FLOWS - sent);
			if (!dist_collect(run, st) || dpk_bench_stopped(run))
				return done;
		}
		while (st->received < st->sent) {
			rte_distributor_process(st->d, NULL, 0);
			if (!dist_collect(run, st) || dpk_bench_stopped(run))
				return done;
		}
		done += DIST_FLOWS;
	}
	return done;
}

/* Stream: keep process() fed; count the packets it takes. */
static uint64_t dist_stream(struct dpk_bench_run *run, struct dist_state *st, uint64_t n)
{
	uint64_t done = 0;

	while (done < n) {
		unsigned t = 0;

		if (st->sent - st->received <= MAX_OUT)
			t = dist_send(st,
			              n - done < DIST_FLOWS ? (unsigned)(n - done) : DIST_FLOWS);
		if (!dist_collect(run, st))
			return done;
		done += t;
		if (t == 0) {
			if (dpk_bench_stopped(run))
				return done;
			rte_distributor_process(st->d, NULL, 0);
			rte_pause();
		}
	}
	return done;
}

/* ---- the workers' side ---------------------------------------------------------- */

/* One step of worker @p role: hand back what it holds with a new request (in burst mode
 * through the gate when @p gated, as the request may wait for the distributor), then poll
 * for what the distributor sent. Returns the packets the poll brought (0 for an empty
 * line), -1 when none came. */
static int worker_try(struct dist_state *st, unsigned role, bool gated)
{
	struct dist_role *w = &st->r[role];
	const unsigned id = role - 1;
	const bool gate = gated && st->burst;
	int rc;

	if (!w->requested) {
		if (gate && !gate_enter(st, role))
			return -1;
		rte_distributor_request_pkt(st->d, id, w->held, w->nheld);
		if (gate)
			gate_exit(st, role);
		w->nheld = 0;
		w->requested = true;
	}
	rc = rte_distributor_poll_pkt(st->d, id, w->held);
	if (st->burst ? rc < 0 : rc == 0)
		return -1;
	w->requested = false;
	w->nheld = (unsigned)rc;
	for (int i = 0; i < rc; i++) { /* the work: read the stamp */
		uint32_t seq = stamp_of(w->held[i])->seq;
		DPK_BENCH_KEEP(seq);
	}
	return rc;
}

/* A leaving worker's answer to a role in a call: what it polls counts in its next batch. */
static void worker_step(struct dist_state *st, unsigned role)
{
	int rc = worker_try(st, role, true);

	if (rc > 0)
		st->r[role].surplus += (unsigned)rc;
}

static uint64_t dist_worker(struct dpk_bench_run *run, struct dist_state *st, unsigned role,
                            uint64_t n)
{
	struct dist_role *w = &st->r[role];
	uint64_t done = w->surplus < n ? w->surplus : n;

	/* A poll hands over up to a line; what goes past n counts for the next batch, as a
	 * body may not return more operations than it was asked. */
	w->surplus -= (unsigned)done;
	while (done < n) {
		int rc = worker_try(st, role, true);

		if (rc < 0) {
			if (dpk_bench_stopped(run))
				return done;
			rte_pause();
			continue;
		}
		done += (unsigned)rc;
	}
	if (done > n) {
		w->surplus += (unsigned)(done - n);
		done = n;
	}
	return done;
}

static uint64_t body_dist(struct dpk_bench_run *run, unsigned role, uint64_t n)
{
	struct dist_state *st = run->state;
	const struct dist_arg *a = run->c->arg;
	uint64_t done;

	if (!dpk_dpdk_role(run))
		return 0;
	atomic_store_explicit(&st->r[role].present, true, memory_order_relaxed);
	if (role != 0)
		done = dist_worker(run, st, role, n);
	else
		done = a->stream ? dist_stream(run, st, n) : dist_e2e(run, st, n);
	gate_leave(run, st, role);
	return done;
}

/* ---- set-up and tear-down ------------------------------------------------------- */

/* The kept distributor of @p mode with @p nw workers, made the first time. */
static struct dist_keep *keep_get(unsigned mode, unsigned nw)
{
	struct dist_keep *slot = NULL;
	char name[32];

	for (unsigned i = 0; i < KEEP_MAX; i++) {
		if (kept[i].d && kept[i].mode == mode && kept[i].nworkers == nw)
			return &kept[i];
		if (!kept[i].d && !slot)
			slot = &kept[i];
	}
	if (!slot)
		return NULL;
	dpk_dpdk_name(name, sizeof(name), "dist");
	*slot = (struct dist_keep){.mode = mode, .nworkers = nw};
	slot->d = rte_distributor_create(name, SOCKET_ID_ANY, nw, mode);
	return slot->d ? slot : NULL;
}

static int dist_pool(struct dist_state *st)
{
	char name[RTE_MEMPOOL_NAMESIZE];

	dpk_dpdk_name(name, sizeof(name), "dp");
	/* 256-byte buffers, no cache, as the twin's pool. */
	st->mp = rte_pktmbuf_pool_create(name, DIST_PKTS, 0, 0, 256, SOCKET_ID_ANY);
	if (!st->mp)
		return -(rte_errno ? rte_errno : ENOMEM);
	for (unsigned i = 0; i < DIST_PKTS; i++) {
		struct rte_mbuf *m = rte_pktmbuf_alloc(st->mp);

		if (!m || !rte_pktmbuf_append(m, sizeof(struct dist_stamp))) {
			rte_pktmbuf_free(m);
			return -ENOMEM;
		}
		st->free[st->nfree++] = m;
	}
	return 0;
}

static void dist_free(struct dist_state *st)
{
	for (unsigned i = 0; i < st->nfree; i++)
		rte_pktmbuf_free(st->free[i]);
	for (unsigned i = st->stage_head; i < st->nstage; i++)
		rte_pktmbuf_free(st->stage[i]);
	rte_mempool_free(st->mp);
	free(st);
}

static int dist_setup(struct dpk_bench_run *run)
{
	const struct dist_arg *a = run->c->arg;
	unsigned nw = run->nroles - 1;
	size_t size = sizeof(struct dist_state) + run->nroles * sizeof(struct dist_role);
	struct dist_state *st;
	int rc;

	if (nw < 1 || nw >= WORKERS)
		return -ENODEV;
	if (!(st = dpk_dpdk_state(run, size, &rc)))
		return rc;
	st->nworkers = nw;
	st->nroles = run->nroles;
	st->burst = a->mode == RTE_DIST_ALG_BURST;
	if ((rc = dist_pool(st)) || !(st->k = keep_get(a->mode, nw))) {
		dist_free(st);
		return rc ? rc : -(rte_errno ? rte_errno : ENOMEM);
	}
	st->d = st->k->d;
	for (unsigned w = 0; w < nw; w++) {
		atomic_init(&st->r[w + 1].present, false);
		atomic_init(&st->r[w + 1].busy, false);
		st->r[w + 1].requested = st->k->requested[w];
	}
	atomic_init(&st->r[0].present, false);
	atomic_init(&st->r[0].busy, false);
	run->state = st;
	return 0;
}

/* Whether every packet is back: none held by a worker, none with the distributor. */
static bool drained(const struct dist_state *st)
{
	if (st->received != st->sent)
		return false;
	for (unsigned w = 1; w <= st->nworkers; w++)
		if (st->r[w].nheld)
			return false;
	return true;
}

/* Play every role, no role running, until every packet is back: a second at most. The
 * distributor's process(NULL, 0) comes first in each pass, so a worker's new request
 * finds its last one taken and does not wait (the gate is for running roles). */
static bool drain(struct dpk_bench_run *run, struct dist_state *st)
{
	uint64_t deadline = dpk_tsc() + dpk_tsc_hz();

	while (!drained(st)) {
		rte_distributor_process(st->d, NULL, 0);
		if (!dist_collect(run, st))
			return false;
		for (unsigned w = 1; w <= st->nworkers; w++)
			(void)worker_try(st, w, false);
		if (dpk_tsc() > deadline)
			return false;
	}
	return true;
}

static void dist_teardown(struct dpk_bench_run *run)
{
	struct dist_state *st = run->state;

	if (drain(run, st)) {
		for (unsigned w = 0; w < st->nworkers; w++)
			st->k->requested[w] = st->r[w + 1].requested;
	} else {
		/* Packets stay in the distributor: it is given up (never freed, never reused). */
		dpk_bench_fail(run, "sent %llu, received %llu: the rest did not come back",
		               (unsigned long long)st->sent, (unsigned long long)st->received);
		st->k->d = NULL;
	}
	dist_free(st);
}

#define DARG(m, s) (&(const struct dist_arg){.mode = (m), .stream = (s)})

#define DIST(name_, kind_, m, s, what)                                                             \
	{                                                                                          \
		.name = name_, .desc = what, .kind = kind_, .unit = DPK_UNIT_PACKET,               \
		.counted_roles = 1, .role_names = {"distributor", "worker"},                       \
		.ops_multiple = (s) ? 0 : DIST_FLOWS, .setup = dist_setup, .body = body_dist,      \
		.teardown = dist_teardown, .arg = DARG(m, s)                                       \
	}

#define DIST4(kind_)                                                                               \
	DIST("single_e2e", kind_, RTE_DIST_ALG_SINGLE, false,                                      \
	     "DPDK single mode, per packet from process() until it is back, bursts of 64"),        \
	        DIST("burst_e2e", kind_, RTE_DIST_ALG_BURST, false,                                \
	             "DPDK burst mode, per packet from process() until it is back, bursts of 64"), \
	        DIST("single_stream", kind_, RTE_DIST_ALG_SINGLE, true,                            \
	             "DPDK single mode, distributor side: per packet process() takes in a "        \
	             "steady stream"),                                                             \
	        DIST("burst_stream", kind_, RTE_DIST_ALG_BURST, true,                              \
	             "DPDK burst mode, distributor side: per packet process() takes in a steady "  \
	             "stream")

static const struct dpk_bench_case dpdk_distributor_cases[] = {
        {.name = "clswitch_relaxed",
         .desc = "one cache-line round trip, DPDK distributor_perf's loop (relaxed)",
         .kind = DPK_BENCH_PAIR,
         .unit = DPK_UNIT_ROUND_TRIP,
         .counted_roles = 1,
         .role_names = {"ping", "pong"},
         .setup = cl_setup,
         .body = body_cl,
         .teardown = cl_teardown},
        DIST4(DPK_BENCH_PAIR),
        DIST4(DPK_BENCH_ALL),
};

const struct dpk_bench_suite dpk_suite_dpdk_distributor = {
        .name = "dpdk_distributor",
        .desc = "DPDK distributor hand-off and distributor_perf's cache-line switch, through "
                "the distributor suite's cases",
        .cases = dpdk_distributor_cases,
        .ncases = sizeof(dpdk_distributor_cases) / sizeof(dpdk_distributor_cases[0]),
        .default_on = false,
};
