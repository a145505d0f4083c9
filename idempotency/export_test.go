package idempotency

// ClaimBatches reports how many ClaimLookupBatch statements s sent and how
// many of them failed, for the tests.
func ClaimBatches(s *SQLStore) (sent, failed int64) {
	return s.batches.Load(), s.batchFailures.Load()
}
