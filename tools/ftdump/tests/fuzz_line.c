// SPDX-License-Identifier: GPL-2.0
/* libFuzzer target: the console-line parser gets arbitrary bytes. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "logline.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ftd_line l;
	size_t n;

	ftd_parse_line((const char *)data, size, &l);
	if (l.kind == FTD_EVENT) {
		/* what the parser hands on must lie inside the input */
		if (l.body < (const char *)data ||
		    l.body + l.body_len > (const char *)data + size ||
		    l.cpu < 0 || l.pid < 0)
			__builtin_trap();
		n = strnlen(l.comm, sizeof(l.comm));
		if (n >= sizeof(l.comm))
			__builtin_trap();
	}
	return 0;
}
