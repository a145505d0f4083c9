package idempotency

// ClaimBatches reports how many ClaimBatch and ClaimLookupBatch statements
// s sent and how many of them failed, for the tests.
func ClaimBatches(s *SQLStore) (sent, failed int64) {
	return s.batches.Load(), s.batchFailures.Load()
}

// LookupBatches reports how many of those were ClaimLookupBatch.
func LookupBatches(s *SQLStore) int64 { return s.lookupBatches.Load() }

// WriteBatches reports how many batches of several pipelines s sent, and
// MergedBatches how many of them committed as one transaction.
func WriteBatches(s *SQLStore) int64 { return s.writeBatches.Load() }

func MergedBatches(s *SQLStore) int64 { return s.mergedBatches.Load() }

// HoldWrites makes the pipelines s is given queue as if one were in flight;
// Queued counts them and ReleaseWrites sends them, in the order they
// queued, as one batch, as the pipeline in flight would on its return.
func HoldWrites(s *SQLStore) {
	s.writes.mu.Lock()
	s.writes.busy = maxWritesInFlight
	s.writes.mu.Unlock()
}

func Queued(s *SQLStore) int {
	s.writes.mu.Lock()
	defer s.writes.mu.Unlock()
	return len(s.writes.queue)
}

func ReleaseWrites(s *SQLStore) { s.writes.handOff(nil) }

// Trips reports the round trips of s's claim and write batchers.
func Trips(s *SQLStore) (claims, writes int64) { return s.claimTrips.Load(), s.writeTrips.Load() }

// BatchingWrites reports whether s sends concurrent write pipelines together.
func BatchingWrites(s *SQLStore) bool { return s.writes != nil }

// PathValues is pathValues, for its table test.
var PathValues = pathValues
