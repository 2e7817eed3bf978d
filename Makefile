# kforge — the only build entry point. Targets:
#   make            build/kforge and its runner(s)
#   make test       the Criterion suite on the CPU
#   make test-asan  the same suite under AddressSanitizer + UndefinedBehaviorSanitizer
#   make test-gpu   the GPU suite (needs a CUDA device; run on the GPU machine)
#   make demo       judge the bundled example kernels (no network needed)
#   make bench      build the benchmarks under build/bench/
#   make install    install under $(PREFIX) (default /usr/local; DESTDIR stages it): bin/kforge,
#                   libexec/kforge/ (runners), share/kforge/ (tasks, references, prompts),
#                   share/man/man1/kforge.1, share/bash-completion/completions/kforge
#   make uninstall
#   make clean
# CC, CPPFLAGS, CFLAGS and LDFLAGS are honoured (added after kforge's own flags, so they win);
# gcc and clang both build it. `make test KFORGE_INSTALLED=DIR` runs the CLI tests against the
# kforge installed under DIR (DIR/bin/kforge; DIR includes DESTDIR when staged).
CC      ?= cc
PKGS    := libcjson libcurl libseccomp sqlite3
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS))
PKG_LIBS   := $(shell pkg-config --libs $(PKGS))
CRIT_CFLAGS := $(shell pkg-config --cflags criterion)
CRIT_LIBS   := $(shell pkg-config --libs criterion)

CSTD    := -std=c17 -D_GNU_SOURCE
WARN    := -Wall -Wextra -Werror
CC_IS_CLANG := $(shell $(CC) --version 2>/dev/null | grep -qi clang && echo 1)
ifeq ($(CC_IS_CLANG),1)
# clang also warns where gcc does not, on idioms kforge uses on purpose: an array of structs
# initialised by index leaves trailing members zero, and long SQL is split over string literals.
WARN    += -Wno-missing-field-initializers -Wno-string-concatenation
else
# snprintf into fixed buffers truncates on purpose (messages, paths checked where it matters).
WARN    += -Wno-format-truncation
endif
CFLAGS  ?= -O2 -g
SAN     :=
BUILD   ?= build
CFLAGS_ALL := $(CSTD) $(WARN) $(SAN) -I. $(PKG_CFLAGS) $(CPPFLAGS) $(CFLAGS) -MMD -MP
LDLIBS_ALL := $(PKG_LIBS) -ldl -lm -lpthread

# CUDA is optional at build time: without nvcc, the cuda backend reports itself unavailable.
CUDA_HOME ?= /usr/local/cuda
NVCC      ?= $(CUDA_HOME)/bin/nvcc
HAVE_CUDA := $(shell test -x $(NVCC) && echo 1)

# Library modules (everything but program entry points).
LIB_DIRS := common db eval/tasks eval/judge eval/rank eval/report sandbox agent
# Runner program files stay out of the library (runner_core.c replaces malloc).
RUNNER_PROGRAM_SRC := sandbox/runner_core.c sandbox/runner_cpu.c sandbox/runner_cuda.c sandbox/profile_cuda.c
RUNNER_PROGRAM_SRC += sandbox/runner_cuda_multi.c sandbox/runner_cuda_common.c
LIB_SRC  := $(filter-out $(RUNNER_PROGRAM_SRC),$(wildcard $(addsuffix /*.c,$(LIB_DIRS))))
LIB_OBJ  := $(LIB_SRC:%.c=$(BUILD)/obj/%.o)
CLI_SRC  := $(wildcard cli/*.c)
CLI_OBJ  := $(CLI_SRC:%.c=$(BUILD)/obj/%.o)
# The runner is its own small program, never built with sanitizers: their shadow memory
# would not fit under the runner's RLIMIT_DATA cap, and it is not kforge's own process.
RUNNER_CPU_SRC := sandbox/runner_cpu.c sandbox/runner_core.c sandbox/runner_seccomp.c sandbox/jail.c sandbox/profile_open.c
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
# kforge(1) and the bash completion, generated from the built kforge's --help texts.
MAN_PAGE := $(BUILD)/kforge.1
COMPLETION := $(BUILD)/kforge.bash
# What the installed kforge runs beside itself (the CUDA ones join below when built).
HELPERS := $(RUNNER_CPU)
TESTS   := $(BUILD)/kforge-tests
GPU_TESTS := $(BUILD)/kforge-gpu-tests
LIBKF   := $(BUILD)/libkforge.a

.PHONY: all test test-asan test-gpu bench demo clean install uninstall
all: $(KFORGE) $(RUNNER_CPU) $(MAN_PAGE) $(COMPLETION)

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -c $< -o $@

$(BUILD)/robj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CSTD) $(WARN) -I. $(PKG_CFLAGS) $(CPPFLAGS) $(CFLAGS) -MMD -MP -c $< -o $@

$(LIBKF): $(LIB_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

# -rdynamic: libkforge-cuda.so, loaded at run time, uses kforge's own helpers.
$(KFORGE): $(CLI_OBJ) $(LIBKF)
	$(CC) $(SAN) $(CFLAGS) $(LDFLAGS) -rdynamic -o $@ $(CLI_OBJ) $(LIBKF) $(LDLIBS_ALL)

$(MAN_PAGE): $(KFORGE) cli/gen-doc.sh
	sh cli/gen-doc.sh man $(KFORGE) > $@.tmp && mv $@.tmp $@

$(COMPLETION): $(KFORGE) cli/gen-doc.sh
	sh cli/gen-doc.sh bash $(KFORGE) > $@.tmp && mv $@.tmp $@

# The runner exports its allocation wrappers (-rdynamic) so the candidate's malloc binds to
# them, and links libgomp up front so OpenMP initialises before the seccomp filter.
$(RUNNER_CPU): $(RUNNER_CPU_OBJ)
	$(CC) $(CFLAGS) $(LDFLAGS) -rdynamic -o $@ $^ $(shell pkg-config --libs libseccomp) -ldl \
		-Wl,--no-as-needed -lgomp -lm -lgcc_s -Wl,--as-needed

$(TESTS): $(TEST_OBJ) $(LIBKF)
	$(CC) $(SAN) $(CFLAGS) $(LDFLAGS) -rdynamic -o $@ $(TEST_OBJ) $(LIBKF) $(CRIT_LIBS) $(LDLIBS_ALL)

$(GPU_TESTS): $(GPU_TEST_OBJ) $(TEST_SUPPORT_OBJ) $(LIBKF)
	$(CC) $(SAN) $(CFLAGS) $(LDFLAGS) -rdynamic -o $@ $(GPU_TEST_OBJ) $(TEST_SUPPORT_OBJ) $(LIBKF) $(CRIT_LIBS) $(LDLIBS_ALL)

$(BUILD)/obj/tests/%.o: tests/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(CRIT_CFLAGS) -c $< -o $@

$(BUILD)/bench/%: bench/%.c $(LIBKF)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(LDFLAGS) -rdynamic -o $@ $< $(LIBKF) $(LDLIBS_ALL)

# ---- CUDA backend: a runner program and the judge's device library, built where nvcc is ----
ifeq ($(HAVE_CUDA),1)
CUDA_INC := -I$(CUDA_HOME)/include
CUDA_RPATH := -L$(CUDA_HOME)/lib64 -Wl,-rpath,$(CUDA_HOME)/lib64
RUNNER_CUDA := $(BUILD)/kforge-runner-cuda
CUDA_LIBKF := $(BUILD)/libkforge-cuda.so
RUNNER_CUDA_SRC := sandbox/runner_cuda.c sandbox/runner_core.c sandbox/runner_seccomp.c sandbox/jail.c \
	sandbox/profile_open.c sandbox/profile_cuda.c sandbox/runner_cuda_common.c
RUNNER_CUDA_OBJ := $(RUNNER_CUDA_SRC:%.c=$(BUILD)/robj/%.o)
all: $(RUNNER_CUDA) $(CUDA_LIBKF)
HELPERS += $(RUNNER_CUDA) $(CUDA_LIBKF)

# The single-GPU runner and what both CUDA runners share (sandbox/runner_cuda_common.c).
$(BUILD)/robj/sandbox/runner_cuda.o $(BUILD)/robj/sandbox/runner_cuda_common.o: $(BUILD)/robj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CSTD) $(WARN) -I. $(CUDA_INC) $(CPPFLAGS) $(CFLAGS) -MMD -MP -c $< -o $@

# The profiled run's CUPTI code: CUPTI's headers sit beside CUDA's, or under extras/CUPTI.
$(BUILD)/robj/sandbox/profile_cuda.o: sandbox/profile_cuda.c
	@mkdir -p $(dir $@)
	$(CC) $(CSTD) $(WARN) -I. $(PKG_CFLAGS) $(CUDA_INC) -I$(CUDA_HOME)/extras/CUPTI/include -Isandbox/cupti_c \
		$(CPPFLAGS) $(CFLAGS) -MMD -MP -c $< -o $@

# Candidates link the shared CUDA runtime and C++ library: the runner loads both up front,
# so a candidate's dlopen finds them already there (no file is opened under the filter).
RUNNER_CUDA_LIBS = $(shell pkg-config --libs libseccomp) -ldl $(CUDA_RPATH) \
	-Wl,--no-as-needed -lcudart -lstdc++ -lgomp -lm -lgcc_s -Wl,--as-needed -L$(CUDA_HOME)/lib64/stubs -lcuda
$(RUNNER_CUDA): $(RUNNER_CUDA_OBJ)
	$(CC) $(CFLAGS) $(LDFLAGS) -rdynamic -o $@ $^ $(RUNNER_CUDA_LIBS)

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
$(BUILD)/robj/sandbox/runner_cuda_common.o: $(BUILD)/gen/runner_hold_fatbin.inc
$(BUILD)/robj/sandbox/runner_cuda_common.o: CUDA_INC += -I$(BUILD)/gen

# The multi-GPU runner (sandbox/runner_cuda_multi.c): the CUDA runner's core and shared CUDA pieces (the hold
# kernel among them), one rank per GPU.
RUNNER_CUDA_MULTI := $(BUILD)/kforge-runner-cuda-multi
RUNNER_CUDA_MULTI_OBJ := $(filter-out $(BUILD)/robj/sandbox/runner_cuda.o,$(RUNNER_CUDA_OBJ)) $(BUILD)/robj/sandbox/runner_cuda_multi.o
all: $(RUNNER_CUDA_MULTI)
HELPERS += $(RUNNER_CUDA_MULTI)
$(BUILD)/robj/sandbox/runner_cuda_multi.o: sandbox/runner_cuda_multi.c
	@mkdir -p $(dir $@)
	$(CC) $(CSTD) $(WARN) -I. $(PKG_CFLAGS) $(CUDA_INC) $(CPPFLAGS) $(CFLAGS) -MMD -MP -c $< -o $@
$(RUNNER_CUDA_MULTI): $(RUNNER_CUDA_MULTI_OBJ)
	$(CC) $(CFLAGS) $(LDFLAGS) -rdynamic -o $@ $^ $(RUNNER_CUDA_LIBS)
# The judge's multi-GPU side (eval/judge/gpu/multi_cuda.c): peer access, the ranks' common-start timer,
# topology and peer bandwidth; linked into libkforge-cuda.so.
$(BUILD)/obj/eval/judge/gpu/multi_kernels.o: eval/judge/gpu/multi_kernels.cu
	@mkdir -p $(dir $@)
	$(NVCC) -O3 -std=c++17 -Xcompiler -fPIC -I. -gencode=arch=compute_90a,code=sm_90a \
		-gencode=arch=compute_80,code=compute_80 -c $< -o $@
$(CUDA_LIBKF): eval/judge/gpu/multi_cuda.c $(BUILD)/obj/eval/judge/gpu/multi_kernels.o

$(CUDA_LIBKF): eval/judge/gpu/cuda_area.c $(BUILD)/obj/eval/judge/gpu/cuda_kernels.o
	@mkdir -p $(dir $@)
	$(CC) $(CSTD) $(WARN) -fPIC -shared -I. $(PKG_CFLAGS) $(CUDA_INC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -MMD -MP \
		-o $@ $(filter %.c %.o,$^) \
		$(CUDA_RPATH) -lcudart -lstdc++ -L$(CUDA_HOME)/lib64/stubs -lcuda
endif

# Tests run against the tree they were built from; each run gets a fresh compile cache. With
# KFORGE_INSTALLED=DIR, every kforge the tests start is DIR/bin/kforge, without KFORGE_HOME, so it
# reads the data installed beside it (tests/support/cli.c).
KFORGE_INSTALLED ?=
test: all $(TESTS)
	KFORGE_HOME=$(CURDIR) KFORGE_CACHE=$(abspath $(BUILD))/test-cache \
		$(if $(KFORGE_INSTALLED),KFORGE_TEST_KFORGE=$(abspath $(KFORGE_INSTALLED))/bin/kforge) \
		$(abspath $(TESTS)) --jobs 2

# GPU tests skip themselves, with a message, where no GPU is present.
test-gpu: all $(GPU_TESTS)
	KFORGE_HOME=$(CURDIR) KFORGE_CACHE=$(abspath $(BUILD))/test-cache $(abspath $(GPU_TESTS)) --jobs 1

test-asan:
	LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp $(MAKE) BUILD=build/asan SAN="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all" CFLAGS="-O1 -g" \
		test

bench: all $(BENCH_BIN)

# Judges the bundled example kernels on the CPU: real work, no network.
demo: all
	./examples/demo.sh

# ---- install: kforge finds share/ and libexec/ from its own path (common/fs.c), no variable needed ----
PREFIX  ?= /usr/local
BINDIR  := $(PREFIX)/bin
LIBEXECDIR := $(PREFIX)/libexec/kforge
DATADIR := $(PREFIX)/share/kforge
MANDIR  := $(PREFIX)/share/man/man1
COMPLETIONDIR := $(PREFIX)/share/bash-completion/completions
# Everything kforge reads under its home at run time: the task suite, the trusted references,
# oracles and vendor baselines (and the headers they include), the prompt templates of kforge run,
# and the CPU calibration probe (eval/judge/sol.c).
HOME_DATA := tasks reference_kernels prompts eval/judge/calib

install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBEXECDIR) $(DESTDIR)$(DATADIR) $(DESTDIR)$(MANDIR) \
		$(DESTDIR)$(COMPLETIONDIR)
	install -m 755 $(KFORGE) $(DESTDIR)$(BINDIR)/kforge
	install -m 755 $(HELPERS) $(DESTDIR)$(LIBEXECDIR)/
	for d in $(HOME_DATA); do \
		rm -rf $(DESTDIR)$(DATADIR)/$$d && mkdir -p $(DESTDIR)$(DATADIR)/$$(dirname $$d) && \
		cp -R $$d $(DESTDIR)$(DATADIR)/$$d && chmod -R u+rwX,go+rX,go-w $(DESTDIR)$(DATADIR)/$$d || exit 1; \
	done
	install -m 644 $(MAN_PAGE) $(DESTDIR)$(MANDIR)/kforge.1
	install -m 644 $(COMPLETION) $(DESTDIR)$(COMPLETIONDIR)/kforge

uninstall:
	rm -rf $(DESTDIR)$(BINDIR)/kforge $(DESTDIR)$(LIBEXECDIR) $(DESTDIR)$(DATADIR) \
		$(DESTDIR)$(MANDIR)/kforge.1 $(DESTDIR)$(COMPLETIONDIR)/kforge

clean:
	rm -rf build

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
