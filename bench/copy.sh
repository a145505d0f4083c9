#!/usr/bin/env bash
# Throughput of `retryspec copy` against Vale with the exported style, on
# real Markdown from ../shared/data replicated to a target size (default
# 100 MB). Prints MB/s for both, the ratio, and retryspec's peak memory.
#
#   bench/copy.sh            # 100 MB
#   SIZE_MB=20 bench/copy.sh
#   VALE_MB=10 bench/copy.sh # run Vale on the first 10 MB only (it is slow)
#
# Vale comes from .ci/install-copy (or PATH, or $RETRYSPEC_VALE).
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
data="${SHARED_DATA:-$root/../shared/data}/corpus"
size_mb="${SIZE_MB:-100}"
vale_mb="${VALE_MB:-$size_mb}"
vale="${RETRYSPEC_VALE:-$HOME/.cache/retryspec/bin/vale}"
[ -x "$vale" ] || vale="$(command -v vale || true)"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
bin="$work/retryspec"
(cd "$root" && go build -o "$bin" ./cmd/retryspec)

# The Markdown of the corpora (NServiceBus, NATS, SendGrid docs), copied
# into numbered folders until the target size is reached.
mapfile -d '' files < <(find "$data" -name '*.md' -type f -print0 | sort -z)
src_bytes=$(cat "${files[@]}" | wc -c)
copies=$(( (size_mb * 1000000 + src_bytes - 1) / src_bytes ))
corpus="$work/corpus"
for i in $(seq 1 "$copies"); do
	mkdir -p "$corpus/$i"
	(cd "$data" && find . -name '*.md' -type f -print0 | cpio -0 -pdm --quiet "$corpus/$i")
done
total=$(find "$corpus" -name '*.md' -type f -print0 | du -cb --files0-from=- | tail -1 | cut -f1)
nfiles=$(find "$corpus" -name '*.md' -type f | wc -l)
echo "corpus: $nfiles Markdown files, $((total / 1000000)) MB ($copies copies of $((src_bytes / 1000)) kB of real docs)"

# Warm the page cache, as a repeated CI run would have it.
find "$corpus" -name '*.md' -type f -print0 | xargs -0 cat >/dev/null

contract="$root/examples/payouts/retryspec.yaml"
t0=$(date +%s.%N)
/usr/bin/time -f '%M %U %S' -o "$work/rss" "$bin" copy -c "$contract" --format json "$corpus" >"$work/findings.json" || true
t1=$(date +%s.%N)
rs_s=$(echo "$t1 - $t0" | bc -l)
rs_mbs=$(echo "$total / 1000000 / $rs_s" | bc -l)
read -r rss_kb rs_user rs_sys < <(tail -1 "$work/rss")
rss_mb=$((rss_kb / 1024))
rs_cpu=$(echo "$rs_user + $rs_sys" | bc -l)
nfind=$(grep -c '"rule":' "$work/findings.json" || true)
printf 'retryspec copy: %.2f s wall, %.1f MB/s; %.2f s CPU (%.0f MB per CPU-second, %.2f cores busy); peak RSS %d MB; %d findings (all rules, contract loaded)\n' \
	"$rs_s" "$rs_mbs" "$rs_cpu" "$(echo "$total / 1000000 / $rs_cpu" | bc -l)" "$(echo "$rs_cpu / $rs_s" | bc -l)" "$rss_mb" "$nfind"
echo "load average before Vale: $(cut -d' ' -f1-3 /proc/loadavg) (on a shared machine, wall-clock figures move with it; CPU figures do not)"

if [ -z "$vale" ]; then
	echo "vale: not installed (run .ci/install-copy); no ratio"
	exit 0
fi
"$bin" copy --export-vale "$work/styles" 2>/dev/null
printf 'StylesPath = styles\nMinAlertLevel = suggestion\n\n[*.md]\nBasedOnStyles = Retryspec\n' >"$work/.vale.ini"
# Vale gets the same files (or the first VALE_MB of them), as a list.
find "$corpus" -name '*.md' -type f | sort >"$work/all"
: >"$work/vale-files"
acc=0
while IFS= read -r f; do
	s=$(stat -c %s "$f")
	[ "$acc" -ge $((vale_mb * 1000000)) ] && break
	echo "$f" >>"$work/vale-files"
	acc=$((acc + s))
done <"$work/all"
t0=$(date +%s.%N)
(cd "$work" && tr '\n' '\0' <vale-files | /usr/bin/time -f '%U %S' -o "$work/vtime" xargs -0 "$vale" --no-exit --output=line >"$work/vale.out" 2>&1) || true
t1=$(date +%s.%N)
v_s=$(echo "$t1 - $t0" | bc -l)
v_mbs=$(echo "$acc / 1000000 / $v_s" | bc -l)
read -r v_user v_sys < <(tail -1 "$work/vtime")
v_cpu=$(echo "$v_user + $v_sys" | bc -l)
printf 'vale (exported style): %.2f s wall for %d MB, %.2f MB/s; %.2f s CPU (%.2f MB per CPU-second); %d alerts\n' \
	"$v_s" "$((acc / 1000000))" "$v_mbs" "$v_cpu" "$(echo "$acc / 1000000 / $v_cpu" | bc -l)" "$(wc -l <"$work/vale.out")"
printf 'ratio (wall MB/s): retryspec is %.1fx Vale\n' "$(echo "$rs_mbs / $v_mbs" | bc -l)"
printf 'ratio (MB per CPU-second): retryspec is %.1fx Vale\n' "$(echo "($total / $rs_cpu) / ($acc / $v_cpu)" | bc -l)"
