/* cli_log.c - `paddock log`: the audit log read back, oldest first, filtered by
 * session, call, verdict and time; a line per event, or the events as JSON lines. */
#include <cjson/cJSON.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "audit/audit.h"
#include "cli.h"
#include "core/defaults.h"
#include "core/textclean.h"
#include "core/util.h"
#include "core/state.h"

static const char log_usage[] =
	"usage: paddock log [OPTIONS]\n"
	"  the audit log: what paddock decided, who approved, and how each call ended\n"
	"      --session NAME   only this session's calls\n"
	"      --call ID        only this call (its 8 hex digits)\n"
	"      --verdict V      only calls decided V: run, ask or refuse\n"
	"      --since TIME     from TIME on: 2026-12-02, 2026-12-02T07:40[:12] (UTC),\n"
	"                       or an age: 90s, 30m, 2h, 7d\n"
	"      --until TIME     before TIME (the same forms)\n"
	"      --json           each event as the JSON line it is kept as\n";

static const char *str(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

static bool yes(const cJSON *o, const char *key)
{
	return cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, key));
}

/* Text from the log (a command line, an error): one clean line, cut at 400 bytes. */
static void put_clean(FILE *f, const char *s)
{
	size_t len = s ? strlen(s) : 0;
	char buf[PDK_CLEAN_ROOM(400) + 1];

	if (len > 400)
		len = 400;
	buf[pdk_text_clean_line(s ? s : "", len, buf)] = '\0';
	fputs(buf, f);
	if (s && strlen(s) > 400)
		fputs("...", f);
}

static void put_decision(const cJSON *ev)
{
	const char *rule = str(ev, "rule");

	printf("decision: %s (%s%s%s) ", str(ev, "verdict") ? str(ev, "verdict") : "?",
	       str(ev, "risk") ? str(ev, "risk") : "?", rule ? ", " : "", rule ? rule : "");
	put_clean(stdout, str(ev, "command"));
	if (str(ev, "cwd")) {
		fputs(" in ", stdout);
		put_clean(stdout, str(ev, "cwd"));
	}
}

static void put_approval(const cJSON *ev)
{
	if (yes(ev, "approved")) {
		fputs("approval: approved by ", stdout);
		put_clean(stdout, str(ev, "by") ? str(ev, "by") : "?");
		if (yes(ev, "remembered"))
			fputs(", for the rest of the session", stdout);
	} else {
		fputs("approval: not approved", stdout);
		fputs(yes(ev, "asked") ? " (asked): " : " (no one was asked): ", stdout);
		put_clean(stdout, str(ev, "message"));
	}
}

static void put_outcome(const cJSON *ev)
{
	const cJSON *exit = cJSON_GetObjectItemCaseSensitive(ev, "exit");
	const cJSON *sig = cJSON_GetObjectItemCaseSensitive(ev, "signal");
	const cJSON *dur = cJSON_GetObjectItemCaseSensitive(ev, "duration");
	const cJSON *refusals = cJSON_GetObjectItemCaseSensitive(ev, "sandbox_refusals");
	const char *backend = str(ev, "backend"), *net = str(ev, "network");

	fputs("outcome: ", stdout);
	if (!yes(ev, "ran")) {
		printf("not run (%s): ", str(ev, "failure") ? str(ev, "failure") : "?");
		put_clean(stdout, str(ev, "error"));
		return;
	}
	if (cJSON_IsNumber(exit))
		printf("exit %d", exit->valueint);
	else if (cJSON_IsString(sig))
		printf("killed by %s", sig->valuestring);
	else if (cJSON_IsNumber(sig))
		printf("killed by signal %d", sig->valueint);
	if (cJSON_IsNumber(dur))
		printf(" after %.3g s", dur->valuedouble);
	if (yes(ev, "timed_out"))
		printf(", timed out");
	if (yes(ev, "timeout_clamped"))
		printf(", timeout clamped");
	if (str(ev, "stopped_by"))
		printf(", stopped by %s", str(ev, "stopped_by"));
	printf(", %s", str(ev, "confinement") ? str(ev, "confinement") : "?");
	if (backend)
		printf(" (%s)", backend);
	if (net)
		printf(", network %s", net);
	if (cJSON_GetArraySize(refusals) > 0)
		printf(", %d write%s refused", cJSON_GetArraySize(refusals),
		       cJSON_GetArraySize(refusals) == 1 ? "" : "s");
}

static int put_event(const cJSON *ev, void *ctx)
{
	bool json = *(bool *)ctx;
	const char *event = str(ev, "event");

	if (json) {
		_cleanup_free_ char *t = cJSON_PrintUnformatted(ev);

		if (!t)
			return -ENOMEM;
		puts(t);
		return 0;
	}
	printf("%s %s ", str(ev, "time"), str(ev, "call") ? str(ev, "call") : "-");
	put_clean(stdout, str(ev, "session") ? str(ev, "session") : "-");
	putchar(' ');
	if (event && strcmp(event, "decision") == 0)
		put_decision(ev);
	else if (event && strcmp(event, "approval") == 0)
		put_approval(ev);
	else if (event && strcmp(event, "outcome") == 0)
		put_outcome(ev);
	else
		put_clean(stdout, event ? event : "?");
	putchar('\n');
	return 0;
}

static int bad_time(const char *opt, const char *s)
{
	pdk_cli_error("log: %s '%s' is not a time: give 2026-12-02, 2026-12-02T07:40 or "
		      "2026-12-02T07:40:12 (UTC), or an age such as 90s, 30m, 2h or 7d",
		      opt, s);
	return PDK_EXIT_FAILURE;
}

int pdk_cli_log_main(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"session", required_argument, NULL, 's'}, {"call", required_argument, NULL, 'c'},
	    {"verdict", required_argument, NULL, 'v'}, {"since", required_argument, NULL, 'S'},
	    {"until", required_argument, NULL, 'U'},   {"json", no_argument, NULL, 'j'},
	    {"help", no_argument, NULL, 'h'},	       {NULL, 0, NULL, 0},
	};
	struct pdk_audit_filter f = {0};
	_cleanup_free_ char *dir = NULL, *log = NULL;
	double now = (double)time(NULL);
	bool json = false;
	size_t bad = 0;
	struct stat st;
	int c, r;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			if (!pdk_session_name_valid(optarg)) {
				pdk_cli_error("log: --session '%s' is not a session name (1 to 64 of "
					      "A-Z a-z 0-9 . _ -)",
					      optarg);
				return PDK_EXIT_FAILURE;
			}
			f.session = optarg;
			break;
		case 'c':
			if (strlen(optarg) != PDK_AUDIT_ID_LEN ||
			    strspn(optarg, "0123456789abcdef") != PDK_AUDIT_ID_LEN) {
				pdk_cli_error("log: --call '%s' is not a call id (8 hex digits, as "
					      "'paddock log' shows them)",
					      optarg);
				return PDK_EXIT_FAILURE;
			}
			f.call = optarg;
			break;
		case 'v':
			if (strcmp(optarg, "run") && strcmp(optarg, "ask") && strcmp(optarg, "refuse")) {
				pdk_cli_error("log: --verdict '%s' is not a verdict: give run, ask or "
					      "refuse",
					      optarg);
				return PDK_EXIT_FAILURE;
			}
			f.verdict = optarg;
			break;
		case 'S':
			if (pdk_audit_time_parse(optarg, now, &f.since) < 0)
				return bad_time("--since", optarg);
			break;
		case 'U':
			if (pdk_audit_time_parse(optarg, now, &f.until) < 0)
				return bad_time("--until", optarg);
			break;
		case 'j':
			json = true;
			break;
		case 'h':
			fputs(log_usage, stdout);
			return 0;
		case ':':
			pdk_cli_error("log: option '%s' needs a value", argv[optind - 1]);
			return PDK_EXIT_FAILURE;
		default:
			pdk_cli_error("log: unknown option '%s'; see 'paddock log --help'",
				      argv[optind - 1]);
			return PDK_EXIT_FAILURE;
		}
	}
	if (optind != argc) {
		pdk_cli_error("log: '%s' is not an option; filters are options, see 'paddock log "
			      "--help'",
			      argv[optind]);
		return PDK_EXIT_FAILURE;
	}
	if (!(dir = pdk_state_dir())) {
		pdk_cli_error("log: paddock has no state directory: set HOME or XDG_STATE_HOME");
		return PDK_EXIT_FAILURE;
	}
	if (asprintf(&log, "%s/" PDK_AUDIT_FILE, dir) < 0)
		return PDK_EXIT_FAILURE;
	if (stat(log, &st) < 0 && errno == ENOENT) {
		pdk_cli_error("log: nothing is logged yet: %s is made by the first 'paddock run'",
			      log);
		return 0;
	}
	r = pdk_audit_read(dir, PDK_AUDIT_KEEP, &f, put_event, &json, &bad);
	if (r < 0) {
		pdk_cli_error("log: reading %s: %s", log, strerror(-r));
		return PDK_EXIT_FAILURE;
	}
	if (bad)
		pdk_cli_error("log: %zu line%s of %s %s not an event and %s skipped", bad,
			      bad == 1 ? "" : "s", log, bad == 1 ? "was" : "were",
			      bad == 1 ? "was" : "were");
	if (fflush(stdout) != 0 || ferror(stdout)) {
		pdk_cli_error("log: writing: %s", strerror(errno));
		return PDK_EXIT_FAILURE;
	}
	return 0;
}
