package ssh

import (
	"strings"

	"manent.dev/manent/internal/sshexec"
)

// The scripts run on the targets. Each is sent on the standard input of
// /bin/sh, whatever the login's shell, and takes its values as positional
// parameters that the command line quotes (sshexec.Quote): no value is
// ever part of a script's text, so no path, version or key can change
// what it does. They print what manent must read as lines "manent:<key>
// <value>"; everything else they print goes to the deploy log.
//
// The scripts that change a target take the target's lock first: flock(1)
// on <path>/.manent/lock where the host has it, which the kernel releases
// when the script dies however it dies (a remote command of a worker that
// was killed may outlive it); elsewhere the directory .manent/lock.d,
// which the script removes when it exits (see lock). Their exit statuses:
// 65 for a refusal that retrying cannot change (the message on stderr),
// 75 for a failure that may pass (a lock held too long, an upload that
// arrived damaged); any other status is the failure of a command
// (permanent).
//
// awk compares a field and a value that both look like numbers as
// numbers (1.1 == 1.10, 2 == 2.0): every comparison of the scripts
// appends "" to both sides, which makes it one of strings.
const (
	exitRefused   = 65
	exitTemporary = 75
)

// prelude is the start of every script: $1 is the target directory. The
// scripts that write the state file set owner (whose lines they are, see
// stateOwner), deployment and now first.
const prelude = `set -u
dir=$1
shift
refuse() { printf '%s\n' "$*" >&2; exit 65; }
later() { printf '%s\n' "$*" >&2; exit 75; }
say() { printf 'manent:%s\n' "$*"; }
# The version current points at (the last component of its link, as
# every step reads it), "" when none.
current() {
	c=$(readlink current 2>/dev/null) || return 0
	while :; do case $c in */) c=${c%/} ;; *) break ;; esac; done
	printf '%s' "${c##*/}"
}
lock() {
	mkdir -p .manent || exit 1
	if command -v flock >/dev/null 2>&1; then
		exec 9>>.manent/lock || exit 1
		flock -w 120 9 || later "another deploy held the lock of $dir for 2 minutes"
		return 0
	fi
	# No flock(1): mkdir is atomic on any file system. The directory
	# goes when the script exits or is signalled; only a command killed
	# outright (SIGKILL, a crash of the host) leaves it, for an
	# operator to remove: two commands must never both hold it.
	waited=0
	until mkdir .manent/lock.d 2>/dev/null; do
		if [ "$waited" -eq 0 ]; then
			printf 'waiting for the lock of %s (.manent/lock.d, %s)\n' "$dir" "$(cat .manent/lock.d/holder 2>/dev/null)" >&2
		fi
		waited=$((waited + 1))
		[ "$waited" -le 120 ] || later "the lock .manent/lock.d of $dir has been held for 2 minutes ($(cat .manent/lock.d/holder 2>/dev/null)); if no deploy to this directory is running, the command that held it was killed: remove the directory"
		sleep 1
	done
	trap 'rm -rf .manent/lock.d' EXIT
	trap 'exit 75' HUP INT TERM
	printf 'process %s of %s since %s\n' "$$" "${deployment:-?}" "${now:-?}" >.manent/lock.d/holder || exit 1
}
# mine VERSION: whether the owner's line of VERSION is in the state file;
# others VERSION: whether anyone else's is (a line without an owner,
# written before owners were, counts as someone else's).
mine() {
	[ -f .manent/state ] && awk -v v="$1" -v w="$owner" \
		'$1 "" == v "" && $6 "" == w "" { f = 1 } END { exit !f }' .manent/state
}
others() {
	[ -f .manent/state ] && awk -v v="$1" -v w="$owner" \
		'$1 "" == v "" && $6 "" != w "" { f = 1 } END { exit !f }' .manent/state
}
# journal OP VERSION: one line per operation and key, written before the
# operation is done (see the local plugin).
journal() {
	if [ -f .manent/journal ] && awk -v op="$1" -v key="$key" -v v="$2" \
		'$2 "" == op "" && $4 "" == key "" && $5 "" == v "" { found = 1 } END { exit !found }' .manent/journal; then
		return 0
	fi
	printf '%s %s %s %s %s\n' "$now" "$1" "$deployment" "$key" "$2" >>.manent/journal || exit 1
}
# setstate VERSION OUTCOME [SHA256]: the owner's line of the release in
# the state file, "<version> <outcome> <deployment> <sha256> <time>
# <owner>"; with a digest the line is the deployment's, without it only
# the outcome and time change (and a release without the owner's line
# gets none).
setstate() {
	: >>.manent/state || exit 1
	awk -v v="$1" -v o="$2" -v s="${3:-}" -v d="$deployment" -v t="$now" -v w="$owner" '
		$1 "" == v "" && $6 "" == w "" { found = 1; $2 = o; $5 = t; if (s != "") { $3 = d; $4 = s } }
		{ print }
		END { if (!found && s != "") print v, o, d, s, t, w }' .manent/state >.manent/state.tmp || exit 1
	mv -f .manent/state.tmp .manent/state || exit 1
}
# claim VERSION SHA256: the owner's line of a release that is there, as
# deployed unless the owner has one already.
claim() {
	mine "$1" || setstate "$1" deployed "$2"
}
dropstate() {
	[ -f .manent/state ] || return 0
	awk -v v="$1" -v w="$owner" '!($1 "" == v "" && $6 "" == w "")' .manent/state >.manent/state.tmp || exit 1
	mv -f .manent/state.tmp .manent/state || exit 1
}
showstate() {
	if [ -f .manent/state ]; then
		while IFS= read -r line; do say "state $line"; done <.manent/state
	fi
}
# removetree DIR: rm -rf, after giving the owner write permission on
# every directory (a release unpacked before they were all made 0755
# may have read-only ones).
removetree() {
	chmod -R u+w -- "$1" 2>/dev/null
	rm -rf -- "$1"
}
# switch TARGET: current -> TARGET, atomically: a new link renamed over
# current (GNU mv -T, BSD mv -h: a plain mv would move it into the
# directory current points at).
switch() {
	tmp=.current.tmp-$$
	rm -f "$tmp"
	ln -s "$1" "$tmp" || exit 1
	if ! mv -T "$tmp" current 2>.manent/mv.err; then
		if grep -qi 'option' .manent/mv.err && mv -h "$tmp" current; then
			:
		else
			cat .manent/mv.err >&2
			rm -f "$tmp"
			exit 1
		fi
	fi
	rm -f .manent/mv.err
}
# release VERSION: "present <sha256>", "present" (a directory manent did
# not unpack) or "absent".
release() {
	if [ -f "releases/$1/.manent-release" ]; then
		printf 'present %s' "$(cat "releases/$1/.manent-release")"
	elif [ -e "releases/$1" ] || [ -L "releases/$1" ]; then
		printf 'present'
	else
		printf 'absent'
	fi
}
`

// probeScript reads a target and changes nothing: the release in service,
// the state of each version given, and the state file.
const probeScript = prelude + `
if ! cd -- "$dir" 2>/dev/null; then
	say "current "
	for v in "$@"; do say "release $v absent"; done
	exit 0
fi
say "current $(current)"
for v in "$@"; do say "release $v $(release "$v")"; done
showstate
`

// prepareScript creates the directories of a deploy and reads the target
// as probeScript does for the version: $1 version, $2 sha256, $3 owner,
// $4 deployment, $5 time. A release already there from the same digest
// gets the owner's state line if it has none (a deploy cut short between
// its rename and its state line, or the release of another environment
// on the same path).
const prepareScript = prelude + `
version=$1 sha=$2 owner=$3 deployment=$4 now=$5
mkdir -p -- "$dir" || exit 1
cd -- "$dir" || exit 1
mkdir -p releases .manent || exit 1
lock
say "current $(current)"
st=$(release "$version")
if [ "$st" = "present $sha" ]; then
	claim "$version" "$sha"
fi
say "release $version $st"
`

// unpackScript: $1 version, $2 sha256, $3 upload file (in .manent), $4 tar
// flags, $5 key, $6 deployment, $7 time, $8 owner. It checks the digest
// of the upload, unpacks it into a staging directory, and renames that
// into place: the rename is the commit point.
const unpackScript = prelude + `
version=$1 sha=$2 upload=$3 flags=$4 key=$5 deployment=$6 now=$7 owner=$8
cd -- "$dir" || exit 1
lock
case "$(release "$version")" in
"present $sha")
	rm -f ".manent/$upload"
	claim "$version" "$sha"
	say "kept"
	exit 0 ;;
present*)
	refuse "release $version already exists with other content; give the new artifact a new version" ;;
esac
if command -v sha256sum >/dev/null 2>&1; then
	got=$(sha256sum <".manent/$upload") || exit 1
else
	got=$(shasum -a 256 <".manent/$upload") || exit 1
fi
got=${got%% *}
if [ "$got" != "$sha" ]; then
	rm -f ".manent/$upload"
	later "the uploaded artifact has sha256 $got, not $sha: it was damaged on its way"
fi
for d in releases/.*.tmp-*; do
	case "$d" in
	releases/.*.tmp-*[!0-9]*) ;;
	*) if [ -d "$d" ]; then removetree "$d" && echo "removed $d, the staging directory of an interrupted deploy"; fi ;;
	esac
done
tmp=releases/.$version.tmp-$$
removetree "$tmp"
mkdir -- "$tmp" || exit 1
if ! tar "-x${flags}f" ".manent/$upload" -C "$tmp" </dev/null; then
	removetree "$tmp"
	exit 1
fi
# As the local plugin: no set-user-ID, set-group-ID or sticky bit, and
# every directory 0755 (tar keeps an archive's read-only directories,
# which the login could then not remove).
chmod -R a-st "$tmp" || exit 1
find "$tmp" -type d -exec chmod 755 {} + || exit 1
printf '%s\n' "$sha" >"$tmp/.manent-release" || exit 1
journal deploy "$version"
mv -- "$tmp" "releases/$version" || exit 1
setstate "$version" deployed "$sha"
rm -f ".manent/$upload"
say "unpacked $(find "releases/$version" -type f ! -name .manent-release | wc -l)"
`

// activateScript: $1 version, $2 key, $3 deployment, $4 time, $5 owner.
// It switches current to the release, then shows the state file for
// pruning. A release already in service gets its state written too: the
// switch of an activation cut short before its state line was done.
const activateScript = prelude + `
version=$1 key=$2 deployment=$3 now=$4 owner=$5
cd -- "$dir" 2>/dev/null || refuse "release $version is not deployed"
lock
[ -f "releases/$version/.manent-release" ] || refuse "release $version is not deployed"
cur=$(current)
say "current $cur"
if [ "$cur" = "$version" ]; then
	setstate "$version" activated
	say "already"
else
	journal activate "$version"
	switch "releases/$version"
	setstate "$version" activated
	say "switched"
fi
showstate
`

// rollbackActivationScript: $1 version (rolled back), $2 the checkpoint's
// release ("" for none), $3 key, $4 deployment, $5 time, $6 owner.
const rollbackActivationScript = prelude + `
version=$1 prev=$2 key=$3 deployment=$4 now=$5 owner=$6
cd -- "$dir" || exit 1
lock
if [ "$(current)" = "$prev" ]; then
	say "already"
	exit 0
fi
if [ -z "$prev" ]; then
	journal rollback "$version"
	rm -f current || exit 1
else
	[ -f "releases/$prev/.manent-release" ] || refuse "release $prev of the checkpoint is no longer on the target"
	journal rollback "$version"
	switch "releases/$prev"
	setstate "$prev" activated
fi
setstate "$version" rolled-back
say "done"
`

// removeScript: $1 op (remove or prune), $2 key, $3 deployment, $4 time,
// $5 owner, then the versions to remove. A release in service is never
// removed, and neither is one another owner's line records: the owner's
// line goes, the release stays for the other ("shared"). A release is
// renamed out of releases/ before it is removed, so that a removal cut
// short leaves no half release a later deploy would keep, but a staging
// directory the next deploy removes.
const removeScript = prelude + `
op=$1 key=$2 deployment=$3 now=$4 owner=$5
shift 5
cd -- "$dir" || exit 1
lock
for version in "$@"; do
	if [ "$(current)" = "$version" ]; then
		refuse "release $version is in service; roll back the activation first"
	fi
done
for version in "$@"; do
	if [ ! -e "releases/$version" ] && [ ! -L "releases/$version" ]; then
		dropstate "$version"
		continue
	fi
	if others "$version"; then
		dropstate "$version"
		say "shared $version"
		continue
	fi
	journal "$op" "$version"
	gone=releases/.$version.tmp-$$
	removetree "$gone"
	mv -- "releases/$version" "$gone" || exit 1
	dropstate "$version"
	removetree "$gone" || exit 1
	say "removed $version"
done
`

// script is the command line that runs a script with its values.
func script(name, text string, args ...string) sshexec.Command {
	var b strings.Builder
	b.WriteString("/bin/sh -s --")
	for _, a := range args {
		b.WriteByte(' ')
		b.WriteString(sshexec.Quote(a))
	}
	return sshexec.Command{Name: name, Line: b.String(), Stdin: strings.NewReader(text)}
}
