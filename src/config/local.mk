# src/config/local.mk - the configuration files: API, positions, values, the key table.
libpaddock_a_SOURCES += src/config/config.c src/config/config.h src/config/config_int.h \
	src/config/config_pos.c src/config/config_value.c src/config/config_keys.c
dist_man_MANS += man/paddock.json.5
dist_pkgdata_DATA += data/config.example.json
