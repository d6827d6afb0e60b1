#!/usr/bin/env bash
# Prints the markdown table of docs/performance.md ("Current figures") from the JSON lines of one
# compare.sh invocation:   gen-durable-bench/table.sh gen-durable-bench/results/compare-....jsonl
# Every figure comes from the file: nothing is typed by hand.
set -euo pipefail
f="${1:?usage: table.sh compare-output.jsonl}"
cmp="$(grep '"comparison":"jobs"' "$f" | tail -1)"
ceiling="$(grep '"scenario":"ceiling"' "$f" | tail -1)"
num() { grep -o "\"$1\":[0-9.]*" | head -1 | cut -d: -f2; }
arr() { grep -o "\"$1\":\[[^]]*\]" | head -1 | sed 's/.*\[\(.*\)\]/\1/; s/,/ \/ /g'; }
# per tuned / CDI line: the median run's CPU microseconds per job
cpu() { grep "\"scenario\":\"$1\"" "$f" | grep "\"engine\":\"gen-durable" | while read -r l; do
          printf '%.0f/%.0f\n' "$(num jvm_us <<<"$l")" "$(num db_us <<<"$l")"; done | paste -sd, | sed 's/,/, /g'; }
steps() { grep -o "\"threads_$1\":{\"threads\":$1,[^}]*\"steps_per_s\":[0-9.]*" <<<"$ceiling" | grep -o '[0-9.]*$'; }
cat <<EOF
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
EOF
