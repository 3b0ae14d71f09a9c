// Audit digests in an S3-compatible bucket (AUDIT_DIGEST_S3_BUCKET): a local S3 server (s3rver)
// plays the bucket; digests are written there, never replaced, and verified from s3://bucket/prefix.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { AddressInfo } from "node:net";
import S3rver from "s3rver";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase } from "../testing/database";
import type { Db } from "../db/types";
import { OPERATOR } from "../accounts/activity";
import { createAccount } from "../accounts/create-account";
import { auditDigestConfig } from "../env";
import { configuredDigestStore, openDigestStore } from "./digest-store";
import { verifyDigests } from "./digest-verify";
import { writeAuditDigest } from "./digests";

const BUCKET = "tollgate-audit";
let s3: S3rver;
let dir: string;
let db: Db;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "tollgate-digests-s3-"));
  s3 = new S3rver({ address: "127.0.0.1", port: 0, silent: true, directory: path.join(dir, "s3"), configureBuckets: [{ name: BUCKET, configs: [] }] });
  const { port } = (await s3.run()) as AddressInfo;
  Object.assign(process.env, {
    DATA_DIR: dir,
    AUDIT_DIGEST_S3_BUCKET: BUCKET,
    AUDIT_DIGEST_S3_PREFIX: "prod/digests/",
    S3_ENDPOINT: `http://127.0.0.1:${port}`,
    S3_FORCE_PATH_STYLE: "true",
    S3_REGION: "us-east-1",
    AWS_ACCESS_KEY_ID: "S3RVER",
    AWS_SECRET_ACCESS_KEY: "S3RVER",
  });
  db = (await createTestDatabase()).db;
});

afterAll(async () => {
  await s3?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe("audit digests: S3", () => {
  it("digests go to the bucket under the prefix, signed with the key generated in DATA_DIR, and verify from s3://", async () => {
    const { account_id: accountId } = await createAccount(db, { name: "Bucket", credits: "5", actor: OPERATOR });
    const outcome = await writeAuditDigest(db);
    expect(outcome).toMatchObject({ status: "written", location: `s3://${BUCKET}/prod/digests/`, digests: [{ number: 1 }] });
    expect(fs.existsSync(path.join(dir, "audit-digest-key.pem"))).toBe(true);

    const store = openDigestStore(`s3://${BUCKET}/prod/digests`);
    const names = await store.list("digest-");
    expect(names).toEqual([expect.stringMatching(/^digest-00000001-/)]);
    expect(await store.list("keys/")).toEqual([`keys/${outcome.status === "written" ? outcome.key_id : ""}.pem`]);
    const report = await verifyDigests(db, { store, accountId });
    expect(report.violations).toEqual([]);
    expect(report.summary).toMatchObject({ digests_checked: 1, keys_from: "store", rows_after_last_digest: 0 });
    expect(report.summary.rows_checked).toBeGreaterThan(0);
  });

  it("an object is never replaced", async () => {
    const store = configuredDigestStore(auditDigestConfig());
    const [name] = await store.list("digest-");
    const before = (await store.read(name))!.toString();
    expect(await store.create(name, "{}")).toBe(false);
    expect((await store.read(name))!.toString()).toBe(before);
    expect(await store.read("digest-99999999-missing.json")).toBeUndefined();
  });
});
