# retry.sh - one helper for every shell suite, those that print their own TAP included:
# retry SECONDS COMMAND... runs COMMAND until it succeeds, every 0.1 s for up to SECONDS, so
# that a check of something another process does (a listener, a kill) waits for it, not for
# a guessed time.
retry() {
	_end=$(($1 * 10))
	shift
	_i=0
	until "$@"; do
		_i=$((_i + 1))
		[ $_i -gt $_end ] && return 1
		sleep 0.1
	done
}
