/* rtaudit: read a kernel configuration (.config, /boot/config-*, or the
 * gzip-compressed /proc/config.gz) into a sorted option table.  Anything
 * that is not a Kconfig-written line is an error with its file:line, so a
 * binary or cut-off file is never half-read. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <zlib.h>

#include "rtaudit.h"

#define MAX_CONFIG_BYTES (32u << 20) /* Debian's configs are ~300 KB */
#define READ_CHUNK 65536
#define NOT_SET_SUFFIX " is not set"

static int fail(char *err, size_t errlen, const char *file, size_t line,
		const char *msg)
{
	snprintf(err, errlen, "%s:%zu: %s", file, line, msg);
	return -1;
}

static void put(struct kconfig *kc, const char *name, size_t nlen,
		const char *val, size_t vlen)
{
	struct kopt *o;

	if (kc->n == kc->cap) {
		kc->cap = kc->cap ? 2 * kc->cap : 256;
		kc->v = xrealloc(kc->v, kc->cap * sizeof(*kc->v));
	}
	o = &kc->v[kc->n];
	o->seq = kc->n++;
	o->name = strndup(name, nlen);
	o->value = strndup(val, vlen);
	if (!o->name || !o->value) {
		fputs("rtaudit: out of memory\n", stderr);
		exit(EXIT_BADINPUT);
	}
}

static size_t symbol_len(const char *s, size_t len)
{
	size_t i = 0;

	while (i < len && (isalnum((unsigned char)s[i]) || s[i] == '_'))
		i++;
	return i;
}

/* a value as Kconfig writes it: y/m/n, a decimal or 0x number, or a
 * double-quoted string with \" and \\ escapes */
static bool valid_value(const char *v, size_t len)
{
	size_t i = 0;

	if (len == 1 && (v[0] == 'y' || v[0] == 'm' || v[0] == 'n'))
		return true;
	if (len >= 2 && v[0] == '"') {
		for (i = 1; i < len - 1; i++) {
			if (v[i] == '\\')
				i++;
			else if (v[i] == '"')
				return false;
		}
		return i == len - 1 && v[len - 1] == '"';
	}
	if (len > 2 && v[0] == '0' && (v[1] == 'x' || v[1] == 'X')) {
		for (i = 2; i < len; i++)
			if (!isxdigit((unsigned char)v[i]))
				return false;
		return true;
	}
	if (len && v[0] == '-')
		i = 1;
	if (i == len)
		return false;
	for (; i < len; i++)
		if (!isdigit((unsigned char)v[i]))
			return false;
	return true;
}

static int parse_line(struct kconfig *kc, const char *s, size_t len,
		      const char *file, size_t lineno, char *err, size_t errlen)
{
	size_t nl;

	if (len == 0)
		return 0;
	if (s[0] == '#') {
		const size_t sl = strlen(NOT_SET_SUFFIX);

		if (len > 9 + sl && !strncmp(s, "# CONFIG_", 9) &&
		    !memcmp(s + len - sl, NOT_SET_SUFFIX, sl)) {
			nl = symbol_len(s + 9, len - 9);
			if (nl == 0 || 9 + nl != len - sl)
				return fail(err, errlen, file, lineno,
					    "bad \"is not set\" line");
			put(kc, s + 9, nl, "n", 1);
		}
		return 0; /* any other comment */
	}
	if (len < 8 || strncmp(s, "CONFIG_", 7))
		return fail(err, errlen, file, lineno,
			    "not a kernel config line (expected CONFIG_NAME=value or a # comment)");
	nl = symbol_len(s + 7, len - 7);
	if (nl == 0 || 7 + nl >= len || s[7 + nl] != '=')
		return fail(err, errlen, file, lineno,
			    "expected CONFIG_NAME=value");
	if (!valid_value(s + 8 + nl, len - 8 - nl))
		return fail(err, errlen, file, lineno,
			    "bad value (expected y, m, n, a number or a \"string\")");
	put(kc, s + 7, nl, s + 8 + nl, len - 8 - nl);
	return 0;
}

static int cmp_kopt(const void *a, const void *b)
{
	return strcmp(((const struct kopt *)a)->name,
		      ((const struct kopt *)b)->name);
}

/* by name, then by position in the file (qsort is not stable) */
static int cmp_kopt_seq(const void *a, const void *b)
{
	const struct kopt *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : (x->seq > y->seq) - (x->seq < y->seq);
}

/* Kconfig lets a later line override an earlier one: keep the last. */
static void sort_dedup(struct kconfig *kc)
{
	size_t w = 0;

	qsort(kc->v, kc->n, sizeof(*kc->v), cmp_kopt_seq);
	for (size_t i = 0; i < kc->n; i++) {
		if (w && !strcmp(kc->v[w - 1].name, kc->v[i].name)) {
			free(kc->v[w - 1].name);
			free(kc->v[w - 1].value);
		} else {
			w++;
		}
		kc->v[w - 1] = kc->v[i];
	}
	kc->n = w;
}

int kconfig_parse(struct kconfig *kc, const char *file, const char *buf,
		  size_t len, char *err, size_t errlen)
{
	size_t lineno = 0, pos = 0;

	memset(kc, 0, sizeof(*kc));
	kc->file = strdup(file);
	while (pos < len) {
		const char *nl = memchr(buf + pos, '\n', len - pos);
		size_t ll = nl ? (size_t)(nl - (buf + pos)) : len - pos;

		lineno++;
		for (size_t i = 0; i < ll; i++) {
			unsigned char c = (unsigned char)buf[pos + i];

			if (c == '\r')
				return fail(err, errlen, file, lineno,
					    "carriage return: DOS line ends (convert with dos2unix)");
			if (c == 0 || c < 0x20 ? c != '\t' : c == 0x7f)
				return fail(err, errlen, file, lineno,
					    "binary data (control character): not a kernel config");
		}
		if (!nl)
			return fail(err, errlen, file, lineno,
				    "truncated: the last line has no newline");
		if (parse_line(kc, buf + pos, ll, file, lineno, err, errlen))
			return -1;
		pos += ll + 1;
	}
	if (kc->n == 0)
		return fail(err, errlen, file, lineno ? lineno : 1,
			    "no CONFIG_ option: empty or not a kernel config");
	sort_dedup(kc);
	return 0;
}

/* gzread reads plain files unchanged, so one path serves .config,
 * /boot/config-* and /proc/config.gz. */
int kconfig_load(struct kconfig *kc, const char *path, char *err,
		 size_t errlen)
{
	size_t len = 0, cap = 0;
	char *buf = NULL;
	int rc, zerr;
	gzFile z;

	memset(kc, 0, sizeof(*kc));
	z = gzopen(path, "rb");
	if (!z) {
		snprintf(err, errlen, "%s: cannot open: %s", path,
			 errno ? strerror(errno) : "out of memory");
		return -1;
	}
	for (;;) {
		int n;

		if (len + READ_CHUNK > cap) {
			cap = cap ? 2 * cap : 4 * READ_CHUNK;
			buf = realloc(buf, cap);
			if (!buf) {
				gzclose(z);
				snprintf(err, errlen, "%s: out of memory", path);
				return -1;
			}
		}
		n = gzread(z, buf + len, READ_CHUNK);
		if (n < 0) {
			const char *m = gzerror(z, &zerr);

			snprintf(err, errlen, "%s: cannot read: %s", path,
				 zerr == Z_ERRNO ? strerror(errno) : m);
			gzclose(z);
			free(buf);
			return -1;
		}
		if (n == 0)
			break;
		len += (size_t)n;
		if (len > MAX_CONFIG_BYTES) {
			snprintf(err, errlen, "%s: larger than %u bytes: not a kernel config",
				 path, MAX_CONFIG_BYTES);
			gzclose(z);
			free(buf);
			return -1;
		}
	}
	/* a gzip stream cut short reads as EOF plus a Z_BUF_ERROR */
	gzerror(z, &zerr);
	gzclose(z);
	if (zerr != Z_OK) {
		snprintf(err, errlen, "%s: truncated or corrupt gzip data", path);
		free(buf);
		return -1;
	}
	rc = kconfig_parse(kc, path, buf, len, err, errlen);
	free(buf);
	return rc;
}

const char *kconfig_get(const struct kconfig *kc, const char *name)
{
	struct kopt key = { .name = (char *)name };
	const struct kopt *o;

	o = bsearch(&key, kc->v, kc->n, sizeof(*kc->v), cmp_kopt);
	return o ? o->value : NULL;
}

void kconfig_free(struct kconfig *kc)
{
	for (size_t i = 0; i < kc->n; i++) {
		free(kc->v[i].name);
		free(kc->v[i].value);
	}
	free(kc->v);
	free(kc->file);
	memset(kc, 0, sizeof(*kc));
}

/* The running kernel's config: /proc/config.gz (CONFIG_IKCONFIG_PROC),
 * else /boot/config-$(uname -r). */
int kconfig_default_path(const char *root, char *out, size_t outlen)
{
	struct utsname u;
	FILE *f;

	snprintf(out, outlen, "%s/proc/config.gz", root);
	f = fopen(out, "rb");
	if (f) {
		fclose(f);
		return 0;
	}
	if (uname(&u))
		return -1;
	snprintf(out, outlen, "%s/boot/config-%s", root, u.release);
	f = fopen(out, "rb");
	if (!f)
		return -1;
	fclose(f);
	return 0;
}
