// Package run runs a rendered snippet as a program: it writes the exact
// bytes into a fresh temporary folder, builds them when the language needs a
// build step, and runs them with a timeout and a minimal environment. It is
// the only snippets package that starts processes; tests of code above it
// use Fake.
package run
