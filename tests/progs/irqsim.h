/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The guest test programs' side of the rtlab_irqsim test module
 * (kernel/modules/rtlab_irqsim: its comment describes ctl and status):
 *   sim(fmt, ...)          one command to ctl; 0 or -errno
 *   sim_status(slot, &st)  the status line of a slot; false when the slot
 *                          has no requested irq
 *   sim_cycles_opt(arg)    the value of -c CYCLES
 * A missing ctl or status file means the module is not loaded: a setup
 * error (die).
 */
#ifndef RTLAB_PROGS_IRQSIM_H
#define RTLAB_PROGS_IRQSIM_H

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rtlab/die.h"

#define SIM_CTL		"/sys/kernel/debug/rtlab_irqsim/ctl"
#define SIM_STATUS	"/sys/kernel/debug/rtlab_irqsim/status"

static int sim(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int sim(const char *fmt, ...)
{
	char buf[128];
	va_list ap;
	int fd, n, ret = 0;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	fd = open(SIM_CTL, O_WRONLY);
	if (fd < 0)
		die("%s: %s (is rtlab_irqsim loaded?)", SIM_CTL, strerror(errno));
	if (write(fd, buf, (size_t)n) != n)
		ret = -errno;
	close(fd);
	return ret;
}

struct slot_status {
	unsigned int irq;
	char name[64];
	uint64_t request_ns, start_ns;
	int fired, handled;
};

static bool sim_status(unsigned int slot, struct slot_status *st)
{
	FILE *f = fopen(SIM_STATUS, "r");
	unsigned int s;
	bool found = false;

	if (!f)
		die("%s: %s", SIM_STATUS, strerror(errno));
	while (fscanf(f, "%u %u %63s %lu %d %d %lu", &s, &st->irq, st->name,
		      &st->request_ns, &st->fired, &st->handled, &st->start_ns) == 7) {
		if (s == slot) {
			found = true;
			break;
		}
	}
	fclose(f);
	return found;
}

/* -c CYCLES, the option of the irqsim test programs that loop */
static int sim_cycles_opt(const char *arg) __attribute__((unused));
static int sim_cycles_opt(const char *arg)
{
	int cycles = atoi(arg);

	if (cycles < 1)
		die_usage("-c: at least one cycle");
	return cycles;
}

#endif
