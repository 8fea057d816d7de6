// A client generated from docs/openapi.json (openapi-typescript writes
// api.d.ts, openapi-fetch calls through it) walks the README's flow on the
// local runner at process.argv[2]. tsc checks the calls against the types.
import createClient from "openapi-fetch";
import type { paths } from "./api.d.ts";

declare const process: { argv: string[] };

const api = createClient<paths>({ baseUrl: process.argv[2] });
const run = Date.now().toString(36);
const userId = `gen-${run}`;

function check<T>(what: string, r: { data?: T; error?: unknown; response: Response }): T {
  if (r.error !== undefined || r.data === undefined) {
    throw new Error(`${what}: ${r.response.status} ${JSON.stringify(r.error)}`);
  }
  console.log(`${what}: ${r.response.status} ${JSON.stringify(r.data)}`);
  return r.data;
}

check("create user", await api.POST("/v1/users", { body: { userId, name: "Generated", email: "gen@example.com" } }));
check("credit", await api.POST("/v1/users/{userId}/credits", {
  params: { path: { userId }, header: { "Idempotency-Key": `credit-${run}` } },
  body: { amount: 5000, currency: "EUR" },
}));
// problemType is a refusal's problem type. Every operation may also answer API
// Gateway's own 429, whose body is {"message": ...} and has no type.
function problemType(err: unknown): string | undefined {
  return typeof err === "object" && err !== null && "type" in err ? String((err as { type: unknown }).type) : undefined;
}

const order = check("create order", await api.POST("/v1/users/{userId}/orders", {
  params: { path: { userId }, header: { "Idempotency-Key": `order-${run}` } },
  body: { currency: "EUR", items: [{ productId: "mug", quantity: 2, unitPrice: 1250 }] },
}));
check("charge", await api.POST("/v1/orders/{orderId}/payments", {
  params: { path: { orderId: order.orderId }, header: { "Idempotency-Key": `charge-${run}` } },
  body: { amount: order.total, currency: "EUR" },
}));
check("settle", await api.POST("/v1/orders/{orderId}/settle", {
  params: { path: { orderId: order.orderId }, header: { "Idempotency-Key": `settle-${run}` } },
}));
const balance = check("balance", await api.GET("/v1/users/{userId}/balance", { params: { path: { userId } } }));
const refused = await api.POST("/v1/users/{userId}/debits", {
  params: { path: { userId }, header: { "Idempotency-Key": `debit-${run}` } },
  body: { amount: 999999, currency: "EUR" },
});
console.log(`refused debit: ${refused.response.status} ${problemType(refused.error)}`);
if (balance.balance !== 2500 || refused.response.status !== 402 || problemType(refused.error) !== "urn:oncetable:problem:insufficient-funds") {
  throw new Error("unexpected balance or refusal");
}
// Another customer (the local runner's X-Local-Scopes, a token's scopes in
// AWS) reading this user's balance is answered as if the user did not exist.
const stranger = await api.GET("/v1/users/{userId}/balance", {
  params: { path: { userId } },
  headers: { "X-Local-Caller": `stranger-${run}`, "X-Local-Scopes": "payments/customer" },
});
console.log(`another customer's read: ${stranger.response.status} ${problemType(stranger.error)}`);
if (stranger.response.status !== 404 || problemType(stranger.error) !== "urn:oncetable:problem:not-found") {
  throw new Error("another customer read the balance");
}
