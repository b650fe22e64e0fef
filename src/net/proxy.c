/* proxy.c - the domains mode's proxy: HTTP CONNECT, plain HTTP and SOCKS5 on a
 * socket made inside the sandbox, connections made outside only to listed domains. */
#include "proxy.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include "addr.h"
#include "core/path.h"
#include "core/util.h"

#ifdef MSG_CMSG_CLOEXEC
#define PDK_MSG_CMSG_CLOEXEC MSG_CMSG_CLOEXEC
#else
#define PDK_MSG_CMSG_CLOEXEC 0
#endif

#define MAX_REFUSED 8
#define HEAD_MAX 16384
/* How long a client may take to say where it goes. */
#define HEAD_TIMEOUT_MS (30 * 1000)
#define RELAY_BUF 65536
#define DIAL_TIMEOUT_MS (30 * 1000)

struct pdk_proxy {
	char **domains;
	size_t n_domains;
	struct pdk_cidr *local; /* the host's own addresses a name may lead to all the same */
	size_t n_local;
	int ctl;          /* where the listening socket arrives */
	int listen_fd;
	int stop[2];      /* a pipe: readable once the proxy stops */
	pthread_t acceptor;
	bool started;
	pthread_mutex_t lock;
	pthread_cond_t idle;
	unsigned active;  /* connection threads alive */
	char *refused[MAX_REFUSED];
	size_t n_refused;
	char *refused_local[MAX_REFUSED]; /* "NAME (ADDRESS, KIND)" */
	size_t n_refused_local;
};

struct conn {
	struct pdk_proxy *p;
	int fd;
};

/* --- names ---------------------------------------------------------------- */

static bool is_literal(const char *host)
{
	unsigned char buf[sizeof(struct in6_addr)];

	return inet_pton(AF_INET, host, buf) == 1 || inet_pton(AF_INET6, host, buf) == 1;
}

bool pdk_domain_pattern_valid(const char *pattern)
{
	const char *s = pattern;
	size_t len;

	if (!pattern || !*pattern)
		return false;
	if (is_literal(pattern))
		return true;
	if (!strncmp(s, "*.", 2))
		s += 2;
	len = strlen(s);
	if (!len || len > 253 || s[0] == '.' || s[0] == '-' || strstr(s, ".."))
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '-' && *s != '.')
			return false;
	return true;
}

/* Equal, ignoring case and one trailing dot on either. */
static bool name_eq(const char *a, size_t la, const char *b, size_t lb)
{
	if (la && a[la - 1] == '.')
		la--;
	if (lb && b[lb - 1] == '.')
		lb--;
	return la == lb && !strncasecmp(a, b, la);
}

bool pdk_domain_matches(const char *pattern, const char *host)
{
	size_t lp = strlen(pattern), lh = strlen(host);

	if (!lh)
		return false;
	if (!strncmp(pattern, "*.", 2)) {
		const char *suffix = pattern + 1; /* ".example.org" */
		size_t ls = lp - 1;

		if (host[lh - 1] == '.')
			lh--;
		if (suffix[ls - 1] == '.')
			ls--;
		return lh > ls && !strncasecmp(host + lh - ls, suffix, ls) && !is_literal(host);
	}
	return name_eq(pattern, lp, host, lh);
}

static bool allowed(const struct pdk_proxy *p, const char *host)
{
	for (size_t i = 0; i < p->n_domains; i++)
		if (pdk_domain_matches(p->domains[i], host))
			return true;
	return false;
}

/* Add what (printable from now on) to list, once, while it has room. */
static void remember(struct pdk_proxy *p, char **list, size_t *n, const char *what)
{
	pthread_mutex_lock(&p->lock);
	for (size_t i = 0; i < *n; i++)
		if (!strcasecmp(list[i], what))
			goto out;
	if (*n < MAX_REFUSED) {
		char *c = strdup(what);

		for (char *q = c; q && *q; q++)
			if (!isprint((unsigned char)*q))
				*q = '?';
		if (c)
			list[(*n)++] = c;
	}
out:
	pthread_mutex_unlock(&p->lock);
}

static void remember_refused(struct pdk_proxy *p, const char *host)
{
	remember(p, p->refused, &p->n_refused, host);
}

/* Why dial refused a name: the first address it led to that the proxy does not reach. */
struct local_refusal {
	char addr[INET6_ADDRSTRLEN];
	const char *kind; /* NULL: nothing refused */
};

static void remember_local(struct pdk_proxy *p, const char *host, const struct local_refusal *lr)
{
	char what[320];

	snprintf(what, sizeof(what), "%.255s (%s, %s)", host, lr->addr, lr->kind);
	remember(p, p->refused_local, &p->n_refused_local, what);
}

/* An address the proxy may connect to: public, or one the configuration lists. Otherwise
 * the first refused one goes into *lr. */
static bool address_ok(const struct pdk_proxy *p, const struct sockaddr *sa,
		       struct local_refusal *lr)
{
	const char *kind = pdk_addr_local_kind(sa);
	const void *bytes;

	if (!kind)
		return true;
	for (size_t i = 0; i < p->n_local; i++)
		if (pdk_cidr_contains(&p->local[i], sa))
			return true;
	if (lr->kind)
		return false;
	lr->kind = kind;
	bytes = sa->sa_family == AF_INET
			? (const void *)&((const struct sockaddr_in *)(const void *)sa)->sin_addr
			: (const void *)&((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr;
	if (!inet_ntop(sa->sa_family, bytes, lr->addr, sizeof(lr->addr)))
		snprintf(lr->addr, sizeof(lr->addr), "?");
	return false;
}

/* --- plumbing ------------------------------------------------------------- */

/* Wait for fd to be readable (or writable), or the proxy to stop: 1 ready,
 * 0 stopped or timed out, -errno. */
static int wait_fd(const struct pdk_proxy *p, int fd, short ev, int ms)
{
	struct pollfd f[2] = {{fd, ev, 0}, {p->stop[0], POLLIN, 0}};

	for (;;) {
		int r = poll(f, 2, ms);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (r == 0 || f[1].revents)
			return 0;
		return 1;
	}
}

static int send_all(int fd, const void *buf, size_t len)
{
	const char *b = buf;

	while (len) {
		ssize_t n = send(fd, b, len, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN) {
			struct pollfd f = {fd, POLLOUT, 0};

			(void)poll(&f, 1, 1000);
			continue;
		}
		if (n <= 0)
			return n < 0 ? -errno : -EPIPE;
		b += n;
		len -= (size_t)n;
	}
	return 0;
}

/*
 * Connect outside to host:port, trying each address the name has that the proxy may reach
 * (address_ok), in the resolver's order; a connect that hangs gives way when the proxy stops.
 * The address checked is the one connected to: the name is resolved once, so a name that
 * answers a public address first and the host's own next (DNS rebinding) gains nothing.
 * -EACCES when every address was one the proxy does not reach (*lr says the first).
 */
static int dial(const struct pdk_proxy *p, const char *host, const char *port,
		struct local_refusal *lr)
{
	struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM}, *res, *ai;
	int fd = -1, e = EHOSTUNREACH;
	bool tried = false;

	lr->kind = NULL;
	if (getaddrinfo(host, port, &hints, &res) != 0)
		return -EHOSTUNREACH;
	for (ai = res; ai; ai = ai->ai_next) {
		socklen_t len = sizeof(e);

		if (!address_ok(p, ai->ai_addr, lr))
			continue;
		tried = true;
		fd = pdk_socket_cloexec(ai->ai_family, ai->ai_socktype, ai->ai_protocol);
		if (fd < 0 || fcntl(fd, F_SETFL, O_NONBLOCK) < 0) {
			e = fd < 0 ? -fd : errno;
			if (fd >= 0)
				close(fd);
			fd = -1;
			continue;
		}
		if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0)
			break;
		e = errno;
		if (e == EINPROGRESS) {
			if (wait_fd(p, fd, POLLOUT, DIAL_TIMEOUT_MS) <= 0)
				e = ETIMEDOUT;
			else if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &len) < 0)
				e = errno;
			if (e == 0)
				break;
		}
		close(fd);
		fd = -1;
	}
	freeaddrinfo(res);
	if (fd < 0)
		return !tried && lr->kind ? -EACCES : -e;
	/* Blocking from here: the relay polls before it reads. */
	if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) < 0) {
		e = errno;
		close(fd);
		return -e;
	}
	int one = 1;

	(void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return fd;
}

#ifdef __linux__
/* The bytes move from socket to socket through a pipe in the kernel,
 * never through paddock's memory: splice(2), up to SPLICE_MAX at a time. */
#define SPLICE_MAX (1024 * 1024)

/* One pipe per direction. 0, or -errno when splice cannot be used here. */
static int splice_pipes(int pipes[2][2], size_t *max)
{
	for (int i = 0; i < 2; i++)
		pipes[i][0] = pipes[i][1] = -1;
	*max = SPLICE_MAX;
	for (int i = 0; i < 2; i++) {
		if (pipe2(pipes[i], O_CLOEXEC) < 0)
			return -errno;
		/* A pipe holds 64 KiB unless it asks for more; an unprivileged
		 * user may ask up to /proc/sys/fs/pipe-max-size (1 MiB). */
		int got = fcntl(pipes[i][1], F_SETPIPE_SZ, SPLICE_MAX);

		if (got > 0 && (size_t)got < *max)
			*max = (size_t)got;
		else if (got < 0)
			*max = 65536;
	}
	return 0;
}

static void close_pipes(int pipes[2][2])
{
	for (int i = 0; i < 2; i++)
		for (int k = 0; k < 2; k++)
			if (pipes[i][k] >= 0)
				close(pipes[i][k]);
}

/* Move what from has now to to, through pipe: 1 moved, 0 end of input,
 * -EAGAIN nothing yet, -EINVAL splice does not apply (the caller copies),
 * other -errno a failure. The pipe is empty again on success. */
static int splice_once(int from, int to, int pipe[2], size_t max)
{
	ssize_t n = splice(from, NULL, pipe[1], NULL, max, SPLICE_F_MOVE | SPLICE_F_NONBLOCK);

	if (n < 0)
		return errno == EINTR ? -EAGAIN : -errno;
	if (n == 0)
		return 0;
	while (n > 0) {
		ssize_t m = splice(pipe[0], NULL, to, NULL, (size_t)n, SPLICE_F_MOVE);

		if (m < 0 && errno == EINTR)
			continue;
		if (m <= 0)
			return m < 0 ? -errno : -EPIPE;
		n -= m;
	}
	return 1;
}
#endif

/* Copy both ways until both sides are done or the proxy stops. */
static void relay(const struct pdk_proxy *p, int a, int b)
{
	char *buf = malloc(RELAY_BUF);
	bool a_open = true, b_open = true;
#ifdef __linux__
	int pipes[2][2];
	size_t max = 0;
	bool spliced = splice_pipes(pipes, &max) == 0;
#endif

	if (!buf)
		goto out;
	while (a_open || b_open) {
		struct pollfd f[3] = {{a, a_open ? POLLIN : 0, 0},
				      {b, b_open ? POLLIN : 0, 0},
				      {p->stop[0], POLLIN, 0}};
		int r = poll(f, 3, -1);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 || f[2].revents)
			break;
		for (int i = 0; i < 2; i++) {
			int from = i ? b : a, to = i ? a : b;
			bool *open = i ? &b_open : &a_open;
			ssize_t n;

			if (!*open || !(f[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
#ifdef __linux__
			if (spliced) {
				int moved = splice_once(from, to, pipes[i], max);

				if (moved == -EAGAIN)
					continue;
				if (moved == 0) {
					*open = false;
					(void)shutdown(to, SHUT_WR);
					continue;
				}
				if (moved == 1)
					continue;
				if (moved != -EINVAL)
					goto out;
				/* Not a socket splice takes: copy from now on. */
				spliced = false;
			}
#endif
			n = recv(from, buf, RELAY_BUF, 0);
			if (n < 0 && (errno == EINTR || errno == EAGAIN))
				continue;
			if (n <= 0) {
				*open = false;
				(void)shutdown(to, SHUT_WR);
				continue;
			}
			if (send_all(to, buf, (size_t)n) < 0)
				goto out;
		}
	}
out:
#ifdef __linux__
	close_pipes(pipes);
#endif
	free(buf);
}

/* --- SOCKS5 (RFC 1928), CONNECT only, no authentication ------------------- */

/* What the first read brought, handed out before the socket is read again. */
struct pre {
	const char *b;
	size_t n, pos;
};

static int read_n(const struct pdk_proxy *p, int fd, struct pre *pre, void *buf, size_t len)
{
	char *b = buf;

	if (pre->pos < pre->n) {
		size_t k = pre->n - pre->pos < len ? pre->n - pre->pos : len;

		memcpy(b, pre->b + pre->pos, k);
		pre->pos += k;
		b += k;
		len -= k;
	}
	while (len) {
		ssize_t n;

		if (wait_fd(p, fd, POLLIN, HEAD_TIMEOUT_MS) <= 0)
			return -ETIMEDOUT;
		n = recv(fd, b, len, 0);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EPIPE;
		b += n;
		len -= (size_t)n;
	}
	return 0;
}

static void socks5(struct pdk_proxy *p, int fd, const char *first, size_t n_first)
{
	struct pre pre = {first, n_first, 0};
	static const unsigned char ok[] = {5, 0, 0, 1, 0, 0, 0, 0, 0, 0};
	unsigned char h[262], rep[10] = {5, 1, 0, 1, 0, 0, 0, 0, 0, 0};
	char host[256], port[8];
	struct local_refusal lr;
	int up;

	/* Greeting: 5, NMETHODS, METHODS; "no authentication" must be one. */
	if (read_n(p, fd, &pre, h, 2) < 0 || read_n(p, fd, &pre, h + 2, h[1]) < 0 ||
	    !memchr(h + 2, 0, h[1])) {
		(void)send_all(fd, "\x05\xff", 2);
		return;
	}
	if (send_all(fd, "\x05\x00", 2) < 0 || read_n(p, fd, &pre, h, 4) < 0)
		return;
	if (h[0] != 5 || h[1] != 1) {
		rep[1] = 7; /* command not supported */
		(void)send_all(fd, rep, sizeof(rep));
		return;
	}
	if (h[3] == 1) {
		if (read_n(p, fd, &pre, h, 4) < 0 || !inet_ntop(AF_INET, h, host, sizeof(host)))
			return;
	} else if (h[3] == 4) {
		if (read_n(p, fd, &pre, h, 16) < 0 || !inet_ntop(AF_INET6, h, host, sizeof(host)))
			return;
	} else if (h[3] == 3) {
		if (read_n(p, fd, &pre, h, 1) < 0 || !h[0] || read_n(p, fd, &pre, host, h[0]) < 0)
			return;
		host[h[0]] = '\0';
		if (strlen(host) != h[0])
			return;
	} else {
		rep[1] = 8;
		(void)send_all(fd, rep, sizeof(rep));
		return;
	}
	if (read_n(p, fd, &pre, h, 2) < 0)
		return;
	snprintf(port, sizeof(port), "%u", (unsigned)h[0] << 8 | h[1]);
	if (!allowed(p, host)) {
		remember_refused(p, host);
		rep[1] = 2; /* not allowed by ruleset */
		(void)send_all(fd, rep, sizeof(rep));
		return;
	}
	up = dial(p, host, port, &lr);
	if (up == -EACCES)
		remember_local(p, host, &lr);
	if (up < 0) {
		/* 2: not allowed by ruleset; 5: refused; 4: unreachable */
		rep[1] = up == -EACCES ? 2 : up == -ECONNREFUSED ? 5 : 4;
		(void)send_all(fd, rep, sizeof(rep));
		return;
	}
	/* What a client sent past its request, before the reply, is the tunnel's. */
	if (send_all(fd, ok, sizeof(ok)) == 0 &&
	    (pre.pos == pre.n || send_all(up, pre.b + pre.pos, pre.n - pre.pos) == 0))
		relay(p, fd, up);
	close(up);
}

/* --- HTTP ----------------------------------------------------------------- */

static void http_error(int fd, const char *status, const char *body)
{
	char msg[1024];
	int n = snprintf(msg, sizeof(msg),
			 "HTTP/1.1 %s\r\nContent-Type: text/plain\r\nContent-Length: %zu\r\n"
			 "Connection: close\r\n\r\n%s",
			 status, strlen(body), body);

	if (n > 0)
		(void)send_all(fd, msg, (size_t)n < sizeof(msg) ? (size_t)n : sizeof(msg) - 1);
}

/* Split "host:port" or "[v6]:port" (port may be missing: def). */
static int split_hostport(const char *s, size_t len, const char *def, char *host, size_t hl,
			  char *port, size_t pl)
{
	const char *colon;
	size_t hlen;

	if (len && s[0] == '[') {
		const char *end = memchr(s, ']', len);

		if (!end)
			return -EINVAL;
		hlen = (size_t)(end - s - 1);
		if (hlen >= hl)
			return -EINVAL;
		memcpy(host, s + 1, hlen);
		host[hlen] = '\0';
		colon = end + 1 < s + len && end[1] == ':' ? end + 1 : NULL;
	} else {
		colon = memchr(s, ':', len);
		hlen = colon ? (size_t)(colon - s) : len;
		if (!hlen || hlen >= hl)
			return -EINVAL;
		memcpy(host, s, hlen);
		host[hlen] = '\0';
	}
	if (colon) {
		size_t plen = len - (size_t)(colon + 1 - s);

		if (!plen || plen >= pl || strspn(colon + 1, "0123456789") < plen)
			return -EINVAL;
		memcpy(port, colon + 1, plen);
		port[plen] = '\0';
	} else {
		snprintf(port, pl, "%s", def);
	}
	for (char *c = host; *c; c++)
		if ((unsigned char)*c <= ' ' || *c == '/' || *c == '@')
			return -EINVAL;
	return 0;
}

/* The name led only to addresses the proxy does not reach: 403, one line saying why. */
static void refuse_local_http(struct pdk_proxy *p, int fd, const char *host,
			      const struct local_refusal *lr)
{
	char body[1024];

	remember_local(p, host, lr);
	snprintf(body, sizeof(body),
		 "paddock: %.255s leads to %s, %s %s address: the proxy does not reach the "
		 "host's own, private or link-local addresses through a name; if the command "
		 "must reach it, list the address in commandPolicy.sandbox.allowLocalAddresses\n",
		 host, lr->addr, strchr("aeiou", lr->kind[0]) ? "an" : "a", lr->kind);
	http_error(fd, "403 Forbidden", body);
}

/* Connect for an allowed name, or answer the client why not: the socket, or -1. */
static int dial_http(struct pdk_proxy *p, int fd, const char *host, const char *port)
{
	struct local_refusal lr;
	int up = dial(p, host, port, &lr);

	if (up == -EACCES)
		refuse_local_http(p, fd, host, &lr);
	else if (up < 0)
		http_error(fd, "502 Bad Gateway", "paddock: could not connect\n");
	return up < 0 ? -1 : up;
}

static void refuse_http(struct pdk_proxy *p, int fd, const char *host)
{
	char body[1024];

	remember_refused(p, host);
	snprintf(body, sizeof(body),
		 "paddock: the domain %.255s is not allowed in this run; allow it with "
		 "--allow-domain %.255s or commandPolicy.sandbox.allowedDomains\n",
		 host, host);
	http_error(fd, "403 Forbidden", body);
}

/* Is this header line (name: value, no CR LF) one of the hop-by-hop ones the
 * proxy replaces? */
static bool hop_header(const char *line, size_t len)
{
	static const char *const names[] = {"connection:", "proxy-connection:", "keep-alive:",
					    "proxy-authorization:"};

	for (size_t i = 0; i < PDK_ARRAY_SIZE(names); i++) {
		size_t n = strlen(names[i]);

		if (len >= n && !strncasecmp(line, names[i], n))
			return true;
	}
	return false;
}

static void http(struct pdk_proxy *p, int fd, char *buf, size_t have)
{
	char host[256], port[8], *end, *sp1, *sp2, *nl;
	size_t head_len;
	int up;

	/* The whole head first. */
	while (!(end = memmem(buf, have, "\r\n\r\n", 4))) {
		ssize_t n;

		if (have >= HEAD_MAX - 1) {
			http_error(fd, "431 Request Header Fields Too Large", "paddock: head too long\n");
			return;
		}
		if (wait_fd(p, fd, POLLIN, HEAD_TIMEOUT_MS) <= 0)
			return;
		n = recv(fd, buf + have, HEAD_MAX - 1 - have, 0);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n <= 0)
			return;
		have += (size_t)n;
	}
	head_len = (size_t)(end - buf) + 4;
	nl = memchr(buf, '\r', head_len);
	sp1 = memchr(buf, ' ', (size_t)(nl - buf));
	sp2 = sp1 ? memchr(sp1 + 1, ' ', (size_t)(nl - sp1 - 1)) : NULL;
	if (!sp1 || !sp2) {
		http_error(fd, "400 Bad Request", "paddock: not an HTTP request\n");
		return;
	}
	if ((size_t)(sp1 - buf) == 7 && !strncmp(buf, "CONNECT", 7)) {
		static const char est[] = "HTTP/1.1 200 Connection established\r\n\r\n";

		if (split_hostport(sp1 + 1, (size_t)(sp2 - sp1 - 1), "443", host, sizeof(host),
				   port, sizeof(port)) < 0) {
			http_error(fd, "400 Bad Request", "paddock: CONNECT needs host:port\n");
			return;
		}
		if (!allowed(p, host)) {
			refuse_http(p, fd, host);
			return;
		}
		if ((up = dial_http(p, fd, host, port)) < 0)
			return;
		/* Bytes the client sent after the head belong to the tunnel. */
		if (send_all(fd, est, sizeof(est) - 1) == 0 &&
		    (have == head_len || send_all(up, buf + head_len, have - head_len) == 0))
			relay(p, fd, up);
		close(up);
		return;
	}
	/* Plain HTTP: METHOD http://host[:port]/path HTTP/1.x */
	const char *target = sp1 + 1, *auth, *path;
	size_t tlen = (size_t)(sp2 - target);

	if (tlen < 7 || strncasecmp(target, "http://", 7)) {
		http_error(fd, "400 Bad Request",
			   "paddock: give the proxy an absolute http:// URL, or use CONNECT\n");
		return;
	}
	auth = target + 7;
	path = memchr(auth, '/', (size_t)(sp2 - auth));
	if (!path)
		path = sp2;
	if (memchr(auth, '@', (size_t)(path - auth)) ||
	    split_hostport(auth, (size_t)(path - auth), "80", host, sizeof(host), port,
			   sizeof(port)) < 0) {
		http_error(fd, "400 Bad Request", "paddock: bad URL\n");
		return;
	}
	if (!allowed(p, host)) {
		refuse_http(p, fd, host);
		return;
	}
	if ((up = dial_http(p, fd, host, port)) < 0)
		return;
	/* The request line in origin form, the head without hop-by-hop
	 * headers, one request per connection (a later one on the same
	 * connection could name another host). */
	char *out = malloc(head_len + 64);
	size_t o = 0;

	if (!out) {
		close(up);
		return;
	}
	o += (size_t)(sp1 + 1 - buf);
	memcpy(out, buf, o);
	if (path == sp2)
		out[o++] = '/';
	memcpy(out + o, path, (size_t)(nl + 2 - path));
	o += (size_t)(nl + 2 - path);
	for (char *line = nl + 2; line < end + 2;) {
		char *eol = memmem(line, (size_t)(end + 2 - line), "\r\n", 2);
		size_t l = (size_t)(eol - line);

		if (!hop_header(line, l)) {
			memcpy(out + o, line, l + 2);
			o += l + 2;
		}
		line = eol + 2;
	}
	memcpy(out + o, "Connection: close\r\n\r\n", 21);
	o += 21;
	if (send_all(up, out, o) == 0 &&
	    (have == head_len || send_all(up, buf + head_len, have - head_len) == 0))
		relay(p, fd, up);
	free(out);
	close(up);
}

/* --- threads -------------------------------------------------------------- */

static void *serve(void *arg)
{
	struct conn *c = arg;
	struct pdk_proxy *p = c->p;
	char *buf = malloc(HEAD_MAX);
	ssize_t n = -1;

	if (buf && wait_fd(p, c->fd, POLLIN, HEAD_TIMEOUT_MS) > 0) {
		do
			n = recv(c->fd, buf, HEAD_MAX - 1, 0);
		while (n < 0 && errno == EINTR);
	}
	if (n > 0 && buf[0] == 5)
		socks5(p, c->fd, buf, (size_t)n);
	else if (n > 0)
		http(p, c->fd, buf, (size_t)n);
	free(buf);
	close(c->fd);
	free(c);
	pthread_mutex_lock(&p->lock);
	if (--p->active == 0)
		pthread_cond_broadcast(&p->idle);
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

static void *accept_loop(void *arg)
{
	struct pdk_proxy *p = arg;

	for (;;) {
		struct conn *c;
		pthread_t t;
		pthread_attr_t attr;
		int fd;

		if (wait_fd(p, p->listen_fd, POLLIN, -1) <= 0)
			break;
		fd = pdk_accept_cloexec(p->listen_fd);
		if (fd < 0) {
			errno = -fd;
			if (errno == EINTR || errno == EAGAIN || errno == ECONNABORTED)
				continue;
			if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
				struct pollfd f = {p->stop[0], POLLIN, 0};

				(void)poll(&f, 1, 100);
				continue;
			}
			break;
		}
		c = malloc(sizeof(*c));
		if (!c) {
			close(fd);
			continue;
		}
		*c = (struct conn){p, fd};
		pthread_mutex_lock(&p->lock);
		p->active++;
		pthread_mutex_unlock(&p->lock);
		pthread_attr_init(&attr);
		pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
		pthread_attr_setstacksize(&attr, 256 * 1024);
		if (pthread_create(&t, &attr, serve, c) != 0) {
			close(fd);
			free(c);
			pthread_mutex_lock(&p->lock);
			p->active--;
			pthread_mutex_unlock(&p->lock);
		}
		pthread_attr_destroy(&attr);
	}
	return NULL;
}

/* The listening socket from the sandbox side, with SCM_RIGHTS. */
static void *start_thread(void *arg)
{
	struct pdk_proxy *p = arg;
	char byte, cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = {&byte, 1};
	struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
			     .msg_controllen = sizeof(cbuf)};
	struct cmsghdr *cm;
	ssize_t n;

	if (wait_fd(p, p->ctl, POLLIN, -1) <= 0)
		return NULL;
	do
		n = recvmsg(p->ctl, &msg, PDK_MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	cm = n > 0 ? CMSG_FIRSTHDR(&msg) : NULL;
	if (!cm || cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS ||
	    cm->cmsg_len != CMSG_LEN(sizeof(int)))
		return NULL;
	memcpy(&p->listen_fd, CMSG_DATA(cm), sizeof(int));
	if (!PDK_MSG_CMSG_CLOEXEC)
		fcntl(p->listen_fd, F_SETFD, FD_CLOEXEC);
	return accept_loop(p);
}

int pdk_proxy_start(const char *const *domains, size_t n_domains, const char *const *local,
		    size_t n_local, int ctl, struct pdk_proxy **ret)
{
	struct pdk_proxy *p = calloc(1, sizeof(*p));
	int r;

	if (!p) {
		close(ctl);
		return -ENOMEM;
	}
	p->ctl = ctl;
	p->listen_fd = -1;
	p->stop[0] = p->stop[1] = -1;
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->idle, NULL);
	p->domains = calloc(n_domains + 1, sizeof(*p->domains));
	if (!p->domains)
		goto nomem;
	for (size_t i = 0; i < n_domains; i++, p->n_domains++)
		if (!(p->domains[i] = strdup(domains[i])))
			goto nomem;
	if (n_local && !(p->local = calloc(n_local, sizeof(*p->local))))
		goto nomem;
	for (size_t i = 0; i < n_local; i++, p->n_local++)
		if ((r = pdk_cidr_parse(local[i], &p->local[i])) < 0)
			goto fail;
	if ((r = pdk_pipe_cloexec(p->stop)) < 0)
		goto fail;
	/* Signals are the runner's: no proxy thread takes one (they inherit
	 * this mask), so the thread that waits on the command sees them. */
	sigset_t all, old;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	r = -pthread_create(&p->acceptor, NULL, start_thread, p);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (r < 0)
		goto fail;
	p->started = true;
	*ret = p;
	return 0;
nomem:
	r = -ENOMEM;
fail:
	pdk_proxy_free(p);
	return r;
}

void pdk_proxy_stop(struct pdk_proxy *p)
{
	if (!p || !p->started)
		return;
	/* A pipe with its write end closed reads as the end: every poll wakes. */
	close(steal_fd(&p->stop[1]));
	pthread_join(p->acceptor, NULL);
	p->started = false;
	pthread_mutex_lock(&p->lock);
	while (p->active)
		pthread_cond_wait(&p->idle, &p->lock);
	pthread_mutex_unlock(&p->lock);
}

size_t pdk_proxy_refused(const struct pdk_proxy *p, const char *const **ret)
{
	*ret = (const char *const *)p->refused;
	return p->n_refused;
}

size_t pdk_proxy_refused_local(const struct pdk_proxy *p, const char *const **ret)
{
	*ret = (const char *const *)p->refused_local;
	return p->n_refused_local;
}

void pdk_proxy_free(struct pdk_proxy *p)
{
	if (!p)
		return;
	pdk_proxy_stop(p);
	for (size_t i = 0; p->domains && i < p->n_domains; i++)
		free(p->domains[i]);
	free(p->domains);
	for (size_t i = 0; i < p->n_refused; i++)
		free(p->refused[i]);
	for (size_t i = 0; i < p->n_refused_local; i++)
		free(p->refused_local[i]);
	free(p->local);
	if (p->ctl >= 0)
		close(p->ctl);
	if (p->listen_fd >= 0)
		close(p->listen_fd);
	if (p->stop[0] >= 0)
		close(p->stop[0]);
	if (p->stop[1] >= 0)
		close(p->stop[1]);
	pthread_mutex_destroy(&p->lock);
	pthread_cond_destroy(&p->idle);
	free(p);
}

/* --- the sandbox side ------------------------------------------------------ */

/* Hand the listening socket fd to the proxy over ctl (SCM_RIGHTS). */
static int hand_over(int ctl, int fd)
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
	return sendmsg(ctl, &msg, MSG_NOSIGNAL) == 1 ? 0 : -errno;
}

/* A listening socket on 127.0.0.1, a port the kernel picks. */
static int listen_loopback(unsigned *port)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t alen = sizeof(a);
	int fd, r;

	fd = pdk_socket_cloexec(AF_INET, SOCK_STREAM, 0);
	if (fd < 0)
		return fd;
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(fd, 128) < 0 ||
	    getsockname(fd, (struct sockaddr *)&a, &alen) < 0) {
		r = -errno;
		close(fd);
		return r;
	}
	*port = ntohs(a.sin_port);
	return fd;
}

int pdk_proxy_listen_host(unsigned *port)
{
	return listen_loopback(port);
}

int pdk_proxy_hand(int ctl, int listen_fd)
{
	return hand_over(ctl, listen_fd);
}

int pdk_proxy_env(unsigned port, char env[PDK_PROXY_ENV_N][PDK_PROXY_ENV_LEN])
{
	static const char *const http_vars[] = {"http_proxy", "HTTP_PROXY", "https_proxy",
						"HTTPS_PROXY"};
	size_t k = 0;

	for (size_t i = 0; i < PDK_ARRAY_SIZE(http_vars); i++)
		snprintf(env[k++], PDK_PROXY_ENV_LEN, "%s=http://127.0.0.1:%u", http_vars[i], port);
	snprintf(env[k++], PDK_PROXY_ENV_LEN, "all_proxy=socks5h://127.0.0.1:%u", port);
	snprintf(env[k++], PDK_PROXY_ENV_LEN, "ALL_PROXY=socks5h://127.0.0.1:%u", port);
	snprintf(env[k++], PDK_PROXY_ENV_LEN, "no_proxy=localhost,127.0.0.1,::1");
	snprintf(env[k++], PDK_PROXY_ENV_LEN, "NO_PROXY=localhost,127.0.0.1,::1");
	return (int)k;
}

int pdk_proxy_listen_exec(int ctl, char *const *argv)
{
	char env[PDK_PROXY_ENV_N][PDK_PROXY_ENV_LEN];
	unsigned port = 0;
	int fd, r;

	fd = listen_loopback(&port);
	if (fd < 0)
		return fd;
	if ((r = hand_over(ctl, fd)) < 0)
		return r;
	close(fd);
	close(ctl);
	pdk_proxy_env(port, env);
	for (size_t i = 0; i < PDK_PROXY_ENV_N; i++)
		if (putenv(env[i]) < 0)
			return -errno;
	execv(argv[0], argv);
	return -errno;
}
