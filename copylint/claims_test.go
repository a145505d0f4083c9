package copylint

import "testing"

// claimCorpus is the project's own test corpus: sentences written for
// retryspec (not taken from any vendor's docs), each with the one rule it
// must fire, or "" when it is honest copy that must pass.
var claimCorpus = []struct {
	text string
	rule string
}{
	// copy/exactly-once: the claim in its phrasings.
	{"Lumapay guarantees exactly-once delivery for every transfer.", RuleExactlyOnce},
	{"Every payment is processed exactly once.", RuleExactlyOnce},
	{"Our webhooks are delivered EXACTLY ONCE.", RuleExactlyOnce},
	{"Exactly-once semantics come built in, powered by idempotency keys.", RuleExactlyOnce},
	{"Get exactly-once processing with no extra work.", RuleExactlyOnce},
	{"The queue offers exactly once\ndelivery to each consumer.", RuleExactlyOnce},
	{"Each order is processed only once, no matter how often you retry.", RuleExactlyOnce},
	{"Your charge is applied just once even when the network fails.", RuleExactlyOnce},
	{"With our SDK, requests are executed exactly one time.", RuleExactlyOnce},
	{"We deliver every event once and only once.", RuleExactlyOnce},
	{"Once-only delivery for all of your notifications.", RuleExactlyOnce},
	{"Transfers will only ever be processed once.", RuleExactlyOnce},
	{"Enjoy exactly‑once message handling across regions.", RuleExactlyOnce},
	{"Our event bus provides exactly-once guarantees at any scale.", RuleExactlyOnce},
	{"Jobs run exactly once, even during a failover.", RuleExactlyOnce},
	{"A retried request is charged only once.", RuleExactlyOnce},
	{"Set up exactly-once webhook delivery in minutes.", RuleExactlyOnce},
	{"No retries needed, but we still guarantee exactly-once delivery.", RuleExactlyOnce},
	{"The platform consumes each message exactly once.", RuleExactlyOnce},
	{"Invoices are sent exactly once to every customer.", RuleExactlyOnce},

	// copy/exactly-once-bounded: the claim with the bound it holds within.
	{"Kafka offers exactly-once semantics within a transaction.", RuleExactlyOnceBounded},
	{"The stream is deduplicated exactly once within a time window.", RuleExactlyOnceBounded},
	{"Exactly once within a window.", RuleExactlyOnceBounded},
	{"This ensures *exactly-once* message processing, since the state change is committed atomically.", RuleExactlyOnceBounded},
	{"The broker offers \"exactly-once\" (within a time window) delivery.", RuleExactlyOnceBounded},
	{"Within the replay window, a retried transfer is applied exactly once.", RuleExactlyOnceBounded},
	{"Requests with the same idempotency key are executed exactly once.", RuleExactlyOnceBounded},
	{"Our outbox gives exactly-once processing because the message and the business data share one transaction.", RuleExactlyOnceBounded},
	{"Events are processed _exactly once_ within the deduplication window.", RuleExactlyOnceBounded},
	{"Orders are processed exactly once within the deduplication interval.", RuleExactlyOnceBounded},
	{"Use transactions to get [exactly-once](https://example.com/eos) delivery between topics.", RuleExactlyOnceBounded},

	// copy/absolute-guarantee.
	{"Customers will never be charged twice.", RuleAbsoluteGuarantee},
	{"Duplicates are impossible.", RuleAbsoluteGuarantee},
	{"You will never see a duplicate.", RuleAbsoluteGuarantee},
	{"No payment is ever processed twice.", RuleAbsoluteGuarantee},
	{"We make sure nothing is ever sent twice.", RuleAbsoluteGuarantee},
	{"A transfer is never executed more than once.", RuleAbsoluteGuarantee},
	{"Your customers won't ever get a double charge.", RuleAbsoluteGuarantee},
	{"Duplicate payments are a thing of the past.", RuleAbsoluteGuarantee},
	{"No order will ever be booked twice.", RuleAbsoluteGuarantee},
	{"Invoices are never sent a second time.", RuleAbsoluteGuarantee},
	{"Double charges are simply impossible with Lumapay.", RuleAbsoluteGuarantee},
	{"You will never be charged twice.", RuleAbsoluteGuarantee},
	{"Customers are never double-charged, guaranteed.", RuleAbsoluteGuarantee},
	{"Guaranteed delivery for every webhook.", RuleAbsoluteGuarantee},
	{"Message delivery is guaranteed.", RuleAbsoluteGuarantee},
	{"A duplicate-free payment pipeline.", RuleAbsoluteGuarantee},
	{"Zero duplicate charges, ever.", RuleAbsoluteGuarantee},
	{"We never lose a single event.", RuleAbsoluteGuarantee},
	{"Payments are never duplicated by our platform.", RuleAbsoluteGuarantee},
	{"Our API makes it impossible to charge twice.", RuleAbsoluteGuarantee},
	{"100% reliable delivery, backed by our SLA.", RuleAbsoluteGuarantee},
	{"We guarantee the delivery of every notification.", RuleAbsoluteGuarantee},
	{"No duplicates, guaranteed.", RuleAbsoluteGuarantee},
	{"Your users will never get double billed again.", RuleAbsoluteGuarantee},
	{"Orders can never be duplicated.", RuleAbsoluteGuarantee},

	// copy/standard-claim.
	{"We support the Idempotency-Key standard.", RuleStandardClaim},
	{"Send the standard Idempotency-Key header with each POST.", RuleStandardClaim},
	{"The Idempotency-Key header is an IETF standard.", RuleStandardClaim},
	{"Idempotency keys work as defined in RFC 9110.", RuleStandardClaim},
	{"Our API implements the HTTP standard Idempotency-Key header.", RuleStandardClaim},
	{"The Idempotency-Key header, defined by the IETF, makes retries safe.", RuleStandardClaim},
	{"Idempotency-Key is an internet standard supported by every major API.", RuleStandardClaim},
	{"Use the official standard idempotency key header.", RuleStandardClaim},

	// copy/method-idempotency.
	{"PUT and DELETE are idempotent per the HTTP spec, so retry them freely.", RuleMethodIdempotency},
	{"Because PUT is idempotent by definition, you can retry it at any time.", RuleMethodIdempotency},
	{"DELETE requests are idempotent according to RFC 9110 and are safe to retry.", RuleMethodIdempotency},
	{"PUT requests can always be retried: the HTTP semantics make them idempotent.", RuleMethodIdempotency},
	{"DELETE is idempotent, so retry it without an idempotency key.", RuleMethodIdempotency},
	{"PUT and DELETE are safe to retry freely.", RuleMethodIdempotency},

	// copy/retry-any-error.
	{"Retry on any error.", RuleRetryAnyError},
	{"If a request fails, retry every 100ms until it succeeds.", RuleRetryAnyError},
	{"Simply retry all failed requests.", RuleRetryAnyError},
	{"Retry every failure with the same key.", RuleRetryAnyError},
	{"Your client should retry indefinitely.", RuleRetryAnyError},
	{"Retry failed requests every 2 seconds.", RuleRetryAnyError},
	{"Use a fixed delay between retries.", RuleRetryAnyError},
	{"Wait 5 seconds between attempts.", RuleRetryAnyError},
	{"The SDK will retry for any error status.", RuleRetryAnyError},
	{"Retry until it succeeds.", RuleRetryAnyError},
	{"Resend the request on every error you see.", RuleRetryAnyError},
	{"Retry all 5xx errors.", RuleRetryAnyError},
	{"Keep retrying in a tight loop.", RuleRetryAnyError},

	{"On any error, retry up to 5 times with 100ms between attempts.", RuleRetryAnyError},
	{"On any error, retry.", RuleRetryAnyError},
	{"Retry every error up to 5 times.", RuleRetryAnyError},
	{"If a request fails, retry it up to 5 times, waiting 100ms between attempts.", RuleRetryAnyError},
	{"Retry failed requests after a fixed delay of 100 ms.", RuleRetryAnyError},
	{"For every failure, simply resend the request.", RuleRetryAnyError},
	{"Whatever the error, retry the call.", RuleRetryAnyError},
	{"When the call fails, just retry.", RuleRetryAnyError},
	{"Sleep 2 seconds before each retry.", RuleRetryAnyError},
	{"The client pauses 500ms between attempts.", RuleRetryAnyError},
	{"Use a constant backoff for retries.", RuleRetryAnyError},

	// Honest copy: must pass.
	{"Retry 429 and 503 with full jitter.", ""},
	{"Stale docs and marketing copy that promises \"exactly-once\" delivery are the gap.", ""},
	{"Within the 24-hour replay window, a retried request with the same key is never charged twice.", ""},
	{"A request repeated with the same key within 24 hours is never charged twice.", ""},
	{"Exactly-once is impossible.", ""},
	{"What people call exactly-once is really at-least-once delivery plus deduplication.", ""},
	{"The so-called exactly-once guarantee does not survive a network partition.", ""},
	{"If you need exactly-once processing, make the handler idempotent.", ""},
	{"Exactly-once delivery is a marketing term for at-least-once delivery with deduplication.", ""},
	{"Vendors claim exactly-once delivery; what they mean is deduplication within a window.", ""},
	{"We cannot promise that a payment is never processed twice.", ""},
	{"Nobody can guarantee that a message is never delivered twice.", ""},
	{"If a request fails with 503, retry it with the same key after the Retry-After delay.", ""},
	{"On any error, log the attempt number and the status.", ""},
	{"Do not retry on any error: 4xx responses fail the same way again.", ""},
	{"Wait between 0 and 2 seconds, chosen at random, before each retry.", ""},
	{"The delay doubles between attempts, from 1s up to 30s.", ""},
	{"A retry after 12h runs as a new request.", ""},
	{"Duplicates are possible, so handlers must be idempotent.", ""},
	{"Customers may be charged twice if the client mints a new key per attempt.", ""},
	{"When the request fails with a timeout, retry it with the same key.", ""},
	{"Send exactly one key per operation.", ""},
	{"Webhooks use at-least-once delivery.", ""},
	{"Once the window has passed, a reused key is a new request.", ""},
	{"There is no exactly-once delivery over a network.", ""},
	{"We do not guarantee exactly-once processing.", ""},
	{"Exactly-once delivery is impossible across an unreliable network.", ""},
	{"What you get is effectively-once: at-least-once delivery plus duplicate collapse.", ""},
	{"Retries are safe: within 24 hours, a request repeated with the same Idempotency-Key on the same account is applied at most once.", ""},
	{"Rather than exactly-once delivery, we offer idempotent retries within the replay window.", ""},
	{"Beware of vendors who promise exactly-once delivery.", ""},
	{"Exactly-once is a myth; design for duplicates.", ""},
	{"The key must appear exactly once in the request headers.", ""},
	{"Call init exactly once.", ""},
	{"Each field may be set once.", ""},
	{"The processor commits offsets once per batch.", ""},
	{"Delivery is at least once, so handlers must be idempotent.", ""},
	{"Charges are deduplicated within the same idempotency key and window.", ""},
	{"We cannot guarantee delivery to a server that is down.", ""},
	{"Networks drop packets; nobody can promise you will never be charged twice.", ""},
	{"Duplicates can happen after the replay window ends.", ""},
	{"Keep retries inside the window to avoid duplicate charges.", ""},
	{"We never log card numbers.", ""},
	{"A double click sends two requests, so send an idempotency key.", ""},
	{"Our delivery guarantees are documented on the webhooks page.", ""},
	{"The Idempotency-Key header is not a ratified standard.", ""},
	{"The IETF draft for the Idempotency-Key header expired without ratification.", ""},
	{"The header name is a de facto convention that Stripe popularized.", ""},
	{"This page is the standard you can hold us to.", ""},
	{"HTTP status codes follow RFC 9110.", ""},
	{"Read the standard library documentation for your language.", ""},
	{"PUT is idempotent by method, but verify that the endpoint really replaces state.", ""},
	{"Use PUT to replace a transfer's metadata.", ""},
	{"DELETE removes a webhook endpoint.", ""},
	{"A PUT that appends to a list is not idempotent, whatever the HTTP spec says.", ""},
	{"Retry only on 429, 502, 503 and 504.", ""},
	{"Never retry on any 4xx error other than 429.", ""},
	{"Retry with exponential backoff and full jitter.", ""},
	{"Do not retry every 100ms; use backoff with jitter instead.", ""},
	{"Wait for the duration in Retry-After before the next attempt.", ""},
	{"The client retries up to three times with jittered backoff.", ""},
	{"Errors are listed below with their codes.", ""},
	{"If any error occurs, log it with the attempt number.", ""},
	{"Don't retry on every failure: 400 responses will fail the same way again.", ""},
	{"A fixed delay between retries re-synchronizes clients, so add jitter.", ""},
	{"Wait a random delay between 0 and 2 seconds between attempts.", ""},
	{"Our SLA covers 99.95% uptime.", ""},
	{"Every event carries an ID so your handler can drop duplicates.", ""},
	{"Guarantees about ordering are described in the next section.", ""},
	{"You can process each order once you receive its webhook.", ""},
	{"The job scheduler runs once a day.", ""},
	{"Only one key is needed per transfer.", ""},
	{"Zero downtime deploys are routine.", ""},
	{"No duplicate keys are allowed in the same request body.", ""},
	{"Retrying an unkeyed POST may create a second payment.", ""},
	{"If the connection drops, retry the request with the same key.", ""},
	{"Your handler is called once for each delivery attempt.", ""},
	{"The dashboard shows each retry once.", ""},
	{"Nothing in HTTP makes a POST safe to retry.", ""},
	{"PUT replaces the resource; see the endpoints table for which operations need a key.", ""},
	{"The standard plan includes 10,000 requests per month.", ""},
	{"We process refunds once they are approved.", ""},
	{"Some clients retry on every timeout; ours only does so with a key in place.", ""},
	// A title naming the term beside a problem or in a comparison is a
	// topic; an instruction after a purpose is a step, whatever bound it names.
	{"## Duplicate deliveries and exactly-once processing", ""},
	{"### At-least-once vs. exactly-once delivery", ""},
	{"If your broker supports exactly-once delivery, to turn exactly-once on for a consumer group, you must make it skip messages of aborted transactions.", ""},
	{"## Exactly-once delivery and zero setup", RuleExactlyOnce},
	{"To provide exactly-once delivery, the broker wraps every write in a transaction.", RuleExactlyOnceBounded},
}

// claimPartsCorpus (issue 29): promises read by their parts in words no
// older form read, and the quotes and attributions that must pass. It
// joins claimCorpus in TestClaimCorpus.
var claimPartsCorpus = []struct {
	text string
	rule string
}{
	{"Duplicate refunds are now history.", RuleAbsoluteGuarantee},
	{"Double bookings are gone for good.", RuleAbsoluteGuarantee},
	{"Duplicate refunds are gone within the 24-hour replay window.", ""},
	{"Our worker resubmits a failed job in a cycle that never stops.", RuleRetryAnyError},
	{"The client retries on a never-ending loop.", RuleRetryAnyError},
	{"We retired the old \"retry until it succeeds\" option.", ""},
	{"Please never write \"no duplicate payouts, ever\" in a launch post.", ""},
	{"Marketing wanted the slogan \"no duplicate payouts, ever\".", ""},
	{"Our promise: \"no duplicate payouts, ever\".", RuleAbsoluteGuarantee},
	{"The HTTP spec guarantees that a DELETE can be replayed without side effects.", RuleMethodIdempotency},
	{"RFC 9110 lists PUT and DELETE among the idempotent methods.", ""},
	{"Nothing you send can ever be booked twice.", RuleAbsoluteGuarantee},
	{"A refund can never be made twice.", RuleAbsoluteGuarantee},
	// The grammar of the promise (issue 29, after heldout4 and dev5):
	// passive and future negation, a possessive subject, a question
	// answered by an absolute, "no situation in which", a digit for zero,
	// "one time only", a quote named by what follows it, any form of the
	// retry verb after "whatever the", a compound "RFC-compliant".
	{"No refund was duplicated, and none will ever be duplicated.", RuleAbsoluteGuarantee},
	{"Double charges? Never.", RuleAbsoluteGuarantee},
	{"Duplicate shipments will no longer occur.", RuleAbsoluteGuarantee},
	{"There is no situation in which an order is billed twice.", RuleAbsoluteGuarantee},
	{"0 duplicate invoices, guaranteed.", RuleAbsoluteGuarantee},
	{"None of our merchant's customers will ever be billed twice.", RuleAbsoluteGuarantee},
	{"Duplicate charges can happen when the key changes.", ""},
	{"Each invoice is sent one time only.", RuleExactlyOnce},
	{"Our \"exactly-once\" banner is gone.", ""},
	{"Whatever the exception, the worker retries the job.", RuleRetryAnyError},
	{"Whatever the status code, a failed call is resent.", RuleRetryAnyError},
	{"RFC-compliant idempotency keys on every plan.", RuleStandardClaim},
	{"Double payouts are prevented in every case.", RuleAbsoluteGuarantee},
	{"Since 2024, refunds issued twice are history.", RuleAbsoluteGuarantee},
	{"Duplicate payouts were rare, but a retry without its key could still pay twice.", ""},
}

func TestClaimCorpus(t *testing.T) {
	pos, neg := 0, 0
	for _, tc := range append(claimCorpus[:len(claimCorpus):len(claimCorpus)], claimPartsCorpus...) {
		if tc.rule == "" {
			neg++
		} else {
			pos++
		}
		for _, name := range []string{"claim.md", "claim.txt"} {
			fs := LintSource(nil, name, []byte(tc.text+"\n"))
			var got []string
			for _, f := range fs {
				got = append(got, f.Rule)
				if f.Fix == "" || f.Message == "" {
					t.Errorf("%s: finding without message or fix: %+v", name, f)
				}
			}
			switch {
			case tc.rule == "" && len(got) > 0:
				t.Errorf("%s: honest copy flagged %v:\n\t%s", name, got, tc.text)
			case tc.rule != "" && !contains(got, tc.rule):
				t.Errorf("%s: %s missed (got %v):\n\t%s", name, tc.rule, got, tc.text)
			case tc.rule != "" && len(got) > 1:
				t.Errorf("%s: want only %s, got %v:\n\t%s", name, tc.rule, got, tc.text)
			}
		}
	}
	if pos < 60 || neg < 60 {
		t.Errorf("corpus has %d positive and %d negative sentences; keep at least 60 of each", pos, neg)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
