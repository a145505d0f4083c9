package idempotency

// PathValues is pathValues, for its table test.
var PathValues = pathValues
