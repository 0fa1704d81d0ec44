#!/usr/bin/env bash
# Runs the test suite under ThreadSanitizer, in a scratch path of its own (the instrumented
# build is separate from the normal one; on 2 cores about 13 minutes in all).
#   scripts/tsan.sh [swift test arguments...]      e.g. scripts/tsan.sh --filter 'SideBySide|Process'
#
# Every race report fails the run: the test process, and the child processes the tests start
# (wkstore, wkstore-stress: the side-by-side test's 4 writers of 8 threads each), exit with
# status 66 when TSan reported anything; the children's reports reach the test output, and the
# reports in it are counted here.
#
# No suppressions. wkstore's locks are pthread mutexes (Locked, NSLock, NSCondition), which
# ThreadSanitizer sees; Synchronization.Mutex, which it cannot see on Linux (the standard
# library is not instrumented, so every access under it looks like a race), is not used.
# Tests that measure a child's peak memory are skipped (TSan's shadow memory is what they
# would measure). Tests run one at a time (--no-parallel): side by side on 2 cores, tests that
# wait synchronously for child processes hold Swift concurrency's threads, and the HTTP
# client's tests, slowed down by TSan, then miss their time limits; each test still runs its
# own threads and processes concurrently. WKSTORE_TSAN_SCRATCH sets the scratch path
# (default /tmp/build-tsan).
set -euo pipefail
cd "$(dirname "$0")/.."
scratch=${WKSTORE_TSAN_SCRATCH:-/tmp/build-tsan}
export TSAN_OPTIONS="second_deadlock_stack=1 exitcode=66 ${TSAN_OPTIONS:-}"
export SWIFT_BACKTRACE=enable=no

swift build --build-tests --sanitize=thread --scratch-path "$scratch"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
swift test --skip-build --sanitize=thread --scratch-path "$scratch" --no-parallel \
    --skip 'InterchangeLargeFile|aHundredMegabyteImport' "$@" 2>&1 | tee "$log" || status=$?
reports=$(grep -c 'WARNING: ThreadSanitizer' "$log" || true)
echo "tsan: ${reports} ThreadSanitizer reports, swift test exit status ${status}"
[ "$status" -eq 0 ] && [ "$reports" -eq 0 ]
