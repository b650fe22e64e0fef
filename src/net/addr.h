/* addr.h - the addresses the domains mode's proxy never reaches through a name (the host's
 * own, private, link-local), and the address blocks a configuration lists as exceptions. */
#ifndef PDK_ADDR_H
#define PDK_ADDR_H

#include <stdbool.h>
#include <sys/socket.h>

/* An address or a block of them: "127.0.0.1", "10.0.0.0/8", "::1", "fd00::/8". */
struct pdk_cidr {
	int family;		 /* AF_INET or AF_INET6 */
	unsigned char addr[16];	 /* network order; the bits past prefix are zero */
	unsigned prefix;	 /* 0..32 or 0..128 */
};

/* Parse s, an IPv4 or IPv6 address with an optional "/prefix", into *ret: 0, or -EINVAL
 * (a bad address, a prefix out of range or with host bits set past it). */
int pdk_cidr_parse(const char *s, struct pdk_cidr *ret);

/* Does the block hold the address sa (AF_INET or AF_INET6)? An IPv4-mapped IPv6 address
 * (::ffff:a.b.c.d) is held by the IPv4 blocks that hold a.b.c.d. */
bool pdk_cidr_contains(const struct pdk_cidr *c, const struct sockaddr *sa);

/*
 * What kind of address sa is, when it is one a name must not lead to: "loopback",
 * "private" (RFC 1918, fc00::/7, fec0::/10), "link-local", "shared (CGNAT)", "multicast",
 * "unspecified", "reserved or broadcast"; NULL for a public one. IPv4-mapped,
 * IPv4-compatible and NAT64 (64:ff9b::/96) IPv6 addresses are judged by the IPv4 address
 * they carry; a family other than IPv4 and IPv6 is "not an IP address".
 */
const char *pdk_addr_local_kind(const struct sockaddr *sa);

#endif
