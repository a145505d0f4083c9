// One PaymentIntent create through Stripe's official Node SDK, pointed at the
// fault server by its host, port and protocol settings, with its documented
// retry defaults (maxNetworkRetries 2) and a 5 s timeout.
import Stripe from "stripe";

const base = new URL(process.env.RETRYSPEC_BASE_URL);
const stripe = new Stripe("sk_test_verifyclient", {
  host: base.hostname, port: base.port, protocol: "http", timeout: 5000, maxNetworkRetries: 2,
});
try {
  const intent = await stripe.paymentIntents.create({ amount: 1000, currency: "usd" });
  console.log(intent.id);
} catch (err) {
  console.error(`${process.env.RETRYSPEC_SCENARIO}: ${err.type}: ${err.message}`);
  process.exitCode = 1;
}
