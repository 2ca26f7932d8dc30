/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The packet distributor, the workers' calls and the counters. The hand-off protocol and
 * its memory orders are described in distributor_int.h; the labels this file uses:
 *   R1  release store of rq word 0 in post(); pairs with A1 in service() (distributor.c)
 *   A2  acquire load of ho word 0 (single mode: rq[0]) in take(); pairs with R2 in deliver()
 *       (distributor.c)
 *   A3  acquire load of rq word 0 in rq_free() (coming back after a leave); pairs with R3
 *       in take_request()
 *   R4  release store of ho word 0 = 0 in take(); pairs with A4 in ho_check()
 *   Counters and the snapshot are read relaxed: single-writer values (distributor_int.h).
 */
#include <errno.h>

#include "distributor_int.h"

/* True when @p olds[0..n-1] is a valid list of packets to hand back. */
static bool olds_ok(struct dpk_packet *const *olds, unsigned n)
{
	if (n > BURST || (n > 0 && olds == NULL))
		return false;
	for (unsigned i = 0; i < n; i++)
		if (olds[i] == NULL)
			return false;
	return true;
}

/* True when the worker may write its request line: the distributor has taken its last
 * request or leave in. */
static bool rq_free(struct line *l)
{
	/* A3: pairs with R3 in take_request(); the returns were read (after a leave, the
	 * hand-off line was cleared). */
	return atomic_load_explicit(&l->word0, memory_order_acquire) == 0;
}

/* Write @p n returns and @p flag into the request line and give it to the distributor. */
static void post(struct line *l, struct dpk_packet *const *olds, unsigned n, uintptr_t flag)
{
	uintptr_t w0 = (n > 0 ? (uintptr_t)olds[0] : 0) | flag;

	/* The line is free: the distributor's clearing happens before (see prefill()). */
	assert((atomic_load_explicit(&l->word0, memory_order_relaxed) & F_MASK) == 0);
	for (unsigned i = 1; i < n; i++)
		l->slot[i - 1] = (uintptr_t)olds[i];
	if (n > 0 && n < BURST)
		l->slot[n - 1] = 0;
	/* R1: pairs with A1 in service(); the returns are in the slots. */
	atomic_store_explicit(&l->word0, w0, memory_order_release);
}

/*
 * Copy worker @p w's hand-off, if one has come, into @p pkts and give the line back.
 * Returns its number of packets (0: an empty hand-off), or -EAGAIN.
 */
static int take(struct dpk_distributor *d, unsigned w, struct dpk_packet **pkts)
{
	struct line *l = ho_line(d, w);
	/* A2: pairs with R2 in deliver(); the slots and the packets are written. */
	uintptr_t w0 = atomic_load_explicit(&l->word0, memory_order_acquire);
	unsigned k = 1;

	if (d->ahead ? w0 == 0 : (w0 & F_MASK) != 0)
		return -EAGAIN;
	if (w0 == 0 || (d->ahead && w0 == H_NONE)) {
		k = 0;
	} else {
		pkts[0] = (struct dpk_packet *)w0;
		while (k < BURST && l->slot[k - 1] != 0) {
			pkts[k] = (struct dpk_packet *)l->slot[k - 1];
			k++;
		}
	}
	/* R4: pairs with A4 in ho_check(); the slots are read. */
	if (d->ahead)
		atomic_store_explicit(&l->word0, 0, memory_order_release);
	return (int)k;
}

/*
 * The request line for worker @p w's next request, or NULL when it has none yet: a worker
 * not taking part waits until the distributor has taken its leave in (both lines free),
 * then starts again from line 0. One taking part always has one (see prefill()).
 */
static struct line *rq_line(struct dpk_distributor *d, unsigned w)
{
	struct wpriv *wp = &d->wpriv[w];

	if (wp->state == W_OUT) {
		if (!rq_free(&d->rq[w][0]) || !rq_free(&d->rq[w][1]))
			return NULL;
		wp->rq_next = 0;
	}
	return &d->rq[w][wp->rq_next];
}

/* Post a request or leave (@p flag) on worker @p w's line @p l. */
static void ask(struct dpk_distributor *d, unsigned w, struct line *l,
                struct dpk_packet *const *olds, unsigned n, uintptr_t flag)
{
	post(l, olds, n, flag);
	d->wpriv[w].rq_next ^= d->ahead; /* single mode: line 0 only */
	d->wpriv[w].state = flag == F_REQ ? W_REQUESTED : W_OUT;
}

int dpk_distributor_request_pkt(struct dpk_distributor *d, unsigned w,
                                struct dpk_packet *const *oldpkts, unsigned nold)
{
	struct line *l;

	if (d == NULL || w >= d->nworkers || !olds_ok(oldpkts, nold))
		return -EINVAL;
	if (d->wpriv[w].state == W_REQUESTED || (l = rq_line(d, w)) == NULL)
		return -EBUSY;
	ask(d, w, l, oldpkts, nold, F_REQ);
	return 0;
}

int dpk_distributor_poll_pkt(struct dpk_distributor *d, unsigned w, struct dpk_packet **pkts)
{
	int rc;

	if (d == NULL || w >= d->nworkers || pkts == NULL || d->wpriv[w].state != W_REQUESTED)
		return -EINVAL;
	rc = take(d, w, pkts);
	if (rc >= 0)
		d->wpriv[w].state = W_HOLDING;
	return rc;
}

int dpk_distributor_get_pkt(struct dpk_distributor *d, unsigned w, struct dpk_packet **pkts,
                            struct dpk_packet *const *oldpkts, unsigned nold)
{
	struct line *l;
	unsigned spins = 0;
	int rc;

	if (d == NULL || w >= d->nworkers || pkts == NULL || !olds_ok(oldpkts, nold))
		return -EINVAL;
	if (d->wpriv[w].state == W_REQUESTED)
		return -EBUSY;
	while ((l = rq_line(d, w)) == NULL)
		relax(&spins);
	ask(d, w, l, oldpkts, nold, F_REQ);
	while ((rc = take(d, w, pkts)) < 0)
		relax(&spins);
	d->wpriv[w].state = W_HOLDING;
	return rc;
}

int dpk_distributor_return_pkt(struct dpk_distributor *d, unsigned w,
                               struct dpk_packet *const *oldpkts, unsigned n)
{
	struct wpriv *wp;
	struct line *l;

	if (d == NULL || w >= d->nworkers || !olds_ok(oldpkts, n))
		return -EINVAL;
	wp = &d->wpriv[w];
	if (wp->state == W_REQUESTED)
		return -EBUSY;
	if (wp->state == W_OUT && n == 0)
		return 0;
	if ((l = rq_line(d, w)) == NULL)
		return -EBUSY;
	ask(d, w, l, oldpkts, n, F_RET);
	return 0;
}

int dpk_distributor_stats_get(const struct dpk_distributor *d, struct dpk_distributor_stats *st)
{
	uint64_t handoffs = 0;

	if (d == NULL || st == NULL)
		return -EINVAL;
	/* Relaxed loads: a snapshot of single-writer values (see the file comment). */
	for (unsigned w = 0; w < d->nworkers; w++)
		handoffs += atomic_load_explicit(&d->dw[w].handoffs, memory_order_relaxed);
	st->distributed = atomic_load_explicit(&d->distributed, memory_order_relaxed);
	st->returned = atomic_load_explicit(&d->returned, memory_order_relaxed);
	st->handoffs = handoffs;
	st->returns_full = atomic_load_explicit(&d->returns_full, memory_order_relaxed);
	st->in_flight = atomic_load_explicit(&d->inflight_pub, memory_order_relaxed);
	st->returns = atomic_load_explicit(&d->returns_pub, memory_order_relaxed);
	st->active_workers = (unsigned)__builtin_popcountll(
	        atomic_load_explicit(&d->active_pub, memory_order_relaxed));
	st->blocked_workers = atomic_load_explicit(&d->blocked_pub, memory_order_relaxed);
	return 0;
}

int dpk_distributor_worker_stats_get(const struct dpk_distributor *d, unsigned w,
                                     struct dpk_distributor_worker_stats *st)
{
	if (d == NULL || st == NULL || w >= d->nworkers)
		return -EINVAL;
	/* Relaxed loads: a snapshot of single-writer values (see the file comment). */
	st->handled = atomic_load_explicit(&d->dw[w].handled, memory_order_relaxed);
	st->handoffs = atomic_load_explicit(&d->dw[w].handoffs, memory_order_relaxed);
	st->active = (atomic_load_explicit(&d->active_pub, memory_order_relaxed) >> w) & 1;
	return 0;
}
