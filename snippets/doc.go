// Package snippets renders the contract's retry policy as a complete,
// runnable program in each supported language. Generation is pure: a
// contract goes in, source text comes out, and the text is the exact bytes
// that `retryspec snippets test` runs. Nothing here starts processes, opens
// sockets or reads the environment; running lives in snippets/run and the
// fault-injection server in snippets/faultserver.
//
// Every contract value reaches a snippet through one escaping function per
// target language (escape.go), never by pasting text into a template.
package snippets
