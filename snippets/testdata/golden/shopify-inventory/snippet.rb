# Calls the API with the contract's retry policy, in Ruby 2.7+.
#
# Run: ruby snippet.rb [idempotency-key]
# Set RETRYSPEC_BASE_URL to call another base URL (a staging API, say).
#
# Standard library only: the retriable gem randomizes its intervals by a
# factor rather than the contract's jitter formula and cannot wait out a
# server's Retry-After, so the loop is written out.
#
# The policy: an allowlist of statuses, never a blanket catch; a cautious
# status (a 500 may be a bug that fails the same way again) retried at most
# once; Retry-After honoured; full jitter (base 1000 ms, cap 30000 ms,
# multiplier 2.0); at most 3 attempts within one overall deadline of
# 120000 ms, each attempt's timeout cut to what is left of it.
require "json"
require "net/http"
require "openssl"
require "securerandom"
require "time"
require "uri"

BASE_URL = ENV.fetch("RETRYSPEC_BASE_URL", "").empty? ? "https://your-shop.myshopify.com" : ENV.fetch("RETRYSPEC_BASE_URL")
METHOD = "POST"
PATH = "/admin/api/2026-04/graphql.json"
# The request is a GraphQL mutation (inventorySetQuantities); the key travels as this
# variable of its document, the same document on every attempt.
KEY_VARIABLE = "idempotencyKey"
# A 200 with an error entry here is a failed mutation: never retried, unless
# the entry is the in-flight conflict (JSON pointer /data/inventorySetQuantities/userErrors/0).
ENTRY_AT = ["data", "inventorySetQuantities", "userErrors", "0"].freeze

RETRY_STATUSES = [429, 502, 503, 504].freeze # retried normally
RETRY_STATUS_CLASSES = [].freeze # e.g. 5 for 5XX
CAUTIOUS_STATUSES = [500].freeze # retried at most once
RETRY_AFTER_STATUSES = [429, 503].freeze # wait as long as Retry-After says
# The same key is still being processed: wait, then retry with the same key.
IN_FLIGHT_STATUS = 200
IN_FLIGHT_CODE = "IDEMPOTENCY_CONCURRENT_REQUEST"
RETRY_TIMEOUT = true
RETRY_RESET = true
RETRY_REFUSED = true

BASE = 1 # seconds
CAP = 30
MULTIPLIER = 2.0
MAX_ATTEMPTS = 3 # including the first
MAX_ELAPSED = 120 # one overall deadline for the whole loop
ATTEMPT_TIMEOUT = 10 # per attempt, never past the deadline

# One failed attempt; retryable says whether the policy allows another.
class AttemptFailed < StandardError
  attr_accessor :retryable, :cautious, :retry_after

  def initialize(message, retryable: false, cautious: false, retry_after: nil)
    super(message)
    @retryable = retryable
    @cautious = cautious
    @retry_after = retry_after
  end
end

# The request body with the key as the document's KEY_VARIABLE variable.
def with_key(body, key)
  body.merge("variables" => { KEY_VARIABLE => key })
end

# Whether the answer carries an error entry at ENTRY_AT.
def entry?(body)
  node = JSON.parse(body)
  ENTRY_AT.each do |token|
    if node.is_a?(Hash) && node.key?(token)
      node = node[token]
    elsif node.is_a?(Array) && token == "0" && !node.empty?
      node = node[0]
    else
      return false
    end
  end
  !node.nil?
rescue JSON::ParserError
  false
end

# Where this API's error bodies carry their code (JSON pointer /data/inventorySetQuantities/userErrors/0/code).
ERROR_CODE_AT = ["data", "inventorySetQuantities", "userErrors", "0", "code"].freeze

# Whether the JSON error body carries code at ERROR_CODE_AT.
def code?(body, code)
  node = JSON.parse(body)
  ERROR_CODE_AT.each do |token|
    if node.is_a?(Hash) && node.key?(token)
      node = node[token]
    elsif node.is_a?(Array) && token == "0" && !node.empty?
      node = node[0]
    else
      return false
    end
  end
  node == code
rescue JSON::ParserError
  false
end

def retry_after_seconds(value)
  return nil if value.nil?
  return Float(value.strip) if value.strip.match?(/\A\d+\z/)
  [Time.httpdate(value.strip) - Time.now, 0].max
rescue ArgumentError
  nil
end

# Whether the answer says the first request with this key is still running.
def in_flight?(response)
  IN_FLIGHT_STATUS && response.code.to_i == IN_FLIGHT_STATUS && code?(response.body.to_s, IN_FLIGHT_CODE)
end

def classify_status(response)
  status = response.code.to_i
  error = "HTTP #{status}"
  if in_flight?(response)
    return AttemptFailed.new("#{error} #{IN_FLIGHT_CODE}", retryable: true)
  end
  # Any other error entry (a payload mismatch included) fails the same way again.
  return AttemptFailed.new("#{error} with an error entry") if status / 100 == 2
  # Checked before the allowlist, so a 5XX class cannot lift its limit.
  return AttemptFailed.new(error, retryable: true, cautious: true) if CAUTIOUS_STATUSES.include?(status)
  if RETRY_STATUSES.include?(status) || RETRY_STATUS_CLASSES.include?(status / 100)
    wait = RETRY_AFTER_STATUSES.include?(status) ? retry_after_seconds(response["Retry-After"]) : nil
    return AttemptFailed.new(error, retryable: true, retry_after: wait)
  end
  # Any other 4xx (a payload-mismatch conflict included) fails the same way again.
  AttemptFailed.new(error)
end

def classify_connection_error(error, has_key)
  kind, allowed =
    case error
    when Net::OpenTimeout, Net::ReadTimeout, Net::WriteTimeout then ["timeout", RETRY_TIMEOUT]
    when Errno::ECONNREFUSED then ["connection refused", RETRY_REFUSED]
    else ["connection error (#{error.class})", RETRY_RESET]
    end
  # A request that may have reached the server is repeated only under a key.
  AttemptFailed.new(kind, retryable: allowed && has_key)
end

def envelope(attempt)
  [CAP, BASE * (MULTIPLIER**(attempt - 1))].min
end

# Full jitter: random(0, min(CAP, BASE * MULTIPLIER ** (attempt - 1))).
def backoff(attempt, _previous)
  rand * envelope(attempt)
end

def monotonic
  Process.clock_gettime(Process::CLOCK_MONOTONIC)
end

def send_once(uri, payload, key, timeout)
  http = Net::HTTP.new(uri.hostname, uri.port)
  http.use_ssl = uri.scheme == "https"
  http.max_retries = 0 # Net::HTTP would otherwise repeat some requests by itself
  http.open_timeout = http.read_timeout = http.write_timeout = timeout
  request = Net::HTTPGenericRequest.new(METHOD, true, true, uri.request_uri,
                                        "Content-Type" => "application/json")
  request.body = payload
  http.start { |conn| conn.request(request) }
end

# POSTs body once per logical request and returns the response.
def post_with_retries(body, key = nil)
  # One key per logical request (minted here, or the caller's own id),
  # reused on every attempt: a fresh key per attempt would defeat it.
  key ||= SecureRandom.uuid
  uri = URI.parse(BASE_URL + PATH)
  # The key goes into the body once, so every attempt sends the same bytes.
  payload = JSON.generate(with_key(body, key))
  deadline = monotonic + MAX_ELAPSED
  cautious_retries = 0
  previous = BASE
  attempt = 0
  loop do
    attempt += 1
    remaining = deadline - monotonic
    failure =
      if remaining <= 0
        AttemptFailed.new("overall deadline passed")
      else
        begin
          response = send_once(uri, payload, key, [ATTEMPT_TIMEOUT, remaining].min)
          # A 200 with an error entry is not the result: the in-flight
          # conflict is retried, any other entry fails.
          return response if response.is_a?(Net::HTTPSuccess) && !in_flight?(response) && !entry?(response.body.to_s)

          classify_status(response)
        rescue Timeout::Error, SystemCallError, IOError, EOFError, OpenSSL::SSL::SSLError, Net::HTTPBadResponse => e
          classify_connection_error(e, !key.nil?)
        end
      end
    failure.retryable = false if failure.cautious && (cautious_retries += 1) > 1
    raise AttemptFailed, "giving up after attempt #{attempt}: #{failure.message}" if !failure.retryable || attempt >= MAX_ATTEMPTS

    wait = failure.retry_after
    wait ||= previous = backoff(attempt, previous)
    if monotonic + wait >= deadline
      raise AttemptFailed, "giving up after attempt #{attempt}: #{failure.message} (a #{(wait * 1000).round} ms wait would pass the deadline)"
    end

    warn "attempt #{attempt} failed: #{failure.message}; retrying in #{(wait * 1000).round} ms"
    sleep wait
  end
end

begin
  response = post_with_retries({ query: "mutation inventorySetQuantities($idempotencyKey: String!) { inventorySetQuantities(input: {name: \"available\", reason: \"correction\", quantities: [{inventoryItemId: \"gid://shopify/InventoryItem/123\", locationId: \"gid://shopify/Location/456\", quantity: 11, compareQuantity: 10}]}) @idempotent(key: $idempotencyKey) { userErrors { code message } } }" }, ARGV[0])
  puts "HTTP #{response.code}: #{response.body}"
rescue AttemptFailed => e
  warn e.message
  exit 1
end
