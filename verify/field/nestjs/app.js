// A payouts-like NestJS app whose POST /v1/transfers is wrapped by
// @node-idempotency/nestjs (the library under test, with its memory
// storage adapter), for retryspec's verify field suite (../README.md).
//
//   node verify/field/nestjs/app.js --addr 127.0.0.1:8080 --effects /tmp/effects.jsonl
//
// Every run of the handler appends one line to the effects file (which
// survives a kill and a restart) and, when RETRYSPEC_EXTERNAL_URL is set,
// charges the bank through verify's stub with a downstream key derived
// from the client's key. GET /v1/transfers?idempotency_key=K counts the
// caller's effects for K: {"count": n}. The caller is its Authorization
// header.
//
// When the bank call fails (verify/failed-attempt makes its stub answer
// 500 once), the handler has already written its effect: it writes an
// undo line, as a careful app compensates its own write, and answers 502;
// a request killed before it answered (the crash gates) leaves its effect
// in place. Plain JavaScript: the decorators are applied by hand, as the
// TypeScript compiler would.
"use strict";
const path = require("path");
const fs = require("fs");
const crypto = require("crypto");
const deps = path.join(__dirname, "..", ".deps", "node", "node_modules");
module.paths.unshift(deps);
require("reflect-metadata");
const common = require("@nestjs/common");
const { NestFactory } = require("@nestjs/core");
const { NodeIdempotencyModule, Idempotent } = require("@node-idempotency/nestjs");

function arg(name, def) {
  const i = process.argv.indexOf(name);
  return i > 0 && i + 1 < process.argv.length ? process.argv[i + 1] : def;
}
const addr = arg("--addr", "127.0.0.1:8080");
const effectsFile = arg("--effects", path.join(process.cwd(), "nestjs-effects.jsonl"));

function countEffects(account, key) {
  let n = 0;
  let text = "";
  try {
    text = fs.readFileSync(effectsFile, "utf8");
  } catch (e) {
    if (e.code !== "ENOENT") throw e;
  }
  for (const line of text.split("\n")) {
    if (!line) continue;
    const e = JSON.parse(line);
    if (e.account === account && e.key === key) n += e.undo ? -1 : 1;
  }
  return n;
}

async function chargeBank(key, amount) {
  const base = process.env.RETRYSPEC_EXTERNAL_URL;
  if (!base) return "bank_offline";
  const res = await fetch(base + "/charge_bank", {
    method: "POST",
    headers: { "Content-Type": "application/json", "Idempotency-Key": "charge-" + key },
    body: JSON.stringify({ amount }),
  });
  if (res.status !== 200) throw new common.BadGatewayException("bank answered " + res.status);
  return (await res.json()).id;
}

class TransfersController {
  async create(req, body) {
    const account = req.headers["authorization"] || "";
    const key = req.headers["idempotency-key"] || "";
    const effect = { account, key, amount: body.amount };
    fs.appendFileSync(effectsFile, JSON.stringify(effect) + "\n");
    let bank;
    try {
      bank = await chargeBank(key, body.amount);
    } catch (e) {
      fs.appendFileSync(effectsFile, JSON.stringify({ ...effect, undo: true }) + "\n");
      throw e instanceof common.HttpException ? e : new common.BadGatewayException("bank unreachable");
    }
    return { id: "tr_" + crypto.randomBytes(8).toString("hex"), amount: body.amount, currency: body.currency, destination: body.destination, bank, status: "paid" };
  }
  count(req, key) {
    return { count: countEffects(req.headers["authorization"] || "", key || "") };
  }
  health() {
    return { ok: true };
  }
}

function method(cls, name, decorators, params) {
  const d = Reflect.decorate(decorators, cls.prototype, name, Object.getOwnPropertyDescriptor(cls.prototype, name));
  Object.defineProperty(cls.prototype, name, d);
  params.forEach((p, i) => p(cls.prototype, name, i));
}
method(TransfersController, "create", [common.Post("v1/transfers"), Idempotent({ enforceIdempotency: true })], [common.Req(), common.Body()]);
method(TransfersController, "count", [common.Get("v1/transfers")], [common.Req(), common.Query("idempotency_key")]);
method(TransfersController, "health", [common.Get("healthz")], []);
common.Controller()(TransfersController);

class AppModule {}
common.Module({
  imports: [
    NodeIdempotencyModule.forRootAsync({
      storage: { adapter: "memory" },
      // The replay window, and how long an in-flight claim lives: 30 s, a
      // test window short enough for verify/after-window to wait out.
      cacheTTLMS: 30 * 1000,
    }),
  ],
  controllers: [TransfersController],
})(AppModule);

async function main() {
  const app = await NestFactory.create(AppModule, { logger: ["error", "warn"] });
  const i = addr.lastIndexOf(":");
  await app.listen(Number(addr.slice(i + 1)), addr.slice(0, i));
}
main().catch((e) => {
  console.error(e);
  process.exit(1);
});
