/* ck_main.h - what every Check suite's main() does: run the suite, exit 1
 * when a test failed. */
#ifndef PDK_CK_MAIN_H
#define PDK_CK_MAIN_H

#include <check.h>
#include <stdlib.h>

static inline int pdk_ck_run(Suite *s)
{
	SRunner *sr = srunner_create(s);
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

#endif
