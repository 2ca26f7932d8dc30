/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dpk-bench's whole command line, parsed and checked as every command checks it before it
 * does anything (dpk_cli_check(): the option table, the values, the words, the patterns
 * against dpkit's suites, the lcore spec against the machine), without running a case or
 * touching a file. The input is argv after the program name, its words separated by NUL
 * bytes. A refusal must say why, in a message that fits its buffer; an acceptance must
 * leave a command and values within their bounds; help goes to memory.
 */
#include <math.h>
#include <string.h>

#include <dpk/bench.h>

#include "cli.h"
#include "fuzz.h"

#define ARGS_MAX 48
#define WORD_MAX 300

/* What a parsed command line must hold, whatever the input. */
static void check_parsed(const struct dpk_cli *cli)
{
	if (!cli->cmd || !cli->cmd->name)
		dpk_fuzz_fail("a command line was taken without a command");
	if (cli->nwords > DPK_CLI_WORDS_MAX || cli->patterns.n > DPK_CLI_WORDS_MAX ||
	    cli->excludes.n > DPK_CLI_WORDS_MAX || cli->nfwd > 2 * DPK_CLI_WORDS_MAX)
		dpk_fuzz_fail("%s: more words or globs than the arrays hold", cli->cmd->name);
	if (!cli->help && !cli->version &&
	    (cli->nwords < cli->cmd->min || cli->nwords > cli->cmd->max))
		dpk_fuzz_fail("%s took %u words, outside %u..%u", cli->cmd->name, cli->nwords,
		              cli->cmd->min, cli->cmd->max);
	if (!isnan(cli->noise) && !(cli->noise >= 0 && cli->noise < 1))
		dpk_fuzz_fail("%s: --noise %g taken", cli->cmd->name, cli->noise);
	if (cli->opt.repeat < 1 || cli->opt.repeat > 1000)
		dpk_fuzz_fail("%s: --repeat %u taken", cli->cmd->name, cli->opt.repeat);
	if (!(cli->opt.time_s > 0) || !(cli->opt.warmup_s >= 0))
		dpk_fuzz_fail("%s: --time %g or --warmup %g taken", cli->cmd->name, cli->opt.time_s,
		              cli->opt.warmup_s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char words[ARGS_MAX][WORD_MAX + 1];
	char *argv[ARGS_MAX + 2] = {"dpk-bench"};
	int argc = 1;
	struct dpk_cli cli;
	char err[512];
	struct dpk_fuzz_out help = {0};

	for (size_t i = 0; i <= size && argc <= ARGS_MAX;) {
		const uint8_t *end = memchr(data + i, 0, size - i);
		size_t n = end ? (size_t)(end - (data + i)) : size - i;

		if (n > WORD_MAX)
			n = WORD_MAX;
		memcpy(words[argc - 1], data + i, n);
		words[argc - 1][n] = '\0';
		argv[argc] = words[argc - 1];
		argc++;
		if (!end)
			break;
		i = (size_t)(end - data) + 1;
	}
	argv[argc] = NULL;
	memset(err, 0x55, sizeof(err));
	if (dpk_cli_check(argc, argv, dpk_bench_dpkit_suites, &cli, err, sizeof(err)) != 0) {
		if (!memchr(err, 0, sizeof(err)) || !err[0])
			dpk_fuzz_fail("a command line was refused without a whole message");
		return 0;
	}
	check_parsed(&cli);
	if (cli.help) {
		dpk_cli_help(dpk_fuzz_out_open(&help), cli.cmd);
		dpk_cli_usage(help.f);
		dpk_fuzz_out_close(&help);
		dpk_fuzz_check_text("the help", help.buf, help.len, false);
		dpk_fuzz_out_free(&help);
	}
	return 0;
}
