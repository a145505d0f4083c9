package diff

// Rows for the fields issue 16 added: where the data lives, whether an
// endpoint answers external_calls, its handler duration, whether its effect
// was reviewed, and the fleet size. Appended to rowCases so TestRows
// exercises them with every other row.
func init() {
	rowCases = append(rowCases,
		rowCase{path: "idempotency.claim.data_store", new: "mysql", rule: "changed", want: Notable},
		rowCase{path: "endpoints[0].external_calls", new: absent, row: "endpoints[].external_calls_stated", rule: "lowered", want: Notable},
		rowCase{path: "endpoints[0].external_calls", old: absent, new: "[]", row: "endpoints[].external_calls_stated", rule: "raised", want: Compatible},
		rowCase{path: "endpoints[0].max_duration", new: "5m", rule: "changed", want: Notable},
		rowCase{path: "endpoints[0].reviewed", new: "false", rule: "lowered", want: Notable},
		rowCase{path: "endpoints[0].reviewed", old: "false", new: "true", rule: "raised", want: Compatible},
		rowCase{path: "retry.fleet", new: "40", rule: "changed", want: Notable},
	)
}
