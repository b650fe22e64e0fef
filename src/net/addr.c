/* addr.c - the addresses the domains mode's proxy never reaches through a name (the host's
 * own, private, link-local), and the address blocks a configuration lists as exceptions. */
#include "addr.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int pdk_cidr_parse(const char *s, struct pdk_cidr *ret)
{
	struct pdk_cidr c = {0};
	char buf[INET6_ADDRSTRLEN + 8];
	const char *slash;
	size_t alen, bytes;
	unsigned max;

	if (!s || !(alen = strcspn(s, "/")) || alen >= INET6_ADDRSTRLEN)
		return -EINVAL;
	memcpy(buf, s, alen);
	buf[alen] = '\0';
	if (inet_pton(AF_INET, buf, c.addr) == 1)
		c.family = AF_INET, max = 32;
	else if (inet_pton(AF_INET6, buf, c.addr) == 1)
		c.family = AF_INET6, max = 128;
	else
		return -EINVAL;
	c.prefix = max;
	slash = s[alen] == '/' ? s + alen + 1 : NULL;
	if (slash) {
		size_t digits = strspn(slash, "0123456789");

		/* "8", "24", "128": no sign, no blank, no leading zero, nothing after. */
		if (!digits || digits > 3 || slash[digits] || (digits > 1 && slash[0] == '0'))
			return -EINVAL;
		c.prefix = (unsigned)atoi(slash);
		if (c.prefix > max)
			return -EINVAL;
	}
	/* Bits past the prefix set: "10.0.0.1/8" says two things; it is refused. */
	bytes = max / 8;
	for (size_t i = 0; i < bytes; i++) {
		unsigned bit = (unsigned)i * 8;
		unsigned keep = c.prefix >= bit + 8 ? 8 : c.prefix > bit ? c.prefix - bit : 0;
		unsigned char mask = (unsigned char)(0xffu >> keep);

		if (c.addr[i] & mask)
			return -EINVAL;
	}
	*ret = c;
	return 0;
}

/* The IPv4 address an IPv6 one carries: mapped (::ffff:a.b.c.d), compatible (::a.b.c.d,
 * but :: and ::1) and NAT64's well-known prefix (64:ff9b::a.b.c.d). */
static bool carried_v4(const unsigned char *a6, uint32_t *v4)
{
	static const unsigned char mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
	static const unsigned char zero[12] = {0};
	static const unsigned char nat64[12] = {0, 0x64, 0xff, 0x9b};
	uint32_t v;

	memcpy(&v, a6 + 12, 4);
	v = ntohl(v);
	if (!memcmp(a6, mapped, 12) || !memcmp(a6, nat64, 12) || (!memcmp(a6, zero, 12) && v > 1)) {
		*v4 = v;
		return true;
	}
	return false;
}

/* sa's IPv4 address (host order), its own or the one an IPv6 address carries. */
static bool as_v4(const struct sockaddr *sa, uint32_t *v4)
{
	if (sa->sa_family == AF_INET) {
		*v4 = ntohl(((const struct sockaddr_in *)(const void *)sa)->sin_addr.s_addr);
		return true;
	}
	if (sa->sa_family != AF_INET6)
		return false;
	return carried_v4(((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr.s6_addr, v4);
}

static bool prefix_eq(const unsigned char *a, const unsigned char *b, unsigned prefix)
{
	size_t whole = prefix / 8;
	unsigned rest = prefix % 8;

	if (memcmp(a, b, whole))
		return false;
	return !rest || !((a[whole] ^ b[whole]) & (0xff00u >> rest));
}

bool pdk_cidr_contains(const struct pdk_cidr *c, const struct sockaddr *sa)
{
	unsigned char a6[16];
	uint32_t v4;

	if (c->family == AF_INET) {
		if (!as_v4(sa, &v4))
			return false;
		v4 = htonl(v4);
		return prefix_eq(c->addr, (const unsigned char *)&v4, c->prefix);
	}
	if (sa->sa_family == AF_INET6) {
		memcpy(a6, ((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr.s6_addr, 16);
	} else if (sa->sa_family == AF_INET) {
		/* An IPv6 block held in mapped form, "::ffff:127.0.0.0/104", holds 127.0.0.1. */
		memset(a6, 0, 10);
		a6[10] = a6[11] = 0xff;
		memcpy(a6 + 12, &((const struct sockaddr_in *)(const void *)sa)->sin_addr, 4);
	} else {
		return false;
	}
	return prefix_eq(c->addr, a6, c->prefix);
}

static const char *v4_kind(uint32_t a)
{
	static const struct {
		uint32_t net, mask;
		const char *kind;
	} blocks[] = {
	    {0x00000000, 0xff000000, "unspecified"},		/* 0.0.0.0/8: "this network" */
	    {0x0a000000, 0xff000000, "private"},		/* 10/8 */
	    {0x64400000, 0xffc00000, "shared (CGNAT)"},		/* 100.64/10 */
	    {0x7f000000, 0xff000000, "loopback"},		/* 127/8 */
	    {0xa9fe0000, 0xffff0000, "link-local"},		/* 169.254/16, cloud metadata */
	    {0xac100000, 0xfff00000, "private"},		/* 172.16/12 */
	    {0xc0a80000, 0xffff0000, "private"},		/* 192.168/16 */
	    {0xe0000000, 0xf0000000, "multicast"},		/* 224/4 */
	    {0xf0000000, 0xf0000000, "reserved or broadcast"},	/* 240/4, 255.255.255.255 */
	};

	for (size_t i = 0; i < sizeof(blocks) / sizeof(blocks[0]); i++)
		if ((a & blocks[i].mask) == blocks[i].net)
			return blocks[i].kind;
	return NULL;
}

const char *pdk_addr_local_kind(const struct sockaddr *sa)
{
	static const unsigned char any[16], one[16] = {[15] = 1};
	const unsigned char *a;
	uint32_t v4;

	if (as_v4(sa, &v4))
		return v4_kind(v4);
	if (sa->sa_family != AF_INET6)
		return "not an IP address";
	a = ((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr.s6_addr;
	if (!memcmp(a, any, 16))
		return "unspecified";
	if (!memcmp(a, one, 16))
		return "loopback";
	if ((a[0] & 0xfe) == 0xfc)
		return "private"; /* fc00::/7, unique-local */
	if (a[0] == 0xfe && (a[1] & 0xc0) == 0x80)
		return "link-local"; /* fe80::/10 */
	if (a[0] == 0xfe && (a[1] & 0xc0) == 0xc0)
		return "private"; /* fec0::/10, the site-local addresses of old */
	if (a[0] == 0xff)
		return "multicast";
	return NULL;
}
