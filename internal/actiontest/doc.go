// Package actiontest holds the test that runs the steps of the repository's
// composite GitHub Action (action.yml) as scripts in a temporary git
// repository, with a locally built retryspec on PATH and no network. It has
// no code of its own.
package actiontest
