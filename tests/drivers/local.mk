# tests/drivers/local.mk - small programs the shell suites drive: the library's
# gate, trash and backends, each without the CLI around it.
check_PROGRAMS += tests/drivers/gate-drive tests/drivers/trash-driver
if OS_LINUX
# netprobe: what a command tries on the network (loopback only), for net.sh.
check_PROGRAMS += tests/drivers/netprobe
# noreap-init: a pid 1 that reaps only its own child, for zombies.sh.
check_PROGRAMS += tests/drivers/noreap-init
tests_drivers_netprobe_LDADD = -lpthread
# no-userns: a user that can make no user namespace, for secrets.sh.
check_PROGRAMS += tests/drivers/no-userns
endif
tests_drivers_gate_drive_LDADD = $(LIBS_ALL)
tests_drivers_trash_driver_LDADD = $(LIBS_ALL)
if BACKEND_LANDLOCK
# backend-exec drives any Linux backend through the backend API alone.
check_PROGRAMS += tests/drivers/backend-exec
tests_drivers_backend_exec_LDADD = $(LIBS_ALL)
endif
