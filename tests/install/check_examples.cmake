# SPDX-License-Identifier: BSD-3-Clause
# The example programs run as dpk-bench, and the misuse program's messages.

set(quick --time 20ms --warmup 5ms --quiet)

# Each result of a dpkit-bench JSON file as "suite/case placement status", in OUT.
function(json_results file out)
	file(READ ${file} j)
	string(JSON schema GET "${j}" schema)
	string(JSON version GET "${j}" schema_version)
	if(NOT schema STREQUAL "dpkit-bench" OR NOT version EQUAL 1)
		message(FATAL_ERROR "${file}: schema ${schema} version ${version}")
	endif()
	string(JSON n LENGTH "${j}" results)
	set(list)
	math(EXPR last "${n} - 1")
	foreach(i RANGE ${last})
		foreach(f suite case placement status)
			string(JSON ${f} GET "${j}" results ${i} ${f})
		endforeach()
		list(APPEND list "${suite}/${case} ${placement} ${status}")
	endforeach()
	set(${out} "${list}" PARENT_SCOPE)
endfunction()

# bench_parse: list, two runs to JSON and their comparison.
function(run_parse exe work)
	run(${exe} list)
	expect_match("${last_out}" "mycode: .*ipv4_parse .*fnv1a +len=16 .*fnv1a +len=256"
		"bench_parse list")
	expect_match("${last_out}" "\nring: .*\npool: " "bench_parse list: dpkit's suites")
	foreach(k a b)
		run(${exe} run mycode ${quick} --json ${work}/parse_${k}.json)
	endforeach()
	expect_match("${last_out}" "ipv4_parse +single +per call +[0-9.]+ "
		"bench_parse run: the table")
	json_results(${work}/parse_a.json res)
	set(want "mycode/ipv4_parse single ok;mycode/fnv1a single ok;mycode/fnv1a single ok")
	if(NOT res STREQUAL want)
		message(FATAL_ERROR "parse_a.json: results ${res}, not ${want}")
	endif()
	# Short runs have too few rounds for a verdict: the rows are there, and the count.
	run(${exe} compare ${work}/parse_a.json ${work}/parse_b.json)
	expect_match("${last_out}" "mycode/fnv1a +len=256 +single .*\n3 cases: "
		"bench_parse compare")
endfunction()

# bench_queue: list, and a run with --interleave whose one-lcore cases are paired.
function(run_queue exe work)
	run(${exe} list)
	expect_match("${last_out}"
		"dpk_ring_one_lcore .*myq_one_lcore .*dpk_ring_two_lcores .*myq_two_lcores"
		"bench_queue list")
	run(${exe} run ${quick} --interleave --json ${work}/queue.json)
	expect_match("${last_out}" "myq_one_lcore .*interleaved with queue/dpk_ring_one_lcore"
		"bench_queue run --interleave: the table")
	json_results(${work}/queue.json res)
	foreach(r ${res})
		# A pair on a busy machine may complete no sample in 20 ms: "empty", not failed.
		if(NOT r MATCHES "_one_lcore single ok$" AND NOT r MATCHES "_two_lcores [a-z]+ (ok|empty)$")
			message(FATAL_ERROR "queue.json: result ${r}")
		endif()
	endforeach()
	list(FIND res "queue/myq_one_lcore single ok" i)
	file(READ ${work}/queue.json j)
	string(JSON ref GET "${j}" results ${i} interleaved reference)
	string(JSON ratio GET "${j}" results ${i} interleaved ratio_p50)
	if(NOT ref STREQUAL "queue/dpk_ring_one_lcore" OR NOT ratio GREATER 0)
		message(FATAL_ERROR "queue.json: myq_one_lcore interleaved with ${ref}, ratio ${ratio}")
	endif()
	message(STATUS "bench_queue: myq_one_lcore / dpk_ring_one_lcore = ${ratio} per element")
endfunction()

function(run_examples ex work)
	run_parse(${ex}/bench_parse ${work})
	run_queue(${ex}/bench_queue ${work})
endfunction()

# What the harness says of each broken rule, and with which exit status.
function(run_misuse exe)
	run_status(0 ${exe} run misuse/fine ${quick})
	run_status(1 ${exe} run misuse/returns_more ${quick})
	expect_match("${last_out}" "returns_more .*FAILED: the body returned 2 operations for a batch of 1"
		"a body that returns more than asked")
	run_status(1 ${exe} run misuse/setup_fails ${quick})
	expect_match("${last_out}" "setup_fails .*FAILED: setup: Cannot allocate memory"
		"a set-up that fails")
	run_status(1 ${exe} run misuse/broken ${quick})
	expect_match("${last_out}" "broken .*FAILED: checksum 41, expected 42" "dpk_bench_fail()")
	run_status(2 ${exe} --duplicate list)
	expect_match("${last_err}" "^dpk-bench: two suites are named 'misuse'\n$" "a duplicate suite")
	run_status(2 ${exe} --no-body run)
	expect_match("${last_err}" "case 0 \\('no_body'\\) has no body" "a case without a body")
	message(STATUS "bench_misuse: every misuse reported, exit statuses 1 and 2")
endfunction()

# The programs pkg-config built (pc_consumers()): they start and list their suites.
function(pc_examples dir)
	run(${dir}/hello_ring)
	run(${dir}/bench_parse list)
	expect_match("${last_out}" "mycode: " "pkg-config bench_parse list")
	run(${dir}/bench_queue run queue/myq_one_lcore ${quick})
	expect_match("${last_out}" "myq_one_lcore +single +per element +[0-9.]+ " "pkg-config bench_queue run")
	run_status(1 ${dir}/bench_misuse run misuse/broken ${quick})
	message(STATUS "pkg-config: the examples run")
endfunction()
