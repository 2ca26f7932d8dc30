# SPDX-License-Identifier: BSD-3-Clause
# The dynamic symbols a shared library defines are exactly those of its list: an extra one
# is an internal that leaked into the ABI (a test hook, a harness layer's function), a
# missing one an API call that no program can link. Every listed name must also appear in
# a public header, so that the list cannot make an internal public.
# Inputs: NM, LIB (the .so), LIST (the expected names, one a line, # comments), INCLUDE
# (the public headers' directory).
cmake_minimum_required(VERSION 3.20)
execute_process(COMMAND ${NM} -D --defined-only ${LIB} RESULT_VARIABLE rc OUTPUT_VARIABLE out
	ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
	message(FATAL_ERROR "${NM} -D ${LIB} failed (${rc}): ${err}")
endif()
string(REGEX REPLACE "\n$" "" out "${out}")
string(REPLACE "\n" ";" lines "${out}")
set(have)
foreach(line IN LISTS lines)
	# "address type name"; symbol versions (name@@V) are not used, and are cut if present
	if(line MATCHES "^[0-9a-fA-F]* *[A-Za-z] ([^ @]+)")
		list(APPEND have ${CMAKE_MATCH_1})
	endif()
endforeach()

file(STRINGS ${LIST} want REGEX "^[^#]")
file(GLOB_RECURSE headers ${INCLUDE}/*.h)
set(text "")
foreach(h IN LISTS headers)
	file(READ ${h} t)
	string(APPEND text "${t}")
endforeach()

set(bad "")
foreach(s IN LISTS have)
	if(NOT s IN_LIST want)
		string(APPEND bad "  exported but not in the list: ${s}\n")
	endif()
endforeach()
foreach(s IN LISTS want)
	if(NOT s IN_LIST have)
		string(APPEND bad "  listed but not exported: ${s}\n")
	endif()
	string(REGEX MATCH "[^A-Za-z0-9_]${s}[^A-Za-z0-9_]" found "${text}")
	if(NOT found)
		string(APPEND bad "  listed but named in no public header: ${s}\n")
	endif()
endforeach()
list(LENGTH have n)
if(bad)
	message(FATAL_ERROR "${LIB} against ${LIST}:\n${bad}"
		"Change the version script (cmake/*.map) or the list, whichever is wrong.")
endif()
message(STATUS "${LIB}: ${n} symbols, as listed")
