/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ab_run.c - dpk-bench ab: two builds as long-lived children (serve.h), driven set by set
 * and round by round in turn, in a random order per pair of rounds, on the same lcores;
 * a fresh pair of them as many times as --processes asks; then their results paired
 * (ab.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ab.h"
#include "ab_run.h"
#include "html.h"
#include "output.h"
#include "serve.h"

#define LINE_MAX_LEN 512
#define SETS_MAX     256
#define CASES_MAX    4096

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	(void)sig;
	interrupted = 1;
}

/* A set as a child announced it. */
struct child_set {
	char key[192]; /* suite|kind|placement */
	unsigned rounds, k;
	double round_s;      /* a round's expected length */
	unsigned first_case; /* index into the child's case ids */
};

struct child {
	const char *name; /* "base" or "new" */
	const char *bin;
	char json[4096]; /* where it writes its results */
	pid_t pid;
	int to, from;
	char buf[LINE_MAX_LEN * 4];
	size_t nbuf;
	char banner[LINE_MAX_LEN];
	struct child_set set[SETS_MAX];
	unsigned nsets;
	char *ids[CASES_MAX];
	unsigned nids;
};

/* The failure that ends an ab run: the message, the exit status. */
struct ab_fail {
	char msg[LINE_MAX_LEN * 2];
	int status;
};

static int fail(struct ab_fail *f, int status, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));

static int fail(struct ab_fail *f, int status, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(f->msg, sizeof(f->msg), fmt, ap);
	va_end(ap);
	f->status = status;
	return -1;
}

/* Start @p c as "BIN serve --json PATH ARGS..." with its stdin and stdout on pipes (ARGS
 * may end with "--" and patterns). */
static int spawn(struct child *c, const char *const *args, unsigned nargs, struct ab_fail *f)
{
	int in[2], out[2];
	const char **argv = calloc(nargs + 5, sizeof(*argv));

	if (!argv || pipe2(in, O_CLOEXEC) || pipe2(out, O_CLOEXEC)) {
		free(argv);
		return fail(f, 2, "cannot start %s: %s", c->name, strerror(errno));
	}
	argv[0] = c->bin;
	argv[1] = "serve";
	argv[2] = "--json";
	argv[3] = c->json;
	for (unsigned i = 0; i < nargs; i++)
		argv[4 + i] = args[i];
	c->pid = fork();
	if (c->pid == 0) {
		dup2(in[0], STDIN_FILENO);
		dup2(out[1], STDOUT_FILENO);
		execv(c->bin, (char *const *)argv);
		_exit(127);
	}
	free(argv);
	close(in[0]);
	close(out[1]);
	c->to = in[1];
	c->from = out[0];
	if (c->pid < 0)
		return fail(f, 2, "cannot start %s: %s", c->name, strerror(errno));
	return 0;
}

/* How a child that stopped answering ended, for a message. */
static void how_it_ended(struct child *c, char *buf, size_t len)
{
	int st;

	if (c->pid <= 0 || waitpid(c->pid, &st, WNOHANG) != c->pid) {
		snprintf(buf, len, "closed its output");
		return;
	}
	c->pid = 0;
	if (WIFSIGNALED(st))
		snprintf(buf, len, "was killed by signal %d (%s)", WTERMSIG(st),
		         strsignal(WTERMSIG(st)));
	else if (WEXITSTATUS(st) == 127)
		snprintf(buf, len, "could not be run");
	else
		snprintf(buf, len, "exited with status %d", WEXITSTATUS(st));
}

/* The next line from @p c within @p timeout_s seconds, without its newline. */
static int read_line(struct child *c, char *line, size_t len, double timeout_s,
                     const char *waiting_for, struct ab_fail *f)
{
	struct timespec t0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		char *nl = memchr(c->buf, '\n', c->nbuf);
		struct timespec now;
		struct pollfd p = {.fd = c->from, .events = POLLIN};

		if (nl) {
			size_t n = (size_t)(nl - c->buf);

			snprintf(line, len, "%.*s", (int)n, c->buf);
			memmove(c->buf, nl + 1, c->nbuf - n - 1);
			c->nbuf -= n + 1;
			return 0;
		}
		if (interrupted)
			return fail(f, 130, "interrupted");
		if (c->nbuf == sizeof(c->buf))
			return fail(f, 2, "%s (%s) sent a line over %zu bytes", c->name, c->bin,
			            sizeof(c->buf));
		clock_gettime(CLOCK_MONOTONIC, &now);
		double left = timeout_s - (double)(now.tv_sec - t0.tv_sec) -
		              (double)(now.tv_nsec - t0.tv_nsec) / 1e9;
		if (left <= 0)
			return fail(f, 2, "%s (%s) hung: no answer to %s in %.0f s", c->name,
			            c->bin, waiting_for, timeout_s);
		int rc = poll(&p, 1, (int)(left * 1000) + 1);
		if (rc < 0 && errno == EINTR)
			continue;
		ssize_t got =
		        rc > 0 ? read(c->from, c->buf + c->nbuf, sizeof(c->buf) - c->nbuf) : 0;
		if (rc > 0 && got <= 0 && interrupted)
			return fail(f, 130, "interrupted");
		if (rc > 0 && got <= 0) {
			char how[96];

			how_it_ended(c, how, sizeof(how));
			return fail(f, 2, "%s (%s) %s while answering %s", c->name, c->bin, how,
			            waiting_for);
		}
		if (got > 0)
			c->nbuf += (size_t)got;
	}
}

static int send_line(struct child *c, struct ab_fail *f, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));

static int send_line(struct child *c, struct ab_fail *f, const char *fmt, ...)
{
	char line[LINE_MAX_LEN];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (write(c->to, line, (size_t)n) != n) {
		char how[96];

		how_it_ended(c, how, sizeof(how));
		return fail(f, 2, "%s (%s) %s", c->name, c->bin, how);
	}
	return 0;
}

/* The suite of case id @p id ("ring/..."), into @p buf. */
static const char *suite_of(const char *id, char *buf, size_t len)
{
	const char *slash = strchr(id, '/');

	snprintf(buf, len, "%.*s", slash ? (int)(slash - id) : (int)strlen(id), id);
	return buf;
}

/* One "set" line and the "case" lines after it. */
static int read_set(struct child *c, const char *line, struct ab_fail *f)
{
	struct child_set *s = &c->set[c->nsets];
	char kind[16], place[16], l2[LINE_MAX_LEN], suite[96];
	unsigned i;

	if (c->nsets == SETS_MAX ||
	    sscanf(line, "set %u %15s %15s %u %u %lf", &i, kind, place, &s->k, &s->rounds,
	           &s->round_s) != 6 ||
	    i != c->nsets || s->k == 0 || c->nids + s->k > CASES_MAX)
		return fail(f, 2, "%s (%s): not a set: '%s'", c->name, c->bin, line);
	s->first_case = c->nids;
	for (unsigned j = 0; j < s->k; j++) {
		unsigned at;
		int off = 0;

		if (read_line(c, l2, sizeof(l2), 30, "its plan", f))
			return -1;
		if (sscanf(l2, "case %u %n", &at, &off) != 1 || at != i || !l2[off])
			return fail(f, 2, "%s (%s): not a case of set %u: '%s'", c->name, c->bin, i,
			            l2);
		if (!(c->ids[c->nids++] = strdup(l2 + off)))
			return fail(f, 2, "out of memory");
	}
	snprintf(s->key, sizeof(s->key), "%s|%s|%s",
	         suite_of(c->ids[s->first_case], suite, sizeof(suite)), kind,
	         strcmp(kind, "single") == 0 ? "single" : place);
	c->nsets++;
	return 0;
}

/* The banner, then the sets up to "ready". The clock check comes first: a minute at most. */
static int handshake(struct child *c, struct ab_fail *f)
{
	char line[LINE_MAX_LEN];
	int proto = 0, schema = 0;

	if (read_line(c, line, sizeof(line), 60, "its start", f))
		return -1;
	if (sscanf(line, "dpk-bench-serve %d %d", &proto, &schema) != 2)
		return fail(f, 2, "%s: '%s' is not a dpk-bench that can serve ab (it said '%.60s')",
		            c->name, c->bin, line);
	if (proto != DPK_SERVE_PROTOCOL)
		return fail(f, 2, "%s: '%s' speaks ab protocol %d, this dpk-bench %d", c->name,
		            c->bin, proto, DPK_SERVE_PROTOCOL);
	snprintf(c->banner, sizeof(c->banner), "%s", line);
	for (;;) {
		if (read_line(c, line, sizeof(line), 60, "its plan", f))
			return -1;
		if (strcmp(line, "ready") == 0)
			return 0;
		if (read_set(c, line, f))
			return -1;
	}
}

/* An ab run in progress. */
struct ab {
	const struct dpk_ab_args *a;
	struct child ch[2]; /* base, new: the pair of processes running */
	unsigned gen;       /* which pair of processes, from 0 */
	char path[DPK_AB_PROCESSES_MAX][2][sizeof(((struct child *)0)->json)]; /* results files */
	unsigned long rng;
	struct ab_fail f;
	bool progress;
	struct timespec t0;
	unsigned set_no, nsets_run;
};

static unsigned coin(struct ab *ab)
{
	/* xorshift64: enough to put either build first in each pair of rounds. */
	ab->rng ^= ab->rng << 13;
	ab->rng ^= ab->rng >> 7;
	ab->rng ^= ab->rng << 17;
	return (unsigned)(ab->rng >> 32) & 1;
}

/* Round @p q of set @p si of child @p c: "done", or the case that failed. */
static int child_round(struct ab *ab, struct child *c, unsigned si, unsigned q)
{
	const double patience = 30.0 + 10.0 * c->set[si].round_s;
	char line[LINE_MAX_LEN], what[64], want[64];
	unsigned i, qq;
	int off = 0;

	snprintf(what, sizeof(what), "'round %u %u'", si, q);
	if (send_line(c, &ab->f, "round %u %u\n", si, q) ||
	    read_line(c, line, sizeof(line), patience, what, &ab->f))
		return -1;
	snprintf(want, sizeof(want), "done %u %u", si, q);
	if (strcmp(line, want) == 0)
		return 0;
	if (sscanf(line, "failed %u %u %n", &i, &qq, &off) == 2 && off)
		return fail(&ab->f, 2, "a case failed in %s (%s): %s", c->name, c->bin, line + off);
	return fail(&ab->f, 2, "%s (%s) answered %s with '%s'", c->name, c->bin, what, line);
}

static void show_progress(struct ab *ab, const struct child_set *s, unsigned q)
{
	struct timespec now;

	if (!ab->progress)
		return;
	clock_gettime(CLOCK_MONOTONIC, &now);
	fprintf(stderr, "\r\033[Kab: processes %u of %u, set %u of %u (%s), round %u of %u, %.0f s",
	        ab->gen + 1, ab->a->processes, ab->set_no + 1, ab->nsets_run, s->key, q + 1,
	        s->rounds, (double)(now.tv_sec - ab->t0.tv_sec));
	fflush(stderr);
}

/* Close set @p si of @p c: its cases judged. */
static int child_close(struct ab *ab, struct child *c, unsigned si)
{
	char line[LINE_MAX_LEN], want[32], what[32];

	snprintf(what, sizeof(what), "'close %u'", si);
	snprintf(want, sizeof(want), "closed %u", si);
	if (send_line(c, &ab->f, "close %u\n", si) ||
	    read_line(c, line, sizeof(line), 60, what, &ab->f))
		return -1;
	return strcmp(line, want) == 0 ? 0
	                               : fail(&ab->f, 2, "%s (%s) answered %s with '%s'", c->name,
	                                      c->bin, what, line);
}

/* Set @p sb of base and its match @p sn of new, round by round, each pair in a random
 * order. */
static int run_set(struct ab *ab, unsigned sb, unsigned sn)
{
	const struct child_set *s = &ab->ch[0].set[sb];
	const unsigned rounds =
	        s->rounds < ab->ch[1].set[sn].rounds ? s->rounds : ab->ch[1].set[sn].rounds;

	for (unsigned q = 0; q < rounds; q++) {
		const unsigned first = coin(ab);

		show_progress(ab, s, q);
		for (unsigned w = 0; w < 2; w++) {
			const unsigned who = first ^ w;

			if (child_round(ab, &ab->ch[who], who ? sn : sb, q))
				return -1;
		}
	}
	return child_close(ab, &ab->ch[0], sb) || child_close(ab, &ab->ch[1], sn) ? -1 : 0;
}

/* The set of @p c with key @p key, or -1. */
static int find_set(const struct child *c, const char *key)
{
	for (unsigned i = 0; i < c->nsets; i++)
		if (strcmp(c->set[i].key, key) == 0)
			return (int)i;
	return -1;
}

/* Every set of base that new has too, in base's order. */
static int run_sets(struct ab *ab)
{
	ab->nsets_run = 0;
	ab->set_no = 0;
	for (unsigned i = 0; i < ab->ch[0].nsets; i++)
		ab->nsets_run += find_set(&ab->ch[1], ab->ch[0].set[i].key) >= 0;
	for (unsigned i = 0; i < ab->ch[0].nsets; i++) {
		int j = find_set(&ab->ch[1], ab->ch[0].set[i].key);

		if (j < 0)
			continue;
		if (run_set(ab, i, (unsigned)j))
			return -1;
		ab->set_no++;
	}
	if (ab->progress)
		fprintf(stderr, "\r\033[K");
	return 0;
}

/* Tell @p c to finish and wait for it to write its results and exit. */
static int child_finish(struct ab *ab, struct child *c)
{
	char line[LINE_MAX_LEN];
	int st;

	if (send_line(c, &ab->f, "finish\n") ||
	    read_line(c, line, sizeof(line), 60, "'finish'", &ab->f))
		return -1;
	if (strcmp(line, "finished") != 0)
		return fail(&ab->f, 2, "%s (%s) could not write its results: %s", c->name, c->bin,
		            line);
	if (waitpid(c->pid, &st, 0) == c->pid)
		c->pid = 0;
	return 0;
}

/* Stop whatever child still runs: SIGTERM, then SIGKILL after two seconds. */
static void stop_children(struct ab *ab)
{
	for (unsigned w = 0; w < 2; w++) {
		struct child *c = &ab->ch[w];

		if (c->pid > 0)
			kill(c->pid, SIGTERM);
	}
	for (unsigned w = 0; w < 2; w++) {
		struct child *c = &ab->ch[w];

		for (unsigned t = 0; c->pid > 0 && t < 200; t++) {
			if (waitpid(c->pid, NULL, WNOHANG) == c->pid)
				c->pid = 0;
			else
				usleep(10000);
		}
		if (c->pid > 0) {
			kill(c->pid, SIGKILL);
			waitpid(c->pid, NULL, 0);
			c->pid = 0;
		}
	}
}

/* Write the ab JSON and the HTML page, if asked, opened only now (output.h). */
static int dpk_ab_outputs(const struct dpk_ab_args *a, const struct dpk_results *rb,
                          const struct dpk_results *rn, const struct dpk_ab_report *rep, int status,
                          struct ab_fail *f)
{
	FILE *out;

	if (a->json->path) {
		if (!(out = dpk_output_open(a->json)) ||
		    (dpk_ab_write_json(out, rb, rn, rep, status) | fclose(out)))
			return fail(f, 2, "writing '%s' failed", a->json->path);
	}
	if (a->html->path) {
		const struct dpk_results *files[2] = {rb, rn};
		const struct dpk_html_options o = {.title = "dpk-bench ab"};
		struct dpk_cmp_report cmp;
		int rc;

		if (dpk_ab_to_cmp(rep, &cmp))
			return fail(f, 2, "out of memory");
		out = dpk_output_open(a->html);
		rc = !out || (dpk_html_report(out, files, 2, &cmp, &o) | fclose(out));
		dpk_cmp_report_free(&cmp);
		if (rc)
			return fail(f, 2, "writing '%s' failed", a->html->path);
	}
	return 0;
}

/* Load every process's results file, into @p rb and @p rn; 0, or -1 with ab->f set. */
static int load_all(struct ab *ab, struct dpk_results *rb, struct dpk_results *rn)
{
	char err[512];

	for (unsigned g = 0; g < ab->a->processes; g++)
		if (dpk_results_load(ab->path[g][0], &rb[g], err, sizeof(err)) ||
		    dpk_results_load(ab->path[g][1], &rn[g], err, sizeof(err)))
			return fail(&ab->f, 2, "reading a build's results: %s", err);
	return 0;
}

/* Load the results files and pair them; print, and write what was asked. */
static int judge(struct ab *ab)
{
	const struct dpk_ab_args *a = ab->a;
	struct dpk_results rb[DPK_AB_PROCESSES_MAX], rn[DPK_AB_PROCESSES_MAX];
	struct dpk_ab_report rep;
	struct dpk_ab_options o = {
	        .noise = a->noise, .fail_above = a->fail_above, .process_sigma = a->process_sigma};
	char err[512];
	int status = 2;

	memset(rb, 0, sizeof(rb));
	memset(rn, 0, sizeof(rn));
	if (load_all(ab, rb, rn)) {
		/* ab->f says why */
	} else if (dpk_ab_compare_processes(rb, rn, a->processes, &o, &rep, err, sizeof(err))) {
		fail(&ab->f, 2, "%s", err);
	} else {
		/* Standard output carries a file alone, when one goes there. */
		FILE *table = a->json->to_stdout || a->html->to_stdout ? stderr : stdout;

		dpk_ab_print(table, a->base, a->new, &rep);
		fflush(table);
		status = rep.gate_failures ? 1 : 0;
		status = dpk_ab_outputs(a, &rb[0], &rn[0], &rep, status, &ab->f) ? 2 : status;
		dpk_ab_report_free(&rep);
	}
	for (unsigned g = 0; g < a->processes; g++) {
		dpk_results_free(&rb[g]);
		dpk_results_free(&rn[g]);
	}
	return status;
}

/* Start a pair of processes, one of each build, one after the other so that their clock
 * checks do not meet. */
static int start_both(struct ab *ab, const char *dir)
{
	const struct dpk_ab_args *a = ab->a;
	int sb = 0, sn = 0;

	for (unsigned w = 0; w < 2; w++) {
		struct child *c = &ab->ch[w];

		c->name = w ? "new" : "base";
		c->bin = w ? a->new : a->base;
		snprintf(c->json, sizeof(c->json), "%s/%s-%u.json", dir, c->name, ab->gen + 1);
		snprintf(ab->path[ab->gen][w], sizeof(ab->path[0][0]), "%s", c->json);
		if (access(c->bin, X_OK) != 0)
			return fail(&ab->f, 2, "%s: '%s' is not a program that can be run: %s",
			            c->name, c->bin, strerror(errno));
		if (spawn(c, a->child_args, a->nchild_args, &ab->f) || handshake(c, &ab->f))
			return -1;
	}
	sscanf(ab->ch[0].banner, "dpk-bench-serve %*d %d", &sb);
	sscanf(ab->ch[1].banner, "dpk-bench-serve %*d %d", &sn);
	if (sb != sn)
		return fail(&ab->f, 2,
		            "the builds write different results schemas (base %d, new %d): their "
		            "figures cannot be paired",
		            sb, sn);
	return 0;
}

static void remove_dir(struct ab *ab, const char *dir)
{
	for (unsigned g = 0; g < DPK_AB_PROCESSES_MAX; g++)
		for (unsigned w = 0; w < 2; w++)
			if (ab->path[g][w][0])
				unlink(ab->path[g][w]);
	rmdir(dir);
}

/* Close the pipes of the pair of processes that ran and forget their plans. */
static void release_children(struct ab *ab)
{
	for (unsigned w = 0; w < 2; w++) {
		struct child *c = &ab->ch[w];

		if (c->to > 0)
			close(c->to);
		if (c->from > 0)
			close(c->from);
		for (unsigned i = 0; i < c->nids; i++)
			free(c->ids[i]);
		memset(c, 0, sizeof(*c));
	}
}

/* Every pair of processes in turn: started, its sets run, its results written. */
static int run_processes(struct ab *ab, const char *dir)
{
	for (ab->gen = 0; ab->gen < ab->a->processes; ab->gen++) {
		if (start_both(ab, dir) || run_sets(ab) || child_finish(ab, &ab->ch[0]) ||
		    child_finish(ab, &ab->ch[1]))
			return -1;
		release_children(ab);
	}
	return 0;
}

int dpk_ab_run(const struct dpk_ab_args *a)
{
	struct ab ab = {.a = a, .rng = a->seed ? a->seed : (unsigned long)time(NULL) | 1};
	struct sigaction sa = {.sa_handler = on_signal}, old_int, old_term, old_pipe;
	char dir[] = "/tmp/dpk-ab-XXXXXX";
	int status = 2;

	ab.progress = !a->quiet && isatty(STDERR_FILENO);
	clock_gettime(CLOCK_MONOTONIC, &ab.t0);
	if (!mkdtemp(dir)) {
		fprintf(stderr, "dpk-bench ab: cannot make a scratch directory: %s\n",
		        strerror(errno));
		return 2;
	}
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	sa.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &sa, &old_pipe);
	if (run_processes(&ab, dir) == 0)
		status = judge(&ab);
	if (ab.f.msg[0]) {
		if (ab.progress)
			fprintf(stderr, "\r\033[K");
		fprintf(stderr, "dpk-bench ab: %s%s\n", ab.f.msg,
		        ab.f.status == 2 ? "; both builds stopped, nothing written" : "");
		status = ab.f.status;
	}
	stop_children(&ab);
	release_children(&ab);
	remove_dir(&ab, dir);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	sigaction(SIGPIPE, &old_pipe, NULL);
	return status;
}
