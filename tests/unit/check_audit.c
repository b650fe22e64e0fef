/* check_audit.c - the audit log: lines as written, rotation by size, parallel writers,
 * filters when reading back, and the time forms a filter takes. */
#include <cjson/cJSON.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "audit/audit.h"
#include "ck_util.h"

static char dir[64];

static void setup(void)
{
	snprintf(dir, sizeof(dir), "/tmp/pdk-audit-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}

static void append(const char *log, const char *call, const char *event, const char *verdict,
		   const char *session, uint64_t max, unsigned keep)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "event", event);
	cJSON_AddStringToObject(o, "call", call);
	cJSON_AddStringToObject(o, "session", session);
	if (verdict)
		cJSON_AddStringToObject(o, "verdict", verdict);
	ck_assert_int_eq(pdk_audit_append(log, o, max, keep), 0);
	cJSON_Delete(o);
}

struct seen {
	char text[4096];
	size_t n;
};

static int collect(const cJSON *ev, void *ctx)
{
	struct seen *s = ctx;
	const cJSON *call = cJSON_GetObjectItemCaseSensitive(ev, "call");
	const cJSON *event = cJSON_GetObjectItemCaseSensitive(ev, "event");
	size_t len = strlen(s->text);

	snprintf(s->text + len, sizeof(s->text) - len, "%s:%s ",
		 cJSON_IsString(call) ? call->valuestring : "?",
		 cJSON_IsString(event) ? event->valuestring : "?");
	s->n++;
	return 0;
}

static size_t read_all(const struct pdk_audit_filter *f, unsigned keep, struct seen *s,
		       size_t *bad)
{
	memset(s, 0, sizeof(*s));
	ck_assert_int_eq(pdk_audit_read(dir, keep, f, collect, s, bad), 0);
	return s->n;
}

START_TEST(line_shape)
{
	struct stat st;
	char *text;

	append(dir, "0123abcd", "decision", "run", "default", 1 << 20, 2);
	text = ck_slurp(ck_path("%s/audit.log", dir));
	ck_assert_ptr_nonnull(text);
	/* time first, to the millisecond, then the event as given; one line */
	ck_assert_msg(strncmp(text, "{\"time\":\"20", 11) == 0, "%s", text);
	ck_assert_int_eq(text[32], 'Z');
	ck_assert_int_eq(text[33], '"');
	ck_assert_ptr_nonnull(strstr(text, "\",\"event\":\"decision\",\"call\":\"0123abcd\""));
	ck_assert_int_eq((int)strlen(text), (int)(strchr(text, '\n') - text) + 1);
	ck_assert_int_eq(stat(ck_path("%s/audit.log", dir), &st), 0);
	ck_assert_int_eq(st.st_mode & 0777, 0600);
}
END_TEST

START_TEST(made_when_missing)
{
	const char *sub = ck_path("%s/a/b", dir);
	struct stat st;

	append(sub, "0123abcd", "decision", "run", "default", 1 << 20, 2);
	ck_assert_int_eq(stat(sub, &st), 0);
	ck_assert_int_eq(st.st_mode & 0777, 0700);
}
END_TEST

START_TEST(rotates_by_size)
{
	struct seen s;
	struct pdk_audit_filter all = {0};
	struct stat st;
	char id[16];

	/* each line is about 90 bytes: 300 bytes hold three or four */
	for (int i = 0; i < 20; i++) {
		snprintf(id, sizeof(id), "%08d", i);
		append(dir, id, "outcome", NULL, "default", 300, 2);
	}
	ck_assert_int_eq(stat(ck_path("%s/audit.log.1", dir), &st), 0);
	ck_assert_int_eq(stat(ck_path("%s/audit.log.2", dir), &st), 0);
	ck_assert_int_ne(stat(ck_path("%s/audit.log.3", dir), &st), 0);
	ck_assert_int_eq(stat(ck_path("%s/audit.log", dir), &st), 0);
	ck_assert_int_lt(st.st_size, 400);
	/* oldest first, and the newest is the last one written */
	read_all(&all, 2, &s, NULL);
	ck_assert_int_gt((int)s.n, 6);
	ck_assert_int_lt((int)s.n, 20);
	ck_assert_ptr_null(strstr(s.text, "00000000:"));
	size_t len = strlen(s.text);
	ck_assert_str_eq(s.text + len - strlen("00000019:outcome "), "00000019:outcome ");
}
END_TEST

/* 8 processes write 150 lines each at once, rotating at 8 KiB with room for all: every
 * line is whole, and none is lost. */
START_TEST(parallel_writers)
{
	struct seen s;
	struct pdk_audit_filter all = {0};
	size_t bad = 99, total = 0;

	for (int p = 0; p < 8; p++) {
		pid_t pid = fork();

		ck_assert_int_ge(pid, 0);
		if (pid == 0) {
			for (int i = 0; i < 150; i++) {
				char id[16];
				cJSON *o = cJSON_CreateObject();

				snprintf(id, sizeof(id), "%02d%06d", p, i);
				cJSON_AddStringToObject(o, "call", id);
				cJSON_AddStringToObject(o, "pad", "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx");
				if (pdk_audit_append(dir, o, 8192, 100) != 0)
					_exit(1);
				cJSON_Delete(o);
			}
			_exit(0);
		}
	}
	for (int p = 0; p < 8; p++) {
		int status;

		ck_assert_int_gt(wait(&status), 0);
		ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "writer failed");
	}
	total = read_all(&all, 100, &s, &bad);
	ck_assert_int_eq(bad, 0);
	ck_assert_int_eq((int)total, 1200);
}
END_TEST

START_TEST(filters)
{
	struct seen s;
	struct pdk_audit_filter f = {0};
	size_t bad = 0;

	append(dir, "aaaaaaaa", "decision", "run", "one", 1 << 20, 2);
	append(dir, "aaaaaaaa", "outcome", NULL, "one", 1 << 20, 2);
	append(dir, "bbbbbbbb", "decision", "refuse", "two", 1 << 20, 2);
	append(dir, "bbbbbbbb", "outcome", NULL, "two", 1 << 20, 2);
	append(dir, "cccccccc", "decision", "ask", "one", 1 << 20, 2);
	append(dir, "cccccccc", "approval", NULL, "one", 1 << 20, 2);
	append(dir, "cccccccc", "outcome", NULL, "one", 1 << 20, 2);
	/* a torn or foreign line is skipped and counted */
	FILE *log = fopen(ck_path("%s/audit.log", dir), "a");
	ck_assert_ptr_nonnull(log);
	fputs("{\"time\":\"2026-12-0\n[1,2]\n", log);
	fclose(log);

	ck_assert_int_eq((int)read_all(&f, 2, &s, &bad), 7);
	ck_assert_int_eq(bad, 2);
	f.session = "one";
	read_all(&f, 2, &s, NULL);
	ck_assert_str_eq(s.text, "aaaaaaaa:decision aaaaaaaa:outcome cccccccc:decision "
				 "cccccccc:approval cccccccc:outcome ");
	f.session = NULL;
	f.verdict = "refuse";
	read_all(&f, 2, &s, NULL);
	ck_assert_str_eq(s.text, "bbbbbbbb:decision bbbbbbbb:outcome ");
	f.verdict = "ask";
	f.call = "cccccccc";
	read_all(&f, 2, &s, NULL);
	ck_assert_str_eq(s.text, "cccccccc:decision cccccccc:approval cccccccc:outcome ");
	f.verdict = f.call = NULL;
	f.since = (double)time(NULL) + 3600;
	ck_assert_int_eq((int)read_all(&f, 2, &s, NULL), 0);
	f.since = 0;
	f.until = (double)time(NULL) - 3600;
	ck_assert_int_eq((int)read_all(&f, 2, &s, NULL), 0);
	f.until = (double)time(NULL) + 3600;
	ck_assert_int_eq((int)read_all(&f, 2, &s, NULL), 7);
}
END_TEST

START_TEST(no_log_yet)
{
	struct seen s;
	struct pdk_audit_filter f = {0};

	ck_assert_int_eq((int)read_all(&f, 2, &s, NULL), 0);
}
END_TEST

START_TEST(time_forms)
{
	double t, now = 1764660000.0; /* 2025-12-02T07:20:00Z */

	ck_assert_int_eq(pdk_audit_time_parse("2025-12-02", now, &t), 0);
	ck_assert_double_eq(t, 1764633600.0);
	ck_assert_int_eq(pdk_audit_time_parse("2025-12-02T07:20", now, &t), 0);
	ck_assert_double_eq(t, now);
	ck_assert_int_eq(pdk_audit_time_parse("2025-12-02T07:20:05Z", now, &t), 0);
	ck_assert_double_eq(t, now + 5);
	ck_assert_int_eq(pdk_audit_time_parse("2025-12-02T07:20:05.250Z", now, &t), 0);
	ck_assert_double_eq(t, now + 5.25);
	ck_assert_int_eq(pdk_audit_time_parse("90s", now, &t), 0);
	ck_assert_double_eq(t, now - 90);
	ck_assert_int_eq(pdk_audit_time_parse("30m", now, &t), 0);
	ck_assert_double_eq(t, now - 1800);
	ck_assert_int_eq(pdk_audit_time_parse("2h", now, &t), 0);
	ck_assert_double_eq(t, now - 7200);
	ck_assert_int_eq(pdk_audit_time_parse("7d", now, &t), 0);
	ck_assert_double_eq(t, now - 7 * 86400);
	const char *bad[] = {"", "h", "2x", "-3h", "2h5", "2025-13-01", "2025-12-02T25:00",
			     "2025-12-02 07:20", "2025-12-02T07", "yesterday", "2025-1-2"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(pdk_audit_time_parse(bad[i], now, &t) == -EINVAL, "took '%s'",
			      bad[i]);
}
END_TEST

START_TEST(new_ids_differ)
{
	char a[PDK_AUDIT_ID_LEN + 1], b[PDK_AUDIT_ID_LEN + 1];

	ck_assert_int_eq(pdk_audit_new_id(a), 0);
	ck_assert_int_eq(pdk_audit_new_id(b), 0);
	ck_assert_int_eq((int)strlen(a), PDK_AUDIT_ID_LEN);
	ck_assert_str_ne(a, b);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("audit");
	TCase *tc = tcase_create("audit");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, line_shape);
	tcase_add_test(tc, made_when_missing);
	tcase_add_test(tc, rotates_by_size);
	tcase_add_test(tc, parallel_writers);
	tcase_add_test(tc, filters);
	tcase_add_test(tc, no_log_yet);
	tcase_add_test(tc, time_forms);
	tcase_add_test(tc, new_ids_differ);
	suite_add_tcase(s, tc);
	return pdk_ck_run(s);
}
