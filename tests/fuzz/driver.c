/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * driver.c - a small deterministic fuzzer for builds without libFuzzer (GCC), on the same
 * command line as libFuzzer's:
 *
 *   TARGET [-max_total_time=S] [-runs=N] [-seed=N] [-max_len=N] [-timeout=S]
 *          [-dict=FILE] [-artifact_prefix=P] CORPUS_DIR_OR_FILE...
 *
 * With files only, each is run once: a replay. With a directory among them, every file of
 * each (in name order) is run, then mutated inputs until -max_total_time seconds or -runs
 * inputs have gone: bit flips, bytes set, inserted and deleted, chunks copied, splices of
 * two corpus entries and dictionary tokens, drawn from a PRNG seeded by -seed. Where the
 * code under test is built with -fsanitize-coverage=trace-pc, an input that reaches code
 * none reached before joins the corpus, so that later mutations start from it.
 *
 * An input that crashes (a signal, a sanitizer report, an abort from a target's check),
 * outlives -timeout seconds or, under ASan, leaks memory is written to P followed by
 * "crash-", "timeout-" or "leak-" and its hash, and a message names the file and the
 * command that replays it.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "fuzz.h"

/* Hooks of the sanitizer runtimes, present only in sanitizer builds. */
void __sanitizer_set_death_callback(void (*cb)(void)) __attribute__((weak));
size_t __sanitizer_get_current_allocated_bytes(void) __attribute__((weak));
int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));
void __sanitizer_cov_trace_pc(void);

#define CORPUS_MAX 8192
#define DICT_MAX   512
#define COV_SIZE   (1u << 16)

struct blob {
	uint8_t *b;
	size_t n;
};

static struct {
	unsigned long long runs, seed;
	double seconds;
	size_t max_len;
	unsigned timeout;
	const char *prefix;
	const char *argv0;
	bool fuzz; /* a directory was given */
} opt = {.runs = 0, .seed = 1, .seconds = 0, .max_len = 4096, .timeout = 20, .prefix = ""};

static struct blob corpus[CORPUS_MAX], dict[DICT_MAX];
static size_t ncorpus, nseeds, ndict;

/* The input running now, for the handlers. */
static const uint8_t *volatile cur;
static volatile size_t cur_n;

/* ---- coverage ----------------------------------------------------------------------- */

/* Pairs of consecutive blocks seen: an edge map, as AFL keeps. */
static uint8_t cov_seen[COV_SIZE];
static uintptr_t cov_prev;
static size_t cov_edges;
static bool cov_new;

void __sanitizer_cov_trace_pc(void)
{
	uintptr_t pc = (uintptr_t)__builtin_return_address(0);
	size_t i = ((pc >> 4) ^ (pc << 8) ^ cov_prev) & (COV_SIZE - 1);

	cov_prev = pc >> 1;
	if (!cov_seen[i]) {
		cov_seen[i] = 1;
		cov_edges++;
		cov_new = true;
	}
}

/* ---- what an input did wrong, written out --------------------------------------------- */

static void put(const char *s)
{
	ssize_t w = write(2, s, strlen(s));
	(void)w;
}

/* Write the input running now to opt.prefix + @p kind + its hash and say so; only calls
 * that a signal handler may make. */
static void write_artifact(const char *kind)
{
	static char path[4096];
	uint64_t h = dpk_fuzz_hash((const uint8_t *)cur, cur_n);
	size_t k = 0;
	int fd;

	for (const char *p = opt.prefix; *p && k < sizeof(path) - 64; p++)
		path[k++] = *p;
	for (const char *p = kind; *p; p++)
		path[k++] = *p;
	path[k++] = '-';
	for (int i = 60; i >= 0; i -= 4)
		path[k++] = "0123456789abcdef"[(h >> i) & 15];
	path[k] = '\0';
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd >= 0) {
		for (size_t done = 0; done < cur_n;) {
			ssize_t w = write(fd, (const uint8_t *)cur + done, cur_n - done);
			if (w <= 0)
				break;
			done += (size_t)w;
		}
		close(fd);
	}
	put("dpk-fuzz: ");
	put(kind);
	put(fd >= 0 ? " input written to " : " input NOT written to ");
	put(path);
	put("\ndpk-fuzz: replay it with: ");
	put(opt.argv0);
	put(" ");
	put(path);
	put("\n");
}

static void on_death(void)
{
	if (cur)
		write_artifact("crash");
}

static void on_signal(int sig)
{
	on_death();
	signal(sig, SIG_DFL);
	raise(sig);
}

static void on_alarm(int sig)
{
	(void)sig;
	if (cur)
		write_artifact("timeout");
	put("dpk-fuzz: an input ran over -timeout\n");
	_exit(1);
}

/* Sanitizers report faults themselves and then call the death callback; an abort (a
 * target's check) and a timeout are ours either way. */
static void install_handlers(void)
{
	static const int faults[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE};

	if (__sanitizer_set_death_callback)
		__sanitizer_set_death_callback(on_death);
	else
		for (size_t i = 0; i < sizeof(faults) / sizeof(faults[0]); i++)
			signal(faults[i], on_signal);
	signal(SIGABRT, on_signal);
	signal(SIGALRM, on_alarm);
}

/* ---- running one input ---------------------------------------------------------------- */

static void arm(unsigned s)
{
	struct itimerval t = {.it_value = {.tv_sec = s}};

	setitimer(ITIMER_REAL, &t, NULL);
}

/* Run @p n bytes at @p data in a buffer of exactly that size (so that ASan sees a read past
 * it); returns whether it reached new code. */
static bool run_once(const uint8_t *data, size_t n)
{
	uint8_t *copy = malloc(n ? n : 1);

	if (!copy) {
		put("dpk-fuzz: out of memory\n");
		exit(2);
	}
	memcpy(copy, data, n);
	cur_n = n;
	cur = copy;
	cov_new = false;
	arm(opt.timeout);
	LLVMFuzzerTestOneInput(copy, n);
	arm(0);
	cur = NULL;
	free(copy);
	return cov_new;
}

/* Run an input; under ASan, one after which more memory is held than before, and again
 * after a second run, has leaked (the first may fill a cache kept for the process). */
static bool run_input(const uint8_t *data, size_t n)
{
	size_t before = __sanitizer_get_current_allocated_bytes
	                        ? __sanitizer_get_current_allocated_bytes()
	                        : 0;
	bool fresh = run_once(data, n);

	if (!__sanitizer_get_current_allocated_bytes ||
	    __sanitizer_get_current_allocated_bytes() <= before)
		return fresh;
	before = __sanitizer_get_current_allocated_bytes();
	run_once(data, n);
	if (__sanitizer_get_current_allocated_bytes() > before) {
		cur = data;
		cur_n = n;
		write_artifact("leak");
		put("dpk-fuzz: the input leaks memory\n");
		exit(1);
	}
	return fresh;
}

/* ---- the corpus and the dictionary ---------------------------------------------------- */

static bool add(struct blob *set, size_t *n, size_t max, const uint8_t *b, size_t len)
{
	uint8_t *copy;

	if (*n >= max || !(copy = malloc(len ? len : 1)))
		return false;
	memcpy(copy, b, len);
	set[*n].b = copy;
	set[(*n)++].n = len;
	return true;
}

/* Read file @p path into the corpus, whole: a replay runs the input as it was written (a
 * mutation starts from its first opt.max_len bytes). */
static void load_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	size_t n = 0, cap = 0;

	while (f && !ferror(f) && !feof(f)) {
		uint8_t *nb = n == cap ? realloc(buf, cap = cap ? 2 * cap : 65536) : buf;

		if (!nb)
			break;
		buf = nb;
		n += fread(buf + n, 1, cap - n, f);
	}
	if (!f || ferror(f) || !add(corpus, &ncorpus, CORPUS_MAX, buf, n)) {
		fprintf(stderr, "dpk-fuzz: cannot read %s: %s\n", path,
		        f ? "too many inputs or too little memory" : strerror(errno));
		exit(2);
	}
	fclose(f);
	free(buf);
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

/* Every regular file of directory @p dir, in name order, or @p dir itself if a file. */
static void load_path(const char *dir)
{
	struct dirent **ents;
	struct stat st;
	int n;

	if (stat(dir, &st) != 0) {
		fprintf(stderr, "dpk-fuzz: %s: %s\n", dir, strerror(errno));
		exit(2);
	}
	if (!S_ISDIR(st.st_mode)) {
		load_file(dir);
		return;
	}
	opt.fuzz = true;
	n = scandir(dir, &ents, NULL, by_name);
	for (int i = 0; i < n; i++) {
		char path[4096];

		snprintf(path, sizeof(path), "%s/%s", dir, ents[i]->d_name);
		if (ents[i]->d_name[0] != '.' && stat(path, &st) == 0 && S_ISREG(st.st_mode))
			load_file(path);
		free(ents[i]);
	}
	if (n >= 0)
		free(ents);
}

static int hexval(char c)
{
	return c >= '0' && c <= '9'   ? c - '0'
	       : c >= 'a' && c <= 'f' ? c - 'a' + 10
	       : c >= 'A' && c <= 'F' ? c - 'A' + 10
	                              : -1;
}

/* One line of a libFuzzer dictionary: [name=]"value" with \\, \" and \xHH escapes. */
static void dict_line(const char *line)
{
	const char *p = strchr(line, '"');
	uint8_t tok[256];
	size_t n = 0;

	if (!p || line[strspn(line, " \t")] == '#')
		return;
	for (p++; *p && *p != '"' && n < sizeof(tok); p++) {
		if (*p == '\\' && p[1] == 'x' && hexval(p[2]) >= 0 && hexval(p[3]) >= 0) {
			tok[n++] = (uint8_t)(hexval(p[2]) * 16 + hexval(p[3]));
			p += 3;
		} else if (*p == '\\' && p[1]) {
			tok[n++] = (uint8_t) * ++p;
		} else {
			tok[n++] = (uint8_t)*p;
		}
	}
	if (n && *p == '"')
		add(dict, &ndict, DICT_MAX, tok, n);
}

static void load_dict(const char *path)
{
	char line[1024];
	FILE *f = fopen(path, "r");

	if (!f) {
		fprintf(stderr, "dpk-fuzz: cannot read the dictionary %s: %s\n", path,
		        strerror(errno));
		exit(2);
	}
	while (fgets(line, sizeof(line), f))
		dict_line(line);
	fclose(f);
}

/* ---- mutations ------------------------------------------------------------------------ */

static uint64_t rng;

static uint64_t next(void)
{
	uint64_t z = (rng += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static size_t below(size_t n)
{
	return n ? (size_t)(next() % n) : 0;
}

/* Insert the @p k bytes at @p src at offset @p at of b[0..*n) (capacity opt.max_len). */
static void insert(uint8_t *b, size_t *n, size_t at, const uint8_t *src, size_t k)
{
	if (*n + k > opt.max_len)
		k = opt.max_len - *n;
	memmove(b + at + k, b + at, *n - at);
	memcpy(b + at, src, k);
	*n += k;
}

/* Bytes that parsers treat specially. */
static const uint8_t special[] = {0,   0xff, 0x7f, 0x80, 0xc0, 0xed, 0xf4, '\n', '"', '\\', ',',
                                  ':', '[',  ']',  '{',  '}',  '-',  '@',  '(',  ')', '0',  '9'};

static void mutate_bytes(uint8_t *b, size_t *n, unsigned how)
{
	uint8_t byte = (next() & 1) ? (uint8_t)next() : special[below(sizeof(special))];
	size_t at = below(*n + 1), k;

	switch (how) {
	case 0: /* a bit flipped */
		if (*n)
			b[below(*n)] ^= (uint8_t)(1u << below(8));
		break;
	case 1: /* a byte set */
		if (*n)
			b[below(*n)] = byte;
		break;
	case 2: /* a byte inserted */
		insert(b, n, at, &byte, 1);
		break;
	case 3: /* a chunk deleted */
		k = at < *n ? 1 + below(*n - at < 16 ? *n - at : 16) : 0;
		memmove(b + at, b + at + k, *n - at - k);
		*n -= k;
		break;
	default: { /* a chunk copied elsewhere */
		uint8_t chunk[64];
		size_t from = below(*n);

		k = *n ? 1 + below(*n - from < sizeof(chunk) ? *n - from : sizeof(chunk)) : 0;
		memcpy(chunk, b + from, k);
		insert(b, n, at, chunk, k);
		break;
	}
	}
}

static void mutate(uint8_t *b, size_t *n)
{
	unsigned how = (unsigned)below(9);
	size_t at = below(*n + 1);
	const struct blob *t;

	if (how < 5) {
		mutate_bytes(b, n, how);
	} else if (how < 7 && ndict) { /* a token inserted, or written over */
		t = &dict[below(ndict)];
		if (how == 6 && at + t->n <= *n)
			memcpy(b + at, t->b, t->n);
		else
			insert(b, n, at, t->b, t->n);
	} else if (how == 7 && ncorpus > 1) { /* spliced: the rest from another entry */
		t = &corpus[below(ncorpus)];
		size_t from = below(t->n + 1), k = t->n - from;

		*n = at;
		insert(b, n, at, t->b + from, k);
	} else if (how == 8 && *n) { /* cut short */
		*n = below(*n);
	} else {
		mutate_bytes(b, n, 2);
	}
}

/* ---- the loop ------------------------------------------------------------------------- */

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Mutated inputs until the time or the count is spent; returns the count. */
static unsigned long long fuzz_loop(double t0)
{
	uint8_t *buf = malloc(opt.max_len ? opt.max_len : 1);
	unsigned long long done = 0;

	if (!buf)
		exit(2);
	while ((!opt.runs || done < opt.runs) && (opt.runs || now() - t0 < opt.seconds)) {
		const struct blob *parent = &corpus[below(ncorpus)];
		size_t n = parent->n < opt.max_len ? parent->n : opt.max_len;

		memcpy(buf, parent->b, n);
		for (unsigned k = 1 + (unsigned)below(4); k > 0; k--)
			mutate(buf, &n);
		if (run_input(buf, n))
			add(corpus, &ncorpus, CORPUS_MAX, buf, n);
		done++;
	}
	free(buf);
	return done;
}

static bool flag(const char *arg, const char *name, const char **val)
{
	size_t k = strlen(name);

	if (strncmp(arg, name, k) != 0 || arg[k] != '=')
		return false;
	*val = arg + k + 1;
	return true;
}

/* The flags; the first argument that is not one ends them. Returns its index. */
static int parse_flags(int argc, char **argv)
{
	const char *v;
	int i;

	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		if (flag(argv[i], "-max_total_time", &v))
			opt.seconds = strtod(v, NULL);
		else if (flag(argv[i], "-runs", &v))
			opt.runs = strtoull(v, NULL, 10);
		else if (flag(argv[i], "-seed", &v))
			opt.seed = strtoull(v, NULL, 10);
		else if (flag(argv[i], "-max_len", &v))
			opt.max_len = strtoul(v, NULL, 10);
		else if (flag(argv[i], "-timeout", &v))
			opt.timeout = (unsigned)strtoul(v, NULL, 10);
		else if (flag(argv[i], "-artifact_prefix", &v))
			opt.prefix = v;
		else if (flag(argv[i], "-dict", &v))
			load_dict(v);
		else {
			fprintf(stderr, "dpk-fuzz: unknown flag %s\n", argv[i]);
			exit(2);
		}
	}
	return i;
}

int main(int argc, char **argv)
{
	int first = parse_flags(argc, argv);
	double t0 = now();
	unsigned long long mutated = 0;

	opt.argv0 = argv[0];
	for (int i = first; i < argc; i++)
		load_path(argv[i]);
	nseeds = ncorpus;
	if (nseeds == 0)
		add(corpus, &ncorpus, CORPUS_MAX, (const uint8_t *)"", 0);
	if (LLVMFuzzerInitialize)
		LLVMFuzzerInitialize(&argc, &argv);
	install_handlers();
	rng = opt.seed;
	for (size_t i = 0; i < nseeds; i++)
		run_input(corpus[i].b, corpus[i].n);
	if (opt.fuzz && (opt.seconds > 0 || opt.runs > 0))
		mutated = fuzz_loop(t0);
	printf("dpk-fuzz: %zu given and %llu mutated inputs in %.1f s (seed %llu): no crash; "
	       "corpus %zu, %zu edges\n",
	       nseeds, mutated, now() - t0, opt.seed, ncorpus, cov_edges);
	return 0;
}
