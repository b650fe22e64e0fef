/* check_net.c - unit tests of the domains mode's proxy: the domain patterns,
 * and the proxy itself on this machine's loopback (HTTP, CONNECT, SOCKS5, refusals). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <arpa/inet.h>
#include <check.h>
#include <netinet/in.h>
#include <pthread.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ck_util.h"
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
	ck_assert_int_eq(pdk_proxy_start(domains, 2, sv[0], &p), 0);
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

int main(void)
{
	Suite *s = suite_create("net");
	TCase *tc = tcase_create("proxy");

	tcase_add_test(tc, test_patterns);
	tcase_add_test(tc, test_proxy);
	suite_add_tcase(s, tc);
	return pdk_ck_run(s);
}
