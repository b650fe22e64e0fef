#!/bin/sh
# secrets.sh - the secrets no confined command reads, under every Linux backend that works
# here, as root and as uid 65534: a program naming no path reads each and gets nothing, next
# to the work files (known_hosts, ~/.gitconfig, .env.example) that stay readable; --read asked.
# As root, the same as nobody with no user namespace: Landlock's rules around the secrets.
set -u
P=${PADDOCK:-./paddock}
case $P in /*) ;; *) P=$(pwd)/$P ;; esac
# Nothing here may lie under a default root (/tmp is one).
T=$(mktemp -d /var/tmp/pdk-secrets.XXXXXX)
chmod 755 "$T"
cleanup() { rm -rf "$T"; }
trap cleanup EXIT INT TERM
export HOME="$T/home" XDG_STATE_HOME="$T/state" TMPDIR="$T/tmp" XDG_CACHE_HOME="$T/cache" \
	XDG_CONFIG_HOME="$T/xdg"
unset PADDOCK_SESSION
n=0
fails=0
check() { # check DESCRIPTION COMMAND...
	d=$1; shift
	n=$((n + 1))
	if "$@"; then
		echo "ok $n - $d"
	else
		echo "not ok $n - $d"
		fails=$((fails + 1))
		printf '%s\n' "${out:-}" | head -n 20 | sed 's/^/#   /'
	fi
}
command -v python3 >/dev/null || { echo "1..0 # SKIP python3 missing"; exit 0; }
# Without a mount namespace (PDK_SECRETS_NO_USERNS), Landlock leaves the secrets inside the
# roots readable, as paddock(1) says: those checks are left out.
inroot=1
[ -n "${PDK_SECRETS_NO_USERNS:-}" ] && inroot=0

mkdir -p "$HOME" "$T/proj" "$T/tmp" "$T/cache" "$T/xdg"
# The default list under the home: a directory gets a file inside, a file is the file.
dirs='.ssh .aws .gnupg .kube .config/gh .config/hub .config/gcloud .azure .oci .config/doctl
.password-store .local/share/keyrings .config/op .mozilla .config/google-chrome .config/chromium
.config/BraveSoftware .config/microsoft-edge .config/vivaldi snap/firefox snap/chromium
Library/Keychains Library/Cookies'
files='.docker/config.json .netrc .git-credentials .config/git/credentials .pypirc .npmrc
.gem/credentials .cargo/credentials .cargo/credentials.toml .composer/auth.json
.config/composer/auth.json .m2/settings-security.xml .pgpass .my.cnf .vault-token
.terraform.d/credentials.tfrc.json .config/rclone/rclone.conf .s3cfg .boto .bash_history
.zsh_history .zhistory .histfile .sh_history .local/share/fish/fish_history .python_history
.node_repl_history .psql_history .mysql_history .sqlite_history .rediscli_history .irb_history
.Rhistory .lesshst'
: >"$T/secrets"
i=0
for d in $dirs; do
	i=$((i + 1))
	mkdir -p "$HOME/$d"
	echo "PDKSECRET-$i" >"$HOME/$d/key"
	echo "$HOME/$d/key" >>"$T/secrets"
done
for f in $files; do
	i=$((i + 1))
	mkdir -p "$(dirname "$HOME/$f")"
	echo "PDKSECRET-$i" >"$HOME/$f"
	echo "$HOME/$f" >>"$T/secrets"
done
echo PDKSECRET-id >"$HOME/.ssh/id_ed25519"
echo PDKSECRET-env >"$T/proj/.env"
echo PDKSECRET-envlocal >"$T/proj/.env.local"
echo "$HOME/.ssh/id_ed25519" >>"$T/secrets"
[ $inroot = 1 ] && printf '%s\n' "$T/proj/.env" "$T/proj/.env.local" >>"$T/secrets"
# As root, the host's own.
if [ "$(id -u)" -eq 0 ]; then
	for f in /etc/shadow /etc/gshadow /etc/ssh/ssh_host_ed25519_key; do
		[ -f "$f" ] && echo "$f" >>"$T/secrets"
	done
fi
# What work needs, with no secret in it.
echo WORK-kh >"$HOME/.ssh/known_hosts"
echo WORK-cfg >"$HOME/.ssh/config"
echo WORK-pub >"$HOME/.ssh/id_ed25519.pub"
printf '[user]\n\tname = Work Person\n\temail = work@example.org\n' >"$HOME/.gitconfig"
echo WORK-example >"$T/proj/.env.example"
echo WORK-proj >"$T/proj/README"
printf '%s\n' "$HOME/.ssh/known_hosts" "$HOME/.ssh/config" "$HOME/.ssh/id_ed25519.pub" \
	"$HOME/.gitconfig" "$T/proj/.env.example" "$T/proj/README" >"$T/work"
# The reader names no secret in its argv: it reads the paths from a list file.
cat >"$T/read.py" <<'PY'
import sys
for p in open(sys.argv[1]).read().split():
    try:
        print("READ", p, open(p).read().strip())
    except OSError as e:
        print("ERR", e.errno, p)
PY
secrets_n=$(wc -l <"$T/secrets")

for b in bwrap landlock; do
	if ! "$P" doctor 2>/dev/null | grep -q "^$b: works here"; then
		echo "ok $((n = n + 1)) - # SKIP backend $b does not work here"
		continue
	fi
	run() { (cd "$T/proj" && "$P" run --backend "$b" "$@" </dev/null); }
	out=$(run -- python3 "$T/read.py" "$T/secrets" 2>&1)
	check "$b: none of the $secrets_n secrets is read (EACCES each)" sh -c \
		'! echo "$0" | grep -q PDKSECRET && [ "$(echo "$0" | grep -c "^ERR 13 ")" -eq "$1" ]' \
		"$out" "$secrets_n"
	# A home reached through a symlink: the secrets are held where it leads too.
	ln -sfn "$HOME" "$T/homelink"
	out=$(HOME=$T/homelink run -- python3 "$T/read.py" "$T/secrets" 2>&1)
	check "$b: with HOME a symlink, none of the secrets is read either" sh -c \
		'! echo "$0" | grep -q PDKSECRET && [ "$(echo "$0" | grep -c "^ERR 13 ")" -eq "$1" ]' \
		"$out" "$secrets_n"
	out=$(run -- python3 "$T/read.py" "$T/work" 2>&1)
	check "$b: the work files stay readable (known_hosts, config, *.pub, .gitconfig, .env.example)" \
		sh -c '[ "$(echo "$0" | grep -c "^READ ")" -eq 6 ] && ! echo "$0" | grep -q "^ERR"' "$out"
	# --yes: past the policy's word match, the sandbox alone.
	out=$(run --yes -- sh -c 'f=$HOME/.aw; cat ${f}s/key; [ $0 = 0 ] || cat .e""nv; exit 1' $inroot 2>&1)
	check "$b: a shell that spells the path in pieces gets nothing, and a hint naming --read" \
		sh -c '! echo "$0" | grep -q PDKSECRET &&
			echo "$0" | grep -q "^sandbox: .*/\.aws/key is a secret .*--read .*/\.aws/key$" &&
			{ [ "$1" = 0 ] || echo "$0" | grep -q "^sandbox: .*/proj/\.env is a secret"; }' \
		"$out" $inroot
	out=$(run --yes -- sh -c 'echo new > .env.new && cat .env.new' 2>&1)
	check "$b: a file the command makes in the project is its own to read" \
		sh -c 'echo "$0" | grep -qx new' "$out"
	rm -f "$T/proj/.env.new"
	# --read: asked of a person, who is not here; --yes approves it.
	out=$(run --read .env -- python3 "$T/read.py" "$T/secrets" 2>&1)
	check "$b: --read is asked (refused with no one to ask), naming the path" sh -c \
		'! echo "$0" | grep -q PDKSECRET &&
			echo "$0" | grep -q "reads a secret the sandbox keeps unread (--read): .*/proj/\.env"' \
		"$out"
	out=$(run --yes --read .env --read "$HOME/.aws/key" -- python3 "$T/read.py" "$T/secrets" 2>&1)
	check "$b: --read approved reads those and no other" sh -c \
		'{ [ "$1" = 0 ] || echo "$0" | grep -q "^READ .*/proj/\.env PDKSECRET-env$"; } &&
			echo "$0" | grep -q "^READ .*/\.aws/key PDKSECRET-" &&
			[ "$(echo "$0" | grep -c PDKSECRET)" -eq $((1 + $1)) ]' "$out" $inroot
	out=$(run --yes --read "$HOME/.ssh/id_ed25519" -- python3 "$T/read.py" "$T/secrets" 2>&1)
	check "$b: --read of one key in ~/.ssh leaves the rest of it unread" sh -c \
		'echo "$0" | grep -q "^READ .*id_ed25519 PDKSECRET-id$" &&
			echo "$0" | grep -q "^ERR 13 .*/\.ssh/key$"' "$out"
	# The user's configuration: denyRead adds, allowRead takes away.
	mkdir -p "$T/xdg/paddock" "$HOME/notes"
	echo PDKSECRET-notes >"$HOME/notes/token"
	echo PDKSECRET-local >"$T/proj/local.secret"
	echo WORK-awscfg >"$HOME/.aws/config"
	printf '{"commandPolicy": {"sandbox": {"denyRead": ["~/notes/token", "*.secret"], "allowRead": ["~/.aws/config"]}}}\n' \
		>"$T/xdg/paddock/config.json"
	printf '%s\n' "$HOME/notes/token" "$T/proj/local.secret" "$HOME/.aws/config" \
		"$HOME/.aws/key" >"$T/cfglist"
	out=$(run -- python3 "$T/read.py" "$T/cfglist" 2>&1)
	check "$b: denyRead adds (~ and a name in the root), allowRead takes from the list" sh -c \
		'echo "$0" | grep -q "^ERR 13 .*/notes/token$" &&
			{ [ "$1" = 0 ] || echo "$0" | grep -q "^ERR 13 .*/proj/local\.secret$"; } &&
			echo "$0" | grep -q "^READ .*/\.aws/config WORK-awscfg$" &&
			echo "$0" | grep -q "^ERR 13 .*/\.aws/key$"' "$out" $inroot
	rm -f "$T/xdg/paddock/config.json" "$HOME/.aws/config"
	# Real work: git reads ~/.gitconfig, and the project's history.
	if command -v git >/dev/null; then
		(cd "$T/proj" && git init -q "repo-$b" && cd "repo-$b" && echo a >a && git add a &&
			git commit -qm first) >/dev/null 2>&1
		out=$(cd "$T/proj/repo-$b" && "$P" run --backend "$b" -- sh -c \
			'git status --short && git log --format=%an && git config user.email' 2>&1)
		check "$b: git status and git log work, with ~/.gitconfig read" sh -c \
			'echo "$0" | grep -qx "Work Person" && echo "$0" | grep -qx "work@example.org"' \
			"$out"
	fi
	out=$(run --print-profile -- true 2>&1)
	check "$b: --print-profile lists the secrets held" sh -c \
		'echo "$0" | grep -q "^secret, unread (--read to ask for it): .*/\.aws$"' "$out"
done

out=$(cd "$T/proj" && "$P" run --read .env.example -- true 2>&1)
rc=$?
check "--read of a path that is not a secret: one line, exit 125" sh -c \
	'[ "$1" -eq 125 ] && [ "$(echo "$0" | wc -l)" -eq 1 ] &&
		echo "$0" | grep -q "^paddock: run: --read .*\.env\.example: .*drop --read$"' "$out" "$rc"
printf '{"argv": ["true"], "readPaths": [".env"]}' >"$T/req.json"
out=$(cd "$T/proj" && "$P" run --request "$T/req.json" 2>&1)
check "a JSON request with readPaths is asked as --read" sh -c \
	'echo "$0" | grep -q "reads a secret the sandbox keeps unread (--read): .*/proj/\.env"' "$out"

# Run as root, the same once more as an unprivileged user (nobody), in a home of its own.
if [ "$(id -u)" -eq 0 ] && [ -z "${PDK_SECRETS_UNPRIVILEGED:-}" ] && command -v setpriv >/dev/null; then
	as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
		--bounding-set=-all "$@"; }
	self=$(cd "$(dirname "$0")" && pwd)/$(basename "$0")
	if as_nobody test -x "$P" -a -r "$self"; then
		out=$(cd / && PADDOCK="$P" PDK_SECRETS_UNPRIVILEGED=1 as_nobody sh "$self" 2>&1)
		rc=$?
		printf '%s\n' "$out" | sed 's/^/# as nobody: /'
		check "the same as an unprivileged user (uid 65534) ($(printf '%s\n' "$out" |
			grep -c '^ok') checks)" test "$rc" -eq 0
	else
		echo "ok $((n = n + 1)) - # SKIP unprivileged run: uid 65534 cannot reach $P or $self"
	fi
	# And once more where no user namespace can be made: Landlock grants reads around them.
	nu=${top_builddir:-.}/tests/drivers/no-userns
	case $nu in /*) ;; *) nu=$(pwd)/$nu ;; esac
	if [ -x "$nu" ] && "$nu" test -x "$P" -a -r "$self"; then
		out=$(cd / && PADDOCK="$P" PDK_SECRETS_UNPRIVILEGED=1 PDK_SECRETS_NO_USERNS=1 \
			"$nu" sh "$self" 2>&1)
		rc=$?
		printf '%s\n' "$out" | sed 's/^/# no user namespaces: /'
		check "the same with no user namespace (uid 65534) ($(printf '%s\n' "$out" |
			grep -c '^ok') checks)" test "$rc" -eq 0
	else
		echo "ok $((n = n + 1)) - # SKIP no user namespace: tests/drivers/no-userns missing"
	fi
fi

echo "1..$n"
[ "$fails" -eq 0 ]
