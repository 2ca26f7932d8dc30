/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Packet distributor under load, in both modes: the main lcore distributes packets of
 * 1000 flows (a few of them hot) to six worker lcores on two CPUs. Each packet carries
 * its flow and its sequence number within the flow.
 *
 * Checks, while running:
 *   - no two workers hold packets of one flow at the same moment (a per-flow owner word,
 *     set on receipt and cleared before the packets are handed back, compare-and-swapped
 *     so that an overlap is seen whatever the interleaving);
 *   - each flow's packets reach workers in sequence, none skipped or repeated;
 *   - each flow's packets come back through the returns buffer in sequence.
 * Workers use get_pkt() or request/poll, leave now and then with return_pkt() and come
 * back; the distributor stops reading returns now and then until the returns buffer is
 * full and workers wait for room. At the end (flush, then the workers leave) every packet must be
 * back exactly once, and the counters must agree.
 */
#include <errno.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include <dpk/cycles.h>
#include <dpk/distributor.h>
#include <dpk/lcore.h>
#include <dpk/packet.h>

#include "dpk_test.h"
#include "dpk_test_lcore.h"

#define FLOWS      1000u
#define HOT_FLOWS  8u
#define WORKERS    8u /* ids of the distributor; the lcores use the first six */
#define MAX_UNSENT 64u
#define POOL_COUNT 4096u
#define LEAVE_ODDS 256u /* a worker leaves after one hand-off in this many */
#define READ_MS    100u /* returns are read for this long, ... */
#define HOARD_MS   400u /* ... then not until workers wait for room (at most this long) */
#define BLOCKED_MS 10u  /* ... and for this long after they do */

struct payload {
	uint32_t flow;
	uint32_t seq;
};

struct run {
	struct dpk_distributor *d;
	struct dpk_packet_pool *pp;
	uint64_t seed;
	unsigned nworkers; /* worker lcores */
	atomic_bool stop;
	atomic_uint exited;
	/* (worker + 1) << 16 | packets held, per flow; 0 when no worker holds it. */
	_Atomic uint32_t owner[FLOWS];
	/* Next sequence number a worker must receive, per flow; written by the holder. */
	uint32_t recv_next[FLOWS];
	uint64_t received[WORKERS]; /* by each worker, read after it has stopped */
	/* Distributor side. */
	uint32_t next_seq[FLOWS];
	uint32_t ret_next[FLOWS];
	uint64_t sent, back;
};

static uint32_t tag_of(uint32_t flow)
{
	return flow * UINT32_C(2654435761) ^ UINT32_C(0x5bd1e995);
}

static struct payload payload_of(const struct dpk_packet *p)
{
	struct payload pl;

	memcpy(&pl, dpk_packet_data(p), sizeof(pl));
	return pl;
}

/* Worker @p w takes @p pkts: it must be the only holder of their flows, and get them in
 * sequence. */
static void take(struct run *r, unsigned w, struct dpk_packet *const *pkts, int n)
{
	for (int i = 0; i < n; i++) {
		struct payload pl = payload_of(pkts[i]);
		uint32_t cur, want;

		if (pl.flow >= FLOWS || dpk_packet_flow_tag(pkts[i]) != tag_of(pl.flow)) {
			dpk_test_fail(__FILE__, __LINE__, "worker %u: corrupt packet", w);
			continue;
		}
		/* Relaxed: the word only detects overlaps; ordering between holders must
		 * come from the distributor, and this must not add any. */
		cur = atomic_load_explicit(&r->owner[pl.flow], memory_order_relaxed);
		do {
			if (cur != 0 && cur >> 16 != w + 1) {
				dpk_test_fail(__FILE__, __LINE__,
				              "flow %u held by workers %u and %u at once", pl.flow,
				              (cur >> 16) - 1, w);
				break;
			}
			want = cur == 0 ? (w + 1) << 16 | 1 : cur + 1;
		} while (!atomic_compare_exchange_weak_explicit(&r->owner[pl.flow], &cur, want,
		                                                memory_order_relaxed,
		                                                memory_order_relaxed));
		if (pl.seq != r->recv_next[pl.flow])
			dpk_test_fail(__FILE__, __LINE__, "flow %u: worker %u got %u, expected %u",
			              pl.flow, w, pl.seq, r->recv_next[pl.flow]);
		r->recv_next[pl.flow] = pl.seq + 1;
	}
}

/* Worker @p w is done with @p pkts: clear its hold on their flows. */
static void release(struct run *r, unsigned w, struct dpk_packet *const *pkts, int n)
{
	for (int i = 0; i < n; i++) {
		uint32_t flow = payload_of(pkts[i]).flow, cur, want;

		if (flow >= FLOWS)
			continue;
		cur = atomic_load_explicit(&r->owner[flow], memory_order_relaxed);
		do {
			if (cur >> 16 != w + 1 || (cur & 0xffff) == 0) {
				dpk_test_fail(__FILE__, __LINE__,
				              "flow %u: worker %u does not hold it", flow, w);
				break;
			}
			want = (cur & 0xffff) == 1 ? 0 : cur - 1;
		} while (!atomic_compare_exchange_weak_explicit(
		        &r->owner[flow], &cur, want, memory_order_relaxed, memory_order_relaxed));
	}
}

/* Hand back @p nold packets and get new ones: worker 0 blocks in get_pkt(), the others
 * request and poll, yielding the CPU now and then while they wait. */
static int get(struct run *r, unsigned w, struct dpk_packet **pkts, int nold)
{
	unsigned spins = 0;
	int rc;

	if (w == 0)
		return dpk_distributor_get_pkt(r->d, w, pkts, pkts, (unsigned)nold);
	while ((rc = dpk_distributor_request_pkt(r->d, w, pkts, (unsigned)nold)) == -EBUSY)
		sched_yield(); /* our last leave is not taken in yet */
	if (rc < 0)
		return rc;
	while ((rc = dpk_distributor_poll_pkt(r->d, w, pkts)) == -EAGAIN)
		if (++spins % 64 == 0)
			sched_yield();
		else
			dpk_pause();
	return rc;
}

static int worker_main(void *arg)
{
	struct run *r = arg;
	unsigned w = dpk_lcore_id() - 1;
	uint64_t rng = r->seed ^ (UINT64_C(0x9e3779b97f4a7c15) * (w + 1));
	struct dpk_packet *pkts[DPK_DISTRIBUTOR_BURST_SIZE];
	uint64_t received = 0;
	bool out = true;
	int n = 0;

	for (;;) {
		if (out) {
			/* Not taking part (at start, or after leaving): come back unless the run
			 * is over. */
			if (atomic_load_explicit(&r->stop, memory_order_relaxed))
				break;
			sched_yield();
			out = false;
		}
		n = get(r, w, pkts, n);
		if (n < 0) {
			dpk_test_fail(__FILE__, __LINE__, "worker %u: get: %d", w, n);
			break;
		}
		if (n == 0) {
			/* Only the end of a flush answers with nothing; the stop flag is set
			 * before the last ones. */
			if (atomic_load_explicit(&r->stop, memory_order_relaxed))
				break;
			continue;
		}
		received += (unsigned)n;
		take(r, w, pkts, n);
		for (uint64_t i = dpk_test_rand(&rng) % 64; i > 0; i--)
			dpk_pause();
		release(r, w, pkts, n);
		if (dpk_test_rand(&rng) % LEAVE_ODDS == 0) {
			int rc = dpk_distributor_return_pkt(r->d, w, pkts, (unsigned)n);

			if (rc != 0)
				dpk_test_fail(__FILE__, __LINE__, "worker %u: return_pkt: %d", w,
				              rc);
			out = true;
			n = 0;
		}
	}
	if (!out && dpk_distributor_return_pkt(r->d, w, NULL, 0) != 0)
		dpk_test_fail(__FILE__, __LINE__, "worker %u: final return_pkt failed", w);
	r->received[w] = received;
	atomic_fetch_add_explicit(&r->exited, 1, memory_order_relaxed);
	return 0;
}

/* Read every return: each flow's packets must come back in sequence. */
static void collect(struct run *r)
{
	struct dpk_packet *out[64];
	int n;

	while ((n = dpk_distributor_returned_pkts(r->d, out, 64)) > 0) {
		for (int i = 0; i < n; i++) {
			struct payload pl = payload_of(out[i]);

			if (pl.flow >= FLOWS) {
				dpk_test_fail(__FILE__, __LINE__, "corrupt return");
				continue;
			}
			if (pl.seq != r->ret_next[pl.flow])
				dpk_test_fail(__FILE__, __LINE__,
				              "flow %u: returned %u, expected %u", pl.flow, pl.seq,
				              r->ret_next[pl.flow]);
			r->ret_next[pl.flow] = pl.seq + 1;
			dpk_packet_free(out[i]);
		}
		r->back += (unsigned)n;
	}
	if (n < 0)
		dpk_test_fail(__FILE__, __LINE__, "returned_pkts: %d", n);
}

/* Offer the unsent packets to process(), keeping the rest in order. Returns how many
 * were taken. */
static unsigned send(struct run *r, struct dpk_packet **unsent, unsigned *nunsent)
{
	int n = dpk_distributor_process(r->d, unsent, *nunsent);

	if (n < 0) {
		dpk_test_fail(__FILE__, __LINE__, "process: %d", n);
		return 0;
	}
	memmove(unsent, unsent + n, (*nunsent - (unsigned)n) * sizeof(*unsent));
	*nunsent -= (unsigned)n;
	r->sent += (unsigned)n;
	return (unsigned)n;
}

static struct dpk_packet_pool *make_pool(void)
{
	struct dpk_packet_pool_params prm;

	dpk_packet_pool_params_init(&prm);
	prm.count = POOL_COUNT;
	prm.buf_size = 64;
	prm.headroom = 0;
	prm.cache_size = 0;
	return dpk_packet_pool_create(&prm);
}

/* Up to @p k new packets behind the unsent ones, a third of them of a few hot flows. */
static void fill(struct run *r, struct dpk_packet **unsent, unsigned *nunsent, unsigned k,
                 uint64_t *rng)
{
	while (k-- > 0 && *nunsent < MAX_UNSENT) {
		uint64_t y = dpk_test_rand(rng);
		uint32_t f =
		        y % 3 == 0 ? (uint32_t)(y >> 8) % HOT_FLOWS : (uint32_t)(y >> 8) % FLOWS;
		struct payload pl = {f, r->next_seq[f]};
		struct dpk_packet *p = dpk_packet_alloc(r->pp, sizeof(pl));

		if (p == NULL)
			break;
		r->next_seq[f]++;
		memcpy(dpk_packet_data(p), &pl, sizeof(pl));
		dpk_packet_flow_tag_set(p, tag_of(f));
		unsent[(*nunsent)++] = p;
	}
}

/* Everything out, then everything back, then the workers stopped and the lcores gone.
 * The workers come and go meanwhile, so a flush may find none to take a leaver's backlog
 * (-ENODEV): try again. */
static void drain_and_stop(struct run *r, struct dpk_packet **unsent, unsigned nunsent)
{
	int rc;

	while (nunsent > 0) {
		if (send(r, unsent, &nunsent) == 0)
			sched_yield();
		collect(r);
	}
	do {
		rc = dpk_distributor_flush(r->d);
		collect(r);
		if (rc == -ENODEV)
			sched_yield();
	} while (rc == -ENOBUFS || rc == -ENODEV);
	ASSERT_GE(rc, 0);
	ASSERT_EQ(r->sent, r->back);

	/* Stop: each flush ends with empty hand-offs, on which the workers see the flag. */
	atomic_store_explicit(&r->stop, true, memory_order_relaxed);
	while (atomic_load_explicit(&r->exited, memory_order_relaxed) < r->nworkers) {
		rc = dpk_distributor_flush(r->d);
		ASSERT_GE(rc, 0);
		collect(r);
		sched_yield();
	}
	ASSERT_EQ(0, dpk_lcore_wait_all());
	ASSERT_EQ(0, dpk_distributor_process(r->d, NULL, 0)); /* the last leaves */
	collect(r);
	ASSERT_EQ(0, dpk_lcore_fini());
}

/* The distributor's and the workers' counts against what was sent and received. */
static void check_counts(struct run *r, enum dpk_distributor_mode mode, uint64_t hoards)
{
	struct dpk_distributor_stats st;
	uint64_t handled = 0;

	ASSERT_EQ(0, dpk_distributor_stats_get(r->d, &st));
	dpk_test_note("%s: %" PRIu64 " packets, %" PRIu64 " hand-offs, returns full %" PRIu64
	              " times, %" PRIu64 " pauses of reading that filled the buffer",
	              mode == DPK_DISTRIBUTOR_BURST ? "burst" : "single", r->sent, st.handoffs,
	              st.returns_full, hoards);
	ASSERT_GT(r->sent, 0);
	ASSERT_EQ(r->sent, r->back);
	ASSERT_EQ(r->sent, st.distributed);
	ASSERT_EQ(r->sent, st.returned);
	ASSERT_EQ(0, st.in_flight);
	ASSERT_EQ(0, st.returns);
	ASSERT_EQ(0, st.active_workers);
	ASSERT_EQ(0, st.blocked_workers);
	for (unsigned f = 0; f < FLOWS; f++) {
		ASSERT_EQ(r->next_seq[f], r->ret_next[f]);
		ASSERT_EQ(r->next_seq[f], r->recv_next[f]);
		ASSERT_EQ(0, atomic_load(&r->owner[f]));
	}
	for (unsigned id = 0; id < WORKERS; id++) {
		struct dpk_distributor_worker_stats ws;

		ASSERT_EQ(0, dpk_distributor_worker_stats_get(r->d, id, &ws));
		ASSERT_EQ(r->received[id], ws.handled);
		handled += ws.handled;
	}
	ASSERT_EQ(r->sent, handled);
}

static void stress(enum dpk_distributor_mode mode)
{
	static struct run r;
	struct dpk_packet *unsent[MAX_UNSENT];
	unsigned nunsent = 0, taken;
	uint64_t rng, deadline, phase_end, blocked_at = 0, hoards = 0;
	bool hoarding = false;

	memset(&r, 0, sizeof(r));
	r.seed = dpk_test_seed() ^ (uint64_t)mode;
	rng = r.seed;
	atomic_init(&r.stop, false);
	atomic_init(&r.exited, 0);
	for (unsigned f = 0; f < FLOWS; f++)
		atomic_init(&r.owner[f], 0);
	r.pp = make_pool();
	ASSERT_NOT_NULL(r.pp);
	r.d = dpk_distributor_create(WORKERS, mode);
	ASSERT_NOT_NULL(r.d);
	dpk_test_start_lcores("(0-6)@(0-1)", "(0-6)@0"); /* 7 lcores on 2 CPUs, or on 1 */
	r.nworkers = dpk_lcore_count() - 1;
	ASSERT_LE(r.nworkers, WORKERS);
	ASSERT_EQ(0, dpk_lcore_launch_all(worker_main, &r, false));

	phase_end = dpk_test_now_ms() + READ_MS;
	deadline = dpk_test_now_ms() + dpk_test_stress_ms(1000);
	while (dpk_test_now_ms() < deadline) {
		unsigned k = 1 + (unsigned)(dpk_test_rand(&rng) % 32);
		uint64_t now = dpk_test_now_ms();

		fill(&r, unsent, &nunsent, k, &rng);
		taken = send(&r, unsent, &nunsent);
		if (hoarding && blocked_at == 0 && dpk_distributor_returns_blocked(r.d)) {
			blocked_at = now;
			hoards++;
		}
		if (now >= phase_end || (blocked_at && now >= blocked_at + BLOCKED_MS)) {
			hoarding = !hoarding;
			blocked_at = 0;
			phase_end = now + (hoarding ? HOARD_MS : READ_MS);
		}
		if (!hoarding)
			collect(&r);
		/* Nothing moved: let the workers have the CPU (there are more lcores than
		 * CPUs, and some workers spin). */
		if (taken == 0)
			sched_yield();
	}

	drain_and_stop(&r, unsent, nunsent);
	check_counts(&r, mode, hoards);
	ASSERT_EQ(0, dpk_pool_in_use_count(dpk_packet_pool_to_pool(r.pp)));
	dpk_distributor_free(r.d);
	dpk_packet_pool_free(r.pp);
}

static void stress_burst(void)
{
	stress(DPK_DISTRIBUTOR_BURST);
}

static void stress_single(void)
{
	stress(DPK_DISTRIBUTOR_SINGLE);
}

static const struct dpk_test_case cases[] = {
        DPK_TEST(stress_burst),
        DPK_TEST(stress_single),
};

DPK_TEST_MAIN(cases)
