// SPDX-License-Identifier: GPL-2.0
/*
 * tpm_tis_test - guest-side proof that tpm_tis on PREEMPT_RT follows every
 * MMIO write to the TPM with a read of TPM_ACCESS(0) (tpm_tis_flush(), seed
 * 003, mainline since 6.4), while real TPM 2.0 commands keep working.
 *
 *   tpm_tis_test [-d DEV] [-n ROUNDS] [-m] [-c COUNTS]
 *	Sends real TPM 2.0 commands through DEV (default /dev/tpm0) and checks
 *	every answer strictly: a full TPM2_SelfTest and TPM2_GetTestResult,
 *	then ROUNDS rounds of SelfTest, GetRandom (size, differs from the last
 *	one), PCR_Read of the SHA-256 bank (PCRs 0-7 stable, digest sizes),
 *	PCR_Extend of PCR 16 checked against SHA-256(old || digest) computed
 *	here, and GetCapability (TPM_PT_FAMILY_INDICATOR is "2.0").  -m wraps
 *	the run in two marker commands (a GetCapability of the unused property
 *	0x52544c41 "RTLA" before, 0x52544c5a "RTLZ" after) that the trace
 *	checker tpm_qtrace finds; -c writes how many commands of each code were
 *	sent, markers included.
 *
 * The guest-side view comes from the kernel module rtlab_tpmflush.
 *
 * Prints "# " diagnostics and "key=value" summary lines; exits 0 when what
 * it checks holds, 1 when it does not, 2 on bad usage or a setup error.
 */

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <openssl/evp.h>

#include "rtlab/die.h"
#include "rtlab/opt.h"
#include "rtlab/tap.h"
#include "tpm_tis.h"

/* ---- big-endian buffers ------------------------------------------------- */

struct buf {
	uint8_t b[BUFSZ];
	size_t len;
};

static void put8(struct buf *m, uint8_t v)
{
	if (m->len >= BUFSZ)
		die("command buffer overflow");
	m->b[m->len++] = v;
}

static void put16(struct buf *m, uint16_t v)
{
	put8(m, v >> 8);
	put8(m, v & 0xff);
}

static void put32(struct buf *m, uint32_t v)
{
	put16(m, v >> 16);
	put16(m, v & 0xffff);
}

static void putbytes(struct buf *m, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		put8(m, p[i]);
}

static void cmd_begin(struct buf *m, uint16_t tag, uint32_t cc)
{
	m->len = 0;
	put16(m, tag);
	put32(m, 0);	/* size, set by cmd_end */
	put32(m, cc);
}

static void cmd_end(struct buf *m)
{
	uint32_t n = (uint32_t)m->len;

	m->b[2] = n >> 24;
	m->b[3] = n >> 16;
	m->b[4] = n >> 8;
	m->b[5] = n;
}

/* A response being parsed: every read is bounds-checked. */
struct rsp {
	const uint8_t *p;
	size_t len, off;
	const char *what;
	bool bad;
};

static bool need(struct rsp *r, size_t n)
{
	if (r->bad)
		return false;
	if (r->off + n > r->len) {
		diag("%s: response too short (%zu bytes, wanted %zu more at %zu)",
		     r->what, r->len, n, r->off);
		r->bad = true;
		return false;
	}
	return true;
}

static uint8_t take8(struct rsp *r)
{
	return need(r, 1) ? r->p[r->off++] : 0;
}

/* the next big-endian field of n (2 or 4) bytes; 0 once the response is short */
static uint32_t take_be(struct rsp *r, size_t n)
{
	uint32_t v = 0;

	if (need(r, n)) {
		v = n == 2 ? get16(r->p + r->off) : get32(r->p + r->off);
		r->off += n;
	}
	return v;
}

static uint16_t take16(struct rsp *r)
{
	return (uint16_t)take_be(r, 2);
}

static uint32_t take32(struct rsp *r)
{
	return take_be(r, 4);
}

static const uint8_t *takebytes(struct rsp *r, size_t n)
{
	const uint8_t *p = NULL;

	if (need(r, n)) {
		p = r->p + r->off;
		r->off += n;
	}
	return p;
}

/* expect: a response field must have a value */
static bool expect(struct rsp *r, const char *field, unsigned long got, unsigned long want)
{
	if (r->bad)
		return false;
	if (got != want) {
		diag("%s: %s is 0x%lx, expected 0x%lx", r->what, field, got, want);
		r->bad = true;
		return false;
	}
	return true;
}

/* the whole response must have been consumed */
static bool rsp_done(struct rsp *r)
{
	if (r->bad)
		return false;
	if (r->off != r->len) {
		diag("%s: %zu trailing bytes in the response", r->what, r->len - r->off);
		r->bad = true;
		return false;
	}
	return true;
}

/* ---- the sender --------------------------------------------------------- */

static int tpm_fd = -1;
static struct cc_table sent;
static unsigned long errors, bytes_sent, timeouts;
static bool last_timed_out;	/* the last transact() failed with ETIME, not yet counted as an error */

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void fail(const char *fmt, ...)
{
	va_list ap;

	errors++;
	fputs("# FAIL: ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	fputc('\n', stdout);
	fflush(stdout);
}

/*
 * Send one command, read its response, check the header (tag, size equal
 * to what read() returned, response code).  Returns false (and counts an
 * error) when any of it is wrong; on success *r is set to parse the body.
 *
 * ETIME from write() is the kernel giving up on the TPM's answer after the
 * command's duration (750 ms for most, "Operation Timed out"): under TCG
 * on a loaded host a vCPU can stall that long between two status polls.
 * It is counted apart: a command without side effects is sent again (at
 * most twice); for PCR_Extend (resend == 0) the caller finds out from
 * PCR 16 whether it ran.  A second timeout in a row is an error.
 */
static bool transact_once(const struct buf *cmd, struct buf *resp, uint16_t want_tag,
			  const char *what, struct rsp *r, int resend)
{
	ssize_t n;
	uint32_t cc = get32(cmd->b + 6);

	last_timed_out = false;
	cc_add(&sent, cc);
	bytes_sent += cmd->len;
	n = write(tpm_fd, cmd->b, cmd->len);
	if (n < 0 && errno == ETIME) {
		timeouts++;
		diag("%s: ETIME, no answer within the command's duration (%lu so far)%s",
		     what, timeouts, resend ? "; sending it again" : "");
		if (resend)
			return transact_once(cmd, resp, want_tag, what, r, resend - 1);
		last_timed_out = true;
		return false;
	}
	if (n != (ssize_t)cmd->len) {
		fail("%s: write: %zd of %zu bytes (%s)", what, n, cmd->len,
		     n < 0 ? strerror(errno) : "short");
		return false;
	}
	n = read(tpm_fd, resp->b, sizeof(resp->b));
	if (n < 0) {
		fail("%s: read: %s", what, strerror(errno));
		return false;
	}
	resp->len = (size_t)n;
	*r = (struct rsp){ .p = resp->b, .len = resp->len, .what = what };
	if (resp->len < HDR) {
		fail("%s: response of %zu bytes, shorter than a header", what, resp->len);
		return false;
	}
	uint16_t tag = take16(r);
	uint32_t size = take32(r);
	uint32_t rc = take32(r);

	if (rc != 0) {
		fail("%s: response code 0x%08x", what, rc);
		return false;
	}
	if (size != resp->len) {
		fail("%s: header size %u but read() returned %zu bytes", what, size, resp->len);
		return false;
	}
	if (tag != want_tag) {
		fail("%s: tag 0x%04x, expected 0x%04x", what, tag, want_tag);
		return false;
	}
	return true;
}

static bool transact(const struct buf *cmd, struct buf *resp, uint16_t want_tag,
		     const char *what, struct rsp *r)
{
	bool ok = transact_once(cmd, resp, want_tag, what, r,
				get32(cmd->b + 6) == TPM_CC_PCR_EXTEND ? 0 : 2);

	/* resent commands that timed out every time: an error */
	if (last_timed_out && get32(cmd->b + 6) != TPM_CC_PCR_EXTEND) {
		fail("%s: no answer, three times in a row", what);
		last_timed_out = false;
	}
	return ok;
}

static bool check_done(struct rsp *r)
{
	if (!rsp_done(r)) {
		errors++;
		return false;
	}
	return true;
}

static bool tpm_selftest(bool full)
{
	struct buf c, resp;
	struct rsp r;

	cmd_begin(&c, TPM_ST_NO_SESSIONS, TPM_CC_SELFTEST);
	put8(&c, full ? 1 : 0);
	cmd_end(&c);
	if (!transact(&c, &resp, TPM_ST_NO_SESSIONS, full ? "SelfTest(full)" : "SelfTest", &r))
		return false;
	return check_done(&r);
}

static bool tpm_gettestresult(void)
{
	struct buf c, resp;
	struct rsp r;

	cmd_begin(&c, TPM_ST_NO_SESSIONS, TPM_CC_GETTESTRESULT);
	cmd_end(&c);
	if (!transact(&c, &resp, TPM_ST_NO_SESSIONS, "GetTestResult", &r))
		return false;
	uint16_t n = take16(&r);

	takebytes(&r, n);		/* vendor-specific outData */
	expect(&r, "testResult", take32(&r), 0);
	return check_done(&r);
}

static bool tpm_getrandom(uint8_t out[RANDOM_LEN])
{
	struct buf c, resp;
	struct rsp r;
	const uint8_t *p;

	cmd_begin(&c, TPM_ST_NO_SESSIONS, TPM_CC_GETRANDOM);
	put16(&c, RANDOM_LEN);
	cmd_end(&c);
	if (!transact(&c, &resp, TPM_ST_NO_SESSIONS, "GetRandom", &r))
		return false;
	expect(&r, "randomBytes.size", take16(&r), RANDOM_LEN);
	p = takebytes(&r, RANDOM_LEN);
	if (!check_done(&r))
		return false;
	memcpy(out, p, RANDOM_LEN);
	return true;
}

/* PCR_Read of the SHA-256 bank: the PCRs in mask (bit i = PCR i), at most 8 */
static bool tpm_pcr_read(uint32_t mask, uint8_t dig[][SHA256_LEN], uint32_t *update_counter)
{
	struct buf c, resp;
	struct rsp r;
	int want = __builtin_popcount(mask);

	cmd_begin(&c, TPM_ST_NO_SESSIONS, TPM_CC_PCR_READ);
	put32(&c, 1);			/* TPML_PCR_SELECTION.count */
	put16(&c, TPM_ALG_SHA256);
	put8(&c, 3);			/* sizeofSelect: PCRs 0-23 */
	put8(&c, mask & 0xff);
	put8(&c, (mask >> 8) & 0xff);
	put8(&c, (mask >> 16) & 0xff);
	cmd_end(&c);
	if (!transact(&c, &resp, TPM_ST_NO_SESSIONS, "PCR_Read", &r))
		return false;
	*update_counter = take32(&r);
	expect(&r, "pcrSelectionOut.count", take32(&r), 1);
	expect(&r, "pcrSelectionOut.hash", take16(&r), TPM_ALG_SHA256);
	expect(&r, "pcrSelectionOut.sizeofSelect", take8(&r), 3);
	expect(&r, "pcrSelectionOut.pcrSelect[0]", take8(&r), mask & 0xff);
	expect(&r, "pcrSelectionOut.pcrSelect[1]", take8(&r), (mask >> 8) & 0xff);
	expect(&r, "pcrSelectionOut.pcrSelect[2]", take8(&r), (mask >> 16) & 0xff);
	expect(&r, "pcrValues.count", take32(&r), (unsigned long)want);
	for (int i = 0; i < want && !r.bad; i++) {
		const uint8_t *p;

		expect(&r, "pcrValues.digests[].size", take16(&r), SHA256_LEN);
		p = takebytes(&r, SHA256_LEN);
		if (p)
			memcpy(dig[i], p, SHA256_LEN);
	}
	return check_done(&r);
}

static bool tpm_pcr_extend(uint32_t pcr, const uint8_t d[SHA256_LEN])
{
	struct buf c, resp;
	struct rsp r;

	cmd_begin(&c, TPM_ST_SESSIONS, TPM_CC_PCR_EXTEND);
	put32(&c, pcr);			/* pcrHandle */
	put32(&c, 9);			/* authorizationSize */
	put32(&c, TPM_RS_PW);		/* password session, empty auth */
	put16(&c, 0);			/* nonce */
	put8(&c, 0x01);			/* continueSession */
	put16(&c, 0);			/* hmac (the empty password) */
	put32(&c, 1);			/* TPML_DIGEST_VALUES.count */
	put16(&c, TPM_ALG_SHA256);
	putbytes(&c, d, SHA256_LEN);
	cmd_end(&c);
	if (!transact(&c, &resp, TPM_ST_SESSIONS, "PCR_Extend", &r))
		return false;
	expect(&r, "parameterSize", take32(&r), 0);
	expect(&r, "auth.nonce.size", take16(&r), 0);
	expect(&r, "auth.sessionAttributes", take8(&r), 0x01);
	expect(&r, "auth.hmac.size", take16(&r), 0);
	return check_done(&r);
}

/* GetCapability(TPM_PROPERTIES, property, 1); *value set if one came back */
static bool tpm_getcap(uint32_t property, bool *got, uint32_t *value, const char *what)
{
	struct buf c, resp;
	struct rsp r;
	uint8_t more;
	uint32_t count;

	cmd_begin(&c, TPM_ST_NO_SESSIONS, TPM_CC_GETCAPABILITY);
	put32(&c, TPM_CAP_TPM_PROPERTIES);
	put32(&c, property);
	put32(&c, 1);
	cmd_end(&c);
	if (!transact(&c, &resp, TPM_ST_NO_SESSIONS, what, &r))
		return false;
	more = take8(&r);
	if (!r.bad && more > 1) {
		diag("%s: moreData is %u", what, more);
		r.bad = true;
	}
	expect(&r, "capability", take32(&r), TPM_CAP_TPM_PROPERTIES);
	count = take32(&r);
	*got = false;
	if (!r.bad && count == 1) {
		uint32_t p = take32(&r);

		*value = take32(&r);
		*got = true;
		if (!r.bad && p < property) {
			diag("%s: property 0x%x returned for a request from 0x%x", what, p, property);
			r.bad = true;
		}
		if (!r.bad && p != property)
			*got = false;	/* the next defined property, not ours */
	} else if (!r.bad && count != 0) {
		diag("%s: %u properties returned, asked for 1", what, count);
		r.bad = true;
	}
	return check_done(&r);
}

static bool tpm_marker(uint32_t property)
{
	bool got;
	uint32_t v;

	if (!tpm_getcap(property, &got, &v, "GetCapability(marker)"))
		return false;
	if (got) {
		fail("marker property 0x%08x exists on this TPM (value 0x%08x)", property, v);
		return false;
	}
	return true;
}

static void sha256_cat(const uint8_t a[SHA256_LEN], const uint8_t b[SHA256_LEN],
		       uint8_t out[SHA256_LEN])
{
	uint8_t in[2 * SHA256_LEN];
	unsigned int n = 0;

	memcpy(in, a, SHA256_LEN);
	memcpy(in + SHA256_LEN, b, SHA256_LEN);
	if (!EVP_Digest(in, sizeof(in), out, &n, EVP_sha256(), NULL) || n != SHA256_LEN)
		die("EVP_Digest(SHA-256) failed");
}

/* FIPS 180-4 example: SHA-256("abc"), so that the reference is known good */
static void sha256_selfcheck(void)
{
	static const uint8_t want[SHA256_LEN] = {
		0xba, 0x78, 0x16, 0xbf, 0x8f, 0x01, 0xcf, 0xea, 0x41, 0x41, 0x40, 0xde,
		0x5d, 0xae, 0x22, 0x23, 0xb0, 0x03, 0x61, 0xa3, 0x96, 0x17, 0x7a, 0x9c,
		0xb4, 0x10, 0xff, 0x61, 0xf2, 0x00, 0x15, 0xad,
	};
	uint8_t out[SHA256_LEN];
	unsigned int n = 0;

	if (!EVP_Digest("abc", 3, out, &n, EVP_sha256(), NULL) || n != SHA256_LEN ||
	    memcmp(out, want, SHA256_LEN))
		die("SHA-256 of \"abc\" is wrong: the reference hash cannot be trusted");
}

static void hex(const uint8_t *p, size_t n, char *out)
{
	for (size_t i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", p[i]);
}

/*
 * Extend PCR 16 with d and check its new value against SHA-256(old || d)
 * computed here.  An extend that timed out (see transact) may or may not
 * have run: PCR 16 tells which, and it is sent again (once) if it did not.
 * Returns 1 when PCR 16 ends up verified; now gets its last value.
 */
static int extend_and_check(unsigned long round, const uint8_t old[SHA256_LEN],
			    const uint8_t d[SHA256_LEN], uint8_t now[SHA256_LEN])
{
	uint8_t want[SHA256_LEN], cur[1][SHA256_LEN];
	char h1[2 * SHA256_LEN + 1], h2[2 * SHA256_LEN + 1];
	uint32_t uc;

	sha256_cat(old, d, want);
	for (int attempt = 0; attempt < 2; attempt++) {
		bool done = tpm_pcr_extend(PCR_EXT, d);
		bool unsure = !done && last_timed_out;

		if (!done && !unsure)
			return 0;
		if (!tpm_pcr_read(1u << PCR_EXT, cur, &uc))
			return 0;
		memcpy(now, cur[0], SHA256_LEN);
		if (!memcmp(cur[0], want, SHA256_LEN)) {
			if (unsure)
				diag("round %lu: the PCR_Extend that timed out ran: PCR 16 is SHA-256(old || digest)",
				     round);
			return 1;
		}
		if (unsure && !memcmp(cur[0], old, SHA256_LEN)) {
			diag("round %lu: the PCR_Extend that timed out did not run (PCR 16 unchanged): again",
			     round);
			continue;
		}
		hex(want, SHA256_LEN, h1);
		hex(cur[0], SHA256_LEN, h2);
		fail("round %lu: PCR 16 is %s, SHA-256(old || digest) is %s", round, h2, h1);
		return 0;
	}
	fail("round %lu: PCR_Extend timed out twice in a row", round);
	return 0;
}

static int cmd_cmds(int argc, char **argv)
{
	const char *dev = "/dev/tpm0", *counts = NULL;
	unsigned long rounds = 100;
	bool markers = false;
	int opt;

	while ((opt = getopt(argc, argv, "d:n:mc:")) != -1) {
		switch (opt) {
		case 'd': dev = optarg; break;
		case 'n': rounds = strtoul(optarg, NULL, 0); break;
		case 'm': markers = true; break;
		case 'c': counts = optarg; break;
		default: return 2;
		}
	}
	if (rounds == 0)
		die_usage("-n must be at least 1");
	sha256_selfcheck();
	tpm_fd = open(dev, O_RDWR);
	if (tpm_fd < 0)
		die("%s: %s", dev, strerror(errno));

	uint8_t prev_rand[RANDOM_LEN] = { 0 }, rnd[RANDOM_LEN], pcrs0[8][SHA256_LEN];
	uint8_t pcrs[8][SHA256_LEN], old16[1][SHA256_LEN] = { { 0 } };
	uint8_t new16[1][SHA256_LEN] = { { 0 } };
	uint32_t uc, uc_prev = 0, family;
	unsigned long extends_ok = 0, randoms_ok = 0, reads_ok = 0;
	bool have_prev = false, have_pcrs0 = false, got;
	char h1[2 * SHA256_LEN + 1];

	if (markers)
		tpm_marker(MARK_START);
	tpm_selftest(true);
	tpm_gettestresult();
	for (unsigned long i = 0; i < rounds; i++) {
		tpm_selftest(false);
		if (tpm_getrandom(rnd)) {
			static const uint8_t zero[RANDOM_LEN];

			if (!memcmp(rnd, zero, RANDOM_LEN))
				fail("round %lu: GetRandom returned only zeros", i);
			else if (have_prev && !memcmp(rnd, prev_rand, RANDOM_LEN))
				fail("round %lu: GetRandom returned the previous bytes again", i);
			else
				randoms_ok++;
			memcpy(prev_rand, rnd, RANDOM_LEN);
			have_prev = true;
		}
		if (tpm_pcr_read(0xff, pcrs, &uc)) {
			if (!have_pcrs0) {
				memcpy(pcrs0, pcrs, sizeof(pcrs));
				have_pcrs0 = true;
				reads_ok++;
			} else if (memcmp(pcrs0, pcrs, sizeof(pcrs))) {
				fail("round %lu: PCRs 0-7 changed although nobody extended them", i);
			} else {
				reads_ok++;
			}
			if (uc < uc_prev)
				fail("round %lu: pcrUpdateCounter went back from %u to %u", i, uc_prev, uc);
			uc_prev = uc;
		}
		/* extend PCR 16 with the random bytes just drawn */
		if (have_prev && tpm_pcr_read(1u << PCR_EXT, old16, &uc))
			extends_ok += extend_and_check(i, old16[0], prev_rand, new16[0]);
		if (tpm_getcap(TPM_PT_FAMILY_INDICATOR, &got, &family, "GetCapability")) {
			if (!got)
				fail("round %lu: TPM_PT_FAMILY_INDICATOR missing", i);
			else if (family != FAMILY_2_0)
				fail("round %lu: TPM_PT_FAMILY_INDICATOR is 0x%08x, not \"2.0\"", i, family);
		}
	}
	tpm_selftest(true);
	tpm_gettestresult();
	if (markers)
		tpm_marker(MARK_END);
	close(tpm_fd);

	hex(new16[0], SHA256_LEN, h1);
	diag("PCR 16 after the run: %s", h1);
	cc_print("sent", &sent);
	printf("rounds=%lu commands=%lu bytes=%lu random_ok=%lu pcr07_reads_ok=%lu extends_ok=%lu timeouts=%lu errors=%lu\n",
	       rounds, cc_total(&sent), bytes_sent, randoms_ok, reads_ok, extends_ok, timeouts, errors);
	if (counts) {
		FILE *f = fopen(counts, "w");

		if (!f)
			die("%s: %s", counts, strerror(errno));
		fprintf(f, "# commands sent by tpm_tis_test cmds%s\n", markers ? " -m" : "");
		for (int i = 0; i < sent.len; i++)
			fprintf(f, "cc=0x%08x name=%s n=%lu\n", sent.e[i].cc,
				cc_name(sent.e[i].cc), sent.e[i].n);
		if (fclose(f))
			die("%s: %s", counts, strerror(errno));
	}
	/* every round must have passed every one of its checks */
	if (errors || randoms_ok != rounds || reads_ok != rounds || extends_ok != rounds)
		return 1;
	return 0;
}

static void usage(FILE *f)
{
	fputs("usage: tpm_tis_test [-d DEV] [-n ROUNDS] [-m] [-c COUNTS]\n"
	      "See the comment at the top of tests/progs/tpm_tis_test.c.\n", f);
}

int main(int argc, char **argv)
{
	if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")))
		opt_usage_exit(usage, 0);
	return cmd_cmds(argc, argv);
}
