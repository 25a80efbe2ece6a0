// SPDX-License-Identifier: GPL-2.0
/*
 * Saving a format bundle: events/header_page, events/header_event,
 * events/<system>/<event>/format, printk_formats and kallsyms, copied from
 * tracefs. The bundle is first written under "<dir>.tmp" and renamed into
 * place, so a failed save leaves no half bundle.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <dirent.h>
#include <stdlib.h>

#include <tracefs.h>
#include <traceevent/event-parse.h>

#include "formats.h"
#include "pathf.h"
#include "rtlab/file.h"

#define COPY_CHUNK 65536

static int copy_file(const char *from, const char *to, int optional)
{
	char buf[COPY_CHUNK];
	int in, out, ret = 0;
	ssize_t n;

	in = open(from, O_RDONLY);
	if (in < 0) {
		if (optional)
			return 0;
		fprintf(stderr, "ftdump: %s: %s\n", from, strerror(errno));
		return -1;
	}
	out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (out < 0) {
		fprintf(stderr, "ftdump: %s: %s\n", to, strerror(errno));
		close(in);
		return -1;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n) {
			ret = -1;
			break;
		}
	if (n < 0)
		ret = -1;
	if (close(out))
		ret = -1;
	close(in);
	if (ret)
		fprintf(stderr, "ftdump: copying %s: %s\n", from,
			strerror(errno));
	return ret;
}

static int mkdirs(const char *base, const char *a, const char *b)
{
	char p[PATH_LEN];

	pathf(p, sizeof(p), "%s/%s", base, a);
	if (mkdir(p, 0755) && errno != EEXIST)
		return -1;
	if (!b)
		return 0;
	pathf(p, sizeof(p), "%s/%s/%s", base, a, b);
	return mkdir(p, 0755) && errno != EEXIST ? -1 : 0;
}

static int save_system(const char *tracefs, const char *sys, const char *dir)
{
	char from[PATH_LEN], to[PATH_LEN];
	char **evs = tracefs_system_events(tracefs, sys);
	int i, ret = 0;

	if (mkdirs(dir, "events", sys))
		ret = -1;
	for (i = 0; !ret && evs && evs[i]; i++) {
		pathf(to, sizeof(to), "%s/events/%s/%s", dir, sys, evs[i]);
		if (mkdir(to, 0755) && errno != EEXIST) {
			ret = -1;
			break;
		}
		pathf(from, sizeof(from), "%s/events/%s/%s/format", tracefs,
			 sys, evs[i]);
		pathf(to, sizeof(to), "%s/events/%s/%s/format", dir, sys,
			 evs[i]);
		ret = copy_file(from, to, 0);
	}
	tracefs_list_free(evs);
	return ret;
}

static bool listed(char **list, const char *name)
{
	for (; list && *list; list++)
		if (!strcmp(*list, name))
			return true;
	return false;
}

static int save_all(const char *tracefs, const char *kallsyms,
		    const char *dir)
{
	static const char *const top[] = { "events/header_page",
					   "events/header_event" };
	char from[PATH_LEN], to[PATH_LEN];
	char **systems;
	unsigned int i;
	int ret = 0;

	if (mkdir(dir, 0755) || mkdirs(dir, "events", NULL))
		return -1;
	for (i = 0; i < sizeof(top) / sizeof(top[0]) && !ret; i++) {
		pathf(from, sizeof(from), "%s/%s", tracefs, top[i]);
		pathf(to, sizeof(to), "%s/%s", dir, top[i]);
		ret = copy_file(from, to, 0);
	}
	systems = tracefs_event_systems(tracefs);
	if (!systems)
		ret = -1;
	for (i = 0; !ret && systems[i]; i++)
		ret = save_system(tracefs, systems[i], dir);
	/*
	 * libtracefs lists only the systems that have an "enable" file; the
	 * kernel's ftrace system (print, function, funcgraph_*, ...) has
	 * none, yet the dump's trace_printk and function records need it.
	 */
	if (!ret && !listed(systems, "ftrace"))
		ret = save_system(tracefs, "ftrace", dir);
	tracefs_list_free(systems);
	pathf(from, sizeof(from), "%s/printk_formats", tracefs);
	pathf(to, sizeof(to), "%s/printk_formats", dir);
	if (!ret)
		ret = copy_file(from, to, 1);
	pathf(to, sizeof(to), "%s/%s", dir, FMT_KALLSYMS);
	if (!ret)
		ret = copy_file(kallsyms, to, 1);
	return ret;
}

int formats_save(const char *tracefs, const char *kallsyms, const char *dir)
{
	char tmp[PATH_LEN];
	struct stat st;
	int ret;

	if (!tracefs)
		tracefs = tracefs_tracing_dir();
	if (!tracefs) {
		fprintf(stderr, "ftdump: tracefs is not mounted\n");
		return -1;
	}
	if (!stat(dir, &st)) {
		fprintf(stderr, "ftdump: %s exists; give a new directory\n", dir);
		return -1;
	}
	pathf(tmp, sizeof(tmp), "%s.tmp", dir);
	ret = save_all(tracefs, kallsyms ? kallsyms : "/proc/kallsyms", tmp);
	if (!ret && rename(tmp, dir))
		ret = -1;
	if (ret) {
		fprintf(stderr, "ftdump: could not save the formats of %s to %s\n",
			tracefs, dir);
		/* remove the partial copy: only what we made ourselves */
		if (rtlab_remove_tree(tmp) &&
		    errno != ENOENT)
			fprintf(stderr, "ftdump: could not remove %s\n", tmp);
	}
	return ret;
}

const char *formats_kallsyms(const char *dir, char *buf, unsigned long len)
{
	char trace[PATH_LEN];

	snprintf(buf, len, "%s/%s", dir, FMT_KALLSYMS);
	if (!access(buf, R_OK))
		return buf;
	/* a live tracefs: the running kernel's symbols */
	pathf(trace, sizeof(trace), "%s/trace", dir);
	if (!access(trace, F_OK) && !access("/proc/kallsyms", R_OK))
		return "/proc/kallsyms";
	return NULL;
}

static char *read_all(const char *path, size_t *size)
{
	FILE *f = fopen(path, "r");
	size_t cap = 8192, n = 0, r;
	char *buf = NULL, *nb;

	if (!f)
		return NULL;
	while ((nb = realloc(buf, cap + 1)) != NULL) {
		buf = nb;
		r = fread(buf + n, 1, cap - n, f);
		n += r;
		if (n < cap)
			break;
		cap *= 2;
	}
	fclose(f);
	if (!nb) {
		free(buf);
		return NULL;
	}
	buf[n] = '\0';
	*size = n;
	return buf;
}

static int load_system(struct tep_handle *tep, const char *dir,
		       const char *sys, int *bad)
{
	char path[PATH_LEN], *buf;
	struct dirent *de;
	int loaded = 0;
	size_t size;
	DIR *d;

	if (pathf(path, sizeof(path), "%s/events/%s", dir, sys))
		return 0;
	d = opendir(path);
	while (d && (de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.' ||
		    pathf(path, sizeof(path), "%s/events/%s/%s/format", dir,
			  sys, de->d_name))
			continue;
		buf = read_all(path, &size);
		if (!buf)
			continue;
		if (tep_parse_event(tep, buf, size, sys))
			(*bad)++;
		else
			loaded++;
		free(buf);
	}
	if (d)
		closedir(d);
	return loaded;
}

struct tep_handle *formats_load(const char *dir, int *bad)
{
	struct tep_handle *tep = tep_alloc();
	char path[PATH_LEN], *buf;
	struct dirent *de;
	int events = 0;
	size_t size;
	DIR *d;

	*bad = 0;
	if (!tep || pathf(path, sizeof(path), "%s/events/header_page", dir))
		goto fail;
	buf = read_all(path, &size);
	if (!buf || tep_parse_header_page(tep, buf, size, sizeof(long))) {
		free(buf);
		goto fail;
	}
	free(buf);
	pathf(path, sizeof(path), "%s/events", dir);
	d = opendir(path);
	while (d && (de = readdir(d)) != NULL)
		if (de->d_name[0] != '.')
			events += load_system(tep, dir, de->d_name, bad);
	if (d)
		closedir(d);
	if (events)
		return tep;
fail:
	if (tep)
		tep_free(tep);
	return NULL;
}
