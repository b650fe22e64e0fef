/* unix.c - `make bench`: what a test suite does with a unix socket of its own, N times
 * over: connect to its server on a path in the working directory, a byte there and back. */
#include <pthread.h>
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
			perror("unix: write");
		close(c);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	int n = argc > 1 ? atoi(argv[1]) : 1000;
	pthread_t t;
	char b = 'x';

	snprintf(sa.sun_path, sizeof(sa.sun_path), "bench-%d.sock", (int)getpid());
	srv = socket(AF_UNIX, SOCK_STREAM, 0);
	if (srv < 0 || bind(srv, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(srv, 128) < 0) {
		perror("unix: server");
		return 1;
	}
	pthread_create(&t, NULL, serve, NULL);
	for (int i = 0; i < n; i++) {
		int c = socket(AF_UNIX, SOCK_STREAM, 0);

		if (c < 0 || connect(c, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
		    write(c, &b, 1) != 1 || read(c, &b, 1) != 1) {
			perror("unix: client");
			unlink(sa.sun_path);
			return 1;
		}
		close(c);
	}
	unlink(sa.sun_path);
	return 0;
}
