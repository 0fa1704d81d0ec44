#!/usr/bin/env bash
# Long side-by-side soak: 4 writer processes x 8 tasks on one store for DURATION seconds while
# another process clears part of it every second. Prints operations per second, the longest
# wait a caller saw, and checks that every acknowledged cookie of the never-cleared sites is there.
#   scripts/soak.sh [DURATION_SECONDS]   (default 300; WKSTORE_SCRATCH sets SwiftPM's scratch path)
set -euo pipefail
cd "$(dirname "$0")/.."
duration=${1:-300}
scratch=${WKSTORE_SCRATCH:-.build}
swift build -c release --scratch-path "$scratch" --product wkstore-stress >/dev/null
swift build -c release --scratch-path "$scratch" --product wkstore >/dev/null
bin=$(swift build -c release --scratch-path "$scratch" --show-bin-path)/wkstore-stress
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
store="$dir/store"
"$bin" cookies --store "$store" --batches 0 >/dev/null   # creates the store with limits raised
pids=()
for p in 0 1 2 3; do
    "$bin" mixed --store "$store" --tasks 8 --duration "$duration" --prefix "p$p" >"$dir/out$p" &
    pids+=($!)
done
clears=0
end=$((SECONDS + duration))
while [ $SECONDS -lt $end ]; do
    "$bin" clear --store "$store" --sites clear0.example,clear1.example,clear2.example,clear3.example >/dev/null
    clears=$((clears + 1))
    sleep 1
done
for pid in "${pids[@]}"; do wait "$pid"; done
ops=0; acked=0; errors=0; longest=0
for p in 0 1 2 3; do
    while read -r key value; do
        case $key in
            operations) ops=$((ops + value)) ;;
            keep-acknowledged) acked=$((acked + value)) ;;
            errors) errors=$((errors + value)) ;;
            longest-wait-ms) [ "$value" -gt "$longest" ] && longest=$value ;;
        esac
    done <"$dir/out$p"
done
# Counted as the store reads them (its cookies table and the cookie changes logged since the last fold).
kept=$("$(dirname "$bin")/wkstore" --store "$store" export --format netscape 2>/dev/null \
    | awk -F'\t' '$1 ~ /^(#HttpOnly_)?\.?keep/' | wc -l || echo "?")
echo "soak: ${duration}s, 4 processes x 8 tasks, $clears clears"
echo "operations: $ops ($((ops / duration)) per second)"
echo "errors reaching callers: $errors"
echo "longest wait: ${longest} ms"
echo "acknowledged cookies of never-cleared sites: $acked, present: $kept"
[ "$errors" = 0 ] && [ "$kept" = "$acked" ]
