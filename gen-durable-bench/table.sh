#!/usr/bin/env bash
# Prints a markdown table of gen-durable-bench/results/LOG.md from JSON lines; every figure comes from the file,
# nothing is typed by hand.
#   gen-durable-bench/table.sh results/compare-....jsonl          "Current figures" (one compare.sh invocation; its servers' rows need jq)
#   gen-durable-bench/table.sh scaleout results/....jsonl         "Scale-out and pathologies" (needs jq)
#   gen-durable-bench/table.sh scaleout-nodes results/....jsonl   each node's claims and conflicts (needs jq)
#   gen-durable-bench/table.sh hotkey results/....jsonl           (needs jq)
#   gen-durable-bench/table.sh farfuture results/....jsonl...     one row per file and variant (needs jq)
#   gen-durable-bench/table.sh latency results/....jsonl          one row per latency run (needs jq)
#   gen-durable-bench/table.sh envelope results/....jsonl         "One server's envelope" of docs/scaling.md, envelope.sh's lines (needs jq)
#   gen-durable-bench/table.sh soak results/....jsonl             the soak's samples, one row each (needs jq)
set -euo pipefail
case "${1:-}" in
  scaleout)
    echo '| JVMs × concurrency | jobs/s, median (runs) | ÷ 1 JVM | CPU µs per job: JVMs · PostgreSQL · total | CPU per job ÷ 1 JVM | machine busy % | load, 1 min, mean (runs) |'
    echo '|---|---|---|---|---|---|---|'
    jq -r 'select(.scenario == "scaleout") | .results as $r |
      "| \(.params.nodes) × \(.params.concurrency_per_node) | **\($r.jobs_per_s | round)** (\($r.runs_jobs_per_s | map(round | tostring) | join(" / "))) | **\($r.ratio_to_1_node)** | \($r.cpu_us_per_job.node_jvms | round) · \($r.cpu_us_per_job.db | round) · \($r.cpu_us_per_job.total | round) | \($r.cpu_per_job_ratio_to_1_node) | \($r.cpu.machine_busy_pct | round) | \($r.load_avg_1m.mean) (\($r.runs_load_avg_1m_mean | map(tostring) | join(" / "))) |"' "$2" ;;
  scaleout-nodes)
    echo '| JVMs | node | jobs | claims | rows per claim | empty claims | short claims | K = 1 retries · given up | flush deferred (row locked) | flush errors | stale |'
    echo '|---|---|---|---|---|---|---|---|---|---|---|'
    jq -r 'select(.scenario == "scaleout") | .params.nodes as $k | .results.per_node[] | .counters as $c |
      "| \($k) | \(.node) | \($c.jobs) | \($c.picks) | \(if $c.rows_per_pick == null then "—" else ($c.rows_per_pick * 10 | round / 10) end) | \($c.empty_picks) | \($c.short_picks) | \($c.contended) · \($c.contended_deferred) | \($c.flush_deferred) | \($c.flush_errors) | \($c.stale) |"' "$2" ;;
  hotkey)
    echo '| Variant | ordinary jobs/s, median (runs) | hot-key rows done meanwhile (per s) | claim: ms · pick-index rows read · buffers · rows claimed | the same, fresh table (no hot row running) |'
    echo '|---|---|---|---|---|'
    jq -r 'select(.scenario == "hotkey") | .results | to_entries[] | select(.value | type == "object") |
      .value as $v | "| \(.key) | **\($v.ordinary.jobs_per_s | round)** (\($v.runs_jobs_per_s | map(round | tostring) | join(" / "))) | \($v.beside_done) (\($v.beside_per_s | round)) | \($v.claim_plan.execution_ms) · \($v.claim_plan.pick_index_rows_read) · \($v.claim_plan.buffers) · \($v.claim_plan.rows) | \($v.claim_plan_before.execution_ms) · \($v.claim_plan_before.pick_index_rows_read) · \($v.claim_plan_before.buffers) · \($v.claim_plan_before.rows) |"' "$2"
    jq -r 'select(.scenario == "hotkey") | "\nordinary_ratio (beside ÷ alone): **\(.results.ordinary_ratio)**; load average before: \(.load_avg_before | map(tostring) | join(" / "))"' "$2" ;;
  latency)
    echo '| Run | start at insert | insert→start ms p50 · p95 · p99 · max | insert call p50 · p99 | signal→woken ms p50 · p95 · p99 · max | signal call p50 · p99 | started at insert | load before |'
    echo '|---|---|---|---|---|---|---|---|'
    jq -r 'select(.scenario == "latency") | .results as $r | $r.insert_to_start.insert_to_start_ms as $i
      | $r.insert_to_start.insert_call_ms as $ic | $r.signal_to_wake.signal_to_woken_step_ms as $s
      | $r.signal_to_wake.signal_call_ms as $sc
      | "| \(.started_at[11:19]) | \(if .config.start_at_insert == null then "—" else .config.start_at_insert end) | **\($i.p50)** · \($i.p95) · **\($i.p99)** · \($i.max) | \($ic.p50) · \($ic.p99) | **\($s.p50)** · \($s.p95) · **\($s.p99)** · \($s.max) | \($sc.p50) · \($sc.p99) | \(.engine_metrics.started_at_insert // 0) | \(.load_avg_before[0]) |"' "$2" ;;
  envelope)
    echo '| PostgreSQL cores | cell | rows waiting · done rows kept | burn-down jobs/s | claim ms: before · after the burn (pick-index buffers) | CPU µs per job: JVM · PostgreSQL | table MB before → after the burn: heap · indexes | dead tuples after | WAL MB of the burn | load rows/s · done rows/s | autovacuum |'
    echo '|---|---|---|---|---|---|---|---|---|---|---|'
    jq -r 'select(.scenario == "backlog" and .tags != null) | .results as $r | ($r.burn.cpu) as $c
      | def mb: . / 1048576 | round;
      "| \(.tags.cores) | \(.tags.cell) | \(.params.rows - .params.burn) · \(.params.done_rows // 0) | **\($r.burn.jobs_per_s | round)** | **\($r.claim_plan.execution_ms)** · \($r.claim_plan_after_burn.execution_ms // "—") (\($r.claim_plan.pick_index_buffers) · \($r.claim_plan_after_burn.pick_index_buffers // "—")) | \(($c.jvm_cpu_s * 1e6 / $r.burn.jobs) | round) · \(if $c.db_cpu_s == null then "—" else (($c.db_cpu_s * 1e6 / $r.burn.jobs) | round) end) | \($r.table_before_burn.heap_bytes | mb) · \($r.table_before_burn.indexes_bytes | mb) → \($r.table_after_burn.heap_bytes | mb) · \($r.table_after_burn.indexes_bytes | mb) | \($r.table_after_burn.n_dead_tup) | \($r.burn_wal_bytes | mb) | \($r.load.rows_per_s | round) · \($r.done_rows.rows_per_s // 0 | round) | \(.db.autovacuum) |"' "$2"
    echo
    echo '| PostgreSQL cores | idle insert → start ms p50 · p99 | signal → woken step ms p50 · p99 | autovacuum |'
    echo '|---|---|---|---|'
    jq -r 'select(.scenario == "latency" and .tags != null) | .results as $r
      | "| \(.tags.cores) | **\($r.insert_to_start.insert_to_start_ms.p50)** · \($r.insert_to_start.insert_to_start_ms.p99) | **\($r.signal_to_wake.signal_to_woken_step_ms.p50)** · \($r.signal_to_wake.signal_to_woken_step_ms.p99) | \(.db.autovacuum) |"' "$2" ;;
  soak)
    echo '| t, min | offered jobs/s | completed jobs/s | insert → start ms p50 · p99 | runnable backlog | table MB: heap · indexes (pick index) | live · dead tuples | GC deleted | autovacuums (last) | WAL MB | PostgreSQL CPU s |'
    echo '|---|---|---|---|---|---|---|---|---|---|---|'
    jq -r 'select(.scenario == "soak-sample") | def mb: . / 1048576 | round;
      "| \(.t_s / 6 | round / 10) | \(.offered_per_s | round) | **\(.completed_per_s | round)** | **\(.claim_latency_ms.p50)** · \(.claim_latency_ms.p99) | \(.backlog_runnable) | \(.table.heap_bytes | mb) · \(.table.indexes_bytes | mb) (\(.table.index_bytes.gen_durable_pick | mb)) | \(.table.n_live_tup) · \(.table.n_dead_tup) | \(.engine.gc_swept // "—") | \(.table.autovacuum_count) (\(if .table.last_autovacuum == null then "—" else .table.last_autovacuum[11:19] end)) | \(.wal_bytes | mb) | \(.cpu.db_cpu_s // "—") |"' "$2"
    jq -r 'select(.scenario == "soak") | .results as $r | def mb: . / 1048576 | round;
      "\nautovacuum \(.autovacuum), GC retention \(.params.gc.retention) (engine default: \(.params.gc.engine_defaults)); \($r.totals.inserted) jobs in \($r.totals.load_seconds | round) s (\($r.totals.offered_per_s | round)/s offered), drained: \($r.totals.drained) in \($r.totals.drain_seconds) s; table \($r.before.total_bytes | mb) MB before, \($r.after.total_bytes | mb) MB after (heap \($r.after.heap_bytes | mb), indexes \($r.after.indexes_bytes | mb)); WAL \($r.totals.wal_bytes | mb) MB (\($r.totals.wal_bytes_per_job | round) bytes per job, the server'"'"'s)"' "$2" ;;
  farfuture)
    shift
    echo '| Run | variant | jobs/s, median (runs) | claim ms | claim buffers | pick-index buffers · rows read | rows claimed |'
    echo '|---|---|---|---|---|---|---|'
    for f in "$@"; do
      jq -r --arg f "$(basename "$f")" 'select(.scenario == "farfuture") | .results | to_entries[] | select(.value | type == "object") |
        .value as $v | "| \($f) | \(.key) | \($v.ordinary.jobs_per_s | round) (\($v.runs_jobs_per_s | map(round | tostring) | join(" / "))) | \($v.claim_plan.execution_ms) | \($v.claim_plan.buffers) | \($v.claim_plan.pick_index_buffers) · \($v.claim_plan.pick_index_rows_read) | \($v.claim_plan.rows) |"' "$f"
    done
    for f in "$@"; do
      jq -r --arg f "$(basename "$f")" 'select(.scenario == "farfuture") | "\n\($f): claim_ms_ratio **\(.results.claim_ms_ratio)**, claim_buffers_ratio \(.results.claim_buffers_ratio), ordinary_ratio \(.results.ordinary_ratio); load average before: \(.load_avg_before | map(tostring) | join(" / "))"' "$f"
    done ;;
  *)
    f="${1:?usage: table.sh compare-output.jsonl | table.sh scaleout|scaleout-nodes|hotkey|farfuture|latency file.jsonl...}"
    cmp="$(grep '"comparison":"jobs"' "$f" | tail -1)"
    ceiling="$(grep '"scenario":"ceiling"' "$f" | tail -1)"
    num() { grep -o "\"$1\":[0-9.]*" | head -1 | cut -d: -f2; }
    arr() { grep -o "\"$1\":\[[^]]*\]" | head -1 | sed 's/.*\[\(.*\)\]/\1/; s/,/ \/ /g'; }
    # per tuned / CDI line: the median run's CPU microseconds per job
    cpu() { grep "\"scenario\":\"$1\"" "$f" | grep "\"engine\":\"gen-durable" | while read -r l; do
              printf '%.0f/%.0f\n' "$(num jvm_us <<<"$l")" "$(num db_us <<<"$l")"; done | paste -sd, | sed 's/,/, /g'; }
    # per tuned line: the JIT compiler threads' CPU microseconds per job within its JVM figure (empty before the split existed)
    jit() { grep "\"scenario\":\"$1\"" "$f" | grep "\"engine\":\"gen-durable" | while read -r l; do
              v="$(num jvm_jit_us <<<"$l")"; [[ -n "$v" ]] && printf '%.0f\n' "$v"; done | paste -sd, | sed 's/,/, /g'; }
    steps() { grep -o "\"threads_$1\":{\"threads\":$1,[^}]*\"steps_per_s\":[0-9.]*" <<<"$ceiling" | grep -o '[0-9.]*$'; }
    cat <<EOT
| Figure | Value |
|---|---|
| gen-durable \`jobs\` (tuned), jobs/s, median run of each pair | $(arr gen_durable_jobs_per_s <<<"$cmp") |
| gen-durable \`jobs-cdi\` (defaults via CDI), jobs/s | $(arr gen_durable_cdi_defaults_jobs_per_s <<<"$cmp") |
| db-scheduler 16.12 (lock-and-fetch, 32 threads), jobs/s | $(arr db_scheduler_jobs_per_s <<<"$cmp") |
| \`ratio_median\` (tuned ÷ db-scheduler) | **$(num ratio_median <<<"$cmp")** |
| \`ratio_cdi_defaults_median\` (defaults ÷ db-scheduler) | $(num ratio_cdi_defaults_median <<<"$cmp") |
| \`cdi_defaults_vs_tuned\` · vs best tuned run | **$(num cdi_defaults_vs_tuned <<<"$cmp")** · $(num cdi_defaults_vs_best_tuned <<<"$cmp") |
| \`ceiling\` steps/s, 1 · 4 · 8 threads (median of 3 × 100,000) | $(steps 1) · $(steps 4) · $(steps 8) |
| \`jobs_vs_ceiling\` (median tuned ÷ best ceiling) | **$(num jobs_vs_ceiling <<<"$cmp")** |
| CPU µs per job, tuned, median over pairs: JVM · PostgreSQL | $(num jvm_us <<<"$cmp") · $(num db_us <<<"$cmp") |
| CPU µs per job, JVM/PostgreSQL, each pair's median run: tuned | $(cpu jobs) |
| the same, defaults via CDI | $(cpu jobs-cdi) |
| of the JVM µs, the JIT's compiler threads: tuned · defaults | $(jit jobs) · $(jit jobs-cdi) |
EOT
    # the bench WAR in the application servers, when the comparison ran them (needs jq)
    if grep -q '"servers":{' <<<"$cmp"; then
      jq -r '.servers | to_entries[] | .key as $s | .value |
        "| bench WAR in \($s): jobs/s preloaded · live · first live after deployment | \(.jobs_per_s | round) · \(.live_jobs_per_s | round) · \(.live_first_jobs_per_s | round) |",
        "| \($s) ÷ tuned: preloaded · live · CPU per job, JVM · PostgreSQL | **\(.jobs_vs_tuned)** · **\(.live_vs_tuned)** · \(.jvm_cpu_vs_tuned) · \(.db_cpu_vs_tuned) |",
        "| \($s): CPU µs per job, JVM · PostgreSQL · blocking jobs/s (÷ ideal) · fsm steps/s | \(.cpu_us_per_job.jvm_us) · \(.cpu_us_per_job.db_us) · \(.blocking_jobs_per_s | round) (\(.blocking_vs_ideal)) · \(.fsm_steps_per_s | round) |"' <<<"$cmp"
    fi
    ;;
esac
