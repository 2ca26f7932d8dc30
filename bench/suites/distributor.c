/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The distributor suite.
 *
 * Cache-line switch (DPDK distributor_perf's first test): one cache line bounced between
 * two lcores, one round trip per operation, per pair placement, written four ways so each
 * run puts the question of DPDK's 2019 thread ("__sync versus __atomic") to the machine at
 * hand (what it answered on the development guests: docs/measured-2026-11-30.md):
 *   clswitch_relaxed   C11 relaxed loads and stores
 *   clswitch_acqrel    C11 acquire loads, release stores
 *   clswitch_seqcst    C11 seq_cst loads and stores (a seq_cst store is a locked
 *                      exchange on x86)
 *   clswitch_sync      the legacy builtins: a plain spin, __sync_synchronize() after the
 *                      wait, __sync_lock_test_and_set() to write (full barriers); the spin
 *                      reads with a relaxed atomic load, the same plain load a volatile
 *                      read compiles to, so ThreadSanitizer can see the pairing
 * Role 0 writes 2k+1 and waits for 2k+2, role 1 waits for 2k+1 and writes 2k+2; a wait
 * that sees anything but the value it waits for or the one just before fails the case.
 *
 * Distributor hand-off, single and burst mode: role 0 is the distributor, every other
 * role a worker (one worker on a pair placement; one per remaining lcore on "all").
 * Packets carry 64 flows, as in DPDK's test, and a per-flow sequence number.
 *   {single,burst}_e2e      per packet, end to end: a burst of 64 is given to process()
 *                           and the distributor waits until all 64 are back; the time per
 *                           packet is from process() to its return, nothing overlapped
 *   {single,burst}_stream   per packet, distributor side (DPDK's "Time per packet"): the
 *                           distributor keeps process() fed with bursts of 64 and takes
 *                           returns as they come, so hand-offs overlap; its figure is the
 *                           time per packet taken by process() in that steady stream
 * Workers hand back what they got and poll for more (request_pkt + poll_pkt, polling the
 * stop flag). Invariants: returns come back in per-flow order; at teardown the packets
 * sent minus those received back equal the distributor's count in flight plus waiting
 * returns.
 *
 * The DPDK twin (dpdk_distributor.c) runs these loops line for line. DPDK's process()
 * waits inside until it has placed every packet it is given, dpkit's takes what it can
 * and returns, so the harness must not charge work per call: packets are stamped once,
 * when they enter a stage of up to 64 that is refilled only once empty, and process() is
 * offered the stage's waiting packets, with no copying. The stream sends only while at
 * most 63 packets are out, the bound DPDK's returns need, here as there.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>

#include <string.h>

#include <dpk/cycles.h>
#include <dpk/distributor.h>
#include <dpk/packet.h>

#include "suites.h"

struct clswitch {
	/* The flag has a line pair to itself, as each count has: the adjacent-line
	 * prefetcher moves lines in pairs. */
	_Alignas(128) atomic_uint_fast64_t flag;
	_Alignas(128) uint64_t vflag; /* for the __sync variant only */
	/* Each role's count on a line pair of its own: were they on one line, each role's
	 * update would pull it from the other, a second line crossing per round trip. */
	struct {
		_Alignas(128) uint64_t n;
	} rounds[2];
};

/* In the harness's arena, as dpdk_distributor.c's twin: where the heap put the lines
 * decided the figure of a process (docs/distributor.md, "The cases' memory"). */
static int clswitch_setup(struct dpk_bench_run *run)
{
	struct clswitch *cs = dpk_bench_alloc(run, sizeof(*cs), 128);

	if (!cs)
		return -ENOMEM;
	atomic_init(&cs->flag, 0);
	run->state = cs;
	return 0;
}

static void clswitch_teardown(struct dpk_bench_run *run)
{
	struct clswitch *cs = run->state;
	uint64_t a = cs->rounds[0].n, b = cs->rounds[1].n;

	/* One round trip may be in flight when the stop flag rises. */
	if ((a > b ? a - b : b - a) > 1)
		dpk_bench_fail(run, "sent %llu, answered %llu", (unsigned long long)a,
		               (unsigned long long)b);
}

/*
 * One body per memory order, so the order is a constant in the loop. LOAD/STORE act on
 * cs; WAIT spins until LOAD gives the wanted value, polling stop.
 */
#define CLSWITCH_BODY(NAME, LOAD, STORE, AFTER_WAIT)                                               \
	static uint64_t NAME(struct dpk_bench_run *run, unsigned role, uint64_t n)                 \
	{                                                                                          \
		struct clswitch *cs = run->state;                                                  \
		uint64_t i;                                                                        \
		for (i = 0; i < n; i++) {                                                          \
			uint64_t k = cs->rounds[role].n, want, mine;                               \
			want = role == 0 ? k * 2 + 2 : k * 2 + 1;                                  \
			mine = role == 0 ? k * 2 + 1 : k * 2 + 2;                                  \
			if (role == 0)                                                             \
				STORE(cs, mine);                                                   \
			for (;;) {                                                                 \
				uint64_t v = LOAD(cs);                                             \
				if (v == want)                                                     \
					break;                                                     \
				if (v != want - 1) {                                               \
					dpk_bench_fail(run, "role %u saw %llu waiting for %llu",   \
					               role, (unsigned long long)v,                \
					               (unsigned long long)want);                  \
					return i;                                                  \
				}                                                                  \
				if (dpk_bench_stopped(run))                                        \
					return i;                                                  \
				dpk_pause();                                                       \
			}                                                                          \
			AFTER_WAIT;                                                                \
			if (role == 1)                                                             \
				STORE(cs, mine);                                                   \
			cs->rounds[role].n = k + 1;                                                \
		}                                                                                  \
		return n;                                                                          \
	}

/* relaxed: no ordering beyond the line itself; fine for a flag that carries no data */
#define LD_RLX(cs)    atomic_load_explicit(&(cs)->flag, memory_order_relaxed)
#define ST_RLX(cs, v) atomic_store_explicit(&(cs)->flag, (v), memory_order_relaxed)
/* acquire/release: each acquire load pairs with the other role's release store */
#define LD_ACQ(cs)    atomic_load_explicit(&(cs)->flag, memory_order_acquire)
#define ST_REL(cs, v) atomic_store_explicit(&(cs)->flag, (v), memory_order_release)
/* seq_cst: both in the single total order (stronger than the hand-off needs) */
#define LD_SC(cs)    atomic_load_explicit(&(cs)->flag, memory_order_seq_cst)
#define ST_SC(cs, v) atomic_store_explicit(&(cs)->flag, (v), memory_order_seq_cst)
/* legacy: plain read, full barrier after the wait, locked exchange to write */
#define LD_VOL(cs)     __atomic_load_n(&(cs)->vflag, __ATOMIC_RELAXED)
#define ST_SYNC(cs, v) ((void)__sync_lock_test_and_set(&(cs)->vflag, (v)))

CLSWITCH_BODY(body_cl_relaxed, LD_RLX, ST_RLX, (void)0)
CLSWITCH_BODY(body_cl_acqrel, LD_ACQ, ST_REL, (void)0)
CLSWITCH_BODY(body_cl_seqcst, LD_SC, ST_SC, (void)0)
CLSWITCH_BODY(body_cl_sync, LD_VOL, ST_SYNC, __sync_synchronize())

/* ---- the distributor hand-off ----------------------------------------------------- */

#define DIST_FLOWS 64u
#define DIST_PKTS  1024u
#define MAX_OUT    63u /* stream: packets out before the next burst, as in the DPDK twin */

struct dist_arg {
	enum dpk_distributor_mode mode;
	bool stream;
};

struct dist_worker {
	_Alignas(64) struct dpk_packet *held[DPK_DISTRIBUTOR_BURST_SIZE];
	unsigned nheld;
	bool requested;
	unsigned surplus; /* packets polled past the last batch's n, counted in the next */
};

struct dist_state {
	struct dpk_distributor *d;
	struct dpk_packet_pool *pp;
	unsigned nworkers;
	/* distributor role's own */
	struct dpk_packet *free[DIST_PKTS];
	unsigned nfree;
	struct dpk_packet *stage[DIST_FLOWS]; /* stamped, not yet taken by process() */
	unsigned stage_head, nstage;          /* stage[stage_head..nstage-1] are waiting */
	uint32_t next_seq[DIST_FLOWS];
	uint32_t want_seq[DIST_FLOWS];
	unsigned next_flow;
	uint64_t sent, received;
	struct dist_worker w[];
};

struct dist_stamp {
	uint32_t flow, seq;
};

static int dist_setup(struct dpk_bench_run *run)
{
	const struct dist_arg *a = run->c->arg;
	struct dpk_packet_pool_params prm;
	unsigned nw = run->nroles - 1;
	size_t size = sizeof(struct dist_state) + nw * sizeof(struct dist_worker);
	ssize_t dsize = dpk_distributor_memsize(nw, a->mode), psize;
	struct dist_state *st;

	if (nw < 1)
		return -ENODEV;
	dpk_packet_pool_params_init(&prm);
	prm.count = DIST_PKTS;
	prm.buf_size = 256;
	prm.headroom = 64;
	prm.cache_size = 0;
	psize = dpk_packet_pool_memsize(&prm);
	if (dsize < 0 || psize < 0)
		return -EINVAL;
	/* All three in the arena, which moves them from round to round: on the heap, the
	 * distributor's and the pool's lines sat where they fell for a whole process, and
	 * its figure with them (docs/distributor.md, "The cases' memory"). The arena's
	 * memory is zeroed; the inits do not count on it. */
	if (!(st = dpk_bench_alloc(run, size, 64)) ||
	    !(st->d = dpk_bench_alloc(run, (size_t)dsize, DPK_DISTRIBUTOR_ALIGN)) ||
	    !(st->pp = dpk_bench_alloc(run, (size_t)psize, DPK_PACKET_POOL_ALIGN)))
		return -ENOMEM;
	st->nworkers = nw;
	if (dpk_distributor_init(st->d, nw, a->mode) || dpk_packet_pool_init(st->pp, &prm))
		return -EINVAL;
	for (unsigned i = 0; i < DIST_PKTS; i++) {
		struct dpk_packet *p = dpk_packet_alloc(st->pp, sizeof(struct dist_stamp));
		if (!p)
			return -ENOMEM; /* the arena goes with the round, packets and all */
		st->free[st->nfree++] = p;
	}
	run->state = st;
	return 0;
}

static void dist_teardown(struct dpk_bench_run *run)
{
	struct dist_state *st = run->state;
	struct dpk_distributor_stats ds;

	if (dpk_distributor_stats_get(st->d, &ds) != 0)
		dpk_bench_fail(run, "cannot read the distributor's counters");
	else if (st->sent - st->received != (uint64_t)ds.in_flight + ds.returns)
		dpk_bench_fail(run, "sent %llu, received %llu, but %u in flight and %u waiting",
		               (unsigned long long)st->sent, (unsigned long long)st->received,
		               ds.in_flight, ds.returns);
	/* The distributor, the pool and the packets still out (in the distributor or the
	 * workers' lines) are the arena's, which goes with the round: nothing to free. */
}

/* Take returns back onto the free stack, checking per-flow order. */
static bool dist_collect(struct dpk_bench_run *run, struct dist_state *st)
{
	struct dpk_packet *ret[64];
	int got = dpk_distributor_returned_pkts(st->d, ret, 64);

	for (int i = 0; i < got; i++) {
		const struct dist_stamp *sp = dpk_packet_data(ret[i]);
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
		struct dpk_packet *p = st->free[st->nfree + st->nstage];
		struct dist_stamp *sp = dpk_packet_data(p);
		unsigned f = st->next_flow;

		sp->flow = f;
		sp->seq = st->next_seq[f]++;
		dpk_packet_flow_tag_set(p, f);
		st->next_flow = (f + 1) % DIST_FLOWS;
		st->stage[st->nstage++] = p;
	}
}

/* Offer up to @p k staged packets to process(); returns how many it took. */
static unsigned dist_send(struct dist_state *st, unsigned k)
{
	unsigned left;
	int taken;

	dist_stage(st, k);
	left = st->nstage - st->stage_head;
	taken = dpk_distributor_process(st->d, st->stage + st->stage_head, k < left ? k : left);
	if (taken <= 0)
		return 0;
	st->stage_head += (unsigned)taken; /* the rest stays, stamped as it was */
	st->sent += (unsigned)taken;
	return (unsigned)taken;
}

static uint64_t dist_worker(struct dpk_bench_run *run, struct dist_state *st, unsigned role,
                            uint64_t n)
{
	struct dist_worker *w = &st->w[role - 1];
	const unsigned id = role - 1;
	uint64_t done = w->surplus < n ? w->surplus : n;

	/* A poll hands over up to a burst; what goes past n counts for the next batch, as a
	 * body may not return more operations than it was asked. */
	w->surplus -= (unsigned)done;
	while (done < n) {
		int rc;
		if (!w->requested) {
			rc = dpk_distributor_request_pkt(st->d, id, w->held, w->nheld);
			if (rc != 0) {
				dpk_bench_fail(run, "worker %u: request_pkt returned %d", id, rc);
				return done;
			}
			w->nheld = 0;
			w->requested = true;
		}
		rc = dpk_distributor_poll_pkt(st->d, id, w->held);
		if (rc == -EAGAIN) {
			if (dpk_bench_stopped(run))
				return done;
			dpk_pause();
			continue;
		}
		if (rc < 0) {
			dpk_bench_fail(run, "worker %u: poll_pkt returned %d", id, rc);
			return done;
		}
		w->requested = false;
		w->nheld = (unsigned)rc;
		for (int i = 0; i < rc; i++) { /* the work: read the stamp */
			uint32_t seq =
			        ((const struct dist_stamp *)dpk_packet_data(w->held[i]))->seq;
			DPK_BENCH_KEEP(seq);
		}
		done += (unsigned)rc;
	}
	if (done > n) {
		w->surplus += (unsigned)(done - n);
		done = n;
	}
	return done;
}

/* End to end: a burst of 64 out, then wait until all are back. */
static uint64_t body_dist_e2e(struct dpk_bench_run *run, unsigned role, uint64_t n)
{
	struct dist_state *st = run->state;
	uint64_t done = 0;

	if (role != 0)
		return dist_worker(run, st, role, n);
	while (done < n) {
		unsigned sent = 0;
		while (sent < DIST_FLOWS) {
			sent += dist_send(st, DIST_FLOWS - sent);
			if (!dist_collect(run, st) || dpk_bench_stopped(run))
				return done;
		}
		while (st->received < st->sent) {
			dpk_distributor_process(st->d, NULL, 0);
			if (!dist_collect(run, st) || dpk_bench_stopped(run))
				return done;
		}
		done += DIST_FLOWS;
	}
	return done;
}

/* Stream: keep process() fed; count the packets it takes. */
static uint64_t body_dist_stream(struct dpk_bench_run *run, unsigned role, uint64_t n)
{
	struct dist_state *st = run->state;
	uint64_t done = 0;

	if (role != 0)
		return dist_worker(run, st, role, n);
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
			dpk_distributor_process(st->d, NULL, 0);
			dpk_pause();
		}
	}
	return done;
}

#define DARG(m, s) (&(const struct dist_arg){.mode = (m), .stream = (s)})

#define DIST(name_, kind_, fn, m, s, what)                                                         \
	{                                                                                          \
		.name = name_, .desc = what, .kind = kind_, .unit = DPK_UNIT_PACKET,               \
		.counted_roles = 1, .role_names = {"distributor", "worker"},                       \
		.ops_multiple = (s) ? 0 : DIST_FLOWS, .setup = dist_setup, .body = fn,             \
		.teardown = dist_teardown, .arg = DARG(m, s)                                       \
	}

#define DIST4(kind_)                                                                               \
	DIST("single_e2e", kind_, body_dist_e2e, DPK_DISTRIBUTOR_SINGLE, false,                    \
	     "single mode, per packet from process() until it is back, bursts of 64"),             \
	        DIST("burst_e2e", kind_, body_dist_e2e, DPK_DISTRIBUTOR_BURST, false,              \
	             "burst mode, per packet from process() until it is back, bursts of 64"),      \
	        DIST("single_stream", kind_, body_dist_stream, DPK_DISTRIBUTOR_SINGLE, true,       \
	             "single mode, distributor side: per packet process() takes in a steady "      \
	             "stream"),                                                                    \
	        DIST("burst_stream", kind_, body_dist_stream, DPK_DISTRIBUTOR_BURST, true,         \
	             "burst mode, distributor side: per packet process() takes in a steady "       \
	             "stream")

#define CLSWITCH(suffix, fn, what)                                                                 \
	{                                                                                          \
		.name = "clswitch_" suffix, .desc = "one cache-line round trip, " what,            \
		.kind = DPK_BENCH_PAIR, .unit = DPK_UNIT_ROUND_TRIP, .counted_roles = 1,           \
		.role_names = {"ping", "pong"}, .setup = clswitch_setup, .body = fn,               \
		.teardown = clswitch_teardown                                                      \
	}

static const struct dpk_bench_case distributor_cases[] = {
        CLSWITCH("relaxed", body_cl_relaxed, "C11 relaxed"),
        CLSWITCH("acqrel", body_cl_acqrel, "C11 acquire/release"),
        CLSWITCH("seqcst", body_cl_seqcst, "C11 seq_cst"),
        CLSWITCH("sync", body_cl_sync, "legacy __sync builtins"),
        DIST4(DPK_BENCH_PAIR),
        DIST4(DPK_BENCH_ALL),
};

const struct dpk_bench_suite dpk_suite_distributor = {
        .name = "distributor",
        .desc = "cache-line switch by memory order; distributor hand-off (DPDK distributor_perf)",
        .cases = distributor_cases,
        .ncases = sizeof(distributor_cases) / sizeof(distributor_cases[0]),
        .default_on = true,
};
