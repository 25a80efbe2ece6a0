// SPDX-License-Identifier: GPL-2.0
/* An open-addressing table of pids; it grows with the tasks seen, never
 * with the number of records. */
#include <stdlib.h>
#include <string.h>

#include "comms.h"
#include "logline.h"

#define COMMS_START 1024

struct comm {
	int pid;		/* -1: free slot */
	bool full;
	char name[FTD_COMM_LEN + 1];
};

struct comms {
	struct comm *tab;
	size_t size, used;
};

static struct comm *alloc_tab(size_t n)
{
	struct comm *t = malloc(n * sizeof(*t));
	size_t i;

	for (i = 0; t && i < n; i++)
		t[i].pid = -1;
	return t;
}

struct comms *comms_new(void)
{
	struct comms *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->size = COMMS_START;
	c->tab = alloc_tab(c->size);
	if (!c->tab) {
		free(c);
		return NULL;
	}
	return c;
}

static struct comm *slot(struct comm *tab, size_t size, int pid)
{
	size_t i = ((size_t)pid * 2654435761u) & (size - 1);

	while (tab[i].pid != -1 && tab[i].pid != pid)
		i = (i + 1) & (size - 1);
	return &tab[i];
}

static int grow(struct comms *c)
{
	struct comm *t = alloc_tab(c->size * 2);
	size_t i;

	if (!t)
		return -1;
	for (i = 0; i < c->size; i++)
		if (c->tab[i].pid != -1)
			*slot(t, c->size * 2, c->tab[i].pid) = c->tab[i];
	free(c->tab);
	c->tab = t;
	c->size *= 2;
	return 0;
}

int comms_set(struct comms *c, int pid, const char *comm, bool full)
{
	struct comm *s;

	if (pid < 0 || !comm[0])
		return 0;
	if (2 * (c->used + 1) > c->size && grow(c))
		return -1;
	s = slot(c->tab, c->size, pid);
	if (s->pid == -1) {
		s->pid = pid;
		s->full = false;
		s->name[0] = '\0';
		c->used++;
	}
	if (s->full && !full)
		return 0;
	s->full = full;
	snprintf(s->name, sizeof(s->name), "%s", comm);
	return 0;
}

int comms_write(const struct comms *c, FILE *f)
{
	size_t i;

	for (i = 0; i < c->size; i++)
		if (c->tab[i].pid > 0 &&
		    fprintf(f, "%d %s\n", c->tab[i].pid, c->tab[i].name) < 0)
			return -1;
	return 0;
}

void comms_free(struct comms *c)
{
	if (c)
		free(c->tab);
	free(c);
}
