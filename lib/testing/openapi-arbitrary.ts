// Random requests for every operation of the published OpenAPI description (fast-check): values
// shaped by each parameter's and body's schema, mixed with hostile ones (U+0000, unpaired
// surrogates, huge numbers, deep nesting, wrong types, long strings, bytes that are not UTF-8),
// so most requests get past validation and into the code behind it, and the rest test the edge.
import fc from "fast-check";

type Schema = Record<string, unknown>;

export interface Operation {
  method: string;
  /** The full path template, e.g. `/api/v1/auth/credits/ledger/{entry_id}`. */
  path: string;
  security: string[];
  parameters: { name: string; in: "path" | "query" | "header"; required: boolean; schema: Schema }[];
  body?: { type: string; schema: Schema; required: boolean };
}

export interface FuzzRequest {
  operation: string;
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string | Blob;
}

/** Every operation of an OpenAPI 3.1 document served under `base` (operations with their own `servers` at the root). */
export interface OpenApiDocument {
  paths: Record<string, Record<string, Schema>>;
  components?: { schemas?: Record<string, Schema> };
}

export function operationsOf(doc: OpenApiDocument, base: string): Operation[] {
  const ops: Operation[] = [];
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      const servers = op.servers as { url: string }[] | undefined;
      const root = servers?.[0]?.url === "/" ? "" : base;
      const content = (op.requestBody as { content?: Record<string, { schema: Schema }>; required?: boolean } | undefined)?.content;
      const [type, media] = Object.entries(content ?? {})[0] ?? [];
      ops.push({
        method: method.toUpperCase(),
        path: `${root}${path}`,
        security: ((op.security as Record<string, unknown>[] | undefined) ?? []).flatMap((s) => Object.keys(s)),
        parameters: ((op.parameters as Operation["parameters"] | undefined) ?? []).map((p) => ({ ...p, required: p.required ?? false })),
        body: type ? { type, schema: media!.schema, required: (op.requestBody as { required?: boolean }).required ?? false } : undefined,
      });
    }
  }
  return ops;
}

export const hostileStrings = [
  "\u0000",
  "a\u0000b",
  "\ud800",
  "x\udfffy",
  "\ud83d",
  "😀 emoji 复利",
  "x".repeat(5000),
  "' OR 1=1 --",
  "%00",
  "../../etc/passwd",
  "<script>alert(1)</script>",
  "",
  " ",
  "-1",
  "1e309",
  "NaN",
  "null",
  "\\u0000",
  "2026-02-30",
  "9999-12-31T23:59:59Z",
  "Not/AZone",
];

const hostileNumbers = [0, -1, -0, 1e308, -1e308, 2 ** 53 + 2, 1e-7, 0.1 + 0.2, 2 ** 31, -(2 ** 63), 123456789012345680000];

/** Raw, already-encoded URL components that are not valid UTF-8 or not valid percent-encoding. */
const rawUrlTokens = ["%ED%A0%80", "%FF", "%C0%80", "%00", "%", "%zz", "%E4%B8", "a%2Fb", "%2e%2e"];

export const hostileString = fc.oneof(fc.constantFrom(...hostileStrings), fc.string({ unit: "binary", maxLength: 30 }));

/** Any JSON value, sometimes nested far deeper than any schema. */
const jsonish: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 6, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 2, arbitrary: hostileString },
  { weight: 1, arbitrary: fc.constantFrom(...hostileNumbers) },
  {
    weight: 1,
    arbitrary: fc.integer({ min: 1, max: 300 }).map((depth) => {
      let v: unknown = "deep";
      for (let i = 0; i < depth; i++) v = i % 2 ? [v] : { d: v };
      return v;
    }),
  },
);

export interface Pools {
  /** Plausible strings by parameter or property name (real ids, dates, zones). */
  byName: Record<string, readonly string[]>;
  /** Plausible strings for any string position. */
  any: readonly string[];
  /** Plausible values of any type by property name (a tool's `parameters`). */
  values?: Record<string, readonly unknown[]>;
}

export interface ArbitraryOptions {
  /**
   * Hostile values among the plausible ones (one position in ten, and free strings). Off, requests
   * are mostly well-formed, so they reach the code behind validation (the database, the ledger).
   */
  hostile: boolean;
}

export class RequestArbitraries {
  constructor(
    private readonly doc: OpenApiDocument,
    private readonly pools: Pools,
    private readonly options: ArbitraryOptions = { hostile: true },
  ) {}

  private resolve(schema: Schema): Schema {
    let s = schema;
    for (let i = 0; i < 10 && typeof s.$ref === "string"; i++) s = this.doc.components?.schemas?.[(s.$ref as string).split("/").pop()!] ?? {};
    return s;
  }

  private stringFor(schema: Schema, name: string | undefined): fc.Arbitrary<string> {
    const pool = [...(name ? (this.pools.byName[name] ?? []) : []), ...this.pools.any];
    const max = Math.min(typeof schema.maxLength === "number" ? schema.maxLength : 40, 60);
    if (!this.options.hostile) {
      const named = name ? this.pools.byName[name] : undefined;
      return named?.length ? fc.constantFrom(...named) : fc.oneof(fc.constantFrom(...this.pools.any), fc.stringMatching(/^[a-z0-9_]{1,12}$/));
    }
    return fc.oneof(
      { weight: 4, arbitrary: fc.constantFrom(...pool) },
      { weight: 2, arbitrary: fc.string({ minLength: typeof schema.minLength === "number" ? Math.min(schema.minLength, max) : 0, maxLength: max }) },
      { weight: 1, arbitrary: hostileString },
    );
  }

  /** A value for `schema`, mostly of its shape; one position in ten is hostile instead. */
  value(schema: Schema, name?: string, depth = 0): fc.Arbitrary<unknown> {
    const known = name ? this.pools.values?.[name] : undefined;
    if (known?.length) return fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...known) }, { weight: 1, arbitrary: this.value(schema, undefined, depth) });
    if (!this.options.hostile) return this.typed(schema, name, depth);
    return fc.oneof({ weight: 9, arbitrary: this.typed(schema, name, depth) }, { weight: 1, arbitrary: jsonish });
  }

  private typed(raw: Schema, name: string | undefined, depth: number): fc.Arbitrary<unknown> {
    const schema = this.resolve(raw);
    const variants = (schema.oneOf ?? schema.anyOf) as Schema[] | undefined;
    if (variants?.length) return fc.oneof(...variants.map((v) => this.typed(v, name, depth)));
    if (Array.isArray(schema.enum) && schema.enum.length) return fc.constantFrom(...(schema.enum as unknown[]));
    if ("const" in schema) return fc.constant(schema.const);
    const types = Array.isArray(schema.type) ? (schema.type as string[]) : schema.type ? [schema.type as string] : [];
    if (types.length > 1) return fc.oneof(...types.map((t) => this.typed({ ...schema, type: t }, name, depth)));
    switch (types[0]) {
      case "string":
        return this.stringFor(schema, name);
      case "integer":
        if (!this.options.hostile && typeof schema.minimum === "number") return fc.integer({ min: schema.minimum, max: typeof schema.maximum === "number" ? schema.maximum : schema.minimum + 100 });
        return fc.oneof(
          fc.integer({ min: typeof schema.minimum === "number" ? schema.minimum : -5, max: typeof schema.maximum === "number" ? schema.maximum : 1000 }),
          fc.constantFrom(...hostileNumbers),
        );
      case "number":
        return fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e6, max: 1e6 }), fc.constantFrom(...hostileNumbers));
      case "boolean":
        return fc.boolean();
      case "null":
        return fc.constant(null);
      case "array":
        return depth > 4 ? fc.constant([]) : fc.array(this.value((schema.items as Schema) ?? {}, name, depth + 1), { maxLength: 4 });
      case "object":
        return depth > 4 ? fc.constant({}) : this.object(schema, depth);
      default:
        return this.options.hostile ? jsonish : fc.jsonValue({ maxDepth: 2 });
    }
  }

  private object(schema: Schema, depth: number): fc.Arbitrary<unknown> {
    const props = (schema.properties as Record<string, Schema> | undefined) ?? {};
    const required = (schema.required as string[] | undefined) ?? [];
    const known = fc.record(Object.fromEntries(Object.entries(props).map(([k, s]) => [k, this.value(s, k, depth + 1)])), { requiredKeys: required.filter((k) => k in props) });
    const extra = schema.additionalProperties === false || !this.options.hostile ? fc.constant({}) : fc.dictionary(fc.oneof(fc.string({ maxLength: 8 }), hostileString), jsonish, { maxKeys: 3 });
    return fc.tuple(known, extra).map(([k, e]) => ({ ...e, ...k }));
  }

  /** A URL component: a plausible or hostile value, percent-encoded, or a raw token that does not decode. */
  private urlComponent(schema: Schema, name: string): fc.Arbitrary<string> {
    const encoded = this.value(schema, name).map((v) => encodeURIComponent(String(typeof v === "object" ? JSON.stringify(v) : v).toWellFormed()));
    if (!this.options.hostile) return encoded;
    return fc.oneof(
      { weight: 9, arbitrary: encoded },
      { weight: 1, arbitrary: fc.constantFrom(...rawUrlTokens) },
    );
  }

  /** One request to `op`, with credentials drawn from `credentials` by the operation's security. */
  request(op: Operation, credentials: fc.Arbitrary<Record<string, string>>): fc.Arbitrary<FuzzRequest> {
    const pathParams = op.parameters.filter((p) => p.in === "path");
    const queryParams = op.parameters.filter((p) => p.in === "query");
    const headerParams = op.parameters.filter((p) => p.in === "header");
    const path = fc.tuple(...pathParams.map((p) => this.urlComponent(p.schema, p.name))).map((values) =>
      pathParams.reduce((acc, p, i) => acc.replace(`{${p.name}}`, values[i]), op.path),
    );
    const query = fc
      .tuple(
        fc.tuple(...queryParams.map((p) => (p.required ? this.urlComponent(p.schema, p.name).map((v) => v as string | undefined) : fc.option(this.urlComponent(p.schema, p.name), { nil: undefined, freq: this.options.hostile ? 3 : 1 })))),
        fc.array(fc.tuple(fc.constantFrom("extra", "x%00", "page", "tz"), fc.constantFrom(...rawUrlTokens, "1")), { maxLength: this.options.hostile ? 1 : 0 }),
      )
      .map(([values, extra]) => {
        const parts = queryParams.flatMap((p, i) => (values[i] === undefined ? [] : [`${p.name}=${values[i]}`]));
        return [...parts, ...extra.map(([k, v]) => `${k}=${v}`)].join("&");
      });
    const headers = fc.tuple(
      credentials,
      fc.tuple(...headerParams.map((p) => fc.option(this.headerValue(p.schema, p.name), { nil: undefined, freq: 2 }))),
      fc.option(fc.constantFrom("en", "zh-CN,zh;q=0.9", "*", "xx;q=abc", ""), { nil: undefined }),
    );
    const body = op.body ? this.body(op.body) : fc.constant<{ contentType?: string; body?: string | Blob }>({});
    return fc.tuple(path, query, headers, body).map(([p, q, [auth, hv, lang], b]) => {
      const h: Record<string, string> = { ...auth };
      headerParams.forEach((param, i) => {
        if (hv[i] !== undefined) h[param.name] = hv[i]!;
      });
      if (lang !== undefined) h["Accept-Language"] = lang;
      if (b.contentType) h["Content-Type"] = b.contentType;
      return { operation: `${op.method} ${op.path}`, method: op.method, url: q ? `${p}?${q}` : p, headers: h, body: b.body };
    });
  }

  /** Header values are bytes: printable ASCII and some Latin-1 (fetch refuses control characters before sending). */
  private headerValue(schema: Schema, name: string): fc.Arbitrary<string> {
    if (!this.options.hostile) return this.typed(schema, name, 0).map((v) => String(v).replace(/[^\x20-\x7e]/g, "").trim());
    return fc.oneof(
      this.stringFor(schema, name).map((s) => s.replace(/[^\x20-\x7e]/g, "").trim()),
      fc.string({ unit: fc.oneof(fc.integer({ min: 0x21, max: 0x7e }).map((c) => String.fromCharCode(c)), fc.constantFrom(" ", "é", "ÿ")), maxLength: 300 }).map((s) => s.trim()),
    );
  }

  private body(spec: NonNullable<Operation["body"]>): fc.Arbitrary<{ contentType?: string; body?: string | Blob }> {
    const value = this.value(spec.schema);
    const encoded =
      spec.type === "application/x-www-form-urlencoded"
        ? value.map((v) => {
            const form = new URLSearchParams();
            if (v && typeof v === "object" && !Array.isArray(v)) {
              for (const [k, x] of Object.entries(v)) for (const item of Array.isArray(x) ? x : [x]) form.append(k.toWellFormed(), String(typeof item === "object" ? JSON.stringify(item) : item).toWellFormed());
            }
            return form.toString();
          })
        : value.map((v) => JSON.stringify(v) ?? "null");
    const garbage = fc.constantFrom<string | Blob>("", "{", "[]", "null", '{"a":1e999}', "not json", '{"query":"a","query":"b"}', new Blob([new Uint8Array([0xff, 0xfe, 0x00, 0x7b])]));
    if (!this.options.hostile) return encoded.map((body) => ({ contentType: spec.type, body }));
    return fc.oneof(
      { weight: 12, arbitrary: encoded.map((body) => ({ contentType: spec.type, body })) },
      { weight: 1, arbitrary: garbage.map((body) => ({ contentType: spec.type, body })) },
      { weight: 1, arbitrary: fc.tuple(fc.constantFrom(undefined, "text/plain", "application/json", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"), encoded).map(([contentType, body]) => ({ contentType, body })) },
    );
  }
}
