// Package client is `retryspec verify client`: it proves a client program
// (an SDK, a generated client, an integrator's own code) keeps the
// contract's retry policy. It reuses the snippet suite's fault server and
// scenarios: for each scenario it starts the fault server on a free
// loopback port, runs the program once with RETRYSPEC_BASE_URL,
// RETRYSPEC_OPERATION and RETRYSPEC_SCENARIO set, and judges what the server
// saw (every attempt: time, key, body, first-sent header) and the exit
// code, gate by gate. The fault server reads the key where the contract
// puts it (its header, or key_field in the JSON body).
//
// The gates are rows of one table (Gates): ID, the contract value each
// checks, the scenarios it reads, its judge, its dry-run text and its
// explain text. Results are verify.Result values, so the outputs (text
// table, json with gates, junit) are verify's own.
//
// It imports contract, contract/rules, findings, snippets,
// snippets/faultserver, snippets/suite (the scenarios) and verify (the
// result and its encoders); only the CLI imports it.
package client
