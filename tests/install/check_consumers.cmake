# SPDX-License-Identifier: BSD-3-Clause
# The consumer programs and the examples, built against one installed prefix.

# With find_package(dpkit): tests/install/consumer and examples/ as projects of their own,
# in DIR/consumer and DIR/examples, then run.
function(cmake_consumers dir prefix no_ring)
	foreach(proj consumer examples)
		set(src ${SRC}/examples)
		set(opts)
		if(proj STREQUAL "consumer")
			set(src ${SRC}/tests/install/consumer)
			set(opts -DCMAKE_CXX_COMPILER=${CXX} -DDPK_TEST_NO_RING=${no_ring})
		endif()
		run(${CMAKE_COMMAND} -S ${src} -B ${dir}/${proj} -DCMAKE_PREFIX_PATH=${prefix}
			-DCMAKE_BUILD_TYPE=Release -DCMAKE_C_COMPILER=${CC} ${opts})
		expect_no_match("${last_out}${last_err}" "dpkit: CMAKE_BUILD_TYPE"
			"configuring ${proj} for Release")
		run(${CMAKE_COMMAND} --build ${dir}/${proj})
	endforeach()
	foreach(exe consumer/consumer consumer/consumer_static examples/hello_ring)
		run(${dir}/${exe})
		say("find_package: ${exe}" "${last_out}")
	endforeach()
	run(${dir}/consumer/consumer_cxx)
	expect_match("${last_out}" "layout: [0-9]+ .*ok from C\\+\\+ 201703" "consumer_cxx")
	say("find_package: consumer/consumer_cxx" "${last_out}")

	# Shared with shared, static with static.
	if(NOT READELF)
		return()
	endif()
	needed(${dir}/consumer/consumer_cxx n)
	expect_match("${n}" "libdpkbench\\.so\\." "consumer_cxx links libdpkbench.so")
	needed(${dir}/consumer/consumer n)
	expect_match("${n}" "libdpkit\\.so\\." "consumer links libdpkit.so")
	needed(${dir}/consumer/consumer_static n)
	expect_no_match("${n}" "libdpkit\\.so" "consumer_static links libdpkit.a")
	needed(${dir}/examples/bench_queue n)
	expect_no_match("${n}" "libdpk(it|bench)\\.so" "bench_queue links libdpkbench.a")
endfunction()

# pc_flags(OUT ARGS...): what `pkg-config ARGS...` prints, as a list in OUT.
function(pc_flags out)
	run(${PKG_CONFIG} ${ARGN})
	string(STRIP "${last_out}" flags)
	separate_arguments(flags UNIX_COMMAND "${flags}")
	set(${out} ${flags} PARENT_SCOPE)
endfunction()

# With pkg-config, in DIR: the C consumer over the shared libdpkit, found at run time
# through LD_LIBRARY_PATH (dpkit.pc gives no rpath), and the C++20 consumer over the
# shared harness, found through the RUNPATH its link gave it: the README's two recipes.
function(pc_consumers dir libdir no_ring)
	file(MAKE_DIRECTORY ${dir})
	set(t ${SRC}/tests/install/consumer)
	set(warn -Wall -Wextra -Werror -O2)
	pc_flags(dpkit --cflags --libs dpkit)
	run(${CC} -std=c11 -pedantic ${warn} ${t}/consumer.c ${dpkit} -o ${dir}/consumer)
	run(${CMAKE_COMMAND} -E env LD_LIBRARY_PATH=${libdir} ${dir}/consumer)
	say("pkg-config: consumer, LD_LIBRARY_PATH" "${last_out}")
	needed(${dir}/consumer n)
	expect_no_match("${n}" "R(UN)?PATH" "dpkit.pc gives no rpath")

	set(defs)
	if(no_ring)
		set(defs -DDPK_TEST_NO_RING)
	endif()
	pc_flags(bench --cflags --libs dpkit-bench)
	pc_flags(rpath --variable=libdir dpkit-bench)
	run(${CC} -std=c11 ${warn} ${defs} -c ${t}/layout.c ${bench} -o ${dir}/layout.o)
	run(${CXX} -std=c++20 ${warn} ${defs} ${t}/consumer.cpp ${dir}/layout.o ${bench}
		-Wl,-rpath,${rpath} -o ${dir}/consumer_cxx)
	run(${CMAKE_COMMAND} -E env --unset=LD_LIBRARY_PATH ${dir}/consumer_cxx)
	expect_match("${last_out}" "layout: [0-9]+ .*ok from C\\+\\+ 202002" "consumer_cxx")
	say("pkg-config: consumer_cxx, -Wl,-rpath" "${last_out}")
	foreach(ex hello_ring bench_parse bench_queue)
		run(${CC} -std=c11 -pedantic ${warn} ${SRC}/examples/${ex}.c ${bench}
			-Wl,-rpath,${rpath} -o ${dir}/${ex})
	endforeach()
	run(${CC} -std=c11 -pedantic ${warn} ${t}/bench_misuse.c ${bench} -Wl,-rpath,${rpath}
		-o ${dir}/bench_misuse)
endfunction()
