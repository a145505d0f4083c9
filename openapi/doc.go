// Package openapi puts a retryspec contract into the team's OpenAPI spec and
// checks the two against each other. It owns:
//
//   - loading a 3.0 or 3.1 spec (YAML or JSON) read-only, validated with
//     kin-openapi, with positions for every node (go.yaml.in/yaml/v3 reads
//     JSON too, so one tree serves both formats);
//   - the plan: what each keyed operation, each operation documented unsafe
//     to retry and the document root gain, and what the spec already has;
//   - two renderings of one plan: an OpenAPI Overlay 1.0 document and the
//     merged spec, written by inserting text so that a line diff of input
//     against output shows only added lines;
//   - drift between the contract's endpoints and the spec's operations
//     (`check --openapi`) and the endpoint importer behind `init --openapi`.
//
// It imports contract, contract/rules (its rules' IDs and severities) and
// findings; only this package imports kin-openapi.
package openapi
