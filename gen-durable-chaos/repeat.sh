#!/usr/bin/env bash
# Runs the short chaos suite N times in a row (default 5) and prints each result and duration.
# Usage: gen-durable-chaos/repeat.sh [N] [extra maven args…]   (from the repository root)
set -u
n="${1:-5}"
shift || true
pass=0
mkdir -p gen-durable-chaos/target
for i in $(seq 1 "$n"); do
  t0=$(date +%s)
  if mvn -B -q -pl gen-durable-chaos -am verify -DskipITs -Dtest=ChaosSuiteTest \
       -Dsurefire.failIfNoSpecifiedTests=false "$@" > "gen-durable-chaos/target/repeat-$i.log" 2>&1; then
    result=PASS; pass=$((pass + 1))
  else
    result=FAIL
  fi
  echo "run $i/$n: $result in $(( $(date +%s) - t0 )) s (log: gen-durable-chaos/target/repeat-$i.log)"
done
echo "$pass of $n runs passed"
[ "$pass" -eq "$n" ]
