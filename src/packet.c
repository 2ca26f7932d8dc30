/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Packet pools, the multi calls, and references. The memory-order pairs (R1 with A1, A2,
 * A3 and A4) are described at the top of <dpk/impl/packet.h>.
 *
 * Memory of a packet pool: struct dpk_packet_pool, whose last member is the object pool,
 * followed by the rest of the object pool (ring, caches, objects). Each object is
 *   struct dpk_packet (64 bytes) | user area, rounded up to 64 | data buffer | padding
 * where the padding (0 or 64 bytes) makes the object a whole number of line pairs.
 */
#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <dpk/packet.h>

#include "internal.h"

static_assert(sizeof(struct dpk_packet) == DPK_CACHE_LINE, "packet metadata is one cache line");
static_assert(_Alignof(struct dpk_packet_pool) > DPK__PACKET_SHARED,
              "a pool's address leaves DPK__PACKET_SHARED free in pool_tag");

_Thread_local struct dpk_packet_pool *dpk__packet_last_pool
        __attribute__((tls_model("initial-exec"))) = NULL;

/* See <dpk/impl/packet.h>: len 0 and thresh 0, so that get and put of one object fail on
 * it. Never written. */
static struct dpk_pool_cache dpk__packet_no_cache;

/* free_multi hands buffers back per pool in bulks of up to this many... */
#define FREE_BULK 32u
/* ...for up to this many pools at a time. */
#define FREE_POOLS 4u

/* alloc_multi asks its pool for at most this many objects at once. */
#define ALLOC_CHUNK 64u

static size_t align_up(size_t x, size_t a)
{
	return (x + a - 1) / a * a;
}

void dpk_packet_pool_params_init(struct dpk_packet_pool_params *prm)
{
	if (prm == NULL)
		return;
	prm->count = DPK_PACKET_DEFAULT_COUNT;
	prm->buf_size = DPK_PACKET_DEFAULT_BUF_SIZE;
	prm->headroom = DPK_PACKET_DEFAULT_HEADROOM;
	prm->uarea_size = 0;
	prm->cache_size = DPK_PACKET_DEFAULT_CACHE;
	prm->flags = 0;
}

struct setup {
	struct dpk_packet_pool *pp;
	size_t uarea_off;
};

/* Write the fields of a packet that never change, and the free state. */
static void packet_setup(struct dpk_pool *p, void *obj, unsigned idx, void *arg)
{
	const struct setup *s = arg;
	struct dpk_packet *pkt = obj;
	unsigned char *base = obj;

	(void)p;
	(void)idx;
	pkt->pool_tag = (uintptr_t)s->pp;
	pkt->uarea = s->pp->params.uarea_size ? base + sizeof(*pkt) : NULL;
	pkt->buf = base + s->uarea_off;
	pkt->buf_len = s->pp->params.buf_size;
	pkt->data_off = s->pp->headroom;
	pkt->data_len = 0;
	pkt->shr = NULL;
	pkt->shr_len = 0;
	pkt->referenced = NULL;
	pkt->flow_tag = 0;
	atomic_init(&pkt->refs, 0);
}

/* The checks of the packet pool's own fields; false with a message naming the bad one.
 * Count, cache size and the other flags are dpk_pool_memsize()'s to check. */
static bool params_valid(const struct dpk_packet_pool_params *prm)
{
	if (prm == NULL) {
		dpk__set_error("packet pool: params is NULL");
		return false;
	}
	if (prm->buf_size == 0 || prm->buf_size > DPK_PACKET_BUF_SIZE_MAX) {
		dpk__set_error("packet pool: buf_size %u is not in 1..%u", prm->buf_size,
		               DPK_PACKET_BUF_SIZE_MAX);
		return false;
	}
	if (prm->headroom > prm->buf_size) {
		dpk__set_error("packet pool: headroom %u is above buf_size %u", prm->headroom,
		               prm->buf_size);
		return false;
	}
	if (prm->uarea_size > DPK_PACKET_UAREA_MAX) {
		dpk__set_error("packet pool: uarea_size %u is above %u", prm->uarea_size,
		               DPK_PACKET_UAREA_MAX);
		return false;
	}
	if (prm->flags & DPK_POOL_F_NO_CACHE_ALIGN) {
		/* The metadata line, the user area's alignment and the layout of src/pool.c
		 * all rest on packets that start on a cache line. */
		dpk__set_error("packet pool: DPK_POOL_F_NO_CACHE_ALIGN is not for packets");
		return false;
	}
	return true;
}

/* The user area's offset in a packet, and the object size of @p prm's packets. */
static size_t packet_layout(const struct dpk_packet_pool_params *prm, size_t *uarea_off)
{
	*uarea_off = sizeof(struct dpk_packet) + align_up(prm->uarea_size, DPK_CACHE_LINE);
	/* A whole number of line pairs, so that the pool starts every packet's metadata on
	 * a line that shares no L1 set with a cache header (see src/pool.c). */
	return align_up(*uarea_off + prm->buf_size, 2 * DPK_CACHE_LINE);
}

ssize_t dpk_packet_pool_memsize(const struct dpk_packet_pool_params *prm)
{
	const size_t head = offsetof(struct dpk_packet_pool, pool);
	size_t uarea_off, obj_size;
	ssize_t pool_size;

	if (!params_valid(prm))
		return -EINVAL;
	obj_size = packet_layout(prm, &uarea_off);
	/* Checks count, cache size and flags, and names what is wrong. */
	pool_size = dpk_pool_memsize(prm->count, obj_size, prm->cache_size, prm->flags);
	if (pool_size < 0)
		return pool_size;
	return (ssize_t)align_up(head + (size_t)pool_size, 2 * DPK_CACHE_LINE);
}

struct dpk_packet_pool *dpk_packet_pool_create(const struct dpk_packet_pool_params *prm)
{
	const ssize_t size = dpk_packet_pool_memsize(prm);
	struct dpk_packet_pool *pp;
	int rc;

	if (size < 0) {
		errno = (int)-size;
		return NULL;
	}
	/* Aligned to a line pair, as dpk_pool_create() does for the same reason. */
	pp = aligned_alloc(DPK_PACKET_POOL_ALIGN, (size_t)size);
	if (pp == NULL) {
		dpk__set_error("packet pool: cannot allocate %zd bytes", size);
		errno = ENOMEM;
		return NULL;
	}
	if ((rc = dpk_packet_pool_init(pp, prm)) != 0) {
		free(pp);
		errno = -rc;
		return NULL;
	}
	pp->owned = true;
	return pp;
}

int dpk_packet_pool_init(struct dpk_packet_pool *pp, const struct dpk_packet_pool_params *prm)
{
	const ssize_t size = dpk_packet_pool_memsize(prm);
	size_t obj_size;
	struct setup s;
	int rc;

	if (size < 0)
		return (int)size;
	if (pp == NULL || (uintptr_t)pp % DPK_PACKET_POOL_ALIGN != 0) {
		dpk__set_error("packet pool init: memory %p is not aligned to %u bytes", (void *)pp,
		               DPK_PACKET_POOL_ALIGN);
		return -EINVAL;
	}
	obj_size = packet_layout(prm, &s.uarea_off);
	memset(pp, 0, offsetof(struct dpk_packet_pool, pool));
	pp->params = *prm;
	pp->headroom = prm->headroom;
	pp->max_len = prm->buf_size - prm->headroom;
	rc = dpk_pool_init(&pp->pool, prm->count, obj_size, prm->cache_size, prm->flags);
	if (rc < 0)
		return rc;
	pp->alloc_word = (pp->max_len + 1) | (uint64_t)pp->headroom << 32;
	for (unsigned id = 0; id < DPK_LCORE_MAX; id++) {
		struct dpk_pool_cache *c = dpk_pool_default_cache(&pp->pool, id);

		/* The pool's own test for its inline paths, as dpk_pool_get() makes it. */
		pp->caches[id] = c != NULL && c->fast == &pp->pool ? c : &dpk__packet_no_cache;
	}
	s.pp = pp;
	dpk_pool_obj_iter(&pp->pool, packet_setup, &s);
	return 0;
}

void dpk_packet_pool_free(struct dpk_packet_pool *pp)
{
	if (pp && !pp->owned) {
		dpk__set_error("packet pool free: %p is in the caller's memory "
		               "(dpk_packet_pool_init()); left alone",
		               (void *)pp);
		return;
	}
	free(pp);
}

const struct dpk_packet_pool_params *dpk_packet_pool_params(const struct dpk_packet_pool *pp)
{
	return &pp->params;
}

struct dpk_pool *dpk_packet_pool_to_pool(struct dpk_packet_pool *pp)
{
	return &pp->pool;
}

/* The state alloc gives a packet; see dpk_packet_alloc(). */
static struct dpk_packet *packet_start(void *obj, const struct dpk_packet_pool *pp, uint32_t len)
{
	struct dpk_packet *pkt = obj;

	pkt->data_off = pp->headroom;
	pkt->data_len = len;
	pkt->flow_tag = 0;
	return pkt;
}

struct dpk_packet *dpk__packet_alloc_slow(struct dpk_packet_pool *pp, uint32_t len)
{
	void *obj;

	if (pp == NULL || len > pp->max_len) {
		dpk__set_error("packet alloc: pool is NULL or length %u is above its room", len);
		errno = EINVAL;
		return NULL;
	}
	if (dpk_pool_get(&pp->pool, &obj) != 0) {
		errno = ENOENT;
		return NULL;
	}
	return packet_start(obj, pp, len);
}

int dpk_packet_alloc_multi(struct dpk_packet_pool *pp, uint32_t len, struct dpk_packet **pkts,
                           unsigned n)
{
	void *objs[ALLOC_CHUNK];
	unsigned done = 0;

	if (pp == NULL || (pkts == NULL && n > 0)) {
		dpk__set_error("packet alloc_multi: pool or array is NULL");
		return -EINVAL;
	}
	if (len > pp->max_len) {
		dpk__set_error("packet alloc_multi: length %u is above %u", len, pp->max_len);
		return -EINVAL;
	}
	while (done < n) {
		unsigned want = n - done < ALLOC_CHUNK ? n - done : ALLOC_CHUNK;

		/* All or nothing per request; when short, halve the request until what is
		 * reachable has been taken. */
		while (want > 0 && dpk_pool_get_bulk(&pp->pool, objs, want) != 0)
			want /= 2;
		if (want == 0)
			break;
		for (unsigned i = 0; i < want; i++)
			pkts[done + i] = packet_start(objs[i], pp, len);
		done += want;
	}
	return (int)done;
}

/*
 * Drop one hold on @p pkt. True when it was the last: the caller must recycle the packet.
 */
static bool packet_release(struct dpk_packet *pkt)
{
	uint32_t holds = atomic_load_explicit(&pkt->refs, memory_order_relaxed);

	/* No hold but this one (a referencing packet that was never referenced itself), so
	 * no other thread has touched the packet since it came to this one. */
	if (holds == 0)
		return true;
	if (holds == 1) {
		/* This hold is the only one, and no other can appear: making one takes a
		 * hold. A3: pairs with R1 of the holders that left, whose accesses then
		 * happen before the buffer is recycled. A plain store leaves the count at 0,
		 * the "never referenced" state the next user of the buffer starts from. */
		dpk__packet_acquire(pkt);
		atomic_store_explicit(&pkt->refs, 0, memory_order_relaxed);
		return true;
	}
	/* R1: release, so that this holder's accesses to the packet happen before the
	 * last holder recycles it (A1, A3), changes it (A2) or makes a hold with a plain
	 * store (A4). The last decrement leaves 0, as above. */
	if (atomic_fetch_sub_explicit(&pkt->refs, 1, memory_order_release) != 1)
		return false;
	/* A1: pairs with R1 of every other holder. */
	dpk__packet_acquire(pkt);
	return true;
}

/*
 * Free @p pkt and collect in @p out the packets whose buffers go back to their pools:
 * none, the packet itself, and also the one it referenced when this was its last hold.
 */
static unsigned packet_release_all(struct dpk_packet *pkt, struct dpk_packet *out[2])
{
	struct dpk_packet *owner;
	unsigned k = 0;

	if (!packet_release(pkt))
		return 0;
	owner = pkt->referenced;
	if (owner != NULL) {
		/* Back to the free state before the buffer can be reused. Plain stores: this is
		 * the last holder, after A1, and the pool's put orders them before the next
		 * get. */
		pkt->referenced = NULL;
		pkt->shr = NULL;
		pkt->shr_len = 0;
	}
	/* refs is 0 again: the pool word loses its flag, which lets the next user's free
	 * take the inline path. A plain store: no other holder is left to read it. */
	pkt->pool_tag &= ~DPK__PACKET_SHARED;
	out[k++] = pkt;
	/* A referenced packet never references another (dpk_packet_ref() holds the owner
	 * of the shared part), so this goes one level deep only. */
	if (owner != NULL && packet_release(owner)) {
		owner->pool_tag &= ~DPK__PACKET_SHARED;
		out[k++] = owner;
	}
	return k;
}

void dpk__packet_free_slow(struct dpk_packet *pkt)
{
	struct dpk_packet *out[2];
	unsigned k;

	if (!(pkt->pool_tag & DPK__PACKET_SHARED)) {
		/* Never referenced: another pool than the thread's last, a full cache, a
		 * thread that is not an lcore or a pool that must not take the inline paths.
		 * This thread now frees this pool's packets: when the pool allows it, later
		 * frees of them take the inline path. */
		struct dpk_packet_pool *pp = dpk_packet_pool(pkt);

		dpk__packet_last_pool = pp;
		dpk_pool_put(&pp->pool, pkt);
		return;
	}
	k = packet_release_all(pkt, out);
	for (unsigned i = 0; i < k; i++)
		dpk_pool_put(&dpk_packet_pool(out[i])->pool, out[i]);
}

/* Buffers of one pool waiting for a bulk put. */
struct free_group {
	struct dpk_packet_pool *pp;
	unsigned n;
	void *objs[FREE_BULK];
};

struct free_groups {
	unsigned n;
	struct free_group g[FREE_POOLS];
};

static void group_flush(struct free_group *g)
{
	if (g->n)
		dpk_pool_put_bulk(&g->pp->pool, g->objs, g->n);
	g->n = 0;
}

/* The group of @p pp; a new one when there is none, after handing back everything
 * pending when every slot is taken. */
static struct free_group *group_of(struct free_groups *gs, struct dpk_packet_pool *pp)
{
	struct free_group *g;

	for (unsigned i = 0; i < gs->n; i++)
		if (gs->g[i].pp == pp)
			return &gs->g[i];
	if (gs->n == FREE_POOLS) {
		for (unsigned i = 0; i < gs->n; i++)
			group_flush(&gs->g[i]);
		gs->n = 0;
	}
	g = &gs->g[gs->n++];
	g->pp = pp;
	g->n = 0;
	return g;
}

/*
 * The general case of free_multi: packets of several pools, referenced or referencing
 * ones. Packets go to the group of their pool. The group of the last packet is the
 * current one: its pool and count live in locals (cur, k), so that a run of
 * never-referenced packets of one pool costs, per packet, a load of the pool word, a
 * compare and a store, with no call and no count kept in memory.
 */
static void free_multi_grouped(struct dpk_packet *const *pkts, unsigned n)
{
	struct free_groups gs;
	struct free_group *g = NULL;
	struct dpk_packet_pool *cur = NULL;
	unsigned k = 0;

	gs.n = 0;
	for (unsigned i = 0; i < n; i++) {
		struct dpk_packet *pkt = pkts[i], *out[2];
		unsigned nout;
		uintptr_t tag;

		if (pkt == NULL)
			continue;
		/* The pool word, as in dpk_packet_free(): equal to the current pool means
		 * never referenced and of that pool. */
		tag = pkt->pool_tag;
		if (__builtin_expect(tag == (uintptr_t)cur, 1)) {
			g->objs[k++] = pkt;
			if (k == FREE_BULK) {
				dpk_pool_put_bulk(&cur->pool, g->objs, k);
				k = 0;
			}
			continue;
		}
		if (!(tag & DPK__PACKET_SHARED)) {
			out[0] = pkt;
			nout = 1;
		} else {
			nout = packet_release_all(pkt, out);
		}
		for (unsigned j = 0; j < nout; j++) {
			if (dpk_packet_pool(out[j]) != cur) {
				if (g != NULL)
					g->n = k;
				cur = dpk_packet_pool(out[j]);
				g = group_of(&gs, cur);
				k = g->n;
			}
			g->objs[k++] = out[j];
			if (k == FREE_BULK) {
				dpk_pool_put_bulk(&cur->pool, g->objs, k);
				k = 0;
			}
		}
	}
	if (g != NULL)
		g->n = k;
	for (unsigned i = 0; i < gs.n; i++)
		group_flush(&gs.g[i]);
}

/*
 * The common case first: never-referenced packets of one pool, gathered in a small array
 * and handed back in bulks, with little to set up for a short burst. The first packet of
 * another pool or with references hands the rest of the array to the general code.
 */
void dpk_packet_free_multi(struct dpk_packet *const *pkts, unsigned n)
{
	void *objs[FREE_BULK];
	struct dpk_packet_pool *cur = NULL;
	unsigned i, k = 0;

	if (pkts == NULL)
		return;
	for (i = 0; i < n; i++) {
		struct dpk_packet *pkt = pkts[i];
		uintptr_t tag;

		if (pkt == NULL)
			continue;
		/* The pool word, as in dpk_packet_free(). */
		tag = pkt->pool_tag;
		if (__builtin_expect(tag != (uintptr_t)cur, 0)) {
			if (cur != NULL || (tag & DPK__PACKET_SHARED))
				break;
			cur = (struct dpk_packet_pool *)tag;
		}
		objs[k++] = pkt;
		if (k == FREE_BULK) {
			dpk_pool_put_bulk(&cur->pool, objs, k);
			k = 0;
		}
	}
	if (k)
		dpk_pool_put_bulk(&cur->pool, objs, k);
	if (i < n)
		free_multi_grouped(pkts + i, n - i);
}

int dpk_packet_read(const struct dpk_packet *pkt, uint32_t offset, uint32_t len, void *dst)
{
	unsigned char *out = dst;
	uint32_t total;

	if (pkt == NULL)
		return -EINVAL;
	total = dpk_packet_len(pkt);
	if (len > total || offset > total - len || (dst == NULL && len > 0))
		return -EINVAL;
	while (len > 0) {
		uint32_t seg = 0;
		const void *src = dpk_packet_offset(pkt, offset, &seg);

		if (seg > len)
			seg = len;
		memcpy(out, src, seg);
		out += seg;
		offset += seg;
		len -= seg;
	}
	return 0;
}

struct dpk_packet *dpk_packet_ref(struct dpk_packet *pkt, uint32_t offset)
{
	struct dpk_packet *ref, *owner;
	unsigned char *start;
	uint32_t total;
	void *obj;

	if (pkt == NULL || offset >= (total = dpk_packet_len(pkt))) {
		dpk__set_error("packet ref: packet is NULL or offset %u is past the data", offset);
		errno = EINVAL;
		return NULL;
	}
	if (pkt->referenced == NULL) {
		owner = pkt;
		start = pkt->buf + pkt->data_off + offset;
	} else if (offset >= pkt->data_len) {
		/* Inside the shared part: reference its owner directly, so that references
		 * are never chained. */
		owner = pkt->referenced;
		start = pkt->shr + (offset - pkt->data_len);
	} else {
		dpk__set_error("packet ref: offset %u is inside the %u-byte private head of a "
		               "referencing packet",
		               offset, pkt->data_len);
		errno = ENOTSUP;
		return NULL;
	}
	if (dpk_pool_get(&dpk_packet_pool(pkt)->pool, &obj) != 0) {
		errno = ENOENT;
		return NULL;
	}
	ref = obj;
	ref->data_off = ref->buf_len;
	ref->data_len = 0;
	ref->shr = start;
	ref->shr_len = total - offset;
	ref->referenced = owner;
	ref->flow_tag = pkt->flow_tag;
	/* The new packet has no other holder yet, and its refs is 0 as it came from the
	 * pool. Its pool word takes the flag for its whole life: its free goes out of line,
	 * to drop its hold on the owner. */
	ref->pool_tag |= DPK__PACKET_SHARED;
	dpk__packet_hold(owner, owner == pkt);
	return ref;
}
