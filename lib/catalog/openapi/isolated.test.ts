import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ManifestError } from "../manifest";
import { manifestFromOpenApi } from "./convert";
import { convertOpenApiInWorker } from "./isolated";
import { parseApiText } from "./read";
import { OpenApiOptionError } from "./types";

// The conversion runs in a worker thread (here its TypeScript source through tsx; the production
// server starts the bundled one): what comes back must be exactly what converting in this thread
// gives, and its errors the classes the CLI tells apart.
const SLACK = path.resolve("../shared/catalog/openapi/real/slack.json");

describe("converting an OpenAPI document in a worker thread", () => {
  it("gives the same manifest, operations, credentials and findings as converting in this thread", async () => {
    const options = { origin: SLACK, authEnv: "SLACK_TOKEN", priceCredits: 0.5 };
    const inWorker = await convertOpenApiInWorker(SLACK, options);
    const here = await manifestFromOpenApi(parseApiText(fs.readFileSync(SLACK, "utf8"), SLACK), options);
    expect(inWorker.manifest.providers[0].tools).toHaveLength(174);
    expect(inWorker).toEqual(here);
  }, 60_000);

  it("refuses a document that is not OpenAPI with the ManifestError and JSON Pointers of the conversion", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "tollgate-isolated-"));
    const file = path.join(dir, "not-openapi.json");
    fs.writeFileSync(file, JSON.stringify({ title: "no version field", paths: {} }));
    const refusal = await convertOpenApiInWorker(file, { origin: file }).catch((err: unknown) => err);
    expect(refusal).toBeInstanceOf(ManifestError);
    expect((refusal as ManifestError).message).toContain(`Cannot import OpenAPI document ${file}`);
    expect((refusal as ManifestError).issues.length).toBeGreaterThan(0);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("reports an option the document does not fit as OpenApiOptionError, and a missing file by its path", async () => {
    const refusal = await convertOpenApiInWorker(SLACK, { origin: SLACK, schemeEnv: { noSuchScheme: "X_TOKEN" } }).catch((err: unknown) => err);
    expect(refusal).toBeInstanceOf(OpenApiOptionError);
    expect((refusal as Error).message).toContain('"noSuchScheme"');
    await expect(convertOpenApiInWorker("/no/such/document.yaml", { origin: "/no/such/document.yaml" })).rejects.toThrow("Cannot read OpenAPI document /no/such/document.yaml");
  }, 60_000);
});
