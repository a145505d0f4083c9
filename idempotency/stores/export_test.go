package stores

import "context"

// HoldWrites makes the pipelines s is given queue as if one were in flight;
// Queued counts them and ReleaseWrites sends them, in the order they
// queued, as one batch, as the pipeline in flight would on its return.
func HoldWrites(s *SQLStore) { s.writes.Hold() }

func Queued(s *SQLStore) int { return s.writes.Queued() }

func ReleaseWrites(s *SQLStore) { s.writes.Release() }

// HasNative reports whether s runs its statements on a native client.
func HasNative(s *SQLStore) bool { return s.native != nil }

// Exec runs a statement of the benchmarks' own on s's native client when
// it has one, as a service's handler would, else on its *sql.DB.
func Exec(ctx context.Context, s *SQLStore, query string, args []any) error {
	if s.native != nil {
		_, err := s.native.Exec(ctx, query, args)
		return err
	}
	_, err := s.db.ExecContext(ctx, query, args...)
	return err
}
