#!/usr/bin/env bash
# The package test (CI): builds the .deb, installs it with dpkg on this
# machine, checks that the installed zero runs (`zero --version`, `zero
# doctor`), that `man` finds its pages and bash loads its completion, then
# removes it and checks that no file of the package is left. Needs root and a
# machine where replacing /usr/bin/zero is fine (CI's throwaway machine).
set -euo pipefail
cd "$(dirname "$0")/.."

[ "$(id -u)" -eq 0 ] || { echo "deb-test: needs root (dpkg -i)" >&2; exit 1; }
if dpkg-query -W -f='${Status}' zero 2>/dev/null | grep -q "install ok installed"; then
  echo "deb-test: a zero package is already installed here; not replacing it" >&2
  exit 1
fi

deb=$(scripts/make-deb.sh | tail -n 1)
mapfile -t files < <(dpkg-deb --fsys-tarfile "$deb" | tar -t | grep -v '/$' | sed 's|^\./|/|')
echo "deb-test: $deb holds ${#files[@]} files"

fail() { echo "deb-test: FAIL: $*" >&2; dpkg -r zero >/dev/null 2>&1 || true; exit 1; }

dpkg -i "$deb" >/dev/null || fail "dpkg -i $deb"
home=$(mktemp -d)
trap 'rm -rf "$home"' EXIT
[ "$(command -v zero)" = /usr/bin/zero ] || fail "zero is not /usr/bin/zero on PATH"
HOME=$home zero --version | grep -q '^zero ' || fail "zero --version"
# No provider is configured in an empty HOME: doctor reports that (exit 3)
# rather than crashing; a sandbox problem or a crash is another code.
set +e
HOME=$home XDG_CONFIG_HOME=$home/.config zero doctor > "$home/doctor.out" 2>&1
rc=$?
set -e
case $rc in 0|3) ;; *) cat "$home/doctor.out" >&2; fail "zero doctor exited $rc" ;; esac
grep -q "sandbox" "$home/doctor.out" || fail "zero doctor did not report the sandbox"
man -w zero >/dev/null 2>&1 || fail "man -w zero"
man -w zero-exec >/dev/null 2>&1 || fail "man -w zero-exec"
man -w 5 zero-config >/dev/null 2>&1 || fail "man -w 5 zero-config"
bash -c 'source /usr/share/bash-completion/completions/zero && complete -p zero' >/dev/null ||
  fail "bash does not load the completion"

dpkg -r zero >/dev/null || fail "dpkg -r zero"
left=()
for f in "${files[@]}"; do [ -e "$f" ] && left+=("$f"); done
[ ${#left[@]} -eq 0 ] || fail "left after dpkg -r: ${left[*]}"
[ ! -e /usr/libexec/zero ] || fail "/usr/libexec/zero left after dpkg -r"
echo "deb-test: installed, ran, removed cleanly"
