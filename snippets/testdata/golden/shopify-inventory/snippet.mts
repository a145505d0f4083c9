// Call the API with the contract's retry policy, in Node.js 18+ (ES module, TypeScript).
//
// Build: tsc --strict --target es2022 --module nodenext snippet.mts (needs @types/node)
// Run: node snippet.mjs [idempotency-key]
// Set RETRYSPEC_BASE_URL to call another base URL (a staging API, say).
//
// No npm package: the common one, exponential-backoff, has full jitter but
// cannot take the server's Retry-After as the next wait, nor bound the total
// elapsed time, so the loop is written out with the built-in fetch.
//
// The policy: an allowlist of statuses, never a blanket catch; a cautious
// status (a 500 may be a bug that fails the same way again) retried at most
// once; Retry-After honoured; full jitter (base 1000 ms, cap 30000 ms,
// multiplier 2.0); at most 3 attempts within one overall deadline of
// 120000 ms, each attempt's timeout cut to what is left of it.
import { randomUUID } from "node:crypto";
import { realpathSync } from "node:fs";
import { pathToFileURL } from "node:url";

const BASE_URL = process.env["RETRYSPEC_BASE_URL"] || "https://your-shop.myshopify.com";
const METHOD = "POST";
const PATH = "/admin/api/2026-04/graphql.json";
// The request is a GraphQL mutation (inventorySetQuantities); the key travels as this
// variable of its document, the same document on every attempt.
const KEY_VARIABLE = "idempotencyKey";
// A 200 with an error entry here is a failed mutation: never retried, unless
// the entry is the in-flight conflict (JSON pointer /data/inventorySetQuantities/userErrors/0).
const ENTRY_AT = ["data", "inventorySetQuantities", "userErrors", "0"];

const RETRY_STATUSES = new Set<number>([429, 502, 503, 504]); // retried normally
const RETRY_STATUS_CLASSES = new Set<number>([]); // e.g. 5 for 5XX
const CAUTIOUS_STATUSES = new Set<number>([500]); // retried at most once
const RETRY_AFTER_STATUSES = new Set<number>([429, 503]); // wait as long as Retry-After says
// The same key is still being processed: wait, then retry with the same key.
const IN_FLIGHT: { status: number; code: string } | null = { status: 200, code: "IDEMPOTENCY_CONCURRENT_REQUEST" };
const RETRY_TIMEOUT: boolean = true;
const RETRY_RESET: boolean = true;
const RETRY_REFUSED: boolean = true;

const BASE_MS = 1000;
const CAP_MS = 30000;
const MULTIPLIER = 2.0;
const MAX_ATTEMPTS = 3; // including the first
const MAX_ELAPSED_MS = 120000; // one overall deadline for the whole loop
const ATTEMPT_TIMEOUT_MS = 10000; // per attempt, never past the deadline

class AttemptFailed extends Error {
  retryable: boolean;
  cautious: boolean;
  retryAfterMs: number | null;
  constructor(
    message: string,
    { retryable = false, cautious = false, retryAfterMs = null }: { retryable?: boolean; cautious?: boolean; retryAfterMs?: number | null } = {},
  ) {
    super(message);
    this.retryable = retryable;
    this.cautious = cautious;
    this.retryAfterMs = retryAfterMs;
  }
}

// The request body with the key as the document's KEY_VARIABLE variable.
function withKey(body: unknown, key: string): object {
  return { ...(body as object), variables: { [KEY_VARIABLE]: key } };
}

// Whether the answer carries an error entry at ENTRY_AT.
function hasEntry(text: string): boolean {
  let node: any; // a parsed JSON value
  try {
    node = JSON.parse(text);
  } catch {
    return false;
  }
  for (const token of ENTRY_AT) {
    if (node === null || typeof node !== "object" || !Object.hasOwn(node, token)) return false;
    node = node[token];
  }
  return node !== null && node !== undefined;
}

// Where this API's error bodies carry their code (JSON pointer /data/inventorySetQuantities/userErrors/0/code).
const ERROR_CODE_AT = ["data", "inventorySetQuantities", "userErrors", "0", "code"];

// Whether the JSON error body carries code at ERROR_CODE_AT.
function hasCode(text: string, code: string): boolean {
  let node: any; // a parsed JSON value
  try {
    node = JSON.parse(text);
  } catch {
    return false;
  }
  for (const token of ERROR_CODE_AT) {
    if (node === null || typeof node !== "object" || !Object.hasOwn(node, token)) return false;
    node = node[token];
  }
  return node === code;
}

function retryAfterMs(value: string | null): number | null {
  if (value === null) return null;
  if (/^\s*\d+\s*$/.test(value)) return Number(value) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - Date.now());
}

// Whether the answer says the first request with this key is still running.
function inFlight(status: number, text: string): boolean {
  return IN_FLIGHT !== null && status === IN_FLIGHT.status && hasCode(text, IN_FLIGHT.code);
}

function classifyStatus(status: number, headers: Headers, text: string): AttemptFailed {
  const error = `HTTP ${status}`;
  if (IN_FLIGHT && inFlight(status, text)) {
    return new AttemptFailed(`${error} ${IN_FLIGHT.code}`, { retryable: true });
  }
  if (Math.floor(status / 100) === 2) {
    // Any other error entry (a payload mismatch included) fails the same way again.
    return new AttemptFailed(`${error} with an error entry`);
  }
  // Checked before the allowlist, so a 5XX class cannot lift its limit.
  if (CAUTIOUS_STATUSES.has(status)) {
    return new AttemptFailed(error, { retryable: true, cautious: true });
  }
  if (RETRY_STATUSES.has(status) || RETRY_STATUS_CLASSES.has(Math.floor(status / 100))) {
    const wait = RETRY_AFTER_STATUSES.has(status) ? retryAfterMs(headers.get("retry-after")) : null;
    return new AttemptFailed(error, { retryable: true, retryAfterMs: wait });
  }
  // Any other 4xx (a payload-mismatch conflict included) fails the same way again.
  return new AttemptFailed(error);
}

function classifyConnectionError(err: any, hasKey: boolean): AttemptFailed {
  const code = err.cause?.code ?? err.code;
  let kind: string, allowed: boolean;
  if (err.name === "TimeoutError" || err.name === "AbortError") {
    [kind, allowed] = ["timeout", RETRY_TIMEOUT];
  } else if (code === "ECONNREFUSED") {
    [kind, allowed] = ["connection refused", RETRY_REFUSED];
  } else {
    [kind, allowed] = [`connection error (${code ?? err.message})`, RETRY_RESET];
  }
  // A request that may have reached the server is repeated only under a key.
  return new AttemptFailed(kind, { retryable: allowed && hasKey });
}

// Full jitter: random(0, min(CAP, BASE * MULTIPLIER ** (attempt - 1))).
function backoffMs(attempt: number): number {
  return Math.random() * Math.min(CAP_MS, BASE_MS * MULTIPLIER ** (attempt - 1));
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

// POST body once per logical request; resolves to { status, body }.
export async function postWithRetries(
  body: unknown,
  key: string = randomUUID(),
): Promise<{ status: number; body: string }> {
  // One key per logical request (minted above, or the caller's own id),
  // reused on every attempt: a fresh key per attempt would defeat it.
  // The key goes into the body once, so every attempt sends the same bytes.
  const payload = JSON.stringify(withKey(body, key));
  const deadline = performance.now() + MAX_ELAPSED_MS;
  let cautiousRetries = 0;
  for (let attempt = 1; ; attempt++) {
    const remaining = deadline - performance.now();
    let failure: AttemptFailed;
    if (remaining <= 0) {
      failure = new AttemptFailed("overall deadline passed");
    } else {
      try {
        const response = await fetch(BASE_URL + PATH, {
          method: METHOD,
          headers: { "Content-Type": "application/json" },
          body: payload,
          signal: AbortSignal.timeout(Math.ceil(Math.min(ATTEMPT_TIMEOUT_MS, remaining))),
        });
        const text = await response.text();
        // A 200 with an error entry is not the result: the in-flight
        // conflict is retried, any other entry fails.
        if (response.ok && !inFlight(response.status, text) && !hasEntry(text)) return { status: response.status, body: text };
        failure = classifyStatus(response.status, response.headers, text);
      } catch (err) {
        failure = classifyConnectionError(err, key !== undefined);
      }
    }
    if (failure.cautious && ++cautiousRetries > 1) failure.retryable = false;
    if (!failure.retryable || attempt >= MAX_ATTEMPTS) {
      throw new AttemptFailed(`giving up after attempt ${attempt}: ${failure.message}`);
    }
    const waitMs = failure.retryAfterMs ?? backoffMs(attempt);
    if (performance.now() + waitMs >= deadline) {
      throw new AttemptFailed(`giving up after attempt ${attempt}: ${failure.message} (a ${Math.round(waitMs)} ms wait would pass the deadline)`);
    }
    console.error(`attempt ${attempt} failed: ${failure.message}; retrying in ${Math.round(waitMs)} ms`);
    await sleep(waitMs);
  }
}

// Run as a program (node snippet.mjs [idempotency-key]); imported as a
// module, it only exports postWithRetries.
if (process.argv[1] && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href) {
  try {
    const { status, body } = await postWithRetries({ query: "mutation inventorySetQuantities($idempotencyKey: String!) { inventorySetQuantities(input: {name: \"available\", reason: \"correction\", quantities: [{inventoryItemId: \"gid://shopify/InventoryItem/123\", locationId: \"gid://shopify/Location/456\", quantity: 11, compareQuantity: 10}]}) @idempotent(key: $idempotencyKey) { userErrors { code message } } }" }, process.argv[2] || undefined);
    console.log(`HTTP ${status}: ${body}`);
  } catch (err) {
    console.error((err as Error).message);
    process.exitCode = 1;
  }
}
