#!/usr/bin/env bash
# Runs each libFuzzer target for a while, seeded from the conformance suites.
#   scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]      (default 60 s, every target)
# Crashing inputs are written to .fuzz/crashes/TARGET/; replay one with
#   swift run wkstore-fuzz TARGET FILE
# and turn it into a regression test. Prints executions and crashes per target.
set -uo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
shift || true
work=.fuzz
mkdir -p "$work"

# The fuzzer is built by swiftc directly: SwiftPM would link libFuzzer's main into the build
# plugin's tool too. The library is compiled into the fuzzer's module, with the migrations
# embedded by the same tool the package build uses.
swift build --product MigrationEmbedder >/dev/null || exit 1
bin=$(swift build --show-bin-path)
"$bin/MigrationEmbedder" "$work/EmbeddedMigrations.swift" Migrations/*.sql || exit 1
sources=$(find Sources/WebsiteData Sources/wkstore-fuzz -name '*.swift')
swiftc -O -g -sanitize=fuzzer,address -parse-as-library -DFUZZING -swift-version 6 \
    -module-name wkstore_fuzz -I Sources/CSQLite -I Sources/CPSL -I Sources/CCurl \
    $sources "$work/EmbeddedMigrations.swift" -lsqlite3 -lpsl -o "$work/wkstore-fuzz" >"$work/build.log" 2>&1 || { cat "$work/build.log"; exit 1; }

targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=($("$bin/wkstore-fuzz" 2>/dev/null | sed -n 's/.*targets: //p' | tr -d ','))
status=0
for target in "${targets[@]}"; do
    corpus="$work/corpus/$target"; crashes="$work/crashes/$target"
    mkdir -p "$corpus" "$crashes"
    scripts/fuzz-seeds.py "$target" "$corpus"
    log="$work/$target.log"
    WKSTORE_FUZZ_TARGET=$target SWIFT_BACKTRACE=enable=no "$work/wkstore-fuzz" "$corpus" \
        -max_total_time="$seconds" -artifact_prefix="$crashes/" -max_len=65536 -timeout=10 -rss_limit_mb=4096 >"$log" 2>&1
    runs=$(grep -o 'stat::number_of_executed_units: [0-9]*' "$log" | awk '{print $2}')
    [ -z "$runs" ] && runs=$(grep -oE '#[0-9]+' "$log" | tail -1 | tr -d '#')
    found=$(ls "$crashes" | wc -l)
    echo "$target: ${runs:-0} executions in ${seconds}s, $found crashing inputs"
    [ "$found" -gt 0 ] && status=1
done
exit $status
