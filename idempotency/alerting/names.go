// Package alerting names the idempotency middleware's metrics, once, and
// writes the Prometheus alerting rules built on them. The middleware counts
// under these names and `retryspec build` writes the rules from them, so an
// alert can never watch a metric the middleware does not export.
//
// It imports nothing of the module's but the contract model, so the CLI can
// use it without linking any database driver.
package alerting

// Metric names, Prometheus style: counters end in _total.
const (
	// ClaimsWon counts first attempts: the claim insert won.
	ClaimsWon = "retryspec_idempotency_claims_won_total"
	// Conflicts counts requests answered with an idempotency error, by
	// kind (one of the Kind constants).
	Conflicts = "retryspec_idempotency_conflicts_total"
	// Replays counts stored responses replayed without running the handler.
	Replays = "retryspec_idempotency_replays_total"
	// Takeovers counts abandoned claims taken over after lock_timeout.
	Takeovers = "retryspec_idempotency_takeovers_total"
	// DuplicateEffects counts requests whose handler ran while another
	// worker held the key (a fenced write was refused): side effects that
	// may have happened twice. Zero by design; any increase is the alarm.
	DuplicateEffects = "retryspec_idempotency_duplicate_effects_total"
	// StoreFailures counts requests refused with a 5xx because a store
	// statement failed, by kind (the Store* kinds): the key was left for
	// the retry, never served without the claim.
	StoreFailures = "retryspec_idempotency_store_failures_total"
	// BodiesNotStored counts responses above Options.MaxResponseBytes,
	// whose keys store the status and headers only.
	BodiesNotStored = "retryspec_idempotency_bodies_not_stored_total"
	// AsyncCommitStarts counts middlewares started on a store whose
	// commits are acknowledged before they are flushed (an explicit
	// opt-in of stores.Open): any value means a database crash can lose
	// acknowledged recovery points.
	AsyncCommitStarts = "retryspec_idempotency_async_commit_starts_total"
	// ReapedUnfinished counts keys the reaper deleted while still in
	// flight: requests that never finished, each also logged.
	ReapedUnfinished = "retryspec_idempotency_reaped_unfinished_total"
	// CompleterSkipped counts abandoned keys the completer could not
	// rebuild a request for, by kind (the Skip* kinds): each is logged and
	// left to the client's retry or the reaper.
	CompleterSkipped = "retryspec_idempotency_completer_skipped_total"
)

// Label names.
const (
	LabelOperation = "operation"
	LabelKind      = "kind"
)

// Conflict kinds, the values of the kind label on Conflicts.
const (
	KindInFlight        = "in_flight"
	KindPayloadMismatch = "payload_mismatch"
	KindMissingKey      = "missing_key"
	KindInvalidKey      = "invalid_key"
	KindExpired         = "expired"
	// KindTooOld: the request's first-sent time is older than
	// first_sent.window (conflicts.too_old). A missing, malformed or
	// far-future first-sent time counts under KindInvalidKey, the answer
	// it gets.
	KindTooOld = "too_old"
)

// Store failure kinds, the values of the kind label on StoreFailures: the
// statement that failed.
const (
	StoreClaim    = "claim"
	StoreLookup   = "lookup"
	StoreTakeover = "takeover"
	StoreExpire   = "expire"
	StoreComplete = "complete"
	StoreRelease  = "release"
	// StoreFinish: the handler's last transaction (Finish, FinishWrites)
	// failed and did not commit; the key was released for the retry.
	StoreFinish = "finish"
	// StoreFinishUnacknowledged: the last transaction returned an error
	// but had committed (a connection lost after the commit); the stored
	// response was sent.
	StoreFinishUnacknowledged = "finish_unacknowledged"
)

// Completer skip kinds, the values of the kind label on CompleterSkipped.
const (
	// SkipNoTarget: the key was claimed before the store kept the
	// request's target, and its endpoint's path has parameters.
	SkipNoTarget = "no_request_target"
	// SkipTargetMismatch: the stored target is not a path of the
	// endpoint's contract path (a router that rewrote the path).
	SkipTargetMismatch = "target_mismatch"
)

// Metrics lists every metric with its help text, in export order.
var Metrics = []struct{ Name, Help string }{
	{ClaimsWon, "Requests whose idempotency claim won (first attempts)."},
	{Conflicts, "Requests answered with an idempotency error, by kind."},
	{Replays, "Stored responses replayed without running the handler."},
	{Takeovers, "Abandoned in-flight keys taken over after the lock timeout."},
	{DuplicateEffects, "Handler runs refused by the fencing token: possible duplicate side effects. Must stay zero."},
	{StoreFailures, "Requests answered 5xx because an idempotency store statement failed, by kind."},
	{BodiesNotStored, "Responses above the stored-body limit: their keys replay status and headers only."},
	{AsyncCommitStarts, "Middleware starts on a store acknowledging commits before they are flushed (opted in). Should stay zero."},
	{ReapedUnfinished, "In-flight keys the reaper deleted: requests that never finished."},
	{CompleterSkipped, "Abandoned keys the completer could not rebuild a request for, by kind: left to the client's retry."},
}
