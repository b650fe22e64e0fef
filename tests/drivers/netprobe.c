/* netprobe.c - what a command inside the sandbox tries on the network, for
 * tests/shell/net.sh; it only ever addresses the loopback. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>

static int addr_of(const char *host, int port, struct sockaddr_storage *ss, socklen_t *len)
{
	struct sockaddr_in *in = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)ss;

	memset(ss, 0, sizeof(*ss));
	if (inet_pton(AF_INET, host, &in->sin_addr) == 1) {
		in->sin_family = AF_INET;
		in->sin_port = htons(port);
		*len = sizeof(*in);
		return 0;
	}
	if (inet_pton(AF_INET6, host, &in6->sin6_addr) == 1) {
		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons(port);
		*len = sizeof(*in6);
		return 0;
	}
	fprintf(stderr, "netprobe: not an address: %s\n", host);
	exit(2);
}

static int port_of(int fd)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);

	if (getsockname(fd, (struct sockaddr *)&ss, &len) < 0)
		return -1;
	return ntohs(((struct sockaddr_in *)&ss)->sin_port); /* same offset in both */
}

static const char *name_of(int fd, int peer)
{
	static char buf[INET6_ADDRSTRLEN + 16];
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	char a[INET6_ADDRSTRLEN] = "?";

	if ((peer ? getpeername : getsockname)(fd, (struct sockaddr *)&ss, &len) < 0)
		return strerror(errno);
	if (ss.ss_family == AF_INET)
		inet_ntop(AF_INET, &((struct sockaddr_in *)&ss)->sin_addr, a, sizeof(a));
	else
		inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&ss)->sin6_addr, a, sizeof(a));
	snprintf(buf, sizeof(buf), "%s", a);
	return buf;
}

/* own ADDR [CONNECT-TO]: a server of the command's own at ADDR, port 0, and
 * a client of it. */
static int own(const char *addr, const char *to)
{
	struct sockaddr_storage ss;
	socklen_t len;
	char buf[8] = {0};
	int s, c, a, port;

	addr_of(addr, 0, &ss, &len);
	s = socket(ss.ss_family, SOCK_STREAM, 0);
	if (s < 0 || bind(s, (struct sockaddr *)&ss, len) < 0 || listen(s, 4) < 0) {
		printf("own-failed %s\n", strerror(errno));
		return 1;
	}
	port = port_of(s);
	printf("bound %s\n", name_of(s, 0));
	addr_of(to ? to : addr, port, &ss, &len);
	c = socket(ss.ss_family, SOCK_STREAM, 0);
	if (c < 0 || connect(c, (struct sockaddr *)&ss, len) < 0) {
		printf("own-failed connect %s\n", strerror(errno));
		return 1;
	}
	a = accept(s, NULL, NULL);
	if (a < 0 || write(a, "own", 3) != 3 || read(c, buf, 3) != 3) {
		printf("own-failed %s\n", strerror(errno));
		return 1;
	}
	printf("own-ok %s\n", buf);
	return 0;
}

static int tcp_connect(const char *host, int port)
{
	struct sockaddr_storage ss;
	socklen_t len;
	int c;

	addr_of(host, port, &ss, &len);
	c = socket(ss.ss_family, SOCK_STREAM, 0);
	if (c < 0 || connect(c, (struct sockaddr *)&ss, len) < 0) {
		printf("refused %s\n", strerror(errno));
		return 1;
	}
	printf("connected-here\n");
	return 0;
}

static int udp_send(const char *host, int port, int use_sendmsg)
{
	struct sockaddr_storage ss;
	socklen_t len;
	struct iovec iov = {"probe", 5};
	struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1};
	ssize_t n;
	int c;

	addr_of(host, port, &ss, &len);
	m.msg_name = &ss;
	m.msg_namelen = len;
	c = socket(ss.ss_family, SOCK_DGRAM, 0);
	n = c < 0 ? -1 : use_sendmsg ? sendmsg(c, &m, 0) : sendto(c, "probe", 5, 0,
								  (struct sockaddr *)&ss, len);
	if (n < 0) {
		printf("refused %s\n", strerror(errno));
		return 1;
	}
	printf("sent-here\n");
	return 0;
}

/* A datagram server of the command's own, reached by sendto and sendmsg. */
static int udp_own(void)
{
	struct sockaddr_storage ss;
	socklen_t len;
	struct iovec iov = {"two", 3};
	struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1};
	char buf[8] = {0};
	int s = socket(AF_INET, SOCK_DGRAM, 0), c = socket(AF_INET, SOCK_DGRAM, 0);

	addr_of("127.0.0.1", 0, &ss, &len);
	if (bind(s, (struct sockaddr *)&ss, len) < 0) {
		printf("udp-failed bind %s\n", strerror(errno));
		return 1;
	}
	addr_of("127.0.0.1", port_of(s), &ss, &len);
	m.msg_name = &ss;
	m.msg_namelen = len;
	if (sendto(c, "one", 3, 0, (struct sockaddr *)&ss, len) != 3 || sendmsg(c, &m, 0) != 3) {
		printf("udp-failed send %s\n", strerror(errno));
		return 1;
	}
	if (recv(s, buf, 3, 0) != 3 || recv(s, buf + 3, 3, 0) != 3) {
		printf("udp-failed recv %s\n", strerror(errno));
		return 1;
	}
	printf("udp-own-ok %s\n", buf);
	return 0;
}

/* The address a racing thread keeps rewriting between the command's own port
 * and the host's, while the main thread connects or sends through it. */
static struct sockaddr_in race_sa;
static volatile int race_stop;
static int race_ports[2];

static void *flipper(void *p)
{
	volatile in_port_t *port = &race_sa.sin_port;

	(void)p;
	for (unsigned long i = 0; !race_stop; i++)
		*port = htons(race_ports[i & 1]);
	return NULL;
}

static int race(int host_port, int rounds, int udp)
{
	struct sockaddr_storage ss;
	socklen_t len;
	pthread_t t;
	int s, own = 0, host = 0, refused = 0;

	addr_of("127.0.0.1", 0, &ss, &len);
	s = socket(AF_INET, udp ? SOCK_DGRAM : SOCK_STREAM, 0);
	if (s < 0 || bind(s, (struct sockaddr *)&ss, len) < 0 || (!udp && listen(s, 512) < 0)) {
		printf("race-failed %s\n", strerror(errno));
		return 1;
	}
	if (!udp)
		fcntl(s, F_SETFL, O_NONBLOCK);
	race_sa = *(struct sockaddr_in *)&ss;
	race_ports[0] = port_of(s);
	race_ports[1] = host_port;
	/* Its own port from the start: a flipper not yet scheduled leaves
	 * every connect going there, never to port 0. */
	race_sa.sin_port = htons(race_ports[0]);
	pthread_create(&t, NULL, flipper, NULL);
	for (int i = 0; i < rounds; i++) {
		int c = socket(AF_INET, udp ? SOCK_DGRAM : SOCK_STREAM, 0);

		if (udp) {
			if (sendto(c, "race", 4, 0, (struct sockaddr *)&race_sa, sizeof(race_sa)) < 0)
				refused++;
			else
				own++; /* where it went, the host's listener says */
		} else if (connect(c, (struct sockaddr *)&race_sa, sizeof(race_sa)) < 0) {
			refused++;
		} else {
			struct sockaddr_in peer;
			socklen_t pl = sizeof(peer);

			getpeername(c, (struct sockaddr *)&peer, &pl);
			if (ntohs(peer.sin_port) == host_port)
				host++;
			else
				own++;
			int a;
			while ((a = accept4(s, NULL, NULL, SOCK_NONBLOCK)) >= 0)
				close(a);
		}
		close(c);
	}
	race_stop = 1;
	pthread_join(t, NULL);
	printf("race own=%d host=%d refused=%d\n", own, host, refused);
	return 0;
}

/* A descriptor passed over a socket pair with sendmsg arrives as itself. */
static int rights(void)
{
	int sv[2], p[2], got = -1;
	char cbuf[CMSG_SPACE(sizeof(int))] = {0}, data = 'r', buf[8] = {0};
	struct iovec iov = {&data, 1};
	struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
			   .msg_controllen = sizeof(cbuf)};
	struct cmsghdr *cm = CMSG_FIRSTHDR(&m);

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0 || pipe(p) < 0)
		return 1;
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &p[0], sizeof(int));
	if (sendmsg(sv[0], &m, 0) != 1) {
		printf("rights-failed send %s\n", strerror(errno));
		return 1;
	}
	memset(cbuf, 0, sizeof(cbuf));
	if (recvmsg(sv[1], &m, 0) != 1 || !(cm = CMSG_FIRSTHDR(&m)) || cm->cmsg_type != SCM_RIGHTS) {
		printf("rights-failed recv %s\n", strerror(errno));
		return 1;
	}
	memcpy(&got, CMSG_DATA(cm), sizeof(int));
	if (write(p[1], "mine", 4) != 4 || read(got, buf, 4) != 4 || strcmp(buf, "mine") != 0) {
		printf("rights-failed the descriptor is another one\n");
		return 1;
	}
	printf("rights-ok\n");
	return 0;
}

/* listen() without bind(): where does the socket end up? */
static int listen_unbound(int family)
{
	int s = socket(family, SOCK_STREAM, 0);

	if (s < 0 || listen(s, 1) < 0) {
		printf("listen-failed %s\n", strerror(errno));
		return 1;
	}
	printf("listening %s\n", name_of(s, 0));
	return 0;
}

/* race-unix OK NO ROUNDS: a thread flips the path in the address between
 * OK and NO while the main thread connects; each listener answers with two
 * bytes of its own, so the count says which socket each connection reached. */
static struct sockaddr_un race_un;
static const char *race_paths[2];

static void *flip_path(void *arg)
{
	volatile char *p = race_un.sun_path;

	(void)arg;
	for (unsigned long i = 0; !race_stop; i++) {
		const char *src = race_paths[i & 1];

		for (size_t k = 0; src[k]; k++)
			p[k] = src[k];
	}
	return NULL;
}

static int race_unix(const char *ok, const char *no, int rounds)
{
	int got_ok = 0, got_no = 0, refused = 0;
	pthread_t t;

	if (strlen(ok) != strlen(no) || strlen(ok) >= sizeof(race_un.sun_path)) {
		fprintf(stderr, "race-unix: two paths of one length\n");
		return 2;
	}
	race_un.sun_family = AF_UNIX;
	strcpy(race_un.sun_path, ok);
	race_paths[0] = ok;
	race_paths[1] = no;
	pthread_create(&t, NULL, flip_path, NULL);
	for (int i = 0; i < rounds; i++) {
		int c = socket(AF_UNIX, SOCK_STREAM, 0);
		char tag[3] = "";

		if (c < 0) {
			printf("race-failed %s\n", strerror(errno));
			break;
		}
		if (connect(c, (struct sockaddr *)&race_un, sizeof(race_un)) < 0) {
			refused++;
		} else if (read(c, tag, 2) == 2) {
			got_ok += !strcmp(tag, "OK");
			got_no += !strcmp(tag, "NO");
		}
		close(c);
	}
	race_stop = 1;
	pthread_join(t, NULL);
	printf("race-unix ok=%d no=%d refused=%d\n", got_ok, got_no, refused);
	return 0;
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : "";

	setvbuf(stdout, NULL, _IONBF, 0);
	if (!strcmp(cmd, "own") && argc >= 3)
		return own(argv[2], argc > 3 ? argv[3] : NULL);
	if (!strcmp(cmd, "connect") && argc == 4)
		return tcp_connect(argv[2], atoi(argv[3]));
	if (!strcmp(cmd, "udp") && argc == 4)
		return udp_send(argv[2], atoi(argv[3]), 0);
	if (!strcmp(cmd, "udp-msg") && argc == 4)
		return udp_send(argv[2], atoi(argv[3]), 1);
	if (!strcmp(cmd, "udp-own"))
		return udp_own();
	if (!strcmp(cmd, "race") && argc == 4)
		return race(atoi(argv[2]), atoi(argv[3]), 0);
	if (!strcmp(cmd, "race-udp") && argc == 4)
		return race(atoi(argv[2]), atoi(argv[3]), 1);
	if (!strcmp(cmd, "race-unix") && argc == 5)
		return race_unix(argv[2], argv[3], atoi(argv[4]));
	if (!strcmp(cmd, "rights"))
		return rights();
	if (!strcmp(cmd, "listen4"))
		return listen_unbound(AF_INET);
	if (!strcmp(cmd, "listen6"))
		return listen_unbound(AF_INET6);
	fprintf(stderr, "usage: netprobe own ADDR [TO] | connect|udp|udp-msg ADDR PORT | udp-own | "
			"race|race-udp HOST-PORT ROUNDS | race-unix OK NO ROUNDS | rights | listen4 | listen6\n");
	return 2;
}
