# SPDX-License-Identifier: BSD-3-Clause
# The one place that knows CTest: every test and every bench smoke run is declared here.

# dpk_add_test(NAME SOURCES file... [LABELS l...] [TIMEOUT s] [ARGS a...] [LIBS l...])
# A test program linked with libdpkit (static) and the harness; exit 77 means skipped.
function(dpk_add_test name)
	cmake_parse_arguments(T "" "TIMEOUT" "SOURCES;LABELS;ARGS;ENV;LIBS" ${ARGN})
	if(NOT T_TIMEOUT)
		set(T_TIMEOUT 60)
	endif()
	if(NOT T_LABELS)
		set(T_LABELS unit)
	endif()
	add_executable(${name} ${T_SOURCES})
	target_link_libraries(${name} PRIVATE ${T_LIBS} dpkit_static dpk_test_harness)
	target_compile_definitions(${name} PRIVATE DPK_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
	add_test(NAME ${name} COMMAND ${name} ${T_ARGS})
	set_tests_properties(${name} PROPERTIES LABELS "${T_LABELS}" TIMEOUT ${T_TIMEOUT}
		SKIP_RETURN_CODE 77)
	if(T_ENV)
		set_tests_properties(${name} PROPERTIES ENVIRONMENT "${T_ENV}")
	endif()
endfunction()

# dpk_add_bench_smoke(NAME ARGS a...)
# Runs dpk-bench briefly under CTest (label "smoke") so no suite can rot.
function(dpk_add_bench_smoke name)
	cmake_parse_arguments(B "" "TIMEOUT" "ARGS" ${ARGN})
	if(NOT B_TIMEOUT)
		set(B_TIMEOUT 300)
	endif()
	add_test(NAME bench_smoke_${name} COMMAND dpk-bench ${B_ARGS})
	set_tests_properties(bench_smoke_${name} PROPERTIES LABELS "smoke" TIMEOUT ${B_TIMEOUT})
endfunction()
