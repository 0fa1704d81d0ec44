#!/usr/bin/env bash
# Runs the test suite under ThreadSanitizer, in a scratch path of its own (the instrumented
# build is separate from the normal one and takes several minutes).
#   scripts/tsan.sh [swift test arguments...]      e.g. scripts/tsan.sh --filter 'SideBySide|Concurrency'
# Every race report is printed to standard error and fails the run: the test process, and the
# child processes tests start (wkstore, wkstore-stress), exit with status 66 when TSan reported
# anything. WKSTORE_TSAN_SCRATCH sets the scratch path (default /tmp/build-tsan).
set -euo pipefail
cd "$(dirname "$0")/.."
scratch=${WKSTORE_TSAN_SCRATCH:-/tmp/build-tsan}
export TSAN_OPTIONS="second_deadlock_stack=1 ${TSAN_OPTIONS:-}"
export SWIFT_BACKTRACE=enable=no
swift build --build-tests --sanitize=thread --scratch-path "$scratch"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
swift test --skip-build --sanitize=thread --scratch-path "$scratch" "$@" 2>&1 | tee "$log" || status=$?
reports=$(grep -c '^WARNING: ThreadSanitizer' "$log" || true)
echo "tsan: ${reports} ThreadSanitizer reports, swift test exit status ${status}"
[ "$status" -eq 0 ] && [ "$reports" -eq 0 ]
