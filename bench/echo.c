/* echo.c - `make bench`: what a test suite does with a server of its own, N times over:
 * connect to it (on the loopback, or on a unix socket path in the working directory), one
 * byte there and back, close. Usage: echo tcp|unix [N]. */
#include <netinet/in.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static int srv;

static void *serve(void *p)
{
	char b;

	(void)p;
	for (;;) {
		int c = accept(srv, NULL, NULL);

		if (c < 0)
			continue;
		if (read(c, &b, 1) == 1 && write(c, &b, 1) != 1)
			perror("echo: write");
		close(c);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	union {
		struct sockaddr sa;
		struct sockaddr_in in;
		struct sockaddr_un un;
	} a = {0};
	bool unix_path = argc > 1 && !strcmp(argv[1], "unix");
	int family = unix_path ? AF_UNIX : AF_INET;
	socklen_t len = unix_path ? sizeof(a.un) : sizeof(a.in);
	int n = argc > 2 ? atoi(argv[2]) : 1000;
	pthread_t t;
	char b = 'x';

	if (argc < 2 || (!unix_path && strcmp(argv[1], "tcp"))) {
		fprintf(stderr, "usage: echo tcp|unix [N]\n");
		return 2;
	}
	if (unix_path) {
		a.un.sun_family = AF_UNIX;
		snprintf(a.un.sun_path, sizeof(a.un.sun_path), "bench-%d.sock", (int)getpid());
	} else {
		a.in.sin_family = AF_INET;
		a.in.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	}
	srv = socket(family, SOCK_STREAM, 0);
	if (srv < 0 || bind(srv, &a.sa, len) < 0 || listen(srv, 128) < 0 ||
	    getsockname(srv, &a.sa, &len) < 0) {
		perror("echo: server");
		return 1;
	}
	pthread_create(&t, NULL, serve, NULL);
	for (int i = 0; i < n; i++) {
		int c = socket(family, SOCK_STREAM, 0);

		if (c < 0 || connect(c, &a.sa, len) < 0 || write(c, &b, 1) != 1 ||
		    read(c, &b, 1) != 1) {
			perror("echo: client");
			n = -1;
			break;
		}
		close(c);
	}
	if (unix_path)
		unlink(a.un.sun_path);
	return n < 0;
}
