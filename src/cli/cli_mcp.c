/* cli_mcp.c - `paddock mcp`: the Model Context Protocol server on stdio, with
 * the confinement options of `run` fixed for the server's life. */
#include <dirent.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "agent/agent.h"
#include "cli.h"
#include "cli_call.h"
#include "confine/backend.h"
#include "output/render.h"
#include "gate/session.h"
#include "output/store.h"

static const char mcp_usage[] =
	"usage: paddock mcp [OPTIONS]\n"
	"Serve the Model Context Protocol on stdin and stdout (one JSON-RPC message a line).\n"
	"  -w, --write PATH       also let every command write under PATH (not asked)\n"
	"      --root DIR         the writable project directory (default: the current one)\n"
	"      --backend NAME     confine with this backend (see 'paddock doctor')\n"
	"      --bound BYTES      the most a result may take (default 16K, 1K to 1M)\n"
	"      --config FILE      read only this configuration file\n"
	"      --no-zygote        set every call up afresh, not from the confined process kept\n"
	"                         per policy (the zygote: Landlock and bwrap, with a pids cgroup)\n"
	"See paddock(1).\n";

/* The server's own session ends with it: its cd and the programs approved
 * for it go (its kept outputs stay, for recall, until pruned). */
static void forget_session(void)
{
	char *dir = NULL;
	struct dirent *e;
	DIR *d;

	if (pdk_session_dir(NULL, &dir) < 0)
		return;
	if ((d = opendir(dir))) {
		while ((e = readdir(d)))
			if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
				unlinkat(dirfd(d), e->d_name, 0);
		closedir(d);
	}
	rmdir(dir);
	free(dir);
}

int pdk_cli_mcp_main(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"write", required_argument, NULL, 'w'},   {"root", required_argument, NULL, 'r'},
	    {"backend", required_argument, NULL, 'b'}, {"bound", required_argument, NULL, 'B'},
	    {"config", required_argument, NULL, 'c'},  {"help", no_argument, NULL, 'h'},
	    {"zygote", no_argument, NULL, 'z'},        {"no-zygote", no_argument, NULL, 'Z'},
	    {NULL, 0, NULL, 0},
	};
	struct pdk_agent_opts o = {0};
	struct pdk_config cfg;
	const char *session;
	size_t bound;
	bool own_session;
	int c, r, code = PDK_EXIT_FAILURE;

#ifdef __linux__
	/* PADDOCK_ZYGOTE=0 asks what --no-zygote does, for a server another program starts. */
	const char *zy = getenv("PADDOCK_ZYGOTE");

	o.zygote = !zy || strcmp(zy, "0") != 0;
#endif
	/* The words every call's run options start from, as run's own argv. */
	if (pdk_strv_push(&o.run_opts, "run") < 0) {
		pdk_cli_error("mcp: out of memory");
		goto out;
	}
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":w:h", opts, NULL)) != -1) {
		const char *flag = NULL;
		switch (c) {
		case 'w':
			flag = "--write";
			break;
		case 'r':
			flag = "--root";
			break;
		case 'b':
			flag = "--backend";
			break;
		case 'B':
			if (pdk_cli_parse_size(optarg, &bound) < 0 || bound < PDK_BOUND_MIN ||
			    bound > PDK_BOUND_MAX) {
				pdk_cli_error("mcp: --bound '%s' is out of range: give a number of "
					      "bytes from 1024 to 1048576 (or 1K to 1M)",
					      optarg);
				goto out;
			}
			flag = "--bound";
			break;
		case 'c':
			flag = "--config";
			o.config_path = optarg;
			break;
		case 'z':
		case 'Z':
			/* --zygote, the default, is still taken. */
#ifdef __linux__
			o.zygote = c == 'z';
#endif
			continue;
		case 'h':
			fputs(mcp_usage, stdout);
			code = 0;
			goto out;
		case ':':
			pdk_cli_error("mcp: option '%s' needs a value", argv[optind - 1]);
			goto out;
		default:
			pdk_cli_error("mcp: unknown option '%s'; see 'paddock mcp --help'",
				      argv[optind - 1]);
			goto out;
		}
		if (pdk_strv_push(&o.run_opts, flag) < 0 || pdk_strv_push(&o.run_opts, optarg) < 0) {
			pdk_cli_error("mcp: out of memory");
			goto out;
		}
	}
	if (optind != argc) {
		pdk_cli_error("mcp: unexpected argument '%s': the server takes options only; "
			      "commands come as run_command tool calls",
			      argv[optind]);
		goto out;
	}
	/* A bad configuration is said now, once, not on every call. */
	if (pdk_cli_config_load("mcp", o.config_path, true, &cfg) < 0)
		goto out;
	/* Read once: the calls use this, as they use the options, for the server's life. */
	o.config = &cfg;
	/* Whether each backend works here does not change either: found out once,
	 * every call's process inherits the verdicts. */
	for (size_t i = 0; pdk_backends[i]; i++)
		pdk_backend_usable(pdk_backends[i], NULL);
	if (pdk_session_name(&session) < 0) {
		pdk_cli_error("mcp: PADDOCK_SESSION must be 1 to 64 of A-Z a-z 0-9 . _ -; "
			      "set it to such a name or unset it");
		goto out;
	}
	/* The server's calls are one session: cd and approvals last as long as it
	 * does, unless PADDOCK_SESSION names one to share. */
	own_session = !getenv("PADDOCK_SESSION");
	if (own_session) {
		char name[64];
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		snprintf(name, sizeof(name), "mcp-%ld-%lx", (long)getpid(),
			 (unsigned long)ts.tv_nsec ^ (unsigned long)ts.tv_sec);
		setenv("PADDOCK_SESSION", name, 1);
	}
	r = pdk_agent_mcp_serve(&o, STDIN_FILENO, STDOUT_FILENO);
	if (own_session)
		forget_session();
	if (r < 0) {
		pdk_cli_error("mcp: %s", strerror(-r));
		goto out;
	}
	code = 0;
out:
	if (o.config)
		pdk_config_release(&cfg);
	pdk_strv_release(&o.run_opts);
	return code;
}
