// Package contract is the one model of retryspec.yaml that every other
// package reads: loading with a position for every value, validation of
// every name that later reaches code or HTML, the format's defaults, and a
// starter contract for `retryspec init`.
//
// It imports nothing of retryspec's own; the rules, renderers, snippets,
// OpenAPI, copy and diff packages import it.
package contract
