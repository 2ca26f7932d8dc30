/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dpk-bench peers --processes N: this program run N times, one process after the other,
 * each as "peers --processes 1 --quiet --json FILE --time T/N" with the rest of the command
 * line as given; then their rows merged.
 *
 * A peers ratio moves from one process to the next by more than the interval one process
 * gives (docs/peers.md, "Several processes"), so a verdict that rests on one process is a
 * draw. A merged row's
 * figures and ratio are the geometric means of the processes'; its interval runs from the
 * lowest process's lower bound to the highest one's upper bound, so a verdict (the whole
 * interval beyond the noise) is one every process gave; a row that any process gave no
 * ratio or no interval has none. --json writes the first process's results document with
 * the merged rows, this program's command line and the whole run's wall time.
 *
 * The processes are this very program (/proc/self/exe), so a user's program built on
 * dpk_bench_main() runs as itself. An interrupt stops the running process; a process that
 * fails, crashes or writes no file ends the run with nothing written; the scratch files go.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "convert.h"
#include "json_read.h"
#include "output.h"
#include "peers_rows.h"

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	(void)sig;
	interrupted = 1;
}

/* One process's file: its document and its rows, which point into it. */
struct proc_file {
	char path[4096];
	struct dpk_jv doc;
	struct dpk_peer_row *row;
	size_t n;
};

struct procs {
	struct dpk_cli *cli;
	unsigned np;
	struct dpk_output *json;
	FILE *out;
	char dir[64];
	struct proc_file f[DPK_PEERS_PROCESSES_MAX];
	struct dpk_peer_table tab; /* the merged rows */
	double wall_s;             /* the processes' run, start to end */
};

/* ---- the processes ------------------------------------------------------------------ */

/* The command line of process @p k into @p argv (room for nfwd + 12 + words). */
static void child_argv(const struct procs *ps, unsigned k, const char *share, const char **argv)
{
	static const char *const own[] = {"--time", "--json", "--processes", "--quiet"};
	const struct dpk_cli *cli = ps->cli;
	unsigned n = 2;

	argv[0] = cli->argv[0];
	argv[1] = "peers";
	n += dpk_cli_forwarded(cli, own, sizeof(own) / sizeof(own[0]), argv + 2);
	argv[n++] = "--processes";
	argv[n++] = "1";
	argv[n++] = "--quiet";
	argv[n++] = "--json";
	argv[n++] = ps->f[k].path;
	argv[n++] = "--time";
	argv[n++] = share;
	argv[n++] = "--";
	for (unsigned i = 0; i < cli->nwords; i++)
		argv[n++] = cli->words[i];
	argv[n] = NULL;
}

/* Wait for @p pid; on an interrupt, stop it first. Its wait status, or -1. */
static int wait_for(pid_t pid)
{
	int st;

	for (;;) {
		if (waitpid(pid, &st, 0) == pid)
			return st;
		if (errno != EINTR)
			return -1;
		if (interrupted)
			kill(pid, SIGINT);
	}
}

/* Run process @p k to its end, its tables thrown away. 0, or the exit status to give. */
static int run_one(struct procs *ps, unsigned k, const char *share)
{
	const char *argv[sizeof(ps->cli->fwd) / sizeof(ps->cli->fwd[0]) + 12 + DPK_CLI_WORDS_MAX];
	pid_t pid;
	int st;

	if (interrupted) /* between two processes */
		return 130;
	child_argv(ps, k, share, argv);
	if ((pid = fork()) == 0) {
		int null = open("/dev/null", O_WRONLY);

		if (null >= 0)
			dup2(null, STDOUT_FILENO);
		execv("/proc/self/exe", (char *const *)argv);
		_exit(127);
	}
	if (pid < 0) {
		fprintf(stderr, "dpk-bench peers: cannot start a process: %s\n", strerror(errno));
		return 2;
	}
	st = wait_for(pid);
	if (interrupted)
		return 130;
	if (st != -1 && WIFEXITED(st) && WEXITSTATUS(st) <= 1)
		return 0;
	if (st != -1 && WIFSIGNALED(st))
		fprintf(stderr, "dpk-bench peers: process %u of %u was killed by signal %d (%s)\n",
		        k + 1, ps->np, WTERMSIG(st), strsignal(WTERMSIG(st)));
	else
		fprintf(stderr, "dpk-bench peers: process %u of %u exited with status %d\n", k + 1,
		        ps->np, st == -1 ? -1 : WEXITSTATUS(st));
	return 2;
}

/* ---- a process's rows, read back ---------------------------------------------------- */

static const char *str_of(const struct dpk_jv *o, const char *key)
{
	const struct dpk_jv *v = dpk_jv_get(o, key);

	return v && v->type == DPK_JV_STRING ? v->str.s : NULL;
}

static double num_of(const struct dpk_jv *o, const char *key)
{
	const struct dpk_jv *v = dpk_jv_get(o, key);

	return v && v->type == DPK_JV_NUMBER ? v->num : NAN;
}

static bool side_from(const struct dpk_jv *o, struct dpk_peer_side *s)
{
	s->suite = str_of(o, "suite");
	s->status = str_of(o, "status");
	s->p50 = num_of(o, "p50");
	s->floor = num_of(o, "floor_ticks");
	return s->suite && s->status;
}

/* Row @p w from a "pairs" element @p o of block @p block; false if it lacks a field. */
static bool row_from(const struct dpk_jv *o, const char *block, struct dpk_peer_row *w)
{
	const char *params = str_of(o, "params"), *note = str_of(o, "note");

	memset(w, 0, sizeof(*w));
	w->block = block;
	w->name = str_of(o, "case");
	w->place = str_of(o, "placement");
	w->unit = str_of(o, "unit");
	w->r = num_of(o, "ratio");
	w->lo = num_of(o, "ci95_lo");
	w->hi = num_of(o, "ci95_hi");
	w->how = str_of(o, "how");
	w->ok = !isnan(w->r);
	w->v = dpk_peer_verdict_parse(str_of(o, "verdict"));
	snprintf(w->params, sizeof(w->params), "%s", params ? params : "");
	snprintf(w->note, sizeof(w->note), "%s", note ? note : "");
	return w->name && params && w->place && w->unit && w->v != DPK_PV_COUNT &&
	       (!w->ok || w->how) && side_from(dpk_jv_get(o, "dpkit"), &w->t) &&
	       side_from(dpk_jv_get(o, "peer"), &w->p);
}

/* Every row of process @p k's file. 0, or 2 with a message. */
static int load_rows(struct procs *ps, unsigned k)
{
	struct proc_file *f = &ps->f[k];
	const struct dpk_jv *blocks;
	char err[256];
	size_t n = 0;

	if (dpk_jv_parse_file(f->path, &f->doc, err, sizeof(err)))
		goto bad;
	blocks = dpk_jv_get(dpk_jv_get(&f->doc, "peers"), "blocks");
	snprintf(err, sizeof(err), "no peers.blocks array");
	if (!blocks || blocks->type != DPK_JV_ARRAY)
		goto bad;
	for (size_t b = 0; b < blocks->arr.n; b++) {
		const struct dpk_jv *pairs = dpk_jv_get(&blocks->arr.v[b], "pairs");

		n += pairs && pairs->type == DPK_JV_ARRAY ? pairs->arr.n : 0;
	}
	snprintf(err, sizeof(err), "out of memory");
	if (!(f->row = calloc(n ? n : 1, sizeof(*f->row))))
		goto bad;
	for (size_t b = 0; b < blocks->arr.n; b++) {
		const struct dpk_jv *o = &blocks->arr.v[b], *pairs = dpk_jv_get(o, "pairs");
		const char *block = str_of(o, "block");

		snprintf(err, sizeof(err), "a block without its name or rows");
		if (!block || !pairs || pairs->type != DPK_JV_ARRAY)
			goto bad;
		for (size_t i = 0; i < pairs->arr.n; i++, f->n++)
			if (!row_from(&pairs->arr.v[i], block, &f->row[f->n])) {
				snprintf(err, sizeof(err), "row %zu of block %s lacks a field",
				         i + 1, block);
				goto bad;
			}
	}
	return 0;
bad:
	fprintf(stderr, "dpk-bench peers: the file of process %u, %s: %s\n", k + 1, f->path, err);
	return 2;
}

/* ---- the merge ---------------------------------------------------------------------- */

static bool same_row(const struct dpk_peer_row *a, const struct dpk_peer_row *b)
{
	return strcmp(a->block, b->block) == 0 && strcmp(a->name, b->name) == 0 &&
	       strcmp(a->params, b->params) == 0 && strcmp(a->place, b->place) == 0 &&
	       strcmp(a->p.suite, b->p.suite) == 0;
}

/* Process @p k's row of row @p w (its i-th), or NULL. */
static const struct dpk_peer_row *find_row(const struct proc_file *f, size_t i,
                                           const struct dpk_peer_row *w)
{
	if (i < f->n && same_row(&f->row[i], w))
		return &f->row[i];
	for (size_t j = 0; j < f->n; j++)
		if (same_row(&f->row[j], w))
			return &f->row[j];
	return NULL;
}

/* The geometric mean of @p n values @p v; NaN when any is NaN or not above 0. */
static double geomean(const double *v, unsigned n)
{
	double s = 0;

	for (unsigned k = 0; k < n; k++) {
		if (!(v[k] > 0))
			return NAN;
		s += log(v[k]);
	}
	return exp(s / n);
}

/* A side merged: process 0's suite; "ok" when every process's was, else the first other
 * status; the medians' and floors' geometric means. */
static void side_merge(struct dpk_peer_side *s, const struct dpk_peer_side *const *x, unsigned n)
{
	double p50[DPK_PEERS_PROCESSES_MAX], fl[DPK_PEERS_PROCESSES_MAX];

	s->status = x[0]->status;
	for (unsigned k = 0; k < n; k++) {
		p50[k] = x[k]->p50;
		fl[k] = x[k]->floor;
		if (strcmp(s->status, "ok") == 0)
			s->status = x[k]->status;
	}
	s->p50 = geomean(p50, n);
	s->floor = geomean(fl, n);
}

/* Why a row some processes judged has no verdict: "dpkit faster in 1 of 2 processes". */
static void beyond_note(struct dpk_peer_row *w, unsigned faster, unsigned slower, unsigned n)
{
	if (faster && slower)
		snprintf(w->note, sizeof(w->note),
		         "dpkit faster in %u of %u processes, slower in %u", faster, n, slower);
	else
		snprintf(w->note, sizeof(w->note), "dpkit %s in %u of %u processes",
		         faster ? "faster" : "slower", faster ? faster : slower, n);
}

/* Row @p w (process 0's copy) merged with its twins @p x[0..n). */
static void row_merge(struct dpk_peer_row *w, const struct dpk_peer_row *const *x, unsigned n,
                      double noise)
{
	const struct dpk_peer_side *ts[DPK_PEERS_PROCESSES_MAX], *pss[DPK_PEERS_PROCESSES_MAX];
	double r[DPK_PEERS_PROCESSES_MAX];
	unsigned faster = 0, slower = 0;
	bool iv = true; /* every process gave an interval */

	w->nproc = n;
	w->note[0] = '\0';
	w->lo = INFINITY;
	w->hi = -INFINITY;
	for (unsigned k = 0; k < n; k++) {
		w->proc[k] = (struct dpk_peer_proc){.t_p50 = x[k]->t.p50,
		                                    .p_p50 = x[k]->p.p50,
		                                    .r = x[k]->ok ? x[k]->r : NAN,
		                                    .lo = x[k]->ok ? x[k]->lo : NAN,
		                                    .hi = x[k]->ok ? x[k]->hi : NAN,
		                                    .how = x[k]->ok ? x[k]->how : NULL,
		                                    .v = x[k]->v};
		ts[k] = &x[k]->t;
		pss[k] = &x[k]->p;
		r[k] = w->proc[k].r;
		if (!w->note[0] && (!x[k]->ok || isnan(x[k]->lo)) && x[k]->note[0])
			snprintf(w->note, sizeof(w->note), "process %u: %.250s", k + 1, x[k]->note);
		iv = iv && !isnan(w->proc[k].lo) && !isnan(w->proc[k].hi);
		w->lo = fmin(w->lo, w->proc[k].lo);
		w->hi = fmax(w->hi, w->proc[k].hi);
		if (x[k]->how && w->how && strcmp(x[k]->how, w->how) != 0)
			w->how = "mixed";
		faster += x[k]->v == DPK_PV_FASTER;
		slower += x[k]->v == DPK_PV_SLOWER;
	}
	side_merge(&w->t, ts, n);
	side_merge(&w->p, pss, n);
	w->r = geomean(r, n);
	w->ok = !isnan(w->r);
	if (!w->ok || !iv)
		w->lo = w->hi = NAN;
	w->v = w->ok ? dpk_peer_verdict_of(w->lo, w->hi, noise) : DPK_PV_NONE;
	if (!w->note[0] && (faster || slower) && w->v != DPK_PV_FASTER && w->v != DPK_PV_SLOWER)
		beyond_note(w, faster, slower, n);
}

/* Process 0's rows, each merged with the other processes'. 0 or 2. */
static int merge(struct procs *ps)
{
	const struct dpk_peer_row *x[DPK_PEERS_PROCESSES_MAX];

	ps->tab.row = calloc(ps->f[0].n ? ps->f[0].n : 1, sizeof(*ps->tab.row));
	if (!ps->tab.row) {
		fprintf(stderr, "dpk-bench peers: out of memory\n");
		return 2;
	}
	for (size_t i = 0; i < ps->f[0].n; i++) {
		struct dpk_peer_row *w = &ps->tab.row[ps->tab.n++];
		unsigned k;

		*w = ps->f[0].row[i];
		for (k = 0; k < ps->np && (x[k] = find_row(&ps->f[k], i, w)); k++)
			;
		if (k == ps->np) {
			row_merge(w, x, ps->np, ps->tab.noise);
			continue;
		}
		w->ok = false;
		w->v = DPK_PV_NONE;
		snprintf(w->note, sizeof(w->note), "not run by process %u", k + 1);
	}
	return 0;
}

/* ---- the merged file ---------------------------------------------------------------- */

/* Member @p m of process 1's document as the merged file has it: the command line and
 * the wall time are this program's, "peers" the merged rows; the rest as written. */
static void top_member(struct dpk_json *j, const struct procs *ps, const struct dpk_jv_member *m)
{
	char cmd[4096];

	if (strcmp(m->key, "command") == 0) {
		dpk_cli_command_line(ps->cli, cmd, sizeof(cmd));
		dpk_json_string(j, m->key, cmd);
	} else if (strcmp(m->key, "wall_s") == 0) {
		dpk_json_double(j, m->key, ps->wall_s);
	} else if (strcmp(m->key, "peers") == 0) {
		dpk_peers_json(j, &ps->tab);
	} else {
		dpk_convert_value(j, m->key, &m->value);
	}
}

/* --json: process 1's results document with the merged rows as its "peers". 0 or 2. */
static int write_json(struct procs *ps)
{
	const struct dpk_jv *doc = &ps->f[0].doc;
	struct dpk_json j;
	FILE *f;
	int rc;

	if (!ps->json->path)
		return 0;
	if (!(f = dpk_output_open(ps->json)))
		return 2;
	dpk_json_init(&j, f, true);
	dpk_json_object_begin(&j, NULL);
	for (size_t i = 0; i < doc->obj.n; i++)
		top_member(&j, ps, &doc->obj.m[i]);
	dpk_json_object_end(&j);
	rc = dpk_json_finish(&j);
	if ((fclose(f) != 0) | (rc != 0)) {
		fprintf(stderr, "dpk-bench peers: writing '%s' failed\n", ps->json->path);
		return 2;
	}
	return 0;
}

/* ---- the command -------------------------------------------------------------------- */

/* Every process in turn, its file read back. 0, or the exit status to give. */
static int run_all(struct procs *ps)
{
	bool progress = !ps->cli->quiet && isatty(STDERR_FILENO);
	char share[32];
	int rc = 0;

	snprintf(share, sizeof(share), "%.9g", ps->cli->opt.time_s / ps->np);
	for (unsigned k = 0; k < ps->np && rc == 0; k++) {
		snprintf(ps->f[k].path, sizeof(ps->f[k].path), "%s/process%u.json", ps->dir, k + 1);
		if (progress)
			fprintf(stderr, "\r\033[Kpeers: process %u of %u", k + 1, ps->np);
		rc = run_one(ps, k, share);
		if (progress)
			fprintf(stderr, "\r\033[K");
		if (rc == 0)
			rc = load_rows(ps, k);
	}
	return rc;
}

/* 1 when a case failed in any process, else 0. */
static int status_of(const struct procs *ps)
{
	for (unsigned k = 0; k < ps->np; k++) {
		const struct dpk_jv *res = dpk_jv_get(&ps->f[k].doc, "results");

		for (size_t i = 0; res && res->type == DPK_JV_ARRAY && i < res->arr.n; i++) {
			const char *st = str_of(&res->arr.v[i], "status");

			if (st && strcmp(st, "failed") == 0)
				return 1;
		}
	}
	return 0;
}

static void procs_free(struct procs *ps)
{
	for (unsigned k = 0; k < ps->np; k++) {
		if (ps->f[k].path[0])
			unlink(ps->f[k].path);
		free(ps->f[k].row);
		dpk_jv_free(&ps->f[k].doc);
	}
	free(ps->tab.row);
	if (ps->dir[0])
		rmdir(ps->dir);
}

int dpk_peers_processes(struct dpk_cli *cli, unsigned np, struct dpk_output *json, FILE *out,
                        double mhz)
{
	struct procs ps = {.cli = cli,
	                   .np = np,
	                   .json = json,
	                   .out = out,
	                   .tab = {.noise = dpk_cli_or(cli->noise, DPK_CLI_NOISE),
	                           .processes = np,
	                           .mhz = mhz}};
	struct sigaction sa = {.sa_handler = on_signal}, old_int, old_term;
	struct timespec t0, t1;
	int rc;

	snprintf(ps.dir, sizeof(ps.dir), "/tmp/dpk-peers-XXXXXX");
	if (!mkdtemp(ps.dir)) {
		fprintf(stderr, "dpk-bench peers: cannot make a scratch directory: %s\n",
		        strerror(errno));
		return 2;
	}
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	rc = run_all(&ps);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ps.wall_s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	if (rc == 0 && (rc = merge(&ps)) == 0) {
		dpk_peers_print(out, &ps.tab, cli->suites);
		fflush(out);
		rc = write_json(&ps);
	}
	if (rc == 0)
		rc = status_of(&ps);
	else if (rc == 2)
		fprintf(stderr, "dpk-bench peers: stopped, nothing written\n");
	procs_free(&ps);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	return rc;
}
