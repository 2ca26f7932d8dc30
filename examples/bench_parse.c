/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bench_parse - your own function timed by dpk-bench's method, beside dpkit's suites.
 *
 * The code under test is a dotted-quad IPv4 parser and an FNV-1a hash, as a program of
 * your own would have them. Each is a case of the suite "mycode": the harness sizes the
 * batches, warms up, times them in rounds and reports per call; the bodies check their
 * results as they go, so a wrong answer fails the case instead of printing a figure.
 * main() is the whole dpk-bench command line over this suite and dpkit's own:
 *
 *     ./bench_parse list
 *     ./bench_parse run mycode --time 0.5s
 *     ./bench_parse run mycode --json a.json     (then again, b.json, after a change)
 *     ./bench_parse compare a.json b.json
 *     ./bench_parse run 'ring/spsc_bulk*'        (dpkit's ring on the same machine)
 *
 * Build it with optimisation: -O2, as the code it stands for would ship.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include <dpk/bench.h>

/* The code under test. */

/* Parse "a.b.c.d" (each 0..255, no leading '+' or spaces) into *out; 0 or -EINVAL. */
static int parse_ipv4(const char *s, uint32_t *out)
{
	uint32_t addr = 0;

	for (int part = 0; part < 4; part++) {
		unsigned v = 0, digits = 0;

		while (*s >= '0' && *s <= '9' && digits < 3) {
			v = v * 10 + (unsigned)(*s++ - '0');
			digits++;
		}
		if (digits == 0 || v > 255 || *s != (part < 3 ? '.' : '\0'))
			return -EINVAL;
		s++;
		addr = addr << 8 | v;
	}
	*out = addr;
	return 0;
}

static uint64_t fnv1a(const unsigned char *p, size_t len)
{
	uint64_t h = 0xcbf29ce484222325u;

	for (size_t i = 0; i < len; i++) {
		h ^= p[i];
		h *= 0x100000001b3u;
	}
	return h;
}

/* The cases. */

static const char *const addrs[] = {"192.168.1.10", "10.0.0.1", "255.255.255.255", "8.8.4.4"};
#define NADDRS (sizeof(addrs) / sizeof(addrs[0]))

/* One call of parse_ipv4() on each address in turn; every result is checked. */
static uint64_t body_ipv4(struct dpk_bench_run *run, unsigned role, uint64_t n)
{
	static const uint32_t want[NADDRS] = {0xc0a8010a, 0x0a000001, 0xffffffff, 0x08080404};
	(void)role;

	for (uint64_t i = 0; i < n; i++) {
		uint32_t a = 0;

		if (parse_ipv4(addrs[i % NADDRS], &a) != 0 || a != want[i % NADDRS]) {
			dpk_bench_fail(run, "parse_ipv4(\"%s\") gave %08x", addrs[i % NADDRS],
			               (unsigned)a);
			return i;
		}
	}
	return n;
}

/* A key of the case's "len" bytes, in the harness's arena (dpk_bench_alloc(): the same
 * address in every run, so two runs' figures do not differ by where the heap put it). */
static int setup_hash(struct dpk_bench_run *run)
{
	size_t len = (size_t)dpk_bench_param(run->c, "len", 16);
	unsigned char *key = dpk_bench_alloc(run, len, 64);

	if (!key)
		return -ENOMEM;
	for (size_t i = 0; i < len; i++)
		key[i] = (unsigned char)(i * 7 + 1);
	run->state = key;
	return 0;
}

/* One fnv1a() of the key; the key's first byte changes each call so that the compiler
 * cannot hoist the hash out of the loop, and the sum keeps the results alive. */
static uint64_t body_hash(struct dpk_bench_run *run, unsigned role, uint64_t n)
{
	unsigned char *key = run->state;
	size_t len = (size_t)dpk_bench_param(run->c, "len", 16);
	uint64_t sum = 0;
	(void)role;

	for (uint64_t i = 0; i < n; i++) {
		key[0] = (unsigned char)i;
		sum += fnv1a(key, len);
	}
	DPK_BENCH_KEEP(sum);
	return n;
}

static const struct dpk_bench_case mycode_cases[] = {
        {.name = "ipv4_parse",
         .desc = "one dotted-quad IPv4 address parsed",
         .kind = DPK_BENCH_SINGLE,
         .unit = DPK_UNIT_CALL,
         .body = body_ipv4},
        {.name = "fnv1a",
         .desc = "one FNV-1a hash of a len-byte key",
         .kind = DPK_BENCH_SINGLE,
         .unit = DPK_UNIT_CALL,
         .params = {{"len", 16}},
         .setup = setup_hash,
         .body = body_hash},
        {.name = "fnv1a",
         .desc = "one FNV-1a hash of a len-byte key",
         .kind = DPK_BENCH_SINGLE,
         .unit = DPK_UNIT_CALL,
         .params = {{"len", 256}},
         .setup = setup_hash,
         .body = body_hash},
};

static const struct dpk_bench_suite mycode = {
        .name = "mycode",
        .desc = "a parser and a hash of this program's own",
        .cases = mycode_cases,
        .ncases = sizeof(mycode_cases) / sizeof(mycode_cases[0]),
        .default_on = true,
};

static const struct dpk_bench_suite *const my_suites[] = {&mycode, NULL};

int main(int argc, char **argv)
{
	return dpk_bench_main(argc, argv, my_suites, dpk_bench_dpkit_suites, NULL);
}
