# Run dpk-bench briefly on the default suites with --json, then validate the file.
execute_process(COMMAND ${BIN} run --time 10ms --warmup 5ms --quiet --raw --json ${OUT}
	RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
	message(FATAL_ERROR "dpk-bench exited ${rc}\n${out}\n${err}")
endif()
execute_process(COMMAND ${PY} ${CHECK} ${OUT} floor ring pool packet
	RESULT_VARIABLE rc OUTPUT_VARIABLE out)
message("${out}")
if(NOT rc EQUAL 0)
	message(FATAL_ERROR "the results file does not match the schema")
endif()
