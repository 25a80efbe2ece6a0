/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rtlab's one read of a small kernel file (/proc/PID/stat, a sysfs or
 * debugfs attribute): rtlab_read_small(path, buf, len) reads up to len - 1
 * bytes with one read(2), as such files are produced whole, and ends them
 * with a NUL.  Returns the bytes read, or -errno.
 * rtlab_remove_tree(path) removes a directory tree depth first, without
 * following links (a partial output a tool made itself); 0, or -1 with errno.
 */
#ifndef RTLAB_FILE_H
#define RTLAB_FILE_H

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <sys/types.h>
#include <unistd.h>

static inline ssize_t rtlab_read_small(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	do
		n = read(fd, buf, len - 1);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		n = -errno;
	else
		buf[n] = 0;
	close(fd);
	return n;
}

#define RTLAB_NFTW_FDS	16	/* directories nftw() may hold open */

static inline int rtlab_remove_entry(const char *path, const struct stat *st, int type,
				     struct FTW *ftw)
{
	(void)st;
	(void)type;
	(void)ftw;
	return remove(path);
}

static inline int rtlab_remove_tree(const char *path)
{
	return nftw(path, rtlab_remove_entry, RTLAB_NFTW_FDS, FTW_DEPTH | FTW_PHYS);
}

#endif
