// One finding of `audit verify`: the invariants (verify.ts) and the checks against the signed
// digests (digest-verify.ts) report in this one shape.
import type { DigestLogName } from "./digests";

export interface Violation {
  account_id: string;
  check: string;
  message: string;
  /** Digest checks: the digest the finding breaks. */
  digest?: string;
  /** The first row the finding names (digest checks, and the rows numbered 0 or below). */
  row?: { log: DigestLogName; seq: number; id: string | null };
}
