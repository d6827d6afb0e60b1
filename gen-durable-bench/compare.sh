#!/usr/bin/env bash
# Side by side on ONE database, one after the other: gen-durable `jobs` (the tuned engine) and `jobs-cdi`
# (the engine booted by CDI with the default configuration), and db-scheduler (lock-and-fetch, 32 threads),
# each burning down N pre-inserted no-op jobs; then the bare SQL loop (`ceiling`); then the bench WAR in
# Open Liberty and WildFly (ServerBench: the servers as -Pbench-servers provisions them from the shipped
# configuration). Prints every JSON line, then one comparison: ratio_median (tuned / db-scheduler, median
# over --runs pairs), ratio_cdi_defaults_median, cdi_defaults_vs_tuned, jobs_vs_ceiling (median tuned
# jobs/s / the ceiling's best), the median CPU microseconds per job (JVM, PostgreSQL) of the tuned runs,
# and per server its figures and their ratios to the tuned engine (in-server / SE tuned); a side-by-side
# table goes to stderr.
#
#   gen-durable-bench/compare.sh [jdbc-url] [--n=100000] [--runs=1] [--warmup=100000] [--repeat=3]
#                                [--servers=liberty,wildfly|none] [bench options, e.g. --concurrency=64]
#
# N is 100,000 jobs a run, as many steps as each run of the ceiling: a run of 20,000 lasted about a second,
# and the JIT, still compiling after the warm-up, took half a core of it (results/LOG.md, session 27).
# --warmup and --repeat go to both engines and the servers (each reports the median of --repeat runs
# after the warm-up); --server-*, --blocking-n and --block-ms go to the servers; --fsm-n, --k,
# --live-warm and --stall-seconds to the gen-durable bench and the servers; other options go to the
# gen-durable bench only.
#
# Without a URL (or $GENDURABLE_BENCH_DB_URL) it starts one embedded PostgreSQL (fsync on) for both.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"
url="${GENDURABLE_BENCH_DB_URL:-}"
n=100000
runs=1
servers=liberty,wildfly
bench_opts=()
both_opts=()
server_opts=()
for a in "$@"; do
  case "$a" in
    jdbc:*) url="$a" ;;
    --n=*) n="${a#--n=}" ;;
    --runs=*) runs="${a#--runs=}" ;;
    --servers=*) servers="${a#--servers=}" ;;
    --warmup=*|--repeat=*) both_opts+=("$a") ;;   # the same warm-up and repeats for both engines and the servers
    --server-*|--blocking-n=*|--block-ms=*) server_opts+=("$a") ;;
    --fsm-n=*|--k=*|--live-warm=*|--stall-seconds=*) bench_opts+=("$a"); server_opts+=("$a") ;;
    --*) bench_opts+=("$a") ;;
    *) echo "usage: compare.sh [jdbc-url] [--n=100000] [--runs=1] [--servers=liberty,wildfly|none] [--bench-option=value]..." >&2; exit 2 ;;
  esac
done
[[ "$servers" == none ]] && servers=""
if [[ "${BENCH_NO_BUILD:-0}" != 1 || ! -f "$here/target/bench.classpath" ]]; then
  (cd "$root" && mvn -B -q verify -pl gen-durable-bench -am -DskipTests >&2)
fi
if [[ -n "$servers" && ( "${BENCH_NO_BUILD:-0}" != 1 || ! -f "$here/server-war/target/bench.war" ) ]]; then
  # the bench WAR, Open Liberty and WildFly (downloaded once into ~/.m2, unpacked and configured under server-war/target)
  (cd "$root" && mvn -B -q verify -pl gen-durable-bench/server-war -am -DskipTests -Pbench-servers >&2)
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
field() { grep -o "\"$1\":[0-9.]*" | head -1 | cut -d: -f2; }
ours=()
cdi=()
theirs=()
jvm_us=()
db_us=()
for r in $(seq 1 "$runs"); do
  echo "compare: run $r of $runs: gen-durable (tuned, then defaults via CDI), then db-scheduler, N=$n" >&2
  lines="$("$here/bench.sh" "$url" --n="$n" "${both_opts[@]}" "${bench_opts[@]}" jobs jobs-cdi)"
  echo "$lines"
  tuned="$(grep '"scenario":"jobs"' <<<"$lines")"
  ours+=("$(rate <<<"$tuned")")
  jvm_us+=("$(field jvm_us <<<"$tuned")")
  db_us+=("$(field db_us <<<"$tuned")")
  cdi+=("$(grep '"scenario":"jobs-cdi"' <<<"$lines" | rate)")
  line="$(BENCH_MAIN=io.gendurable.bench.DbSchedulerJobs "$here/bench.sh" "$url" --n="$n" "${both_opts[@]}")"
  echo "$line"
  theirs+=("$(rate <<<"$line")")
done
echo "compare: the ceiling (the bare SQL loop, its own warm-up)" >&2
line="$("$here/bench.sh" "$url" --warmup=0 ceiling)"
echo "$line"
ceiling="$(field best_steps_per_s <<<"$line")"
# name=figure,figure,...;name=... for awk: each server's headline figures (ServerBench's "figures")
srv=""
if [[ -n "$servers" ]]; then
  echo "compare: the bench WAR in $servers (each server started, warmed up and measured in turn)" >&2
  lines="$(BENCH_MAIN=io.gendurable.bench.ServerBench "$here/bench.sh" "$url" --n="$n" --servers="$servers" \
    "${both_opts[@]}" "${server_opts[@]}")" || echo "compare: ServerBench reported a failure (see its lines)" >&2
  echo "$lines"
  for s in ${servers//,/ }; do
    l="$(grep "\"scenario\":\"$s\"" <<<"$lines" || true)"
    v=""
    for k in jobs_per_s live_jobs_per_s live_first_jobs_per_s live_vs_preloaded jvm_us db_us blocking_jobs_per_s \
             blocking_vs_ideal fsm_steps_per_s; do
      v="$v,$(field "server_$k" <<<"$l")"
    done
    srv="$srv;$s=${v#,}"
  done
  srv="${srv#;}"
fi
csv() { local IFS=,; echo "$*"; }
awk -v ours="$(csv "${ours[@]}")" -v cdi="$(csv "${cdi[@]}")" -v theirs="$(csv "${theirs[@]}")" \
    -v jvm="$(csv "${jvm_us[@]}")" -v db="$(csv "${db_us[@]}")" -v ceiling="${ceiling:-0}" -v n="$n" -v srv="$srv" '
function median(csv,   a, k, i, j, v) {
  k = split(csv, a, ",");
  for (i = 2; i <= k; i++) { v = a[i] + 0; j = i - 1; while (j > 0 && a[j] + 0 > v) { a[j + 1] = a[j]; j-- } a[j + 1] = v }
  return (k % 2) ? a[(k + 1) / 2] + 0 : (a[k / 2] + a[k / 2 + 1]) / 2;
}
function ratios(num, den,   a, b, k, i, out) {
  k = split(num, a, ","); split(den, b, ","); out = "";
  for (i = 1; i <= k; i++) out = out (i > 1 ? "," : "") ((b[i] > 0) ? a[i] / b[i] : 0);
  return out;
}
BEGIN {
  k = split(ours, tmp, ",");
  best = 0; for (i = 1; i <= k; i++) if (tmp[i] + 0 > best) best = tmp[i] + 0;
  printf "{\"comparison\":\"jobs\",\"n\":%d,\"runs\":%d,\"gen_durable_jobs_per_s\":[%s],\"gen_durable_cdi_defaults_jobs_per_s\":[%s],\"db_scheduler_jobs_per_s\":[%s],", n, k, ours, cdi, theirs;
  printf "\"ratio_median\":%.2f,\"ratio_cdi_defaults_median\":%.2f,", median(ratios(ours, theirs)), median(ratios(cdi, theirs));
  printf "\"cdi_defaults_vs_tuned\":%.2f,\"cdi_defaults_vs_best_tuned\":%.2f,", median(cdi) / median(ours), median(cdi) / best;
  printf "\"ceiling_steps_per_s\":%.0f,\"jobs_vs_ceiling\":%.2f,", ceiling, (ceiling > 0) ? median(ours) / ceiling : 0;
  printf "\"cpu_us_per_job_median\":{\"jvm_us\":%.1f,\"db_us\":%.1f}", median(jvm), median(db);
  # per server: its figures, then in-server / SE tuned (jobs/s, live jobs/s, CPU per job)
  tuned = median(ours); tj = median(jvm); td = median(db);
  ns = (srv == "") ? 0 : split(srv, servers, ";");
  if (ns > 0) printf ",\"servers\":{";
  for (i = 1; i <= ns; i++) {
    split(servers[i], kv, "="); split(kv[2], f, ",");
    printf "%s\"%s\":{\"jobs_per_s\":%.1f,\"live_jobs_per_s\":%.1f,\"live_first_jobs_per_s\":%.1f,\"live_vs_preloaded\":%.2f,", (i > 1 ? "," : ""), kv[1], f[1], f[2], f[3], f[4];
    printf "\"cpu_us_per_job\":{\"jvm_us\":%.1f,\"db_us\":%.1f},\"blocking_jobs_per_s\":%.1f,\"blocking_vs_ideal\":%.2f,\"fsm_steps_per_s\":%.1f,", f[5], f[6], f[7], f[8], f[9];
    printf "\"jobs_vs_tuned\":%.2f,\"live_vs_tuned\":%.2f,\"jvm_cpu_vs_tuned\":%.2f,\"db_cpu_vs_tuned\":%.2f}", (tuned > 0) ? f[1] / tuned : 0, (tuned > 0) ? f[2] / tuned : 0, (tj > 0) ? f[5] / tj : 0, (td > 0) ? f[6] / td : 0;
    row[i] = sprintf("%-22s %10.0f %10.0f %8.2f %8.2f %7.1f %7.1f", kv[1], f[1], f[2], (tuned > 0) ? f[1] / tuned : 0, (tuned > 0) ? f[2] / tuned : 0, f[5], f[6]);
  }
  if (ns > 0) printf "}";
  printf "}\n";
  # side by side, on stderr: medians; ratios are to the tuned engine
  printf "%-22s %10s %10s %8s %8s %7s %7s\n", "engine", "jobs/s", "live/s", "÷tuned", "live÷t", "jvm µs", "db µs" > "/dev/stderr";
  printf "%-22s %10.0f %10s %8.2f %8s %7.1f %7.1f\n", "SE tuned", tuned, "-", 1, "-", tj, td > "/dev/stderr";
  printf "%-22s %10.0f %10s %8.2f %8s %7s %7s\n", "SE defaults (CDI)", median(cdi), "-", (tuned > 0) ? median(cdi) / tuned : 0, "-", "-", "-" > "/dev/stderr";
  for (i = 1; i <= ns; i++) print row[i] > "/dev/stderr";
  printf "%-22s %10.0f %10s %8.2f %8s %7s %7s\n", "db-scheduler", median(theirs), "-", (tuned > 0) ? median(theirs) / tuned : 0, "-", "-", "-" > "/dev/stderr";
}'
