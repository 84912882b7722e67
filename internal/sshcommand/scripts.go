package sshcommand

// The scripts run on the target with /bin/sh -c, whatever the login's
// shell, each taking its values as positional parameters that the command
// line quotes (sshexec.Quote): no path, name or argument is ever part of a
// script's text, and no secret or MANENT_* value is ever on a command line.
//
// The layout on the target is <secrets_dir>/<deploy>/<step>/<attempt>/
// with env (the contract, sourced by the run script), output (the
// command's $MANENT_OUTPUT) and secrets/<name> ($MANENT_SECRETS_DIR).
// <step> and below are the login's, 0700, and their files 0600.
// secrets_dir and <deploy> may be shared by the logins of a host (the
// steps of a deploy may log in as different users): they are made 1777,
// as /tmp is, and must be a directory of the login's or root's, never a
// symbolic link, writable by others only with the sticky bit. A directory
// another user owns is refused: its owner could move the login's
// directories and put its own in their place, to read the secrets written
// there or to change the environment file the run sources. So the levels
// go again once empty (secrets_dir when it is the login's), and an
// operator whose host has several logins makes secrets_dir root's, 1777.

// The exit statuses of the prepare script: a refusal that trying again
// cannot change (its reason on stderr), and a program whose SHA-256 is not
// run.sha256.
const (
	exitRefused  = 65
	exitMismatch = 66
)

// The exit status the contract gives a temporary failure (EX_TEMPFAIL),
// and those of timeout(1) when it stopped the command: 124 after its
// SIGTERM, 137 when the command needed the SIGKILL of -k.
const (
	exitTemporary   = 75
	exitTimedOut    = 124
	exitTimedOutKil = 137
)

// prepareScript: $1 secrets_dir, $2 deploy, $3 step, $4 attempt, $5
// run.sha256 or "", $6 the program; then the names of the secrets. It
// removes every earlier attempt of the step (also one a crash left), checks
// the program, makes the attempt's directory and its empty files (so that
// the uploads, which keep a file's mode, write into 0600 files), and says
// "manent:timeout" when timeout(1) takes -k and passes the command's
// arguments on untouched.
const prepareScript = `set -u
set -f
umask 077
base=$1 deployment=$2 step=$3 attempt=$4 sum=$5 prog=$6
shift 6
refuse() { printf '%s\n' "$*" >&2; exit 65; }
uid=$(id -u) || refuse "id -u failed"
shared() {
	if [ ! -d "$1" ] && [ ! -L "$1" ]; then
		mkdir -m 1777 -- "$1" 2>/dev/null || [ -d "$1" ] ||
			refuse "cannot create $1 (its parent directory must exist and let the login write)"
	fi
	set -- "$1" $(LC_ALL=C ls -ldn -- "$1" 2>/dev/null)
	[ $# -ge 4 ] || refuse "cannot read the mode of $1"
	case $2 in
	d*) ;;
	*) refuse "$1 is not a directory (a symbolic link?): remove it" ;;
	esac
	[ "$4" = "$uid" ] || [ "$4" = 0 ] ||
		refuse "$1 belongs to another user (uid $4), who could replace what this login writes there; when several logins run command steps on a host, make secrets_dir root's, mode 1777"
	case $2 in
	?????w*|????????w*)
		case $2 in
		?????????[tT]*) ;;
		*) refuse "$1 is writable by other users without the sticky bit" ;;
		esac
		;;
	esac
}
shared "$base"
shared "$base/$deployment"
sd=$base/$deployment/$step
if [ -e "$sd" ] || [ -L "$sd" ]; then
	rm -rf -- "$sd" 2>/dev/null || refuse "cannot remove the earlier attempts in $sd (does it belong to another user?)"
fi
if [ ! -f "$prog" ] || [ ! -x "$prog" ]; then
	refuse "$prog is not an executable file"
fi
if [ -n "$sum" ]; then
	if command -v sha256sum >/dev/null 2>&1; then
		got=$(sha256sum <"$prog") || refuse "cannot read $prog to check run.sha256"
	elif command -v shasum >/dev/null 2>&1; then
		got=$(shasum -a 256 <"$prog") || refuse "cannot read $prog to check run.sha256"
	else
		refuse "neither sha256sum nor shasum is installed: run.sha256 cannot be checked"
	fi
	[ "${got%% *}" = "$sum" ] || exit 66
fi
# The last run of another deploy may remove the shared levels, empty,
# between the checks and the mkdir: they are made again.
tries=0
until mkdir -- "$sd" 2>/dev/null; do
	tries=$((tries + 1))
	[ "$tries" -lt 3 ] || refuse "cannot create $sd"
	shared "$base"
	shared "$base/$deployment"
done
dir=$sd/$attempt
mkdir -- "$dir" "$dir/secrets" || refuse "cannot create $dir"
: >"$dir/env" && : >"$dir/output" || refuse "cannot create the files of $dir"
for name do
	: >"$dir/secrets/$name" || refuse "cannot create the file of the secret $name"
done
if command -v timeout >/dev/null 2>&1; then
	timeout -k 1 10 /bin/sh -c 'exit 3' -x 2>/dev/null
	[ $? -eq 3 ] && printf 'manent:timeout\n'
fi
exit 0
`

// runScript: $1 the attempt's directory, then the command and its
// arguments. The contract comes from the environment file, so that no
// value shows in ps; the file also says whether and when timeout(1) stops
// the command (manent_timeout, manent_kill, in seconds).
const runScript = `dir=$1
shift
if [ ! -r "$dir/env" ]; then
	printf 'manent: %s/env is gone: another attempt of the step removed it\n' "$dir" >&2
	exit 75
fi
. "$dir/env"
MANENT_SECRETS_DIR=$dir/secrets
MANENT_OUTPUT=$dir/output
export MANENT_SECRETS_DIR MANENT_OUTPUT
if [ "${manent_timeout:-0}" -gt 0 ]; then
	exec timeout -k "$manent_kill" "$manent_timeout" "$@"
fi
exec "$@"
`

// finishScript: $1 the attempt's directory, $2 1 to read the outputs. It
// says "manent:size <bytes>" and, unless that is over the limit, the
// file's bytes in hexadecimal (od: short lines whatever the file holds);
// then it removes the directory, and the step's and the deploy's when
// they are left empty.
const finishScript = `set -u
dir=$1 read=$2
if [ "$read" = 1 ]; then
	out=$dir/output
	if [ -L "$out" ]; then
		printf 'manent:symlink\n'
	elif [ -f "$out" ]; then
		size=$(wc -c <"$out") || exit 1
		size=$((size + 0))
		printf 'manent:size %s\n' "$size"
		if [ "$size" -le ` + maxOutputBytesText + ` ]; then
			od -An -v -tx1 "$out" || exit 1
		fi
	else
		printf 'manent:missing\n'
	fi
fi
rm -rf -- "$dir" || exit 1
# secrets_dir goes too when it is the login's and empty, so that the next
# login to run a step on the host can make it its own; one of root's
# (made by an operator, see prepare) stays.
if rmdir -- "${dir%/*}" "${dir%/*/*}" 2>/dev/null; then
	base=${dir%/*/*/*}
	uid=$(id -u)
	set -f
	set -- $(LC_ALL=C ls -ldn -- "$base" 2>/dev/null)
	if [ "$uid" != 0 ] && [ "${3:-}" = "$uid" ]; then
		rmdir -- "$base" 2>/dev/null
	fi
fi
exit 0
`
