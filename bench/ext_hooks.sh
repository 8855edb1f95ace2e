#!/bin/sh
# bench/ext_hooks.sh — what a user pays for extensions (issue 16):
#   1. a no-op beforeTool hook per tool call, side by side with the same run
#      without hooks: `zero exec` against the fake model server making N
#      read_file calls, with the hook run in the run's one sandbox (the hook
#      runner, the default), with a sandbox per call (ZERO_HOOK_RUNNER=off,
#      what zero did before), and without hooks; (with - without) / N;
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

# 1. N tool calls in one run: the fake server answers N read_file calls (a file each), then "done".
python3 - "$N" "$T/script.json" <<'PY'
import json, sys
n = int(sys.argv[1])
turns = [{"tool_calls": [{"name": "read_file", "arguments": {"path": "a%d.txt" % i}}]}
         for i in range(n)]
json.dump(turns + [{"text": "done"}], open(sys.argv[2], "w"))
PY
SRV=
serve() { # a fresh fake server for one run (a script is consumed once)
  [ -n "$SRV" ] && kill "$SRV" 2>/dev/null && wait "$SRV" 2>/dev/null || true
  rm -f "$T/port"
  python3 "$HERE/../tests/e2e/fake_server.py" "$T/script.json" > "$T/port" 2>/dev/null &
  SRV=$!
  while ! grep -q PORT "$T/port" 2>/dev/null; do sleep 0.02; done
  export OPENAI_BASE_URL="http://127.0.0.1:$(awk '{print $2}' "$T/port")/v1"
}
export OPENAI_API_KEY=sk-bench OPENAI_MODEL=bench
best() { # best wall time (ns) of RUNS runs of zero exec with hooks.json = $1
  printf '%s' "$1" > "$XDG_CONFIG_HOME/zero/hooks.json"
  b=0; r=0
  while [ $r -lt "$RUNS" ]; do
    serve; s=$(now); "$ZERO" exec --max-turns $((N + 5)) "read the $N files" >/dev/null 2>"$T/err" || { cat "$T/err" >&2; exit 1; }; e=$(now)
    d=$((e - s)); if [ $b -eq 0 ] || [ $d -lt $b ]; then b=$d; fi; r=$((r + 1))
  done
  echo $b
}
without=$(best "$nohook")
with=$(best "$hook")
percall=$(ZERO_HOOK_RUNNER=off best "$hook")
echo "no-op beforeTool hook, $N calls in one run: +$(ms "$without" "$with" "$N") ms per call (one sandbox per run) vs +$(ms "$without" "$percall" "$N") ms (a sandbox per call); run without hooks $(ms 0 "$without" 1) ms"

# 2. one hook in a fresh process
payload="$T/p.json"; printf '{"toolName":"read_file","toolInput":{"path":"x"}}' > "$payload"
printf '%s' "$hook" > "$XDG_CONFIG_HOME/zero/hooks.json"
a=$(now); i=0; while [ $i -lt "$N" ]; do "$ZERO" hooks test beforeTool --payload "$payload" >/dev/null; i=$((i+1)); done; b=$(now)
printf '%s' "$nohook" > "$XDG_CONFIG_HOME/zero/hooks.json"
c=$(now); i=0; while [ $i -lt "$N" ]; do "$ZERO" hooks test beforeTool --payload "$payload" >/dev/null; i=$((i+1)); done; d=$(now)
echo "zero hooks test (one hook, fresh process): $(ms "$a" "$b" "$N") ms with vs $(ms "$c" "$d" "$N") ms without"

# 3. startup with 50 skills and 50 commands vs none
c0=$(now); i=0; while [ $i -lt "$N" ]; do "$ZERO" skills list >/dev/null; i=$((i+1)); done; c1=$(now)
i=0; while [ $i -lt 50 ]; do
  mkdir -p "$XDG_CONFIG_HOME/zero/skills/s$i" "$XDG_CONFIG_HOME/zero/commands"
  printf -- '---\nname: s%d\ndescription: skill %d does a thing\n---\nbody\n' $i $i > "$XDG_CONFIG_HOME/zero/skills/s$i/SKILL.md"
  printf -- '---\ndescription: command %d\n---\nDo $ARGUMENTS\n' $i > "$XDG_CONFIG_HOME/zero/commands/c$i.md"
  i=$((i+1)); done
e0=$(now); i=0; while [ $i -lt "$N" ]; do "$ZERO" skills list >/dev/null; i=$((i+1)); done; e1=$(now)
echo "startup: $(ms "$e0" "$e1" "$N") ms with 50 skills + 50 commands vs $(ms "$c0" "$c1" "$N") ms with none"
