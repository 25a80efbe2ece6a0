/*
 * netlab: the few network operations the e1000/e1000e guest test needs and
 * busybox's ip lacks.
 *
 *   netlab mcast add|del IFACE N     join/leave N link-layer multicast
 *                                    addresses 01:00:5e:40:HH:LL (SIOCADDMULTI)
 *   netlab rewrite IFACE N           N multicast list changes, joining and
 *                                    leaving 01:00:5e:7f:00:01 in turn (each
 *                                    one rewrites the NIC's filters if IFACE
 *                                    is up), timed: print "rewrites N ns T"
 *                                    (CLOCK_MONOTONIC around the N ioctls)
 *   netlab macvlan IFACE NAME MAC    create a macvlan (bridge mode) on IFACE
 *   netlab del NAME                  delete a link
 *   netlab netns IFACE PID           move IFACE into the network namespace of PID
 *   netlab recv PORT                 accept one TCP connection, read to EOF,
 *                                    print "bytes N fnv HEX"
 *   netlab send ADDR PORT BYTES      send BYTES of a fixed pseudo-random
 *                                    stream, print "bytes N fnv HEX"
 *
 * Errors: "netlab: what: reason" on stderr and exit status 1; 2 for usage.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static int fail(const char *what)
{
	fprintf(stderr, "netlab: %s: %s\n", what, strerror(errno));
	return 1;
}

static int usage(void)
{
	fprintf(stderr,
		"usage: netlab mcast add|del IFACE N | rewrite IFACE N |\n"
		"       macvlan IFACE NAME MAC |\n"
		"       del NAME | netns IFACE PID | recv PORT | send ADDR PORT BYTES\n");
	return 2;
}

static int parse_ulong(const char *s, unsigned long max, unsigned long *v)
{
	char *end;

	errno = 0;
	*v = strtoul(s, &end, 10);
	if (errno || end == s || *end || *v > max) {
		fprintf(stderr, "netlab: %s: not a number up to %lu\n", s, max);
		return -1;
	}
	return 0;
}

static int cmd_mcast(int add, const char *ifname, unsigned long n)
{
	struct ifreq ifr;
	unsigned long i;
	int fd = socket(AF_INET, SOCK_DGRAM, 0);

	if (fd < 0)
		return fail("socket");
	for (i = 0; i < n; i++) {
		unsigned char *a = (unsigned char *)ifr.ifr_hwaddr.sa_data;

		memset(&ifr, 0, sizeof(ifr));
		snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
		ifr.ifr_hwaddr.sa_family = AF_UNSPEC;
		a[0] = 0x01; a[1] = 0x00; a[2] = 0x5e; a[3] = 0x40;
		a[4] = (unsigned char)(i >> 8);
		a[5] = (unsigned char)i;
		if (ioctl(fd, add ? SIOCADDMULTI : SIOCDELMULTI, &ifr) < 0) {
			close(fd);
			return fail(add ? "SIOCADDMULTI" : "SIOCDELMULTI");
		}
	}
	close(fd);
	return 0;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/*
 * Each SIOCADDMULTI/SIOCDELMULTI that changes the list calls the driver's
 * ndo_set_rx_mode (the whole multicast table and the receive address
 * registers rewritten) when the interface is up, and nothing of the
 * driver's when it is down: the down figure is the ioctl's own cost.  One
 * address joined and left in turn keeps the list the same size throughout.
 * Nothing is printed until the last ioctl returned.
 */
static int cmd_rewrite(const char *ifname, unsigned long n)
{
	struct ifreq ifr;
	unsigned char *a = (unsigned char *)ifr.ifr_hwaddr.sa_data;
	unsigned long i;
	uint64_t t0, t1;
	int fd = socket(AF_INET, SOCK_DGRAM, 0);

	if (fd < 0)
		return fail("socket");
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	ifr.ifr_hwaddr.sa_family = AF_UNSPEC;
	a[0] = 0x01; a[1] = 0x00; a[2] = 0x5e; a[3] = 0x7f; a[4] = 0x00; a[5] = 0x01;
	t0 = now_ns();
	for (i = 0; i < n; i++) {
		if (ioctl(fd, i % 2 ? SIOCDELMULTI : SIOCADDMULTI, &ifr) < 0) {
			close(fd);
			return fail(i % 2 ? "SIOCDELMULTI" : "SIOCADDMULTI");
		}
	}
	t1 = now_ns();
	/* an odd N leaves the address joined: leave it, untimed */
	if (n % 2 && ioctl(fd, SIOCDELMULTI, &ifr) < 0) {
		close(fd);
		return fail("SIOCDELMULTI");
	}
	close(fd);
	printf("rewrites %lu ns %" PRIu64 "\n", n, t1 - t0);
	return 0;
}

/* one rtnetlink request, waiting for its acknowledgement */
struct nlreq {
	struct nlmsghdr nh;
	struct ifinfomsg ifi;
	char attrs[256];
};

static struct rtattr *addattr(struct nlreq *r, unsigned short type,
			      const void *data, size_t len)
{
	struct rtattr *rta = (struct rtattr *)((char *)r + NLMSG_ALIGN(r->nh.nlmsg_len));

	rta->rta_type = type;
	rta->rta_len = (unsigned short)RTA_LENGTH(len);
	if (len)
		memcpy(RTA_DATA(rta), data, len);
	r->nh.nlmsg_len = NLMSG_ALIGN(r->nh.nlmsg_len) + RTA_ALIGN(rta->rta_len);
	return rta;
}

static void endnest(struct nlreq *r, struct rtattr *nest)
{
	nest->rta_len = (unsigned short)((char *)r + r->nh.nlmsg_len - (char *)nest);
}

static int nltalk(struct nlreq *r, const char *what)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	char buf[4096];
	struct nlmsghdr *h = (struct nlmsghdr *)buf;
	ssize_t n;
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);

	if (fd < 0)
		return fail("netlink socket");
	r->nh.nlmsg_flags |= NLM_F_REQUEST | NLM_F_ACK;
	r->nh.nlmsg_seq = 1;
	if (sendto(fd, r, r->nh.nlmsg_len, 0, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		close(fd);
		return fail(what);
	}
	n = recv(fd, buf, sizeof(buf), 0);
	close(fd);
	if (n < 0)
		return fail(what);
	if (n < (ssize_t)NLMSG_LENGTH(sizeof(struct nlmsgerr)) || h->nlmsg_type != NLMSG_ERROR) {
		fprintf(stderr, "netlab: %s: unexpected netlink answer\n", what);
		return 1;
	}
	errno = -((struct nlmsgerr *)NLMSG_DATA(h))->error;
	return errno ? fail(what) : 0;
}

static void nlinit(struct nlreq *r, unsigned short type, unsigned short flags)
{
	memset(r, 0, sizeof(*r));
	r->nh.nlmsg_len = NLMSG_LENGTH(sizeof(struct ifinfomsg));
	r->nh.nlmsg_type = type;
	r->nh.nlmsg_flags = flags;
	r->ifi.ifi_family = AF_UNSPEC;
}

static int ifindex_of(const char *name)
{
	int i = (int)if_nametoindex(name);

	if (!i)
		fprintf(stderr, "netlab: %s: no such interface\n", name);
	return i;
}

static int cmd_macvlan(const char *lower, const char *name, const char *macstr)
{
	struct nlreq r;
	struct rtattr *li, *data;
	unsigned int m[6];
	unsigned char mac[6];
	uint32_t mode = MACVLAN_MODE_BRIDGE;
	int link = ifindex_of(lower), i;
	char end;

	if (!link)
		return 1;
	if (sscanf(macstr, "%x:%x:%x:%x:%x:%x%c", &m[0], &m[1], &m[2], &m[3],
		   &m[4], &m[5], &end) != 6) {
		fprintf(stderr, "netlab: %s: not a MAC address\n", macstr);
		return 2;
	}
	for (i = 0; i < 6; i++)
		mac[i] = (unsigned char)m[i];
	nlinit(&r, RTM_NEWLINK, NLM_F_CREATE | NLM_F_EXCL);
	addattr(&r, IFLA_IFNAME, name, strlen(name) + 1);
	addattr(&r, IFLA_LINK, &link, sizeof(link));
	addattr(&r, IFLA_ADDRESS, mac, sizeof(mac));
	li = addattr(&r, IFLA_LINKINFO, NULL, 0);
	addattr(&r, IFLA_INFO_KIND, "macvlan", strlen("macvlan"));
	data = addattr(&r, IFLA_INFO_DATA, NULL, 0);
	addattr(&r, IFLA_MACVLAN_MODE, &mode, sizeof(mode));
	endnest(&r, data);
	endnest(&r, li);
	return nltalk(&r, "RTM_NEWLINK macvlan");
}

static int cmd_del(const char *name)
{
	struct nlreq r;
	int idx = ifindex_of(name);

	if (!idx)
		return 1;
	nlinit(&r, RTM_DELLINK, 0);
	r.ifi.ifi_index = idx;
	return nltalk(&r, "RTM_DELLINK");
}

static int cmd_netns(const char *name, unsigned long pid)
{
	struct nlreq r;
	uint32_t p = (uint32_t)pid;
	int idx = ifindex_of(name);

	if (!idx)
		return 1;
	nlinit(&r, RTM_NEWLINK, 0);
	r.ifi.ifi_index = idx;
	addattr(&r, IFLA_NET_NS_PID, &p, sizeof(p));
	return nltalk(&r, "RTM_NEWLINK netns");
}

#define FNV_OFFSET 0xcbf29ce484222325ULL
#define FNV_PRIME 0x100000001b3ULL

static uint64_t fnv(uint64_t h, const unsigned char *p, size_t n)
{
	while (n--) {
		h ^= *p++;
		h *= FNV_PRIME;
	}
	return h;
}

static int cmd_recv(unsigned long port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	unsigned char buf[65536];
	uint64_t h = FNV_OFFSET, total = 0;
	ssize_t n;
	int one = 1, c;
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	if (fd < 0)
		return fail("socket");
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(fd, 1) < 0)
		return fail("bind/listen");
	c = accept(fd, NULL, NULL);
	if (c < 0)
		return fail("accept");
	while ((n = read(c, buf, sizeof(buf))) > 0) {
		h = fnv(h, buf, (size_t)n);
		total += (uint64_t)n;
	}
	if (n < 0)
		return fail("read");
	close(c);
	close(fd);
	printf("bytes %" PRIu64 " fnv %016" PRIx64 "\n", total, h);
	return 0;
}

static int cmd_send(const char *addr, unsigned long port, unsigned long bytes)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	unsigned char buf[65536];
	uint64_t h = FNV_OFFSET, x = 0x9e3779b97f4a7c15ULL, total = 0;
	int fd, tries;

	if (inet_pton(AF_INET, addr, &sa.sin_addr) != 1) {
		fprintf(stderr, "netlab: %s: not an IPv4 address\n", addr);
		return 2;
	}
	/* the receiver may still be starting: retry for about 10 s */
	for (tries = 0;; tries++) {
		fd = socket(AF_INET, SOCK_STREAM, 0);
		if (fd < 0)
			return fail("socket");
		if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0)
			break;
		close(fd);
		if (tries == 100)
			return fail("connect");
		usleep(100000);
	}
	while (total < bytes) {
		size_t len = sizeof(buf), i, off = 0;

		if (bytes - total < len)
			len = (size_t)(bytes - total);
		for (i = 0; i < len; i++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			buf[i] = (unsigned char)x;
		}
		while (off < len) {
			ssize_t n = write(fd, buf + off, len - off);

			if (n < 0)
				return fail("write");
			off += (size_t)n;
		}
		h = fnv(h, buf, len);
		total += len;
	}
	if (close(fd) < 0)
		return fail("close");
	printf("bytes %" PRIu64 " fnv %016" PRIx64 "\n", total, h);
	return 0;
}

int main(int argc, char **argv)
{
	unsigned long a, b;

	if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		usage();
		return 0;
	}
	if (argc == 5 && !strcmp(argv[1], "mcast") &&
	    (!strcmp(argv[2], "add") || !strcmp(argv[2], "del"))) {
		if (parse_ulong(argv[4], 65536, &a))
			return 2;
		return cmd_mcast(!strcmp(argv[2], "add"), argv[3], a);
	}
	if (argc == 4 && !strcmp(argv[1], "rewrite")) {
		if (parse_ulong(argv[3], 1000000, &a))
			return 2;
		return cmd_rewrite(argv[2], a);
	}
	if (argc == 5 && !strcmp(argv[1], "macvlan"))
		return cmd_macvlan(argv[2], argv[3], argv[4]);
	if (argc == 3 && !strcmp(argv[1], "del"))
		return cmd_del(argv[2]);
	if (argc == 4 && !strcmp(argv[1], "netns")) {
		if (parse_ulong(argv[3], 4194304, &a))
			return 2;
		return cmd_netns(argv[2], a);
	}
	if (argc == 3 && !strcmp(argv[1], "recv")) {
		if (parse_ulong(argv[2], 65535, &a))
			return 2;
		return cmd_recv(a);
	}
	if (argc == 5 && !strcmp(argv[1], "send")) {
		if (parse_ulong(argv[3], 65535, &a) ||
		    parse_ulong(argv[4], 1UL << 40, &b))
			return 2;
		return cmd_send(argv[2], a, b);
	}
	return usage();
}
