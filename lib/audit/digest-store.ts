// Where the signed audit digests are kept: a directory or an S3 bucket, both outside the database.
// Objects are only ever created, never replaced: a directory write goes to a temporary file that is
// then hard-linked to its name (link refuses an existing name, atomically); an S3 write is
// conditional (If-None-Match: *), and a bucket with Object Lock makes it permanent.
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import type * as S3 from "@aws-sdk/client-s3";
import { s3ClientConfig, type AuditDigestConfig } from "../env";

export interface DigestStore {
  /** For messages: the directory, or s3://bucket/prefix. */
  location: string;
  /** Names starting with `prefix` ("digest-", "keys/"), sorted. */
  list(prefix: string): Promise<string[]>;
  read(name: string): Promise<Buffer | undefined>;
  /** Creates the object; false when one of that name exists (it is left as it is). */
  create(name: string, body: string): Promise<boolean>;
}

export function dirDigestStore(dir: string): DigestStore {
  const root = path.resolve(dir);
  return {
    location: root,
    async list(prefix) {
      const sub = prefix.slice(0, prefix.lastIndexOf("/") + 1);
      const start = prefix.slice(sub.length);
      const folder = path.join(root, sub);
      if (!fs.existsSync(folder)) return [];
      return fs
        .readdirSync(folder)
        .filter((f) => f.startsWith(start) && !f.startsWith(".") && fs.statSync(path.join(folder, f)).isFile())
        .sort()
        .map((f) => `${sub}${f}`);
    },
    async read(name) {
      try {
        return fs.readFileSync(path.join(root, name));
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
        throw err;
      }
    },
    async create(name, body) {
      const target = path.join(root, name);
      fs.mkdirSync(path.dirname(target), { recursive: true });
      const tmp = path.join(path.dirname(target), `.${path.basename(target)}.${crypto.randomBytes(6).toString("hex")}.tmp`);
      const fd = fs.openSync(tmp, "wx", 0o444);
      try {
        fs.writeSync(fd, body);
        fs.fsyncSync(fd);
      } finally {
        fs.closeSync(fd);
      }
      try {
        fs.linkSync(tmp, target);
        return true;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === "EEXIST") return false;
        throw err;
      } finally {
        fs.unlinkSync(tmp);
      }
    },
  };
}

export function s3DigestStore(bucket: string, prefix: string): DigestStore {
  // Loaded on first use: the CLI's other commands start without the S3 SDK.
  let loaded: Promise<{ sdk: typeof S3; client: S3.S3Client }> | undefined;
  const s3 = () => (loaded ??= import("@aws-sdk/client-s3").then((sdk) => ({ sdk, client: new sdk.S3Client(s3ClientConfig()) })));
  const base = prefix === "" || prefix.endsWith("/") ? prefix : `${prefix}/`;
  const status = (err: unknown) => (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
  return {
    location: `s3://${bucket}/${base}`,
    async list(namePrefix) {
      const names: string[] = [];
      const { sdk, client } = await s3();
      let token: string | undefined;
      do {
        const page = await client.send(new sdk.ListObjectsV2Command({ Bucket: bucket, Prefix: `${base}${namePrefix}`, ContinuationToken: token }));
        for (const o of page.Contents ?? []) if (o.Key) names.push(o.Key.slice(base.length));
        token = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (token);
      return names.sort();
    },
    async read(name) {
      const { sdk, client } = await s3();
      try {
        const object = await client.send(new sdk.GetObjectCommand({ Bucket: bucket, Key: `${base}${name}` }));
        return Buffer.from(await object.Body!.transformToByteArray());
      } catch (err) {
        if (status(err) === 404) return undefined;
        throw err;
      }
    },
    async create(name, body) {
      const key = `${base}${name}`;
      const { sdk, client } = await s3();
      // The HEAD covers S3-compatible stores that ignore If-None-Match; on AWS the condition is atomic.
      try {
        await client.send(new sdk.HeadObjectCommand({ Bucket: bucket, Key: key }));
        return false;
      } catch (err) {
        if (status(err) !== 404) throw err;
      }
      try {
        await client.send(new sdk.PutObjectCommand({ Bucket: bucket, Key: key, Body: body, IfNoneMatch: "*", ContentType: name.endsWith(".json") ? "application/json" : "text/plain" }));
        return true;
      } catch (err) {
        if (status(err) === 412) return false;
        throw err;
      }
    },
  };
}

/** The store the configuration names (AUDIT_DIGEST_S3_BUCKET, else AUDIT_DIGEST_DIR). */
export function configuredDigestStore(config: AuditDigestConfig): DigestStore {
  return config.store.kind === "s3" ? s3DigestStore(config.store.bucket, config.store.prefix) : dirDigestStore(config.store.dir);
}

/** A store named on the command line: a directory, or s3://bucket/prefix. */
export function openDigestStore(location: string): DigestStore {
  const s3 = /^s3:\/\/([^/]+)\/?(.*)$/.exec(location);
  return s3 ? s3DigestStore(s3[1], s3[2]) : dirDigestStore(location);
}
