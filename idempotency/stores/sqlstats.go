package stores

import (
	"database/sql"

	"github.com/retryspec/retryspec/idempotency/internal/native"
)

// Stats are an SQLStore's figures at one moment, as sql.DB.Stats and
// pgxpool's Stat report theirs. The counts only grow: a dashboard takes
// the difference between two readings.
type Stats struct {
	// DB is the *sql.DB's figures; on PostgreSQL its connections are
	// borrowed from the pgx pool the Pool figures describe (zero
	// elsewhere): size limit, connections open, idle and in use, and
	// acquires, of which EmptyAcquires waited for a free connection.
	DB                                                             sql.DBStats
	PoolMaxConns, PoolTotalConns, PoolIdleConns, PoolAcquiredConns int32
	PoolAcquires, PoolEmptyAcquires                                int64

	// Whether concurrent claims and write pipelines are sent together and
	// a write batch may commit as one transaction, fixed when the store
	// is made (docs/server.md, "Under load").
	BatchingClaims, BatchingWrites, MergingWrites bool

	// Round trips of the claim and write batchers, of which ClaimBatches
	// sent several claims (LookupBatches with the rows lost to, and
	// FailedClaimBatches failed, their keys then claimed one by one) and
	// WriteBatches several pipelines (MergedWriteBatches committed as one
	// transaction). The Queued figures are the calls waiting for a batch.
	ClaimTrips, ClaimBatches, LookupBatches, FailedClaimBatches int64
	WriteTrips, WriteBatches, MergedWriteBatches                int64
	ClaimsQueued, WritesQueued                                  int
}

// Stats reads the store's figures.
func (s *SQLStore) Stats() Stats {
	c := &s.counts
	st := Stats{
		DB:             s.db.Stats(),
		BatchingClaims: s.claims != nil, BatchingWrites: s.writes != nil, MergingWrites: s.mergeWrites,
		ClaimTrips: c.claimTrips.Load(), ClaimBatches: c.batches.Load(), LookupBatches: c.lookupBatches.Load(), FailedClaimBatches: c.batchFailures.Load(),
		WriteTrips: c.writeTrips.Load(), WriteBatches: c.writeBatches.Load(), MergedWriteBatches: c.mergedBatches.Load(),
	}
	if s.claims != nil {
		st.ClaimsQueued = s.claims.Queued()
	}
	if s.writes != nil {
		st.WritesQueued = s.writes.Queued()
	}
	if p, ok := s.native.(native.Pool); ok {
		ps := p.PoolStats()
		st.PoolMaxConns, st.PoolTotalConns, st.PoolIdleConns, st.PoolAcquiredConns = ps.MaxConns, ps.TotalConns, ps.IdleConns, ps.AcquiredConns
		st.PoolAcquires, st.PoolEmptyAcquires = ps.Acquires, ps.EmptyAcquires
	}
	return st
}
