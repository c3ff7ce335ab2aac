/* SPDX-License-Identifier: MIT */
/*
 * Finding private-data-limit-ib-only (docs/certification/ofa-dapl-2.1.10/):
 * dat_ia_query's max_private_data_size on an IA over an iWARP device.
 * dat_ia_query(3DAT) DESCRIPTION: the attribute is at least 64 bytes.
 * Below 64 on an InfiniBand or RoCE device is that transport's own limit
 * (the IB CM's REQ leaves 56 bytes after rdma_cm's header), a matter of the
 * device and not of this finding; on iWARP the transport carries hundreds.
 * Whether the IA is on iWARP is read from sysfs: the netdev holding the IA's
 * address, and an RDMA device of node type RNIC whose GID is that netdev's
 * MAC (how iWARP devices form their GID).
 */
#include "repro.h"

#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <dirent.h>

static int read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	int ok = f && fgets(buf, (int)len, f);

	if (f)
		fclose(f);
	buf[ok ? strcspn(buf, "\n") : 0] = '\0';
	return ok;
}

/* The netdev holding IPv4 address addr, or NULL. */
static const char *netdev_of(const struct sockaddr *addr, char *name, size_t len)
{
	struct ifaddrs *all, *i;
	const char *found = NULL;

	if (addr->sa_family != AF_INET || getifaddrs(&all))
		return NULL;
	for (i = all; i && !found; i = i->ifa_next)
		if (i->ifa_addr && i->ifa_addr->sa_family == AF_INET &&
		    ((struct sockaddr_in *)i->ifa_addr)->sin_addr.s_addr ==
			    ((const struct sockaddr_in *)addr)->sin_addr.s_addr)
			found = strncpy(name, i->ifa_name, len - 1);
	freeifaddrs(all);
	return found;
}

/* The iWARP device on netdev, into dev; 0 when there is none. */
static int iwarp_device_on(const char *netdev, char *dev, size_t len)
{
	char path[512], mac[64], gid[64], type[64];
	unsigned int m[6];
	struct dirent *d;
	DIR *dir;
	int found = 0;

	snprintf(path, sizeof(path), "/sys/class/net/%s/address", netdev);
	if (!read_line(path, mac, sizeof(mac)) ||
	    sscanf(mac, "%x:%x:%x:%x:%x:%x", &m[0], &m[1], &m[2], &m[3], &m[4], &m[5]) != 6)
		return 0;
	snprintf(mac, sizeof(mac), "%02x%02x:%02x%02x:%02x%02x:", m[0], m[1], m[2], m[3], m[4],
		 m[5]);
	if (!(dir = opendir("/sys/class/infiniband")))
		return 0;
	while (!found && (d = readdir(dir))) {
		snprintf(path, sizeof(path), "/sys/class/infiniband/%s/node_type", d->d_name);
		if (!read_line(path, type, sizeof(type)) || strncmp(type, "4", 1))
			continue;	/* "4: RNIC" is iWARP */
		snprintf(path, sizeof(path), "/sys/class/infiniband/%s/ports/1/gids/0", d->d_name);
		if (read_line(path, gid, sizeof(gid)) && !strncmp(gid, mac, strlen(mac))) {
			snprintf(dev, len, "%s", d->d_name);
			found = 1;
		}
	}
	closedir(dir);
	return found;
}

static enum repro_answer body(DAT_IA_HANDLE ia)
{
	DAT_IA_ADDRESS_PTR self = repro_ia_address(ia);
	DAT_PROVIDER_ATTR prov;
	DAT_EVD_HANDLE async;
	char netdev[IF_NAMESIZE + 1] = "", dev[256];
	DAT_RETURN r = dat_ia_query(ia, &async, 0, NULL, DAT_PROVIDER_FIELD_MAX_PRIVATE_DATA_SIZE,
				    &prov);

	if (r != DAT_SUCCESS || !self)
		return repro_say(REPRO_CANNOT, "querying the IA failed: %s", REPRO_RET(r));
	if (prov.max_private_data_size >= 64)
		return repro_say(REPRO_ABSENT, "max_private_data_size is %d",
				 (int)prov.max_private_data_size);
	if (!netdev_of(self, netdev, sizeof(netdev)) ||
	    !iwarp_device_on(netdev, dev, sizeof(dev)))
		return repro_say(REPRO_ABSENT, "max_private_data_size is %d, but the IA (netdev "
				 "'%s') is not on an iWARP device: below 64 is the InfiniBand CM's "
				 "own limit there, not this finding", (int)prov.max_private_data_size,
				 netdev);
	return repro_say(REPRO_SHOWS, "max_private_data_size is %d on the iWARP device %s (netdev "
			 "%s), below the page's 64", (int)prov.max_private_data_size, dev, netdev);
}

REPRO_MAIN(.finding = "private-data-limit-ib-only", .body = body,
	   .if_crash = "dat_ia_query killed the process")
