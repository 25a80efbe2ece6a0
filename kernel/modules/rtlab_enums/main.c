// SPDX-License-Identifier: GPL-2.0
/*
 * rtlab_enums: not meant to be loaded. The module file carries, in its
 * .BTF section, the BTF of the enum types of this kernel build (types.c),
 * which the lab's kernels (CONFIG_DEBUG_INFO_NONE) have nowhere else:
 * "ftdump --save-formats DIR --btf /rtlab/modules/rtlab_enums.ko" takes the
 * values of the enum constants in print fmts from it. On a kernel with
 * CONFIG_DEBUG_INFO_BTF_MODULES the loader would take the section for the
 * module's split BTF; such a kernel has /sys/kernel/btf/vmlinux instead.
 */
#include <linux/module.h>

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("rtlab: BTF of enum types for ftdump (not loaded)");
