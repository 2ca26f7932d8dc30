# SPDX-License-Identifier: BSD-3-Clause
# libdpkbench: every layer of the harness (bench/) and its command line (tools/dpk-bench)
# in one static and one shared library, over libdpkit's static and shared library alike,
# installed with <dpk/bench.h> as dpkit::bench and dpkit::bench_static (the CMake package)
# and dpkit-bench.pc.
set(DPK_BENCH_LAYERS dpk_bench_core dpk_bench_engine dpk_bench_report dpk_bench_results
	dpk_bench_suites dpk_bench_cli)
set(_objects)
foreach(l ${DPK_BENCH_LAYERS})
	list(APPEND _objects $<TARGET_OBJECTS:${l}>)
endforeach()

# The layers' objects, not the layers as link items: an installed library must not name
# build-tree targets. What the layers link (libdpkit, libm) the libraries link instead.
add_library(dpkbench_static STATIC ${_objects})
target_link_libraries(dpkbench_static PUBLIC dpkit_static m)
add_library(dpkbench_shared SHARED ${_objects})
target_link_libraries(dpkbench_shared PUBLIC dpkit_shared m)

foreach(lib dpkbench_static dpkbench_shared)
	set_target_properties(${lib} PROPERTIES OUTPUT_NAME dpkbench)
	target_include_directories(${lib} PUBLIC
		$<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
		$<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
endforeach()
# $ORIGIN: the installed libdpkbench.so finds the libdpkit.so installed beside it, also when
# the program that loads it found it through its own RUNPATH, which is not searched for
# the libraries' own dependencies.
set_target_properties(dpkbench_shared PROPERTIES VERSION ${PROJECT_VERSION}
	SOVERSION ${PROJECT_VERSION_MAJOR}.${PROJECT_VERSION_MINOR}
	INSTALL_RPATH "$ORIGIN" EXPORT_NAME bench)
set_target_properties(dpkbench_static PROPERTIES EXPORT_NAME bench_static)
dpk_export_only(dpkbench_shared ${PROJECT_SOURCE_DIR}/cmake/libdpkbench.map)
add_library(dpkit::bench ALIAS dpkbench_shared)
add_library(dpkit::bench_static ALIAS dpkbench_static)

install(TARGETS dpkbench_static dpkbench_shared EXPORT dpkitTargets
	ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
	LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
	RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
dpk_install_pc(dpkit-bench)

# For the harness's own tests: the static library with every layer's headers.
add_library(dpk_bench_internal INTERFACE)
foreach(l ${DPK_BENCH_LAYERS})
	target_include_directories(dpk_bench_internal INTERFACE
		$<TARGET_PROPERTY:${l},INTERFACE_INCLUDE_DIRECTORIES>)
endforeach()
target_link_libraries(dpk_bench_internal INTERFACE dpkbench_static)
