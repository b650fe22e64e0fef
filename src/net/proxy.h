/* proxy.h - the network's domains mode: an HTTP (CONNECT and plain) and SOCKS5
 * proxy paddock runs outside the sandbox for one run, reaching listed domains only. */
#ifndef PDK_PROXY_H
#define PDK_PROXY_H

#include <stdbool.h>
#include <stddef.h>

struct pdk_proxy;

/* Does host (a name or an address literal, any case, maybe with a trailing
 * dot) match pattern ("registry.npmjs.org", or "*.pythonhosted.org": its
 * subdomains, not the name itself)? */
bool pdk_domain_matches(const char *pattern, const char *host);
/* A pattern paddock takes: a name of letters, digits, '-', '.', maybe after "*.";
 * or an address literal. */
bool pdk_domain_pattern_valid(const char *pattern);

/*
 * Start the proxy in threads of this process. It first receives, over ctl (a
 * unix socket, taken), the listening socket its client side made (inside the
 * sandbox's network namespace), then serves each connection accepted there:
 * reaching host:port outside for the domains patterns (copied) allow, and
 * refusing the others, which it remembers. An allowed name (or address literal)
 * is reached only at a public address (addr.h: pdk_addr_local_kind) or one the
 * local blocks hold ("127.0.0.1", "10.0.0.0/8"; parsed now: -EINVAL for a bad
 * one); a name that leads nowhere else is refused and remembered apart.
 * Returns 0 or -errno.
 */
int pdk_proxy_start(const char *const *domains, size_t n_domains, const char *const *local,
		    size_t n_local, int ctl, struct pdk_proxy **ret);
/* Stop serving, close every connection, wait for the threads. */
void pdk_proxy_stop(struct pdk_proxy *p);
/* The refused names, in the order first seen (at most 8); valid until free. */
size_t pdk_proxy_refused(const struct pdk_proxy *p, const char *const **ret);
/* The allowed names refused for where they led, "NAME (ADDRESS, KIND)", in the order first
 * seen (at most 8); valid until free. */
size_t pdk_proxy_refused_local(const struct pdk_proxy *p, const char *const **ret);
void pdk_proxy_free(struct pdk_proxy *p);

/*
 * The client side, in the sandbox (the hidden verb `paddock __proxy-listen FD
 * -- PROGRAM ARGS`): listen on 127.0.0.1, hand the socket to the proxy over
 * FD, point the proxy variables at it and execute PROGRAM. Returns only on
 * failure (-errno).
 */
int pdk_proxy_listen_exec(int ctl, char *const *argv);

/*
 * Without a network of the run's own (Landlock's connect supervisor), the
 * proxy listens on the host's loopback instead: pdk_proxy_listen_host makes
 * that socket (a port the kernel picks, in *port) and returns it or -errno;
 * pdk_proxy_hand gives the proxy a copy over ctl (the other end of the one
 * pdk_proxy_start reads), once a run.
 */
int pdk_proxy_listen_host(unsigned *port);
int pdk_proxy_hand(int ctl, int listen_fd);

/* The proxy variables for a proxy on 127.0.0.1:port, as NAME=VALUE entries:
 * HTTP_PROXY, HTTPS_PROXY, ALL_PROXY, NO_PROXY and their lower-case forms.
 * Returns how many (PDK_PROXY_ENV_N). */
#define PDK_PROXY_ENV_N 8
#define PDK_PROXY_ENV_LEN 64
int pdk_proxy_env(unsigned port, char env[PDK_PROXY_ENV_N][PDK_PROXY_ENV_LEN]);

#endif
