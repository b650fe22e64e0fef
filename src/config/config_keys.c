/* config_keys.c - the keys of a configuration file: each one's type and place in struct
 * pdk_config, a file's values applied onto the merged ones, null back to the built-in value. */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "config_int.h"
#include "core/defaults.h"
#include "core/util.h"

#define MAX_TIMEOUT   31536000.0
#define MAX_PROCS     4194304.0 /* the kernel's PID_MAX_LIMIT */
#define MIN_BOUND     ((double)PDK_BOUND_MIN)
#define MAX_BOUND     ((double)PDK_BOUND_MAX)
#define MAX_STORE_CAP 1099511627776.0

/* What a key's value is: how it is read, what it is stored as, how null resets it. */
enum key_type {
	T_SCHEMA,    /* "$schema", for editors: ignored */
	T_OBJECT,    /* keys of its own, in sub */
	T_BOOL,	     /* bool */
	T_COUNT,     /* unsigned long, in range */
	T_SECONDS,   /* double, in range */
	T_BYTES,     /* size_t, in range */
	T_MODE,	     /* enum pdk_approval_mode, by name */
	T_RISK,	     /* enum pdk_risk, by name */
	T_BACKEND,   /* char *: one of backends[] */
	T_PKG_MANAGER, /* char *: one of pkg_managers[] */
	T_PATH,	     /* char *: an absolute path */
	T_HOME_PATH, /* char *: an absolute path, or one starting with ~/ */
	T_TEXT,	     /* char *: one line of text */
	T_LIST,	     /* struct pdk_strv: strings, each as item says */
	T_PATTERN,   /* struct pdk_pattern */
	T_PATTERNS,  /* struct pdk_pattern *, with the count at off_n */
	T_RULES,     /* the risk rules, appended to cfg->risk_rules */
};

struct key {
	const char *name;
	enum key_type type;
	size_t off, size;      /* where the value goes in the target, and its size */
	size_t off_n;	       /* T_PATTERNS: where their count goes */
	const struct key *sub; /* T_OBJECT */
	size_t n_sub;
	enum pdk_config_item item;	      /* T_LIST: what each entry must be */
	const struct pdk_config_range *range; /* T_COUNT, T_SECONDS, T_BYTES */
	enum pdk_config_seen seen;	      /* kept for check_merged() */
};

/* A risk rule while its keys are read. */
struct rule_build {
	struct pdk_risk_rule rule;
	bool has_match, has_class;
};

#define AT(type, field) .off = offsetof(type, field), .size = sizeof(((type *)0)->field)
/* A key of struct pdk_config; the optional rest sets .item, .range, .seen or .off_n. */
#define CFG(name_, type_, field, ...)                                                              \
	{                                                                                          \
		.name = name_, .type = type_, AT(struct pdk_config, field), __VA_ARGS__            \
	}
#define RULE(name_, type_, field)                                                                  \
	{                                                                                          \
		.name = name_, .type = type_, AT(struct rule_build, rule.field)                    \
	}
#define OBJ(name_, keys)                                                                           \
	{                                                                                          \
		.name = name_, .type = T_OBJECT, .sub = keys, .n_sub = PDK_ARRAY_SIZE(keys)        \
	}

static const struct pdk_config_range procs_range = {1, true, MAX_PROCS, true, "processes"};
static const struct pdk_config_range seconds_range = {0, false, MAX_TIMEOUT, false, "seconds"};
static const struct pdk_config_range bound_range = {MIN_BOUND, true, MAX_BOUND, true, "bytes"};
static const struct pdk_config_range store_cap_range = {MIN_BOUND, true, MAX_STORE_CAP, true,
							"bytes"};

static const struct pdk_config_range trash_age_range = {0, true, PDK_TRASH_MAX_AGE_MAX, true,
							"days"};
static const struct pdk_config_range trash_size_range = {0, true, (double)PDK_TRASH_MAX_SIZE_MAX,
							 true, "bytes"};

static const struct key sandbox_keys[] = {
    CFG("enabled", T_BOOL, sandbox_enabled),
    CFG("allowNetwork", T_BOOL, allow_network),
    CFG("writablePaths", T_LIST, writable_paths, .item = PDK_CONFIG_ITEM_ABS_OR_HOME),
    CFG("allowedDomains", T_LIST, allowed_domains, .item = PDK_CONFIG_ITEM_DOMAIN),
    CFG("allowUnixSockets", T_LIST, allow_unix_sockets, .item = PDK_CONFIG_ITEM_ABS_OR_HOME),
    CFG("allowLocalAddresses", T_LIST, allow_local_addresses, .item = PDK_CONFIG_ITEM_ADDRESS),
    CFG("allowOutsideSandbox", T_BOOL, allow_outside_sandbox),
    CFG("allowSshAgent", T_BOOL, allow_ssh_agent),
    CFG("allowDocker", T_BOOL, allow_docker),
    CFG("allowGpu", T_BOOL, allow_gpu),
    CFG("backend", T_BACKEND, backend),
    CFG("bwrap", T_PATH, bwrap),
    CFG("maxProcesses", T_COUNT, max_procs, .range = &procs_range),
    CFG("toolCaches", T_BOOL, tool_caches),
    CFG("denyRead", T_LIST, deny_read, .item = PDK_CONFIG_ITEM_READ),
    CFG("allowRead", T_LIST, allow_read, .item = PDK_CONFIG_ITEM_READ),
};
static const struct key policy_keys[] = {
    CFG("deny", T_PATTERNS, deny, .off_n = offsetof(struct pdk_config, n_deny)),
    CFG("allow", T_PATTERNS, allow, .off_n = offsetof(struct pdk_config, n_allow)),
    OBJ("sandbox", sandbox_keys),
};
static const struct key timeout_keys[] = {
    CFG("default", T_SECONDS, timeout_default, .range = &seconds_range,
	.seen = PDK_CONFIG_SEEN_T_DEFAULT),
    CFG("cap", T_SECONDS, timeout_cap, .range = &seconds_range),
};
static const struct key output_keys[] = {
    CFG("bound", T_BYTES, bound, .range = &bound_range, .seen = PDK_CONFIG_SEEN_BOUND),
    CFG("storeCap", T_BYTES, store_cap, .range = &store_cap_range,
	.seen = PDK_CONFIG_SEEN_STORE_CAP),
    CFG("storeDir", T_HOME_PATH, store_dir),
};
static const struct key trash_keys[] = {
    CFG("maxAgeDays", T_COUNT, trash_max_age_days, .range = &trash_age_range),
    CFG("maxSize", T_BYTES, trash_max_size, .range = &trash_size_range),
};
static const struct key approval_keys[] = {
    CFG("mode", T_MODE, approval_mode, .seen = PDK_CONFIG_SEEN_MODE),
    CFG("threshold", T_RISK, threshold),
    CFG("command", T_HOME_PATH, approval_command),
    CFG("outOfBand", T_BOOL, approval_out_of_band),
};
static const struct key pkg_keys[] = {
    CFG("manager", T_PKG_MANAGER, pkg_manager),
};
static const struct key top_keys[] = {
    {.name = "$schema", .type = T_SCHEMA},
    OBJ("commandPolicy", policy_keys),
    CFG("read_only_command", T_LIST, read_only_command, .item = PDK_CONFIG_ITEM_READ_ONLY),
    CFG("denied_command", T_LIST, denied_command, .item = PDK_CONFIG_ITEM_PROGRAM),
    CFG("sensitive_paths", T_LIST, sensitive_paths, .item = PDK_CONFIG_ITEM_HOME),
    CFG("protected_paths", T_LIST, protected_paths, .item = PDK_CONFIG_ITEM_PROTECTED),
    CFG("env", T_LIST, env, .item = PDK_CONFIG_ITEM_ENV),
    OBJ("timeouts", timeout_keys),
    OBJ("output", output_keys),
    OBJ("trash", trash_keys),
    OBJ("approval", approval_keys),
    OBJ("pkg", pkg_keys),
    CFG("risk", T_RULES, risk_rules),
};
static const struct key rule_keys[] = {
    RULE("name", T_TEXT, name),
    RULE("match", T_PATTERN, match),
    RULE("class", T_RISK, risk),
    RULE("why", T_TEXT, why),
};

static const char *const backends[] = {"bwrap", "landlock", "seatbelt"};
static const char *const pkg_managers[] = {"apt", "dnf", "yum", "pacman", "apk"};
static const char *const modes[] = {"ask", "deny", "allow", "command"};
static const enum pdk_approval_mode mode_values[] = {
    PDK_APPROVAL_ASK,
    PDK_APPROVAL_DENY,
    PDK_APPROVAL_ALLOW,
    PDK_APPROVAL_COMMAND,
};

static void set_str(char **field, char *s)
{
	free(*field);
	*field = s;
}

/* null sets a key back to its built-in value (an object: every key in it; a list: empty,
 * the shipped lists still apply). */
static void reset_key(struct pdk_config *cfg, const struct key *k)
{
	char *at = (char *)cfg + k->off;
	struct pdk_config d;

	pdk_config_init(&d);
	for (size_t i = 0; i < k->n_sub; i++)
		reset_key(cfg, &k->sub[i]);
	switch (k->type) {
	case T_SCHEMA:
	case T_OBJECT:
		break;
	case T_BOOL:
	case T_COUNT:
	case T_SECONDS:
	case T_BYTES:
	case T_MODE:
	case T_RISK:
		memcpy(at, (char *)&d + k->off, k->size);
		break;
	case T_BACKEND:
	case T_PKG_MANAGER:
	case T_PATH:
	case T_HOME_PATH:
	case T_TEXT:
		set_str((char **)at, NULL);
		break;
	case T_LIST:
		pdk_strv_release((struct pdk_strv *)at);
		break;
	case T_PATTERN:
		pdk_pattern_release((struct pdk_pattern *)at);
		break;
	case T_PATTERNS:
		pdk_config_patterns_release((struct pdk_pattern **)at,
					    (size_t *)((char *)cfg + k->off_n));
		break;
	case T_RULES:
		pdk_config_rules_release(cfg);
		break;
	}
}

/* Edit distance, for "did you mean": small strings only. */
static size_t distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), row[65];

	if (la > 64 || lb > 64)
		return SIZE_MAX;
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t diag = row[0];

		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t up = row[j], cost = diag + ((a[i - 1] | 32) != (b[j - 1] | 32));

			row[j] = cost < up + 1 ? cost : up + 1;
			if (row[j - 1] + 1 < row[j])
				row[j] = row[j - 1] + 1;
			diag = up;
		}
	}
	return row[lb];
}

static int warn_unknown(struct pdk_config_loader *ld, const cJSON *c, const char *path,
			const struct key *keys, size_t n)
{
	char list[512] = "", guess[96] = "", name[96], p[PDK_CONFIG_PATH_LEN];
	size_t best = 3;

	for (size_t i = 0; i < n; i++) {
		size_t d;

		if (keys[i].type == T_SCHEMA)
			continue;
		pdk_config_append(list, sizeof(list), "%s%s", list[0] ? ", " : "", keys[i].name);
		d = distance(c->string, keys[i].name);
		if (d < best) {
			best = d;
			snprintf(guess, sizeof(guess), " (did you mean '%s'?)", keys[i].name);
		}
	}
	snprintf(p, sizeof(p), "%s%s", path, path[0] ? "." : "");
	return pdk_config_warn(ld, c, "unknown key '%s%s' ignored%s; the keys here are: %s", p,
			       pdk_config_clean(name, sizeof(name), c->string), guess, list);
}

/* How walk_object() stores a value other than an object: into cfg, or into a rule. */
typedef int (*set_fn)(struct pdk_config_loader *ld, void *target, const struct key *k,
		      const cJSON *v, const char *path);

static int walk_object(struct pdk_config_loader *ld, const cJSON *obj, const char *path,
		       const struct key *keys, size_t n, void *target, set_fn set)
{
	for (const cJSON *c = obj->child; c; c = c->next) {
		const struct key *k = NULL;
		const cJSON *twin = NULL;
		char sub[PDK_CONFIG_PATH_LEN], name[96];
		int r = 0;

		snprintf(sub, sizeof(sub), "%s%s%s", path, path[0] ? "." : "", c->string);
		for (const cJSON *t = c->next; t; t = t->next)
			if (strcmp(t->string, c->string) == 0)
				twin = t;
		if (twin) {
			char w[PDK_CONFIG_WHERE_LEN];

			pdk_config_where(ld, twin, true, w, sizeof(w));
			r = pdk_config_warn(ld, c,
					    "duplicate key '%s%s%s' ignored; the later one at %s "
					    "wins",
					    path, path[0] ? "." : "",
					    pdk_config_clean(name, sizeof(name), c->string), w);
			if (r < 0)
				return r;
			continue;
		}
		for (size_t i = 0; i < n && !k; i++)
			if (strcmp(keys[i].name, c->string) == 0)
				k = &keys[i];
		if (!k)
			r = warn_unknown(ld, c, path, keys, n);
		else if (k->type == T_SCHEMA)
			continue;
		else if (cJSON_IsNull(c) && target == ld->cfg)
			reset_key(ld->cfg, k);
		else if (k->sub && !cJSON_IsObject(c))
			r = pdk_config_type_error(ld, c, sub, "an object",
						  "write an object: { \"key\": value }");
		else if (k->sub)
			r = walk_object(ld, c, sub, k->sub, k->n_sub, target, set);
		else
			r = set(ld, target, k, c, sub);
		if (r < 0)
			return r;
	}
	return 0;
}

static int set_value(struct pdk_config_loader *ld, void *target, const struct key *k,
		     const cJSON *v, const char *path);

static int set_rule_key(struct pdk_config_loader *ld, void *target, const struct key *k,
			const cJSON *v, const char *path)
{
	struct rule_build *b = target;
	int r;

	if (cJSON_IsNull(v)) /* not set; the checks for required keys follow */
		return 0;
	r = set_value(ld, target, k, v, path);
	if (r == 0 && k->type == T_PATTERN)
		b->has_match = true;
	if (r == 0 && k->type == T_RISK)
		b->has_class = true;
	return r;
}

static int get_rules(struct pdk_config_loader *ld, const cJSON *v, const char *path)
{
	struct pdk_config *cfg = ld->cfg;
	const cJSON *c;
	size_t i = 0;
	int r;

	if (!cJSON_IsArray(v))
		return pdk_config_type_error(
		    ld, v, path, "an array of rules",
		    "write [ { \"name\": ..., \"match\": ..., \"class\": ..., "
		    "\"why\": ... } ]");
	for (c = v->child; c; c = c->next, i++) {
		struct rule_build b = {0};
		struct pdk_risk_rule *arr;
		char sub[PDK_CONFIG_PATH_LEN];
		const char *missing;

		snprintf(sub, sizeof(sub), "%s[%zu]", path, i);
		if (!cJSON_IsObject(c))
			return pdk_config_type_error(
			    ld, c, sub, "an object",
			    "write { \"name\": ..., \"match\": ..., \"class\": ..., "
			    "\"why\": ... }");
		r = walk_object(ld, c, sub, rule_keys, PDK_ARRAY_SIZE(rule_keys), &b, set_rule_key);
		missing = !b.rule.name	 ? "name"
			  : !b.has_match ? "match"
			  : !b.has_class ? "class"
					 : NULL;
		if (r == 0 && missing)
			r = pdk_config_fail(
			    ld, c, sub,
			    "the rule has no '%s'; every rule needs name, match and "
			    "class (why is optional)",
			    missing);
		if (r == 0 && !b.rule.why &&
		    asprintf(&b.rule.why, "matches the risk rule '%s'", b.rule.name) < 0)
			r = -ENOMEM;
		arr = r == 0 ? realloc(cfg->risk_rules, (cfg->n_risk_rules + 1) * sizeof(*arr))
			     : NULL;
		if (r == 0 && !arr)
			r = -ENOMEM;
		if (r != 0) {
			pdk_config_rule_release(&b.rule);
			return r;
		}
		cfg->risk_rules = arr;
		arr[cfg->n_risk_rules++] = b.rule;
	}
	return 0;
}

/* A value other than null into the target (cfg, or a rule being read) where the key says. */
static int set_value(struct pdk_config_loader *ld, void *target, const struct key *k,
		     const cJSON *v, const char *path)
{
	char *at = (char *)target + k->off, *s = NULL;
	const char *text;
	double d;
	int r = 0, i;

	switch (k->type) {
	case T_SCHEMA:
	case T_OBJECT:
		break;
	case T_BOOL:
		r = pdk_config_get_bool(ld, v, path, (bool *)at);
		break;
	case T_COUNT:
	case T_SECONDS:
	case T_BYTES:
		r = pdk_config_get_number(ld, v, path, k->range, &d);
		if (r < 0)
			return r;
		if (k->type == T_COUNT)
			*(unsigned long *)at = (unsigned long)d;
		else if (k->type == T_BYTES)
			*(size_t *)at = (size_t)d;
		else
			*(double *)at = d;
		break;
	case T_MODE:
		r = pdk_config_get_enum(ld, v, path, modes, PDK_ARRAY_SIZE(modes), "", &i);
		if (r == 0)
			*(enum pdk_approval_mode *)at = mode_values[i];
		break;
	case T_RISK:
		r = pdk_config_get_enum(ld, v, path, pdk_config_risk_names,
					PDK_ARRAY_SIZE(pdk_config_risk_names), "", &i);
		if (r == 0)
			*(enum pdk_risk *)at = (enum pdk_risk)i;
		break;
	case T_BACKEND:
		r = pdk_config_get_enum(ld, v, path, backends, PDK_ARRAY_SIZE(backends),
					", or null for the first that works here", &i);
		if (r < 0)
			return r;
		if (!(s = strdup(backends[i])))
			return -ENOMEM;
		set_str((char **)at, s);
		break;
	case T_PKG_MANAGER:
		r = pdk_config_get_enum(ld, v, path, pkg_managers, PDK_ARRAY_SIZE(pkg_managers),
					", or null to detect it", &i);
		if (r < 0)
			return r;
		if (!(s = strdup(pkg_managers[i])))
			return -ENOMEM;
		set_str((char **)at, s);
		break;
	case T_PATH:
	case T_HOME_PATH:
		r = pdk_config_get_abs_path(ld, v, path, k->type == T_HOME_PATH, &s);
		if (r == 0)
			set_str((char **)at, s);
		break;
	case T_TEXT:
		r = pdk_config_get_string(ld, v, path, &text);
		if (r < 0)
			return r;
		if (!(s = strdup(text)))
			return -ENOMEM;
		set_str((char **)at, s);
		break;
	case T_LIST:
		r = pdk_config_get_list(ld, v, path, (struct pdk_strv *)at, k->item);
		break;
	case T_PATTERN:
		r = pdk_config_get_string(ld, v, path, &text);
		if (r < 0)
			return r;
		pdk_pattern_release((struct pdk_pattern *)at);
		r = pdk_config_get_pattern(ld, v, path, text, (struct pdk_pattern *)at);
		break;
	case T_PATTERNS:
		r = pdk_config_get_patterns(ld, v, path, (struct pdk_pattern **)at,
					    (size_t *)((char *)target + k->off_n));
		break;
	case T_RULES:
		r = get_rules(ld, v, path);
		break;
	}
	if (r == 0 && k->seen)
		ld->seen[k->seen] = v;
	return r;
}

/* The rules that span two keys, checked on the merged values after each file. */
static int check_merged(struct pdk_config_loader *ld)
{
	struct pdk_config *cfg = ld->cfg;

	if (cfg->timeout_default > cfg->timeout_cap) {
		/* A file that lowers only the cap lowers the default with it. */
		if (!ld->seen[PDK_CONFIG_SEEN_T_DEFAULT])
			cfg->timeout_default = cfg->timeout_cap;
		else
			return pdk_config_fail(
			    ld, ld->seen[PDK_CONFIG_SEEN_T_DEFAULT], "timeouts.default",
			    "%g seconds is above "
			    "timeouts.cap (%g); lower the default or raise the cap",
			    cfg->timeout_default, cfg->timeout_cap);
	}
	if (cfg->store_cap < cfg->bound) {
		if (ld->seen[PDK_CONFIG_SEEN_STORE_CAP])
			return pdk_config_fail(
			    ld, ld->seen[PDK_CONFIG_SEEN_STORE_CAP], "output.storeCap",
			    "%zu bytes is below "
			    "output.bound (%zu); keep at least one bound's worth",
			    cfg->store_cap, cfg->bound);
		return pdk_config_fail(ld, ld->seen[PDK_CONFIG_SEEN_BOUND], "output.bound",
				       "%zu bytes is above output.storeCap "
				       "(%zu); lower the bound or raise storeCap",
				       cfg->bound, cfg->store_cap);
	}
	if (cfg->approval_mode == PDK_APPROVAL_COMMAND && !cfg->approval_command)
		return pdk_config_fail(
		    ld, ld->seen[PDK_CONFIG_SEEN_MODE],
		    ld->seen[PDK_CONFIG_SEEN_MODE] ? "approval.mode" : "approval.command",
		    "mode \"command\" needs approval.command, the absolute path of the "
		    "program that approves; set it or choose another mode");
	return 0;
}

int pdk_config_apply(struct pdk_config_loader *ld)
{
	int r;

	if (!cJSON_IsObject(ld->root))
		return pdk_config_fail(ld, ld->root, "",
				       "the top level is %s; a configuration is one object: "
				       "{ \"commandPolicy\": { ... }, ... }",
				       pdk_config_type_name(ld->root));
	r = walk_object(ld, ld->root, "", top_keys, PDK_ARRAY_SIZE(top_keys), ld->cfg, set_value);
	if (r == 0)
		r = check_merged(ld);
	return r;
}
