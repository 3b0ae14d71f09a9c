import { afterAll, beforeAll } from "vitest";
import { createTestDatabase } from "./database";
import { startTestServer, type TestServer } from "./server";
import { callApi, type seedAccount } from "./fixtures";
import { importDemoCatalog } from "./catalog";
import { configurePayments, deliverStripeEvent, startFakeStripe, TEST_WEBHOOK_SECRET, type FakeStripe } from "./fake-stripe";
import type { Database } from "../db/types";

/** A JSON object as the tests read it: its members are checked, not trusted. */
export type Json = Record<string, unknown>;
/** An account seeded with an owner, a key and a token (`seedAccount`). */
export type Seeded = Awaited<ReturnType<typeof seedAccount>>;

/** What a payments integration test file works with, filled in by the suite's `beforeAll`. */
export interface PaymentsSuite {
  database: Database & { url?: string };
  server: TestServer;
  fake: FakeStripe;
}

/** The webhook endpoint of a server. */
export const stripeWebhookUrl = (server: TestServer) => `${server.url}/api/v1/billing/stripe/webhook`;

/**
 * The set-up every payments test file shares, registered as its `beforeAll`/`afterAll`: a fresh
 * database (with the demo catalog when Calls are made), Stripe's local stand-in with payments
 * turned on against it (`configurePayments`), and a real HTTP server. Returns the holder the hooks
 * fill, and the file's `api` and `deliver` (a signed delivery to the server's webhook, or another
 * instance's with `to`).
 */
export function paymentsSuite(options: { catalog?: boolean } = {}) {
  const suite = {} as PaymentsSuite;
  let restore: () => void = () => undefined;
  beforeAll(async () => {
    suite.database = await createTestDatabase();
    if (options.catalog) await importDemoCatalog(suite.database.db);
    suite.fake = await startFakeStripe();
    restore = configurePayments(suite.fake);
    suite.server = await startTestServer(suite.database);
  });
  afterAll(async () => {
    restore();
    await suite.fake.close();
  });
  const api = (method: string, path: string, token: string, body?: unknown) => callApi(suite.server.url, method, path, token, body);
  const deliver = (event: Json, o: { timestamp?: number; signature?: string | null; secret?: string; to?: TestServer } = {}) =>
    deliverStripeEvent(stripeWebhookUrl(o.to ?? suite.server), event, { secret: o.secret ?? TEST_WEBHOOK_SECRET, timestamp: o.timestamp, signature: o.signature });
  return { suite, api, deliver };
}
