/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The ring under concurrent producers and consumers: order, loss and duplication.
 *
 * Each element carries (producer id, sequence). Producers mix bulk, burst and single calls
 * of random sizes until the time budget is spent. Each consumer checks that, per producer,
 * the sequences it sees increase (with one producer and one consumer: that they are
 * exactly 0, 1, 2, ...), and records them in its own bitmap; at the end the bitmaps must
 * cover every sequence each producer enqueued exactly once and nothing else. 16-byte
 * elements also carry a check word, so a torn or mixed copy is caught.
 *
 * Every sync mode runs, and the peek and zero-copy calls on ST and HTS sides, with a
 * random part of each reservation committed; an ST side also mixes copying, peek and
 * zero-copy calls, which share its cached copy of the other side's tail. Placements have up
 * to 8 threads on whatever CPUs there are; more threads than CPUs is intended, as it is
 * what RTS is for and what preempts a thread between its reservation and its finish. An
 * SP/SC pair gets that from spinning threads beside it. The indices start just below
 * 2^32 so they wrap during the run.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <dpk/ring.h>

#include "dpk_test.h"
#include "ring_test_hooks.h"

#define MAX_SIDE     4          /* threads per side */
#define SEQ_CAP      (1u << 21) /* sequences per producer at most; bounds the bitmaps */
#define BITMAP_WORDS (SEQ_CAP / 64)
#define MAX_BURST    32u
#define ESIZE_MAX    16u
#define MAX_HOGS     2u /* spinning threads beside the ring's */

/* sp/sc, mp/mc, rts, hts, the ring's default, its default's peek or zero-copy calls, or
 * (ST sides) sp/sc, peek and zero-copy calls in random turn */
enum side_mode { MODE_ST, MODE_MT, MODE_RTS, MODE_HTS, MODE_DEFAULT, MODE_PEEK, MODE_ZC, MODE_MIX };
enum call_kind { CALL_BULK, CALL_BURST, CALL_ONE };

typedef unsigned (*enq_many)(struct dpk_ring *, const void *, unsigned, unsigned *);
typedef unsigned (*deq_many)(struct dpk_ring *, void *, unsigned, unsigned *);

/* The one-step calls of each mode: bulk, burst, single. */
static const struct {
	enq_many bulk, burst;
	int (*one)(struct dpk_ring *, const void *);
} enq_calls[] = {
        [MODE_ST] = {dpk_ring_sp_enqueue_bulk, dpk_ring_sp_enqueue_burst, dpk_ring_sp_enqueue},
        [MODE_MT] = {dpk_ring_mp_enqueue_bulk, dpk_ring_mp_enqueue_burst, dpk_ring_mp_enqueue},
        [MODE_RTS] = {dpk_ring_mp_rts_enqueue_bulk, dpk_ring_mp_rts_enqueue_burst,
                      dpk_ring_mp_rts_enqueue},
        [MODE_HTS] = {dpk_ring_mp_hts_enqueue_bulk, dpk_ring_mp_hts_enqueue_burst,
                      dpk_ring_mp_hts_enqueue},
        [MODE_DEFAULT] = {dpk_ring_enqueue_bulk, dpk_ring_enqueue_burst, dpk_ring_enqueue},
};

static const struct {
	deq_many bulk, burst;
	int (*one)(struct dpk_ring *, void *);
} deq_calls[] = {
        [MODE_ST] = {dpk_ring_sc_dequeue_bulk, dpk_ring_sc_dequeue_burst, dpk_ring_sc_dequeue},
        [MODE_MT] = {dpk_ring_mc_dequeue_bulk, dpk_ring_mc_dequeue_burst, dpk_ring_mc_dequeue},
        [MODE_RTS] = {dpk_ring_mc_rts_dequeue_bulk, dpk_ring_mc_rts_dequeue_burst,
                      dpk_ring_mc_rts_dequeue},
        [MODE_HTS] = {dpk_ring_mc_hts_dequeue_bulk, dpk_ring_mc_hts_dequeue_burst,
                      dpk_ring_mc_hts_dequeue},
        [MODE_DEFAULT] = {dpk_ring_dequeue_bulk, dpk_ring_dequeue_burst, dpk_ring_dequeue},
};

struct config {
	unsigned producers, consumers;
	unsigned esize, count, flags;
	enum side_mode prod_mode, cons_mode;
	bool set_htd; /* RTS sides: set htd_max to the value below, not capacity / 8 */
	unsigned htd_max;
	unsigned hogs; /* threads that spin beside the ring's, up to MAX_HOGS */
};

struct run {
	const struct config *cfg;
	struct dpk_ring *r;
	uint64_t seed;
	pthread_barrier_t start;
	atomic_bool stop;                   /* set by the main thread when the budget is spent */
	atomic_uint producers_left;         /* producers still enqueueing */
	uint32_t produced[MAX_SIDE];        /* per producer, written before it leaves */
	uint64_t *seen[MAX_SIDE][MAX_SIDE]; /* [consumer][producer] bitmap of sequences */
	uint64_t received[MAX_SIDE];        /* per consumer */
	atomic_uint errors;
};

struct worker {
	struct run *run;
	unsigned id;
};

static uint64_t check_word(uint64_t tag)
{
	tag ^= tag >> 33;
	tag *= 0xff51afd7ed558ccdu;
	tag ^= tag >> 33;
	return tag;
}

static void encode(unsigned char *e, unsigned esize, unsigned pid, uint32_t seq)
{
	uint64_t tag = (uint64_t)pid << 56 | seq;

	memcpy(e, &tag, 8);
	if (esize == 16) {
		uint64_t c = check_word(tag);
		memcpy(e + 8, &c, 8);
	}
}

/* Report a broken invariant once per run with its details, count every one. */
static void broken(struct run *run, const char *what, unsigned who, uint64_t a, uint64_t b)
{
	if (atomic_fetch_add_explicit(&run->errors, 1, memory_order_relaxed) < 5)
		dpk_test_note("%s (thread %u: %" PRIu64 ", %" PRIu64 ")", what, who, a, b);
}

static void backoff(unsigned *idle)
{
	if ((++*idle & 15) == 0)
		sched_yield();
	else
		dpk_pause();
}

static enum call_kind pick_kind(uint64_t *rng)
{
	return (enum call_kind)(dpk_test_rand(rng) % 3);
}

static unsigned pick_n(uint64_t *rng, enum call_kind kind, unsigned cap)
{
	unsigned most = cap < MAX_BURST ? cap : MAX_BURST;

	return kind == CALL_ONE ? 1 : 1 + (unsigned)(dpk_test_rand(rng) % most);
}

/* Copy @p n elements between @p buf and the spans of @p zcd (into them when @p in). */
static void zc_copy(const struct dpk_ring_zc_data *zcd, unsigned char *buf, unsigned n,
                    unsigned esize, bool in)
{
	const unsigned n1 = n < zcd->n1 ? n : zcd->n1;

	if (in) {
		memcpy(zcd->ptr1, buf, (size_t)n1 * esize);
		if (n > n1)
			memcpy(zcd->ptr2, buf + (size_t)n1 * esize, (size_t)(n - n1) * esize);
		return;
	}
	memcpy(buf, zcd->ptr1, (size_t)n1 * esize);
	if (n > n1)
		memcpy(buf + (size_t)n1 * esize, zcd->ptr2, (size_t)(n - n1) * esize);
}

/* The mode of one call: @p mode, or for MODE_MIX one of the ST side's three at random
 * (zero copy with no @p rng, as a two-step call then commits all it reserved). */
static enum side_mode pick_mode(enum side_mode mode, uint64_t *rng)
{
	static const enum side_mode mix[] = {MODE_ST, MODE_PEEK, MODE_ZC};

	if (mode != MODE_MIX)
		return mode;
	return rng ? mix[dpk_test_rand(rng) % 3] : MODE_ZC;
}

/* A random part of @p got to commit, all of it half the time, and always with no @p rng. */
static unsigned pick_part(uint64_t *rng, unsigned got)
{
	if (got == 0 || !rng || dpk_test_rand(rng) % 2)
		return got;
	return (unsigned)(dpk_test_rand(rng) % (got + 1));
}

/* A peek or zero-copy enqueue of the first of @p n elements of @p buf: start, commit a
 * random part. Returns the count committed. */
static unsigned enqueue_two_step(struct run *run, enum call_kind kind, bool zc, unsigned char *buf,
                                 unsigned n, unsigned *fs, unsigned pid, uint64_t *rng)
{
	struct dpk_ring *r = run->r;
	const bool bulk = kind != CALL_BURST;
	struct dpk_ring_zc_data zcd = {0};
	unsigned got, keep;
	int rc;

	if (zc)
		got = bulk ? dpk_ring_enqueue_zc_bulk_start(r, n, &zcd, fs)
		           : dpk_ring_enqueue_zc_burst_start(r, n, &zcd, fs);
	else
		got = bulk ? dpk_ring_enqueue_bulk_start(r, n, fs)
		           : dpk_ring_enqueue_burst_start(r, n, fs);
	if (got > n || (bulk && got != 0 && got != n))
		broken(run, "enqueue start reserved a bad count", pid, got, n);
	if (got == 0)
		return 0;
	keep = pick_part(rng, got);
	if (zc) {
		if (zcd.n1 + zcd.n2 != got)
			broken(run, "zero-copy spans do not add up", pid, zcd.n1 + zcd.n2, got);
		zc_copy(&zcd, buf, keep, run->cfg->esize, true);
		rc = dpk_ring_enqueue_zc_finish(r, keep);
	} else {
		rc = dpk_ring_enqueue_finish(r, buf, keep);
	}
	if (rc != 0)
		broken(run, "enqueue finish failed", pid, (uint64_t)-rc, keep);
	return keep;
}

static unsigned enqueue(struct run *run, enum call_kind kind, unsigned char *buf, unsigned n,
                        unsigned *fs, unsigned pid, uint64_t *rng)
{
	const enum side_mode mode = pick_mode(run->cfg->prod_mode, rng);
	unsigned got;
	int rc;

	if (mode == MODE_PEEK || mode == MODE_ZC)
		return enqueue_two_step(run, kind, mode == MODE_ZC, buf, n, fs, pid, rng);
	switch (kind) {
	case CALL_BULK:
		got = enq_calls[mode].bulk(run->r, buf, n, fs);
		if (got != 0 && got != n)
			broken(run, "bulk enqueue moved part", pid, got, n);
		return got;
	case CALL_BURST:
		got = enq_calls[mode].burst(run->r, buf, n, fs);
		if (got > n)
			broken(run, "burst enqueue moved too many", pid, got, n);
		return got;
	default:
		rc = enq_calls[mode].one(run->r, buf);
		if (rc != 0 && rc != -ENOBUFS)
			broken(run, "single enqueue returned a bad code", pid, (uint64_t)-rc, 0);
		return rc == 0;
	}
}

/* A peek or zero-copy dequeue: start, take a random part. Returns the count taken, which
 * is then in @p buf. */
static unsigned dequeue_two_step(struct run *run, enum call_kind kind, bool zc, unsigned char *buf,
                                 unsigned n, unsigned *av, unsigned cid, uint64_t *rng)
{
	struct dpk_ring *r = run->r;
	const bool bulk = kind != CALL_BURST;
	struct dpk_ring_zc_data zcd = {0};
	unsigned got, take;
	int rc;

	if (zc)
		got = bulk ? dpk_ring_dequeue_zc_bulk_start(r, n, &zcd, av)
		           : dpk_ring_dequeue_zc_burst_start(r, n, &zcd, av);
	else
		got = bulk ? dpk_ring_dequeue_bulk_start(r, buf, n, av)
		           : dpk_ring_dequeue_burst_start(r, buf, n, av);
	if (got > n || (bulk && got != 0 && got != n))
		broken(run, "dequeue start gave a bad count", cid, got, n);
	if (got == 0)
		return 0;
	take = pick_part(rng, got);
	if (zc) {
		zc_copy(&zcd, buf, take, run->cfg->esize, false);
		rc = dpk_ring_dequeue_zc_finish(r, take);
	} else {
		rc = dpk_ring_dequeue_finish(r, take);
	}
	if (rc != 0)
		broken(run, "dequeue finish failed", cid, (uint64_t)-rc, take);
	return take;
}

static unsigned dequeue(struct run *run, enum call_kind kind, unsigned char *buf, unsigned n,
                        unsigned *av, unsigned cid, uint64_t *rng)
{
	const enum side_mode mode = pick_mode(run->cfg->cons_mode, rng);
	unsigned got;
	int rc;

	if (mode == MODE_PEEK || mode == MODE_ZC)
		return dequeue_two_step(run, kind, mode == MODE_ZC, buf, n, av, cid, rng);
	switch (kind) {
	case CALL_BULK:
		got = deq_calls[mode].bulk(run->r, buf, n, av);
		if (got != 0 && got != n)
			broken(run, "bulk dequeue moved part", cid, got, n);
		return got;
	case CALL_BURST:
		got = deq_calls[mode].burst(run->r, buf, n, av);
		if (got > n)
			broken(run, "burst dequeue moved too many", cid, got, n);
		return got;
	default:
		rc = deq_calls[mode].one(run->r, buf);
		if (rc != 0 && rc != -ENOENT)
			broken(run, "single dequeue returned a bad code", cid, (uint64_t)-rc, 0);
		return rc == 0;
	}
}

static void *producer(void *arg)
{
	struct worker *w = arg;
	struct run *run = w->run;
	const unsigned esize = run->cfg->esize, cap = dpk_ring_capacity(run->r);
	unsigned char buf[MAX_BURST * ESIZE_MAX];
	uint64_t rng = run->seed ^ (0x9e3779b97f4a7c15u * (w->id + 1));
	uint32_t seq = 0;
	unsigned idle = 0;

	pthread_barrier_wait(&run->start);
	while (seq < SEQ_CAP && !atomic_load_explicit(&run->stop, memory_order_relaxed)) {
		enum call_kind kind = pick_kind(&rng);
		unsigned n = pick_n(&rng, kind, cap), got, fs = 0;
		bool want_fs = dpk_test_rand(&rng) % 4 == 0;

		if (n > SEQ_CAP - seq)
			n = SEQ_CAP - seq;
		for (unsigned i = 0; i < n; i++)
			encode(buf + (size_t)i * esize, esize, w->id, seq + i);
		got = enqueue(run, kind, buf, n, want_fs ? &fs : NULL, w->id, &rng);
		if (want_fs && kind != CALL_ONE && fs > cap)
			broken(run, "free space above the capacity", w->id, fs, cap);
		if (got == 0)
			backoff(&idle);
		seq += got;
	}
	run->produced[w->id] = seq;
	/* Release: pairs with the acquire in consumer(); everything enqueued is published. */
	atomic_fetch_sub_explicit(&run->producers_left, 1, memory_order_release);
	return NULL;
}

/* Check and record @p n dequeued elements; @p next holds, per producer, the lowest
 * sequence this consumer may still see. */
static void take(struct run *run, unsigned cid, const unsigned char *buf, unsigned n,
                 uint32_t *next)
{
	const struct config *cfg = run->cfg;
	const bool spsc = cfg->producers == 1 && cfg->consumers == 1;

	for (unsigned i = 0; i < n; i++) {
		const unsigned char *e = buf + (size_t)i * cfg->esize;
		uint64_t tag, c;
		unsigned pid;
		uint32_t seq;

		memcpy(&tag, e, 8);
		pid = (unsigned)(tag >> 56);
		seq = (uint32_t)tag;
		if (cfg->esize == 16) {
			memcpy(&c, e + 8, 8);
			if (c != check_word(tag)) {
				broken(run, "element corrupted", cid, tag, c);
				continue;
			}
		}
		if (pid >= cfg->producers || (tag >> 32 & 0xffffff) != 0 || seq >= SEQ_CAP) {
			broken(run, "element from nowhere", cid, tag, 0);
			continue;
		}
		if (spsc ? seq != next[pid] : seq < next[pid])
			broken(run, "sequence out of order", cid, seq, next[pid]);
		next[pid] = seq + 1;
		uint64_t *word = &run->seen[cid][pid][seq / 64], bit = UINT64_C(1) << (seq % 64);
		if (*word & bit)
			broken(run, "element seen twice by one consumer", cid, pid, seq);
		*word |= bit;
		run->received[cid]++;
	}
}

static void *consumer(void *arg)
{
	struct worker *w = arg;
	struct run *run = w->run;
	const unsigned cap = dpk_ring_capacity(run->r);
	unsigned char buf[MAX_BURST * ESIZE_MAX];
	uint64_t rng = run->seed ^ (0xc2b2ae3d27d4eb4fu * (w->id + 1));
	uint32_t next[MAX_SIDE] = {0};
	unsigned idle = 0;

	pthread_barrier_wait(&run->start);
	for (;;) {
		/* Acquire: pairs with the release in producer(). Read before the dequeue, so
		 * an empty ring after it means every element has been taken. */
		bool done = atomic_load_explicit(&run->producers_left, memory_order_acquire) == 0;
		enum call_kind kind = done ? CALL_BURST : pick_kind(&rng);
		unsigned n = done ? MAX_BURST : pick_n(&rng, kind, cap), got, av = 0;
		bool want_av = dpk_test_rand(&rng) % 4 == 0;

		/* Once the producers are done, a two-step dequeue takes all it saw, so that an
		 * empty ring below means that every element was taken. */
		got = dequeue(run, kind, buf, n, want_av ? &av : NULL, w->id, done ? NULL : &rng);
		if (want_av && kind != CALL_ONE && av > cap)
			broken(run, "available above the capacity", w->id, av, cap);
		take(run, w->id, buf, got, next);
		if (got == 0) {
			if (done)
				break;
			backoff(&idle);
		}
	}
	return NULL;
}

/* Every sequence each producer enqueued was seen by exactly one consumer. */
static void check_exactly_once(struct run *run)
{
	const struct config *cfg = run->cfg;
	uint64_t lost = 0, dup = 0, extra = 0, total_in = 0, total_out = 0;

	for (unsigned p = 0; p < cfg->producers; p++) {
		total_in += run->produced[p];
		for (unsigned wi = 0; wi < BITMAP_WORDS; wi++) {
			uint64_t acc = 0, twice = 0, want;
			uint32_t lo = wi * 64;

			for (unsigned c = 0; c < cfg->consumers; c++) {
				twice |= acc & run->seen[c][p][wi];
				acc |= run->seen[c][p][wi];
			}
			if (run->produced[p] >= lo + 64)
				want = ~UINT64_C(0);
			else if (run->produced[p] <= lo)
				want = 0;
			else
				want = (UINT64_C(1) << (run->produced[p] - lo)) - 1;
			lost += (uint64_t)__builtin_popcountll(want & ~acc);
			extra += (uint64_t)__builtin_popcountll(acc & ~want);
			dup += (uint64_t)__builtin_popcountll(twice);
		}
	}
	for (unsigned c = 0; c < cfg->consumers; c++)
		total_out += run->received[c];
	dpk_test_note("%u+%u threads, esize %u, capacity %u: %" PRIu64 " elements", cfg->producers,
	              cfg->consumers, cfg->esize, dpk_ring_capacity(run->r), total_in);
	EXPECT_EQ_U(0, lost);
	EXPECT_EQ_U(0, dup);
	EXPECT_EQ_U(0, extra);
	EXPECT_EQ_U(total_in, total_out);
	EXPECT_GT(total_in, 0);
}

static unsigned budget_ms(void);

/* Spin until the run stops, without yielding, so that the scheduler has to preempt the
 * ring's threads (and this one) to share the CPUs. */
static void *hog(void *arg)
{
	struct run *run = arg;

	pthread_barrier_wait(&run->start);
	while (!atomic_load_explicit(&run->stop, memory_order_relaxed))
		for (unsigned i = 0; i < 256; i++)
			dpk_pause();
	return NULL;
}

static void run_config(const struct config *cfg)
{
	struct run *run = calloc(1, sizeof(*run));
	struct worker workers[2 * MAX_SIDE];
	pthread_t threads[2 * MAX_SIDE], hogs[MAX_HOGS];
	unsigned nthreads = cfg->producers + cfg->consumers, ms = budget_ms();
	struct timespec nap = {(time_t)(ms / 1000), (long)(ms % 1000) * 1000000L};

	ASSERT_NOT_NULL(run);
	run->cfg = cfg;
	run->seed = dpk_test_seed() ^
	            ((uint64_t)cfg->producers << 40 | cfg->consumers << 8 | cfg->esize);
	run->r = dpk_ring_create(cfg->esize, cfg->count, cfg->flags);
	ASSERT_NOT_NULL(run->r);
	if (cfg->set_htd) {
		if (dpk_ring_prod_sync(run->r) == DPK_RING_SYNC_MT_RTS)
			ASSERT_EQ(0, dpk_ring_set_prod_htd_max(run->r, cfg->htd_max));
		if (dpk_ring_cons_sync(run->r) == DPK_RING_SYNC_MT_RTS)
			ASSERT_EQ(0, dpk_ring_set_cons_htd_max(run->r, cfg->htd_max));
	}
	/* Start close to the wrap of the 32-bit indices so the run crosses it. */
	dpk__ring_set_indices(run->r, UINT32_MAX - (uint32_t)(run->seed % 5000));
	for (unsigned c = 0; c < cfg->consumers; c++)
		for (unsigned p = 0; p < cfg->producers; p++) {
			run->seen[c][p] = calloc(BITMAP_WORDS, sizeof(uint64_t));
			ASSERT_NOT_NULL(run->seen[c][p]);
		}
	atomic_init(&run->producers_left, cfg->producers);
	ASSERT_LE(cfg->hogs, MAX_HOGS);
	ASSERT_EQ(0, pthread_barrier_init(&run->start, NULL, nthreads + cfg->hogs + 1));
	for (unsigned i = 0; i < cfg->hogs; i++)
		ASSERT_EQ(0, pthread_create(&hogs[i], NULL, hog, run));

	for (unsigned i = 0; i < nthreads; i++) {
		bool prod = i < cfg->producers;

		workers[i].run = run;
		workers[i].id = prod ? i : i - cfg->producers;
		ASSERT_EQ(0, pthread_create(&threads[i], NULL, prod ? producer : consumer,
		                            &workers[i]));
	}
	pthread_barrier_wait(&run->start);
	nanosleep(&nap, NULL);
	atomic_store_explicit(&run->stop, true, memory_order_relaxed);
	for (unsigned i = 0; i < nthreads; i++)
		ASSERT_EQ(0, pthread_join(threads[i], NULL));
	for (unsigned i = 0; i < cfg->hogs; i++)
		ASSERT_EQ(0, pthread_join(hogs[i], NULL));

	EXPECT_EQ(0, atomic_load(&run->errors));
	EXPECT_TRUE(dpk_ring_empty(run->r));
	check_exactly_once(run);

	pthread_barrier_destroy(&run->start);
	for (unsigned c = 0; c < cfg->consumers; c++)
		for (unsigned p = 0; p < cfg->producers; p++)
			free(run->seen[c][p]);
	dpk_ring_free(run->r);
	free(run);
}

#define SPSC (DPK_RING_F_SP_ENQ | DPK_RING_F_SC_DEQ)
#define RTS  (DPK_RING_F_MP_RTS_ENQ | DPK_RING_F_MC_RTS_DEQ)
#define HTS  (DPK_RING_F_MP_HTS_ENQ | DPK_RING_F_MC_HTS_DEQ)

/* X(name, config): every case, in order. */
#define CONFIGS(X)                                                                                 \
	X(spsc_8, {1, 1, 8, 256, 0, MODE_ST, MODE_ST, false, 0, 0})                                \
	X(spsc_16_exact_default_calls,                                                             \
	  {1, 1, 16, 100, SPSC | DPK_RING_F_EXACT_SZ, MODE_DEFAULT, MODE_DEFAULT, false, 0, 0})    \
	X(mpmc_4x4_8, {4, 4, 8, 128, SPSC, MODE_MT, MODE_MT, false, 0, 0})                         \
	X(mpmc_4x4_16_default_calls, {4, 4, 16, 64, 0, MODE_DEFAULT, MODE_DEFAULT, false, 0, 0})   \
	X(mpmc_1x3_8, {1, 3, 8, 256, 0, MODE_MT, MODE_MT, false, 0, 0})                            \
	X(mpmc_3x1_16, {3, 1, 16, 256, 0, MODE_MT, MODE_MT, false, 0, 0})                          \
	X(sp_mc_1x3_16_default_calls,                                                              \
	  {1, 3, 16, 64, DPK_RING_F_SP_ENQ, MODE_DEFAULT, MODE_DEFAULT, false, 0, 0})              \
	X(mp_sc_3x1_8, {3, 1, 8, 64, DPK_RING_F_SC_DEQ, MODE_MT, MODE_ST, false, 0, 0})            \
	X(mpmc_2x2_8_tiny_ring, {2, 2, 8, 8, 0, MODE_MT, MODE_MT, false, 0, 0})                    \
	X(rts_4x4_8, {4, 4, 8, 128, RTS, MODE_RTS, MODE_RTS, false, 0, 0})                         \
	X(rts_4x4_16_default_calls, {4, 4, 16, 64, RTS, MODE_DEFAULT, MODE_DEFAULT, false, 0, 0})  \
	X(rts_3x1_8_sc, {3, 1, 8, 256, DPK_RING_F_MP_RTS_ENQ | DPK_RING_F_SC_DEQ, MODE_RTS,        \
	                 MODE_ST, false, 0, 0})                                                    \
	X(rts_1x3_16_sp, {1, 3, 16, 256, DPK_RING_F_SP_ENQ | DPK_RING_F_MC_RTS_DEQ, MODE_ST,       \
	                  MODE_RTS, false, 0, 0})                                                  \
	X(rts_4x4_8_tiny_ring_htd_0, {4, 4, 8, 8, RTS, MODE_RTS, MODE_RTS, false, 0, 0})           \
	X(rts_4x4_8_htd_capacity, {4, 4, 8, 64, RTS, MODE_RTS, MODE_RTS, true, 63, 0})             \
	X(hts_4x4_8, {4, 4, 8, 128, HTS, MODE_HTS, MODE_HTS, false, 0, 0})                         \
	X(hts_4x4_16_default_calls, {4, 4, 16, 64, HTS, MODE_DEFAULT, MODE_DEFAULT, false, 0, 0})  \
	X(hts_3x3_8_peek, {3, 3, 8, 64, HTS, MODE_PEEK, MODE_PEEK, false, 0, 0})                   \
	X(hts_3x3_16_zc, {3, 3, 16, 64, HTS, MODE_ZC, MODE_ZC, false, 0, 0})                       \
	X(spsc_8_zc_peek, {1, 1, 8, 64, SPSC, MODE_ZC, MODE_PEEK, false, 0, 0})                    \
	X(spsc_8_zc_both_hogs, {1, 1, 8, 64, SPSC, MODE_ZC, MODE_ZC, false, 0, 2})                 \
	X(spsc_16_zc_both_tiny_ring_hogs, {1, 1, 16, 8, SPSC, MODE_ZC, MODE_ZC, false, 0, 2})      \
	X(spsc_8_mixed_calls_hogs, {1, 1, 8, 64, SPSC, MODE_MIX, MODE_MIX, false, 0, 2})           \
	X(spsc_16_mixed_calls_exact_hogs,                                                          \
	  {1, 1, 16, 100, SPSC | DPK_RING_F_EXACT_SZ, MODE_MIX, MODE_MIX, false, 0, 1})            \
	X(hts_peek_3x1_8_sc_zc, {3, 1, 8, 64, DPK_RING_F_MP_HTS_ENQ | DPK_RING_F_SC_DEQ,           \
	                         MODE_PEEK, MODE_ZC, false, 0, 0})                                 \
	X(rts_hts_4x4_16_peek, {4, 4, 16, 64, DPK_RING_F_MP_RTS_ENQ | DPK_RING_F_MC_HTS_DEQ,       \
	                        MODE_RTS, MODE_PEEK, false, 0, 0})

#define CONFIG_ROW(name, ...) __VA_ARGS__,
static const struct config configs[] = {CONFIGS(CONFIG_ROW)};
#define N_CONFIGS (sizeof(configs) / sizeof(configs[0]))

/* The stress budget is shared by all cases. */
static unsigned budget_ms(void)
{
	unsigned ms = dpk_test_stress_ms(3000) / N_CONFIGS;

	return ms < 20 ? 20 : ms;
}

/* One case per configuration, named as in CONFIGS. */
enum config_index {
#define CONFIG_INDEX(name, ...) IDX_##name,
	CONFIGS(CONFIG_INDEX)
};
#define CONFIG_CASE(name, ...)                                                                     \
	static void name(void)                                                                     \
	{                                                                                          \
		run_config(&configs[IDX_##name]);                                                  \
	}
CONFIGS(CONFIG_CASE)

#define CONFIG_TEST(name, ...) DPK_TEST(name),
static const struct dpk_test_case cases[] = {CONFIGS(CONFIG_TEST)};

DPK_TEST_MAIN(cases)
