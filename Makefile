# SPDX-License-Identifier: BSD-3-Clause
# The two commands:
#   make test    build (Debug) and run every test
#   make bench   build Release and run the perf suites (ARGS="..." passes options to dpk-bench)
# More:
#   make test-asan / make test-tsan   the test suite under ASan+UBSan / ThreadSanitizer
#   make install PREFIX=/usr/local     install the library, headers, pkg-config and CMake files

JOBS       ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_ARGS ?=
CTEST_ARGS ?=
ARGS       ?=
PREFIX     ?= /usr/local

# Sanitizer runs skip the install test: it links an outside program against the library,
# which is about packaging, not about the code the sanitizers watch.
SAN_CTEST_ARGS = -LE install

# CMake's Makefiles run as sub-makes of this one: without this each of their levels
# announces every directory it enters and leaves.
MAKEFLAGS += --no-print-directory

# The build prints its warnings and errors, not a line per file and target.
QUIET_BUILD = -DCMAKE_RULE_MESSAGES=OFF -DCMAKE_TARGET_MESSAGES=OFF

.PHONY: all test bench test-asan test-tsan install clean

all: build/CMakeCache.txt
	@echo "== building dpkit, Debug, in build/"
	@cmake --build build -j $(JOBS)

build/CMakeCache.txt:
	cmake -S . -B build -DCMAKE_BUILD_TYPE=Debug $(QUIET_BUILD) $(CMAKE_ARGS)

# ctest counts a test that skipped some of its cases as passed; the list names them.
test: all
	@echo "== running the tests in build/"
	@cd build && { ctest --output-on-failure -j $(JOBS) $(CTEST_ARGS); rc=$$?; \
		../tests/list_skips.sh; exit $$rc; }

build-release/CMakeCache.txt:
	cmake -S . -B build-release -DCMAKE_BUILD_TYPE=Release $(QUIET_BUILD) $(CMAKE_ARGS)

# Only dpk-bench and what it links: the tests are not needed to measure.
bench: build-release/CMakeCache.txt
	@echo "== building dpk-bench, Release, in build-release/"
	@cmake --build build-release -j $(JOBS) --target dpk-bench
	build-release/tools/dpk-bench/dpk-bench $(ARGS)

build-asan/CMakeCache.txt:
	cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Asan $(QUIET_BUILD) $(CMAKE_ARGS)

test-asan: build-asan/CMakeCache.txt
	@echo "== building and running the tests under ASan+UBSan in build-asan/"
	@cmake --build build-asan -j $(JOBS)
	@cd build-asan && { ctest --output-on-failure -j $(JOBS) $(SAN_CTEST_ARGS) $(CTEST_ARGS); \
		rc=$$?; ../tests/list_skips.sh; exit $$rc; }

build-tsan/CMakeCache.txt:
	cmake -S . -B build-tsan -DCMAKE_BUILD_TYPE=Tsan $(QUIET_BUILD) $(CMAKE_ARGS)

# ThreadSanitizer needs a memory layout that high ASLR entropy can break; setarch -R
# turns randomisation off for the run where the kernel allows it.
test-tsan: build-tsan/CMakeCache.txt
	@echo "== building and running the tests under ThreadSanitizer in build-tsan/"
	@cmake --build build-tsan -j $(JOBS)
	@cd build-tsan && { TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1" \
		$$(setarch $$(uname -m) -R true 2>/dev/null && echo setarch $$(uname -m) -R) \
		ctest --output-on-failure -j $(JOBS) $(SAN_CTEST_ARGS) $(CTEST_ARGS); \
		rc=$$?; ../tests/list_skips.sh; exit $$rc; }

install: build-release/CMakeCache.txt
	cmake --build build-release -j $(JOBS)
	cmake --install build-release --prefix $(PREFIX)

clean:
	rm -rf build build-release build-asan build-tsan
