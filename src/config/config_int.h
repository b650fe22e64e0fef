/* config_int.h - what the configuration's files share among themselves (config.c, config_pos.c,
 * config_value.c, config_keys.c); not installed and not part of the API in config.h. */
#ifndef PDK_CONFIG_INT_H
#define PDK_CONFIG_INT_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "config.h"

#define PDK_CONFIG_PATH_LEN  256	 /* a key path: "commandPolicy.deny[3]" */
#define PDK_CONFIG_WHERE_LEN (4096 + 32) /* "FILE:LINE:COL" */

/* The keys whose values check_merged() (config_keys.c) weighs against each other: which node
 * of the file being read set each one. */
enum pdk_config_seen {
	PDK_CONFIG_SEEN_NONE,
	PDK_CONFIG_SEEN_T_DEFAULT,
	PDK_CONFIG_SEEN_BOUND,
	PDK_CONFIG_SEEN_STORE_CAP,
	PDK_CONFIG_SEEN_MODE,
	PDK_CONFIG_SEEN_N,
};

/* Where a node of the file starts: its value, and its key's opening quote (SIZE_MAX when it
 * has none). */
struct pdk_config_pos {
	const cJSON *node;
	size_t val;
	size_t key;
};

/* One file being read into cfg. */
struct pdk_config_loader {
	struct pdk_config *cfg;
	const char *file;
	const char *text;
	size_t len;
	cJSON *root;		    /* the tree, from pdk_config_parse() */
	struct pdk_config_pos *pos; /* NULL when positions are not known */
	size_t n_pos, pos_hint;
	size_t lc_off; /* the last offset line_col() counted to, and its line:col */
	int lc_line, lc_col;
	void (*warn)(void *ctx, const char *line);
	void *ctx;
	char *why;
	size_t why_len;
	const cJSON *seen[PDK_CONFIG_SEEN_N]; /* NULL: this file did not set it */
};

/* config.c */
extern const char *const pdk_config_risk_names[PDK_RISK_DANGEROUS + 1];
void pdk_config_patterns_release(struct pdk_pattern **v, size_t *n);
void pdk_config_rule_release(struct pdk_risk_rule *r);
void pdk_config_rules_release(struct pdk_config *cfg);

/* config_pos.c: the text into a cJSON tree (ld->root) with each node's position (ld->pos);
 * the caller frees both. -EINVAL with ld->why on bad JSON, or -ENOMEM. */
int pdk_config_parse(struct pdk_config_loader *ld);
/* "FILE:LINE:COL" of a node's value (or of its key). */
void pdk_config_where(struct pdk_config_loader *ld, const cJSON *node, bool at_key, char *buf,
		      size_t n);
/* ld->why = "FILE:LINE:COL: PATH: message" at the node (NULL: the top); returns -EINVAL. */
int pdk_config_fail(struct pdk_config_loader *ld, const cJSON *at, const char *path,
		    const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* One line to ld->warn, at the node's key. 0, or -ENOMEM. */
int pdk_config_warn(struct pdk_config_loader *ld, const cJSON *at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* A user's text for a message: one line, printable, not too long. Returns buf. */
const char *pdk_config_clean(char *buf, size_t n, const char *s);
/* Append to a string in a buffer of size bytes; returns its old length. */
size_t pdk_config_append(char *buf, size_t size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* config_value.c: a JSON value read as the type its key wants. Each returns 0, -ENOMEM, or
 * -EINVAL after pdk_config_fail() said what is wrong and what to write instead. */
struct pdk_config_range {
	double min;
	bool min_inclusive;
	double max;
	bool integer;
	const char *unit;
};

/* What each entry of a list of strings must be, and how it is kept. */
enum pdk_config_item {
	PDK_CONFIG_ITEM_TEXT,	     /* one line of text, as written */
	PDK_CONFIG_ITEM_ABS_OR_HOME, /* an absolute path, or ~/... expanded */
	PDK_CONFIG_ITEM_HOME,	     /* ~ and ~/... expanded, anything else as written */
	PDK_CONFIG_ITEM_PROGRAM,     /* a bare program name */
	PDK_CONFIG_ITEM_READ_ONLY,   /* a program and at most two arguments: "git status" */
	PDK_CONFIG_ITEM_PROTECTED,   /* a relative name inside a root, without a trailing / */
	PDK_CONFIG_ITEM_ENV,	     /* a variable-name pattern, without '=' */
	PDK_CONFIG_ITEM_DOMAIN,	     /* a domain pattern: "registry.npmjs.org", "*.pythonhosted.org" */
	PDK_CONFIG_ITEM_ADDRESS,     /* an IP address or CIDR block: "127.0.0.1", "fd00::/8" */
	PDK_CONFIG_ITEM_READ,	     /* a path pattern: absolute, ~/... or a name in a root */
};

const char *pdk_config_type_name(const cJSON *v);
int pdk_config_type_error(struct pdk_config_loader *ld, const cJSON *v, const char *path,
			  const char *want, const char *hint);
int pdk_config_get_string(struct pdk_config_loader *ld, const cJSON *v, const char *path,
			  const char **ret);
int pdk_config_get_abs_path(struct pdk_config_loader *ld, const cJSON *v, const char *path,
			    bool tilde, char **ret);
int pdk_config_get_bool(struct pdk_config_loader *ld, const cJSON *v, const char *path, bool *ret);
int pdk_config_get_number(struct pdk_config_loader *ld, const cJSON *v, const char *path,
			  const struct pdk_config_range *range, double *ret);
int pdk_config_get_enum(struct pdk_config_loader *ld, const cJSON *v, const char *path,
			const char *const *names, size_t n, const char *extra, int *ret);
int pdk_config_get_list(struct pdk_config_loader *ld, const cJSON *v, const char *path,
			struct pdk_strv *sv, enum pdk_config_item item);
/* Compile the string v (src) into p; the message of a bad pattern names its key. */
int pdk_config_get_pattern(struct pdk_config_loader *ld, const cJSON *v, const char *path,
			   const char *src, struct pdk_pattern *p);
int pdk_config_get_patterns(struct pdk_config_loader *ld, const cJSON *v, const char *path,
			    struct pdk_pattern **arr, size_t *n);

/* config_keys.c: the parsed root object of one file into ld->cfg, key by key, then the checks
 * that span two keys on the merged values. */
int pdk_config_apply(struct pdk_config_loader *ld);

#endif
