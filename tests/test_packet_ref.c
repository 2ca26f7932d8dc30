/* SPDX-License-Identifier: BSD-3-Clause */
/* Packet buffers with references: static references and references at an offset, their
 * errors, every order of freeing, and the multi free over packets with references. */
#include "packet_fixture.h"

/* Every change a static reference forbids returns -EBUSY and changes nothing. */
static void expect_read_only(struct dpk_packet *pkt)
{
	uint32_t len = dpk_packet_len(pkt), head = dpk_packet_headroom(pkt);
	uint32_t tag = dpk_packet_flow_tag(pkt);

	EXPECT_EQ(-EBUSY, dpk_packet_push_head(pkt, 1));
	EXPECT_EQ(-EBUSY, dpk_packet_pull_head(pkt, 1));
	EXPECT_EQ(-EBUSY, dpk_packet_put_tail(pkt, 1));
	EXPECT_EQ(-EBUSY, dpk_packet_trim_tail(pkt, 1));
	EXPECT_EQ(-EBUSY, dpk_packet_flow_tag_set(pkt, tag + 1));
	EXPECT_EQ(len, dpk_packet_len(pkt));
	EXPECT_EQ(head, dpk_packet_headroom(pkt));
	EXPECT_EQ(tag, dpk_packet_flow_tag(pkt));
}

static void static_reference(void)
{
	struct dpk_packet_pool *pp = make(COUNT, BUF, HEAD, 0, 0, DPK_POOL_F_DEBUG);
	struct dpk_packet *pkt, *r1, *r2;

	ASSERT_NOT_NULL(pp);
	errno = 0;
	ASSERT_NULL(dpk_packet_ref_static(NULL));
	ASSERT_EQ(EINVAL, errno);
	pkt = dpk_packet_alloc(pp, 100);
	ASSERT_NOT_NULL(pkt);
	fill(pkt, 4);
	r1 = dpk_packet_ref_static(pkt);
	ASSERT_TRUE(r1 == pkt);
	ASSERT_TRUE(dpk_packet_has_ref(pkt));
	ASSERT_FALSE(dpk_packet_is_referencing(pkt));
	expect_read_only(pkt);
	r2 = dpk_packet_ref_static(pkt);
	ASSERT_TRUE(r2 == pkt);
	ASSERT_EQ(1, in_use(pp));

	/* Three holders: the buffer goes back on the third free only. */
	dpk_packet_free(r2);
	ASSERT_EQ(1, in_use(pp));
	ASSERT_TRUE(dpk_packet_has_ref(pkt));
	dpk_packet_free(r1);
	ASSERT_EQ(1, in_use(pp));
	ASSERT_FALSE(dpk_packet_has_ref(pkt));
	/* Alone again: changes are allowed. */
	ASSERT_EQ(0, dpk_packet_push_head(pkt, 2));
	ASSERT_EQ(0, dpk_packet_flow_tag_set(pkt, 9));
	dpk_packet_free(pkt);
	ASSERT_EQ(0, in_use(pp));

	/* The count starts from "never referenced" again for the next user. */
	pkt = dpk_packet_alloc(pp, 10);
	ASSERT_NOT_NULL(pkt);
	ASSERT_FALSE(dpk_packet_has_ref(pkt));
	ASSERT_EQ(0, dpk_packet_push_head(pkt, 1));
	dpk_packet_free(pkt);
	ASSERT_EQ(0, in_use(pp));
	ASSERT_EQ(0, dpk_pool_audit(dpk_packet_pool_to_pool(pp), NULL, NULL, NULL));
	dpk_packet_pool_free(pp);
}

static void check_bytes(const struct dpk_packet *pkt, uint32_t off, uint32_t len,
                        unsigned char first)
{
	unsigned char buf[BUF];

	ASSERT_EQ(0, dpk_packet_read(pkt, off, len, buf));
	for (uint32_t i = 0; i < len; i++)
		ASSERT_EQ((unsigned char)(first + i), buf[i]);
}

static void reference_at_offset(void)
{
	struct dpk_packet_pool *pp = make(COUNT, BUF, HEAD, 0, 0, DPK_POOL_F_DEBUG);
	struct dpk_packet *x, *y;
	unsigned char *hdr;
	uint32_t seg = 0;

	ASSERT_NOT_NULL(pp);
	x = dpk_packet_alloc(pp, 200);
	ASSERT_NOT_NULL(x);
	fill(x, 0);
	ASSERT_EQ(0, dpk_packet_flow_tag_set(x, 42));
	y = dpk_packet_ref(x, 50);
	ASSERT_NOT_NULL(y);
	ASSERT_TRUE(y != x);
	ASSERT_EQ(2, in_use(pp));

	/* Data shared from the offset on, metadata separate. */
	ASSERT_TRUE(dpk_packet_is_referencing(y));
	ASSERT_FALSE(dpk_packet_is_referencing(x));
	ASSERT_TRUE(dpk_packet_has_ref(x));
	ASSERT_FALSE(dpk_packet_has_ref(y));
	ASSERT_EQ(150, dpk_packet_len(y));
	ASSERT_EQ(150, dpk_packet_seg_len(y));
	ASSERT_TRUE((unsigned char *)dpk_packet_data(y) ==
	            (unsigned char *)dpk_packet_data(x) + 50);
	ASSERT_EQ(42, dpk_packet_flow_tag(y));
	ASSERT_EQ(0, dpk_packet_tailroom(y));
	ASSERT_EQ(BUF, dpk_packet_headroom(y));
	ASSERT_EQ(-ENOSPC, dpk_packet_put_tail(y, 1));
	expect_read_only(x);

	/* The reference pushes its own header into its private headroom. */
	ASSERT_EQ(0, dpk_packet_push_head(y, 14));
	ASSERT_EQ(164, dpk_packet_len(y));
	ASSERT_EQ(14, dpk_packet_seg_len(y));
	ASSERT_EQ(BUF - 14, dpk_packet_headroom(y));
	hdr = dpk_packet_data(y);
	for (unsigned i = 0; i < 14; i++)
		hdr[i] = (unsigned char)(36 + i); /* continues into 50.. */
	check_bytes(y, 0, 164, 36);
	ASSERT_TRUE((unsigned char *)dpk_packet_offset(y, 14, &seg) ==
	            (unsigned char *)dpk_packet_data(x) + 50);
	ASSERT_EQ(150, seg);
	ASSERT_EQ(200, dpk_packet_len(x));
	check_bytes(x, 0, 200, 0);
	ASSERT_EQ(0, dpk_packet_flow_tag_set(y, 7));
	ASSERT_EQ(42, dpk_packet_flow_tag(x));

	/* Freeing the referenced packet first: its buffer stays for the reference. */
	dpk_packet_free(x);
	ASSERT_EQ(2, in_use(pp));
	check_bytes(y, 0, 164, 36);
	dpk_packet_free(y);
	ASSERT_EQ(0, in_use(pp));

	/* The other order: the reference goes first and the packet is writable again. */
	x = dpk_packet_alloc(pp, 100);
	ASSERT_NOT_NULL(x);
	fill(x, 5);
	y = dpk_packet_ref(x, 0);
	ASSERT_NOT_NULL(y);
	ASSERT_EQ(100, dpk_packet_len(y));
	check_bytes(y, 0, 100, 5);
	dpk_packet_free(y);
	ASSERT_EQ(1, in_use(pp));
	ASSERT_FALSE(dpk_packet_has_ref(x));
	ASSERT_EQ(0, dpk_packet_push_head(x, 1));
	dpk_packet_free(x);
	ASSERT_EQ(0, in_use(pp));
	ASSERT_EQ(0, dpk_pool_audit(dpk_packet_pool_to_pool(pp), NULL, NULL, NULL));
	dpk_packet_pool_free(pp);
}

static void reference_errors(void)
{
	struct dpk_packet_pool *pp = make(2, BUF, HEAD, 0, 0, 0);
	struct dpk_packet *x, *y, *z;

	ASSERT_NOT_NULL(pp);
	errno = 0;
	ASSERT_NULL(dpk_packet_ref(NULL, 0));
	ASSERT_EQ(EINVAL, errno);
	x = dpk_packet_alloc(pp, 20);
	ASSERT_NOT_NULL(x);
	errno = 0;
	ASSERT_NULL(dpk_packet_ref(x, 20));
	ASSERT_EQ(EINVAL, errno);
	errno = 0;
	ASSERT_NULL(dpk_packet_ref(x, UINT32_MAX));
	ASSERT_EQ(EINVAL, errno);
	ASSERT_FALSE(dpk_packet_has_ref(x));
	y = dpk_packet_alloc(pp, 0);
	ASSERT_NOT_NULL(y);
	errno = 0;
	ASSERT_NULL(dpk_packet_ref(y, 0)); /* nothing to share */
	ASSERT_EQ(EINVAL, errno);
	/* The pool is empty: no packet for the reference, and x is left as it was. */
	errno = 0;
	ASSERT_NULL(dpk_packet_ref(x, 1));
	ASSERT_EQ(ENOENT, errno);
	ASSERT_FALSE(dpk_packet_has_ref(x));
	ASSERT_EQ(0, dpk_packet_push_head(x, 1));
	dpk_packet_free(y);

	/* A reference inside the private head of a referencing packet is not supported. */
	y = dpk_packet_ref(x, 5);
	ASSERT_NOT_NULL(y);
	ASSERT_EQ(0, dpk_packet_push_head(y, 4));
	dpk_packet_free(x); /* y keeps it */
	errno = 0;
	z = dpk_packet_ref(y, 3);
	ASSERT_NULL(z);
	ASSERT_EQ(ENOTSUP, errno);
	dpk_packet_free(y);
	ASSERT_EQ(0, in_use(pp));
	dpk_packet_pool_free(pp);
}

/*
 * A reference made from a referencing packet references the owner of the shared data and
 * holds neither the packet it was made from nor anything of that packet's own. Below, each
 * consequence of that rule of <dpk/packet.h>: has_ref and is_referencing of all three
 * packets, every change call on each, the data read through the new reference, the private
 * head of the packet it was made from, and the pool's in-use count after every free in all
 * six free orders. The three packets: P, R1 = dpk_packet_ref(P, 10) with an 8-byte
 * private head, and R2 = dpk_packet_ref(R1, 8 + 5), which shares P's data from byte 15 on.
 */
enum { P, R1, R2, NPKT };

/* P's data bytes are 0, 1, 2, ...; R1's private head bytes 0xa0, 0xa1, ... */
#define P_LEN    100u
#define R1_OFF   10u
#define R1_HEAD  8u
#define R2_OFF   (R1_HEAD + 5u)
#define R2_START (R1_OFF + 5u) /* R2's first byte is P's byte 15 */
#define R2_LEN   (P_LEN - R2_START)

/* What R2 must show whatever happened to P and R1: P's bytes 15..99, its own metadata. */
static void check_r2(const struct dpk_packet *r2, const unsigned char *p_data)
{
	ASSERT_EQ(R2_LEN, dpk_packet_len(r2));
	ASSERT_EQ(R2_LEN, dpk_packet_seg_len(r2));
	ASSERT_TRUE((const unsigned char *)dpk_packet_data(r2) == p_data + R2_START);
	ASSERT_EQ(3, dpk_packet_flow_tag(r2));
	check_bytes(r2, 0, R2_LEN, R2_START);
}

/* What R1 shows while nothing changed it: its private head, then P's bytes from 10 on. */
static void check_r1(const struct dpk_packet *r1)
{
	ASSERT_EQ(R1_HEAD + P_LEN - R1_OFF, dpk_packet_len(r1));
	check_bytes(r1, 0, R1_HEAD, 0xa0);
	check_bytes(r1, R1_HEAD, P_LEN - R1_OFF, R1_OFF);
}

static void make_three(struct dpk_packet_pool *pp, struct dpk_packet *pk[NPKT])
{
	unsigned char *d;

	pk[P] = dpk_packet_alloc(pp, P_LEN);
	ASSERT_NOT_NULL(pk[P]);
	d = dpk_packet_data(pk[P]);
	for (unsigned i = 0; i < P_LEN; i++)
		d[i] = (unsigned char)i;
	pk[R1] = dpk_packet_ref(pk[P], R1_OFF);
	ASSERT_NOT_NULL(pk[R1]);
	ASSERT_EQ(0, dpk_packet_push_head(pk[R1], R1_HEAD));
	d = dpk_packet_data(pk[R1]);
	for (unsigned i = 0; i < R1_HEAD; i++)
		d[i] = (unsigned char)(0xa0 + i);
	ASSERT_EQ(0, dpk_packet_flow_tag_set(pk[R1], 3));
	pk[R2] = dpk_packet_ref(pk[R1], R2_OFF);
	ASSERT_NOT_NULL(pk[R2]);
	ASSERT_EQ(3, in_use(pp));
}

/* R2 references P, not R1: the predicates, R2's view, and P read-only. */
static void reference_of_reference_holds_the_owner(void)
{
	struct dpk_packet_pool *pp = make(COUNT, BUF, HEAD, 0, 0, DPK_POOL_F_DEBUG);
	struct dpk_packet *pk[NPKT];
	unsigned char *p_data;

	ASSERT_NOT_NULL(pp);
	make_three(pp, pk);
	p_data = dpk_packet_data(pk[P]);
	EXPECT_TRUE(dpk_packet_has_ref(pk[P]));
	EXPECT_FALSE(dpk_packet_has_ref(pk[R1]));
	EXPECT_FALSE(dpk_packet_has_ref(pk[R2]));
	EXPECT_FALSE(dpk_packet_is_referencing(pk[P]));
	EXPECT_TRUE(dpk_packet_is_referencing(pk[R1]));
	EXPECT_TRUE(dpk_packet_is_referencing(pk[R2]));
	check_r2(pk[R2], p_data);
	EXPECT_EQ(BUF, dpk_packet_headroom(pk[R2]));
	EXPECT_EQ(0, dpk_packet_tailroom(pk[R2]));
	expect_read_only(pk[P]);
	check_r1(pk[R1]);
	for (unsigned i = NPKT; i-- > 0;)
		dpk_packet_free(pk[i]);
	ASSERT_EQ(0, in_use(pp));
	ASSERT_EQ(0, dpk_pool_audit(dpk_packet_pool_to_pool(pp), NULL, NULL, NULL));
	dpk_packet_pool_free(pp);
}

/* R1 is not made read-only by R2, and nothing R1 does reaches R2; nor the other way. */
static void referencing_packet_stays_changeable(void)
{
	struct dpk_packet_pool *pp = make(COUNT, BUF, HEAD, 0, 0, DPK_POOL_F_DEBUG);
	struct dpk_packet *pk[NPKT];
	unsigned char *p_data, *h;

	ASSERT_NOT_NULL(pp);
	make_three(pp, pk);
	p_data = dpk_packet_data(pk[P]);

	/* Its private headroom: the rest of its own buffer, which R2 does not see. */
	ASSERT_EQ(BUF - R1_HEAD, dpk_packet_headroom(pk[R1]));
	ASSERT_EQ(0, dpk_packet_push_head(pk[R1], 2));
	ASSERT_EQ(BUF - R1_HEAD - 2, dpk_packet_headroom(pk[R1]));
	h = dpk_packet_data(pk[R1]);
	h[0] = 0x9e;
	h[1] = 0x9f;
	check_bytes(pk[R1], 0, R1_HEAD + 2, 0x9e);
	check_r2(pk[R2], p_data);
	EXPECT_EQ(-ENOSPC, dpk_packet_push_head(pk[R1], BUF));

	/* The other changes: each succeeds on R1 (put_tail finds no tailroom, as on any
	 * referencing packet) and none moves R2. */
	EXPECT_EQ(-ENOSPC, dpk_packet_put_tail(pk[R1], 1));
	EXPECT_EQ(0, dpk_packet_trim_tail(pk[R1], 4));
	EXPECT_EQ(0, dpk_packet_flow_tag_set(pk[R1], 9));
	EXPECT_EQ(9, dpk_packet_flow_tag(pk[R1]));
	/* Past the private head into the shared part: R1 now starts at P's byte 13. */
	EXPECT_EQ(0, dpk_packet_pull_head(pk[R1], R1_HEAD + 2 + 3));
	EXPECT_TRUE((unsigned char *)dpk_packet_data(pk[R1]) == p_data + R1_OFF + 3);
	EXPECT_EQ(P_LEN - R1_OFF - 3 - 4, dpk_packet_len(pk[R1]));
	check_r2(pk[R2], p_data);
	EXPECT_FALSE(dpk_packet_has_ref(pk[R1]));

	/* R2 changes its own view and head; R1 and P do not move. */
	EXPECT_EQ(0, dpk_packet_push_head(pk[R2], 4));
	EXPECT_EQ(0, dpk_packet_trim_tail(pk[R2], 1));
	EXPECT_EQ(0, dpk_packet_flow_tag_set(pk[R2], 5));
	EXPECT_EQ(9, dpk_packet_flow_tag(pk[R1]));
	EXPECT_TRUE((unsigned char *)dpk_packet_data(pk[R1]) == p_data + R1_OFF + 3);
	EXPECT_EQ(P_LEN, dpk_packet_len(pk[P]));
	expect_read_only(pk[P]);
	check_bytes(pk[P], 0, P_LEN, 0);
	for (unsigned i = 0; i < NPKT; i++)
		dpk_packet_free(pk[i]);
	ASSERT_EQ(0, in_use(pp));
	ASSERT_EQ(0, dpk_pool_audit(dpk_packet_pool_to_pool(pp), NULL, NULL, NULL));
	dpk_packet_pool_free(pp);
}

/* Buffers in use while the packets of @p alive live: R1's and R2's own, and P's while
 * anyone of the three lives. */
static unsigned expected_in_use(const bool alive[NPKT])
{
	return (unsigned)alive[R1] + (unsigned)alive[R2] + (alive[P] || alive[R1] || alive[R2]);
}

/* Free the three in order @p order, checking what the others see after each free. */
static void free_in_order(struct dpk_packet_pool *pp, const unsigned order[NPKT])
{
	struct dpk_packet *pk[NPKT];
	bool alive[NPKT] = {true, true, true};
	unsigned char *p_data;

	make_three(pp, pk);
	p_data = dpk_packet_data(pk[P]);
	for (unsigned k = 0; k < NPKT; k++) {
		dpk_packet_free(pk[order[k]]);
		alive[order[k]] = false;
		EXPECT_EQ(expected_in_use(alive), in_use(pp));
		if (alive[P])
			EXPECT_EQ(alive[R1] || alive[R2], dpk_packet_has_ref(pk[P]));
		if (alive[R1]) {
			EXPECT_FALSE(dpk_packet_has_ref(pk[R1]));
			check_r1(pk[R1]);
		}
		if (alive[R2])
			check_r2(pk[R2], p_data);
	}
	ASSERT_EQ(0, in_use(pp));
}

static void check_every_free_order(unsigned flags)
{
	static const unsigned orders[6][NPKT] = {
	        {P, R1, R2}, {P, R2, R1}, {R1, P, R2}, {R1, R2, P}, {R2, P, R1}, {R2, R1, P},
	};
	struct dpk_packet_pool *pp = make(COUNT, BUF, HEAD, 0, 0, flags);
	struct dpk_packet *fresh[COUNT];

	ASSERT_NOT_NULL(pp);
	for (unsigned i = 0; i < 6; i++) {
		dpk_test_note("free order %u %u %u", orders[i][0], orders[i][1], orders[i][2]);
		free_in_order(pp, orders[i]);
	}
	/* Every buffer came back once, and comes out again as a fresh packet. */
	ASSERT_EQ(0, dpk_pool_audit(dpk_packet_pool_to_pool(pp), NULL, NULL, NULL));
	for (unsigned i = 0; i < COUNT; i++) {
		fresh[i] = dpk_packet_alloc(pp, 1);
		ASSERT_NOT_NULL(fresh[i]);
		EXPECT_FALSE(dpk_packet_has_ref(fresh[i]));
		EXPECT_FALSE(dpk_packet_is_referencing(fresh[i]));
	}
	dpk_packet_free_multi(fresh, COUNT);
	ASSERT_EQ(0, in_use(pp));
	dpk_packet_pool_free(pp);
}

static void every_free_order(void)
{
	check_every_free_order(0);
}

static void every_free_order_debug(void)
{
	check_every_free_order(DPK_POOL_F_DEBUG);
}

/* free_multi takes the same path: all three in one call, in each order. */
static void every_free_order_multi(void)
{
	static const unsigned orders[6][NPKT] = {
	        {P, R1, R2}, {P, R2, R1}, {R1, P, R2}, {R1, R2, P}, {R2, P, R1}, {R2, R1, P},
	};
	struct dpk_packet_pool *pp = make(COUNT, BUF, HEAD, 0, 0, DPK_POOL_F_DEBUG);

	ASSERT_NOT_NULL(pp);
	for (unsigned i = 0; i < 6; i++) {
		struct dpk_packet *pk[NPKT], *arr[NPKT];

		make_three(pp, pk);
		for (unsigned k = 0; k < NPKT; k++)
			arr[k] = pk[orders[i][k]];
		dpk_packet_free_multi(arr, NPKT);
		ASSERT_EQ(0, in_use(pp));
	}
	ASSERT_EQ(0, dpk_pool_audit(dpk_packet_pool_to_pool(pp), NULL, NULL, NULL));
	dpk_packet_pool_free(pp);
}

/* R1's private head cannot be referenced (ENOTSUP), and a refused reference holds
 * nothing; the first shared byte can. */
static void private_head_is_not_referenced(void)
{
	struct dpk_packet_pool *pp = make(COUNT, BUF, HEAD, 0, 0, DPK_POOL_F_DEBUG);
	struct dpk_packet *pk[NPKT], *r3;
	unsigned char *p_data;

	ASSERT_NOT_NULL(pp);
	make_three(pp, pk);
	p_data = dpk_packet_data(pk[P]);
	for (uint32_t off = 0; off < R1_HEAD; off++) {
		errno = 0;
		EXPECT_NULL(dpk_packet_ref(pk[R1], off));
		EXPECT_EQ(ENOTSUP, errno);
	}
	EXPECT_EQ(3, in_use(pp));
	EXPECT_FALSE(dpk_packet_has_ref(pk[R1]));
	r3 = dpk_packet_ref(pk[R1], R1_HEAD);
	ASSERT_NOT_NULL(r3);
	EXPECT_TRUE((unsigned char *)dpk_packet_data(r3) == p_data + R1_OFF);
	EXPECT_EQ(P_LEN - R1_OFF, dpk_packet_len(r3));
	EXPECT_FALSE(dpk_packet_has_ref(pk[R1]));
	EXPECT_EQ(4, in_use(pp));
	/* P is held by its holder, R1, R2 and r3: it stays read-only until the last goes. */
	dpk_packet_free(pk[R1]);
	dpk_packet_free(pk[R2]);
	EXPECT_TRUE(dpk_packet_has_ref(pk[P]));
	dpk_packet_free(r3);
	EXPECT_FALSE(dpk_packet_has_ref(pk[P]));
	EXPECT_EQ(0, dpk_packet_push_head(pk[P], 1));
	dpk_packet_free(pk[P]);
	ASSERT_EQ(0, in_use(pp));
	ASSERT_EQ(0, dpk_pool_audit(dpk_packet_pool_to_pool(pp), NULL, NULL, NULL));
	dpk_packet_pool_free(pp);
}

/* A static reference of a referencing packet holds it, and makes it read-only. */
static void static_reference_of_referencing_packet(void)
{
	struct dpk_packet_pool *pp = make(COUNT, BUF, HEAD, 0, 0, DPK_POOL_F_DEBUG);
	struct dpk_packet *x, *y, *z, *s;

	ASSERT_NOT_NULL(pp);
	x = dpk_packet_alloc(pp, 100);
	ASSERT_NOT_NULL(x);
	fill(x, 0);
	y = dpk_packet_ref(x, 10);
	ASSERT_NOT_NULL(y);
	ASSERT_EQ(0, dpk_packet_push_head(y, 8));
	z = dpk_packet_ref(y, 8 + 5);
	ASSERT_NOT_NULL(z);
	s = dpk_packet_ref_static(y);
	ASSERT_TRUE(s == y);
	ASSERT_TRUE(dpk_packet_has_ref(y));
	expect_read_only(y);
	ASSERT_EQ(3, in_use(pp));

	dpk_packet_free(x);
	ASSERT_EQ(3, in_use(pp));
	dpk_packet_free(y);
	ASSERT_EQ(3, in_use(pp));
	dpk_packet_free(s); /* y's last holder: y goes, x stays for z */
	ASSERT_EQ(2, in_use(pp));
	check_bytes(z, 0, 85, 15);
	dpk_packet_free(z);
	ASSERT_EQ(0, in_use(pp));
	ASSERT_EQ(0, dpk_pool_audit(dpk_packet_pool_to_pool(pp), NULL, NULL, NULL));
	dpk_packet_pool_free(pp);
}

/* The last free of a referencing packet returns a buffer that the next user gets as a
 * fresh packet: not referencing, no other holder, freed by the never-referenced path. */
static void freed_reference_comes_back_fresh(void)
{
	struct dpk_packet_pool *pp = make(4, BUF, HEAD, 0, 0, DPK_POOL_F_DEBUG);
	struct dpk_packet *x, *y, *s, *pkts[4];

	ASSERT_NOT_NULL(pp);
	x = dpk_packet_alloc(pp, 100);
	ASSERT_NOT_NULL(x);
	y = dpk_packet_ref(x, 10);
	ASSERT_NOT_NULL(y);
	ASSERT_TRUE(dpk_packet_is_referencing(y));
	ASSERT_FALSE(dpk_packet_has_ref(y));
	s = dpk_packet_ref_static(y);
	ASSERT_TRUE(dpk_packet_has_ref(y));
	dpk_packet_free(s);
	ASSERT_FALSE(dpk_packet_has_ref(y));
	ASSERT_EQ(0, dpk_packet_push_head(y, 4)); /* its only holder again */
	dpk_packet_free(y);
	ASSERT_FALSE(dpk_packet_has_ref(x));
	dpk_packet_free(x);
	ASSERT_EQ(0, in_use(pp));
	for (unsigned i = 0; i < 4; i++) {
		pkts[i] = dpk_packet_alloc(pp, 50);
		ASSERT_NOT_NULL(pkts[i]);
		EXPECT_FALSE(dpk_packet_is_referencing(pkts[i]));
		EXPECT_FALSE(dpk_packet_has_ref(pkts[i]));
		EXPECT_EQ(50, dpk_packet_len(pkts[i]));
		EXPECT_EQ(50, dpk_packet_seg_len(pkts[i]));
		EXPECT_EQ(BUF - HEAD - 50, dpk_packet_tailroom(pkts[i]));
		EXPECT_EQ(0, dpk_packet_push_head(pkts[i], 1));
	}
	for (unsigned i = 0; i < 4; i++)
		dpk_packet_free(pkts[i]);
	ASSERT_EQ(0, in_use(pp));
	/* A debug pool refuses a second put of a buffer: none happened. */
	ASSERT_EQ(0, dpk_pool_audit(dpk_packet_pool_to_pool(pp), NULL, NULL, NULL));
	dpk_packet_pool_free(pp);
}

/* Pull and trim walk across the private head and the shared part. */
static void reference_head_and_tail(void)
{
	struct dpk_packet_pool *pp = make(COUNT, BUF, HEAD, 0, 0, 0);
	struct dpk_packet *x, *y;
	unsigned char *h;

	ASSERT_NOT_NULL(pp);
	x = dpk_packet_alloc(pp, 40);
	ASSERT_NOT_NULL(x);
	fill(x, 0);
	y = dpk_packet_ref(x, 10); /* 30 shared bytes: 10..39 */
	ASSERT_NOT_NULL(y);
	ASSERT_EQ(0, dpk_packet_push_head(y, 4));
	h = dpk_packet_data(y);
	memset(h, 0xee, 4);
	ASSERT_EQ(0, dpk_packet_pull_head(y, 6)); /* the head and 2 shared bytes */
	ASSERT_EQ(28, dpk_packet_len(y));
	ASSERT_EQ(28, dpk_packet_seg_len(y));
	ASSERT_TRUE((unsigned char *)dpk_packet_data(y) ==
	            (unsigned char *)dpk_packet_data(x) + 12);
	check_bytes(y, 0, 28, 12);
	ASSERT_EQ(0, dpk_packet_push_head(y, 3));
	ASSERT_EQ(-EINVAL, dpk_packet_trim_tail(y, 32));
	ASSERT_EQ(0, dpk_packet_trim_tail(y, 29)); /* the shared part and 1 head byte */
	ASSERT_EQ(2, dpk_packet_len(y));
	ASSERT_EQ(2, dpk_packet_seg_len(y));
	ASSERT_NULL(dpk_packet_offset(y, 2, NULL));
	ASSERT_EQ(0, dpk_packet_tailroom(y));
	ASSERT_EQ(0, dpk_packet_pull_head(y, 2));
	ASSERT_EQ(0, dpk_packet_len(y));
	ASSERT_TRUE(dpk_packet_is_referencing(y)); /* still holds x */
	dpk_packet_free(x);
	ASSERT_EQ(2, in_use(pp));
	dpk_packet_free(y);
	ASSERT_EQ(0, in_use(pp));
	dpk_packet_pool_free(pp);
}

static void free_multi_with_references(void)
{
	struct dpk_packet_pool *a = make(COUNT, BUF, HEAD, 0, 0, DPK_POOL_F_DEBUG);
	struct dpk_packet_pool *b = make(COUNT, BUF, HEAD, 0, 0, DPK_POOL_F_DEBUG);
	struct dpk_packet *pkts[8], *x, *y;

	ASSERT_NOT_NULL(a);
	ASSERT_NOT_NULL(b);
	x = dpk_packet_alloc(a, 64);
	y = dpk_packet_alloc(b, 64);
	ASSERT_NOT_NULL(x);
	ASSERT_NOT_NULL(y);
	pkts[0] = x;
	pkts[1] = dpk_packet_ref_static(x);
	pkts[2] = dpk_packet_ref(x, 3);
	pkts[3] = y;
	pkts[4] = dpk_packet_ref(y, 60);
	pkts[5] = dpk_packet_ref(pkts[4], 1);
	pkts[6] = NULL;
	pkts[7] = dpk_packet_alloc(b, 1);
	for (unsigned i = 0; i < 8; i++)
		ASSERT_TRUE(i == 6 || pkts[i] != NULL);
	ASSERT_EQ(2, in_use(a));
	ASSERT_EQ(4, in_use(b));
	dpk_packet_free_multi(pkts, 8);
	ASSERT_EQ(0, in_use(a));
	ASSERT_EQ(0, in_use(b));
	ASSERT_EQ(0, dpk_pool_audit(dpk_packet_pool_to_pool(a), NULL, NULL, NULL));
	ASSERT_EQ(0, dpk_pool_audit(dpk_packet_pool_to_pool(b), NULL, NULL, NULL));
	dpk_packet_pool_free(a);
	dpk_packet_pool_free(b);
}

/* One pool only, more packets than one bulk put, NULLs first and among them: all come
 * back once. Then, after a run longer than one bulk, a packet of another pool, a
 * reference and the packet it references. */
static void free_multi_one_pool(void)
{
	enum { N = 100 };
	struct dpk_packet_pool *a = make(N + 8, 128, 0, 0, 0, DPK_POOL_F_DEBUG);
	struct dpk_packet_pool *b = make(8, 128, 0, 0, 0, DPK_POOL_F_DEBUG);
	struct dpk_packet *pkts[N + 8], *x;
	unsigned n = 0;

	ASSERT_NOT_NULL(a);
	ASSERT_NOT_NULL(b);
	pkts[n++] = NULL;
	pkts[n++] = NULL;
	for (unsigned i = 0; i < N; i++) {
		pkts[n] = dpk_packet_alloc(a, 8);
		ASSERT_NOT_NULL(pkts[n]);
		n++;
		if (i % 37 == 5)
			pkts[n++] = NULL;
	}
	dpk_packet_free_multi(pkts, n);
	ASSERT_EQ(0, in_use(a));

	n = 0;
	x = dpk_packet_alloc(a, 8);
	ASSERT_NOT_NULL(x);
	for (unsigned i = 0; i < 40; i++) {
		pkts[n] = dpk_packet_alloc(a, 8);
		ASSERT_NOT_NULL(pkts[n]);
		n++;
	}
	pkts[n] = dpk_packet_alloc(b, 8);
	ASSERT_NOT_NULL(pkts[n]);
	n++;
	pkts[n] = dpk_packet_ref(x, 1);
	ASSERT_NOT_NULL(pkts[n]);
	n++;
	pkts[n++] = x;
	ASSERT_EQ(42, in_use(a));
	ASSERT_EQ(1, in_use(b));
	dpk_packet_free_multi(pkts, n);
	ASSERT_EQ(0, in_use(a));
	ASSERT_EQ(0, in_use(b));
	ASSERT_EQ(0, dpk_pool_audit(dpk_packet_pool_to_pool(a), NULL, NULL, NULL));
	ASSERT_EQ(0, dpk_pool_audit(dpk_packet_pool_to_pool(b), NULL, NULL, NULL));
	dpk_packet_pool_free(a);
	dpk_packet_pool_free(b);
}

static uint64_t next_rand(uint64_t *x)
{
	/* xorshift64 */
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/*
 * free_multi over random runs of packets from six pools (more than it groups at once),
 * runs longer than one bulk put, NULLs, static references and references among them, as
 * an lcore with caches and without: every buffer goes back once, to its own pool.
 */
static void check_free_multi_runs(unsigned cache)
{
	enum { POOLS = 6, EACH = 160, MAX = 400 };
	struct dpk_packet_pool *pps[POOLS];
	struct dpk_packet *pkts[MAX];
	uint64_t x = dpk_test_seed() | 1;

	for (unsigned i = 0; i < POOLS; i++) {
		pps[i] = make(EACH, 128, 0, 0, cache, DPK_POOL_F_DEBUG);
		ASSERT_NOT_NULL(pps[i]);
	}
	for (unsigned round = 0; round < 20; round++) {
		unsigned n = 0;

		while (n < MAX - 4) {
			struct dpk_packet_pool *pp = pps[next_rand(&x) % POOLS];
			unsigned run = 1 + (unsigned)(next_rand(&x) % 70), r = 0;

			for (; r < run && n < MAX - 4 && in_use(pp) < EACH - 2; r++) {
				unsigned what = (unsigned)(next_rand(&x) % 16);
				struct dpk_packet *pkt = dpk_packet_alloc(pp, 64);

				ASSERT_NOT_NULL(pkt);
				pkts[n++] = pkt;
				if (what == 0)
					pkts[n++] = NULL;
				else if (what == 1)
					pkts[n++] = dpk_packet_ref_static(pkt);
				else if (what == 2)
					pkts[n++] = dpk_packet_ref(pkt, 5);
				ASSERT_NOT_NULL(pkts[n - 1 - (what == 0)]);
			}
			if (r < run)
				break;
		}
		/* Referencing packets may come before what they reference: swap some. */
		for (unsigned i = 0; i + 1 < n; i += 1 + (unsigned)(next_rand(&x) % 5)) {
			struct dpk_packet *t = pkts[i];

			pkts[i] = pkts[i + 1];
			pkts[i + 1] = t;
		}
		dpk_packet_free_multi(pkts, n);
		for (unsigned i = 0; i < POOLS; i++)
			ASSERT_EQ(0, in_use(pps[i]));
	}
	for (unsigned i = 0; i < POOLS; i++) {
		struct dpk_pool_audit_report rep;

		EXPECT_EQ(0, dpk_pool_audit(dpk_packet_pool_to_pool(pps[i]), &rep, NULL, NULL));
		EXPECT_EQ(0, rep.refused_puts);
		EXPECT_EQ(0, rep.duplicates);
		dpk_packet_pool_free(pps[i]);
	}
}

static void free_multi_runs(void)
{
	check_free_multi_runs(0);
}

static void free_multi_runs_cached(void)
{
	int rc = dpk_lcore_init("0");

	if (rc == -ENODEV)
		DPK_SKIP("CPU 0 is not available");
	ASSERT_EQ(0, rc);
	check_free_multi_runs(16);
	ASSERT_EQ(0, dpk_lcore_fini());
}

/* With DPK_POOL_F_DEBUG underneath, a packet freed twice is caught, not recycled twice. */
static void debug_pool_catches_double_free(void)
{
	struct dpk_packet_pool *pp = make(COUNT, BUF, HEAD, 0, 0, DPK_POOL_F_DEBUG);
	struct dpk_pool_audit_report r;
	struct dpk_packet *pkt;

	ASSERT_NOT_NULL(pp);
	pkt = dpk_packet_alloc(pp, 10);
	ASSERT_NOT_NULL(pkt);
	dpk_packet_free(pkt);
	dpk_packet_free(pkt);
	ASSERT_EQ(0, in_use(pp));
	ASSERT_EQ(-EBADMSG, dpk_pool_audit(dpk_packet_pool_to_pool(pp), &r, NULL, NULL));
	ASSERT_EQ(1, r.refused_puts);
	ASSERT_EQ(0, r.duplicates);
	dpk_packet_pool_free(pp);
}

static const struct dpk_test_case cases[] = {
        DPK_TEST(static_reference),
        DPK_TEST(reference_at_offset),
        DPK_TEST(reference_errors),
        DPK_TEST(reference_of_reference_holds_the_owner),
        DPK_TEST(referencing_packet_stays_changeable),
        DPK_TEST(every_free_order),
        DPK_TEST(every_free_order_debug),
        DPK_TEST(every_free_order_multi),
        DPK_TEST(private_head_is_not_referenced),
        DPK_TEST(static_reference_of_referencing_packet),
        DPK_TEST(freed_reference_comes_back_fresh),
        DPK_TEST(reference_head_and_tail),
        DPK_TEST(free_multi_with_references),
        DPK_TEST(free_multi_one_pool),
        DPK_TEST(free_multi_runs),
        DPK_TEST(free_multi_runs_cached),
        DPK_TEST(debug_pool_catches_double_free),
};

DPK_TEST_MAIN(cases)
