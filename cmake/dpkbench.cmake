# SPDX-License-Identifier: BSD-3-Clause
# libdpkbench: every layer of the harness (bench/) and its command line (tools/dpk-bench)
# in one static and one shared library, over libdpkit's static and shared library alike.
set(DPK_BENCH_LAYERS dpk_bench_core dpk_bench_engine dpk_bench_report dpk_bench_results
	dpk_bench_suites dpk_bench_cli)

add_library(dpkbench_static STATIC)
target_link_libraries(dpkbench_static PRIVATE ${DPK_BENCH_LAYERS})
target_link_libraries(dpkbench_static PUBLIC dpkit_static m)

add_library(dpkbench_shared SHARED)
target_link_libraries(dpkbench_shared PRIVATE ${DPK_BENCH_LAYERS})
target_link_libraries(dpkbench_shared PUBLIC dpkit_shared m)

foreach(lib dpkbench_static dpkbench_shared)
	set_target_properties(${lib} PROPERTIES OUTPUT_NAME dpkbench)
	target_include_directories(${lib} PUBLIC
		$<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
		$<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
endforeach()
set_target_properties(dpkbench_shared PROPERTIES VERSION ${PROJECT_VERSION}
	SOVERSION ${PROJECT_VERSION_MAJOR}.${PROJECT_VERSION_MINOR})
add_library(dpkit::bench ALIAS dpkbench_shared)
add_library(dpkit::bench_static ALIAS dpkbench_static)

# For the harness's own tests: the static library with every layer's headers.
add_library(dpk_bench_internal INTERFACE)
foreach(l ${DPK_BENCH_LAYERS})
	target_include_directories(dpk_bench_internal INTERFACE
		$<TARGET_PROPERTY:${l},INTERFACE_INCLUDE_DIRECTORIES>)
endforeach()
target_link_libraries(dpk_bench_internal INTERFACE dpkbench_static)
