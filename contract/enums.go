package contract

// Every enumeration of the format is a string type with one constant per
// value: code compares fields with the constants, never with literals, and
// the lists below (for the decoder, the JSON Schema, docs and tests) are
// built from the same constants. A value is the spelling the contract
// file uses.

// HeaderValue is how the key travels in its header (idempotency.header_value).
type HeaderValue string

const (
	HeaderPlain    HeaderValue = "plain"
	HeaderSFString HeaderValue = "sf-string" // an RFC 8941 string, quoted
)

// KeySource says who mints the key (idempotency.key_source).
type KeySource string

const (
	KeyFromClient    KeySource = "client"
	KeyServerDerived KeySource = "server-derived"
)

// KeyScope is what a key is unique within (idempotency.scope).
type KeyScope string

const (
	ScopeAccount KeyScope = "account"
	ScopeGlobal  KeyScope = "global"
)

// DerivationKind is one way to mint keys (idempotency.derivation[].kind).
type DerivationKind string

const (
	DerivationEventDerived   DerivationKind = "event-derived"
	DerivationRequestScoped  DerivationKind = "request-scoped"
	DerivationUUIDReused     DerivationKind = "uuid-reused"
	DerivationUUIDPerAttempt DerivationKind = "uuid-per-attempt"
	DerivationTimestamp      DerivationKind = "timestamp"
)

// Fingerprint is how a replay is compared with the first request
// (idempotency.fingerprint).
type Fingerprint string

const (
	// FingerprintSHA256Body: method, path, query and body byte for byte.
	FingerprintSHA256Body Fingerprint = "sha256-body"
	// FingerprintCanonicalJSON: as sha256-body, but a JSON body is
	// compared with key order and insignificant whitespace ignored.
	FingerprintCanonicalJSON Fingerprint = "canonical-json"
	FingerprintNone          Fingerprint = "none"
)

// ErrorFormat is the media type of the API's error bodies
// (api.error_body.format).
type ErrorFormat string

const (
	ErrorFormatJSON    ErrorFormat = "json"
	ErrorFormatProblem ErrorFormat = "problem+json" // RFC 9457
)

// Store is a kind of data store (idempotency.claim.store and data_store).
type Store string

const (
	StorePostgres  Store = "postgres"
	StoreMySQL     Store = "mysql"
	StoreSQLite    Store = "sqlite"
	StoreSQLServer Store = "sqlserver"
	StoreOracle    Store = "oracle"
	StoreDynamoDB  Store = "dynamodb"
	StoreCosmosDB  Store = "cosmosdb"
	StoreRedis     Store = "redis"
	StoreMemcached Store = "memcached"
	StoreMemory    Store = "memory"
)

// Mechanism is how a key is claimed atomically (idempotency.claim.mechanism).
type Mechanism string

const (
	MechanismUniqueConstraint    Mechanism = "unique-constraint"
	MechanismConditionalWrite    Mechanism = "conditional-write"
	MechanismRowLockSerializable Mechanism = "row-lock-serializable"
	MechanismCheckThenInsert     Mechanism = "check-then-insert"
	MechanismLock                Mechanism = "lock"
)

// InFlightMode is the answer to a request on a claimed, unfinished key
// (idempotency.in_flight.response).
type InFlightMode string

const (
	InFlightConflict    InFlightMode = "conflict"
	InFlightBlock       InFlightMode = "block"
	InFlightAccepted    InFlightMode = "accepted"
	InFlightPassThrough InFlightMode = "pass-through"
)

// Takeover is how an abandoned claim is taken over
// (idempotency.in_flight.takeover).
type Takeover string

const (
	TakeoverConditionalUpdate Takeover = "conditional-update"
	TakeoverNone              Takeover = "none"
	TakeoverPassThrough       Takeover = "pass-through"
)

// FailurePolicy says whether a stored failure is replayed
// (idempotency.stored_failures).
type FailurePolicy string

const (
	FailuresReplay    FailurePolicy = "replay"
	FailuresReattempt FailurePolicy = "reattempt"
)

// StoredOutcomes names the classes of final status whose response the
// server stores and replays to a retry with the same key
// (idempotency.stored_outcomes). The statuses that say the request was not
// carried out (NotCarriedOut) are never stored, whichever is chosen.
type StoredOutcomes string

const (
	// Stored2xx: successes only; any other answer is not stored and a
	// retry runs the request again (Checkout.com).
	Stored2xx StoredOutcomes = "2xx"
	// Stored2xxTo4xx: successes, redirects and client errors; a 5xx runs
	// again (Azure re-executes 5xx).
	Stored2xxTo4xx StoredOutcomes = "2xx-4xx"
	// Stored2xxTo5xx: every answer the handler completed, server errors
	// included (Stripe's v1 API).
	Stored2xxTo5xx StoredOutcomes = "2xx-5xx"
)

// StoredResponse is what is kept for a replay (idempotency.stored_response).
type StoredResponse string

const (
	StoredVerbatim StoredResponse = "verbatim"
	StoredSummary  StoredResponse = "summary"
)

// AfterWindow is what a key gets once its window has passed
// (idempotency.after_window).
type AfterWindow string

const (
	AfterWindowNewRequest AfterWindow = "new-request"
	AfterWindowError      AfterWindow = "error"
)

// Effect is what an endpoint does to state (endpoints[].effect).
type Effect string

const (
	EffectCreate    Effect = "create"
	EffectAppend    Effect = "append"
	EffectIncrement Effect = "increment"
	EffectDecrement Effect = "decrement"
	EffectReplace   Effect = "replace"
	EffectDelete    Effect = "delete"
	EffectRead      Effect = "read"
	EffectAction    Effect = "action"
)

// KeyMode says whether an endpoint takes a key (endpoints[].key).
type KeyMode string

const (
	KeyRequired KeyMode = "required"
	KeyOptional KeyMode = "optional"
	KeyNone     KeyMode = "none"
)

// ConnError is a connection failure a client may retry
// (retry.connection_errors).
type ConnError string

const (
	ConnTimeout ConnError = "timeout"
	ConnReset   ConnError = "reset"
	ConnRefused ConnError = "refused"
)

// Jitter is the randomisation of the backoff (retry.backoff.jitter).
type Jitter string

const (
	JitterFull         Jitter = "full"
	JitterDecorrelated Jitter = "decorrelated"
	JitterEqual        Jitter = "equal"
	JitterNone         Jitter = "none"
)

// Deadline says what the timeout bounds (retry.deadline).
type Deadline string

const (
	DeadlineOverall    Deadline = "overall"
	DeadlinePerAttempt Deadline = "per-attempt"
)

// BudgetKind is the retry budget's algorithm (retry.budget.kind).
type BudgetKind string

const BudgetTokenBucket BudgetKind = "token-bucket"

// StackingLayer is one resilience layer around a call (retry.stacking).
type StackingLayer string

const (
	LayerRetry          StackingLayer = "retry"
	LayerCircuitBreaker StackingLayer = "circuit-breaker"
	LayerRateLimiter    StackingLayer = "rate-limiter"
	LayerBulkhead       StackingLayer = "bulkhead"
	LayerTimeout        StackingLayer = "timeout"
)

// OnOff is a switch written on or off (sdk.retries).
type OnOff string

const (
	On  OnOff = "on"
	Off OnOff = "off"
)

// Enumerations of the format as the file spells them, exported for the
// decoder, the JSON Schema, docs and tests.
var (
	HeaderValues    = names(HeaderPlain, HeaderSFString)
	KeySources      = names(KeyFromClient, KeyServerDerived)
	Scopes          = names(ScopeAccount, ScopeGlobal)
	DerivationKinds = names(DerivationEventDerived, DerivationRequestScoped, DerivationUUIDReused, DerivationUUIDPerAttempt, DerivationTimestamp)
	Fingerprints    = names(FingerprintSHA256Body, FingerprintCanonicalJSON, FingerprintNone)
	ErrorFormats    = names(ErrorFormatJSON, ErrorFormatProblem)
	Stores          = names(StorePostgres, StoreMySQL, StoreSQLite, StoreSQLServer, StoreOracle, StoreDynamoDB, StoreCosmosDB, StoreRedis, StoreMemcached, StoreMemory)
	Mechanisms      = names(MechanismUniqueConstraint, MechanismConditionalWrite, MechanismRowLockSerializable, MechanismCheckThenInsert, MechanismLock)
	InFlightModes   = names(InFlightConflict, InFlightBlock, InFlightAccepted, InFlightPassThrough)
	Takeovers       = names(TakeoverConditionalUpdate, TakeoverNone, TakeoverPassThrough)
	FailurePolicies = names(FailuresReplay, FailuresReattempt)
	OutcomeSets     = names(Stored2xx, Stored2xxTo4xx, Stored2xxTo5xx)
	StoredResponses = names(StoredVerbatim, StoredSummary)
	AfterWindows    = names(AfterWindowNewRequest, AfterWindowError)
	Effects         = names(EffectCreate, EffectAppend, EffectIncrement, EffectDecrement, EffectReplace, EffectDelete, EffectRead, EffectAction)
	KeyModes        = names(KeyRequired, KeyOptional, KeyNone)
	ConnErrors      = names(ConnTimeout, ConnReset, ConnRefused)
	Jitters         = names(JitterFull, JitterDecorrelated, JitterEqual, JitterNone)
	Deadlines       = names(DeadlineOverall, DeadlinePerAttempt)
	BudgetKinds     = names(BudgetTokenBucket)
	StackingLayers  = names(LayerRetry, LayerCircuitBreaker, LayerRateLimiter, LayerBulkhead, LayerTimeout)
)

func names[T ~string](vs ...T) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = string(v)
	}
	return out
}
