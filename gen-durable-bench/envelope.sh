#!/usr/bin/env bash
# One PostgreSQL server's envelope (docs/scaling.md): for each CPU count PostgreSQL is given (taskset on
# the machine's server), one bench invocation per cell, each appending its JSON line to RESULTS:
#   latency                      the idle engine's insert -> start and signal -> woken latency
#   backlog-<B>                  a burn-down of --burn jobs with B - burn rows waiting (B in --backlogs)
#   retention-<R>                a burn-down of --burn jobs with R completed rows in the table (R in --retentions)
# Every line carries tags {cell, cores, cpus}; `table.sh envelope RESULTS` prints the table.
#
#   gen-durable-bench/envelope.sh RESULTS.jsonl [jdbc-url] [--cores=1,2] [--backlogs=1000000,10000000]
#       [--retentions=0,1000000,10000000] [--burn=200000] [--cells=latency,backlog,retention]
#       [--no-taskset] [--dry-run] [bench options, e.g. --require-autovacuum=off]
#
# The server must run on this machine (its processes visible) and the script must be allowed to change their
# CPU affinity (root, or the postgres user): for N cores it runs `taskset -a -p -c 0-(N-1)` on the postmaster
# and every existing postgres process (new backends inherit the postmaster's affinity), and restores the
# postmaster's original affinity on all of them at the end, whatever happens (trap). It prints what it did.
# Each cell is its own bench invocation: a failed cell is reported and the others still run (exit status 1
# at the end if any failed). The bench's options default to --require-autovacuum=on and --backlog-vacuum=on.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"
results="${1:?usage: envelope.sh RESULTS.jsonl [jdbc-url] [--cores=1,2] [--backlogs=...] [--retentions=...] [--burn=N] [bench options]}"
shift
url="${GENDURABLE_BENCH_DB_URL:-jdbc:postgresql://127.0.0.1:5432/postgres?user=postgres}"
cores=1,2
backlogs=1000000,10000000
retentions=0,1000000,10000000
burn=200000
cells=latency,backlog,retention
taskset_on=1
dry=0
require_av=--require-autovacuum=on
vacuum=--backlog-vacuum=on
bench_opts=()
for a in "$@"; do
  case "$a" in
    jdbc:*) url="$a" ;;
    --cores=*) cores="${a#--cores=}" ;;
    --backlogs=*) backlogs="${a#--backlogs=}" ;;
    --retentions=*) retentions="${a#--retentions=}" ;;
    --burn=*) burn="${a#--burn=}" ;;
    --cells=*) cells="${a#--cells=}" ;;
    --no-taskset) taskset_on=0 ;;
    --dry-run) dry=1 ;;
    --require-autovacuum=*) require_av="$a" ;;
    --backlog-vacuum=*) vacuum="$a" ;;
    --*) bench_opts+=("$a") ;;
    *) echo "envelope.sh: unknown argument $a" >&2; exit 2 ;;
  esac
done
log() { echo "[envelope $(date -u +%H:%M:%S)] $*" >&2; }

# psql from the JDBC URL: host, port, database, user (password from PGPASSWORD or ~/.pgpass)
hostport="${url#jdbc:postgresql://}"; hostport="${hostport%%/*}"
pg_host="${hostport%%:*}"; pg_port=5432; [[ "$hostport" == *:* ]] && pg_port="${hostport##*:}"
pg_db="${url#jdbc:postgresql://*/}"; pg_db="${pg_db%%\?*}"
pg_user="$(sed -n 's/.*[?&]user=\([^&]*\).*/\1/p' <<<"$url")"; pg_user="${pg_user:-postgres}"
sql() { psql -X -A -t -q -h "$pg_host" -p "$pg_port" -U "$pg_user" -d "$pg_db" -c "$1"; }

postmaster=""
original=""
pg_processes() { echo "$postmaster"; pgrep -P "$postmaster" || true; }
pin() {  # pin CPULIST: the postmaster and every postgres process now running
  local cpus="$1" n=0 p
  for p in $(pg_processes); do
    if [[ "$dry" == 1 ]]; then
      echo "  would run: taskset -a -p -c $cpus $p" >&2
    else
      taskset -a -p -c "$cpus" "$p" >/dev/null && n=$((n + 1))
    fi
  done
  [[ "$dry" == 1 ]] || log "taskset -a -p -c $cpus on the postmaster ($postmaster) and its processes: $n set; now $(taskset -p -c "$postmaster" | sed 's/.*: //')"
}
restore() {
  if [[ -n "$postmaster" && -n "$original" ]]; then
    log "restoring PostgreSQL's CPU affinity to $original"
    pin "$original" || log "could not restore the affinity: run taskset -a -p -c $original on $postmaster and its children by hand"
  fi
}
trap restore EXIT

if [[ "$taskset_on" == 1 ]]; then
  # the postmaster: the parent of the checkpointer (one per server)
  cp="$(sql "SELECT pid FROM pg_stat_activity WHERE backend_type = 'checkpointer'")"
  [[ -n "$cp" ]] || { echo "envelope.sh: could not find the server's checkpointer (is $url local?)" >&2; exit 1; }
  postmaster="$(ps -o ppid= -p "$cp" | tr -d ' ')"
  [[ "$(cat "/proc/$postmaster/comm" 2>/dev/null)" == postgres* ]] || { echo "envelope.sh: $postmaster is not a postgres process" >&2; exit 1; }
  original="$(taskset -p -c "$postmaster" | sed 's/.*: //')"
  log "PostgreSQL postmaster $postmaster, CPU affinity $original, $(pg_processes | wc -l) processes"
  if [[ "$dry" != 1 ]] && ! taskset -p -c "$original" "$postmaster" >/dev/null 2>&1; then
    echo "envelope.sh: not allowed to change the postmaster's CPU affinity (run as root or postgres, or pass --no-taskset)" >&2
    exit 1
  fi
fi
if [[ "$dry" != 1 && ( "${BENCH_NO_BUILD:-0}" != 1 || ! -f "$here/target/bench.classpath" ) ]]; then
  (cd "$root" && mvn -B -q verify -pl gen-durable-bench -am -DskipTests >&2)
fi
export BENCH_NO_BUILD=1
mkdir -p "$(dirname "$results")"
failed=()
cell() {  # cell NAME CORES bench-args...: one invocation, its line(s) appended to RESULTS
  local name="$1" n="$2"; shift 2
  local cpus="${affinity:-unpinned}"
  log "cell $name, PostgreSQL on $n core(s) ($cpus): bench.sh $*"
  if [[ "$dry" == 1 ]]; then
    return
  fi
  local t0=$SECONDS
  if "$here/bench.sh" "$url" "$require_av" "$vacuum" ${bench_opts[@]+"${bench_opts[@]}"} --tags="cell=$name,cores=$n,cpus=$cpus" "$@" >>"$results"; then
    log "cell $name on $n core(s): done in $((SECONDS - t0)) s"
  else
    log "cell $name on $n core(s): FAILED after $((SECONDS - t0)) s (its line, if any, has the error)"
    failed+=("$name@$n")
  fi
}
for n in ${cores//,/ }; do
  affinity=""
  if [[ "$taskset_on" == 1 ]]; then
    affinity="0-$((n - 1))"
    [[ "$n" == 1 ]] && affinity=0
    pin "$affinity"
  fi
  for c in ${cells//,/ }; do
    case "$c" in
      latency) cell latency "$n" latency ;;
      backlog)
        for b in ${backlogs//,/ }; do
          cell "backlog-$b" "$n" --backlog="$b" --backlog-burn="$burn" backlog
        done ;;
      retention)
        for r in ${retentions//,/ }; do
          cell "retention-$r" "$n" --backlog="$burn" --backlog-burn="$burn" --backlog-done="$r" backlog
        done ;;
      *) echo "envelope.sh: unknown cell kind $c (latency, backlog, retention)" >&2; exit 2 ;;
    esac
  done
done
if ((${#failed[@]})); then
  log "failed cells: ${failed[*]}"
  exit 1
fi
log "every cell done: $results (table: gen-durable-bench/table.sh envelope $results)"
