/* reap_main.c - paddock-reap, the command's reaper inside bwrap's sandbox
 * (src/run/reap.h): a program of its own, so that any caller of the backend
 * can start it. */
#include "reap.h"

int main(int argc, char **argv)
{
	return pdk_reap_main(argc, argv);
}
