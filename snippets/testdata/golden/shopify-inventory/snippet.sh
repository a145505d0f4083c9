#!/bin/sh
# Calls the API with the contract's retry policy: a POSIX sh loop around curl.
#
# Run: sh snippet.sh [idempotency-key]
# Set RETRYSPEC_BASE_URL to call another base URL (a staging API, say).
#
# curl's own --retry is not used: it retries every 5xx and some 4xx alike,
# so it cannot keep to an allowlist, a once-only cautious status or the
# contract's jitter.
#
# The policy: an allowlist of statuses, never a blanket catch; a cautious
# status (a 500 may be a bug that fails the same way again) retried at most
# once; Retry-After (in seconds) honoured; full jitter (base 1000 ms, cap 30000 ms,
# multiplier 2.0); at most 3 attempts within one overall deadline of
# 120000 ms, each attempt's --max-time cut to what is left of it. POSIX sh has no
# sub-second clock, so elapsed time is curl's own time_total plus the waits.
# Fractional sleep needs a sleep that takes one (GNU, BSD and busybox do).
set -u

DEFAULT_BASE_URL='https://your-shop.myshopify.com'
BASE_URL=${RETRYSPEC_BASE_URL:-$DEFAULT_BASE_URL}
METHOD='POST'
API_PATH='/admin/api/2026-04/graphql.json'
# The request is a GraphQL mutation (inventorySetQuantities); the key travels as this
# variable of its document, the same document on every attempt.
KEY_VARIABLE='idempotencyKey'
# A 200 with an entry in the error entries' list is a failed mutation: never
# retried, unless the entry is the in-flight conflict. sh has no JSON parser, so
# the list is matched by name, opening on an object.
ENTRIES_MEMBER='userErrors'

# Space-separated lists, matched word by word.
RETRY_STATUSES=' 429 502 503 504 ' # retried normally
RETRY_STATUS_CLASSES='  ' # e.g. 5 for 5XX
CAUTIOUS_STATUSES=' 500 ' # retried at most once
RETRY_AFTER_STATUSES=' 429 503 ' # wait as long as Retry-After says
# The same key is still being processed: wait, then retry with the same key.
IN_FLIGHT_STATUS=200
IN_FLIGHT_CODE='IDEMPOTENCY_CONCURRENT_REQUEST'
# This API's error bodies carry their code at /data/inventorySetQuantities/userErrors/0/code: sh has no JSON
# parser, so the member code holding exactly the code is matched.
CODE_MEMBER='code'
RETRY_TIMEOUT=1
RETRY_RESET=1
RETRY_REFUSED=1

BASE_MS=1000
CAP_MS=30000
MULTIPLIER=2.0
MAX_ATTEMPTS=3 # including the first
MAX_ELAPSED_MS=120000 # one overall deadline for the whole loop
ATTEMPT_TIMEOUT_MS=10000 # per attempt, never past the deadline

has_word() { case "$1" in *" $2 "*) return 0 ;; esac; return 1; }

# Whether the answer (status $1, body in $body_file) says the first request
# with this key is still running.
in_flight() {
	[ "$1" -eq "$IN_FLIGHT_STATUS" ] && grep -qE "\"$CODE_MEMBER\"[[:space:]]*:[[:space:]]*\"$IN_FLIGHT_CODE\"" "$body_file"
}

# A uniform random fraction in [0, 1] from the kernel's generator (awk's
# srand() seeds from the clock in whole seconds: runs would repeat).
random_fraction() {
	awk -v n="$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')" 'BEGIN { printf "%.6f", n / 4294967295 }'
}

envelope_ms() {
	awk -v b="$BASE_MS" -v c="$CAP_MS" -v m="$MULTIPLIER" -v n="$1" \
		'BEGIN { e = b * m ^ (n - 1); if (e > c) e = c; printf "%d", e }'
}

# Whether the answer (body in $body_file) carries an error entry.
has_entry() {
	grep -qE "\"$ENTRIES_MEMBER\"[[:space:]]*:[[:space:]]*\\[[[:space:]]*\\{" "$body_file"
}

# Full jitter: random(0, min(CAP, BASE * MULTIPLIER ^ (attempt - 1))).
backoff_ms() {
	awk -v e="$(envelope_ms "$1")" -v r="$(random_fraction)" 'BEGIN { printf "%d", e * r + 0.5 }'
}

# $1 as a JSON string; a value with a control character fails instead of
# becoming broken JSON.
json_string() {
	case $1 in *[[:cntrl:]]*) return 1 ;; esac
	printf '"%s"' "$(printf '%s' "$1" | sed 's/[\\"]/\\&/g')"
}

# One key per logical request (minted here, or the caller's own id), reused
# on every attempt: a fresh key per attempt would defeat it.
key=${1:-$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')}
body='{"query": "mutation inventorySetQuantities($idempotencyKey: String!) { inventorySetQuantities(input: {name: \"available\", reason: \"correction\", quantities: [{inventoryItemId: \"gid://shopify/InventoryItem/123\", locationId: \"gid://shopify/Location/456\", quantity: 11, compareQuantity: 10}]}) @idempotent(key: $idempotencyKey) { userErrors { code message } } }"}'
# The key goes into the body once, as the document's variable in a first
# member, so every attempt sends the same bytes.
key_json=$(json_string "$key") || {
	echo "the key holds a control character" >&2
	exit 2
}
payload="{\"variables\": {$(json_string "$KEY_VARIABLE"): $key_json}, ${body#"{"}"

body_file=$(mktemp)
header_file=$(mktemp)
trap 'rm -f "$body_file" "$header_file"' EXIT

elapsed_ms=0
cautious_retries=0
previous_ms=$BASE_MS
attempt=0
while :; do
	attempt=$((attempt + 1))
	remaining_ms=$((MAX_ELAPSED_MS - elapsed_ms))
	timeout_ms=$ATTEMPT_TIMEOUT_MS
	[ "$remaining_ms" -lt "$timeout_ms" ] && timeout_ms=$remaining_ms
	retryable=0 cautious=0 wait_ms=''
	if [ "$timeout_ms" -le 0 ]; then
		error='overall deadline passed'
	else
		timeout_s=$(awk -v t="$timeout_ms" 'BEGIN { printf "%.3f", t / 1000 }')
		out=$(curl -g -sS -o "$body_file" -D "$header_file" -w '%{http_code} %{time_total}' \
			-X "$METHOD" -H 'Content-Type: application/json' --data-binary "$payload" \
			--connect-timeout "$timeout_s" --max-time "$timeout_s" "$BASE_URL$API_PATH" 2>/dev/null)
		rc=$?
		status=${out%% *}
		took_ms=$(awk -v t="${out#* }" 'BEGIN { printf "%d", t * 1000 + 0.5 }')
		elapsed_ms=$((elapsed_ms + took_ms))
		# A 200 with an error entry is not the result: the in-flight
		# conflict is retried, any other entry fails.
		if [ "$rc" -eq 0 ] && [ "${status#2}" != "$status" ] && ! in_flight "$status" && ! has_entry; then
			echo "HTTP $status: $(cat "$body_file")"
			exit 0
		fi
		case $rc in
		0)
			error="HTTP $status"
			if in_flight "$status"; then
				error="$error $IN_FLIGHT_CODE"
				retryable=1
			# Any other error entry (a payload mismatch included) fails the same way again.
			elif [ "${status#2}" != "$status" ]; then
				error="$error with an error entry"
			# Checked before the allowlist, so a 5XX class cannot lift its limit.
			elif has_word "$CAUTIOUS_STATUSES" "$status"; then
				retryable=1 cautious=1
			elif has_word "$RETRY_STATUSES" "$status" || has_word "$RETRY_STATUS_CLASSES" "${status%??}"; then
				retryable=1
				if has_word "$RETRY_AFTER_STATUSES" "$status"; then
					seconds=$(tr -d '\r' <"$header_file" | sed -n 's/^[Rr][Ee][Tt][Rr][Yy]-[Aa][Ff][Tt][Ee][Rr]:[[:space:]]*\([0-9][0-9]*\)[[:space:]]*$/\1/p' | tail -n 1)
					[ -n "$seconds" ] && wait_ms=$((seconds * 1000))
				fi
			fi
			# Any other 4xx (a payload-mismatch conflict included) fails the same way again.
			;;
		# A request that may have reached the server is repeated only under
		# a key; this loop always sends one.
		28) error='timeout' retryable=$RETRY_TIMEOUT ;;
		7) error='connection refused' retryable=$RETRY_REFUSED ;;
		52 | 55 | 56) error="connection error (curl exit $rc)" retryable=$RETRY_RESET ;;
		*) error="curl exit $rc" ;;
		esac
	fi
	if [ "$cautious" -eq 1 ]; then
		cautious_retries=$((cautious_retries + 1))
		[ "$cautious_retries" -gt 1 ] && retryable=0
	fi
	if [ "$retryable" -ne 1 ] || [ "$attempt" -ge "$MAX_ATTEMPTS" ]; then
		echo "giving up after attempt $attempt: $error" >&2
		exit 1
	fi
	if [ -z "$wait_ms" ]; then
		wait_ms=$(backoff_ms "$attempt" "$previous_ms")
		previous_ms=$wait_ms
	fi
	if [ $((elapsed_ms + wait_ms)) -ge "$MAX_ELAPSED_MS" ]; then
		echo "giving up after attempt $attempt: $error (a $wait_ms ms wait would pass the deadline)" >&2
		exit 1
	fi
	echo "attempt $attempt failed: $error; retrying in $wait_ms ms" >&2
	sleep "$(awk -v w="$wait_ms" 'BEGIN { printf "%.3f", w / 1000 }')"
	elapsed_ms=$((elapsed_ms + wait_ms))
done
