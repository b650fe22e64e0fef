/* audit.c - the audit log: JSON lines appended under an flock and rotated by size,
 * and read back through a filter, oldest first. */
#include <cjson/cJSON.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#ifdef __APPLE__
#include <sys/random.h> /* getentropy */
#endif

#include "audit/audit.h"
#include "core/path.h"
#include "core/util.h"

int pdk_audit_new_id(char id[PDK_AUDIT_ID_LEN + 1])
{
	unsigned char b[PDK_AUDIT_ID_LEN / 2];

	if (getentropy(b, sizeof(b)) < 0)
		return pdk_neg_errno();
	for (size_t i = 0; i < sizeof(b); i++)
		snprintf(id + 2 * i, 3, "%02x", b[i]);
	return 0;
}

/* UTC, to the millisecond. By hand: gmtime_r and strftime read the local time zone's file on
 * their first call (seven system calls) for a time that needs none. */
static void time_now(char buf[PDK_AUDIT_TIME_LEN + 1])
{
	struct timespec ts;
	long long days, secs, era, yoe, doy, mp, y;
	unsigned doe, d, m;

	clock_gettime(CLOCK_REALTIME, &ts);
	days = ts.tv_sec / 86400;
	secs = ts.tv_sec % 86400;
	if (secs < 0) {
		secs += 86400;
		days--;
	}
	/* The civil date of a day count since 1970-01-01 (H. Hinnant's days_to_civil). */
	days += 719468;
	era = (days >= 0 ? days : days - 146096) / 146097;
	doe = (unsigned)(days - era * 146097);
	yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	y = yoe + era * 400;
	doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	mp = (5 * doy + 2) / 153;
	d = (unsigned)(doy - (153 * mp + 2) / 5 + 1);
	m = (unsigned)(mp < 10 ? mp + 3 : mp - 9);
	y += m <= 2;
	snprintf(buf, PDK_AUDIT_TIME_LEN + 1, "%04u-%02u-%02uT%02u:%02u:%02u.%03uZ",
		 (unsigned)y % 10000u, m % 100u, d % 100u, (unsigned)(secs / 3600) % 100u,
		 (unsigned)(secs / 60 % 60), (unsigned)(secs % 60),
		 (unsigned)(ts.tv_nsec / 1000000L) % 1000u);
}

static char *file_name(const char *dir, unsigned generation)
{
	char *p;

	if ((generation ? asprintf(&p, "%s/" PDK_AUDIT_FILE ".%u", dir, generation)
			: asprintf(&p, "%s/" PDK_AUDIT_FILE, dir)) < 0)
		return NULL;
	return p;
}

/* Under the lock: audit.log.(k-1) becomes audit.log.k, from the oldest kept down. */
static int rotate(const char *dir, unsigned keep)
{
	for (unsigned k = keep; k >= 1; k--) {
		_cleanup_free_ char *from = file_name(dir, k - 1), *to = file_name(dir, k);

		if (!from || !to)
			return -ENOMEM;
		if (rename(from, to) < 0 && errno != ENOENT)
			return pdk_neg_errno();
	}
	if (keep == 0) {
		_cleanup_free_ char *log = file_name(dir, 0);

		if (!log)
			return -ENOMEM;
		if (unlink(log) < 0 && errno != ENOENT)
			return pdk_neg_errno();
	}
	return 0;
}

static int write_all(int fd, const char *buf, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return pdk_neg_errno();
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

static int open_log(const char *dir, uint64_t max, unsigned keep)
{
	_cleanup_free_ char *log = file_name(dir, 0);
	_cleanup_close_ int fd = -1;
	struct stat st;
	int r;

	if (!log)
		return -ENOMEM;
	fd = open(log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		return pdk_neg_errno();
	if (fstat(fd, &st) < 0)
		return pdk_neg_errno();
	if (!S_ISREG(st.st_mode))
		return -EINVAL;
	if (st.st_size == 0 || (uint64_t)st.st_size < max)
		return steal_fd(&fd);
	if ((r = rotate(dir, keep)) < 0)
		return r;
	close(steal_fd(&fd));
	fd = open(log, O_WRONLY | O_APPEND | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
	return fd < 0 ? pdk_neg_errno() : steal_fd(&fd);
}

int pdk_audit_append(const char *dir, cJSON *event, uint64_t max, unsigned keep)
{
	_cleanup_free_ char *lock = NULL, *body = NULL, *line = NULL;
	_cleanup_close_ int lock_fd = -1, fd = -1;
	char now[PDK_AUDIT_TIME_LEN + 1];
	int r, len;

	if (!cJSON_IsObject(event))
		return -EINVAL;
	if ((r = pdk_mkdir_p(dir, 0700)) < 0)
		return r;
	if (asprintf(&lock, "%s/audit.lock", dir) < 0)
		return -ENOMEM;
	lock_fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (lock_fd < 0)
		return pdk_neg_errno();
	while (flock(lock_fd, LOCK_EX) < 0)
		if (errno != EINTR)
			return pdk_neg_errno();
	if ((fd = open_log(dir, max, keep)) < 0)
		return fd;
	/* "time" first, so that a reader of the raw file sees it at the start of each line */
	if (!(body = cJSON_PrintUnformatted(event)))
		return -ENOMEM;
	time_now(now);
	len = strcmp(body, "{}") == 0 ? asprintf(&line, "{\"time\":\"%s\"}\n", now)
				      : asprintf(&line, "{\"time\":\"%s\",%s\n", now, body + 1);
	if (len < 0)
		return -ENOMEM;
	return write_all(fd, line, (size_t)len);
}

/* "2026-12-02T07:40:12.345Z" (as written) or any of the forms of pdk_audit_time_parse's
 * dates: seconds since the epoch. */
static int parse_date(const char *s, double *ret)
{
	struct tm tm = {0};
	int n = 0, ms = 0, digits = 0;
	time_t t;

	if (sscanf(s, "%4d-%2d-%2d%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &n) != 3 || n != 10)
		return -EINVAL;
	s += n;
	if (*s == 'T') {
		if (sscanf(s, "T%2d:%2d%n", &tm.tm_hour, &tm.tm_min, &n) != 2 || n != 6)
			return -EINVAL;
		s += n;
		if (*s == ':') {
			if (sscanf(s, ":%2d%n", &tm.tm_sec, &n) != 1 || n != 3)
				return -EINVAL;
			s += n;
			if (*s == '.')
				for (s++; isdigit((unsigned char)*s); s++)
					if (digits++ < 3)
						ms = ms * 10 + (*s - '0');
		}
	}
	if (*s == 'Z')
		s++;
	if (*s || tm.tm_mon < 1 || tm.tm_mon > 12 || tm.tm_mday < 1 || tm.tm_mday > 31 ||
	    tm.tm_hour > 23 || tm.tm_min > 59 || tm.tm_sec > 60 || tm.tm_hour < 0 ||
	    tm.tm_min < 0 || tm.tm_sec < 0)
		return -EINVAL;
	while (digits > 0 && digits < 3) {
		ms *= 10;
		digits++;
	}
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	if ((t = timegm(&tm)) == (time_t)-1)
		return -EINVAL;
	*ret = (double)t + ms / 1000.0;
	return 0;
}

int pdk_audit_time_parse(const char *s, double now, double *ret)
{
	char *end;
	double n;

	if (!s || !*s)
		return -EINVAL;
	if (isdigit((unsigned char)s[0]) && strlen(s) >= 10 && s[4] == '-')
		return parse_date(s, ret);
	errno = 0;
	n = strtod(s, &end);
	if (errno || end == s || n < 0 || !isdigit((unsigned char)s[0]) || end[0] == '\0' ||
	    end[1] != '\0')
		return -EINVAL;
	switch (end[0]) {
	case 's': break;
	case 'm': n *= 60; break;
	case 'h': n *= 3600; break;
	case 'd': n *= 86400; break;
	default: return -EINVAL;
	}
	*ret = now - n;
	return 0;
}

/* The calls whose decision passed the verdict filter: their later events pass too. */
struct calls {
	char (*id)[PDK_AUDIT_ID_LEN + 1];
	size_t n, cap;
};

static bool calls_has(const struct calls *c, const char *id)
{
	/* a call's events are close together: look from the newest */
	for (size_t i = c->n; i-- > 0;)
		if (strcmp(c->id[i], id) == 0)
			return true;
	return false;
}

static int calls_add(struct calls *c, const char *id)
{
	if (strlen(id) != PDK_AUDIT_ID_LEN)
		return 0;
	if (c->n == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 64;
		void *v = realloc(c->id, cap * sizeof(*c->id));

		if (!v)
			return -ENOMEM;
		c->id = v;
		c->cap = cap;
	}
	memcpy(c->id[c->n++], id, PDK_AUDIT_ID_LEN + 1);
	return 0;
}

static const char *field(const cJSON *o, const char *name)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

static bool same(const char *want, const char *have)
{
	return !want || (have && strcmp(want, have) == 0);
}

/* 1 when the event passes, 0 when not, -ENOMEM. */
static int passes(const struct pdk_audit_filter *f, const cJSON *ev, double t, struct calls *c)
{
	const char *call = field(ev, "call"), *event = field(ev, "event");

	if ((f->since > 0 && t < f->since) || (f->until > 0 && t >= f->until) ||
	    !same(f->session, field(ev, "session")) || !same(f->call, call))
		return 0;
	if (!f->verdict)
		return 1;
	if (!call)
		return 0;
	if (event && strcmp(event, "decision") == 0) {
		if (!same(f->verdict, field(ev, "verdict")))
			return 0;
		return calls_add(c, call) < 0 ? -ENOMEM : 1;
	}
	return calls_has(c, call);
}

static int read_one(const char *path, const struct pdk_audit_filter *f, struct calls *c,
		    int (*fn)(const cJSON *, void *), void *ctx, size_t *bad)
{
	FILE *in = fopen(path, "re");
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	int r = 0;

	if (!in)
		return errno == ENOENT ? 0 : pdk_neg_errno();
	while (r == 0 && (len = getline(&line, &cap, in)) >= 0) {
		cJSON *ev;
		const char *when;
		double t;

		if (len <= 1)
			continue;
		ev = cJSON_ParseWithLength(line, (size_t)len);
		when = ev ? field(ev, "time") : NULL;
		if (!cJSON_IsObject(ev) || !when || parse_date(when, &t) < 0) {
			(*bad)++;
		} else if ((r = passes(f, ev, t, c)) == 1) {
			r = fn(ev, ctx);
		}
		cJSON_Delete(ev);
	}
	if (r == 0 && ferror(in))
		r = -EIO;
	free(line);
	fclose(in);
	return r;
}

int pdk_audit_read(const char *dir, unsigned keep, const struct pdk_audit_filter *f,
		   int (*fn)(const cJSON *event, void *ctx), void *ctx, size_t *ret_bad)
{
	struct calls c = {0};
	size_t bad = 0;
	int r = 0;

	for (unsigned k = keep + 1; r == 0 && k-- > 0;) {
		_cleanup_free_ char *path = file_name(dir, k);

		r = path ? read_one(path, f, &c, fn, ctx, &bad) : -ENOMEM;
	}
	free(c.id);
	if (ret_bad)
		*ret_bad = bad;
	return r;
}
