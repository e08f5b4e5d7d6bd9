# Makefile — a thin wrapper over CMake so that the usual commands work from a fresh checkout:
#
#   make          Release build in build/
#   make run      make deps, build, then run examples/default.yaml
#   make test     make deps-test, Debug build with -Werror in build-test/, then ctest
#   make bench    Release build, then every bench_* binary
#   make fuzz     clang + libFuzzer + ASan/UBSan build in build-fuzz/, fuzz_loader for
#                 FUZZ_SECONDS (default 30) over fuzz/corpus
#   make fuzz-run the same build, fuzz_run (build + simulation + exporters on generated small
#                 scenarios) for FUZZ_SECONDS over fuzz/corpus_run
#   make deps     check the Debian packages the build needs; install them when root, else
#                 print the command
#   make deps-test  the same for the build and the tools the exporter tests run (promtool,
#                 tshark, chromium); `make test` and CI use it
#   make clean    remove the build folders
#
# CMake does the real work (CMakeLists.txt); nothing here should be needed to build by hand.

JOBS ?= $(shell nproc 2>/dev/null || echo 2)
FUZZ_SECONDS ?= 30
CMAKE ?= cmake

DEB_PACKAGES := cmake gcc make pkg-config libyaml-dev libsqlite3-dev
FUZZ_PACKAGES := clang
# The exporters' real consumers (tests/test_exporters.sh): promtool, tshark, headless chromium;
# the sqlite3 shell (tests/test_sweep_cli.sh reads results databases with it and python3); Open
# MPI, optional for a build but installed for tests so CI runs a 2-rank `mpirun wirerate sweep`.
# protobuf-c (optional for a build): Chakra trace import and its tests.
TEST_PACKAGES := prometheus tshark chromium python3 sqlite3 libopenmpi-dev openmpi-bin \
                 libprotobuf-c-dev protobuf-c-compiler

.PHONY: all build run test bench fuzz fuzz-run deps deps-test deps-fuzz clean

all: build

build:
	$(CMAKE) -S . -B build -DCMAKE_BUILD_TYPE=Release
	$(CMAKE) --build build -j $(JOBS)

# `deps` first, then the build, in sequence even under `make -j`.
run: deps
	@$(MAKE) --no-print-directory build
	./build/wirerate run examples/default.yaml

test: deps-test
	$(CMAKE) -S . -B build-test -DCMAKE_BUILD_TYPE=Debug -DWR_WERROR=ON
	$(CMAKE) --build build-test -j $(JOBS)
	cd build-test && ctest --output-on-failure -j $(JOBS)

bench: build
	@found=0; for b in build/bench_*; do \
	    [ -x "$$b" ] || continue; found=1; \
	    echo "== $$b"; "$$b" || exit 1; \
	done; \
	if [ $$found = 0 ]; then echo "no benchmarks built (bench/bench_*.c)"; fi

fuzz: deps-fuzz
	$(CMAKE) -S . -B build-fuzz -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=Debug \
	    -DWR_FUZZ=ON -DWR_SANITIZE=ON -DWR_BENCH=OFF
	$(CMAKE) --build build-fuzz -j $(JOBS) --target fuzz_loader
	@# New inputs go to build-fuzz/corpus; fuzz/corpus (checked in) is only read.
	mkdir -p build-fuzz/corpus
	./build-fuzz/fuzz_loader -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 \
	    build-fuzz/corpus fuzz/corpus

fuzz-run: deps-fuzz
	$(CMAKE) -S . -B build-fuzz -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=Debug \
	    -DWR_FUZZ=ON -DWR_SANITIZE=ON -DWR_SANITIZE_FLOAT=ON -DWR_BENCH=OFF
	$(CMAKE) --build build-fuzz -j $(JOBS) --target fuzz_run
	mkdir -p build-fuzz/corpus_run
	TMPDIR=$(CURDIR)/build-fuzz ./build-fuzz/fuzz_run -max_total_time=$(FUZZ_SECONDS) \
	    -print_final_stats=1 build-fuzz/corpus_run fuzz/corpus_run

# Check with dpkg-query; install what is missing when root, else say exactly what to run.
define check_packages
	@missing=""; for p in $(1); do \
	    dpkg-query -W -f='$${Status}' "$$p" 2>/dev/null | grep -q "install ok installed" \
	        || missing="$$missing $$p"; \
	done; \
	if [ -z "$$missing" ]; then echo "deps: all present ($(1))"; exit 0; fi; \
	if ! command -v dpkg-query >/dev/null 2>&1; then \
	    echo "deps: not a Debian system; install:$$missing (or equivalents)" >&2; exit 1; fi; \
	if [ "$$(id -u)" = 0 ]; then \
	    echo "deps: installing$$missing"; \
	    apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y$$missing; \
	else \
	    echo "deps: missing packages:$$missing" >&2; \
	    echo "      run: sudo apt-get install$$missing" >&2; exit 1; \
	fi
endef

# tshark asks a debconf question (wireshark-common/install-setuid): check_packages installs
# with DEBIAN_FRONTEND=noninteractive, which takes the default (no setuid dumpcap).
deps:
	$(call check_packages,$(DEB_PACKAGES))

deps-test:
	$(call check_packages,$(DEB_PACKAGES) $(TEST_PACKAGES))

deps-fuzz: deps
	$(call check_packages,$(FUZZ_PACKAGES))

clean:
	rm -rf build build-test build-fuzz
