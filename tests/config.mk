# config.mk - the configuration: library source, its Check suite, the man page of the file
# format and the example configuration that the page shows and the suite loads.
libpaddock_a_SOURCES += src/config.c src/config.h src/config_int.h src/config_pos.c \
	src/config_value.c src/config_keys.c

check_PROGRAMS += tests/check_config
TESTS += tests/check_config
tests_check_config_SOURCES = tests/check_config.c
tests_check_config_LDADD = $(TEST_LIBS)

dist_man_MANS += man/paddock.json.5
dist_pkgdata_DATA += data/config.example.json
