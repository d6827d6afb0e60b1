#!/usr/bin/env bash
# Side by side on ONE database, one after the other: gen-durable `jobs` and db-scheduler (lock-and-fetch,
# 32 threads) burning down N pre-inserted no-op jobs; prints both JSON lines, then the ratio
# gen-durable jobs/s / db-scheduler jobs/s (the median over --runs pairs).
#
#   gen-durable-bench/compare.sh [jdbc-url] [--n=20000] [--runs=1] [--warmup=100000] [--repeat=3]
#                                [bench options, e.g. --concurrency=64]
#
# --warmup and --repeat go to both engines (each reports the median of --repeat runs after the
# warm-up); other options go to the gen-durable bench only.
#
# Without a URL (or $GENDURABLE_BENCH_DB_URL) it starts one embedded PostgreSQL (fsync on) for both.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"
url="${GENDURABLE_BENCH_DB_URL:-}"
n=20000
runs=1
bench_opts=()
both_opts=()
for a in "$@"; do
  case "$a" in
    jdbc:*) url="$a" ;;
    --n=*) n="${a#--n=}" ;;
    --runs=*) runs="${a#--runs=}" ;;
    --warmup=*|--repeat=*) both_opts+=("$a") ;;   # the same warm-up and repeats for both engines
    --*) bench_opts+=("$a") ;;
    *) echo "usage: compare.sh [jdbc-url] [--n=20000] [--runs=1] [--bench-option=value]..." >&2; exit 2 ;;
  esac
done
if [[ "${BENCH_NO_BUILD:-0}" != 1 || ! -f "$here/target/bench.classpath" ]]; then
  (cd "$root" && mvn -B -q verify -pl gen-durable-bench -am -DskipTests >&2)
fi
export BENCH_NO_BUILD=1
tmp="$(mktemp -d)"
server=""
cleanup() {
  if [[ -n "$server" ]]; then
    exec 3>&- || true          # EOF on the server's stdin: it stops PostgreSQL and exits
    wait "$server" 2>/dev/null || true
  fi
  rm -rf "$tmp"
}
trap cleanup EXIT
if [[ -z "$url" ]]; then
  mkfifo "$tmp/in"
  "$here/bench.sh" serve <"$tmp/in" >"$tmp/serve.json" 2>"$tmp/serve.err" &
  server=$!
  exec 3>"$tmp/in"
  for _ in $(seq 1 120); do
    grep -q '"serve"' "$tmp/serve.json" 2>/dev/null && break
    sleep 0.5
  done
  url="$(sed -n 's/.*"serve":"\([^"]*\)".*/\1/p' "$tmp/serve.json")"
  [[ -n "$url" ]] || { echo "the embedded PostgreSQL did not start:" >&2; cat "$tmp/serve.err" >&2; exit 1; }
  echo "compare: embedded PostgreSQL at $url (fsync on) for both" >&2
fi
rate() { grep -o '"jobs_per_s":[0-9.]*' | head -1 | cut -d: -f2; }
ours=()
theirs=()
for r in $(seq 1 "$runs"); do
  echo "compare: run $r of $runs: gen-durable, then db-scheduler, N=$n" >&2
  line="$("$here/bench.sh" "$url" --n="$n" "${both_opts[@]}" "${bench_opts[@]}" jobs)"
  echo "$line"
  ours+=("$(rate <<<"$line")")
  line="$(BENCH_MAIN=io.gendurable.bench.DbSchedulerJobs "$here/bench.sh" "$url" --n="$n" "${both_opts[@]}")"
  echo "$line"
  theirs+=("$(rate <<<"$line")")
done
ours_csv="$(IFS=,; echo "${ours[*]}")"
theirs_csv="$(IFS=,; echo "${theirs[*]}")"
awk -v ours="$ours_csv" -v theirs="$theirs_csv" -v n="$n" 'BEGIN {
  k = split(ours, a, ","); split(theirs, b, ",");
  for (i = 1; i <= k; i++) r[i] = a[i] / b[i];
  for (i = 2; i <= k; i++) { v = r[i]; j = i - 1; while (j > 0 && r[j] > v) { r[j + 1] = r[j]; j-- } r[j + 1] = v }
  med = (k % 2) ? r[(k + 1) / 2] : (r[k / 2] + r[k / 2 + 1]) / 2;
  printf "{\"comparison\":\"jobs\",\"n\":%d,\"runs\":%d,\"gen_durable_jobs_per_s\":[%s],\"db_scheduler_jobs_per_s\":[%s],\"ratio_median\":%.2f}\n", n, k, ours, theirs, med
}'
