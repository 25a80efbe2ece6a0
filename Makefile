# rtlab: PREEMPT_RT 6.12 patches, tools and the QEMU lab that tests them.
# Start with "make demo" or "make check" as root on Debian 12; see README.md.

TOP      := $(abspath .)
BUILD    ?= $(TOP)/build
export BUILD
# kernel/configs/<variant>.config (lab/lib/machine.sh); build-only ones
# (first line "# rtlab: build-only") are built by "make build-only" (and
# make check), never booted
# (make VARIANTS=rt ... builds and packs only those; "make demo" alone
# builds only the kernel it boots, the default of role "demo")
VARIANTS   := $(shell lab/rtlab variants)
ifeq ($(MAKECMDGOALS),demo)
VARIANTS   := $(shell lab/rtlab default-kernel demo)
endif
BUILD_ONLY := $(shell lab/rtlab variants --build-only)
COMPONENTS := $(patsubst %/Makefile,%,$(wildcard lib/*/Makefile tools/*/Makefile)) tests/progs
LABCHECK := $(BUILD)/bin/labcheck
CFLAGS_LAB := -std=c11 -O2 -g -Wall -Wextra -Werror -D_GNU_SOURCE -Iinclude

.PHONY: all deps tree kernel build-only $(addprefix kernel-,$(VARIANTS) $(BUILD_ONLY)) modules rtla tools \
	initramfs formats check demo shell bench guest-test reboot-test checkpatch stress clean cocci-report \
	host-test

all: tools kernel initramfs

# --- packages -------------------------------------------------------------
# Every target that runs a compiler has deps as an order-only prerequisite,
# so that the first command on a fresh machine, whichever it is, installs
# the packages first (tests/host/make-order.sh checks it).
deps:
	@scripts/deps.sh

# --- kernel ---------------------------------------------------------------
# Every step that writes the kernel tree or a kernel build runs under the
# machine-wide kernel lock (KLOCK; kernel/scripts/lib.sh says why).
KLOCK := kernel/scripts/locked.sh
tree: | deps
	@mkdir -p $(BUILD)
	@$(KLOCK) kernel/scripts/prepare-tree.sh

kernel: tree
	@for v in $(VARIANTS); do $(KLOCK) kernel/scripts/build-kernel.sh $$v || exit 1; done

$(addprefix kernel-,$(VARIANTS) $(BUILD_ONLY)): kernel-%: tree
	@$(KLOCK) kernel/scripts/build-kernel.sh $*

build-only: tree
	@kernel/scripts/build-only.sh

modules: kernel
	@for v in $(VARIANTS); do $(KLOCK) kernel/scripts/build-modules.sh $$v || exit 1; done

rtla: tree
	@$(KLOCK) kernel/scripts/build-rtla.sh

# --- user space -----------------------------------------------------------
$(LABCHECK): lab/labcheck/labcheck.c $(wildcard include/rtlab/*.h) | deps
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_LAB) -o $@ $<

tools: $(LABCHECK) | deps
	@mkdir -p $(BUILD)
	@flock $(BUILD)/.stage.lock lab/image/stage-tools.sh $(COMPONENTS)

initramfs: tools modules rtla
	@flock $(BUILD)/.stage.lock lab/rtlab image

# each bootable kernel's ftdump format bundle, kept in build/out/<v>/ftdump-formats
formats: initramfs
	@lab/rtlab formats

# --- running (lab/rtlab) ---------------------------------------------------
check: deps
	@tests/check.sh

host-test: tools
	@tests/check.sh --host-only

# make guest-test T=name [KERNEL=rt] [VERBOSE=1]  (name with or without .sh)
guest-test: initramfs
	@test -n "$(T)" || { echo "usage: make guest-test T=<name in tests/guest>"; exit 2; }
	@lab/rtlab run --suite one $(foreach t,$(T),$(firstword $(wildcard tests/guest/$(t) tests/guest/$(t).sh) tests/guest/$(t)))

reboot-test: initramfs
	@lab/rtlab reboot $(or $(N),50)

# make shell [T=test] [CMD='...'] [KERNEL= CPUS= MEM= NICS= TPM=yes DEVICES=]
# (CMD and the machine keys reach lab/cmd/shell.sh through the environment)
shell: initramfs
	@lab/rtlab shell

demo: initramfs
	@lab/rtlab demo

# make bench [B="name ..."]: all benchmarks, or the named ones of bench/guest
bench: initramfs
	@bench/host/run.sh $(foreach b,$(B),bench/guest/$(b).sh)

stress: initramfs
	@lab/rtlab run --suite stress --dir stress $(sort $(wildcard tests/stress/*))

checkpatch: tree
	@kernel/scripts/checkpatch.sh

# make cocci-report [DIR=drivers/pinctrl]: the PREEMPT_RT context checkers
# over the lab's tree (or one directory of it)
cocci-report: tree
	@$(KLOCK) cocci/run.sh --tree $(BUILD)/linux --out $(BUILD)/cocci-report -j 2 $(DIR)

clean:
	rm -rf $(BUILD)/out $(BUILD)/initramfs $(BUILD)/run $(BUILD)/bin $(BUILD)/modules
	@for c in $(COMPONENTS); do $(MAKE) -s -C $$c clean; done
