/* SPDX-License-Identifier: BSD-3-Clause */
/* Packet distributor: flush and clear_returns, a full returns buffer, two distributors at
 * once, threaded workers on get_pkt(), and a seeded single-threaded random run checked
 * against a model. */
#include "distributor_fixture.h"

/* ---- flush, returns ---------------------------------------------------------------- */

static void flush_wakes_waiting_workers(void)
{
	struct dpk_distributor *d = make(3, DPK_DISTRIBUTOR_BURST);
	struct dpk_packet *got[8];

	ASSERT_EQ(0, dpk_distributor_flush(d)); /* nobody takes part */
	ASSERT_EQ(0, stats(d).handoffs);
	ASSERT_EQ(0, dpk_distributor_request_pkt(d, 0, NULL, 0));
	ASSERT_EQ(0, dpk_distributor_request_pkt(d, 2, NULL, 0));
	ASSERT_EQ(0, dpk_distributor_flush(d));
	ASSERT_EQ(0, dpk_distributor_poll_pkt(d, 0, got));
	ASSERT_EQ(0, dpk_distributor_poll_pkt(d, 2, got));
	ASSERT_EQ(2, stats(d).handoffs);
	ASSERT_EQ(2, stats(d).active_workers);
	/* After the empty hand-off the workers may leave. */
	ASSERT_EQ(0, dpk_distributor_return_pkt(d, 0, NULL, 0));
	ASSERT_EQ(0, dpk_distributor_return_pkt(d, 2, NULL, 0));
	ASSERT_EQ(0, dpk_distributor_process(d, NULL, 0));
	ASSERT_EQ(0, stats(d).active_workers);
	dpk_distributor_free(d);
}

static void clear_returns_drops_them(void)
{
	struct dpk_packet_pool *pp = make_pool();
	struct dpk_distributor *d = make(1, DPK_DISTRIBUTOR_BURST);
	struct dpk_packet *pkts[5], *got[8];

	ASSERT_NOT_NULL(pp);
	for (unsigned i = 0; i < 5; i++)
		pkts[i] = mk(pp, i, i);
	ASSERT_EQ(0, dpk_distributor_request_pkt(d, 0, NULL, 0));
	ASSERT_EQ(5, dpk_distributor_process(d, pkts, 5));
	ASSERT_EQ(5, dpk_distributor_poll_pkt(d, 0, got));
	ASSERT_EQ(0, dpk_distributor_request_pkt(d, 0, got, 5));
	ASSERT_EQ(0, dpk_distributor_process(d, NULL, 0));
	ASSERT_EQ(5, stats(d).returns);
	ASSERT_EQ(5, dpk_distributor_clear_returns(d));
	ASSERT_EQ(0, stats(d).returns);
	ASSERT_EQ(0, dpk_distributor_returned_pkts(d, got, 8));
	ASSERT_EQ(0, dpk_distributor_clear_returns(d));
	ASSERT_EQ(5, stats(d).returned); /* they were returned, then dropped */

	for (unsigned i = 0; i < 5; i++)
		dpk_packet_free(pkts[i]);
	dpk_distributor_free(d);
	dpk_packet_pool_free(pp);
}

/* One worker (id 0) working and the returns read, while process() sends the rest of
 * @p total from @p sent on, until nothing is in flight; returns the count read in all. */
static unsigned work_and_read_all(struct dpk_distributor *d, struct dpk_packet **pkts,
                                  unsigned sent, struct dpk_packet **back, unsigned nback,
                                  unsigned total)
{
	struct dpk_packet *got[8];
	int n;

	while (nback < total) {
		unsigned before = nback;

		n = dpk_distributor_process(d, pkts + sent, total - sent);
		ASSERT_GE(n, 0);
		sent += (unsigned)n;
		n = dpk_distributor_poll_pkt(d, 0, got);
		if (n > 0) {
			ASSERT_EQ(0, dpk_distributor_request_pkt(d, 0, got, (unsigned)n));
		} else {
			ASSERT_EQ(-EAGAIN, n);
		}
		if (sent == total && stats(d).in_flight > 0)
			ASSERT_EQ(0, dpk_distributor_process(d, NULL, 0));
		n = dpk_distributor_returned_pkts(d, back + nback, total - nback);
		ASSERT_GE(n, 0);
		nback += (unsigned)n;
		ASSERT_TRUE(nback > before || n == 0);
		if (sent == total && stats(d).in_flight == 0 && stats(d).returns == 0)
			break;
	}
	return nback;
}

/*
 * Fill the returns buffer without reading it: the worker's next returns wait in its line
 * (reported, flush refuses with -ENOBUFS), and once the buffer is read every packet comes
 * back exactly once, in order.
 */
static void full_returns_wait_and_nothing_is_lost(void)
{
	const unsigned total = DPK_DISTRIBUTOR_RETURNS + 64;
	struct dpk_packet_pool *pp = make_pool();
	struct dpk_distributor *d = make(1, DPK_DISTRIBUTOR_BURST);
	struct dpk_packet **pkts = calloc(total, sizeof(*pkts));
	struct dpk_packet **back = calloc(total, sizeof(*back));
	struct dpk_packet *got[8];
	struct dpk_distributor_stats st;
	unsigned sent = 0, nback = 0;
	int n;

	ASSERT_NOT_NULL(pp);
	ASSERT_NOT_NULL(pkts);
	ASSERT_NOT_NULL(back);
	for (unsigned i = 0; i < total; i++)
		pkts[i] = mk(pp, i % 5, i);
	ASSERT_EQ(0, dpk_distributor_request_pkt(d, 0, NULL, 0));

	/* Feed and work without reading returns until the worker stops getting answers. */
	for (;;) {
		n = dpk_distributor_process(d, pkts + sent, total - sent);
		ASSERT_GE(n, 0);
		sent += (unsigned)n;
		n = dpk_distributor_poll_pkt(d, 0, got);
		if (n == -EAGAIN)
			break;
		ASSERT_GT(n, 0);
		ASSERT_EQ(0, dpk_distributor_request_pkt(d, 0, got, (unsigned)n));
	}
	st = stats(d);
	ASSERT_EQ(DPK_DISTRIBUTOR_RETURNS, st.returns);
	ASSERT_EQ(DPK_DISTRIBUTOR_RETURNS, st.returned);
	ASSERT_EQ(1, st.returns_full);
	ASSERT_EQ(1, st.blocked_workers);
	ASSERT_TRUE(dpk_distributor_returns_blocked(d));
	/* The waiting request's hand-off (8) and a full backlog (8) are in flight. */
	ASSERT_EQ(16, st.in_flight);
	ASSERT_EQ(DPK_DISTRIBUTOR_RETURNS + 16, sent);
	ASSERT_EQ(0, dpk_distributor_process(d, pkts + sent, total - sent));
	ASSERT_EQ(-ENOBUFS, dpk_distributor_flush(d));
	ASSERT_EQ(1, stats(d).returns_full); /* counted once per waiting request */
	ASSERT_EQ(-EAGAIN, dpk_distributor_poll_pkt(d, 0, got));

	/* Read a little: the waiting returns go in, and the worker is answered. */
	n = dpk_distributor_returned_pkts(d, back, 8);
	ASSERT_EQ(8, n);
	nback += 8;
	ASSERT_TRUE(dpk_distributor_returns_blocked(d)); /* until process() looks again */
	ASSERT_EQ(0, dpk_distributor_process(d, NULL, 0));
	ASSERT_FALSE(dpk_distributor_returns_blocked(d));
	ASSERT_EQ(0, stats(d).blocked_workers);
	ASSERT_EQ(DPK_DISTRIBUTOR_RETURNS, stats(d).returns);

	/* Now read everything while the rest goes through. */
	nback = work_and_read_all(d, pkts, sent, back, nback, total);
	ASSERT_EQ(total, nback);
	ASSERT_IDS(back, total, 0);
	st = stats(d);
	ASSERT_EQ(total, st.distributed);
	ASSERT_EQ(total, st.returned);
	ASSERT_EQ(1, st.returns_full);
	ASSERT_EQ(0, st.in_flight);
	ASSERT_EQ(0, dpk_distributor_flush(d));

	for (unsigned i = 0; i < total; i++)
		dpk_packet_free(pkts[i]);
	ASSERT_EQ(0, in_use(pp));
	free(pkts);
	free(back);
	dpk_distributor_free(d);
	dpk_packet_pool_free(pp);
}

/* ---- two distributors ---------------------------------------------------------------- */

#define SCRIPT_ROUNDS 40
#define SCRIPT_BATCH  6

/* A scripted run, one round per call, recording which worker got each packet. */
struct script {
	struct dpk_distributor *d;
	struct dpk_packet_pool *pp;
	uint32_t base; /* ids of this run start here */
	uint32_t next; /* next id, relative to base */
	struct dpk_packet *unsent[2 * SCRIPT_ROUNDS * SCRIPT_BATCH];
	unsigned nunsent;
	struct dpk_packet *held[2][8];
	int nheld[2];
	uint8_t who[2 * SCRIPT_ROUNDS * SCRIPT_BATCH]; /* worker + 1 per id */
};

static void script_round(struct script *s, unsigned round)
{
	struct dpk_packet *out[16];
	int n;

	for (unsigned i = 0; i < SCRIPT_BATCH; i++) {
		uint32_t id = s->next++;

		s->unsent[s->nunsent++] = mk(s->pp, (id * 7 + round) % 29, s->base + id);
	}
	n = dpk_distributor_process(s->d, s->unsent, s->nunsent);
	EXPECT_GE(n, 0);
	if (n > 0) {
		memmove(s->unsent, s->unsent + n, (s->nunsent - (unsigned)n) * sizeof(*s->unsent));
		s->nunsent -= (unsigned)n;
	}
	for (unsigned w = 0; w < 2; w++) {
		if (s->nheld[w] >= 0 && (round + w) % 3 != 0) {
			EXPECT_EQ(0, dpk_distributor_request_pkt(s->d, w, s->held[w],
			                                         (unsigned)s->nheld[w]));
			s->nheld[w] = -1;
		}
		if (s->nheld[w] < 0) {
			n = dpk_distributor_poll_pkt(s->d, w, s->held[w]);
			if (n >= 0) {
				s->nheld[w] = n;
				for (int i = 0; i < n; i++) {
					uint32_t id = id_of(s->held[w][i]);

					if (id < s->base || id >= s->base + s->next) {
						dpk_test_fail(__FILE__, __LINE__,
						              "id %u is not of this distributor",
						              id);
						continue;
					}
					s->who[id - s->base] = (uint8_t)(w + 1);
				}
			}
		}
	}
	while ((n = dpk_distributor_returned_pkts(s->d, out, 16)) > 0)
		for (int i = 0; i < n; i++) {
			uint32_t id = id_of(out[i]);

			EXPECT_TRUE(id >= s->base && id < s->base + s->next);
			dpk_packet_free(out[i]);
		}
}

static void script_start(struct script *s, struct dpk_packet_pool *pp, uint32_t base)
{
	memset(s, 0, sizeof(*s));
	s->d = make(2, DPK_DISTRIBUTOR_BURST);
	s->pp = pp;
	s->base = base;
	s->nheld[0] = s->nheld[1] = 0;
}

/* Send the rest and work until every packet is back (and freed). */
static void script_end(struct script *s)
{
	struct dpk_packet *out[16];
	unsigned guard = 0;
	int n;

	while (s->nunsent > 0 || stats(s->d).in_flight > 0) {
		if (++guard > 100000) {
			dpk_test_fail(__FILE__, __LINE__, "script does not drain");
			break;
		}
		n = dpk_distributor_process(s->d, s->unsent, s->nunsent);
		if (n > 0) {
			memmove(s->unsent, s->unsent + n,
			        (s->nunsent - (unsigned)n) * sizeof(*s->unsent));
			s->nunsent -= (unsigned)n;
		}
		for (unsigned w = 0; w < 2; w++) {
			if (s->nheld[w] >= 0) {
				EXPECT_EQ(0, dpk_distributor_request_pkt(s->d, w, s->held[w],
				                                         (unsigned)s->nheld[w]));
				s->nheld[w] = -1;
			} else {
				s->nheld[w] = dpk_distributor_poll_pkt(s->d, w, s->held[w]);
				if (s->nheld[w] == -EAGAIN)
					s->nheld[w] = -1;
			}
		}
		while ((n = dpk_distributor_returned_pkts(s->d, out, 16)) > 0)
			for (int i = 0; i < n; i++)
				dpk_packet_free(out[i]);
	}
	EXPECT_EQ(s->next, stats(s->d).returned);
	dpk_distributor_free(s->d);
}

/* Two distributors driven in turns make exactly the choices one makes alone: no state
 * (such as a round-robin cursor) is shared, and no packet crosses over. */
static void two_distributors_do_not_interfere(void)
{
	struct dpk_packet_pool *pp = make_pool();
	static struct script alone, one, two;

	ASSERT_NOT_NULL(pp);
	script_start(&alone, pp, 0);
	for (unsigned r = 0; r < SCRIPT_ROUNDS; r++)
		script_round(&alone, r);
	script_start(&one, pp, 0);
	script_start(&two, pp, 100000);
	for (unsigned r = 0; r < SCRIPT_ROUNDS; r++) {
		script_round(&one, r);
		script_round(&two, r);
		script_round(&two, r); /* the other one moves on in between */
	}
	for (unsigned i = 0; i < SCRIPT_ROUNDS * SCRIPT_BATCH; i++)
		ASSERT_EQ(alone.who[i], one.who[i]);
	ASSERT_GT(stats(one.d).distributed, 0);
	ASSERT_GT(wstats(one.d, 0).handled, 0);
	ASSERT_GT(wstats(one.d, 1).handled, 0);
	script_end(&alone);
	script_end(&one);
	script_end(&two);
	ASSERT_EQ(0, in_use(pp));
	dpk_packet_pool_free(pp);
}

/* ---- threads ------------------------------------------------------------------------- */

#define T_DISTS   2
#define T_WORKERS 2
#define T_PACKETS 1200u
#define T_FLOWS   13u

struct tworker {
	struct dpk_distributor *d;
	unsigned w;
	uint32_t dist_id;
	atomic_bool *stop;
	unsigned received;
};

/* Ask for packets: worker 0 blocks in get_pkt(), the others request and poll, yielding
 * the CPU while they wait (the test runs more threads than there are CPUs). */
static int tworker_get(struct tworker *t, struct dpk_packet **pkts, unsigned nold)
{
	int n;

	if (t->w == 0)
		return dpk_distributor_get_pkt(t->d, t->w, pkts, pkts, nold);
	n = dpk_distributor_request_pkt(t->d, t->w, pkts, nold);
	if (n < 0)
		return n;
	while ((n = dpk_distributor_poll_pkt(t->d, t->w, pkts)) == -EAGAIN)
		sched_yield();
	return n;
}

static void *tworker_main(void *arg)
{
	struct tworker *t = arg;
	struct dpk_packet *pkts[8];
	int n = 0;

	for (;;) {
		n = tworker_get(t, pkts, (unsigned)n);
		EXPECT_GE(n, 0);
		if (n < 0)
			break;
		for (int i = 0; i < n; i++)
			EXPECT_EQ(t->dist_id, id_of(pkts[i]) >> 24);
		t->received += (unsigned)n;
		/* The stop flag is set before the flush that ends in empty hand-offs. */
		if (n == 0 && atomic_load_explicit(t->stop, memory_order_relaxed))
			break;
	}
	EXPECT_EQ(0, dpk_distributor_return_pkt(t->d, t->w, NULL, 0));
	return NULL;
}

/* Per distributor: packets sent and what came back. */
struct tdist {
	struct dpk_distributor *d;
	struct dpk_packet **pkts;
	unsigned sent, back;
	uint32_t last[T_FLOWS]; /* last id returned per flow, + 1 */
};

static void tdist_collect(struct tdist *t, uint32_t dist_id)
{
	struct dpk_packet *out[64];
	int n;

	while ((n = dpk_distributor_returned_pkts(t->d, out, 64)) > 0) {
		for (int i = 0; i < n; i++) {
			uint32_t id = id_of(out[i]);
			uint32_t flow = dpk_packet_flow_tag(out[i]);

			EXPECT_EQ(dist_id, id >> 24);
			if (flow >= T_FLOWS) {
				EXPECT_LT(flow, T_FLOWS);
				continue;
			}
			EXPECT_GT(id + 1, t->last[flow]); /* per-flow order, no duplicate */
			t->last[flow] = id + 1;
			dpk_packet_free(out[i]);
		}
		t->back += (unsigned)n;
	}
}

/*
 * Two distributors at once, each with two worker threads blocking in get_pkt(), driven by
 * this thread in turns; then flush, stop and leave. Every packet comes back once, to its
 * own distributor, in per-flow order.
 */
static void threads_two_distributors_get_pkt_and_flush(void)
{
	struct dpk_packet_pool *pp = make_pool();
	static struct tdist td[T_DISTS];
	static struct tworker tw[T_DISTS][T_WORKERS];
	pthread_t th[T_DISTS][T_WORKERS];
	atomic_bool stop;
	bool more = true;

	ASSERT_NOT_NULL(pp);
	atomic_init(&stop, false);
	memset(td, 0, sizeof(td));
	for (unsigned k = 0; k < T_DISTS; k++) {
		td[k].d = make(T_WORKERS, k == 0 ? DPK_DISTRIBUTOR_BURST : DPK_DISTRIBUTOR_SINGLE);
		td[k].pkts = calloc(T_PACKETS, sizeof(struct dpk_packet *));
		ASSERT_NOT_NULL(td[k].pkts);
		for (unsigned w = 0; w < T_WORKERS; w++) {
			tw[k][w] = (struct tworker){td[k].d, w, k + 1, &stop, 0};
			ASSERT_EQ(0, pthread_create(&th[k][w], NULL, tworker_main, &tw[k][w]));
		}
	}
	/* Packets are made as they are sent, so the pool never runs dry. */
	while (more) {
		more = false;
		for (unsigned k = 0; k < T_DISTS; k++) {
			struct tdist *t = &td[k];
			unsigned upto = t->sent + 16 < T_PACKETS ? t->sent + 16 : T_PACKETS;
			int n;

			for (unsigned i = t->sent; i < upto; i++)
				if (t->pkts[i] == NULL)
					t->pkts[i] = mk(pp, i % T_FLOWS, (k + 1) << 24 | i);
			n = dpk_distributor_process(t->d, t->pkts + t->sent, upto - t->sent);
			ASSERT_GE(n, 0);
			t->sent += (unsigned)n;
			tdist_collect(t, k + 1);
			more |= t->sent < T_PACKETS;
		}
	}
	atomic_store_explicit(&stop, true, memory_order_relaxed);
	for (unsigned k = 0; k < T_DISTS; k++) {
		int rc;

		do {
			rc = dpk_distributor_flush(td[k].d);
			tdist_collect(&td[k], k + 1);
		} while (rc == -ENOBUFS);
		ASSERT_GE(rc, 0);
	}
	for (unsigned k = 0; k < T_DISTS; k++) {
		/* Take the workers' leaves in; a worker that joined late gets another flush. */
		while (stats(td[k].d).active_workers > 0) {
			ASSERT_GE(dpk_distributor_flush(td[k].d), 0);
			tdist_collect(&td[k], k + 1);
		}
		for (unsigned w = 0; w < T_WORKERS; w++)
			pthread_join(th[k][w], NULL);
		ASSERT_EQ(0, dpk_distributor_process(td[k].d, NULL, 0));
		tdist_collect(&td[k], k + 1);
		ASSERT_EQ(T_PACKETS, td[k].back);
		ASSERT_EQ(T_PACKETS, tw[k][0].received + tw[k][1].received);
		ASSERT_EQ(T_PACKETS, stats(td[k].d).returned);
		ASSERT_EQ(0, stats(td[k].d).in_flight);
		free(td[k].pkts);
		dpk_distributor_free(td[k].d);
	}
	ASSERT_EQ(0, in_use(pp));
	dpk_packet_pool_free(pp);
}

/* ---- a random run against a model ---------------------------------------------------- */

#define M_WORKERS 5u
#define M_FLOWS   40u
#define M_STEPS   48000u
#define M_PHASE   8000u /* steps reading returns, then as many not reading them */
#define M_MAXPKT  30000u

struct model {
	struct dpk_distributor *d;
	struct dpk_packet_pool *pp;
	uint64_t rng;
	uint32_t next_seq[M_FLOWS];  /* per flow: next sequence number to send */
	uint32_t next_ret[M_FLOWS];  /* per flow: next sequence number to come back */
	uint32_t last_recv[M_FLOWS]; /* per flow: last sequence a worker got, + 1 */
	unsigned owner[M_FLOWS];     /* worker holding the flow, or NONE */
	unsigned owner_count[M_FLOWS];
	struct dpk_packet *unsent[64];
	unsigned nunsent;
	enum { M_OUT, M_REQ, M_HOLD } st[M_WORKERS];
	struct dpk_packet *held[M_WORKERS][8];
	unsigned nheld[M_WORKERS];
	unsigned made, back;
};

static uint32_t seq_of(const struct dpk_packet *p)
{
	return id_of(p);
}

static void model_hold(struct model *m, unsigned w, int n)
{
	m->st[w] = M_HOLD;
	m->nheld[w] = (unsigned)n;
	for (int i = 0; i < n; i++) {
		uint32_t f = dpk_packet_flow_tag(m->held[w][i]);
		uint32_t s = seq_of(m->held[w][i]);

		if (m->owner[f] != NONE && m->owner[f] != w)
			dpk_test_fail(__FILE__, __LINE__, "flow %u on workers %u and %u", f,
			              m->owner[f], w);
		m->owner[f] = w;
		m->owner_count[f]++;
		if (s + 1 <= m->last_recv[f])
			dpk_test_fail(__FILE__, __LINE__, "flow %u: got %u after %u", f, s,
			              m->last_recv[f] - 1);
		m->last_recv[f] = s + 1;
	}
}

static void model_release(struct model *m, unsigned w)
{
	for (unsigned i = 0; i < m->nheld[w]; i++) {
		uint32_t f = dpk_packet_flow_tag(m->held[w][i]);

		if (--m->owner_count[f] == 0)
			m->owner[f] = NONE;
	}
}

static void model_collect(struct model *m)
{
	struct dpk_packet *out[32];
	int n;

	while ((n = dpk_distributor_returned_pkts(m->d, out, 32)) > 0) {
		for (int i = 0; i < n; i++) {
			uint32_t f = dpk_packet_flow_tag(out[i]);
			uint32_t s = seq_of(out[i]);

			if (s != m->next_ret[f])
				dpk_test_fail(__FILE__, __LINE__,
				              "flow %u: returned %u, expected %u", f, s,
				              m->next_ret[f]);
			m->next_ret[f] = s + 1;
			dpk_packet_free(out[i]);
		}
		m->back += (unsigned)n;
	}
}

static void model_send(struct model *m, unsigned k)
{
	int n;

	while (k-- > 0 && m->nunsent < 64 && m->made < M_MAXPKT) {
		uint64_t x = dpk_test_rand(&m->rng);
		/* Skewed: a quarter of the packets are of flow 0 or 1. */
		uint32_t f = (x & 3) == 0 ? (uint32_t)(x >> 8) % 2 : (uint32_t)(x >> 8) % M_FLOWS;

		m->unsent[m->nunsent++] = mk(m->pp, f, m->next_seq[f]++);
		m->made++;
	}
	n = dpk_distributor_process(m->d, m->unsent, m->nunsent);
	if (n < 0) {
		EXPECT_GE(n, 0);
		return;
	}
	memmove(m->unsent, m->unsent + n, (m->nunsent - (unsigned)n) * sizeof(*m->unsent));
	m->nunsent -= (unsigned)n;
}

static void model_worker_step(struct model *m, unsigned w, uint64_t x)
{
	int n;

	switch (m->st[w]) {
	case M_OUT:
		if (x % 4 == 0 && dpk_distributor_request_pkt(m->d, w, NULL, 0) == 0)
			m->st[w] = M_REQ;
		break;
	case M_REQ:
		n = dpk_distributor_poll_pkt(m->d, w, m->held[w]);
		if (n >= 0)
			model_hold(m, w, n);
		else
			EXPECT_EQ(-EAGAIN, n);
		break;
	case M_HOLD:
		model_release(m, w);
		if (x % 16 == 0) {
			EXPECT_EQ(0, dpk_distributor_return_pkt(m->d, w, m->held[w], m->nheld[w]));
			m->st[w] = M_OUT;
		} else {
			EXPECT_EQ(0, dpk_distributor_request_pkt(m->d, w, m->held[w], m->nheld[w]));
			m->st[w] = M_REQ;
		}
		m->nheld[w] = 0;
		break;
	}
}

/* Drain: every worker takes part and hands back what it holds. */
static void model_drain_step(struct model *m, unsigned w)
{
	int n;

	switch (m->st[w]) {
	case M_OUT:
		if (dpk_distributor_request_pkt(m->d, w, NULL, 0) == 0)
			m->st[w] = M_REQ;
		break;
	case M_REQ:
		n = dpk_distributor_poll_pkt(m->d, w, m->held[w]);
		if (n >= 0)
			model_hold(m, w, n);
		break;
	case M_HOLD:
		model_release(m, w);
		EXPECT_EQ(0, dpk_distributor_request_pkt(m->d, w, m->held[w], m->nheld[w]));
		m->st[w] = M_REQ;
		m->nheld[w] = 0;
		break;
	}
}

static void model_run(enum dpk_distributor_mode mode)
{
	static struct model m;
	unsigned guard = 0;

	memset(&m, 0, sizeof(m));
	m.pp = make_pool();
	ASSERT_NOT_NULL(m.pp);
	m.d = make(M_WORKERS, mode);
	m.rng = dpk_test_seed() ^ (uint64_t)mode;
	for (unsigned f = 0; f < M_FLOWS; f++)
		m.owner[f] = NONE;
	for (unsigned step = 0; step < M_STEPS; step++) {
		uint64_t x = dpk_test_rand(&m.rng);

		switch (x % 8) {
		case 0:
		case 1:
			model_send(&m, (unsigned)(x >> 8) % 13);
			break;
		case 2:
			/* Returns are read now and then in one phase, never in the next, so
			 * the buffer fills up and workers wait for room. */
			if ((step / M_PHASE) % 2 == 0 && (x >> 8) % 8 == 0)
				model_collect(&m);
			break;
		default:
			model_worker_step(&m, (unsigned)(x >> 8) % M_WORKERS, x >> 16);
			break;
		}
	}
	/* Drain: every worker joins and works until everything is back. */
	while (m.back < m.made) {
		ASSERT_LT(guard++, 1000000u);
		model_send(&m, 0);
		for (unsigned w = 0; w < M_WORKERS; w++)
			model_drain_step(&m, w);
		model_collect(&m);
	}
	ASSERT_EQ(0, m.nunsent);
	ASSERT_EQ(0, stats(m.d).in_flight);
	ASSERT_EQ(m.made, stats(m.d).distributed);
	ASSERT_EQ(m.made, stats(m.d).returned);
	for (unsigned f = 0; f < M_FLOWS; f++)
		ASSERT_EQ(m.next_seq[f], m.next_ret[f]);
	ASSERT_EQ(0, in_use(m.pp));
	ASSERT_GT(stats(m.d).returns_full, 0);
	dpk_test_note("%s: %u packets, %" PRIu64 " hand-offs, returns full %" PRIu64 " times",
	              mode == DPK_DISTRIBUTOR_BURST ? "burst" : "single", m.made,
	              stats(m.d).handoffs, stats(m.d).returns_full);
	dpk_distributor_free(m.d);
	dpk_packet_pool_free(m.pp);
}

static void model_burst(void)
{
	model_run(DPK_DISTRIBUTOR_BURST);
}

static void model_single(void)
{
	model_run(DPK_DISTRIBUTOR_SINGLE);
}

static const struct dpk_test_case cases[] = {
        DPK_TEST(flush_wakes_waiting_workers),
        DPK_TEST(clear_returns_drops_them),
        DPK_TEST(full_returns_wait_and_nothing_is_lost),
        DPK_TEST(two_distributors_do_not_interfere),
        DPK_TEST(threads_two_distributors_get_pkt_and_flush),
        DPK_TEST(model_burst),
        DPK_TEST(model_single),
};

DPK_TEST_MAIN(cases)
