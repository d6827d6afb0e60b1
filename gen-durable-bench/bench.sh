#!/usr/bin/env bash
# Runs the gen-durable benchmark harness: bench.sh [jdbc-url] [--option=value]... scenario... | all
# Builds the bench module first (mvn verify -DskipTests, never install) unless BENCH_NO_BUILD=1.
# One JSON object per scenario on stdout; progress on stderr. See docs/performance.md.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"
if [[ "${BENCH_NO_BUILD:-0}" != 1 || ! -f "$here/target/bench.classpath" ]]; then
  (cd "$root" && mvn -B -q verify -pl gen-durable-bench -am -DskipTests >&2)
fi
git_rev="$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)"
main="${BENCH_MAIN:-io.gendurable.bench.Bench}"
exec java ${BENCH_JAVA_OPTS:--Xms512m -Xmx1g} -Dbench.git="$git_rev" \
  -cp "$here/target/classes:$here/target/test-classes:$(cat "$here/target/bench.classpath")" \
  "$main" "$@"
