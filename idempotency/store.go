package idempotency

import (
	"errors"

	"github.com/retryspec/retryspec/idempotency/keystore"
)

// ErrFenceLost is returned by a Step's writes when another worker took the
// key over: the handler must stop, since its lease is gone.
var ErrFenceLost = errors.New("idempotency: the key was taken over by another worker (fencing token no longer current)")

// Write is one of a handler's own statements, in its database's SQL and
// placeholders, for Step.CommitWrites and Step.FinishWrites to commit
// together with the key's next recovery point or its response. It is the
// store's type, so a store commits it without a copy.
type Write = keystore.Write
