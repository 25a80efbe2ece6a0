/* libFuzzer harness for the kernel config parser: any input must give
 * either a parsed table or a "file:line: message" error, never a crash,
 * leak or undefined behaviour. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "../src/rtaudit.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kconfig kc;
	char err[ERRLEN] = "";

	if (kconfig_parse(&kc, "fuzz", (const char *)data, size, err, sizeof(err))) {
		if (strncmp(err, "fuzz:", 5))
			__builtin_trap(); /* every error names file:line */
	} else {
		for (size_t i = 1; i < kc.n; i++)
			if (strcmp(kc.v[i - 1].name, kc.v[i].name) >= 0)
				__builtin_trap(); /* sorted, no duplicates */
	}
	kconfig_free(&kc);
	return 0;
}
