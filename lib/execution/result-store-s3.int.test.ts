// Full results in an S3-compatible bucket (S3_BUCKET): a local S3 server (s3rver) plays the
// bucket; the client gets a presigned GET URL that works without any Tollgate instance.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { AddressInfo } from "node:net";
import S3rver from "s3rver";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase } from "../testing/database";
import { startTestServer, type TestServer } from "../testing/server";
import { bearer, seedAccount } from "../testing/fixtures";
import { importManifest } from "../testing/catalog";
import { fakeTool, fakeUpstreamManifest, startFakeUpstream, type FakeUpstream } from "../testing/fake-upstream";
import { storedResults } from "../db/schema";
import type { Database } from "../db/types";

const BUCKET = "tollgate-results";
let s3: S3rver;
let dir: string;
let database: Database;
let server: TestServer;
let upstream: FakeUpstream;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "tollgate-s3-"));
  s3 = new S3rver({ address: "127.0.0.1", port: 0, silent: true, directory: dir, configureBuckets: [{ name: BUCKET, configs: [] }] });
  const { port } = (await s3.run()) as AddressInfo;
  // env() is read once per test file, on first use (after this).
  Object.assign(process.env, {
    S3_BUCKET: BUCKET,
    S3_ENDPOINT: `http://127.0.0.1:${port}`,
    S3_FORCE_PATH_STYLE: "true",
    S3_REGION: "us-east-1",
    AWS_ACCESS_KEY_ID: "S3RVER",
    AWS_SECRET_ACCESS_KEY: "S3RVER",
  });
  database = await createTestDatabase();
  upstream = await startFakeUpstream();
  await importManifest(database.db, fakeUpstreamManifest(upstream.url, { providerId: "s3-fake" }));
  server = await startTestServer(database);
});

afterAll(async () => {
  await upstream?.close();
  await s3?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe("result store: S3", () => {
  it("a truncated result's full content goes to the bucket, behind a presigned URL that serves it", async () => {
    const a = await seedAccount(database.db, { credits: "5" });
    const res = await fetch(`${server.url}/api/v1/tools/execute`, {
      method: "POST",
      headers: { ...bearer(a.apiKey), "Content-Type": "application/json" },
      body: JSON.stringify({ tool_id: fakeTool("s3-fake", "big"), parameters: { n: 300 }, max_response_size: 200 }),
    });
    const body = (await res.json()) as { execution_id: string; result: { full_content_file_url: string; truncated_content: string } };
    expect(res.status).toBe(200);
    const url = new URL(body.result.full_content_file_url);
    expect(url.origin).toBe(process.env.S3_ENDPOINT);
    expect(url.pathname).toBe(`/${BUCKET}/results/${body.execution_id}.json`);
    expect(url.searchParams.get("X-Amz-Signature")).toMatch(/^[0-9a-f]{64}$/);
    const download = await fetch(url);
    expect(download.status).toBe(200);
    const full = (await download.json()) as { rows: unknown[] };
    expect(full.rows).toHaveLength(300);
    expect(JSON.stringify(full).startsWith(body.result.truncated_content)).toBe(true);
    // Not in the database: the bucket holds it.
    expect(await database.db.select().from(storedResults)).toEqual([]);
    // (The signature is checked by the bucket, not by Tollgate: s3rver accepts any, so it is not tested here.)
    expect(Number(url.searchParams.get("X-Amz-Expires"))).toBe(3600);
  });
});
