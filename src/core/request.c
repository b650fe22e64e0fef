/* request.c - one call, however it arrived: what a request owns, released
 * (the faces fill it: cli/cli_opts.c, agent/request.c). */
#include <stdlib.h>

#include "request.h"

void pdk_request_release(struct pdk_request *o)
{
	free(o->argv_alloc);
	o->argv_alloc = NULL;
	free(o->writes);
	o->writes = NULL;
	free(o->domains);
	o->domains = NULL;
	free(o->reads);
	o->reads = NULL;
}
