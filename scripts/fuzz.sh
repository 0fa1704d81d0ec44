#!/usr/bin/env bash
# Runs each libFuzzer target for a while, seeded from the conformance suites and the regression inputs.
#   scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]      (default 60 s, every target)
# Targets: set-cookie, cookie-date, cookie-store, netscape, storage-state, extension-json, cache-control, vary,
# idb-key, user-script (Sources/wkstore-fuzz/FuzzTargets*.swift).
# Crashing inputs are written to .fuzz/crashes/TARGET/; replay one with
#   swift run wkstore-fuzz TARGET FILE
# and keep it in Tests/WebsiteDataTests/Fixtures/fuzz-regressions/TARGET/ (HardeningFuzzRegressionTests
# replays that folder). The user-script target also writes sample scripts, which are then run in
# node and given to `node --check` (scripts/check-script-samples.js).
# Prints executions and crashes per target. WKSTORE_SCRATCH sets SwiftPM's scratch path (.build).
set -uo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
shift || true
work=.fuzz
scratch=${WKSTORE_SCRATCH:-.build}
mkdir -p "$work"

# The fuzzer is built by swiftc directly: SwiftPM would link libFuzzer's main into the build
# plugin's tool too. The library is compiled into the fuzzer's module, with the migrations
# embedded by the same tool the package build uses.
swift build --scratch-path "$scratch" --product MigrationEmbedder >/dev/null || exit 1
bin=$(swift build --scratch-path "$scratch" --show-bin-path)
"$bin/MigrationEmbedder" "$work/EmbeddedMigrations.swift" Migrations/*.sql || exit 1
sources=$(find Sources/WebsiteData Sources/wkstore-fuzz -name '*.swift')
swiftc -O -g -sanitize=fuzzer,address -parse-as-library -DFUZZING -swift-version 6 \
    -module-name wkstore_fuzz -package-name wkstore -I Sources/CSQLite -I Sources/CPSL -I Sources/CCurl \
    -I Sources/CWebsiteDataSupport/include \
    $sources "$work/EmbeddedMigrations.swift" -lsqlite3 -lpsl -o "$work/wkstore-fuzz" >"$work/build.log" 2>&1 || { cat "$work/build.log"; exit 1; }

targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    targets=($(sed -n 's/^ *"\([a-z-]*\)": [A-Za-z]*,$/\1/p' Sources/wkstore-fuzz/FuzzTargets.swift))
fi
status=0
for target in "${targets[@]}"; do
    corpus="$work/corpus/$target"; crashes="$work/crashes/$target"
    mkdir -p "$corpus" "$crashes"
    scripts/fuzz-seeds.py "$target" "$corpus" 2>/dev/null
    log="$work/$target.log"
    samples=""
    if [ "$target" = user-script ]; then
        samples="$work/samples/user-script"
        rm -rf "$samples"; mkdir -p "$samples"
    fi
    WKSTORE_FUZZ_TARGET=$target WKSTORE_FUZZ_SAMPLES=$samples SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=detect_leaks=0 \
        "$work/wkstore-fuzz" "$corpus" -max_total_time="$seconds" -artifact_prefix="$crashes/" \
        -max_len=65536 -timeout=10 -rss_limit_mb=4096 -print_final_stats=1 >"$log" 2>&1
    runs=$(grep -o 'stat::number_of_executed_units: [0-9]*' "$log" | awk '{print $2}' | tail -1)
    [ -z "$runs" ] && runs=$(grep -oE '#[0-9]+' "$log" | tail -1 | tr -d '#')
    found=$(ls "$crashes" | wc -l)
    echo "$target: ${runs:-0} executions in ${seconds}s, $found crashing inputs, corpus $(ls "$corpus" | wc -l)"
    [ "$found" -gt 0 ] && status=1
    if [ -n "$samples" ]; then
        node scripts/check-script-samples.js "$samples" 200 || status=1
    fi
done
exit $status
