# SPDX-License-Identifier: BSD-3-Clause
# The DPDK suites build against the DPDK that pkg-config finds when dpkit is configured, as a
# DPDK developer's own build would be found: a libdpdk.pc of version 22.11.11-own whose
# libdir is a directory of its own (links to the system DPDK's libraries) comes first on
# PKG_CONFIG_PATH. The configure must take that DPDK, link each rte library from that libdir
# and not from the default search path, with a DT_RPATH to it, and the peers' objects must
# name that version (the environment block and the results print it).
# Inputs: SRC (dpkit's source tree), WORK (scratch dir). Exits 77 without a system DPDK.
cmake_minimum_required(VERSION 3.20)
find_program(PKGCONF pkg-config)
if(NOT PKGCONF)
	message("SKIP: no pkg-config")
	cmake_language(EXIT 77)
endif()
execute_process(COMMAND ${PKGCONF} --variable=pcfiledir libdpdk OUTPUT_VARIABLE pcdir
	RESULT_VARIABLE rc OUTPUT_STRIP_TRAILING_WHITESPACE)
execute_process(COMMAND ${PKGCONF} --variable=libdir libdpdk OUTPUT_VARIABLE sysdir
	OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT rc EQUAL 0 OR NOT EXISTS ${pcdir}/libdpdk.pc)
	message("SKIP: no libdpdk for pkg-config (libdpdk-dev)")
	cmake_language(EXIT 77)
endif()

file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK}/pc ${WORK}/lib)
set(own ${WORK}/lib)
# The rte libraries the suites link, and the ring mempool driver EAL loads as a plugin.
file(GLOB libs ${sysdir}/librte_*.so ${sysdir}/librte_*.so.* ${sysdir}/dpdk/pmds-*/librte_mempool_ring.so)
foreach(l ${libs})
	get_filename_component(name ${l} NAME)
	file(CREATE_LINK ${l} ${own}/${name} SYMBOLIC)
endforeach()
file(READ ${pcdir}/libdpdk.pc pc)
string(REGEX REPLACE "\nlibdir=[^\n]*" "\nlibdir=${own}" pc "${pc}")
string(REGEX REPLACE "\nVersion: [^\n]*" "\nVersion: 22.11.11-own" pc "${pc}")
file(WRITE ${WORK}/pc/libdpdk.pc "${pc}")

set(ENV{PKG_CONFIG_PATH} ${WORK}/pc)
execute_process(COMMAND ${CMAKE_COMMAND} -S ${SRC} -B ${WORK}/build -DCMAKE_BUILD_TYPE=Debug
	RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
	message(FATAL_ERROR "configure failed:\n${out}${err}")
endif()
if(NOT out MATCHES "DPDK comparison suites against DPDK 22\\.11\\.11-own")
	message(FATAL_ERROR "the configure did not take the DPDK first on PKG_CONFIG_PATH:\n${out}")
endif()
file(STRINGS ${WORK}/build/CMakeCache.txt cache REGEX "^DPK_RTE_[a-z_]+:FILEPATH=")
list(LENGTH cache nlibs)
if(nlibs LESS 6)
	message(FATAL_ERROR "expected six rte libraries in the cache, found: ${cache}")
endif()
foreach(line ${cache})
	if(NOT line MATCHES "=${own}/")
		message(FATAL_ERROR "not linked from the chosen DPDK's libdir ${own}: ${line}")
	endif()
endforeach()
# dpk-bench is linked with a DT_RPATH to that libdir, which the loader also searches for the
# libraries DPDK's load in turn (the link line; linking it would take minutes).
file(READ ${WORK}/build/tools/dpk-bench/CMakeFiles/dpk-bench.dir/link.txt link)
if(NOT link MATCHES "-rpath,${own}" OR NOT link MATCHES "--disable-new-dtags")
	message(FATAL_ERROR "dpk-bench's link has no DT_RPATH to ${own}:\n${link}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build ${WORK}/build --target dpk_bench_peers
	RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
	message(FATAL_ERROR "building the peers' suites failed:\n${out}${err}")
endif()
file(GLOB_RECURSE objs ${WORK}/build/bench/*peers.c.o)
if(NOT objs)
	message(FATAL_ERROR "no object of bench/suites/peers.c under ${WORK}/build/bench")
endif()
file(STRINGS ${objs} named REGEX "DPDK 22\\.11\\.11-own")
if(NOT named)
	message(FATAL_ERROR "peers.c does not name DPDK 22.11.11-own: ${objs}")
endif()
message(STATUS "DPDK 22.11.11-own found, linked from ${own} (${nlibs} libraries), and named")
