/* request.c - a run_command or recall_output arguments object, as the options
 * of `paddock run` or `paddock recall`: one check of every key and type. */
#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "agent.h"
#include "core/textclean.h"

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

int pdk_agent_run_args(const cJSON *args, struct pdk_strv *ret, char *why, size_t why_len)
{
	const cJSON *argv = NULL, *it;
	struct pdk_strv v = {0};
	char num[32], key[PDK_CLEAN_ROOM(KEY_SHOWN) + 1];
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
		} else if (strcmp(k, "outsideSandbox") == 0 || strcmp(k, "allowGitHooks") == 0) {
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

	push(&v, "--json", &r);
	it = cJSON_GetObjectItemCaseSensitive(args, "network");
	if (it && strcmp(it->valuestring, "full") == 0)
		push(&v, "--network", &r);
	it = cJSON_GetObjectItemCaseSensitive(args, "timeoutSeconds");
	if (it) {
		snprintf(num, sizeof(num), "%.0f", it->valuedouble);
		push(&v, "--timeout", &r);
		push(&v, num, &r);
	}
	it = cJSON_GetObjectItemCaseSensitive(args, "workingDirectory");
	if (it) {
		push(&v, "--cwd", &r);
		push(&v, it->valuestring, &r);
	}
	it = cJSON_GetObjectItemCaseSensitive(args, "outsideSandbox");
	if (it && cJSON_IsTrue(it))
		push(&v, "--outside-sandbox", &r);
	it = cJSON_GetObjectItemCaseSensitive(args, "allowGitHooks");
	if (it && cJSON_IsTrue(it))
		push(&v, "--allow-git-hooks", &r);
	const cJSON *e;
	it = cJSON_GetObjectItemCaseSensitive(args, "allowDomains");
	cJSON_ArrayForEach(e, it) {
		push(&v, "--allow-domain", &r);
		push(&v, e->valuestring, &r);
	}
	it = cJSON_GetObjectItemCaseSensitive(args, "writePaths");
	cJSON_ArrayForEach(e, it) {
		push(&v, "--write", &r);
		push(&v, e->valuestring, &r);
	}
	it = cJSON_GetObjectItemCaseSensitive(args, "readPaths");
	cJSON_ArrayForEach(e, it) {
		push(&v, "--read", &r);
		push(&v, e->valuestring, &r);
	}
	push(&v, "--", &r);
	cJSON_ArrayForEach(e, argv) push(&v, e->valuestring, &r);
	for (size_t i = 0; r == 0 && i < v.n; i++)
		r = pdk_strv_push(ret, v.v[i]);
	pdk_strv_release(&v);
	if (r < 0)
		snprintf(why, why_len, "out of memory");
	return r;
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
