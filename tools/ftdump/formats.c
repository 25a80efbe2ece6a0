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

#include "enums.h"
#include "fmtfix.h"
#include "formats.h"
#include "pathf.h"
#include "rtlab/file.h"

#define COPY_CHUNK 65536
#define NAMES_LISTED_LEN 256	/* the unresolved names quoted in a warning */

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

/* fn(ctx, system, event, text, size) for every events/SYS/EV/format of
 * dir; stops at the first non-zero return, which it returns. */
typedef int (*format_fn)(void *ctx, const char *sys, const char *ev,
			 char *text, size_t size);

static int each_in_system(const char *dir, const char *sys, format_fn fn,
			  void *ctx)
{
	char path[PATH_LEN], *buf;
	struct dirent *de;
	size_t size;
	int ret = 0;
	DIR *d;

	if (pathf(path, sizeof(path), "%s/events/%s", dir, sys))
		return 0;
	d = opendir(path);
	while (!ret && d && (de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.' ||
		    pathf(path, sizeof(path), "%s/events/%s/%s/format", dir,
			  sys, de->d_name))
			continue;
		buf = read_all(path, &size);
		if (buf)
			ret = fn(ctx, sys, de->d_name, buf, size);
		free(buf);
	}
	if (d)
		closedir(d);
	return ret;
}

static int each_format(const char *dir, format_fn fn, void *ctx)
{
	char path[PATH_LEN];
	struct dirent *de;
	int ret = 0;
	DIR *d;

	if (pathf(path, sizeof(path), "%s/events", dir))
		return -1;
	d = opendir(path);
	while (!ret && d && (de = readdir(d)) != NULL)
		if (de->d_name[0] != '.')
			ret = each_in_system(dir, de->d_name, fn, ctx);
	if (d)
		closedir(d);
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

/* ---- enum constants of the print fmts ------------------------------------ */

struct name_set {
	struct enums *names;
	int err;
};

static void name_add(void *ctx, const char *name, size_t len)
{
	struct name_set *ns = ctx;

	if (enums_add(ns->names, name, len, 0))
		ns->err = -1;
}

static int collect_names(void *ctx, const char *sys, const char *ev,
			 char *text, size_t size)
{
	struct name_set *ns = ctx;

	(void)sys;
	(void)ev;
	fmt_names(text, size, name_add, ns);
	return ns->err;
}

/* Kernel constants are upper case; a lower-case name is a type or keyword
 * ("unsigned long") and not worth a warning when BTF does not have it. */
static bool upper_name(const char *s)
{
	bool letter = false;

	for (; *s; s++) {
		if (*s >= 'a' && *s <= 'z')
			return false;
		letter |= *s >= 'A' && *s <= 'Z';
	}
	return letter;
}

struct enum_save {
	const struct enums *btf;
	FILE *out;
	unsigned long found, missing, ambiguous;
	char missed[NAMES_LISTED_LEN];
	int err;
};

static void list_name(char *list, const char *name)
{
	size_t n = strlen(list);

	if (n >= 3 && !strcmp(list + n - 3, "..."))
		return;		/* full */
	if (n + strlen(name) + 8 < NAMES_LISTED_LEN)
		snprintf(list + n, NAMES_LISTED_LEN - n, "%s%s",
			 n ? ", " : "", name);
	else
		snprintf(list + n, NAMES_LISTED_LEN - n, ", ...");
}

static void save_one(void *ctx, const char *name, long long v, bool amb)
{
	struct enum_save *es = ctx;

	(void)v;
	(void)amb;
	switch (enums_get(es->btf, name, strlen(name), &v)) {
	case ENUM_FOUND:
		es->found++;
		if (fprintf(es->out, "%s %lld\n", name, v) < 0)
			es->err = -1;
		break;
	case ENUM_AMBIGUOUS:
		es->ambiguous++;
		list_name(es->missed, name);
		break;
	default:
		if (upper_name(name)) {
			es->missing++;
			list_name(es->missed, name);
		}
	}
}

static void warn_unresolved(const struct enums *names, const char *why)
{
	struct enum_save es = { 0 };	/* no BTF: every name unknown */

	enums_each(names, save_one, &es);
	if (es.missing)
		fprintf(stderr, "ftdump: %s: the print fmts name %lu constants "
			"left unresolved (%s); events printing them may stay "
			"text\n", why, es.missing, es.missed);
}

/*
 * The bundle's "enums": the values of the names the saved print fmts use,
 * from BTF of the same build (the running kernel's, or --btf FILE).
 */
static int save_enums(const char *dir, const char *btf)
{
	struct enums *names = enums_new(), *all = enums_new();
	struct name_set ns = { names, 0 };
	struct enum_save es = { 0 };
	char path[PATH_LEN];
	int ret = -1;

	if (!names || !all || each_format(dir, collect_names, &ns))
		goto out;
	enums_seal(names);
	if (!btf && access(BTF_VMLINUX, R_OK)) {
		warn_unresolved(names, "no BTF (no " BTF_VMLINUX "; give "
				"--btf FILE)");
		ret = 0;
		goto out;
	}
	if (!btf)
		btf = BTF_VMLINUX;
	if (enums_from_btf(all, btf))
		goto out;
	enums_seal(all);
	es.btf = all;
	if (pathf(path, sizeof(path), "%s/%s", dir, FMT_ENUMS) ||
	    !(es.out = fopen(path, "w")))
		goto out;
	fprintf(es.out, "# enum constants of the print fmts, from %s\n", btf);
	enums_each(names, save_one, &es);
	ret = fclose(es.out) || es.err ? -1 : 0;
	fprintf(stderr, "ftdump: %lu constant names of the print fmts resolved "
		"from %s\n", es.found, btf);
	if (es.missing || es.ambiguous)
		fprintf(stderr, "ftdump: %lu not in that BTF, %lu with two "
			"values there (%s); events printing them may stay "
			"text\n", es.missing, es.ambiguous, es.missed);
out:
	enums_free(names);
	enums_free(all);
	return ret;
}

int formats_save(const char *tracefs, const char *kallsyms, const char *btf,
		 const char *dir)
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
	if (!ret)
		ret = save_enums(tmp, btf);
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


/* ---- loading ---------------------------------------------------------------- */

static int write_text(const char *path, const char *text, size_t n)
{
	FILE *f = fopen(path, "w");
	int ret;

	if (!f)
		return -1;
	ret = fwrite(text, 1, n, f) != n;
	return fclose(f) || ret ? -1 : 0;
}

struct loader {
	struct tep_handle *tep;
	const struct enums *m;
	const char *copy;	/* write the fixed formats here too */
	struct formats_info *info;
};

static int copy_format(const char *dir, const char *sys, const char *ev,
		       const char *text, size_t n)
{
	char path[PATH_LEN];

	if (mkdirs(dir, "events", sys) ||
	    pathf(path, sizeof(path), "%s/events/%s/%s", dir, sys, ev) ||
	    (mkdir(path, 0755) && errno != EEXIST) ||
	    pathf(path, sizeof(path), "%s/events/%s/%s/format", dir, sys, ev))
		return -1;
	return write_text(path, text, n);
}

static int load_one(void *ctx, const char *sys, const char *ev, char *text,
		    size_t size)
{
	struct loader *l = ctx;
	unsigned int changes = 0;
	size_t n;
	char *fixed = fmt_fix(text, size, l->m, &n, &changes);
	int ret = 0;

	if (!fixed)
		return -1;
	if (changes)
		l->info->fixed++;
	if (tep_parse_event(l->tep, fixed, n, sys))
		l->info->bad++;
	else
		l->info->events++;
	if (l->copy && copy_format(l->copy, sys, ev, fixed, n)) {
		fprintf(stderr, "ftdump: %s: %s\n", l->copy, strerror(errno));
		ret = -1;
	}
	free(fixed);
	return ret;
}

/* events/header_page (parsed) and header_event, copied to copy if set */
static int load_headers(struct tep_handle *tep, const char *dir,
			const char *copy)
{
	static const char *const files[] = { "header_page", "header_event" };
	char path[PATH_LEN], *buf;
	unsigned int i;
	size_t size;
	int ret = 0;

	if (copy && mkdirs(copy, "events", NULL))
		return -1;
	for (i = 0; i < sizeof(files) / sizeof(files[0]) && !ret; i++) {
		if (pathf(path, sizeof(path), "%s/events/%s", dir, files[i]))
			return -1;
		buf = read_all(path, &size);
		if (!buf)
			return i ? 0 : -1;	/* header_event is optional */
		if (!i && tep_parse_header_page(tep, buf, size, sizeof(long)))
			ret = -1;
		if (!ret && copy &&
		    (pathf(path, sizeof(path), "%s/events/%s", copy,
			   files[i]) || write_text(path, buf, size)))
			ret = -1;
		free(buf);
	}
	return ret;
}

struct tep_handle *formats_load(const char *dir, const struct enums *m,
				const char *copy, struct formats_info *info)
{
	struct tep_handle *tep = tep_alloc();
	struct loader l = { tep, m, copy, info };

	memset(info, 0, sizeof(*info));
	if (!tep || load_headers(tep, dir, copy) ||
	    each_format(dir, load_one, &l) || !info->events) {
		if (tep)
			tep_free(tep);
		return NULL;
	}
	return tep;
}

struct enums *formats_enums(const char *dir, const char *btf)
{
	struct enums *m = enums_new();
	char path[PATH_LEN];
	int ret = 0;

	if (!m)
		return NULL;
	if (btf) {
		ret = enums_from_btf(m, btf);
	} else if (!pathf(path, sizeof(path), "%s/%s", dir, FMT_ENUMS) &&
		   !access(path, F_OK)) {
		ret = enums_read(m, path);
	} else if (!pathf(path, sizeof(path), "%s/trace", dir) &&
		   !access(path, F_OK) && !access(BTF_VMLINUX, R_OK)) {
		ret = enums_from_btf(m, BTF_VMLINUX);	/* a live tracefs */
	}
	if (ret) {
		enums_free(m);
		return NULL;
	}
	enums_seal(m);
	return m;
}
