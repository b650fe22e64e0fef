/* request.c - a run_command arguments object into the request every face fills,
 * recall_output's and pkg_manage's into their verbs' options: one check of every key. */
#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent.h"
#include "core/request.h"
#include "core/textclean.h"
#include "net/proxy.h"

#define KEY_SHOWN 64 /* bytes of an unknown key a refusal quotes */

static int push(struct pdk_strv *v, const char *s, int *r)
{
	if (*r == 0 && pdk_strv_push(v, s) < 0)
		*r = -ENOMEM;
	return *r;
}

__attribute__((format(printf, 3, 4))) static int bad(char *why, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, len, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* An unknown key as a refusal quotes it: its start, cut on a character,
 * cleaned (escape sequences removed, control characters and bad bytes as
 * \xNN), so that the refusal stays one line of valid UTF-8. */
static const char *shown_key(const char *k, char buf[PDK_CLEAN_ROOM(KEY_SHOWN) + 1])
{
	size_t n = pdk_text_clean_line(k, pdk_text_prefix(k, strlen(k), KEY_SHOWN), buf);

	buf[n] = '\0';
	return buf;
}

/* A string with no NUL hidden in it (cJSON keeps the bytes before one). */
static bool plain_string(const cJSON *it)
{
	return cJSON_IsString(it) && it->valuestring;
}

static int string_array(const cJSON *it, const char *key, bool need_one, char *why, size_t len)
{
	const cJSON *e;

	if (!cJSON_IsArray(it))
		return bad(why, len, "'%s' must be an array of strings", key);
	if (need_one && cJSON_GetArraySize(it) == 0)
		return bad(why, len, "'%s' is empty: give the program and its arguments, as in "
				     "[\"ls\", \"-l\"]",
			   key);
	cJSON_ArrayForEach(e, it) if (!plain_string(e)) return bad(
	    why, len, "'%s' must be an array of strings; one element is not a string", key);
	return 0;
}

/* Append the strings of a checked array to list (grown; n counts). */
static int add_strings(const cJSON *arr, const char ***list, size_t *n)
{
	const cJSON *e;
	size_t k = (size_t)cJSON_GetArraySize(arr);
	const char **grown;

	if (!k)
		return 0;
	if (!(grown = realloc(*list, (*n + k) * sizeof(*grown))))
		return -ENOMEM;
	*list = grown;
	cJSON_ArrayForEach(e, arr) grown[(*n)++] = e->valuestring;
	return 0;
}

/* The checked arguments into the request, its strings borrowed from args. */
static int fill_run(const cJSON *args, const cJSON *argv, struct pdk_request *req, char *why,
		    size_t why_len)
{
	const cJSON *it, *e;
	size_t n = 0;

	it = cJSON_GetObjectItemCaseSensitive(args, "allowDomains");
	cJSON_ArrayForEach(e, it) if (!pdk_domain_pattern_valid(e->valuestring)) return bad(
	    why, why_len, "'allowDomains' holds '%.200s', which is not a domain: give a name "
			  "such as registry.npmjs.org or *.pythonhosted.org",
	    e->valuestring);
	req->json = true;
	it = cJSON_GetObjectItemCaseSensitive(args, "network");
	if (it && strcmp(it->valuestring, "full") == 0)
		req->network = true;
	if ((it = cJSON_GetObjectItemCaseSensitive(args, "timeoutSeconds")))
		req->timeout_asked = it->valuedouble;
	if ((it = cJSON_GetObjectItemCaseSensitive(args, "workingDirectory")))
		req->cwd = it->valuestring;
	if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(args, "outsideSandbox")))
		req->outside_sandbox = true;
	if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(args, "allowGitHooks")))
		req->allow_git_hooks = true;
	if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(args, "sshAgent")))
		req->ssh_agent = true;
	if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(args, "docker")))
		req->docker = true;
	if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(args, "gpu")))
		req->gpu = true;
	if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(args, "allowAgentConfig")))
		req->allow_agent_config = true;
	if (add_strings(cJSON_GetObjectItemCaseSensitive(args, "allowDomains"), &req->domains,
			&req->n_domains) < 0 ||
	    add_strings(cJSON_GetObjectItemCaseSensitive(args, "readPaths"), &req->reads,
			&req->n_reads) < 0 ||
	    add_strings(cJSON_GetObjectItemCaseSensitive(args, "writePaths"), &req->writes,
			&req->n_writes) < 0)
		goto oom;
	free(req->argv_alloc);
	if (!(req->argv_alloc = calloc((size_t)cJSON_GetArraySize(argv) + 1, sizeof(char *))))
		goto oom;
	cJSON_ArrayForEach(e, argv) req->argv_alloc[n++] = e->valuestring;
	req->argv = req->argv_alloc;
	return 0;
oom:
	snprintf(why, why_len, "out of memory");
	return -ENOMEM;
}

int pdk_agent_run_request(const cJSON *args, struct pdk_request *req, char *why, size_t why_len)
{
	const cJSON *argv = NULL, *it;
	char key[PDK_CLEAN_ROOM(KEY_SHOWN) + 1];
	int r = 0;

	*why = '\0';
	if (!cJSON_IsObject(args))
		return bad(why, why_len, "the arguments must be a JSON object with %s",
			   "at least \"argv\" (an array of strings)");
	/* Every key checked before any is used: the first wrong one is named. */
	cJSON_ArrayForEach(it, args) {
		const char *k = it->string;
		if (strcmp(k, "argv") == 0) {
			if ((r = string_array(it, k, true, why, why_len)) < 0)
				return r;
			argv = it;
		} else if (strcmp(k, "network") == 0) {
			if (!plain_string(it) || (strcmp(it->valuestring, "off") != 0 &&
						  strcmp(it->valuestring, "domains") != 0 &&
						  strcmp(it->valuestring, "full") != 0))
				return bad(why, why_len,
					   "'%s' must be \"off\", \"domains\" (with allowDomains) or "
					   "\"full\"",
					   k);
		} else if (strcmp(k, "allowDomains") == 0) {
			if ((r = string_array(it, k, false, why, why_len)) < 0)
				return r;
		} else if (strcmp(k, "writePaths") == 0 || strcmp(k, "readPaths") == 0) {
			if ((r = string_array(it, k, false, why, why_len)) < 0)
				return r;
		} else if (strcmp(k, "timeoutSeconds") == 0) {
			if (!cJSON_IsNumber(it) || it->valuedouble != floor(it->valuedouble) ||
			    it->valuedouble < 1 || it->valuedouble > 1e6)
				return bad(why, why_len, "'%s' must be a whole number of seconds, "
							 "1 or more",
					   k);
		} else if (strcmp(k, "workingDirectory") == 0) {
			if (!plain_string(it) || !*it->valuestring)
				return bad(why, why_len, "'%s' must be a non-empty string (a "
							 "directory)",
					   k);
		} else if (strcmp(k, "outsideSandbox") == 0 || strcmp(k, "allowGitHooks") == 0 ||
			   strcmp(k, "sshAgent") == 0 || strcmp(k, "docker") == 0 ||
			   strcmp(k, "gpu") == 0 ||
			   strcmp(k, "allowAgentConfig") == 0) {
			if (!cJSON_IsBool(it))
				return bad(why, why_len, "'%s' must be true or false", k);
		} else {
			snprintf(why, why_len, "unknown key '%s'; the keys are " PDK_AGENT_RUN_KEYS,
				 shown_key(k, key));
			return -EINVAL;
		}
	}
	if (!argv)
		return bad(why, why_len, "'%s' is missing: give the program and its arguments as "
					 "an array of strings, as in {\"argv\": [\"ls\", \"-l\"]}",
			   "argv");
	if (!*cJSON_GetArrayItem(argv, 0)->valuestring)
		return bad(why, why_len, "the program name (%s[0]) is empty", "argv");
	/* allowDomains is the domains mode's list: with "off" or "full" it would
	 * mean nothing, and saying so beats ignoring it. */
	it = cJSON_GetObjectItemCaseSensitive(args, "network");
	if (it && strcmp(it->valuestring, "domains") != 0 &&
	    cJSON_GetObjectItemCaseSensitive(args, "allowDomains"))
		return bad(why, why_len, "'allowDomains' goes with \"network\": \"domains\", not "
					 "\"%s\"; drop one of them",
			   it->valuestring);

	return fill_run(args, argv, req, why, why_len);
}

int pdk_agent_recall_args(const cJSON *args, struct pdk_strv *ret, char *why, size_t why_len)
{
	const cJSON *id = NULL, *it;
	char num[32], key[PDK_CLEAN_ROOM(KEY_SHOWN) + 1];
	int r = 0;

	*why = '\0';
	if (!cJSON_IsObject(args))
		return bad(why, why_len, "the arguments must be a JSON object with %s",
			   "\"id\" (the output id of a 'held back:' note)");
	cJSON_ArrayForEach(it, args) {
		const char *k = it->string;
		if (strcmp(k, "id") == 0) {
			if (!plain_string(it))
				return bad(why, why_len, "'%s' must be a string: the 8 hex digits "
							 "of a 'held back:' note",
					   k);
			id = it;
		} else if (strcmp(k, "from") == 0) {
			if (!cJSON_IsNumber(it) || it->valuedouble != floor(it->valuedouble) ||
			    it->valuedouble < 1 || it->valuedouble > 1e15)
				return bad(why, why_len, "'%s' must be a line number, 1 or more", k);
		} else if (strcmp(k, "match") == 0) {
			if (!plain_string(it) || !*it->valuestring)
				return bad(why, why_len, "'%s' must be a non-empty string (a "
							 "regular expression)",
					   k);
		} else if (strcmp(k, "summary") == 0) {
			if (!cJSON_IsBool(it))
				return bad(why, why_len, "'%s' must be true or false", k);
		} else {
			snprintf(why, why_len, "unknown key '%s'; the keys are id, from, match, "
					       "summary",
				 shown_key(k, key));
			return -EINVAL;
		}
	}
	if (!id)
		return bad(why, why_len, "'%s' is missing: give the output id of a 'held back:' "
					 "note, as in {\"id\": \"0a1b2c3d\"}",
			   "id");
	it = cJSON_GetObjectItemCaseSensitive(args, "from");
	if (it) {
		snprintf(num, sizeof(num), "%.0f", it->valuedouble);
		push(ret, "--from", &r);
		push(ret, num, &r);
	}
	it = cJSON_GetObjectItemCaseSensitive(args, "match");
	if (it) {
		push(ret, "--match", &r);
		push(ret, it->valuestring, &r);
	}
	it = cJSON_GetObjectItemCaseSensitive(args, "summary");
	if (it && cJSON_IsTrue(it))
		push(ret, "--summary", &r);
	push(ret, "--", &r);
	push(ret, id->valuestring, &r);
	if (r < 0)
		snprintf(why, why_len, "out of memory");
	return r;
}

int pdk_agent_pkg_args(const cJSON *args, struct pdk_strv *ret, char *why, size_t why_len)
{
	static const char *const actions[] = {"install", "remove", "update",
					      "upgrade", "search", "info"};
	const cJSON *action = NULL, *package = NULL, *it;
	char key[PDK_CLEAN_ROOM(KEY_SHOWN) + 1];
	bool known = false;
	int r = 0;

	*why = '\0';
	if (!cJSON_IsObject(args))
		return bad(why, why_len, "the arguments must be a JSON object with %s",
			   "\"action\" and, but for update and upgrade, \"package\"");
	cJSON_ArrayForEach(it, args) {
		const char *k = it->string;
		if (strcmp(k, "action") == 0) {
			for (size_t i = 0; plain_string(it) && i < sizeof(actions) / sizeof(*actions);
			     i++)
				known = known || strcmp(it->valuestring, actions[i]) == 0;
			if (!known)
				return bad(why, why_len, "'%s' must be one of \"install\", \"remove\", "
							 "\"update\", \"upgrade\", \"search\", "
							 "\"info\"",
					   k);
			action = it;
		} else if (strcmp(k, "package") == 0) {
			if (!plain_string(it))
				return bad(why, why_len, "'%s' must be a string: one bare package "
							 "name, as in \"hello\"",
					   k);
			package = it;
		} else {
			snprintf(why, why_len, "unknown key '%s'; the keys are " PDK_AGENT_PKG_KEYS,
				 shown_key(k, key));
			return -EINVAL;
		}
	}
	if (!action)
		return bad(why, why_len, "'%s' is missing: give one of install, remove, update, "
					 "upgrade, search, info, as in {\"action\": \"search\", "
					 "\"package\": \"hello\"}",
			   "action");
	push(ret, "--json", &r);
	push(ret, "--", &r);
	push(ret, action->valuestring, &r);
	if (package)
		push(ret, package->valuestring, &r);
	if (r < 0)
		snprintf(why, why_len, "out of memory");
	return r;
}
