# SPDX-License-Identifier: BSD-3-Clause
# Install the built tree into a scratch prefix, then build and run a small consumer
# program against it twice: once with find_package(dpkit), once with pkg-config.
# Inputs: SRC (source dir), BIN (build dir), WORK (scratch dir).
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
set(prefix ${WORK}/prefix)

function(run)
	execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
	if(NOT rc EQUAL 0)
		message(FATAL_ERROR "failed (${rc}): ${ARGN}\n${out}\n${err}")
	endif()
	set(last_out "${out}" PARENT_SCOPE)
endfunction()

run(${CMAKE_COMMAND} --install ${BIN} --prefix ${prefix})
foreach(f include/dpk/common.h include/dpk/ring.h include/dpk/impl/ring.h include/dpk/lcore.h
		include/dpk/topology.h include/dpk/cycles.h include/dpk/pool.h
		include/dpk/packet.h include/dpk/impl/pool.h include/dpk/impl/packet.h lib/pkgconfig/dpkit.pc
		lib/cmake/dpkit/dpkitConfig.cmake lib/libdpkit.a)
	if(NOT EXISTS ${prefix}/${f})
		message(FATAL_ERROR "not installed: ${f}")
	endif()
endforeach()
file(GLOB shared ${prefix}/lib/libdpkit.so*)
if(NOT shared)
	message(FATAL_ERROR "not installed: lib/libdpkit.so")
endif()

# 1. CMake package
run(${CMAKE_COMMAND} -S ${SRC}/tests/install/consumer -B ${WORK}/cmake-build
	-DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_BUILD_TYPE=Release)
run(${CMAKE_COMMAND} --build ${WORK}/cmake-build)
run(${WORK}/cmake-build/consumer)
message(STATUS "find_package consumer: ${last_out}")

# 2. pkg-config (the shared library), strict C11 with pedantic warnings as errors
find_program(PKG_CONFIG pkg-config pkgconf)
if(NOT PKG_CONFIG)
	message(FATAL_ERROR "pkg-config is needed for this test")
endif()
set(ENV{PKG_CONFIG_PATH} ${prefix}/lib/pkgconfig)
run(${PKG_CONFIG} --cflags --libs dpkit)
string(STRIP "${last_out}" flags)
separate_arguments(flags UNIX_COMMAND "${flags}")
run(cc -std=c11 -pedantic -Wall -Wextra -Werror -O2 ${SRC}/tests/install/consumer/consumer.c
	${flags} -pthread -o ${WORK}/consumer-pc)
run(${CMAKE_COMMAND} -E env LD_LIBRARY_PATH=${prefix}/lib ${WORK}/consumer-pc)
message(STATUS "pkg-config consumer: ${last_out}")

# 3. The README's example, against the installed tree
run(cc -std=c11 -pedantic -Wall -Wextra -Werror -O2 ${SRC}/examples/hello_ring.c ${flags} -pthread
	-o ${WORK}/hello_ring)
run(${CMAKE_COMMAND} -E env LD_LIBRARY_PATH=${prefix}/lib ${WORK}/hello_ring)
message(STATUS "examples/hello_ring: ok")
