/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the TPM exerciser (tpm_tis_test) and the QEMU trace checker
 * (tpm_qtrace) share: TPM 2.0 and TIS register constants, the table of
 * command counts one writes and the other checks, big-endian reads.
 */
#ifndef RTLAB_TPM_TIS_H
#define RTLAB_TPM_TIS_H

#include <stdint.h>

/* TPM 2.0 (TCG TPM 2.0 Library, Part 2) */
#define TPM_ST_NO_SESSIONS	0x8001
#define TPM_ST_SESSIONS		0x8002
#define TPM_CC_SELFTEST		0x00000143
#define TPM_CC_GETCAPABILITY	0x0000017a
#define TPM_CC_GETRANDOM	0x0000017b
#define TPM_CC_GETTESTRESULT	0x0000017c
#define TPM_CC_PCR_READ		0x0000017e
#define TPM_CC_PCR_EXTEND	0x00000182
#define TPM_RS_PW		0x40000009
#define TPM_ALG_SHA256		0x000b
#define TPM_CAP_TPM_PROPERTIES	0x00000006
#define TPM_PT_FAMILY_INDICATOR	0x00000100
#define FAMILY_2_0		0x322e3000	/* "2.0\0" */
#define MARK_START		0x52544c41	/* "RTLA" */
#define MARK_END		0x52544c5a	/* "RTLZ" */
#define SHA256_LEN		32
#define RANDOM_LEN		32
#define PCR_EXT			16
#define HDR			10
#define BUFSZ			4096

/* TPM interface (TIS / PC Client PTP) register offsets in a locality page */
#define REG_ACCESS	0x000
#define REG_STS		0x018
#define REG_FIFO	0x024
#define STS_GO		0x20
#define STS_READY	0x40

/* ---- command counts shared by the sender and the checkers ------------- */

struct cc_count {
	uint32_t cc;
	unsigned long n;
};

#define MAX_CC 64
struct cc_table {
	struct cc_count e[MAX_CC];
	int len;
};

void cc_add(struct cc_table *t, uint32_t cc);
unsigned long cc_get(const struct cc_table *t, uint32_t cc);
unsigned long cc_total(const struct cc_table *t);
const char *cc_name(uint32_t cc);
void cc_print(const char *what, const struct cc_table *t);
void cc_load(const char *path, struct cc_table *t);	/* dies on a bad file */
uint16_t get16(const uint8_t *p);
uint32_t get32(const uint8_t *p);

#endif
