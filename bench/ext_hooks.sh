#!/bin/sh
# bench/ext_hooks.sh — what a user pays for extensions (issue 16):
#   1. a no-op beforeTool hook per tool call (it runs sandboxed), side by side
#      with the same calls without hooks: `zero hooks test beforeTool` runs
#      the hook N times through the run's spawner vs an empty hooks.json;
#   2. startup with 50 skills + 50 commands vs none (`zero skills list`).
# Usage: bench/ext_hooks.sh [ZERO_BIN] [N]. Prints ms per call / per start.
set -eu
ZERO=${1:-build/zero}
N=${2:-20}
T=$(mktemp -d /var/tmp/zero-bench-ext-XXXXXX)
trap 'rm -rf "$T"' EXIT
export HOME="$T/home" XDG_CONFIG_HOME="$T/home/.config"
mkdir -p "$XDG_CONFIG_HOME/zero" "$T/ws"
cd "$T/ws"
now() { date +%s%N; }
ms() { echo "scale=2; ($2 - $1) / 1000000 / $3" | bc; }

# 1. one hook run per call: N hook runs vs N runs with no matching hook
printf '{"hooks":[{"id":"noop","event":"beforeTool","command":"/bin/true","args":[]}]}' \
  > "$XDG_CONFIG_HOME/zero/hooks.json"
payload="$T/p.json"; printf '{"toolName":"read_file","toolInput":{"path":"x"}}' > "$payload"
a=$(now); i=0; while [ $i -lt "$N" ]; do "$ZERO" hooks test beforeTool --payload "$payload" >/dev/null; i=$((i+1)); done; b=$(now)
printf '{"hooks":[]}' > "$XDG_CONFIG_HOME/zero/hooks.json"
c=$(now); i=0; while [ $i -lt "$N" ]; do "$ZERO" hooks test beforeTool --payload "$payload" >/dev/null; i=$((i+1)); done; d=$(now)
echo "no-op beforeTool hook: $(ms "$a" "$b" "$N") ms with vs $(ms "$c" "$d" "$N") ms without (per call, incl. zero start)"

# 2. startup with 50 skills and 50 commands vs none
c0=$(now); i=0; while [ $i -lt "$N" ]; do "$ZERO" skills list >/dev/null; i=$((i+1)); done; c1=$(now)
i=0; while [ $i -lt 50 ]; do
  mkdir -p "$XDG_CONFIG_HOME/zero/skills/s$i" "$XDG_CONFIG_HOME/zero/commands"
  printf -- '---\nname: s%d\ndescription: skill %d does a thing\n---\nbody\n' $i $i > "$XDG_CONFIG_HOME/zero/skills/s$i/SKILL.md"
  printf -- '---\ndescription: command %d\n---\nDo $ARGUMENTS\n' $i > "$XDG_CONFIG_HOME/zero/commands/c$i.md"
  i=$((i+1)); done
e0=$(now); i=0; while [ $i -lt "$N" ]; do "$ZERO" skills list >/dev/null; i=$((i+1)); done; e1=$(now)
echo "startup: $(ms "$e0" "$e1" "$N") ms with 50 skills + 50 commands vs $(ms "$c0" "$c1" "$N") ms with none"
