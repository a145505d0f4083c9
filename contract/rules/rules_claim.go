package rules

import (
	"fmt"
	"slices"

	"github.com/retryspec/retryspec/contract"
	"github.com/retryspec/retryspec/findings"
)

// Store families decide which claim mechanisms a store can arbitrate.
var (
	relationalStores = []contract.Store{contract.StorePostgres, contract.StoreMySQL, contract.StoreSQLite, contract.StoreSQLServer, contract.StoreOracle}
	cacheStores      = []contract.Store{contract.StoreRedis, contract.StoreMemcached}
)

// mechanismMismatch explains why mechanism cannot work on store, or "".
func mechanismMismatch(store contract.Store, mechanism contract.Mechanism) string {
	switch {
	case mechanism == contract.MechanismCheckThenInsert:
		return "" // claim/check-then-insert reports it
	case store == contract.StoreMemory:
		return "an in-process memory store is lost on restart and not shared between instances, so it cannot arbitrate a claim"
	case slices.Contains(cacheStores, store) && mechanism != contract.MechanismLock:
		return fmt.Sprintf("%s is a cache: a claim kept only there is lost on eviction or failover", store)
	case slices.Contains(relationalStores, store) && mechanism == contract.MechanismConditionalWrite:
		return fmt.Sprintf("%s is relational: claim with a unique constraint, not a key-value conditional write", store)
	case store == contract.StoreDynamoDB && (mechanism == contract.MechanismUniqueConstraint || mechanism == contract.MechanismRowLockSerializable):
		return fmt.Sprintf("%s has no %s; claim with a conditional write (attribute_not_exists)", store, mechanism)
	case store == contract.StoreCosmosDB && mechanism == contract.MechanismRowLockSerializable:
		// Cosmos DB's unique keys are enforced per logical partition: with the
		// account as partition key they arbitrate (account, key) exactly, so
		// unique-constraint is a sound claim there.
		return "cosmosdb has no row locks; claim with a unique key (per partition, the account as partition key) or a conditional write"
	}
	return ""
}

var claimRules = []Rule{
	{
		ID:       "claim/check-then-insert",
		Severity: findings.Error,
		Scope:    ScopeContract,
		Summary:  "the key is claimed by reading first and inserting after (a TOCTOU race)",
		Rationale: "Two concurrent retries both read \"no such key\", both insert, and both run the side effect. The claim must be one " +
			"atomic operation that the store arbitrates: an INSERT against a unique constraint on (account, key), a conditional write, " +
			"or, for requests that call other systems, a row lock inside a SERIALIZABLE transaction (the Postgres reference design by Brandur Leach).",
		Sources: []findings.Source{srcBrandur},
		Fix:     "claim with mechanism: unique-constraint (INSERT ... ON CONFLICT DO NOTHING) or conditional-write",
		Bad:     "idempotency:\n  claim:\n    mechanism: check-then-insert\n",
		Good:    "idempotency:\n  claim:\n    mechanism: unique-constraint\n",
		Check: func(c *contract.Contract) []findings.Finding {
			if c.Idempotency.Claim.Mechanism != contract.MechanismCheckThenInsert {
				return nil
			}
			return []findings.Finding{at(c, findings.Finding{Path: "idempotency.claim.mechanism",
				Message: "mechanism is check-then-insert: two concurrent retries both see the key absent and both run the request",
				Fix:     "set mechanism: unique-constraint: insert first and let a unique constraint on (account_id, idempotency_key) pick the single winner"})}
		},
	},
	{
		ID:       "claim/lock-without-fencing",
		Severity: findings.Error,
		Scope:    ScopeContract,
		Summary:  "a lease lock (e.g. Redis SETNX with a TTL) guards the claim without fencing tokens",
		Rationale: "A client that pauses past its lease (a GC pause, a slow network) still believes it holds the lock and writes after " +
			"another client took it over. Kleppmann's analysis shows no timing assumption prevents this; only a fencing token that the " +
			"store checks on every write does. No surveyed vendor claims keys with a distributed lock.",
		Sources: []findings.Source{srcKleppm},
		Fix:     "claim with a database unique constraint, or set claim.fencing_tokens: true and check the token on every write",
		Bad:     "idempotency:\n  claim:\n    store: redis\n    mechanism: lock\n    fencing_tokens: false\n",
		Good:    "idempotency:\n  claim:\n    store: redis\n    mechanism: lock\n    fencing_tokens: true\n",
		Check: func(c *contract.Contract) []findings.Finding {
			cl := c.Idempotency.Claim
			if cl.Mechanism != contract.MechanismLock || cl.FencingTokens {
				return nil
			}
			return []findings.Finding{at(c, findings.Finding{Path: "idempotency.claim.mechanism",
				Message: fmt.Sprintf("mechanism is lock on %s without fencing tokens: a client paused past its lease can still write after the lock moved on", cl.Store),
				Fix:     "set fencing_tokens: true and reject writes carrying an older token, or claim with a unique constraint instead"})}
		},
	},
	{
		ID:       "claim/mechanism-store-mismatch",
		Severity: findings.Error,
		Scope:    ScopeContract,
		Summary:  "the claim mechanism is not one the store can provide",
		Rationale: "A unique constraint needs a store that enforces one: a relational database, or Cosmos DB, whose unique keys hold " +
			"per logical partition (sound for (account, key) when the account is the partition key). A conditional write is how " +
			"key-value stores such as DynamoDB give the same single-winner guarantee. A claim kept only in a cache (or in process " +
			"memory) disappears on eviction, failover or restart, and a retry then runs again. Pick the mechanism the store really arbitrates.",
		Sources: []findings.Source{srcBrandur, srcAWSIdem, srcCosmosUnique},
		Fix:     "use unique-constraint or row-lock-serializable on a relational store, conditional-write on DynamoDB, unique-constraint or conditional-write on Cosmos DB",
		Bad:     "idempotency:\n  claim:\n    store: dynamodb\n    mechanism: unique-constraint\n",
		Good:    "idempotency:\n  claim:\n    store: dynamodb\n    mechanism: conditional-write\n",
		Check: func(c *contract.Contract) []findings.Finding {
			cl := c.Idempotency.Claim
			why := mechanismMismatch(cl.Store, cl.Mechanism)
			if why == "" {
				return nil
			}
			return []findings.Finding{at(c, findings.Finding{Path: "idempotency.claim.mechanism",
				Message: fmt.Sprintf("mechanism %s on store %s: %s", cl.Mechanism, cl.Store, why),
				Fix:     "keep the claim in a durable store with a mechanism it arbitrates: unique-constraint on postgres/mysql, conditional-write on dynamodb"})}
		},
	},
	{
		ID:       "claim/outside-transaction",
		Severity: findings.Error,
		Scope:    ScopeContract,
		Summary:  "the endpoint's writes do not commit in the same transaction as the key's record",
		Rationale: "If the effect is applied in one transaction and the key's progress recorded in another, a crash between them leaves " +
			"a key that says a phase has not run although its rows exist (a retry runs it again) or says it ran although nothing was " +
			"written. AWS states the key and the mutation must commit as one unit. Brandur Leach's atomic phases keep that promise " +
			"phase by phase: the claim commits alone, before any effect, and each phase's writes commit with its fenced recovery point, " +
			"the last with the stored response.",
		Sources: []findings.Source{srcAWSIdem, srcBrandur},
		Fix:     "set claim.same_transaction: true: commit each phase's writes in the transaction that records its recovery point, and the last with the response",
		Bad:     "idempotency:\n  claim:\n    same_transaction: false\n",
		Good:    "idempotency:\n  claim:\n    same_transaction: true\n",
		Check: func(c *contract.Contract) []findings.Finding {
			if c.Idempotency.Claim.SameTransaction {
				return nil
			}
			return []findings.Finding{at(c, findings.Finding{Path: "idempotency.claim.same_transaction",
				Message: "same_transaction is false: a crash between a phase's writes and its recovery point leaves a key that repeats the phase, or one that skips it",
				Fix:     "commit each phase's writes with its recovery point (the last with the response) and set same_transaction: true"})}
		},
	},
}

// singleWinner is the claim mechanism a durable store arbitrates most
// cheaply: a conditional write on DynamoDB, a unique constraint elsewhere.
func singleWinner(store contract.Store) contract.Mechanism {
	if store == contract.StoreDynamoDB {
		return contract.MechanismConditionalWrite
	}
	return contract.MechanismUniqueConstraint
}

// noTransactionStores commit one item at a time: no transaction can hold
// a phase's writes and the key's recovery point together.
var noTransactionStores = []contract.Store{contract.StoreMemcached, contract.StoreMemory}

var srcMemcachedCAS = findings.Source{Title: "memcached wiki, Commands (cas: check and set on one item)", URL: "https://github.com/memcached/memcached/wiki/Commands"}

var srcCosmosUnique = findings.Source{Title: "Azure Cosmos DB, Unique key constraints", URL: "https://learn.microsoft.com/azure/cosmos-db/unique-keys"}

// claimAnswerRules compare the claim with where the data lives (issue 16).
var claimAnswerRules = []Rule{
	{
		ID:       "claim/cross-store-transaction",
		Severity: findings.Error,
		Scope:    ScopeContract,
		Summary:  "the claim is said to commit in the same transaction as data that lives in another store",
		Rationale: "same_transaction: true promises that the key and the effect it guards commit as one unit, as AWS requires. No " +
			"transaction spans two stores: a Redis claim cannot commit \"in the same transaction\" as Postgres rows, so a crash " +
			"between the two writes leaves a key without its effect or an effect without its key, whatever the flag says.",
		Sources: []findings.Source{srcAWSIdem, srcBrandur},
		Fix:     "keep the claim in the store that holds the data (claim.store equal to claim.data_store)",
		Bad:     "idempotency:\n  claim:\n    store: redis\n    mechanism: lock\n    fencing_tokens: true\n    same_transaction: true\n    data_store: postgres\n",
		Good:    "idempotency:\n  claim:\n    store: postgres\n    mechanism: unique-constraint\n    same_transaction: true\n    data_store: postgres\n",
		Check: func(c *contract.Contract) []findings.Finding {
			cl := c.Idempotency.Claim
			if !cl.SameTransaction || cl.DataStore == "" || cl.DataStore == cl.Store {
				return nil
			}
			return []findings.Finding{at(c, findings.Finding{Path: "idempotency.claim.data_store",
				Message: fmt.Sprintf("the claim lives in %s but the data in %s: no transaction spans both, so same_transaction: true cannot hold", cl.Store, cl.DataStore),
				Fix:     fmt.Sprintf("set store: %s and mechanism: %s: claim the key in the transaction that writes the data", cl.DataStore, singleWinner(cl.DataStore))})}
		},
	}, {
		ID:       "claim/same-transaction-without-transactions",
		Severity: findings.Error,
		Scope:    ScopeContract,
		Summary:  "same_transaction is promised on a store that cannot commit two writes as one",
		Rationale: "same_transaction: true is the atomic-phases design: the claim commits alone before any effect, then each phase's " +
			"writes commit in one transaction with the key's fenced recovery point, and the last phase's with the stored response. " +
			"That needs the store holding the key's record and the endpoints' rows to commit several items together or not at all. " +
			"Memcached cannot: every command, cas included, touches one item, so a crash between a phase's rows and its recovery " +
			"point leaves a key that repeats the phase or skips it. Process memory has no transaction and is gone on restart. " +
			"No server, the idempotency middleware included, can keep the promise there, whatever the flag says.",
		Sources: []findings.Source{srcBrandur, srcAWSIdem, srcMemcachedCAS},
		Fix:     "keep the key's record and the rows in a store with transactions: claim.store and claim.data_store postgres (or mysql, sqlite), mechanism unique-constraint",
		Bad:     "idempotency:\n  claim:\n    store: memcached\n    mechanism: lock\n    fencing_tokens: true\n    same_transaction: true\n",
		Good:    "idempotency:\n  claim:\n    store: redis\n    mechanism: lock\n    fencing_tokens: true\n    same_transaction: true\n",
		Fixed:   "idempotency:\n  claim:\n    store: postgres\n    mechanism: unique-constraint\n    data_store: postgres\n",
		Check: func(c *contract.Contract) []findings.Finding {
			cl := c.Idempotency.Claim
			store, path := cl.Store, "idempotency.claim.store"
			if cl.DataStore != "" {
				store, path = cl.DataStore, "idempotency.claim.data_store"
			}
			if !cl.SameTransaction || !slices.Contains(noTransactionStores, store) || (cl.DataStore != "" && cl.DataStore != cl.Store) {
				return nil // claim/cross-store-transaction reports a record and rows in two stores
			}
			return []findings.Finding{at(c, findings.Finding{Path: path,
				Message: fmt.Sprintf("the key's record and the endpoints' rows live in %s, which commits one item at a time: a phase's writes and its recovery point cannot commit as one, so same_transaction: true cannot hold", store),
				Fix:     fmt.Sprintf("move the key's record and the rows to a store with transactions (store: postgres, mechanism: %s, data_store: postgres)", singleWinner(contract.StorePostgres))})}
		},
	}, {
		ID:       "claim/row-lock-without-external-calls",
		Severity: findings.Warning,
		Scope:    ScopeContract,
		Summary:  "the claim is a row lock in a SERIALIZABLE transaction while no keyed endpoint calls another system",
		Rationale: "A row lock inside a SERIALIZABLE transaction is the claim to promote only for requests that call other systems: " +
			"its locked_at column makes \"in flight\" a state of its own that survives a lease and anchors recovery points between " +
			"a charge and an email. For requests that only write their own database it buys nothing a unique constraint on " +
			"(account, key) does not already give, and costs isolation tuning and a retry loop on every serialization failure, " +
			"so it loses on effort and on efficiency. Brandur Leach's Postgres design uses it for exactly the multi-step case.",
		Sources: []findings.Source{srcBrandur, srcAWSIdem},
		Fix:     "claim with mechanism: unique-constraint, or list the external_calls that need the row lock's recovery points",
		Bad:     "idempotency:\n  claim:\n    mechanism: row-lock-serializable\n" + endpointBase + "  - operation: POST /v1/orders\n    effect: create\n    key: required\n    external_calls: []\n",
		Good:    "idempotency:\n  claim:\n    mechanism: unique-constraint\n" + endpointBase + "  - operation: POST /v1/orders\n    effect: create\n    key: required\n    external_calls: []\n",
		Check: func(c *contract.Contract) []findings.Finding {
			if c.Idempotency.Claim.Mechanism != contract.MechanismRowLockSerializable || mechanismMismatch(c.Idempotency.Claim.Store, contract.MechanismRowLockSerializable) != "" {
				return nil
			}
			keyed := 0
			for _, e := range c.Endpoints {
				if !e.Keyed() {
					continue
				}
				if len(e.ExternalCalls) > 0 || !e.ExternalCallsStated {
					return nil // a call, or an unanswered question endpoint/external-calls-unstated asks
				}
				keyed++
			}
			return []findings.Finding{at(c, findings.Finding{Path: "idempotency.claim.mechanism",
				Message: fmt.Sprintf("mechanism is row-lock-serializable, but none of the %d keyed %s calls another system: the row lock's recovery points have nothing to bracket, "+
					"and every claim pays SERIALIZABLE isolation and its serialization-failure retries for the single winner a unique constraint picks", keyed, plural(keyed, "endpoint", "endpoints")),
				Fix: "set mechanism: unique-constraint (one INSERT on (account_id, idempotency_key)); keep the row lock for APIs whose requests call other systems"})}
		},
	},
}
