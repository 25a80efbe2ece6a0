# rtlab: PREEMPT_RT 6.12 patches, tools and the QEMU lab that tests them.
# Start with "make demo" or "make check" as root on Debian 12; see README.md.

TOP      := $(abspath .)
BUILD    ?= $(TOP)/build
export BUILD
VARIANTS := rt rt-debug
COMPONENTS := $(patsubst %/Makefile,%,$(wildcard lib/*/Makefile tools/*/Makefile)) tests/progs
LABCHECK := $(BUILD)/bin/labcheck
CFLAGS_LAB := -std=c11 -O2 -g -Wall -Wextra -Werror -D_GNU_SOURCE

.PHONY: all deps tree kernel $(addprefix kernel-,$(VARIANTS)) modules rtla tools \
	initramfs check demo shell bench guest-test reboot-test checkpatch stress clean cocci-report \
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

$(addprefix kernel-,$(VARIANTS)): kernel-%: tree
	@$(KLOCK) kernel/scripts/build-kernel.sh $*

modules: kernel
	@for v in $(VARIANTS); do $(KLOCK) kernel/scripts/build-modules.sh $$v || exit 1; done

rtla: tree
	@$(KLOCK) kernel/scripts/build-rtla.sh

# --- user space -----------------------------------------------------------
$(LABCHECK): vm/labcheck/labcheck.c | deps
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_LAB) -o $@ $<

tools: $(LABCHECK) | deps
	@mkdir -p $(BUILD)
	@flock $(BUILD)/.stage.lock vm/stage-tools.sh $(COMPONENTS)

initramfs: tools modules rtla
	@flock $(BUILD)/.stage.lock vm/mkinitramfs.sh

# --- running --------------------------------------------------------------
GUEST_TESTS = $(sort $(filter-out %/lib.sh,$(wildcard tests/guest/*)))
# bench/run.sh and the A/B drivers (bench/*-ab.sh) run on the host
BENCHES     = $(sort $(filter-out bench/run.sh bench/%-ab.sh,$(wildcard bench/*.sh)))

check: deps
	@tests/check.sh

host-test: tools
	@tests/check.sh --host-only

# make guest-test T=name [KERNEL=rt] [VERBOSE=1]  (name with or without .sh)
guest-test: initramfs
	@test -n "$(T)" || { echo "usage: make guest-test T=<name in tests/guest>"; exit 2; }
	@vm/run-tests.sh --suite one $(foreach t,$(T),$(firstword $(wildcard tests/guest/$(t) tests/guest/$(t).sh) tests/guest/$(t)))

reboot-test: initramfs
	@vm/reboot-test.sh $(or $(N),50)

shell: initramfs
	@vm/shell.sh

demo: initramfs
	@vm/demo.sh

bench: initramfs
	@bench/run.sh $(BENCHES)

stress: initramfs
	@vm/run-tests.sh --suite stress --dir stress $(sort $(wildcard tests/stress/*))

checkpatch: tree
	@kernel/scripts/checkpatch.sh

# make cocci-report [DIR=drivers/pinctrl]: the PREEMPT_RT context checkers
# over the lab's tree (or one directory of it)
cocci-report: tree
	@$(KLOCK) cocci/run.sh --tree $(BUILD)/linux --out $(BUILD)/cocci-report -j 2 $(DIR)

clean:
	rm -rf $(BUILD)/out $(BUILD)/initramfs $(BUILD)/run $(BUILD)/bin $(BUILD)/modules
	@for c in $(COMPONENTS); do $(MAKE) -s -C $$c clean; done
