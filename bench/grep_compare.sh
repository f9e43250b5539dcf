#!/usr/bin/env bash
# grep_compare.sh: spooledartifact against GNU grep and cat on a generated log.
#
#   bash bench/grep_compare.sh            # 1 GiB
#   SIZE=268435456 bash bench/grep_compare.sh
#
# It builds bench/grepcompare, generates SIZE bytes of log lines in a temp
# dir, warms the page cache, then times in the same run:
#   - `cat log > copy` against spooling the log into a DiskStore;
#   - `grep -c` (literals) and `grep -cE` (regexes) against our grep, which
#     counts matching lines with Artifact.GrepFunc over the spooled file;
#   - Tail(10) and Cat of 10 lines in the middle.
# GNU grep runs with LC_ALL=C (its fastest mode). Every query runs REPEAT
# times (default 3) and the fastest run is reported, on both sides, to damp
# the noise of a shared machine. Counts must agree.
set -euo pipefail
cd "$(dirname "$0")/.."
SIZE=${SIZE:-1073741824}
REPEAT=${REPEAT:-3}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

go build -o "$TMP/grepcompare" ./bench/grepcompare
"$TMP/grepcompare" -gen -size "$SIZE" -out "$TMP/log"
cat "$TMP/log" > /dev/null

now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.6f", b - a }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b / a }'; }

# label|pattern for grep|grep flags|pattern for us
CASES=(
  'literal: upstream timeout|upstream timeout|-c|upstream timeout'
  'literal: ERROR|ERROR|-c|ERROR'
  'literal: worker-07]|worker-07]|-cF|worker-07\]'
  'regex: status=5[0-9]{2}|status=5[0-9]{2}|-cE|status=5[0-9]{2}'
  'regex: ERROR.*timeout|ERROR.*timeout|-cE|ERROR.*timeout'
  'regex: latency_ms=29[0-9]{2}|latency_ms=29[0-9]{2}|-cE|latency_ms=29[0-9]{2}'
  'regex: id=[0-9]*99 |id=[0-9]*99 |-cE|id=[0-9]*99 '
  'regex: [0-9]{4}ms|[0-9]{4}ms|-cE|[0-9]{4}ms'
  'regex -i: error|error|-ciE|(?i)error'
)

args=()
for c in "${CASES[@]}"; do
  IFS='|' read -r _ _ _ ours <<<"$c"
  args+=(-regex "$ours")
done

cat_s=
for _ in $(seq "$REPEAT"); do
  t0=$(now); cat "$TMP/log" > "$TMP/copy"; t1=$(now)
  d=$(secs "$t0" "$t1"); rm -f "$TMP/copy"
  cat_s=$(awk -v a="${cat_s:-$d}" -v b="$d" 'BEGIN { print (b < a ? b : a) }')
done
"$TMP/grepcompare" -file "$TMP/log" -dir "$TMP/store" -repeat "$REPEAT" "${args[@]}" > "$TMP/ours.tsv"

printf '%-34s %12s %12s %8s %s\n' "case ($((SIZE >> 20)) MiB)" "baseline s" "ours s" "ratio" "counts"
spool_s=$(awk -F'\t' '$1=="spool"{print $2}' "$TMP/ours.tsv")
printf '%-34s %12.3f %12.3f %8.2f %s\n' "spool vs cat > file" "$cat_s" "$spool_s" "$(ratio "$cat_s" "$spool_s")" "-"
i=0
for c in "${CASES[@]}"; do
  IFS='|' read -r label gp gflags ours <<<"$c"
  g_s=
  for _ in $(seq "$REPEAT"); do
    t0=$(now); gcount=$(LC_ALL=C grep "$gflags" -- "$gp" "$TMP/log" || true); t1=$(now)
    d=$(secs "$t0" "$t1")
    g_s=$(awk -v a="${g_s:-$d}" -v b="$d" 'BEGIN { print (b < a ? b : a) }')
  done
  o_s=$(awk -F'\t' -v k="grep$i" '$1==k{print $2}' "$TMP/ours.tsv")
  ocount=$(awk -F'\t' -v k="grep$i" '$1==k{print $3}' "$TMP/ours.tsv")
  i=$((i + 1))
  ok=$([ "$gcount" = "$ocount" ] && echo "equal ($gcount)" || echo "DIFFER grep=$gcount ours=$ocount")
  printf '%-34s %12.3f %12.3f %8.2f %s\n' "$label" "$g_s" "$o_s" "$(ratio "$g_s" "$o_s")" "$ok"
done
awk -F'\t' '$1=="tail10"||$1=="cat10"{printf "%-34s %12s %12.6f\n", $1, "-", $2} $1=="heap_inuse_max_mib"{printf "%-34s %12s %12s MiB\n", "peak HeapInuse (queries)", "-", $2}' "$TMP/ours.tsv"
