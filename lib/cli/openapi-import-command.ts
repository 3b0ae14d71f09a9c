// `providers import --openapi FILE|URL`: reads the document, converts it (lib/catalog/openapi/) and
// imports the provider whole: re-importing updates tools in place and retires the operations the
// document no longer has. Nothing is written unless the document converts (an operation it cannot
// call is listed in `skipped`); the result lists the credentials' variables the tools expect.
import { readFile } from "node:fs/promises";
import type { Db } from "../db/types";
import { importCatalog } from "../catalog/import";
import { convertOpenApiInWorker } from "../catalog/openapi/isolated";
import { OpenApiOptionError } from "../catalog/openapi/types";
import { list, optStr, str, UsageError, type CommandContext, type Values } from "./command-kit";

const CREDITS = /^\d+(\.\d{1,6})?$/;
const ENV_NAME = /^[A-Z_][A-Z0-9_]*$/;

export async function importOpenApiCommand(db: Db, v: Values, ctx: CommandContext) {
  const location = str(v, "openapi");
  const price = optStr(v, "price");
  const priceFile = optStr(v, "price-per-operation");
  const baseUrl = optStr(v, "base-url");
  const { authEnv, schemeEnv } = authEnvOptions(list(v, "auth-env"));
  if (price !== undefined && priceFile !== undefined) throw new UsageError("give either --price or --price-per-operation, not both");
  if (price !== undefined && !CREDITS.test(price)) throw new UsageError("--price must be a non-negative number of credits with at most 6 decimals");
  if (baseUrl !== undefined && !/^https?:\/\/[^/]/i.test(baseUrl)) throw new UsageError("--base-url must be an absolute http(s) URL");
  const pricePerOperation = priceFile === undefined ? undefined : await readPriceMap(priceFile);
  const started = Date.now();
  const converted = await convertOpenApiInWorker(location, {
    origin: location,
    providerId: optStr(v, "id"),
    source: optStr(v, "source"),
    baseUrl,
    authEnv,
    schemeEnv,
    ...(list(v, "connection").length ? { connectionSchemes: list(v, "connection") } : {}),
    allowPrivateNetwork: v["allow-private-network"] === true,
    priceCredits: price === undefined ? undefined : Number(price),
    pricePerOperation,
  }).catch((err: unknown) => {
    throw err instanceof OpenApiOptionError ? new UsageError(err.message) : err;
  });
  const imported = await importCatalog(db, converted.manifest, {
    retireMissing: true,
    onProgress: (done, total) => ctx.progress?.(`imported ${done}/${total} tools`),
  });
  const provider = converted.manifest.providers[0];
  return {
    provider: provider.id,
    base_url: provider.base_url,
    operations: converted.operations,
    ...imported,
    elapsed_ms: Date.now() - started,
    credentials: converted.credentials,
    skipped: converted.skipped,
    warnings: converted.warnings,
  };
}

/**
 * `--auth-env VAR` (at most once: the chosen scheme's variable, the provider's `auth`) and
 * `--auth-env SCHEME=VAR` (each security scheme's own variable, once per scheme).
 */
export function authEnvOptions(values: string[]): { authEnv?: string; schemeEnv?: Record<string, string> } {
  const plain = values.filter((value) => !value.includes("="));
  if (plain.length > 1) throw new UsageError(`--auth-env VAR is given once (${plain.join(", ")}); name each scheme's variable with --auth-env SCHEME=VAR`);
  const schemeEnv: Record<string, string> = {};
  for (const value of [...plain, ...values.filter((value) => value.includes("="))]) {
    const [scheme, variable] = value.includes("=") ? [value.slice(0, value.indexOf("=")), value.slice(value.indexOf("=") + 1)] : [undefined, value];
    if (!ENV_NAME.test(variable)) throw new UsageError(`--auth-env ${value}: must name an environment variable (A-Z, 0-9, _), the one holding the API's credential`);
    if (scheme === undefined) continue;
    if (!scheme) throw new UsageError(`--auth-env ${value}: name the security scheme before "=" (SCHEME=VAR)`);
    if (schemeEnv[scheme] !== undefined) throw new UsageError(`--auth-env names scheme "${scheme}" twice`);
    schemeEnv[scheme] = variable;
  }
  return { authEnv: plain[0], ...(Object.keys(schemeEnv).length ? { schemeEnv } : {}) };
}

/** `--price-per-operation FILE`: a JSON object, operationId or tool id → credits or a billing rule. */
async function readPriceMap(file: string): Promise<Record<string, unknown>> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(file, "utf8"));
  } catch (err) {
    throw new UsageError(`--price-per-operation ${file}: ${(err as Error).message}`);
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    throw new UsageError(`--price-per-operation ${file}: must be a JSON object mapping operationIds or tool ids to credits or billing rules`);
  }
  return parsed as Record<string, unknown>;
}
