#!/bin/sh
# bench/ext_hooks.sh — what a user pays for extensions (issue 16):
#   1. a no-op beforeTool hook per tool call, side by side with the same run
#      without hooks: `zero exec` against the fake model server making N
#      read_file calls, with the hook run in the run's one sandbox (the hook
#      runner, the default), with a sandbox per call (ZERO_HOOK_RUNNER=off,
#      what zero did before), and without hooks, RUNS rounds interleaved;
#      per call (median turn with - without), the first call's wait for the
#      sandbox, the whole run, CPU, beside the floor: a bare start of the
#      same hook process (bench/ext_hooks_calls.py says what each includes);
#   2. one hook in a fresh process (`zero hooks test`, a sandbox for it alone);
#   3. startup with 50 skills + 50 commands vs none (`zero hooks list`,
#      5N alternating starts of each: bench/ext_hooks_startup.py).
# Usage: bench/ext_hooks.sh [ZERO_BIN] [N] [RUNS]. Prints the load average
# first: the figures are wall times on whatever else the machine runs.
set -eu
ZERO=$(realpath "${1:-build/zero}")
N=${2:-60}
RUNS=${3:-5}
HERE=$(cd "$(dirname "$0")" && pwd)
T=$(mktemp -d /var/tmp/zero-bench-ext-XXXXXX)
trap 'rm -rf "$T"' EXIT
export HOME="$T/home" XDG_CONFIG_HOME="$T/home/.config"
mkdir -p "$XDG_CONFIG_HOME/zero" "$T/ws"
cd "$T/ws"
now() { date +%s%N; }
ms() { echo "scale=2; ($2 - $1) / 1000000 / $3" | bc; }
hook='{"hooks":[{"id":"noop","event":"beforeTool","command":"/bin/true","args":[]}]}'
nohook='{"hooks":[]}'

echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg) ($(nproc) CPUs)"

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

# 3. startup with 50 skills and 50 commands vs none: `zero hooks list`
#    (it loads the extensions as a run's start does), alternating starts:
#    bench/ext_hooks_startup.py.
python3 "$HERE/ext_hooks_startup.py" "$ZERO" "$((N * 5))" "$T/startup"
