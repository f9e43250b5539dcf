#!/usr/bin/env bash
# checksum_reference.sh: canonical.Checksum against the JavaScript
# reference (UTF-8 decoding + JSON.parse + canonicalStringify + SHA-256 in
# node) on the benchmark documents of 10 MB and 1 KB (internal/benchdoc).
# Both start each call from the document's bytes and end with the hex digest.
#
#   bash bench/checksum_reference.sh              # 5 rounds of 9 runs per size
#   ROUNDS=9 RUNS=15 bash bench/checksum_reference.sh
#
# Rounds alternate Go and node so that both see the machine in the same
# state; a run on either side times whole calls for at least 250 ms, each
# figure is the median of RUNS runs, and the last line per size is the
# median ratio over the rounds. Throughput is given per second of
# wall time and per second of the process's CPU time ("cpu"): on a machine
# shared with other jobs wall time measures the load as much as the code,
# and the CPU-time ratio is the steadier one. Node must produce the same
# digest as Go, or the script fails. "steal %" is the share of the
# machine's CPU time the hypervisor gave elsewhere while Go ran.
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${ROUNDS:-5}
RUNS=${RUNS:-9}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
command -v node > /dev/null || { echo "node is required" >&2; exit 1; }

go build -o "$TMP/checksumref" ./bench/checksumref
printf '%-6s %-6s %10s %10s %8s %10s %10s %8s %7s %8s\n' size round "Go MB/s" "ref MB/s" "x ref" "Go cpu" "ref cpu" "x ref" allocs "steal %"
for size in 10485760 1024; do
  label=$([ "$size" = 1024 ] && echo 1KB || echo 10MB)
  "$TMP/checksumref" -gen "$TMP/doc.json" -size "$size"
  : > "$TMP/ratios"
  : > "$TMP/cpuratios"
  for r in $(seq "$ROUNDS"); do
    IFS=$'\t' read -r go_mbs go_cpu go_sum allocs steal < <("$TMP/checksumref" -doc "$TMP/doc.json" -runs "$RUNS")
    IFS=$'\t' read -r ref_mbs ref_cpu ref_sum < <(node bench/checksumref/reference.js "$TMP/doc.json" "$RUNS")
    if [ "$ref_sum" != "$go_sum" ]; then
      echo "digests differ: Go $go_sum, reference $ref_sum" >&2
      exit 1
    fi
    ratio=$(awk -v a="$go_mbs" -v b="$ref_mbs" 'BEGIN { printf "%.1f", a / b }')
    cpu_ratio=$(awk -v a="$go_cpu" -v b="$ref_cpu" 'BEGIN { printf "%.1f", a / b }')
    echo "$ratio" >> "$TMP/ratios"
    echo "$cpu_ratio" >> "$TMP/cpuratios"
    printf '%-6s %-6s %10s %10s %8s %10s %10s %8s %7s %8s\n' "$label" "$r" "$go_mbs" "$ref_mbs" "$ratio" "$go_cpu" "$ref_cpu" "$cpu_ratio" "$allocs" "$steal"
  done
  med() { sort -n "$1" | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
  printf '%-6s %-6s %10s %10s %8s %10s %10s %8s\n' "$label" median "" "" "$(med "$TMP/ratios")" "" "" "$(med "$TMP/cpuratios")"
done
