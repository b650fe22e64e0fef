/* config.c - paddock's configuration: built-in defaults, the files and how they merge, and
 * the small public helpers (string lists, patterns, risk names) the rest of paddock uses. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "config_int.h"
#include "core/defaults.h"
#include "core/path.h"
#include "core/util.h"

#ifndef PDK_SYSTEM_CONFIG
#define PDK_SYSTEM_CONFIG "/etc/paddock/config.json"
#endif

#define MAX_FILE_BYTES (4u << 20)

/* ---- small public helpers ---- */

const char *const pdk_config_risk_names[PDK_RISK_DANGEROUS + 1] = {
    [PDK_RISK_SAFE] = "safe",
    [PDK_RISK_MODERATE] = "moderate",
    [PDK_RISK_DANGEROUS] = "dangerous",
};

const char *pdk_risk_name(enum pdk_risk r)
{
	if ((unsigned)r < PDK_ARRAY_SIZE(pdk_config_risk_names))
		return pdk_config_risk_names[r];
	return "unknown";
}

int pdk_risk_parse(const char *s, enum pdk_risk *ret)
{
	for (size_t i = 0; s && i < PDK_ARRAY_SIZE(pdk_config_risk_names); i++)
		if (strcmp(s, pdk_config_risk_names[i]) == 0) {
			*ret = (enum pdk_risk)i;
			return 0;
		}
	return -EINVAL;
}

int pdk_pattern_compile(struct pdk_pattern *p, const char *src, const char *where, char *why,
			size_t why_len)
{
	int code;
	PCRE2_SIZE off;
	pcre2_code *re;
	char *s, *w;

	memset(p, 0, sizeof(*p));
	/* Byte semantics (no UTF): command lines are bytes, and a pattern must never fail to
	 * match because a file name is not valid UTF-8. */
	re = pcre2_compile((PCRE2_SPTR)src, PCRE2_ZERO_TERMINATED, 0, &code, &off, NULL);
	if (!re) {
		PCRE2_UCHAR msg[160];

		if (pcre2_get_error_message(code, msg, sizeof(msg)) < 0)
			snprintf((char *)msg, sizeof(msg), "error %d", code);
		if (why && why_len)
			snprintf(why, why_len, "invalid pattern '%.80s%s': %s at offset %zu", src,
				 strlen(src) > 80 ? "..." : "", (char *)msg, (size_t)off);
		return -EINVAL;
	}
	s = strdup(src);
	w = strdup(where ? where : "built-in");
	if (!s || !w) {
		free(s);
		free(w);
		pcre2_code_free(re);
		return -ENOMEM;
	}
	p->source = s;
	p->where = w;
	p->re = re;
	return 0;
}

void pdk_pattern_release(struct pdk_pattern *p)
{
	free(p->source);
	free(p->where);
	pcre2_code_free(p->re);
	memset(p, 0, sizeof(*p));
}

bool pdk_pattern_match(const struct pdk_pattern *p, const char *text, size_t len)
{
	/* One pair of offsets is enough to learn whether it matched; kept per thread so a
	 * decision over many commands does not allocate per match. */
	static __thread pcre2_match_data *md;
	int rc;

	if (!p->re)
		return false;
	if (!md)
		md = pcre2_match_data_create(1, NULL);
	/* A pattern that cannot decide (no memory, a match limit) counts as matching: deny
	 * and risk rules then fail closed. */
	if (!md)
		return true;
	rc = pcre2_match(p->re, (PCRE2_SPTR)(text ? text : ""), text ? len : 0, 0, 0, md, NULL);
	return rc != PCRE2_ERROR_NOMATCH;
}

/* ---- defaults and release ---- */

void pdk_config_init(struct pdk_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->sandbox_enabled = true;
	cfg->tool_caches = true;
	cfg->timeout_default = PDK_TIMEOUT_DEFAULT;
	cfg->timeout_cap = PDK_TIMEOUT_CAP;
	cfg->bound = PDK_BOUND_DEFAULT;
	cfg->store_cap = PDK_STORE_CAP_DEFAULT;
	cfg->trash_max_age_days = PDK_TRASH_MAX_AGE_DEFAULT;
	cfg->trash_max_size = (size_t)PDK_TRASH_MAX_SIZE_DEFAULT;
	cfg->approval_mode = PDK_APPROVAL_AUTO;
	cfg->approval_out_of_band = true;
	cfg->threshold = PDK_RISK_MODERATE;
}

void pdk_config_patterns_release(struct pdk_pattern **v, size_t *n)
{
	for (size_t i = 0; i < *n; i++)
		pdk_pattern_release(&(*v)[i]);
	free(*v);
	*v = NULL;
	*n = 0;
}

void pdk_config_rule_release(struct pdk_risk_rule *r)
{
	free(r->name);
	free(r->why);
	pdk_pattern_release(&r->match);
	memset(r, 0, sizeof(*r));
}

void pdk_config_rules_release(struct pdk_config *cfg)
{
	for (size_t i = 0; i < cfg->n_risk_rules; i++)
		pdk_config_rule_release(&cfg->risk_rules[i]);
	free(cfg->risk_rules);
	cfg->risk_rules = NULL;
	cfg->n_risk_rules = 0;
}

void pdk_config_release(struct pdk_config *cfg)
{
	pdk_config_patterns_release(&cfg->deny, &cfg->n_deny);
	pdk_config_patterns_release(&cfg->allow, &cfg->n_allow);
	pdk_strv_release(&cfg->writable_paths);
	pdk_strv_release(&cfg->allowed_domains);
	pdk_strv_release(&cfg->allow_unix_sockets);
	pdk_strv_release(&cfg->allow_local_addresses);
	pdk_strv_release(&cfg->deny_read);
	pdk_strv_release(&cfg->allow_read);
	free(cfg->backend);
	free(cfg->pkg_manager);
	free(cfg->bwrap);
	pdk_strv_release(&cfg->read_only_command);
	pdk_strv_release(&cfg->denied_command);
	pdk_strv_release(&cfg->sensitive_paths);
	pdk_strv_release(&cfg->protected_paths);
	pdk_strv_release(&cfg->env);
	free(cfg->store_dir);
	free(cfg->approval_command);
	pdk_config_rules_release(cfg);
	pdk_strv_release(&cfg->files);
	memset(cfg, 0, sizeof(*cfg));
}

/* ---- loading a file ---- */

static int read_all(const char *path, bool must_exist, char **ret, size_t *ret_len, char *why,
		    size_t why_len)
{
	_cleanup_close_ int fd = -1;
	struct stat st;
	int r;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		int e = errno;

		if ((e == ENOENT || e == ENOTDIR) && !must_exist)
			return 0;
		snprintf(why, why_len, "%s: cannot open the configuration: %s; check the path",
			 path, strerror(e));
		return -e;
	}
	if (fstat(fd, &st) < 0) {
		int e = errno;

		snprintf(why, why_len, "%s: cannot read the configuration: %s", path, strerror(e));
		return -e;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(why, why_len, "%s: not a regular file; point at a JSON file", path);
		return -EINVAL;
	}
	if (st.st_size > MAX_FILE_BYTES) {
		snprintf(why, why_len, "%s: larger than %u bytes; a configuration is much smaller",
			 path, MAX_FILE_BYTES);
		return -EFBIG;
	}
	/* Up to the size fstat gave: the file may have grown since. */
	r = pdk_read_size(fd, (size_t)st.st_size, ret, ret_len);
	if (r < 0) {
		snprintf(why, why_len, "%s: cannot read the configuration: %s", path, strerror(-r));
		return r;
	}
	return 1;
}

static int load_text(struct pdk_config *cfg, const char *file, const char *text, size_t len,
		     void (*warn)(void *ctx, const char *line), void *ctx, char *why,
		     size_t why_len)
{
	struct pdk_config_loader ld = {.cfg = cfg,
				       .file = file,
				       .text = text,
				       .len = len,
				       .warn = warn,
				       .ctx = ctx,
				       .why = why,
				       .why_len = why_len};
	int r;

	r = pdk_config_parse(&ld);
	if (r < 0)
		return r;
	r = pdk_config_apply(&ld);
	if (r == -ENOMEM)
		snprintf(why, why_len, "%s: out of memory", file);
	cJSON_Delete(ld.root);
	free(ld.pos);
	return r;
}

int pdk_config_load_file(struct pdk_config *cfg, const char *path, bool must_exist,
			 void (*warn)(void *ctx, const char *line), void *ctx, char *why,
			 size_t why_len)
{
	_cleanup_free_ char *text = NULL;
	char dummy[1];
	size_t len = 0;
	int r;

	if (!why || !why_len) {
		why = dummy;
		why_len = sizeof(dummy);
	}
	r = read_all(path, must_exist, &text, &len, why, why_len);
	if (r <= 0)
		return r;
	r = load_text(cfg, path, text, len, warn, ctx, why, why_len);
	if (r < 0)
		return r;
	return pdk_strv_push(&cfg->files, path);
}

int pdk_config_load(struct pdk_config *cfg, const char *path,
		    void (*warn)(void *ctx, const char *line), void *ctx, char *why, size_t why_len)
{
	_cleanup_free_ char *dir = NULL, *user = NULL;
	int r;

	if (path)
		return pdk_config_load_file(cfg, path, true, warn, ctx, why, why_len);
	r = pdk_config_load_file(cfg, PDK_SYSTEM_CONFIG, false, warn, ctx, why, why_len);
	if (r < 0 || !(dir = pdk_config_user_dir()))
		return r;
	if (!(user = pdk_path_join(dir, "config.json")))
		return -ENOMEM;
	return pdk_config_load_file(cfg, user, false, warn, ctx, why, why_len);
}

char *pdk_config_user_dir(void)
{
	const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
	char *dir = NULL;

	/* XDG: a relative $XDG_CONFIG_HOME is invalid and is ignored. */
	if (xdg && xdg[0] == '/')
		dir = pdk_path_join(xdg, "paddock");
	else if (home && home[0] == '/')
		dir = pdk_path_join(home, ".config/paddock");
	return dir;
}
