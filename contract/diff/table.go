package diff

// Kind says how the values of a field compare.
type Kind int

const (
	// Text is prose or a name compared as written.
	Text Kind = iota + 1
	// Enum is one of a fixed set of values; To can single out a target value.
	Enum
	// Number is an ordered number: raised or lowered.
	Number
	// Span is an ordered duration; zero means the contract does not state it.
	Span
	// Flag is a boolean: raised is false to true.
	Flag
	// Set is an unordered list; each element added or removed is a change.
	Set
	// Sequence is an ordered list compared as a whole.
	Sequence
	// Presence is an optional section that appears or disappears.
	Presence
)

// Direction is how a value moved.
type Direction string

const (
	Raised  Direction = "raised"  // a larger number or duration, false to true
	Lowered Direction = "lowered" // a smaller number or duration, true to false
	Changed Direction = "changed" // a different value of an unordered kind
	Added   Direction = "added"   // a value, element or section that was absent
	Removed Direction = "removed" // a value, element or section that is gone
)

// Outcome is the verdict for one direction of change. Why and Migration may
// use {old}, {new} and {value} (the element added or removed).
type Outcome struct {
	Class     Class
	Why       string
	Migration string
}

// Row classifies the changes of one field. Field is a contract path with
// list indexes written as [] ("endpoints[].key").
type Row struct {
	Field string
	Kind  Kind
	// Outcomes by direction. A direction without an outcome falls back to
	// Changed (a test checks every reachable direction has one).
	By map[Direction]Outcome
	// To singles out a target value of an Enum: a change *to* it takes this
	// outcome whatever it came from.
	To map[string]Outcome
}

func breaking(why, migration string) Outcome { return Outcome{Breaking, why, migration} }
func notable(why, migration string) Outcome  { return Outcome{Notable, why, migration} }
func compatible(why string) Outcome          { return Outcome{Compatible, why, ""} }

// Docs-only text and tooling configuration share these outcomes.
var (
	proseOnly  = map[Direction]Outcome{Changed: compatible("documentation text only: nothing a client sends or receives changes")}
	toolingCfg = map[Direction]Outcome{Changed: compatible("retryspec configuration only: integrators see no difference")}
)

// Table is the classification of every field of the contract model. The
// reason for each verdict is its Why; the principle is the one in doc.go:
// breaking when a client built on the old contract misbehaves or is refused.
var Table = []Row{
	{Field: wholeContract, Kind: Presence, By: map[Direction]Outcome{
		Added:   notable("the contract is published for the first time: every field and endpoint is new", "read the whole contract"),
		Removed: breaking("the contract file is gone: nothing about keys or retries is promised any more", "ask the API team where the contract went"),
	}},
	{Field: "retryspec", Kind: Enum, By: map[Direction]Outcome{
		Changed: notable("the contract format version changed from {old} to {new}", "regenerate snippets and docs with a retryspec that reads version {new}"),
	}},
	{Field: "api.name", Kind: Text, By: proseOnly},
	{Field: "api.base_url", Kind: Text, By: map[Direction]Outcome{
		Changed: breaking("clients configured with {old} now call the wrong host", "point clients and SDK configuration at {new}"),
	}},
	{Field: "api.error_body.code_at", Kind: Text, By: map[Direction]Outcome{
		Added:   notable("the docs and snippets now read error codes at {new} in the API's error bodies", "read conflict codes at {new}"),
		Removed: notable("the contract no longer says where error bodies carry their code ({old} before); the docs fall back to a generic example", "keep reading the code where the API's responses carry it"),
		Changed: breaking("error bodies carry their code at {new}, not {old}: a client reading {old} no longer recognises an in-flight conflict and stops instead of waiting it out", "read the code at {new}"),
	}},
	{Field: "api.error_body.message_at", Kind: Text, By: map[Direction]Outcome{
		Added:   compatible("error bodies are documented with their message at {new}; the message is for people, not for branching"),
		Removed: compatible("the docs no longer show where the message is; the message is for people, not for branching"),
		Changed: compatible("the message moved from {old} to {new}; the message is for people, not for branching"),
	}},
	{Field: "api.error_body.schema_ref", Kind: Text, By: map[Direction]Outcome{
		Added:   compatible("the OpenAPI conflict responses now use the spec's own error schema {new}"),
		Removed: compatible("the OpenAPI conflict responses use a schema derived from code_at instead of {old}"),
		Changed: compatible("the OpenAPI conflict responses use {new} instead of {old}; where the code is, code_at says"),
	}},

	{Field: "api.error_body.format", Kind: Enum, By: map[Direction]Outcome{
		Changed: breaking("error bodies are now sent as {new} instead of {old}: a client that checks the Content-Type or reads the old members no longer recognises them", "read error bodies as {new}"),
	}},

	// Idempotency: what a client sends and what it gets back.
	{Field: "idempotency.key_in", Kind: Enum, By: map[Direction]Outcome{
		Changed: breaking("the key now travels in the request's {new} instead of its {old}: clients still sending it the old way send no key the server reads, so their retries are no longer deduplicated", "send the key in the request's {new}, as the Idempotent requests page shows"),
	}},
	{Field: "idempotency.key_field", Kind: Text, By: map[Direction]Outcome{
		Added:   breaking("the key now travels in the JSON body member {new}", "put the key in the body member {new}"),
		Removed: breaking("the key no longer travels in the JSON body member {old}", "send the key where the Idempotent requests page now says"),
		Changed: breaking("the key moved from the body member {old} to {new}; clients still filling {old} send no key the server reads", "put the key in the body member {new} instead of {old}"),
	}},
	{Field: "idempotency.graphql.path", Kind: Text, By: map[Direction]Outcome{
		Added:   breaking("the mutations are now sent to {new}", "send the mutations to {new}"),
		Removed: breaking("the mutations are no longer sent to {old}", "send the requests where the Idempotent requests page now says"),
		Changed: breaking("the mutations moved from {old} to {new}; clients still posting to {old} reach no endpoint that reads the key", "send the mutations to {new}"),
	}},
	{Field: "idempotency.graphql.directive", Kind: Text, By: map[Direction]Outcome{
		Added:   breaking("the key now travels in the @{new} directive", "pass the key in @{new} on the mutation"),
		Removed: breaking("the key no longer travels in the @{old} directive but as an argument of the mutation", "pass the key as the mutation's argument, as the Idempotent requests page shows"),
		Changed: breaking("the key moved from @{old} to @{new}; clients still using @{old} send no key the server reads", "pass the key in @{new} instead of @{old}"),
	}},
	{Field: "idempotency.graphql.argument", Kind: Text, By: map[Direction]Outcome{
		Added:   breaking("the key now travels in the argument {new}", "pass the key as {new}"),
		Removed: breaking("the key no longer travels in the argument {old}", "pass the key where the Idempotent requests page now says"),
		Changed: breaking("the key moved from the argument {old} to {new}; clients still passing {old} send no key the server reads", "pass the key as {new} instead of {old}"),
	}},
	{Field: "idempotency.graphql.errors_in", Kind: Enum, By: map[Direction]Outcome{
		Changed: breaking("conflicts are now reported in {new} instead of {old}: clients reading {old} no longer see them, and take a conflict for a success", "read the conflict codes in {new}"),
	}},
	{Field: "idempotency.header", Kind: Text, By: map[Direction]Outcome{
		Changed: breaking("clients still sending {old} send no key the server reads, so their retries are no longer deduplicated", "send the key in the {new} header"),
	}},
	{Field: "idempotency.header_value", Kind: Enum, By: map[Direction]Outcome{
		Changed: breaking("the key's encoding on the wire changed from {old} to {new}; keys written the old way are read differently or refused", "encode the header value as {new} (sf-string means a quoted structured-field string)"),
	}},
	{Field: "idempotency.replay_header", Kind: Text, By: map[Direction]Outcome{
		Added:   notable("replayed responses now carry {new}: true, so clients can tell a replay from a first execution", "optionally read {new} to log or skip side effects on replays"),
		Removed: breaking("replayed responses no longer carry {old}; clients that branch on it treat every replay as a first execution", "stop relying on {old}; compare the response with what you stored instead"),
		Changed: breaking("the replay marker moved from {old} to {new}; clients reading the old name never see it", "read {new} instead of {old}"),
	}},
	{Field: "idempotency.key_source", Kind: Enum, By: map[Direction]Outcome{
		Changed: breaking("who mints the key changed from {old} to {new}: clients either send keys the server now ignores or stop sending keys it now needs", "follow the key_source {new} section of the docs when building requests"),
	}},
	{Field: "idempotency.max_key_length", Kind: Number, By: map[Direction]Outcome{
		Lowered: breaking("keys longer than {new} characters, accepted up to {old} before, are now refused", "keep keys at {new} characters or fewer (hash longer derivations)"),
		Raised:  notable("keys may now be up to {new} characters instead of {old}", ""),
	}},
	{Field: "idempotency.scope", Kind: Enum, By: map[Direction]Outcome{
		Changed: notable("keys are now scoped {new} instead of {old}", ""),
	}, To: map[string]Outcome{
		"global": breaking("keys are now unique across all callers: two accounts that happen to use the same key collide and one gets the other's replay", "prefix keys with something unique to your account, or push back on the change"),
	}},
	{Field: "idempotency.derivation", Kind: Sequence, By: map[Direction]Outcome{
		Changed: compatible("the recommended ways to mint keys changed; keys minted the old way are still accepted"),
	}},
	{Field: "idempotency.fingerprint", Kind: Enum, By: map[Direction]Outcome{
		Changed: breaking("the payload check changed from {old} to {new}: a reused key with a different body is now handled differently (rejected, or silently replayed)", "never reuse a key for a request with a different body"),
	}},
	{Field: "idempotency.fingerprint_headers", Kind: Sequence, By: map[Direction]Outcome{
		Changed: breaking("the headers that make a retry the same request changed from [{old}] to [{new}]: a retry that sends another value of a counted header is now refused as a different request (or one that was refused is now replayed)", "send the same values of [{new}] on every retry of one request"),
	}},
	{Field: "idempotency.fingerprint_fields.members", Kind: Sequence, By: map[Direction]Outcome{
		Changed: breaking("the body members fingerprint_fields names changed from [{old}] to [{new}]: a retry that differs in one of them is now refused as a different request (or one that was refused is now replayed)", "send the same body on every retry of one request"),
	}},
	{Field: "idempotency.fingerprint_fields.only", Kind: Flag, By: map[Direction]Outcome{
		Raised:  breaking("fingerprint_fields now names the only body members that count (only, was exclude): a retry that differs in another member is now replayed instead of refused", "send the same body on every retry of one request"),
		Lowered: breaking("fingerprint_fields now names body members left out (exclude, was only): a retry that differs in another member is now refused as a different request", "send the same body on every retry of one request"),
	}},
	{Field: "idempotency.claim.store", Kind: Enum, By: map[Direction]Outcome{
		Changed: notable("the server keeps keys in {new} instead of {old}; the guarantee is unchanged if the claim stays atomic", ""),
	}},
	{Field: "idempotency.claim.mechanism", Kind: Enum, By: map[Direction]Outcome{
		Changed: notable("the server claims keys by {new} instead of {old}; concurrent retries are still arbitrated by the store", ""),
	}, To: map[string]Outcome{
		"check-then-insert": breaking("a check followed by an insert lets two concurrent retries both pass the check: duplicates are possible again", "keep retries of one intent sequential until the server restores an atomic claim"),
		"lock":              breaking("a lock with a lease can expire under a paused holder, letting a second attempt run (Kleppmann's fencing argument) unless fencing tokens are used", "keep retries of one intent sequential until the server confirms fencing"),
	}},
	{Field: "idempotency.claim.fencing_tokens", Kind: Flag, By: map[Direction]Outcome{
		Lowered: breaking("without fencing tokens a holder whose lease expired can still write, so a slow first attempt and its retry may both take effect", "keep retries of one intent sequential"),
		Raised:  notable("writes under a lease are now fenced, closing the expired-lease double write", ""),
	}},
	{Field: "idempotency.claim.same_transaction", Kind: Flag, By: map[Direction]Outcome{
		Lowered: breaking("the claim no longer commits with the mutation: a crash between them can record a key for an effect that never happened, or the reverse", "treat a replayed success with suspicion until the server restores the single transaction"),
		Raised:  notable("the claim now commits with the mutation it guards", ""),
	}},
	{Field: "idempotency.claim.data_store", Kind: Enum, By: map[Direction]Outcome{
		Changed: notable("the endpoints' data is now said to live in {new} instead of {old}; a claim shares its transaction only with data in its own store", ""),
	}},
	{Field: "idempotency.in_flight", Kind: Presence, By: map[Direction]Outcome{
		Added:   breaking("a request that hits an unfinished key now gets the in-flight response instead of being processed again; clients must handle it", "handle the in-flight response as documented (usually: wait and retry with the same key)"),
		Removed: breaking("the server no longer distinguishes an unfinished key: a retry during the first attempt may run the effect twice", "keep retries of one intent sequential"),
	}},
	{Field: "idempotency.in_flight.response", Kind: Enum, By: map[Direction]Outcome{
		Changed: breaking("the in-flight behaviour changed from {old} to {new}: a retry that hits an unfinished key now gets another kind of answer, which client code written for the old one mishandles", "handle the {new} in-flight behaviour (conflict: wait and retry; block: expect a slower answer; accepted: on 202, retry with the same key after Retry-After)"),
	}},
	{Field: "idempotency.in_flight.lock_timeout", Kind: Span, By: map[Direction]Outcome{
		Raised:  notable("an abandoned attempt is taken over after {new} instead of {old}; retries see the in-flight answer longer", "make sure your retry chain outlasts {new}"),
		Lowered: notable("an abandoned attempt is taken over after {new} instead of {old}", ""),
	}},
	{Field: "idempotency.in_flight.takeover", Kind: Enum, By: map[Direction]Outcome{
		Changed: notable("an abandoned attempt is now resolved by {new} instead of {old}", ""),
	}, To: map[string]Outcome{
		"pass-through": breaking("a retry is now let through while the first attempt may still be running: both can take effect", "keep retries of one intent sequential"),
	}},
	{Field: "idempotency.conflicts.payload_mismatch.status", Kind: Enum, By: map[Direction]Outcome{
		Changed: breaking("a key reused with a different body is now answered {new} instead of {old}; clients matching on the status miss it", "match the payload-mismatch error on status {new} (better: on its code)"),
	}},
	{Field: "idempotency.conflicts.payload_mismatch.code", Kind: Text, By: map[Direction]Outcome{
		Changed: breaking("the payload-mismatch error code was renamed from {old} to {new}; clients matching on the code miss it", "match {new} where you matched {old}"),
	}},
	{Field: "idempotency.conflicts.in_flight.status", Kind: Enum, By: map[Direction]Outcome{
		Changed: breaking("the in-flight conflict is now answered {new} instead of {old}; a client may treat it as a final failure instead of waiting and retrying", "match the in-flight error on status {new} (better: on its code)"),
	}},
	{Field: "idempotency.conflicts.in_flight.code", Kind: Text, By: map[Direction]Outcome{
		Changed: breaking("the in-flight error code was renamed from {old} to {new}; a client that waits and retries on the old code now gives up", "match {new} where you matched {old}"),
	}},
	{Field: "idempotency.conflicts.missing_key.status", Kind: Enum, By: map[Direction]Outcome{
		Changed: breaking("a request without a required key is now answered {new} instead of {old}", "match the missing-key error on status {new}, and always send a key"),
	}},
	{Field: "idempotency.conflicts.missing_key.code", Kind: Text, By: map[Direction]Outcome{
		Changed: breaking("the missing-key error code was renamed from {old} to {new}", "match {new} where you matched {old}"),
	}},
	{Field: "idempotency.conflicts.invalid_key.status", Kind: Enum, By: map[Direction]Outcome{
		Changed: breaking("a key that is too long or malformed is now answered {new} instead of {old}", "match the invalid-key error on status {new}, and send keys in the documented form"),
	}},
	{Field: "idempotency.conflicts.invalid_key.code", Kind: Text, By: map[Direction]Outcome{
		Changed: breaking("the invalid-key error code was renamed from {old} to {new}", "match {new} where you matched {old}"),
	}},
	{Field: "idempotency.conflicts.expired.status", Kind: Enum, By: map[Direction]Outcome{
		Changed: breaking("a key reused after the window is now answered {new} instead of {old}", "match the expired-key error on status {new}, and mint a new key after the window"),
	}},
	{Field: "idempotency.conflicts.expired.code", Kind: Text, By: map[Direction]Outcome{
		Changed: breaking("the expired-key error code was renamed from {old} to {new}", "match {new} where you matched {old}"),
	}},
	{Field: "idempotency.conflicts.too_old.status", Kind: Enum, By: map[Direction]Outcome{
		Changed: breaking("a request older than the first-sent window is now answered {new} instead of {old}", "match the too-old error on status {new}, and check whether the first attempt took effect before sending a new request"),
		Added:   notable("a request older than the first-sent window is answered {new}", "on {new}, check whether the first attempt took effect before sending a new request"),
		Removed: notable("the too-old answer ({old}) is gone with the first-sent window", ""),
	}},
	{Field: "idempotency.conflicts.too_old.code", Kind: Text, By: map[Direction]Outcome{
		Changed: breaking("the too-old error code was renamed from {old} to {new}", "match {new} where you matched {old}"),
		Added:   compatible("the too-old answer carries the code {new}"),
		Removed: compatible("the too-old answer and its code {old} are gone with the first-sent window"),
	}},
	{Field: "idempotency.conflicts.too_old.message", Kind: Text, By: proseOnly},
	{Field: "idempotency.conflicts.payload_mismatch.message", Kind: Text, By: proseOnly},
	{Field: "idempotency.conflicts.in_flight.message", Kind: Text, By: proseOnly},
	{Field: "idempotency.conflicts.missing_key.message", Kind: Text, By: proseOnly},
	{Field: "idempotency.conflicts.invalid_key.message", Kind: Text, By: proseOnly},
	{Field: "idempotency.conflicts.expired.message", Kind: Text, By: proseOnly},
	{Field: "idempotency.stored_failures", Kind: Enum, By: map[Direction]Outcome{
		Changed: breaking("a retried request whose first attempt failed is now handled by {new} instead of {old}: it either replays the stored failure or runs again", "re-read the stored-failures section: with replay, mint a new key to try again; with reattempt, the same key tries again"),
		Added:   notable("the stored-failure policy is now stated: {new}", ""),
		Removed: breaking("the stored-failure policy ({old}) is no longer stated; clients cannot tell whether a retry after a failure replays or runs again", "ask the API team which policy applies"),
	}},
	{Field: "idempotency.stored_outcomes", Kind: Enum, By: map[Direction]Outcome{
		Changed: breaking("the answers a retry with the same key gets back changed from {old} to {new}: after some statuses a retry now runs the request again, or gets a stored answer where it ran again before", "re-read what a retry with the same key returns on the Idempotent requests page"),
	}},
	{Field: "idempotency.stored_response", Kind: Enum, By: map[Direction]Outcome{
		Changed: notable("replays now return the {new} response instead of {old}", ""),
	}, To: map[string]Outcome{
		"summary": breaking("replays no longer return the original response verbatim; clients that parse the replay as the original get a different body", "parse replayed responses as the summary the docs describe"),
	}},
	{Field: "idempotency.replay_window", Kind: Span, By: map[Direction]Outcome{
		Lowered: breaking("keys are remembered for {new} instead of {old}: a retry sent after {new} runs as a new request and repeats the effect", "finish every retry chain well within {new}"),
		Raised:  notable("keys are remembered for {new} instead of {old}", ""),
	}},
	{Field: "idempotency.first_sent.header", Kind: Text, By: map[Direction]Outcome{
		Added:   breaking("requests must now carry the time they were first sent in {new}; a request without it is refused", "stamp {new} with the first attempt's time (an HTTP date) and repeat it unchanged on every retry"),
		Removed: notable("the first-sent header {old} is no longer read", "stop sending {old}"),
		Changed: breaking("the first-sent time moved from {old} to {new}; clients sending the old name are refused", "send the first-sent time in {new}"),
	}},
	{Field: "idempotency.first_sent.window", Kind: Span, By: map[Direction]Outcome{
		Added:   breaking("a request first sent more than {new} ago is now refused instead of run", "finish every retry of a request within {new} of its first attempt"),
		Removed: breaking("a request is no longer refused for an old first-sent time: a late retry after the key's record is gone runs again", "finish every retry within the replay window"),
		Lowered: breaking("a request first sent more than {new} ago (up to {old} before) is now refused", "finish every retry of a request within {new} of its first attempt"),
		Raised:  notable("a request may now be retried up to {new} after it was first sent, instead of {old}", ""),
	}},
	{Field: "idempotency.result_header.name", Kind: Text, By: map[Direction]Outcome{
		Added:   notable("responses to keyed requests now say in {new} whether the server accepted or rejected the request", "optionally read {new}"),
		Removed: breaking("responses no longer carry {old}; clients that branch on it see nothing", "branch on the status and code instead of {old}"),
		Changed: breaking("the result header moved from {old} to {new}; clients reading the old name never see it", "read {new} instead of {old}"),
	}},
	{Field: "idempotency.result_header.accepted", Kind: Text, By: map[Direction]Outcome{
		Changed: breaking("the result header's accepted value changed from {old} to {new}; clients comparing with {old} miss it", "compare with {new}"),
		Added:   notable("the result header says {new} for an accepted request", ""),
		Removed: notable("the result header and its value {old} are gone", ""),
	}},
	{Field: "idempotency.result_header.rejected", Kind: Text, By: map[Direction]Outcome{
		Changed: breaking("the result header's rejected value changed from {old} to {new}; clients comparing with {old} miss it", "compare with {new}"),
		Added:   notable("the result header says {new} for a rejected request", ""),
		Removed: notable("the result header and its value {old} are gone", ""),
	}},
	{Field: "idempotency.reaper_after", Kind: Span, By: map[Direction]Outcome{
		Changed: notable("records are kept for human recovery for {new} instead of {old}", ""),
		Added:   notable("records are now kept for human recovery for {new}", ""),
		Removed: notable("the recovery horizon ({old}) is no longer stated", ""),
	}},
	{Field: "idempotency.longest_retry_chain.duration", Kind: Span, By: map[Direction]Outcome{
		Lowered: breaking("the longest retry chain the API supports is now {new} instead of {old}; callers retrying longer fall outside it", "stop retrying one intent after {new}"),
		Raised:  notable("callers may now retry one intent for up to {new} instead of {old}", ""),
		Added:   notable("the longest supported retry chain is now stated: {new}", ""),
		Removed: notable("the longest supported retry chain ({old}) is no longer stated", ""),
	}},
	{Field: "idempotency.longest_retry_chain.because", Kind: Text, By: proseOnly},
	{Field: "idempotency.after_window", Kind: Enum, By: map[Direction]Outcome{
		Changed: notable("a key reused after the window is now handled as {new} instead of {old}", ""),
	}, To: map[string]Outcome{
		"error": breaking("a key reused after the window is now refused with an error instead of running as a new request", "mint a new key for requests sent after the window"),
	}},
	{Field: "idempotency.recovery.completer", Kind: Flag, By: map[Direction]Outcome{
		Lowered: breaking("abandoned requests are no longer finished by the server: a client that stopped retrying may never get the effect", "retry until you get a final answer"),
		Raised:  notable("the server now finishes abandoned requests in the background", ""),
	}},
	{Field: "idempotency.recovery.reaper", Kind: Flag, By: map[Direction]Outcome{
		Changed: notable("background cleanup of expired keys was switched {new}", ""),
	}},

	// Endpoints, matched by method and path shape.
	{Field: "endpoints[]", Kind: Presence, By: map[Direction]Outcome{
		Added:   notable("a new endpoint is listed", "read its key requirement before calling it"),
		Removed: breaking("the endpoint is no longer in the contract: its key and retry behaviour are no longer promised", "stop relying on the documented retry behaviour of {old}"),
	}},
	{Field: "endpoints[].operation", Kind: Text, By: map[Direction]Outcome{
		Changed: compatible("only a path parameter's name changed; requests go to the same URLs"),
	}},
	{Field: "endpoints[].effect", Kind: Enum, By: map[Direction]Outcome{
		Changed: notable("the endpoint's effect is now described as {new} instead of {old}", ""),
	}, To: map[string]Outcome{
		"create":    breaking("the endpoint now creates something on every call ({old} before): a retry without a key makes a second one", "send an idempotency key with every call and reuse it on retries"),
		"append":    breaking("the endpoint now appends on every call ({old} before): a retry without a key appends twice", "send an idempotency key with every call and reuse it on retries"),
		"increment": breaking("the endpoint now increments on every call ({old} before): a retry without a key counts twice", "send an idempotency key with every call and reuse it on retries"),
		"decrement": breaking("the endpoint now decrements on every call ({old} before): a retry without a key counts twice", "send an idempotency key with every call and reuse it on retries"),
		"action":    breaking("the endpoint now triggers an action on every call ({old} before): a retry without a key triggers it twice", "send an idempotency key with every call and reuse it on retries"),
	}},
	{Field: "endpoints[].key", Kind: Enum, By: map[Direction]Outcome{
		Changed: notable("the key is now {new} instead of {old}", ""),
	}, To: map[string]Outcome{
		"required": breaking("calls without an idempotency key, accepted before ({old}), are now refused", "send an idempotency key on every call to this endpoint"),
		"none":     breaking("the endpoint no longer accepts an idempotency key ({old} before): retries after a timeout can repeat the effect", "do not retry this endpoint after a timeout unless the docs say it is safe"),
	}},
	{Field: "endpoints[].unsafe_to_retry", Kind: Text, By: proseOnly},
	{Field: "endpoints[].external_calls", Kind: Set, By: map[Direction]Outcome{
		Added:   notable("the endpoint now calls {value}; a retry after a timeout resumes from the recovery points around it", ""),
		Removed: compatible("the endpoint no longer calls {value}"),
	}},
	{Field: "endpoints[].recovery_points", Kind: Sequence, By: map[Direction]Outcome{
		Changed: compatible("the server-side recovery points changed; a retry still resumes where the first attempt stopped"),
		// Keys claimed before the deploy have no recovery point recorded:
		// a retry of such a request does not resume, it runs the handler
		// again from the start, external calls included.
		Added: breaking("the endpoint now records recovery points ({new}); a request in flight when this ships has none recorded, so its retry runs the handler again from the start and can repeat the external calls the first attempt made",
			"for a request sent before the change that timed out, check its outcome before retrying it"),
	}},
	{Field: "endpoints[].single_transaction", Kind: Flag, By: map[Direction]Outcome{
		Changed: notable("the endpoint's single_transaction flag is now {new}", ""),
	}},
	{Field: "endpoints[].summary", Kind: Text, By: proseOnly},
	{Field: "endpoints[].mutation", Kind: Text, By: map[Direction]Outcome{
		Added:   breaking("the endpoint is now the GraphQL mutation {new}", "send it as the mutation {new}"),
		Removed: breaking("the endpoint is no longer the GraphQL mutation {old}", "send it as the Idempotent requests page now says"),
		Changed: breaking("the mutation {old} is now {new}; clients still sending {old} call another field", "send the mutation {new}"),
	}},
	{Field: "endpoints[].external_calls_stated", Kind: Flag, By: map[Direction]Outcome{
		Raised:  compatible("the endpoint now says whether it calls other systems"),
		Lowered: notable("the endpoint no longer says whether it calls other systems", ""),
	}},
	{Field: "endpoints[].max_duration", Kind: Span, By: map[Direction]Outcome{
		Changed: notable("the endpoint's handler may now run up to {new} instead of {old}; an in-flight retry may see the conflict answer that long", "keep retrying an in-flight conflict for at least {new}"),
	}},
	{Field: "endpoints[].max_key_length", Kind: Number, By: map[Direction]Outcome{
		Lowered: breaking("the endpoint now refuses keys longer than {new} characters, accepted up to {old} before", "keep keys for this endpoint at {new} characters or fewer"),
		Raised:  notable("the endpoint now accepts keys of up to {new} characters instead of {old}", ""),
	}},
	{Field: "endpoints[].reviewed", Kind: Flag, By: map[Direction]Outcome{
		Raised:  compatible("a person confirmed the endpoint's effect"),
		Lowered: notable("the endpoint's effect is now marked as an unreviewed proposal", ""),
	}},
	// The example request is what the docs and snippets show; the API
	// accepts the same requests as before.
	{Field: "endpoints[].example.body", Kind: Text, By: proseOnly},
	{Field: "endpoints[].example.path", Kind: Text, By: proseOnly},

	// Retry policy: what clients may retry and how.
	{Field: "retry.statuses", Kind: Set, By: map[Direction]Outcome{
		Removed: breaking("{value} is no longer retried: clients that still retry it send requests the API no longer considers safe or useful to repeat", "stop retrying {value}"),
		Added:   notable("{value} is now retried", "add {value} to your retry allowlist"),
	}},
	{Field: "retry.cautious_statuses", Kind: Set, By: map[Direction]Outcome{
		Removed: breaking("{value} is no longer retried even once", "stop retrying {value}"),
		Added:   notable("{value} is now retried once", "retry {value} at most once"),
	}},
	{Field: "retry.connection_errors", Kind: Set, By: map[Direction]Outcome{
		Removed: breaking("connection error {value} is no longer retried", "stop retrying on connection {value}"),
		Added:   notable("connection error {value} is now retried", "retry on connection {value} (with the same key)"),
	}},
	{Field: "retry.honor_retry_after", Kind: Flag, By: map[Direction]Outcome{
		Raised:  breaking("clients must now wait for Retry-After on a 429; clients that ignore it retry too early", "wait at least Retry-After before retrying a 429"),
		Lowered: notable("Retry-After is no longer required to be honoured", ""),
	}},
	{Field: "retry.backoff.jitter", Kind: Enum, By: map[Direction]Outcome{
		Changed: notable("the recommended jitter changed from {old} to {new}", "switch your backoff to {new} jitter"),
	}},
	{Field: "retry.backoff.base", Kind: Span, By: map[Direction]Outcome{
		Changed: notable("the first backoff delay is now {new} instead of {old}", "set the backoff base to {new}"),
	}},
	{Field: "retry.backoff.cap", Kind: Span, By: map[Direction]Outcome{
		Changed: notable("the longest backoff delay is now {new} instead of {old}", "set the backoff cap to {new}"),
	}},
	{Field: "retry.backoff.multiplier", Kind: Number, By: map[Direction]Outcome{
		Changed: notable("the backoff multiplier is now {new} instead of {old}", "set the backoff multiplier to {new}"),
	}},
	{Field: "retry.backoff.because", Kind: Text, By: proseOnly},
	{Field: "retry.max_attempts", Kind: Number, By: map[Direction]Outcome{
		Lowered: breaking("at most {new} attempts are allowed instead of {old}: clients still making {old} exceed the retry load the API budgets for", "cap attempts at {new} (the first included)"),
		Raised:  notable("up to {new} attempts are allowed instead of {old}", "optionally allow {new} attempts"),
	}},
	{Field: "retry.fleet", Kind: Number, By: map[Direction]Outcome{
		Changed: notable("the docs now count {new} client instances instead of {old} in the retry amplification figure", ""),
	}},
	{Field: "retry.max_elapsed", Kind: Span, By: map[Direction]Outcome{
		Lowered: breaking("a retry loop must now end within {new} instead of {old}", "stop retrying after {new} in total"),
		Raised:  notable("a retry loop may now run for {new} instead of {old}", ""),
		Added:   breaking("a retry loop must now end within {new} (it was unbounded)", "stop retrying after {new} in total"),
		Removed: notable("the bound on a retry loop's total time ({old}) is gone", ""),
	}},
	{Field: "retry.attempt_timeout.p99", Kind: Span, By: map[Direction]Outcome{
		Changed: notable("the measured p99 latency behind the attempt timeout is now {new} instead of {old}", "recompute your per-attempt timeout"),
	}},
	{Field: "retry.attempt_timeout.factor", Kind: Number, By: map[Direction]Outcome{
		Changed: notable("the attempt timeout is now {new} times p99 instead of {old}", "recompute your per-attempt timeout"),
	}},
	{Field: "retry.attempt_timeout", Kind: Span, By: map[Direction]Outcome{
		Changed: notable("the per-attempt timeout is now {new} instead of {old}", "set your per-attempt timeout to {new}"),
	}},
	{Field: "retry.deadline", Kind: Enum, By: map[Direction]Outcome{
		Changed: notable("the deadline is now {new} instead of {old}", ""),
	}, To: map[string]Outcome{
		"per-attempt": breaking("each attempt now restarts the clock, so the caller's real wait grows with every retry", "keep one overall deadline in your own code"),
	}},
	{Field: "retry.propagate_deadline", Kind: Flag, By: map[Direction]Outcome{
		Changed: notable("deadline propagation to downstream calls is now {new}", ""),
	}},
	{Field: "retry.log_retries", Kind: Flag, By: map[Direction]Outcome{
		Changed: notable("logging every retry is now {new}", ""),
	}},
	{Field: "retry.budget", Kind: Presence, By: map[Direction]Outcome{
		Added:   notable("a fleet-wide retry budget is now recommended", "add a token-bucket retry budget to your client fleet"),
		Removed: notable("the fleet-wide retry budget is no longer recommended", ""),
	}},
	{Field: "retry.budget.kind", Kind: Enum, By: map[Direction]Outcome{
		Changed: notable("the retry budget is now a {new} instead of a {old}", ""),
	}},
	{Field: "retry.budget.capacity", Kind: Number, By: map[Direction]Outcome{
		Changed: notable("the retry budget now holds {new} tokens instead of {old}", "set your budget capacity to {new}"),
	}},
	{Field: "retry.budget.transient_cost", Kind: Number, By: map[Direction]Outcome{
		Changed: notable("a retry after a transient error now costs {new} tokens instead of {old}", "set the transient retry cost to {new}"),
	}},
	{Field: "retry.budget.throttle_cost", Kind: Number, By: map[Direction]Outcome{
		Changed: notable("a retry after throttling now costs {new} tokens instead of {old}", "set the throttle retry cost to {new}"),
	}},
	{Field: "retry.budget.success_refund", Kind: Number, By: map[Direction]Outcome{
		Changed: notable("a success now refunds {new} tokens instead of {old}", "set the success refund to {new}"),
	}},
	{Field: "retry.stacking", Kind: Sequence, By: map[Direction]Outcome{
		Changed: notable("the recommended order of resilience layers is now {new}", "wrap your layers in the order {new}"),
	}},

	// SDK defaults: the contract for callers who never read the docs.
	{Field: "sdk", Kind: Presence, By: map[Direction]Outcome{
		Added:   notable("the contract now states the defaults of the API's SDKs", ""),
		Removed: breaking("the contract no longer states the SDK defaults: SDK callers lose the documented retry and key behaviour", "check your SDK's own docs for its retry and key defaults"),
	}},
	{Field: "sdk.languages", Kind: Set, By: map[Direction]Outcome{
		Removed: breaking("the {value} SDK is no longer covered by the contract", "move {value} callers to raw HTTP following the docs, or to another SDK"),
		Added:   notable("a {value} SDK is now covered", ""),
	}},
	{Field: "sdk.retries", Kind: Enum, By: map[Direction]Outcome{
		Changed: notable("SDK retries are now {new}", ""),
	}, To: map[string]Outcome{
		"off": breaking("the SDKs no longer retry: callers that relied on the default now fail on the first transient error", "add your own retry loop around SDK calls"),
	}},
	{Field: "sdk.auto_idempotency_key", Kind: Flag, By: map[Direction]Outcome{
		Lowered: breaking("the SDKs no longer add idempotency keys: retried SDK calls to unsafe endpoints can repeat their effect", "pass an idempotency key on every unsafe SDK call"),
		Raised:  notable("the SDKs now add idempotency keys to unsafe calls", ""),
	}},

	// Tooling: docs output, copy linting, lint waivers, acknowledgements.
	{Field: "docs.out", Kind: Text, By: toolingCfg},
	{Field: "docs.copy.include", Kind: Sequence, By: toolingCfg},
	{Field: "docs.copy.allow", Kind: Sequence, By: toolingCfg},
	{Field: "docs.copy.lint_code", Kind: Flag, By: toolingCfg},
	{Field: "lint.waive", Kind: Sequence, By: toolingCfg},
	{Field: "changes", Kind: Set, By: map[Direction]Outcome{
		Added:   compatible("the contract records an acknowledgement: {value}"),
		Removed: compatible("an acknowledgement was dropped from the record: {value}"),
	}},
}

// rowIndex maps a row's Field to its place in Table.
var rowIndex = func() map[string]int {
	m := make(map[string]int, len(Table))
	for i, r := range Table {
		m[r.Field] = i
	}
	return m
}()

// rowByField finds the Table row for a field pattern.
func rowByField(field string) (Row, bool) {
	i, ok := rowIndex[field]
	if !ok {
		return Row{}, false
	}
	return Table[i], true
}

// outcome picks the verdict for a change of the row in direction dir to
// newValue. used names the entry that decided it ("lowered", "to error").
func (r Row) outcome(dir Direction, newValue string) (o Outcome, used string, ok bool) {
	if o, ok := r.To[newValue]; ok && (dir == Changed || dir == Added) {
		return o, "to " + newValue, true
	}
	if o, ok := r.By[dir]; ok {
		return o, string(dir), true
	}
	o, ok = r.By[Changed]
	return o, string(Changed), ok
}
