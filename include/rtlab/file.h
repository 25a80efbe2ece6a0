/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rtlab's one read of a small kernel file (/proc/PID/stat, a sysfs or
 * debugfs attribute): rtlab_read_small(path, buf, len) reads up to len - 1
 * bytes with one read(2), as such files are produced whole, and ends them
 * with a NUL.  Returns the bytes read, or -errno.
 */
#ifndef RTLAB_FILE_H
#define RTLAB_FILE_H

#include <errno.h>
#include <fcntl.h>
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

#endif
