// The OpenAPI import's options and findings, shared by its modules.
import type { HttpCredential } from "../manifest";

export interface OpenApiImportOptions {
  /** The file or URL the document came from: errors name it. */
  origin: string;
  /** Where the document was fetched from: a relative server URL is resolved against it. */
  documentUrl?: string;
  /** Provider id; default: a slug of `info.title`. */
  providerId?: string;
  /** The tools' (and provider's) `source`. */
  source?: string;
  /** Overrides every server: the document's and its operations' and paths' own. */
  baseUrl?: string;
  /** Environment variable holding the credential of the chosen security scheme (the provider's `auth`). */
  authEnv?: string;
  /** Environment variable per security scheme, by the scheme's name in the document (`--auth-env bearerAuth=SLACK_TOKEN`). */
  schemeEnv?: Record<string, string>;
  /** apiKey and http schemes whose credential is each caller's own connection (`--connection SCHEME`); oauth2 and openIdConnect schemes are, unless given a variable. */
  connectionSchemes?: string[];
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

/** A credential the imported tools send, and how many operations send it: the variables an operator must set. */
export interface ExpectedCredential {
  scheme: string;
  type: HttpCredential["type"];
  /** Absent: no variable was named for the scheme, so its Calls send nothing (unless it is the caller's connection). */
  env?: string;
  /** Each caller's own connection sends it (docs/connections.md). */
  connection?: true;
  operations: number;
}

/** An import option that does not fit the document (a scheme `--auth-env` names that it does not declare): the caller's mistake. */
export class OpenApiOptionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "OpenApiOptionError";
  }
}
