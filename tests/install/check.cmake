# SPDX-License-Identifier: BSD-3-Clause
# Install dpkit into two scratch prefixes and use each as another project would:
#   usr   a Debian-style tree: a Release build configured for /usr with the multiarch
#         library directory lib/x86_64-linux-gnu, staged with DESTDIR
#   home  the tree under test (BIN) installed into a home-style prefix with lib/
# In each: the files are there, the pkg-config files name the right directories, and a
# C consumer, a C++ consumer (every header, the structures' layout against C's), the
# examples and a harness misuse program build and run, with find_package(dpkit) and with
# pkg-config. The example programs are run as dpk-bench (list, run, --json, compare,
# --interleave) and the misuse program for its messages and exit statuses.
# Inputs: SRC (source dir), BIN (build dir), WORK (scratch dir), CC (the C compiler).
cmake_minimum_required(VERSION 3.20)
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
include(${CMAKE_CURRENT_LIST_DIR}/check_lib.cmake)

find_program(PKG_CONFIG NAMES pkg-config pkgconf)
find_program(CXX NAMES c++ g++ clang++)
find_program(READELF readelf)
if(NOT PKG_CONFIG OR NOT CXX)
	message(FATAL_ERROR "this test needs pkg-config and a C++ compiler")
endif()

# usr: configured for /usr as a distribution package would be, staged under WORK/stage.
# Warnings are not errors in this build: it is here for the tree it installs.
set(usr_build ${WORK}/build-usr)
run(${CMAKE_COMMAND} -S ${SRC} -B ${usr_build} -DCMAKE_BUILD_TYPE=Release
	-DCMAKE_C_COMPILER=${CC} -DDPK_WERROR=OFF -DDPK_BUILD_TESTS=OFF
	-DCMAKE_INSTALL_PREFIX=/usr -DCMAKE_INSTALL_LIBDIR=lib/x86_64-linux-gnu)
run(${CMAKE_COMMAND} --build ${usr_build} -j 2)
run(${CMAKE_COMMAND} -E env DESTDIR=${WORK}/stage ${CMAKE_COMMAND} --install ${usr_build})
check_prefix(usr ${WORK}/stage/usr lib/x86_64-linux-gnu)

# home: the build under test, installed as `make install PREFIX=$HOME/.local` would.
run(${CMAKE_COMMAND} --install ${BIN} --prefix ${WORK}/home/.local)
check_prefix(home ${WORK}/home/.local lib)

# A consumer configured without optimisation is told what that costs.
run(${CMAKE_COMMAND} -S ${SRC}/tests/install/consumer -B ${WORK}/debug-consumer
	-DCMAKE_PREFIX_PATH=${WORK}/home/.local -DCMAKE_BUILD_TYPE=Debug)
expect_match("${last_out}${last_err}" "dpkit: CMAKE_BUILD_TYPE is Debug.*Release"
	"the warning of a Debug consumer")
