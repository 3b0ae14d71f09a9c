// The OpenAPI import's options and findings, shared by its modules.

export interface OpenApiImportOptions {
  /** The file or URL the document came from: errors name it. */
  origin: string;
  /** Where the document was fetched from: a relative server URL is resolved against it. */
  documentUrl?: string;
  /** Provider id; default: a slug of `info.title`. */
  providerId?: string;
  /** The tools' (and provider's) `source`. */
  source?: string;
  /** Overrides the document's servers. */
  baseUrl?: string;
  /** Environment variable holding the credential of the document's security scheme. */
  authEnv?: string;
  allowPrivateNetwork?: boolean;
  /** Credits per successful call of every operation; absent or 0 = free. */
  priceCredits?: number;
  /** Credits (or a billing rule) per operation, by operationId or tool id; operations not named are free. */
  pricePerOperation?: Record<string, unknown>;
}

export interface Finding {
  pointer: string;
  message: string;
}
