#!/usr/bin/env bash
# regression.sh BASE ROUNDS OUT: the engine rows of this package (no
# client, in-process SDK, SDK client alone) and the runtime/ddblocal
# benchmarks, measured for commit BASE and for the working tree side by side
# in one run: both are built as test binaries, then run row by row,
# alternating which goes first, ROUNDS times with -benchtime 1s (a fixed
# count for the rows that grow their table). cmd/benchab
# writes the comparison to OUT (make bench-engine-regression). With RAW=dir
# set, the raw benchmark output of both versions is kept there.
set -euo pipefail
BASE=${1:?base commit}; ROUNDS=${2:-5}; OUT=${3:?output page}
ROOT=$(git rev-parse --show-toplevel)
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$WORK/before"
git -C "$ROOT" archive "$BASE" | tar -x -C "$WORK/before"
for v in before after; do
  src=$ROOT; [ $v = before ] && src=$WORK/before
  (if [ -f "$src/test/enginebench/go.mod" ]; then cd "$src/test/enginebench" && GOWORK=off go test -c -o "$WORK/eb-$v.test" .; else cd "$src" && go test -c -o "$WORK/eb-$v.test" ./test/enginebench; fi) && (cd "$src" && go test -c -o "$WORK/dl-$v.test" ./runtime/ddblocal)
done
PEERS='^(engine,_no_client|engine_in-process_.SDK.|SDK_client_alone)$'
# A row may end in @BENCHTIME. The PutItem rows insert a new item per
# operation, so that their cost grows with the table: they run a fixed
# count on both sides (with -benchtime 1s the faster side would run more
# operations into a larger table, and pay for it).
ROWS=(
  "BenchmarkEngine/^PutItem\$/$PEERS@20000x"
  "BenchmarkEngine/^conditional/$PEERS"
  "BenchmarkEngine/table_of_1k\$/$PEERS"
  "BenchmarkEngine/table_of_100k\$/$PEERS"
  "BenchmarkEngine/^Query/$PEERS"
  'BenchmarkStartup/^(engine,_no_client|engine_in-process_.SDK.)$'
  'ddblocal:^(BenchmarkHandlerHotUpdate|BenchmarkHandlerQuery100|BenchmarkHotConditionalUpdate|BenchmarkTransactWrite4|BenchmarkQuery100)$'
  'ddblocal:^BenchmarkHandlerPutItem$@200000x'
  'ddblocal:^BenchmarkPutItem$@40000x'
)
loads=()
run() { # version pattern[@benchtime]
  local v=$1 pat=$2 bin=$WORK/eb-$1.test dir=test/enginebench src=$ROOT bt=1s
  [ "$v" = before ] && src=$WORK/before
  if [[ $pat == *@* ]]; then bt=${pat##*@}; pat=${pat%@*}; fi
  if [[ $pat == ddblocal:* ]]; then bin=$WORK/dl-$v.test; dir=runtime/ddblocal; pat=${pat#ddblocal:}; fi
  (cd "$src/$dir" && "$bin" -test.run '^$' -test.bench "$pat" -test.benchtime "$bt" -test.count 1 -test.timeout 10m) |
    grep -E '^Benchmark' >>"$WORK/$v.txt"
}
for round in $(seq 1 "$ROUNDS"); do
  loads+=("round $round at $(date -u +%H:%M): $(cut -d' ' -f1-3 /proc/loadavg)")
  for pat in "${ROWS[@]}"; do
    if ((round % 2)); then run before "$pat"; run after "$pat"; else run after "$pat"; run before "$pat"; fi
  done
done
loads+=("end at $(date -u +%H:%M): $(cut -d' ' -f1-3 /proc/loadavg)")
(IFS=';'; cd "$ROOT/test/enginebench" && GOWORK=off go run ./cmd/benchab -before "$WORK/before.txt" -after "$WORK/after.txt" \
  -before-name "$BASE" -after-name "the working tree at $(git -C "$ROOT" rev-parse --short HEAD)" \
  -command "make bench-engine-regression BASE=$BASE ROUNDS=$ROUNDS" -rounds "$ROUNDS" -loads "${loads[*]}" -o "$OUT")
if [ -n "${RAW:-}" ]; then mkdir -p "$RAW" && cp "$WORK/before.txt" "$WORK/after.txt" "$RAW/"; fi
