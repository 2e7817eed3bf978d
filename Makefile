# kforge — the only build entry point. Targets:
#   make            build/kforge and its runner(s)
#   make test       the Criterion suite on the CPU
#   make test-asan  the same suite under AddressSanitizer + UndefinedBehaviorSanitizer
#   make test-gpu   the GPU suite (needs a CUDA device; run on the GPU machine)
#   make demo       judge the bundled example kernels (no network needed)
#   make bench      build the benchmarks under build/bench/
#   make clean
CC      ?= cc
PKGS    := libcjson libcurl libseccomp sqlite3
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS))
PKG_LIBS   := $(shell pkg-config --libs $(PKGS))
CRIT_CFLAGS := $(shell pkg-config --cflags criterion)
CRIT_LIBS   := $(shell pkg-config --libs criterion)

CSTD    := -std=c17 -D_GNU_SOURCE
# snprintf into fixed buffers truncates on purpose (messages, paths checked where it matters).
WARN    := -Wall -Wextra -Werror -Wno-format-truncation
OPT     ?= -O2 -g
SAN     :=
BUILD   ?= build
CFLAGS_ALL := $(CSTD) $(WARN) $(OPT) $(SAN) -I. $(PKG_CFLAGS) -MMD -MP
LDLIBS_ALL := $(PKG_LIBS) -ldl -lm -lpthread

# CUDA is optional at build time: without nvcc, the cuda backend reports itself unavailable.
CUDA_HOME ?= /usr/local/cuda
NVCC      ?= $(CUDA_HOME)/bin/nvcc
HAVE_CUDA := $(shell test -x $(NVCC) && echo 1)

# Library modules (everything but program entry points).
LIB_DIRS := common db eval sandbox agent
# Runner program files stay out of the library (runner_core.c replaces malloc).
RUNNER_PROGRAM_SRC := sandbox/runner_core.c sandbox/runner_cpu.c sandbox/runner_cuda.c
LIB_SRC  := $(filter-out $(RUNNER_PROGRAM_SRC),$(wildcard $(addsuffix /*.c,$(LIB_DIRS))))
LIB_OBJ  := $(LIB_SRC:%.c=$(BUILD)/obj/%.o)
CLI_SRC  := $(wildcard cli/*.c)
CLI_OBJ  := $(CLI_SRC:%.c=$(BUILD)/obj/%.o)
# The runner is its own small program, never built with sanitizers: their shadow memory
# would not fit under the runner's RLIMIT_DATA cap, and it is not kforge's own process.
RUNNER_CPU_SRC := sandbox/runner_cpu.c sandbox/runner_core.c sandbox/runner_seccomp.c sandbox/jail.c
RUNNER_CPU_OBJ := $(RUNNER_CPU_SRC:%.c=$(BUILD)/robj/%.o)
TEST_SRC := $(wildcard tests/test_*.c) $(wildcard tests/support/*.c)
TEST_OBJ := $(TEST_SRC:%.c=$(BUILD)/obj/%.o)
GPU_TEST_SRC := $(wildcard tests/gpu/test_*.c)
GPU_TEST_OBJ := $(GPU_TEST_SRC:%.c=$(BUILD)/obj/%.o)
BENCH_SRC := $(wildcard bench/*.c)
BENCH_BIN := $(BENCH_SRC:bench/%.c=$(BUILD)/bench/%)

KFORGE  := $(BUILD)/kforge
RUNNER_CPU := $(BUILD)/kforge-runner-cpu
TESTS   := $(BUILD)/kforge-tests
GPU_TESTS := $(BUILD)/kforge-gpu-tests
LIBKF   := $(BUILD)/libkforge.a

.PHONY: all test test-asan test-gpu bench demo clean
all: $(KFORGE) $(RUNNER_CPU)

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -c $< -o $@

$(BUILD)/robj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CSTD) $(WARN) -O2 -g -I. $(PKG_CFLAGS) -MMD -MP -c $< -o $@

$(LIBKF): $(LIB_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(KFORGE): $(CLI_OBJ) $(LIBKF)
	$(CC) $(SAN) -o $@ $(CLI_OBJ) $(LIBKF) $(LDLIBS_ALL)

# The runner exports its allocation wrappers (-rdynamic) so the candidate's malloc binds to
# them, and links libgomp up front so OpenMP initialises before the seccomp filter.
$(RUNNER_CPU): $(RUNNER_CPU_OBJ)
	$(CC) -rdynamic -o $@ $^ $(shell pkg-config --libs libseccomp) -ldl \
		-Wl,--no-as-needed -lgomp -lm -lgcc_s -Wl,--as-needed

$(TESTS): $(TEST_OBJ) $(LIBKF)
	$(CC) $(SAN) -o $@ $(TEST_OBJ) $(LIBKF) $(CRIT_LIBS) $(LDLIBS_ALL)

$(BUILD)/obj/tests/%.o: tests/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(CRIT_CFLAGS) -c $< -o $@

$(BUILD)/bench/%: bench/%.c $(LIBKF)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -o $@ $< $(LIBKF) $(LDLIBS_ALL)

# Tests run against the tree they were built from; each run gets a fresh compile cache.
test: all $(TESTS)
	KFORGE_HOME=$(CURDIR) KFORGE_CACHE=$(CURDIR)/$(BUILD)/test-cache ./$(TESTS) --jobs 2

test-asan:
	$(MAKE) BUILD=build/asan SAN="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all" OPT="-O1 -g" \
		test

bench: all $(BENCH_BIN)

# Judges the bundled example kernels on the CPU: real work, no network.
demo: all
	./examples/demo.sh

clean:
	rm -rf build

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
