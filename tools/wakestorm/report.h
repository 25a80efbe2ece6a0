/* SPDX-License-Identifier: GPL-2.0 */
/* wakestorm: text and JSON reports. */
#ifndef WAKESTORM_REPORT_H
#define WAKESTORM_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "opts.h"
#include "stats.h"

#define WS_VERSION "1.0"

struct ws_run {
	const struct ws_opts *opts;
	struct ws_result result;
	int64_t start_ns;	/* first common expiry, CLOCK_MONOTONIC */
	bool interrupted;	/* stopped early by a signal */
};

void ws_report_text(FILE *f, const struct ws_run *run);
/* Returns a malloc'ed JSON document, or NULL when out of memory. */
char *ws_report_json(const struct ws_run *run);

#endif
