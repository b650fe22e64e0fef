/* approvals.c - out-of-band approvals: the request waiting for a person as a
 * file in paddock's state directory, and the answer bound to it by a digest. */
#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "approvals.h"
#include "core/fmt.h"
#include "core/path.h"
#include "core/sha256.h"
#include "core/util.h"
#include "core/state.h"

#define FILE_MAX (64u << 10)

bool pdk_approval_id_valid(const char *id)
{
	size_t i;

	for (i = 0; id && id[i]; i++)
		if (!((id[i] >= '0' && id[i] <= '9') || (id[i] >= 'a' && id[i] <= 'f')))
			return false;
	return id && i == PDK_APPROVAL_ID_LEN;
}

/* Our own private directory, made when make. */
static int approvals_dir(bool make, char **ret)
{
	_cleanup_free_ char *state = pdk_state_dir(), *dir = NULL;
	struct stat st;
	int r;

	if (!state)
		return -ENOENT;
	if (!(dir = pdk_path_join(state, "approvals")))
		return -ENOMEM;
	if (make && (r = pdk_mkdir_p(dir, 0700)) < 0)
		return r;
	if (lstat(dir, &st) < 0)
		return pdk_neg_errno();
	if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 077))
		return -ENOTDIR;
	*ret = steal_pointer(&dir);
	return 0;
}

static void digest_of(const struct pdk_gate_request *rq, char out[65])
{
	struct pdk_sha256 s;
	const char *parts[] = {rq->line, rq->cwd, rq->d && rq->d->ask ? rq->d->ask : "",
			       rq->outside_sandbox ? "outside" : "inside"};

	pdk_sha256_init(&s);
	for (size_t i = 0; i < PDK_ARRAY_SIZE(parts); i++)
		pdk_sha256_add(&s, parts[i] ? parts[i] : "", strlen(parts[i] ? parts[i] : "") + 1);
	for (size_t i = 0; i < rq->n_password_paths; i++)
		pdk_sha256_add(&s, rq->password_paths[i], strlen(rq->password_paths[i]) + 1);
	pdk_sha256_hex(&s, out);
}

/* text into dir/name, whole or not at all: a temp file, then link (no
 * replace) or rename. */
static int put_file(const char *dir, const char *name, const char *text, bool exclusive)
{
	_cleanup_free_ char *tmp = pdk_asprintf("%s/.%s.%ld.tmp", dir, name, (long)getpid());
	_cleanup_free_ char *path = pdk_path_join(dir, name);
	size_t len = strlen(text);
	int fd, r = 0;

	if (!tmp || !path)
		return -ENOMEM;
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	if (write(fd, text, len) != (ssize_t)len || fsync(fd) < 0)
		r = -EIO;
	close(fd);
	if (r == 0 && (exclusive ? link(tmp, path) : rename(tmp, path)) < 0)
		r = -errno;
	unlink(tmp);
	return r;
}

static cJSON *read_json(const char *dir, const char *name)
{
	_cleanup_free_ char *path = pdk_path_join(dir, name);
	char buf[FILE_MAX];
	ssize_t n;
	int fd;

	if (!path || (fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		return NULL;
	n = read(fd, buf, sizeof(buf));
	close(fd);
	return n > 0 ? cJSON_ParseWithLength(buf, (size_t)n) : NULL;
}

static const char *str(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

int pdk_approval_publish(const struct pdk_gate_request *rq, struct pdk_approval *ret)
{
	struct pdk_approval a = {0};
	unsigned char raw[PDK_APPROVAL_ID_LEN / 2];
	_cleanup_free_ char *name = NULL;
	cJSON *o;
	char *text;
	int r;

	if ((r = approvals_dir(true, &a.dir)) < 0)
		return r;
	if (getentropy(raw, sizeof(raw)) < 0) {
		free(a.dir);
		return -EIO;
	}
	for (size_t i = 0; i < sizeof(raw); i++)
		snprintf(a.id + 2 * i, 3, "%02x", raw[i]);
	digest_of(rq, a.digest);
	o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "id", a.id);
	cJSON_AddStringToObject(o, "digest", a.digest);
	cJSON_AddStringToObject(o, "command", rq->line);
	cJSON_AddStringToObject(o, "cwd", rq->cwd ? rq->cwd : "");
	cJSON_AddStringToObject(o, "needs", rq->d && rq->d->ask ? rq->d->ask : "");
	cJSON_AddStringToObject(o, "session", rq->session ? rq->session : "");
	cJSON_AddNumberToObject(o, "pid", getpid());
	cJSON_AddNumberToObject(o, "created", (double)time(NULL));
	text = o ? cJSON_PrintUnformatted(o) : NULL;
	cJSON_Delete(o);
	name = pdk_asprintf("%s.json", a.id);
	r = !text || !name ? -ENOMEM : put_file(a.dir, name, text, true);
	cJSON_free(text);
	if (r < 0) {
		free(a.dir);
		return r;
	}
	*ret = a;
	return 0;
}

int pdk_approval_poll(const struct pdk_approval *a, const char **by)
{
	_cleanup_free_ char *name = pdk_asprintf("%s.answer", a->id);
	cJSON *o = name ? read_json(a->dir, name) : NULL;
	const char *id = str(o, "id"), *digest = str(o, "digest"), *answer = str(o, "answer");
	int r = -EAGAIN;

	if (id && digest && answer && strcmp(id, a->id) == 0 && strcmp(digest, a->digest) == 0) {
		r = strcmp(answer, "approve") == 0 ? 1 : 0;
		*by = "the person, with 'paddock approvals'";
	}
	cJSON_Delete(o);
	return r;
}

static int put_answer(const char *dir, const char *id, const char *digest, bool approve,
		      const char *by)
{
	_cleanup_free_ char *name = pdk_asprintf("%s.answer", id);
	cJSON *o = cJSON_CreateObject();
	char *text;
	int r;

	cJSON_AddStringToObject(o, "id", id);
	cJSON_AddStringToObject(o, "digest", digest);
	cJSON_AddStringToObject(o, "answer", approve ? "approve" : "deny");
	cJSON_AddStringToObject(o, "by", by);
	text = o ? cJSON_PrintUnformatted(o) : NULL;
	cJSON_Delete(o);
	r = !text || !name ? -ENOMEM : put_file(dir, name, text, true);
	cJSON_free(text);
	return r;
}

int pdk_approval_claim(const struct pdk_approval *a, bool approve)
{
	return put_answer(a->dir, a->id, a->digest, approve, "dialog");
}

static void remove_request(const char *dir, const char *id)
{
	const char *suffixes[] = {".json", ".answer"};

	for (size_t i = 0; i < PDK_ARRAY_SIZE(suffixes); i++) {
		_cleanup_free_ char *path = pdk_asprintf("%s/%s%s", dir, id, suffixes[i]);
		if (path)
			unlink(path);
	}
}

void pdk_approval_withdraw(struct pdk_approval *a)
{
	if (!a->dir)
		return;
	remove_request(a->dir, a->id);
	free(a->dir);
	a->dir = NULL;
}

static bool process_alive(pid_t pid)
{
	return pid > 0 && (kill(pid, 0) == 0 || errno == EPERM);
}

static int by_created(const void *x, const void *y)
{
	const struct pdk_approval_info *a = x, *b = y;

	return a->created < b->created ? -1 : a->created > b->created ? 1 : strcmp(a->id, b->id);
}

int pdk_approvals_list(struct pdk_approval_info **ret, size_t *ret_n)
{
	_cleanup_free_ char *dir = NULL;
	struct pdk_approval_info *v = NULL;
	size_t n = 0;
	struct dirent *e;
	DIR *d;
	int r;

	*ret = NULL;
	*ret_n = 0;
	r = approvals_dir(false, &dir);
	if (r == -ENOENT)
		return 0;
	if (r < 0)
		return r;
	if (!(d = opendir(dir)))
		return -errno;
	while ((e = readdir(d))) {
		char id[PDK_APPROVAL_ID_LEN + 1];
		size_t len = strlen(e->d_name);

		if (len != PDK_APPROVAL_ID_LEN + 5 || strcmp(e->d_name + PDK_APPROVAL_ID_LEN, ".json"))
			continue;
		memcpy(id, e->d_name, PDK_APPROVAL_ID_LEN);
		id[PDK_APPROVAL_ID_LEN] = '\0';
		if (!pdk_approval_id_valid(id))
			continue;
		cJSON *o = read_json(dir, e->d_name);
		const cJSON *pid = cJSON_GetObjectItemCaseSensitive(o, "pid");
		const cJSON *created = cJSON_GetObjectItemCaseSensitive(o, "created");
		if (!o || !cJSON_IsNumber(pid) || !str(o, "command") || !str(o, "id") ||
		    strcmp(str(o, "id"), id) != 0) {
			cJSON_Delete(o);
			continue;
		}
		/* Its process is gone: no one waits for the answer any more. */
		if (!process_alive((pid_t)pid->valuedouble)) {
			remove_request(dir, id);
			cJSON_Delete(o);
			continue;
		}
		struct pdk_approval_info *nv = realloc(v, (n + 1) * sizeof(*v));
		if (!nv) {
			cJSON_Delete(o);
			r = -ENOMEM;
			break;
		}
		v = nv;
		struct pdk_approval_info *it = &v[n++];
		memset(it, 0, sizeof(*it));
		memcpy(it->id, id, sizeof(it->id));
		it->command = strdup(str(o, "command"));
		it->cwd = strdup(str(o, "cwd") ? str(o, "cwd") : "");
		it->needs = strdup(str(o, "needs") ? str(o, "needs") : "");
		it->session = strdup(str(o, "session") ? str(o, "session") : "");
		it->pid = (pid_t)pid->valuedouble;
		it->created = cJSON_IsNumber(created) ? (long long)created->valuedouble : 0;
		_cleanup_free_ char *ans = pdk_asprintf("%s/%s.answer", dir, id);
		it->answered = ans && access(ans, F_OK) == 0;
		cJSON_Delete(o);
		if (!it->command || !it->cwd || !it->needs || !it->session)
			r = -ENOMEM;
	}
	closedir(d);
	if (r < 0 && r != -ENOENT && r != -ENOTDIR) {
		pdk_approvals_list_free(v, n);
		return r;
	}
	if (n)
		qsort(v, n, sizeof(*v), by_created);
	*ret = v;
	*ret_n = n;
	return 0;
}

void pdk_approvals_list_free(struct pdk_approval_info *v, size_t n)
{
	for (size_t i = 0; v && i < n; i++) {
		free(v[i].command);
		free(v[i].cwd);
		free(v[i].needs);
		free(v[i].session);
	}
	free(v);
}

int pdk_approval_answer(const char *id, bool approve)
{
	_cleanup_free_ char *dir = NULL, *name = NULL;
	cJSON *o;
	const cJSON *pid;
	int r;

	if (!pdk_approval_id_valid(id))
		return -EINVAL;
	r = approvals_dir(false, &dir);
	if (r < 0)
		return r == -ENOTDIR ? r : -ENOENT;
	if (!(name = pdk_asprintf("%s.json", id)))
		return -ENOMEM;
	o = read_json(dir, name);
	pid = cJSON_GetObjectItemCaseSensitive(o, "pid");
	if (!o || !str(o, "digest") || !cJSON_IsNumber(pid) ||
	    !process_alive((pid_t)pid->valuedouble)) {
		cJSON_Delete(o);
		return -ENOENT;
	}
	/* The digest the waiting call computed: the answer is for exactly that. */
	r = put_answer(dir, id, str(o, "digest"), approve, "paddock approvals");
	cJSON_Delete(o);
	return r;
}
