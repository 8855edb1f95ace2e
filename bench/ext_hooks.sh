#!/bin/sh
# bench/ext_hooks.sh — what a user pays for extensions (issue 16):
#   1. a no-op beforeTool hook per tool call, side by side with the same run
#      without hooks: `zero exec` against the fake model server making N
#      read_file calls, with the hook run in the run's one sandbox (the hook
#      runner, the default), with a sandbox per call (ZERO_HOOK_RUNNER=off,
#      what zero did before), and without hooks; (with - without) / N in
#      wall and CPU time, beside the floor: a bare start of the same hook
#      process (bench/ext_hooks_calls.py);
#   2. one hook in a fresh process (`zero hooks test`, a sandbox for it alone);
#   3. startup with 50 skills + 50 commands vs none (`zero skills list`).
# Usage: bench/ext_hooks.sh [ZERO_BIN] [N] [RUNS]. Prints ms per call / per start
# (the best of RUNS runs for 1, the mean of N starts for 2 and 3).
set -eu
ZERO=$(realpath "${1:-build/zero}")
N=${2:-40}
RUNS=${3:-3}
HERE=$(cd "$(dirname "$0")" && pwd)
T=$(mktemp -d /var/tmp/zero-bench-ext-XXXXXX)
trap 'kill $SRV 2>/dev/null || true; rm -rf "$T"' EXIT
SRV=
export HOME="$T/home" XDG_CONFIG_HOME="$T/home/.config"
mkdir -p "$XDG_CONFIG_HOME/zero" "$T/ws"
cd "$T/ws"
i=0; while [ $i -lt "$N" ]; do echo "hello $i" > "a$i.txt"; i=$((i+1)); done
now() { date +%s%N; }
ms() { echo "scale=2; ($2 - $1) / 1000000 / $3" | bc; }
hook='{"hooks":[{"id":"noop","event":"beforeTool","command":"/bin/true","args":[]}]}'
nohook='{"hooks":[]}'

# 1. N tool calls in one run, with/without the hook, and the floor (a bare
#    start of the hook's process), interleaved: bench/ext_hooks_calls.py.
export OPENAI_API_KEY=sk-bench OPENAI_MODEL=bench
python3 "$HERE/ext_hooks_calls.py" "$ZERO" "$N" "$RUNS" "$T/calls"

# 2. one hook in a fresh process
payload="$T/p.json"; printf '{"toolName":"read_file","toolInput":{"path":"x"}}' > "$payload"
printf '%s' "$hook" > "$XDG_CONFIG_HOME/zero/hooks.json"
a=$(now); i=0; while [ $i -lt "$N" ]; do "$ZERO" hooks test beforeTool --payload "$payload" >/dev/null; i=$((i+1)); done; b=$(now)
printf '%s' "$nohook" > "$XDG_CONFIG_HOME/zero/hooks.json"
c=$(now); i=0; while [ $i -lt "$N" ]; do "$ZERO" hooks test beforeTool --payload "$payload" >/dev/null; i=$((i+1)); done; d=$(now)
echo "zero hooks test (one hook, fresh process): $(ms "$a" "$b" "$N") ms with vs $(ms "$c" "$d" "$N") ms without"

# 3. startup with 50 skills and 50 commands vs none: `zero hooks list` loads
#    the extensions as a run's start does (the skills; custom commands are
#    read on first use) and prints only the hooks.
cpu() { # CPU ms (user+sys) of N runs of zero hooks list
  /usr/bin/time -f "%U %S" sh -c 'i=0; while [ $i -lt '"$N"' ]; do "$1" hooks list >/dev/null; i=$((i+1)); done' _ "$ZERO" 2>&1 | awk '{print ($1 + $2) * 1000}'
}
c0=$(now); i=0; while [ $i -lt "$N" ]; do "$ZERO" hooks list >/dev/null; i=$((i+1)); done; c1=$(now)
cn=$(cpu)
i=0; while [ $i -lt 50 ]; do
  mkdir -p "$XDG_CONFIG_HOME/zero/skills/s$i" "$XDG_CONFIG_HOME/zero/commands"
  printf -- '---\nname: s%d\ndescription: skill %d does a thing\n---\nbody\n' $i $i > "$XDG_CONFIG_HOME/zero/skills/s$i/SKILL.md"
  printf -- '---\ndescription: command %d\n---\nDo $ARGUMENTS\n' $i > "$XDG_CONFIG_HOME/zero/commands/c$i.md"
  i=$((i+1)); done
e0=$(now); i=0; while [ $i -lt "$N" ]; do "$ZERO" hooks list >/dev/null; i=$((i+1)); done; e1=$(now)
ce=$(cpu)
echo "startup: $(ms "$e0" "$e1" "$N") ms wall with 50 skills + 50 commands vs $(ms "$c0" "$c1" "$N") ms with none; CPU $(echo "scale=2; $ce / $N" | bc) ms vs $(echo "scale=2; $cn / $N" | bc) ms"
