# SPDX-License-Identifier: BSD-3-Clause
# The steps of check.cmake, one installed prefix at a time.

# run(cmd...): run it, fail the test unless it exits 0; its output in last_out, last_err.
function(run)
	execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
	if(NOT rc EQUAL 0)
		string(REPLACE ";" " " cmd "${ARGN}")
		message(FATAL_ERROR "failed (${rc}): ${cmd}\n${out}\n${err}")
	endif()
	set(last_out "${out}" PARENT_SCOPE)
	set(last_err "${err}" PARENT_SCOPE)
endfunction()

# run_status(STATUS cmd...): as run(), but the command must exit with STATUS.
function(run_status status)
	execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
	if(NOT rc STREQUAL "${status}")
		string(REPLACE ";" " " cmd "${ARGN}")
		message(FATAL_ERROR "exit status ${rc}, not ${status}: ${cmd}\n${out}\n${err}")
	endif()
	set(last_out "${out}" PARENT_SCOPE)
	set(last_err "${err}" PARENT_SCOPE)
endfunction()

# say(WHAT OUTPUT): WHAT and the last line a program printed ("ok" for none).
function(say what output)
	string(STRIP "${output}" output)
	string(REGEX REPLACE ".*\n" "" output "${output}")
	if(output STREQUAL "")
		set(output "ok")
	endif()
	message(STATUS "${what}: ${output}")
endfunction()

function(expect_match text regex what)
	if(NOT text MATCHES "${regex}")
		message(FATAL_ERROR "${what}: no match for '${regex}' in:\n${text}")
	endif()
endfunction()

function(expect_no_match text regex what)
	if(text MATCHES "${regex}")
		message(FATAL_ERROR "${what}: unexpected '${regex}' in:\n${text}")
	endif()
endfunction()

# The files a prefix must hold, and pkg-config's directories resolving into it.
function(check_files prefix libdir)
	file(GLOB headers RELATIVE ${SRC}/include ${SRC}/include/dpk/*.h ${SRC}/include/dpk/impl/*.h)
	foreach(f ${headers})
		list(APPEND want include/${f})
	endforeach()
	foreach(lib dpkit dpkbench)
		list(APPEND want ${libdir}/lib${lib}.a ${libdir}/lib${lib}.so)
	endforeach()
	list(APPEND want ${libdir}/pkgconfig/dpkit.pc ${libdir}/pkgconfig/dpkit-bench.pc
		${libdir}/cmake/dpkit/dpkitConfig.cmake ${libdir}/cmake/dpkit/dpkitTargets.cmake)
	foreach(f ${want})
		if(NOT EXISTS ${prefix}/${f})
			message(FATAL_ERROR "not installed: ${prefix}/${f}")
		endif()
	endforeach()
	foreach(pc dpkit dpkit-bench)
		foreach(var includedir libdir)
			run(${PKG_CONFIG} --variable=${var} ${pc})
			string(STRIP "${last_out}" dir)
			get_filename_component(dir "${dir}" REALPATH)
			set(expect ${prefix}/include)
			if(var STREQUAL "libdir")
				set(expect ${prefix}/${libdir})
			endif()
			get_filename_component(expect "${expect}" REALPATH)
			if(NOT dir STREQUAL expect)
				message(FATAL_ERROR "${pc}.pc: ${var} is ${dir}, not ${expect}")
			endif()
		endforeach()
	endforeach()
endfunction()

# Whether the installed ring.h is written for C++ yet: until it includes the compatibility
# header, the C++ consumer leaves it out, with pool.h and packet.h, which include it.
function(ring_cxx prefix out)
	file(READ ${prefix}/include/dpk/ring.h ring)
	if(ring MATCHES "#include <dpk/impl/compat.h>")
		set(${out} OFF PARENT_SCOPE)
		return()
	endif()
	message(STATUS "C++: <dpk/ring.h> does not include <dpk/impl/compat.h> yet: the C++ "
		"consumer leaves out ring.h, pool.h and packet.h")
	set(${out} ON PARENT_SCOPE)
endfunction()

# A program's dynamic section (the libraries it needs, its RUNPATH), as one string; empty
# without readelf.
function(needed exe out)
	set(${out} "" PARENT_SCOPE)
	if(READELF)
		run(${READELF} -d ${exe})
		set(${out} "${last_out}" PARENT_SCOPE)
	endif()
endfunction()

include(${CMAKE_CURRENT_LIST_DIR}/check_consumers.cmake)
include(${CMAKE_CURRENT_LIST_DIR}/check_examples.cmake)

# Everything for one prefix: files, then CMake and pkg-config builds and their runs.
function(check_prefix name prefix libdir)
	message(STATUS "== ${name}: ${prefix}, libraries in ${libdir}")
	set(ENV{PKG_CONFIG_PATH} ${prefix}/${libdir}/pkgconfig)
	check_files(${prefix} ${libdir})
	ring_cxx(${prefix} no_ring)
	cmake_consumers(${WORK}/${name}-cmake ${prefix} ${no_ring})
	pc_consumers(${WORK}/${name}-pc ${prefix}/${libdir} ${no_ring})
	run_examples(${WORK}/${name}-cmake/examples ${WORK}/${name}-cmake)
	run_misuse(${WORK}/${name}-cmake/consumer/bench_misuse)
	pc_examples(${WORK}/${name}-pc)
endfunction()
