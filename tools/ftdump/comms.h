/* SPDX-License-Identifier: GPL-2.0 */
/* pid -> comm, for the trace.dat's command-line table. */
#ifndef FTDUMP_COMMS_H
#define FTDUMP_COMMS_H

#include <stdbool.h>
#include <stdio.h>

struct comms;

struct comms *comms_new(void);
/* full: the name came from an event field (all 16 chars), not from the
 * dump's 8-column header, and wins over a header name. */
int comms_set(struct comms *c, int pid, const char *comm, bool full);
/* "pid comm" lines, the format of tracefs saved_cmdlines. */
int comms_write(const struct comms *c, FILE *f);
void comms_free(struct comms *c);

#endif
