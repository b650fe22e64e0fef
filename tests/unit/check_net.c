/* check_net.c - unit tests of the domains mode's proxy: the domain patterns, the local
 * addresses and CIDR blocks, and the proxy itself on this machine's loopback (HTTP, CONNECT,
 * SOCKS5, refusals by name and by where a name leads). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <arpa/inet.h>
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ck_util.h"
#include "core/util.h"
#include "net/addr.h"
#include "net/proxy.h"

START_TEST(test_patterns)
{
	ck_assert(pdk_domain_matches("registry.npmjs.org", "registry.npmjs.org"));
	ck_assert(pdk_domain_matches("registry.npmjs.org", "Registry.NPMJS.org."));
	ck_assert(!pdk_domain_matches("registry.npmjs.org", "evil-registry.npmjs.org"));
	ck_assert(!pdk_domain_matches("registry.npmjs.org", "registry.npmjs.org.evil.com"));
	ck_assert(!pdk_domain_matches("npmjs.org", "registry.npmjs.org"));
	ck_assert(pdk_domain_matches("*.pythonhosted.org", "files.pythonhosted.org"));
	ck_assert(pdk_domain_matches("*.pythonhosted.org", "a.b.pythonhosted.org"));
	ck_assert(!pdk_domain_matches("*.pythonhosted.org", "pythonhosted.org"));
	ck_assert(!pdk_domain_matches("*.pythonhosted.org", "evilpythonhosted.org"));
	ck_assert(!pdk_domain_matches("*.0.0.1", "127.0.0.1"));
	ck_assert(pdk_domain_matches("127.0.0.1", "127.0.0.1"));
	ck_assert(!pdk_domain_matches("example.org", ""));

	ck_assert(pdk_domain_pattern_valid("registry.npmjs.org"));
	ck_assert(pdk_domain_pattern_valid("*.pythonhosted.org"));
	ck_assert(pdk_domain_pattern_valid("::1"));
	ck_assert(!pdk_domain_pattern_valid(""));
	ck_assert(!pdk_domain_pattern_valid("*"));
	ck_assert(!pdk_domain_pattern_valid("a..b"));
	ck_assert(!pdk_domain_pattern_valid("bad domain"));
	ck_assert(!pdk_domain_pattern_valid("a/b"));
	ck_assert(!pdk_domain_pattern_valid("*.*.org"));
}
END_TEST

/* An address literal as a socket address. */
static struct sockaddr_storage sa_of(const char *s)
{
	struct sockaddr_storage ss = {0};
	struct sockaddr_in *a4 = (struct sockaddr_in *)&ss;
	struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)&ss;

	if (inet_pton(AF_INET, s, &a4->sin_addr) == 1)
		a4->sin_family = AF_INET;
	else if (inet_pton(AF_INET6, s, &a6->sin6_addr) == 1)
		a6->sin6_family = AF_INET6;
	else
		ck_abort_msg("not an address: %s", s);
	return ss;
}

static const char *kind_of(const char *s)
{
	struct sockaddr_storage ss = sa_of(s);

	return pdk_addr_local_kind((struct sockaddr *)&ss);
}

START_TEST(test_local_kinds)
{
	static const char *const cases[][2] = {
	    {"127.0.0.1", "loopback"},
	    {"127.255.255.254", "loopback"},
	    {"::1", "loopback"},
	    {"10.0.0.1", "private"},
	    {"172.16.0.1", "private"},
	    {"172.31.255.255", "private"},
	    {"192.168.1.1", "private"},
	    {"fc00::1", "private"},
	    {"fd12:3456::1", "private"},
	    {"fec0::1", "private"},
	    {"169.254.169.254", "link-local"},
	    {"169.254.0.1", "link-local"},
	    {"fe80::1", "link-local"},
	    {"febf::1", "link-local"},
	    {"100.64.0.1", "shared (CGNAT)"},
	    {"100.127.255.255", "shared (CGNAT)"},
	    {"224.0.0.1", "multicast"},
	    {"239.255.255.250", "multicast"},
	    {"ff02::1", "multicast"},
	    {"0.0.0.0", "unspecified"},
	    {"0.1.2.3", "unspecified"},
	    {"::", "unspecified"},
	    {"255.255.255.255", "reserved or broadcast"},
	    {"240.0.0.1", "reserved or broadcast"},
	    /* IPv6 forms of an IPv4 address: judged by the address they carry */
	    {"::ffff:127.0.0.1", "loopback"},
	    {"::ffff:169.254.169.254", "link-local"},
	    {"::ffff:10.0.0.1", "private"},
	    {"::ffff:0.0.0.0", "unspecified"},
	    {"::127.0.0.1", "loopback"},
	    {"64:ff9b::a9fe:a9fe", "link-local"},
	    {"64:ff9b::192.168.0.1", "private"},
	};
	/* Public, and the neighbours of each block's edges. */
	static const char *const public[] = {
	    "93.184.216.34",   "1.1.1.1",	"8.8.8.8",	    "11.0.0.1",
	    "9.255.255.255",   "100.63.255.255", "100.128.0.0",	    "126.255.255.255",
	    "128.0.0.1",       "169.253.255.255", "169.255.0.0",    "172.15.255.255",
	    "172.32.0.0",      "192.167.255.255", "192.169.0.0",    "223.255.255.255",
	    "2606:4700:4700::1111", "2001:db8::1", "fbff::1",	    "fe00::1",
	    "::ffff:8.8.8.8",  "64:ff9b::808:808",
	};

	for (size_t i = 0; i < PDK_ARRAY_SIZE(cases); i++) {
		const char *k = kind_of(cases[i][0]);

		ck_assert_msg(k && !strcmp(k, cases[i][1]), "%s: %s, not %s", cases[i][0],
			      k ? k : "public", cases[i][1]);
	}
	for (size_t i = 0; i < PDK_ARRAY_SIZE(public); i++)
		ck_assert_msg(!kind_of(public[i]), "%s: %s", public[i], kind_of(public[i]));
	struct sockaddr_storage un = {.ss_family = AF_UNIX};

	ck_assert_str_eq(pdk_addr_local_kind((struct sockaddr *)&un), "not an IP address");
}
END_TEST

static bool holds(const char *cidr, const char *addr)
{
	struct pdk_cidr c;
	struct sockaddr_storage ss = sa_of(addr);

	ck_assert_msg(pdk_cidr_parse(cidr, &c) == 0, "%s", cidr);
	return pdk_cidr_contains(&c, (struct sockaddr *)&ss);
}

START_TEST(test_cidr)
{
	static const char *const bad[] = {
	    "", "/8", "127.0.0.1/", "127.0.0.1/33", "::1/129", "10.0.0.1/8", "10.0.0.0/08",
	    "10.0.0.0/+8", "10.0.0.0/ 8", "10.0.0.0/8 ", " 10.0.0.0/8", "localhost", "10.0.0",
	    "10.0.0.0/8/8", "fe80::1%eth0", "::1/-1", "1.2.3.4.5", "127.0.0.1/1000",
	    "fd00::1/8",
	};
	struct pdk_cidr c;

	for (size_t i = 0; i < PDK_ARRAY_SIZE(bad); i++)
		ck_assert_msg(pdk_cidr_parse(bad[i], &c) == -EINVAL, "took '%s'", bad[i]);
	ck_assert_int_eq(pdk_cidr_parse("10.0.0.0/8", &c), 0);
	ck_assert_int_eq(c.family, AF_INET);
	ck_assert_uint_eq(c.prefix, 8);
	ck_assert_int_eq(pdk_cidr_parse("127.0.0.1", &c), 0);
	ck_assert_uint_eq(c.prefix, 32);
	ck_assert_int_eq(pdk_cidr_parse("::1", &c), 0);
	ck_assert_uint_eq(c.prefix, 128);
	ck_assert_int_eq(pdk_cidr_parse("0.0.0.0/0", &c), 0);
	ck_assert_int_eq(pdk_cidr_parse("172.16.0.0/12", &c), 0);

	ck_assert(holds("127.0.0.1", "127.0.0.1"));
	ck_assert(!holds("127.0.0.1", "127.0.0.2"));
	ck_assert(holds("127.0.0.0/8", "127.1.2.3"));
	ck_assert(holds("172.16.0.0/12", "172.31.255.255"));
	ck_assert(!holds("172.16.0.0/12", "172.32.0.0"));
	ck_assert(holds("10.1.2.0/23", "10.1.3.255"));
	ck_assert(!holds("10.1.2.0/23", "10.1.4.0"));
	ck_assert(holds("0.0.0.0/0", "8.8.8.8"));
	ck_assert(holds("fd00::/8", "fd12::1"));
	ck_assert(!holds("fd00::/8", "fc00::1"));
	ck_assert(holds("fe80::/10", "febf::1"));
	ck_assert(holds("::1", "::1"));
	ck_assert(!holds("::1", "127.0.0.1"));
	/* an IPv4-mapped address is held by the IPv4 block, and the other way round */
	ck_assert(holds("127.0.0.1", "::ffff:127.0.0.1"));
	ck_assert(holds("::ffff:127.0.0.0/104", "127.0.0.9"));
	ck_assert(!holds("127.0.0.1", "::1"));
	ck_assert(!holds("10.0.0.0/8", "11.0.0.0"));
}
END_TEST

/* An upstream on loopback that answers each connection with one line. */
static int upstream_fd = -1;
static unsigned short upstream_port;

static void *upstream(void *arg)
{
	(void)arg;
	for (;;) {
		char buf[4096];
		int c = accept(upstream_fd, NULL, NULL);
		ssize_t n;

		if (c < 0)
			return NULL;
		n = recv(c, buf, sizeof(buf) - 1, 0);
		buf[n > 0 ? n : 0] = '\0';
		/* Echo what arrived first, so the test sees what the proxy sent. */
		(void)!send(c, "UPSTREAM ", 9, MSG_NOSIGNAL);
		(void)!send(c, buf, strlen(buf), MSG_NOSIGNAL);
		close(c);
	}
}

static int listen_loopback(unsigned short *port)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	ck_assert_int_eq(listen(fd, 16), 0);
	ck_assert_int_eq(getsockname(fd, (struct sockaddr *)&a, &len), 0);
	*port = ntohs(a.sin_port);
	return fd;
}

/* Hand the proxy its listening socket, as __proxy-listen does. */
static void hand_over(int ctl, int fd)
{
	char cbuf[CMSG_SPACE(sizeof(int))] = {0};
	struct iovec iov = {"L", 1};
	struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
			     .msg_controllen = sizeof(cbuf)};
	struct cmsghdr *cm = CMSG_FIRSTHDR(&msg);

	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &fd, sizeof(int));
	ck_assert_int_eq(sendmsg(ctl, &msg, 0), 1);
}

static int connect_port(unsigned short port)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port),
				.sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	ck_assert_int_eq(connect(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	return fd;
}

/* Send req (len bytes), then read until the proxy closes. */
static char *exchange(unsigned short port, const void *req, size_t len)
{
	static char buf[8192];
	size_t have = 0;
	ssize_t n;
	int fd = connect_port(port);

	ck_assert_int_eq(send(fd, req, len, 0), (ssize_t)len);
	while (have < sizeof(buf) - 1 && (n = recv(fd, buf + have, sizeof(buf) - 1 - have, 0)) > 0)
		have += (size_t)n;
	buf[have] = '\0';
	close(fd);
	return buf;
}

START_TEST(test_proxy)
{
	const char *const domains[] = {"localhost", "127.0.0.1"};
	const char *const local[] = {"127.0.0.1", "::1"};
	struct pdk_proxy *p;
	pthread_t t;
	unsigned short port;
	int sv[2], lfd;
	char req[512];
	const char *const *refused;
	char *got;

	upstream_fd = listen_loopback(&upstream_port);
	ck_assert_int_eq(pthread_create(&t, NULL, upstream, NULL), 0);
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	ck_assert_int_eq(pdk_proxy_start(domains, 2, local, 2, sv[0], &p), 0);
	lfd = listen_loopback(&port);
	hand_over(sv[1], lfd);
	close(lfd);

	/* Plain HTTP: the request goes on in origin form, one per connection. */
	snprintf(req, sizeof(req),
		 "GET http://localhost:%u/x HTTP/1.1\r\nHost: localhost\r\n"
		 "Proxy-Connection: keep-alive\r\n\r\n", upstream_port);
	got = exchange(port, req, strlen(req));
	ck_assert_msg(strstr(got, "UPSTREAM GET /x HTTP/1.1\r\nHost: localhost\r\n"
				  "Connection: close\r\n\r\n"), "got: %s", got);
	ck_assert_ptr_null(strstr(got, "Proxy-Connection"));

	/* CONNECT: a tunnel, the bytes after the head included. */
	snprintf(req, sizeof(req), "CONNECT localhost:%u HTTP/1.1\r\n\r\nhello", upstream_port);
	got = exchange(port, req, strlen(req));
	ck_assert_msg(!strncmp(got, "HTTP/1.1 200 Connection established\r\n\r\nUPSTREAM hello",
			       54), "got: %s", got);

	/* Refused: 403, remembered once. */
	snprintf(req, sizeof(req), "CONNECT refused.example:443 HTTP/1.1\r\n\r\n");
	got = exchange(port, req, strlen(req));
	ck_assert_msg(strstr(got, "403 Forbidden") && strstr(got, "--allow-domain refused.example"),
		      "got: %s", got);
	snprintf(req, sizeof(req), "GET http://refused.example/ HTTP/1.1\r\n\r\n");
	got = exchange(port, req, strlen(req));
	ck_assert(strstr(got, "403 Forbidden"));
	/* Credentials in the URL are not a way around the name. */
	snprintf(req, sizeof(req), "GET http://localhost@refused.example/ HTTP/1.1\r\n\r\n");
	got = exchange(port, req, strlen(req));
	ck_assert(strstr(got, "400 Bad Request"));

	/* SOCKS5, by an IPv4 address the list names. */
	unsigned char s5[] = {5, 1, 0, 5, 1, 0, 1, 127, 0, 0, 1, 0, 0, 'h', 'i'};
	s5[11] = (unsigned char)(upstream_port >> 8);
	s5[12] = (unsigned char)upstream_port;
	got = exchange(port, s5, sizeof(s5));
	ck_assert_int_eq(memcmp(got, "\x05\x00\x05\x00\x00\x01", 6), 0);
	ck_assert_msg(!memcmp(got + 12, "UPSTREAM hi", 11), "got: %s", got + 12);
	/* SOCKS5 by a name not listed: "not allowed by ruleset". */
	unsigned char s5n[] = {5, 1, 0, 5, 1, 0, 3, 7, 'e', 'x', '.', 'o', 'r', 'g', '!', 0, 80};
	got = exchange(port, s5n, sizeof(s5n));
	ck_assert_int_eq(memcmp(got, "\x05\x00\x05\x02", 4), 0);

	pdk_proxy_stop(p);
	ck_assert_int_eq(pdk_proxy_refused(p, &refused), 2);
	ck_assert_str_eq(refused[0], "refused.example");
	ck_assert_str_eq(refused[1], "ex.org!");
	pdk_proxy_free(p);
	close(sv[1]);
	shutdown(upstream_fd, SHUT_RDWR);
	pthread_join(t, NULL);
	close(upstream_fd);
}
END_TEST

/* A proxy for domains with the local blocks given, on a loopback port of its own. */
static struct pdk_proxy *proxy_on(const char *const *domains, size_t n, const char *const *local,
				  size_t n_local, unsigned short *port)
{
	struct pdk_proxy *p;
	int sv[2], lfd;

	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	ck_assert_int_eq(pdk_proxy_start(domains, n, local, n_local, sv[0], &p), 0);
	lfd = listen_loopback(port);
	hand_over(sv[1], lfd);
	close(lfd);
	close(sv[1]);
	return p;
}

/* Did anything connect to the listening socket fd (never accepted by anyone else)? */
static bool connected(int fd)
{
	int c = accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);

	if (c >= 0)
		close(c);
	else
		ck_assert_int_eq(errno, EAGAIN);
	return c >= 0;
}

/*
 * An allowed name or literal that leads to the host's own, private or link-local addresses is
 * refused before any connect (a server on loopback sees nothing), with the reason, and kept
 * apart from the names refused for not being allowed; a block the configuration lists is the
 * exception, and of a name's addresses only those it holds are tried.
 */
START_TEST(test_proxy_local)
{
	const char *const domains[] = {"localhost", "127.0.0.1", "::ffff:127.0.0.1",
				       "169.254.169.254", "10.0.0.1", "::1", "0.0.0.0"};
	const char *const bad_local[] = {"127.0.0.1/8"};
	const char *const *refused;
	struct pdk_proxy *p;
	unsigned short port, silent_port;
	int silent = listen_loopback(&silent_port), sv[2];
	char req[512], *got;

	ck_assert_int_eq(fcntl(silent, F_SETFL, O_NONBLOCK), 0);
	p = proxy_on(domains, PDK_ARRAY_SIZE(domains), NULL, 0, &port);
	snprintf(req, sizeof(req), "GET http://localhost:%u/ HTTP/1.1\r\n\r\n", silent_port);
	got = exchange(port, req, strlen(req));
	ck_assert_msg(strstr(got, "HTTP/1.1 403 Forbidden") &&
			  strstr(got, "paddock: localhost leads to ") &&
			  strstr(got, ", a loopback address: the proxy does not reach the host's "
				      "own, private or link-local addresses through a name; if the "
				      "command must reach it, list the address in "
				      "commandPolicy.sandbox.allowLocalAddresses\n"),
		      "got: %s", got);
	ck_assert(!connected(silent));
	static const char *const targets[] = {"127.0.0.1", "[::ffff:127.0.0.1]", "[::1]"};

	for (size_t i = 0; i < PDK_ARRAY_SIZE(targets); i++) {
		snprintf(req, sizeof(req), "CONNECT %s:%u HTTP/1.1\r\n\r\n", targets[i],
			 silent_port);
		got = exchange(port, req, strlen(req));
		ck_assert_msg(strstr(got, "403 Forbidden") && strstr(got, "a loopback address"),
			      "%s: %s", targets[i], got);
		ck_assert(!connected(silent));
	}
	/* Cloud metadata and a private address: refused before a packet leaves. */
	got = exchange(port, "CONNECT 169.254.169.254:80 HTTP/1.1\r\n\r\n", 39);
	ck_assert_msg(strstr(got, "403 Forbidden") &&
			  strstr(got, "169.254.169.254 leads to 169.254.169.254, a link-local "
				      "address"), "got: %s", got);
	got = exchange(port, "GET http://10.0.0.1/ HTTP/1.1\r\n\r\n", 33);
	ck_assert_msg(strstr(got, "403 Forbidden") && strstr(got, "a private address"), "got: %s",
		      got);
	got = exchange(port, "CONNECT 0.0.0.0:80 HTTP/1.1\r\n\r\n", 31);
	ck_assert_msg(strstr(got, "403 Forbidden") && strstr(got, "an unspecified address"),
		      "got: %s", got);
	/* SOCKS5, by address and by name: "connection not allowed by ruleset". */
	unsigned char s5[] = {5, 1, 0, 5, 1, 0, 1, 127, 0, 0, 1, 0, 0};
	s5[11] = (unsigned char)(silent_port >> 8);
	s5[12] = (unsigned char)silent_port;
	got = exchange(port, s5, sizeof(s5));
	ck_assert_int_eq(memcmp(got, "\x05\x00\x05\x02", 4), 0);
	unsigned char s5n[] = {5, 1, 0, 5, 1, 0, 3, 9, 'l', 'o', 'c', 'a', 'l', 'h', 'o', 's', 't',
			       0, 0};
	s5n[17] = (unsigned char)(silent_port >> 8);
	s5n[18] = (unsigned char)silent_port;
	got = exchange(port, s5n, sizeof(s5n));
	ck_assert_int_eq(memcmp(got, "\x05\x00\x05\x02", 4), 0);
	ck_assert(!connected(silent));
	pdk_proxy_stop(p);
	ck_assert_uint_eq(pdk_proxy_refused(p, &refused), 0);
	ck_assert_uint_eq(pdk_proxy_refused_local(p, &refused), 7);
	ck_assert_msg(!strncmp(refused[0], "localhost (", 11) && strstr(refused[0], ", loopback)"),
		      "%s", refused[0]);
	ck_assert_str_eq(refused[1], "127.0.0.1 (127.0.0.1, loopback)");
	ck_assert_str_eq(refused[2], "::ffff:127.0.0.1 (::ffff:127.0.0.1, loopback)");
	ck_assert_str_eq(refused[3], "::1 (::1, loopback)");
	ck_assert_str_eq(refused[4], "169.254.169.254 (169.254.169.254, link-local)");
	ck_assert_str_eq(refused[5], "10.0.0.1 (10.0.0.1, private)");
	pdk_proxy_free(p);

	/* The twin: a block the configuration lists; localhost's ::1 is not in it, its
	 * 127.0.0.1 is, and that is where the tunnel goes. */
	const char *const local[] = {"127.0.0.0/8"};

	p = proxy_on(domains, 1, local, 1, &port);
	snprintf(req, sizeof(req), "CONNECT localhost:%u HTTP/1.1\r\n\r\n", silent_port);
	int fd = connect_port(port);
	ssize_t n;

	ck_assert_int_eq(send(fd, req, strlen(req), 0), (ssize_t)strlen(req));
	/* The tunnel is up once the proxy says so; the server then closes its end. */
	n = recv(fd, req, sizeof(req) - 1, 0);
	req[n > 0 ? n : 0] = '\0';
	ck_assert_msg(!strncmp(req, "HTTP/1.1 200 Connection established", 35), "got: %s", req);
	ck_assert(connected(silent));
	close(fd);
	pdk_proxy_free(p);

	/* A bad block is refused when the proxy starts. */
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	ck_assert_int_eq(pdk_proxy_start(domains, 1, bad_local, 1, sv[0], &p), -EINVAL);
	close(sv[1]);
	close(silent);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("net");
	TCase *tc = tcase_create("proxy");

	tcase_add_test(tc, test_patterns);
	tcase_add_test(tc, test_local_kinds);
	tcase_add_test(tc, test_cidr);
	tcase_add_test(tc, test_proxy);
	tcase_add_test(tc, test_proxy_local);
	suite_add_tcase(s, tc);
	return pdk_ck_run(s);
}
