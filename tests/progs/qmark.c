/*
 * qmark: put a marker into QEMU's trace of device accesses from the guest.
 *
 *   qmark VALUE      write the 32-bit VALUE (decimal or 0x hex) to register
 *                    0x04 of QEMU's "edu" PCI device (1234:11e8), through
 *                    its sysfs resource0
 *
 * With the QEMU trace event memory_region_ops_write on (a machine header's
 * qemu_trace=), the write appears in the host's log as
 * "memory_region_ops_write ... addr 0x4 value 0xVALUE size 4 name 'edu-mmio'"
 * between the accesses made before and after it: a benchmark brackets a
 * measured stretch with two markers and the host counts what another device
 * saw in between.  Register 0x04 is edu's liveness check (it stores the
 * inverted value and does nothing else), so a marker has no side effect.
 * The device must not be bound to a driver (rtlab_mmio): the write would go
 * through beside it.
 *
 * Errors: "qmark: what: reason" on stderr and exit status 1; 2 for usage.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define PCI_DEVICES "/sys/bus/pci/devices"
#define EDU_ID "0x1234 0x11e8"
#define EDU_LIVENESS 0x04
#define EDU_MAP 4096

static int fail(const char *what)
{
	fprintf(stderr, "qmark: %s: %s\n", what, strerror(errno));
	return 1;
}

/* the first line of PCI_DEVICES/DEV/ATTR into buf, without its newline; "" if unreadable */
static void read_attr(const char *dev, const char *attr, char *buf, size_t len)
{
	char path[512];
	FILE *f;

	buf[0] = 0;
	snprintf(path, sizeof(path), PCI_DEVICES "/%s/%s", dev, attr);
	f = fopen(path, "r");
	if (!f)
		return;
	if (!fgets(buf, (int)len, f))
		buf[0] = 0;
	fclose(f);
	buf[strcspn(buf, "\n")] = 0;
}

/* "0xVVVV 0xDDDD" of a PCI device directory */
static void read_id(const char *dev, char *id, size_t len)
{
	char v[16], d[16];

	read_attr(dev, "vendor", v, sizeof(v));
	read_attr(dev, "device", d, sizeof(d));
	snprintf(id, len, "%s %s", v, d);
}

/* the first edu device's resource0 path into path; 0, or -1 with errno */
static int find_edu(char *path, size_t len)
{
	DIR *dir = opendir(PCI_DEVICES);
	struct dirent *e;
	char id[40];

	if (!dir)
		return -1;
	while ((e = readdir(dir))) {
		if (e->d_name[0] == '.')
			continue;
		read_id(e->d_name, id, sizeof(id));
		if (!strcmp(id, EDU_ID)) {
			snprintf(path, len, PCI_DEVICES "/%s/resource0", e->d_name);
			closedir(dir);
			return 0;
		}
	}
	closedir(dir);
	errno = ENODEV;
	return -1;
}

int main(int argc, char **argv)
{
	char path[512], *end;
	volatile uint32_t *regs;
	unsigned long long v;
	void *map;
	int fd;

	if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		printf("usage: qmark VALUE\n"
		       "Write VALUE (32 bits) to register 0x04 of QEMU's edu device: a marker in QEMU's\n"
		       "trace of memory_region_ops_write.\n");
		return 0;
	}
	if (argc != 2) {
		fprintf(stderr, "usage: qmark VALUE\n");
		return 2;
	}
	errno = 0;
	v = strtoull(argv[1], &end, 0);
	if (errno || end == argv[1] || *end || v > UINT32_MAX || argv[1][0] == '-') {
		fprintf(stderr, "qmark: '%s': not a 32-bit value\n", argv[1]);
		return 2;
	}
	if (find_edu(path, sizeof(path)))
		return fail("edu device (1234:11e8) in " PCI_DEVICES);
	fd = open(path, O_RDWR | O_SYNC);
	if (fd < 0)
		return fail(path);
	map = mmap(NULL, EDU_MAP, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED) {
		close(fd);
		return fail("mmap of edu's BAR0");
	}
	regs = map;
	regs[EDU_LIVENESS / 4] = (uint32_t)v;
	/* read it back: the write has reached the device before we exit */
	if (regs[EDU_LIVENESS / 4] != (uint32_t)~v) {
		fprintf(stderr, "qmark: edu's liveness register did not answer ~0x%08llx\n", v);
		munmap(map, EDU_MAP);
		close(fd);
		return 1;
	}
	munmap(map, EDU_MAP);
	close(fd);
	return 0;
}
