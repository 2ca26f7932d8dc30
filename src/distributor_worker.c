/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The packet distributor, the workers' calls and the counters. The hand-off protocol and
 * its memory orders are described in distributor_int.h; the labels this file uses:
 *   R1  release store of word 0 in post(); pairs with A1 in service() (distributor.c)
 *   A2  acquire loads of word 0 in poll_pkt(), get_pkt() and line_free(); pair with R2 in
 *       deliver() and service() (distributor.c)
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

/* True when the worker owns its line (the distributor has taken in its last leave). */
static bool line_free(struct line *l)
{
	/* A2: pairs with R2 in service() after a leave; the returns were read. */
	return (atomic_load_explicit(&l->word0, memory_order_acquire) & F_MASK) == 0;
}

/* Write @p n returns and @p flag into the worker's line and give it to the distributor. */
static void post(struct line *l, struct dpk_packet *const *olds, unsigned n, uintptr_t flag)
{
	uintptr_t w0 = (n > 0 ? (uintptr_t)olds[0] : 0) | flag;

	for (unsigned i = 1; i < n; i++)
		l->slot[i - 1] = (uintptr_t)olds[i];
	if (n > 0 && n < BURST)
		l->slot[n - 1] = 0;
	/* R1: pairs with A1 in service(); the returns are in the slots. */
	atomic_store_explicit(&l->word0, w0, memory_order_release);
}

/* Copy the packets of an answered request (word 0 read as @p w0) into @p pkts. */
static int unpack(const struct line *l, uintptr_t w0, struct dpk_packet **pkts)
{
	unsigned k = 1;

	if (w0 == 0)
		return 0;
	pkts[0] = (struct dpk_packet *)w0;
	while (k < BURST && l->slot[k - 1] != 0) {
		pkts[k] = (struct dpk_packet *)l->slot[k - 1];
		k++;
	}
	return (int)k;
}

int dpk_distributor_request_pkt(struct dpk_distributor *d, unsigned w,
                                struct dpk_packet *const *oldpkts, unsigned nold)
{
	struct wpriv *wp;

	if (d == NULL || w >= d->nworkers || !olds_ok(oldpkts, nold))
		return -EINVAL;
	wp = &d->wpriv[w];
	if (wp->state == W_REQUESTED || (wp->state == W_OUT && !line_free(&d->lines[w])))
		return -EBUSY;
	post(&d->lines[w], oldpkts, nold, F_REQ);
	wp->state = W_REQUESTED;
	return 0;
}

int dpk_distributor_poll_pkt(struct dpk_distributor *d, unsigned w, struct dpk_packet **pkts)
{
	struct line *l;
	uintptr_t w0;

	if (d == NULL || w >= d->nworkers || pkts == NULL || d->wpriv[w].state != W_REQUESTED)
		return -EINVAL;
	l = &d->lines[w];
	/* A2: pairs with R2 in deliver(); the slots and the packets are written. */
	w0 = atomic_load_explicit(&l->word0, memory_order_acquire);
	if (w0 & F_MASK)
		return -EAGAIN;
	d->wpriv[w].state = W_HOLDING;
	return unpack(l, w0, pkts);
}

int dpk_distributor_get_pkt(struct dpk_distributor *d, unsigned w, struct dpk_packet **pkts,
                            struct dpk_packet *const *oldpkts, unsigned nold)
{
	struct wpriv *wp;
	struct line *l;
	uintptr_t w0;
	unsigned spins = 0;

	if (d == NULL || w >= d->nworkers || pkts == NULL || !olds_ok(oldpkts, nold))
		return -EINVAL;
	wp = &d->wpriv[w];
	l = &d->lines[w];
	if (wp->state == W_REQUESTED)
		return -EBUSY;
	if (wp->state == W_OUT)
		while (!line_free(l))
			relax(&spins);
	post(l, oldpkts, nold, F_REQ);
	wp->state = W_REQUESTED;
	/* A2: pairs with R2 in deliver(); the slots and the packets are written. */
	while ((w0 = atomic_load_explicit(&l->word0, memory_order_acquire)) & F_MASK)
		relax(&spins);
	wp->state = W_HOLDING;
	return unpack(l, w0, pkts);
}

int dpk_distributor_return_pkt(struct dpk_distributor *d, unsigned w,
                               struct dpk_packet *const *oldpkts, unsigned n)
{
	struct wpriv *wp;

	if (d == NULL || w >= d->nworkers || !olds_ok(oldpkts, n))
		return -EINVAL;
	wp = &d->wpriv[w];
	if (wp->state == W_REQUESTED)
		return -EBUSY;
	if (wp->state == W_OUT) {
		if (n == 0)
			return 0;
		if (!line_free(&d->lines[w]))
			return -EBUSY;
	}
	post(&d->lines[w], oldpkts, n, F_RET);
	wp->state = W_OUT;
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
