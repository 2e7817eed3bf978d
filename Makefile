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
LIB_DIRS := common db eval/tasks eval/judge eval/rank eval/report sandbox agent
# Runner program files stay out of the library (runner_core.c replaces malloc).
RUNNER_PROGRAM_SRC := sandbox/runner_core.c sandbox/runner_cpu.c sandbox/runner_cuda.c
RUNNER_PROGRAM_SRC += sandbox/runner_cuda_multi.c
LIB_SRC  := $(filter-out $(RUNNER_PROGRAM_SRC),$(wildcard $(addsuffix /*.c,$(LIB_DIRS))))
LIB_OBJ  := $(LIB_SRC:%.c=$(BUILD)/obj/%.o)
CLI_SRC  := $(wildcard cli/*.c)
CLI_OBJ  := $(CLI_SRC:%.c=$(BUILD)/obj/%.o)
# The runner is its own small program, never built with sanitizers: their shadow memory
# would not fit under the runner's RLIMIT_DATA cap, and it is not kforge's own process.
RUNNER_CPU_SRC := sandbox/runner_cpu.c sandbox/runner_core.c sandbox/runner_seccomp.c sandbox/jail.c
RUNNER_CPU_OBJ := $(RUNNER_CPU_SRC:%.c=$(BUILD)/robj/%.o)
TEST_SUPPORT_SRC := $(wildcard tests/support/*.c)
TEST_SUPPORT_OBJ := $(TEST_SUPPORT_SRC:%.c=$(BUILD)/obj/%.o)
TEST_SRC := $(wildcard tests/test_*.c)
TEST_OBJ := $(TEST_SRC:%.c=$(BUILD)/obj/%.o) $(TEST_SUPPORT_OBJ)
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

# -rdynamic: libkforge-cuda.so, loaded at run time, uses kforge's own helpers.
$(KFORGE): $(CLI_OBJ) $(LIBKF)
	$(CC) $(SAN) -rdynamic -o $@ $(CLI_OBJ) $(LIBKF) $(LDLIBS_ALL)

# The runner exports its allocation wrappers (-rdynamic) so the candidate's malloc binds to
# them, and links libgomp up front so OpenMP initialises before the seccomp filter.
$(RUNNER_CPU): $(RUNNER_CPU_OBJ)
	$(CC) -rdynamic -o $@ $^ $(shell pkg-config --libs libseccomp) -ldl \
		-Wl,--no-as-needed -lgomp -lm -lgcc_s -Wl,--as-needed

$(TESTS): $(TEST_OBJ) $(LIBKF)
	$(CC) $(SAN) -rdynamic -o $@ $(TEST_OBJ) $(LIBKF) $(CRIT_LIBS) $(LDLIBS_ALL)

$(GPU_TESTS): $(GPU_TEST_OBJ) $(TEST_SUPPORT_OBJ) $(LIBKF)
	$(CC) $(SAN) -rdynamic -o $@ $(GPU_TEST_OBJ) $(TEST_SUPPORT_OBJ) $(LIBKF) $(CRIT_LIBS) $(LDLIBS_ALL)

$(BUILD)/obj/tests/%.o: tests/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(CRIT_CFLAGS) -c $< -o $@

$(BUILD)/bench/%: bench/%.c $(LIBKF)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -rdynamic -o $@ $< $(LIBKF) $(LDLIBS_ALL)

# ---- CUDA backend: a runner program and the judge's device library, built where nvcc is ----
ifeq ($(HAVE_CUDA),1)
CUDA_INC := -I$(CUDA_HOME)/include
CUDA_RPATH := -L$(CUDA_HOME)/lib64 -Wl,-rpath,$(CUDA_HOME)/lib64
RUNNER_CUDA := $(BUILD)/kforge-runner-cuda
CUDA_LIBKF := $(BUILD)/libkforge-cuda.so
RUNNER_CUDA_SRC := sandbox/runner_cuda.c sandbox/runner_core.c sandbox/runner_seccomp.c sandbox/jail.c
RUNNER_CUDA_OBJ := $(RUNNER_CUDA_SRC:%.c=$(BUILD)/robj/%.o)
all: $(RUNNER_CUDA) $(CUDA_LIBKF)

$(BUILD)/robj/sandbox/runner_cuda.o: sandbox/runner_cuda.c
	@mkdir -p $(dir $@)
	$(CC) $(CSTD) $(WARN) -O2 -g -I. $(CUDA_INC) -MMD -MP -c $< -o $@

# Candidates link the shared CUDA runtime and C++ library: the runner loads both up front,
# so a candidate's dlopen finds them already there (no file is opened under the filter).
$(RUNNER_CUDA): $(RUNNER_CUDA_OBJ)
	$(CC) -rdynamic -o $@ $^ $(shell pkg-config --libs libseccomp) -ldl $(CUDA_RPATH) \
		-Wl,--no-as-needed -lcudart -lstdc++ -lgomp -lm -lgcc_s -Wl,--as-needed \
		-L$(CUDA_HOME)/lib64/stubs -lcuda

$(BUILD)/obj/eval/judge/gpu/cuda_kernels.o: eval/judge/gpu/cuda_kernels.cu eval/judge/gpu/cuda_kernels.h
	@mkdir -p $(dir $@)
	$(NVCC) -O3 -std=c++17 -Xcompiler -fPIC -I. -gencode=arch=compute_90a,code=sm_90a \
		-gencode=arch=compute_80,code=compute_80 -c $< -o $@

# The runner's hold kernel (sandbox/runner_hold.cu): a fatbin with machine code for sm_80 and sm_90 and
# PTX for later devices, embedded in the runner as a byte list and loaded before its seccomp filter.
HOLD_FATBIN := $(BUILD)/gen/runner_hold.fatbin
$(HOLD_FATBIN): sandbox/runner_hold.cu
	@mkdir -p $(dir $@)
	$(NVCC) -fatbin -gencode=arch=compute_80,code=[sm_80,compute_80] -gencode=arch=compute_90,code=sm_90 -o $@ $<
$(BUILD)/gen/runner_hold_fatbin.inc: $(HOLD_FATBIN)
	od -An -v -tx1 $< | sed -E 's/ ([0-9a-f]{2})/0x\1,/g' > $@
$(BUILD)/robj/sandbox/runner_cuda.o: $(BUILD)/gen/runner_hold_fatbin.inc
$(BUILD)/robj/sandbox/runner_cuda.o: CUDA_INC += -I$(BUILD)/gen

# The multi-GPU runner (sandbox/runner_cuda_multi.c): the CUDA runner's core and hold kernel, one rank per GPU.
RUNNER_CUDA_MULTI := $(BUILD)/kforge-runner-cuda-multi
RUNNER_CUDA_MULTI_OBJ := $(filter-out $(BUILD)/robj/sandbox/runner_cuda.o,$(RUNNER_CUDA_OBJ)) $(BUILD)/robj/sandbox/runner_cuda_multi.o
all: $(RUNNER_CUDA_MULTI)
$(BUILD)/robj/sandbox/runner_cuda_multi.o: sandbox/runner_cuda_multi.c $(BUILD)/gen/runner_hold_fatbin.inc
	@mkdir -p $(dir $@)
	$(CC) $(CSTD) $(WARN) -O2 -g -I. -I$(BUILD)/gen $(PKG_CFLAGS) $(CUDA_INC) -MMD -MP -c $< -o $@
$(RUNNER_CUDA_MULTI): $(RUNNER_CUDA_MULTI_OBJ)
	$(CC) -rdynamic -o $@ $^ $(shell pkg-config --libs libseccomp) -ldl $(CUDA_RPATH) \
		-Wl,--no-as-needed -lcudart -lstdc++ -lgomp -lm -lgcc_s -Wl,--as-needed \
		-L$(CUDA_HOME)/lib64/stubs -lcuda
# The judge's multi-GPU side (eval/judge/gpu/multi_cuda.c): peer access, the ranks' common-start timer,
# topology and peer bandwidth; linked into libkforge-cuda.so.
$(BUILD)/obj/eval/judge/gpu/multi_kernels.o: eval/judge/gpu/multi_kernels.cu
	@mkdir -p $(dir $@)
	$(NVCC) -O3 -std=c++17 -Xcompiler -fPIC -I. -gencode=arch=compute_90a,code=sm_90a \
		-gencode=arch=compute_80,code=compute_80 -c $< -o $@
$(CUDA_LIBKF): eval/judge/gpu/multi_cuda.c $(BUILD)/obj/eval/judge/gpu/multi_kernels.o

$(CUDA_LIBKF): eval/judge/gpu/cuda_area.c $(BUILD)/obj/eval/judge/gpu/cuda_kernels.o
	@mkdir -p $(dir $@)
	$(CC) $(CSTD) $(WARN) $(OPT) -fPIC -shared -I. $(PKG_CFLAGS) $(CUDA_INC) -MMD -MP -o $@ $(filter %.c %.o,$^) \
		$(CUDA_RPATH) -lcudart -lstdc++ -L$(CUDA_HOME)/lib64/stubs -lcuda
endif

# Tests run against the tree they were built from; each run gets a fresh compile cache.
test: all $(TESTS)
	KFORGE_HOME=$(CURDIR) KFORGE_CACHE=$(abspath $(BUILD))/test-cache $(abspath $(TESTS)) --jobs 2

# GPU tests skip themselves, with a message, where no GPU is present.
test-gpu: all $(GPU_TESTS)
	KFORGE_HOME=$(CURDIR) KFORGE_CACHE=$(abspath $(BUILD))/test-cache $(abspath $(GPU_TESTS)) --jobs 1

test-asan:
	LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp $(MAKE) BUILD=build/asan SAN="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all" OPT="-O1 -g" \
		test

bench: all $(BENCH_BIN)

# Judges the bundled example kernels on the CPU: real work, no network.
demo: all
	./examples/demo.sh

clean:
	rm -rf build

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
