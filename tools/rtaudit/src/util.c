/* rtaudit: small file helpers shared by the commands. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rtaudit.h"

/* Read a whole (small) text file.  0: *out is a NUL-terminated copy;
 * 1: the file does not exist (a feature the kernel lacks: not an error);
 * -1: it exists but cannot be read, err says why. */
int read_text(const char *path, char **out, size_t max, char *err,
	      size_t errlen)
{
	size_t len = 0;
	char *buf;
	int fd;

	*out = NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		if (errno == ENOENT || errno == ENOTDIR)
			return 1;
		snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
		return -1;
	}
	buf = malloc(max + 1);
	if (!buf) {
		close(fd);
		snprintf(err, errlen, "%s: out of memory", path);
		return -1;
	}
	for (;;) {
		ssize_t n = read(fd, buf + len, max - len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			break; /* /dev/kmsg: nothing more to read */
		if (n < 0 && errno == EPIPE)
			continue; /* /dev/kmsg: records overwritten meanwhile */
		if (n < 0) {
			snprintf(err, errlen, "%s: cannot read: %s", path,
				 strerror(errno));
			free(buf);
			close(fd);
			return -1;
		}
		if (n == 0 || (len += (size_t)n) == max)
			break;
	}
	close(fd);
	buf[len] = 0;
	*out = buf;
	return 0;
}

/* "0-3,6" into set[0..max); -1 on a syntax error or a CPU >= max */
int cpulist_parse(const char *s, unsigned char *set, int max)
{
	memset(set, 0, (size_t)max);
	while (*s && *s != '\n') {
		char *end;
		long a = strtol(s, &end, 10), b = a;

		if (end == s || a < 0)
			return -1;
		s = end;
		if (*s == '-') {
			b = strtol(s + 1, &end, 10);
			if (end == s + 1 || b < a)
				return -1;
			s = end;
		}
		if (b >= max)
			return -1;
		for (long i = a; i <= b; i++)
			set[i] = 1;
		if (*s == ',')
			s++;
		else if (*s && *s != '\n')
			return -1;
	}
	return 0;
}
