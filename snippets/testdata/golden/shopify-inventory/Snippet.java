// Calls the API with the contract's retry policy, using Resilience4j.
//
// Requires: Java 17+, io.github.resilience4j:resilience4j-retry 2.x with
// resilience4j-core and slf4j-api (jars in ./jars).
// Run: java -cp 'jars/*' Snippet.java [idempotency-key]
//  or: javac -cp 'jars/*' Snippet.java && java -cp '.:jars/*' Snippet [idempotency-key]
// Set RETRYSPEC_BASE_URL to call another base URL (a staging API, say).
//
// The policy, as Resilience4j settings:
//   - maxAttempts(3): the attempt bound, the first attempt included.
//   - retryOnResult / retryOnException: an allowlist, never a blanket catch;
//     a cautious status (a 500 may be a bug that fails the same way again)
//     is retried at most once.
//   - intervalBiFunction: the server's Retry-After when it sends one, else
//     full jitter (base 1000 ms, cap 30000 ms, multiplier 2.0); a wait that would
//     pass the overall deadline of 120000 ms ends the loop instead.
//   - onRetry event: one log line per retry (attempt, error, next wait).
import io.github.resilience4j.core.IntervalBiFunction;
import io.github.resilience4j.core.functions.Either;
import io.github.resilience4j.retry.Retry;
import io.github.resilience4j.retry.RetryConfig;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;

public class Snippet {
    static final String BASE_URL = "https://your-shop.myshopify.com";
    static final String METHOD = "POST";
    static final String PATH = "/admin/api/2026-04/graphql.json";
    // The request is a GraphQL mutation (inventorySetQuantities); the key travels as
    // this variable of its document, the same document on every attempt.
    static final String KEY_VARIABLE = "idempotencyKey";
    // A 200 with an entry in the error entries' list is a failed mutation: never
    // retried, unless the entry is the in-flight conflict. The JDK has no JSON
    // parser, so the list is matched by name, opening on an object.
    static final java.util.regex.Pattern ERROR_ENTRY = java.util.regex.Pattern.compile(
        "\"" + java.util.regex.Pattern.quote("userErrors") + "\"\\s*:\\s*\\[\\s*\\{");

    static final Set<Integer> RETRY_STATUSES = Set.of(429, 502, 503, 504); // retried normally
    static final Set<Integer> RETRY_STATUS_CLASSES = Set.of(); // e.g. 5 for 5XX
    static final Set<Integer> CAUTIOUS_STATUSES = Set.of(500); // retried at most once
    static final Set<Integer> RETRY_AFTER_STATUSES = Set.of(429, 503); // wait as long as Retry-After says
    // The same key is still being processed: wait, then retry with the same key.
    static final int IN_FLIGHT_STATUS = 200;
    static final String IN_FLIGHT_CODE = "IDEMPOTENCY_CONCURRENT_REQUEST";
    // This API's error bodies carry their code at /data/inventorySetQuantities/userErrors/0/code: the member
    // code holding exactly the in-flight code (the same text quoted
    // inside a message does not match).
    static final java.util.regex.Pattern IN_FLIGHT_CODE_MEMBER = java.util.regex.Pattern.compile(
        "\"" + java.util.regex.Pattern.quote("code") + "\"\\s*:\\s*\"" + java.util.regex.Pattern.quote(IN_FLIGHT_CODE) + "\"");
    static final boolean RETRY_TIMEOUT = true;
    static final boolean RETRY_RESET = true;
    static final boolean RETRY_REFUSED = true;

    static final long BASE_MS = 1000;
    static final long CAP_MS = 30000;
    static final double MULTIPLIER = 2.0;
    static final int MAX_ATTEMPTS = 3; // including the first
    static final long MAX_ELAPSED_MS = 120000; // one overall deadline for the whole loop
    static final long ATTEMPT_TIMEOUT_MS = 10000; // per attempt, never past the deadline

    /** A failed attempt the policy does not retry, or the end of the loop. */
    static final class GiveUp extends Exception {
        GiveUp(String message) {
            super(message);
        }
    }

    /** What one failed attempt means for the loop. */
    record Failure(String message, boolean retryable, boolean cautious, long retryAfterMs) {}

    /** The request body with the key as the document's KEY_VARIABLE variable, a first member. */
    static String withKey(String body, String key) {
        String rest = body.strip().substring(1).strip();
        String variables = jsonString("variables") + ": {" + jsonString(KEY_VARIABLE) + ": " + jsonString(key) + "}";
        return "{" + variables + (rest.equals("}") ? "}" : ", " + rest);
    }

    /** s as a JSON string. */
    static String jsonString(String s) {
        StringBuilder b = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            if (c == '"' || c == '\\') b.append('\\').append(c);
            else if (c < 0x20) b.append(String.format("\\u%04x", (int) c));
            else b.append(c);
        }
        return b.append('"').toString();
    }

    static long retryAfterMs(String value) {
        if (value == null) return -1;
        value = value.trim();
        if (value.matches("\\d+")) return Long.parseLong(value) * 1000;
        try {
            ZonedDateTime at = ZonedDateTime.parse(value, DateTimeFormatter.RFC_1123_DATE_TIME);
            return Math.max(0, Duration.between(ZonedDateTime.now(), at).toMillis());
        } catch (RuntimeException e) {
            return -1;
        }
    }

    /** Whether the answer says the first request with this key is still running. */
    static boolean inFlight(HttpResponse<String> response) {
        int status = response.statusCode();
        // The JDK has no JSON parser; the code's member is matched by name.
        return IN_FLIGHT_STATUS != 0 && status == IN_FLIGHT_STATUS && IN_FLIGHT_CODE_MEMBER.matcher(response.body()).find();
    }

    /** A 2xx that is the result: one with an error entry, the in-flight conflict's or another, is not. */
    static boolean succeeded(HttpResponse<String> response) {
        return response.statusCode() / 100 == 2 && !inFlight(response) && !ERROR_ENTRY.matcher(response.body()).find();
    }

    static Failure classify(HttpResponse<String> response) {
        int status = response.statusCode();
        String error = "HTTP " + status;
        if (inFlight(response)) {
            return new Failure(error + " " + IN_FLIGHT_CODE, true, false, -1);
        }
        // Any other error entry (a payload mismatch included) fails the same way again.
        if (status / 100 == 2) return new Failure(error + " with an error entry", false, false, -1);
        // Checked before the allowlist, so a 5XX class cannot lift its limit.
        if (CAUTIOUS_STATUSES.contains(status)) return new Failure(error, true, true, -1);
        if (RETRY_STATUSES.contains(status) || RETRY_STATUS_CLASSES.contains(status / 100)) {
            long wait = RETRY_AFTER_STATUSES.contains(status)
                    ? retryAfterMs(response.headers().firstValue("Retry-After").orElse(null))
                    : -1;
            return new Failure(error, true, false, wait);
        }
        // Any other 4xx (a payload-mismatch conflict included) fails the same way again.
        return new Failure(error, false, false, -1);
    }

    static Failure classify(Throwable error, boolean hasKey) {
        String kind;
        boolean allowed;
        if (error instanceof HttpTimeoutException) {
            kind = "timeout";
            allowed = RETRY_TIMEOUT;
        } else if (error instanceof ConnectException) {
            kind = "connection refused";
            allowed = RETRY_REFUSED;
        } else if (error instanceof IOException) {
            kind = "connection error (" + error + ")";
            allowed = RETRY_RESET;
        } else {
            return new Failure(error.toString(), false, false, -1);
        }
        // A request that may have reached the server is repeated only under a key.
        return new Failure(kind, allowed && hasKey, false, -1);
    }

    /**
     * The retry decisions of one logical request. Resilience4j asks the
     * predicates whether to retry, then the interval function how long to
     * wait; the wait is drawn when the predicate answers, so a wait that
     * would pass the overall deadline can end the loop before it sleeps.
     */
    static final class Plan implements IntervalBiFunction<HttpResponse<String>> {
        final long deadline = System.nanoTime() + MAX_ELAPSED_MS * 1_000_000;
        final boolean hasKey;
        int attempts;
        int cautiousRetries;
        long previousMs = BASE_MS;
        long nextWaitMs;
        Failure last;

        Plan(boolean hasKey) {
            this.hasKey = hasKey;
        }

        long remainingMs() {
            return (deadline - System.nanoTime()) / 1_000_000;
        }

        boolean retry(Failure failure) {
            attempts++;
            last = failure;
            if (failure == null || !failure.retryable()) return false;
            if (failure.cautious() && ++cautiousRetries > 1) return false;
            nextWaitMs = failure.retryAfterMs() >= 0 ? failure.retryAfterMs() : backoffMs(attempts);
            if (nextWaitMs >= remainingMs()) {
                last = new Failure(failure.message() + " (a " + nextWaitMs + " ms wait would pass the deadline)", false, false, -1);
                return false;
            }
            return true;
        }

        // Full jitter: random(0, min(CAP, BASE * MULTIPLIER^(attempt-1))).
        long backoffMs(int attempt) {
            long envelope = (long) Math.min(CAP_MS, BASE_MS * Math.pow(MULTIPLIER, attempt - 1));
            return ThreadLocalRandom.current().nextLong(envelope + 1);
        }

        @Override
        public Long apply(Integer attempt, Either<Throwable, HttpResponse<String>> outcome) {
            return nextWaitMs;
        }
    }

    /** POSTs body once per logical request and returns the response. */
    static HttpResponse<String> postWithRetries(HttpClient client, String body, String key) throws GiveUp {
        // One key per logical request (minted here, or the caller's own id),
        // reused on every attempt: a fresh key per attempt would defeat it.
        String idempotencyKey = key != null ? key : UUID.randomUUID().toString();
        // The key goes into the body once, so every attempt sends the same bytes.
        String payload = withKey(body, idempotencyKey);
        String base = System.getenv("RETRYSPEC_BASE_URL");
        URI uri = URI.create((base == null || base.isEmpty() ? BASE_URL : base) + PATH);
        Plan plan = new Plan(true);
        RetryConfig config = RetryConfig.<HttpResponse<String>>custom()
                .maxAttempts(MAX_ATTEMPTS)
                // A 200 with an error entry is not the result: the in-flight
                // conflict is retried, any other entry fails.
                .retryOnResult(response -> plan.retry(succeeded(response) ? null : classify(response)))
                .retryOnException(error -> plan.retry(classify(error, plan.hasKey)))
                .intervalBiFunction(plan)
                .failAfterMaxAttempts(false)
                .build();
        Retry retry = Retry.of("api", config);
        retry.getEventPublisher().onRetry(event -> System.err.printf(
                "attempt %d failed: %s; retrying in %d ms%n",
                event.getNumberOfRetryAttempts(), plan.last.message(), event.getWaitInterval().toMillis()));
        HttpResponse<String> response;
        try {
            response = retry.executeCheckedSupplier(() -> {
                long remaining = plan.remainingMs();
                if (remaining <= 0) throw new GiveUp("overall deadline passed");
                HttpRequest request = HttpRequest.newBuilder(uri)
                        .timeout(Duration.ofMillis(Math.min(ATTEMPT_TIMEOUT_MS, remaining)))
                        .header("Content-Type", "application/json")
                        .method(METHOD, HttpRequest.BodyPublishers.ofString(payload))
                        .build();
                return client.send(request, HttpResponse.BodyHandlers.ofString());
            });
        } catch (Throwable error) {
            String why = plan.last != null ? plan.last.message() : error.toString();
            throw new GiveUp("giving up after attempt " + Math.max(1, plan.attempts) + ": " + why);
        }
        if (!succeeded(response)) {
            throw new GiveUp("giving up after attempt " + plan.attempts + ": " + plan.last.message());
        }
        return response;
    }

    public static void main(String[] args) {
        HttpClient client = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofMillis(ATTEMPT_TIMEOUT_MS))
                .build();
        try {
            HttpResponse<String> response = postWithRetries(
                    client, "{\"query\": \"mutation inventorySetQuantities($idempotencyKey: String!) { inventorySetQuantities(input: {name: \\\"available\\\", reason: \\\"correction\\\", quantities: [{inventoryItemId: \\\"gid://shopify/InventoryItem/123\\\", locationId: \\\"gid://shopify/Location/456\\\", quantity: 11, compareQuantity: 10}]}) @idempotent(key: $idempotencyKey) { userErrors { code message } } }\"}", args.length > 0 ? args[0] : null);
            System.out.println("HTTP " + response.statusCode() + ": " + response.body());
        } catch (GiveUp e) {
            System.err.println(e.getMessage());
            System.exit(1);
        }
    }
}
