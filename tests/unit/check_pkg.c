/* check_pkg.c - the package managers of paddock pkg: every rejected name shape
 * per manager (and the real names beside them), detection from os-release and
 * what is installed, and the exact argv of each action. */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ck_util.h"
#include "core/util.h"
#include "pkg/pkg.h"

static const enum pdk_pkg_manager all[] = {PDK_PKG_APT, PDK_PKG_DNF, PDK_PKG_YUM, PDK_PKG_PACMAN,
					   PDK_PKG_APK};

/* name is refused by m, and why says want. */
static void refused(enum pdk_pkg_manager m, const char *name, const char *want)
{
	char why[1200] = "";

	ck_assert_msg(pdk_pkg_name_check(m, name, why, sizeof(why)) == -EINVAL,
		      "%s accepted '%s'", pdk_pkg_manager_name(m), name);
	ck_assert_msg(strstr(why, want), "%s '%s': %s", pdk_pkg_manager_name(m), name, why);
	ck_assert_msg(strncmp(why, "pkg: ", 5) == 0 && !strchr(why, '\n'), "one line: %s", why);
}

static void accepted(enum pdk_pkg_manager m, const char *name)
{
	char why[1200] = "";

	ck_assert_msg(pdk_pkg_name_check(m, name, why, sizeof(why)) == 0, "%s refused '%s': %s",
		      pdk_pkg_manager_name(m), name, why);
}

START_TEST(shapes_every_manager)
{
	for (size_t i = 0; i < PDK_ARRAY_SIZE(all); i++) {
		enum pdk_pkg_manager m = all[i];

		refused(m, "", "empty");
		refused(m, "-y", "is an option");
		refused(m, "--allow-downgrades", "is an option");
		refused(m, "hello curl", "more than one package");
		refused(m, "hello,curl", "more than one package");
		refused(m, "hello;curl", "more than one package");
		refused(m, "hello\tcurl", "control");
		refused(m, "hello\ncurl", "control");
		refused(m, "h\xc3\xa9llo", "non-ASCII");
		refused(m, "https://example.com/hello.deb", "is a URL");
		refused(m, "ftp://example.com/x", "is a URL");
		refused(m, "./hello.deb", "package file");
		refused(m, "/tmp/hello", "is a path");
		refused(m, "./hello", "is a path");
		refused(m, "../hello", "is a path");
		refused(m, "~/hello", "is a path");
		refused(m, "main/hello", "is a path");
		refused(m, "hello.rpm", "package file");
		refused(m, "hello.pkg.tar.zst", "package file");
		refused(m, "hello=2.10-3", "pins a version");
		refused(m, "hello>=2", "pins a version");
		refused(m, "hello<3", "pins a version");
		refused(m, "hello*", "pattern");
		refused(m, "hel?o", "pattern");
		refused(m, "[h]ello", "pattern");
		refused(m, "requests==2.0", "pins a version");
		refused(m, "requests==2.0", "paddock run");
		char longname[200];
		memset(longname, 'a', sizeof(longname) - 1);
		longname[sizeof(longname) - 1] = '\0';
		refused(m, longname, "more than the 128");
		accepted(m, "hello");
		accepted(m, "python3");
		accepted(m, "gcc-c++");
		accepted(m, "libstdc++6");
	}
}
END_TEST

START_TEST(shapes_per_manager)
{
	/* apt: Debian policy names; ':' qualifies (arch or version) */
	accepted(PDK_PKG_APT, "python3.11");
	accepted(PDK_PKG_APT, "libsoup-2.4-1");
	accepted(PDK_PKG_APT, "0ad");
	refused(PDK_PKG_APT, "hello:amd64", "qualifies");
	refused(PDK_PKG_APT, "Hello", "not an apt package name");
	refused(PDK_PKG_APT, "h", "not an apt package name");
	refused(PDK_PKG_APT, "+hello", "not an apt package name");
	refused(PDK_PKG_APT, "hello_world", "not an apt package name");
	refused(PDK_PKG_APT, "@scope", "not an apt package name");
	/* dnf and yum: RPM names; name-version, name.arch and @group are not bare */
	for (enum pdk_pkg_manager m = PDK_PKG_DNF; m <= PDK_PKG_YUM; m++) {
		accepted(m, "NetworkManager");
		accepted(m, "java-17-openjdk");
		accepted(m, "python3.12");
		accepted(m, "perl_Foo");
		refused(m, "hello-2.10", "with a version");
		refused(m, "hello-2.10-3.fc39", "with a version");
		refused(m, "hello.x86_64", "architecture");
		refused(m, "hello.noarch", "architecture");
		refused(m, "@development-tools", "group");
		refused(m, "hello:1.0", "not an RPM package name");
	}
	/* pacman */
	accepted(PDK_PKG_PACMAN, "lib32-glibc");
	accepted(PDK_PKG_PACMAN, "python-pip");
	refused(PDK_PKG_PACMAN, "Hello", "not a pacman package name");
	refused(PDK_PKG_PACMAN, "extra/hello", "is a path");
	refused(PDK_PKG_PACMAN, ".hello", "is a path");
	/* apk: ~ pins, @ names a repository tag, so: and cmd: are providers */
	accepted(PDK_PKG_APK, "py3-pip");
	refused(PDK_PKG_APK, "hello~2.10", "pins a version");
	refused(PDK_PKG_APK, "hello@testing", "repository tag");
	refused(PDK_PKG_APK, "so:libc.so.6", "not an apk package name");
	refused(PDK_PKG_APK, "cmd:ls", "not an apk package name");
	refused(PDK_PKG_APK, "_hello", "not an apk package name");
}
END_TEST

/* The argv of m's action a (no sudo), as one space-joined line. */
static const char *line_of(enum pdk_pkg_manager m, enum pdk_pkg_action a, const char *name,
			   const char *sudo)
{
	static char buf[1024];
	_cleanup_strv_ char **v = NULL;

	ck_assert_int_eq(pdk_pkg_argv(m, a, name, sudo, &v), 0);
	buf[0] = '\0';
	for (size_t i = 0; v[i]; i++) {
		strcat(buf, i ? " " : "");
		strcat(buf, v[i]);
	}
	return buf;
}

#define APT "env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=120"
#define CONF "-o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold"

START_TEST(argv_exact)
{
	static const struct {
		enum pdk_pkg_manager m;
		enum pdk_pkg_action a;
		const char *want;
	} cases[] = {
	    {PDK_PKG_APT, PDK_PKG_INSTALL, APT " install -y -q " CONF " hello"},
	    {PDK_PKG_APT, PDK_PKG_REMOVE, APT " remove -y -q " CONF " hello"},
	    {PDK_PKG_APT, PDK_PKG_UPDATE, APT " update -q"},
	    {PDK_PKG_APT, PDK_PKG_UPGRADE, APT " upgrade -y -q " CONF},
	    {PDK_PKG_APT, PDK_PKG_SEARCH, "apt-cache search hello"},
	    {PDK_PKG_APT, PDK_PKG_INFO, "apt-cache show hello"},
	    {PDK_PKG_DNF, PDK_PKG_INSTALL, "dnf install -y hello"},
	    {PDK_PKG_DNF, PDK_PKG_REMOVE, "dnf remove -y hello"},
	    {PDK_PKG_DNF, PDK_PKG_UPDATE, "dnf makecache -y"},
	    {PDK_PKG_DNF, PDK_PKG_UPGRADE, "dnf upgrade -y"},
	    {PDK_PKG_DNF, PDK_PKG_SEARCH, "dnf search hello"},
	    {PDK_PKG_DNF, PDK_PKG_INFO, "dnf info hello"},
	    {PDK_PKG_YUM, PDK_PKG_INSTALL, "yum install -y hello"},
	    {PDK_PKG_YUM, PDK_PKG_UPGRADE, "yum upgrade -y"},
	    {PDK_PKG_PACMAN, PDK_PKG_INSTALL, "pacman -S --noconfirm --needed hello"},
	    {PDK_PKG_PACMAN, PDK_PKG_REMOVE, "pacman -R --noconfirm hello"},
	    {PDK_PKG_PACMAN, PDK_PKG_UPDATE, "pacman -Sy --noconfirm"},
	    {PDK_PKG_PACMAN, PDK_PKG_UPGRADE, "pacman -Syu --noconfirm"},
	    {PDK_PKG_PACMAN, PDK_PKG_SEARCH, "pacman -Ss hello"},
	    {PDK_PKG_PACMAN, PDK_PKG_INFO, "pacman -Si hello"},
	    {PDK_PKG_APK, PDK_PKG_INSTALL, "apk add --no-progress hello"},
	    {PDK_PKG_APK, PDK_PKG_REMOVE, "apk del --no-progress hello"},
	    {PDK_PKG_APK, PDK_PKG_UPDATE, "apk update --no-progress"},
	    {PDK_PKG_APK, PDK_PKG_UPGRADE, "apk upgrade --no-progress"},
	    {PDK_PKG_APK, PDK_PKG_SEARCH, "apk search hello"},
	    {PDK_PKG_APK, PDK_PKG_INFO, "apk info hello"},
	};
	_cleanup_strv_ char **v = NULL;

	for (size_t i = 0; i < PDK_ARRAY_SIZE(cases); i++) {
		const char *name = pdk_pkg_action_takes_name(cases[i].a) ? "hello" : NULL;

		ck_assert_str_eq(line_of(cases[i].m, cases[i].a, name, NULL), cases[i].want);
	}
	ck_assert_str_eq(line_of(PDK_PKG_DNF, PDK_PKG_INSTALL, "hello", "sudo"),
			 "sudo -n -- dnf install -y hello");
	/* A name where none is taken, or none where one is. */
	ck_assert_int_eq(pdk_pkg_argv(PDK_PKG_APT, PDK_PKG_UPGRADE, "hello", NULL, &v), -EINVAL);
	ck_assert_int_eq(pdk_pkg_argv(PDK_PKG_APT, PDK_PKG_INSTALL, NULL, NULL, &v), -EINVAL);
	ck_assert_int_eq(pdk_pkg_argv(PDK_PKG_NONE, PDK_PKG_SEARCH, "x", NULL, &v), -EINVAL);
}
END_TEST

/* A directory of fake programs, each an empty executable file (the path is
 * the caller's to free). */
static char *bin_with(const char *tag, const char *const *progs)
{
	char *dir = strdup(ck_path("/tmp/pdk-ck-pkg-%d-%s", (int)getpid(), tag));

	mkdir(dir, 0755);
	for (size_t i = 0; progs[i]; i++) {
		const char *p = ck_path("%s/%s", dir, progs[i]);
		ck_write(p, "#!/bin/sh\n");
		ck_assert_int_eq(chmod(p, 0755), 0);
	}
	return dir;
}

static enum pdk_pkg_manager detect(const char *os_release_text, const char *path)
{
	const char *f = ck_path("/tmp/pdk-ck-pkg-%d-os-release", (int)getpid());
	enum pdk_pkg_manager m = PDK_PKG_NONE;

	ck_write(f, os_release_text);
	if (pdk_pkg_detect(f, path, &m) < 0)
		return PDK_PKG_NONE;
	return m;
}

START_TEST(detection)
{
	char path[4096];
	_cleanup_free_ char *every = bin_with("every", (const char *const[]){"apt-get", "dnf", "yum",
								     "pacman", "apk", NULL});
	_cleanup_free_ char *yum_only = bin_with("yum", (const char *const[]){"yum", NULL});
	_cleanup_free_ char *none = bin_with("none", (const char *const[]){"ls", NULL});
	enum pdk_pkg_manager m;

	/* os-release picks among what is installed */
	ck_assert_int_eq(detect("NAME=\"Debian\"\nID=debian\n", every), PDK_PKG_APT);
	ck_assert_int_eq(detect("ID=fedora\n", every), PDK_PKG_DNF);
	ck_assert_int_eq(detect("ID=\"arch\"\n", every), PDK_PKG_PACMAN);
	ck_assert_int_eq(detect("ID=alpine\n", every), PDK_PKG_APK);
	/* ID_LIKE when ID is unknown */
	ck_assert_int_eq(detect("ID=linuxmint\nID_LIKE=\"ubuntu debian\"\n", every), PDK_PKG_APT);
	ck_assert_int_eq(detect("ID=\"rocky\"\nID_LIKE=\"rhel centos fedora\"\n", every),
			 PDK_PKG_DNF);
	/* an older RHEL without dnf: yum */
	ck_assert_int_eq(detect("ID=centos\n", yum_only), PDK_PKG_YUM);
	/* os-release names a manager that is not installed: what is */
	ck_assert_int_eq(detect("ID=debian\n", yum_only), PDK_PKG_YUM);
	/* none installed; a relative PATH entry is not looked in */
	ck_assert_int_eq(detect("ID=debian\n", none), PDK_PKG_NONE);
	snprintf(path, sizeof(path), "%s:.:", none);
	ck_assert_int_eq(detect("ID=debian\n", path), PDK_PKG_NONE);
	/* no os-release at all: the first installed */
	snprintf(path, sizeof(path), "%s:%s", none, yum_only);
	ck_assert_int_eq(pdk_pkg_detect("/nonexistent/os-release", path, &m), 0);
	ck_assert_int_eq(m, PDK_PKG_YUM);
	ck_assert_int_eq(system(ck_path("rm -rf /tmp/pdk-ck-pkg-%d-*", (int)getpid())), 0);
}
END_TEST

START_TEST(names)
{
	enum pdk_pkg_action a;
	enum pdk_pkg_manager m;

	ck_assert_int_eq(pdk_pkg_action_parse("install", &a), 0);
	ck_assert_int_eq(a, PDK_PKG_INSTALL);
	ck_assert_int_eq(pdk_pkg_action_parse("Install", &a), -EINVAL);
	ck_assert_int_eq(pdk_pkg_action_parse("add", &a), -EINVAL);
	ck_assert(pdk_pkg_action_changes(PDK_PKG_UPDATE));
	ck_assert(!pdk_pkg_action_changes(PDK_PKG_SEARCH));
	ck_assert(!pdk_pkg_action_changes(PDK_PKG_INFO));
	ck_assert_int_eq(pdk_pkg_manager_parse("pacman", &m), 0);
	ck_assert_int_eq(m, PDK_PKG_PACMAN);
	ck_assert_int_eq(pdk_pkg_manager_parse("zypper", &m), -EINVAL);
	ck_assert_str_eq(pdk_pkg_manager_program(PDK_PKG_APT), "apt-get");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("pkg");
	TCase *tc = tcase_create("pkg");

	tcase_add_test(tc, shapes_every_manager);
	tcase_add_test(tc, shapes_per_manager);
	tcase_add_test(tc, argv_exact);
	tcase_add_test(tc, detection);
	tcase_add_test(tc, names);
	suite_add_tcase(s, tc);
	return pdk_ck_run(s);
}
