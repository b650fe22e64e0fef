/* loopback.c - `make bench`: what a test suite does on the loopback, N times over:
 * connect to a server of its own, one byte there and back, close. */
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
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
			perror("loopback: write");
		close(c);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t len = sizeof(sa);
	int n = argc > 1 ? atoi(argv[1]) : 1000;
	pthread_t t;
	char b = 'x';

	srv = socket(AF_INET, SOCK_STREAM, 0);
	if (srv < 0 || bind(srv, (struct sockaddr *)&sa, len) < 0 || listen(srv, 128) < 0 ||
	    getsockname(srv, (struct sockaddr *)&sa, &len) < 0) {
		perror("loopback: server");
		return 1;
	}
	pthread_create(&t, NULL, serve, NULL);
	for (int i = 0; i < n; i++) {
		int c = socket(AF_INET, SOCK_STREAM, 0);

		if (c < 0 || connect(c, (struct sockaddr *)&sa, len) < 0 || write(c, &b, 1) != 1 ||
		    read(c, &b, 1) != 1) {
			perror("loopback: client");
			return 1;
		}
		close(c);
	}
	return 0;
}
