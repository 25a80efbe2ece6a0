/* SPDX-License-Identifier: GPL-2.0 */
/* The BTF of types.c (see Makefile), as the .BTF section libbpf reads. */
	.section .BTF, "a"
	.incbin BTF_FILE
