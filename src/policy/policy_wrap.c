/* policy_wrap.c - the wrappers the policy looks through (env, nice, timeout,
 * xargs...): their options, where the program starts; variables that steer lookup. */
#include <string.h>

#include "policy_int.h"

bool pdk_policy_is_assignment(const char *s)
{
	size_t l = strcspn(s, "=");

	return s[l] && pdk_policy_is_assignment_name(s, l);
}

/* Is the name (len bytes) a variable that changes which program a bare name
 * runs, or what a shell runs first? */
bool pdk_policy_steering_name(const char *s, size_t l)
{
	static const char *const names[] = {
	    "PATH",	"BASH_ENV",	  "ENV",	  "LD_PRELOAD", "LD_LIBRARY_PATH",
	    "LD_AUDIT", "SHELLOPTS",	  "BASHOPTS",	  "PS4",	"PROMPT_COMMAND",
	    "BASH_CMDS", "BASH_ALIASES", "EXECIGNORE", "PS0",	"PS1",
	    "PS2",	NULL};

	for (const char *const *n = names; *n; n++)
		if (strlen(*n) == l && !strncmp(s, *n, l))
			return true;
	return l >= 10 && !strncmp(s, "BASH_FUNC_", 10);
}

/* NAME=, NAME+=, NAME[...]= and NAME=(...) of such a variable. */
bool pdk_policy_steering_assignment(const char *s)
{
	size_t l = strcspn(s, "+=[");

	if (!s[l] || !pdk_policy_is_assignment_name(s, l))
		return false;
	return pdk_policy_steering_name(s, l);
}

bool pdk_policy_is_assignment_name(const char *s, size_t l)
{
	if (!l || !(*s == '_' || (*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z')))
		return false;
	for (size_t i = 1; i < l; i++)
		if (!(s[i] == '_' || (s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= 'a' && s[i] <= 'z') ||
		      (s[i] >= '0' && s[i] <= '9')))
			return false;
	return true;
}

static const char *const env_long[] = {"unset", "chdir", "split-string", NULL};
static const char *const nice_long[] = {"adjustment", NULL};
static const char *const ionice_long[] = {"class", "classdata", "pid", "pgid", "uid", NULL};
static const char *const timeout_long[] = {"signal", "kill-after", NULL};
static const char *const time_long[] = {"format", "output", NULL};
static const char *const stdbuf_long[] = {"input", "output", "error", NULL};
static const char *const flock_long[] = {"timeout", "wait", "conflict-exit-code", NULL};
static const char *const chrt_long[] = {"sched-runtime", "sched-deadline", "sched-period", NULL};
static const char *const taskset_long[] = {"cpu-list", NULL};
static const char *const xargs_long[] = {"arg-file",  "delimiter",	  "max-args", "max-procs",
					 "max-chars", "process-slot-var", NULL};
static const char *const parallel_long[] = {"jobs",   "sshlogin", "arg-file",	      "delimiter",
					    "colsep", "max-args", "max-replace-args", "timeout",
					    "joblog", "results",  "workdir",	      NULL};

static const struct pdk_wrapper wrappers[] = {
    {"env", "uCS", env_long, 0, PDK_W_ENV},
    /* Multi-call binaries: the applet is the next word. */
    {"busybox", "", NULL, 0, 0},
    {"toybox", "", NULL, 0, 0},
    {"nice", "n", nice_long, 0, 0},
    {"ionice", "cnP", ionice_long, 0, PDK_W_PID},
    {"nohup", "", NULL, 0, 0},
    {"timeout", "sk", timeout_long, 1, 0},
    {"time", "fo", time_long, 0, 0},
    {"stdbuf", "ioe", stdbuf_long, 0, 0},
    {"setsid", "", NULL, 0, 0},
    {"flock", "wEc", flock_long, 1, PDK_W_WRITES},
    {"chrt", "TPD", chrt_long, 1, PDK_W_PID},
    {"taskset", "", taskset_long, 1, PDK_W_PID},
    {"command", "", NULL, 0, 0},
    {"builtin", "", NULL, 0, 0},
    {"exec", "a", NULL, 0, 0},
    {"xargs", "adEILnPs", xargs_long, 0, 0},
    {"parallel", "jNnLPSIdaE", parallel_long, 0, 0},
};

/* Where the program starts after a wrapper's options; opt collects the
 * options seen (by letter) so callers can act on -p, -S, -c, -o. */
size_t pdk_policy_wrapper_skip(const struct pdk_wrapper *wr, const struct pdk_pword *w, size_t n,
			       bool seen[128], size_t *optarg_at)
{
	size_t i = 1;

	while (i < n) {
		const char *s = w[i].s;

		if (!strcmp(s, "--")) {
			i++;
			break;
		}
		if (!strcmp(s, "-") && !strcmp(wr->name, "env")) {
			i++;
			continue;
		}
		if (s[0] == '-' && s[1] == '-') {
			const char *eq = strchr(s + 2, '=');
			size_t l = eq ? (size_t)(eq - s - 2) : strlen(s + 2);
			bool takes = false;

			for (const char *const *p = wr->long_argopts; p && *p; p++)
				if (strlen(*p) == l && !strncmp(*p, s + 2, l))
					takes = true;
			if (!strncmp(s + 2, "split-string", l) && l)
				seen['S'] = true;
			if (!strncmp(s + 2, "output", l) && l)
				seen['o'] = true;
			if (!strncmp(s + 2, "command", l) && l > 2) {
				seen['c'] = true;
				*optarg_at = eq ? SIZE_MAX : i + 1;
				i += eq ? 1 : 2;
				continue;
			}
			i += (takes && !eq) ? 2 : 1;
			continue;
		}
		if (s[0] == '-' && s[1]) {
			bool consumed = false;

			for (const char *c = s + 1; *c; c++) {
				if ((unsigned char)*c < 128)
					seen[(unsigned char)*c] = true;
				if (*c && strchr(wr->argopts, *c)) {
					if (*c == 'c' || *c == 'S')
						*optarg_at = c[1] ? SIZE_MAX : i + 1;
					consumed = !c[1];
					break;
				}
			}
			i += consumed ? 2 : 1;
			continue;
		}
		if ((wr->flags & PDK_W_ENV) && pdk_policy_is_assignment(s)) {
			i++;
			continue;
		}
		break;
	}
	return i + wr->npos;
}

const struct pdk_wrapper *pdk_policy_wrapper(const char *prog)
{
	for (size_t i = 0; i < PDK_ARRAY_SIZE(wrappers); i++)
		if (!strcmp(prog, wrappers[i].name))
			return &wrappers[i];
	return NULL;
}
