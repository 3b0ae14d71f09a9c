import type { BearerAccess } from "../http/auth";
import type { RateLimitedAction } from "../http/rate-limits";

/**
 * Who may call each operation of the API, in one table: `createRouter` builds each operation's
 * authentication middleware and its OpenAPI `security` from its row, so the published document and
 * the check cannot disagree. An operation without a row fails to register (lib/api/access.int.test.ts
 * walks every operation of the document with a token lacking its scope and one holding it).
 */

export type Access =
  | BearerAccess
  /** No credential: public documents, and what carries its own proof (a signed URL, a browser redirect to consent). */
  | { kind: "public"; why: string }
  /** OAuth endpoints: the client authenticates by `client_id`, or HTTP Basic (required for confidential clients). */
  | { kind: "oauth_client"; basic: "required" | "optional" };

const KEY_OR_TOKEN = ["api_key", "user_token", "delegation_token"] as const;
const KEY_OR_USER = ["api_key", "user_token"] as const;
const USER = ["user_token"] as const;
const OWNER = ["owner"] as const;

const tools = (limit?: RateLimitedAction): BearerAccess => ({ kind: "bearer", accepts: KEY_OR_TOKEN, scopes: ["tools:read"], ...(limit ? { limit } : {}) });
const usage: BearerAccess = { kind: "bearer", accepts: USER, scopes: ["usage:read"] };
const ledger: BearerAccess = { kind: "bearer", accepts: USER, scopes: ["ledger:read"] };
const manage: BearerAccess = { kind: "bearer", accepts: USER, scopes: ["account:manage"] };
const ownerManages = (restricted: string): BearerAccess => ({ ...manage, roles: OWNER, restricted });
const connect: BearerAccess = { kind: "bearer", accepts: USER, scopes: ["connections:manage"] };
const publicDocument = { kind: "public", why: "a public document" } as const;

export const OPERATION_ACCESS = {
  // Metadata and documents
  getMeta: publicDocument,
  getHealth: { kind: "public", why: "load balancers probe it" },
  getOpenApiJson: publicDocument,
  getOpenApiYaml: publicDocument,
  getJwks: publicDocument,
  getWellKnownJwks: publicDocument,
  getAuthorizationServerMetadata: publicDocument,
  getProtectedResourceMetadata: publicDocument,
  verifyToken: { kind: "bearer", accepts: USER, scopes: [], beforeTwoFactor: true },

  // Discover, Inspect, Probe, Call
  searchTools: tools("search"),
  inspectTools: tools("inspect"),
  probeTool: tools("probe"),
  listProviders: tools(),
  listProviderCategories: tools(),
  // A user's own token does not spend: agents spend through a bounded delegation, or an API key.
  executeTool: { kind: "bearer", accepts: ["api_key", "delegation_token"], scopes: ["tools:execute"], limit: "execute" },
  downloadResult: { kind: "public", why: "the signed URL is the credential" },
  mcpPost: { kind: "bearer", accepts: KEY_OR_TOKEN, scopes: ["tools:read", "tools:execute"] },
  mcpGet: { kind: "bearer", accepts: KEY_OR_TOKEN, scopes: ["tools:read", "tools:execute"] },
  mcpDelete: { kind: "bearer", accepts: KEY_OR_TOKEN, scopes: ["tools:read", "tools:execute"] },

  // Usage audit
  listUsageEvents: usage,
  listUsageSummary: usage,
  exportUsageEvents: usage,
  getUsageEvent: usage,
  getCreditsSpent: usage,
  getUsageBreakdown: usage,
  exportUsageBreakdown: usage,
  lookupId: usage,
  listRuns: usage,
  listReviewQueue: { ...usage, roles: ["support"], restricted: "read the review queue across accounts" },

  // Credits and the ledger
  getAuthCredits: { kind: "bearer", accepts: KEY_OR_USER, scopes: ["ledger:read"] },
  getCredits: ledger,
  listCreditExpirations: { kind: "bearer", accepts: KEY_OR_USER, scopes: ["ledger:read"] },
  listLedgerEntries: ledger,
  exportLedgerEntries: ledger,
  getLedgerEntry: ledger,
  getLedgerReadiness: ledger,
  listSettlementHistory: ledger,
  listRefunds: ledger,
  listCreditStatements: ledger,
  getCreditStatement: ledger,
  exportCreditStatement: ledger,

  // Managing the account
  createRefund: { ...manage, roles: ["support"], restricted: "refund Calls" },
  listApiKeys: manage,
  createApiKey: manage,
  revokeApiKey: manage,
  listBudgets: { kind: "bearer", accepts: KEY_OR_USER, scopes: ["account:manage"] },
  setBudget: ownerManages("change budgets"),
  removeBudget: ownerManages("change budgets"),
  getAlertSettings: manage,
  setAlertSettings: ownerManages("change alert settings"),
  listNotifications: manage,
  markNotificationsRead: manage,
  listWebhooks: manage,
  listWebhookDeliveries: manage,
  createWebhook: ownerManages("register webhooks"),
  removeWebhook: ownerManages("remove webhooks"),
  testWebhook: ownerManages("send webhook tests"),
  resendWebhookDelivery: ownerManages("resend webhooks"),

  // Members, invitations and the activity log: any member reads (support with account_id), owners change.
  listAccountMembers: manage,
  getAccountSummary: usage,
  findAccountsByEmail: { ...usage, roles: ["support"], restricted: "find accounts by a member's email" },
  changeAccountMemberRole: ownerManages("change members' roles"),
  removeAccountMember: ownerManages("remove members"),
  listAccountInvitations: manage,
  createAccountInvitation: ownerManages("invite members"),
  revokeAccountInvitation: ownerManages("revoke invitations"),
  listAccountActivity: manage,
  exportAccountActivity: manage,

  // Two-factor sign-in: the user's own with their token (enrolment asks for the password again,
  // turning it off for a current code); an owner resets a member's and may require it of all.
  getTwoFactorStatus: { ...manage, beforeTwoFactor: true },
  startTwoFactorEnrolment: { ...manage, beforeTwoFactor: true },
  confirmTwoFactorEnrolment: { ...manage, beforeTwoFactor: true },
  disableTwoFactor: manage,
  resetMemberTwoFactor: ownerManages("reset a member's two-factor sign-in"),
  getAccountSecurity: { ...manage, beforeTwoFactor: true },
  setAccountSecurity: ownerManages("require two-factor sign-in"),

  // Buying credits through Stripe (docs/billing.md): members and support read, owners buy; Stripe's signed webhook grants.
  getBillingConfig: ledger,
  listPayments: ledger,
  getPayment: ledger,
  getPaymentReconciliation: ledger,
  startCheckout: ownerManages("buy credits"),
  getAutoTopup: ledger,
  setAutoTopup: ownerManages("set up auto top-up"),
  startAutoTopupCardSetup: ownerManages("save a card for auto top-up"),
  removeAutoTopupCard: ownerManages("remove the auto top-up card"),
  receiveStripeWebhook: { kind: "public", why: "Stripe signs each event (Stripe-Signature, checked with STRIPE_WEBHOOK_SECRET)" },

  // Connected accounts (docs/connections.md): a user's own credentials at third-party providers; support reads only.
  listConnections: connect,
  createConnection: { ...connect, roles: ["owner", "member"], restricted: "connect accounts (support reads only)" },
  deleteConnection: { ...connect, roles: ["owner", "member"], restricted: "disconnect accounts (support reads only)" },
  setConnectionSharing: { ...connect, roles: OWNER, restricted: "decide who may share connections" },
  connectionCallback: { kind: "public", why: "the provider's redirect: the single-use state and the browser's dashboard session are the proof" },
  getAccountRegion: manage,
  setAccountRegion: ownerManages("set the account's region"),

  // OAuth 2.0
  authorize: { kind: "public", why: "a browser is sent on to the consent page" },
  authorizeDevice: { kind: "oauth_client", basic: "optional" },
  requestToken: { kind: "oauth_client", basic: "optional" },
  introspectToken: { kind: "oauth_client", basic: "required" },
  revokeToken: { kind: "oauth_client", basic: "optional" },
} as const satisfies Record<string, Access>;

export type OperationId = keyof typeof OPERATION_ACCESS;

/** The row of `operationId`, or a registration error naming what is missing. */
export function accessOf(operationId: string | undefined, where: string): Access {
  if (operationId === undefined) throw new Error(`${where} has no operationId: every operation is named and listed in lib/api/access.ts`);
  if (!Object.hasOwn(OPERATION_ACCESS, operationId)) throw new Error(`${where} (${operationId}) declares no access: add its row to lib/api/access.ts`);
  return OPERATION_ACCESS[operationId as OperationId];
}

type SecurityRequirement = Record<string, string[]>;

/** The OpenAPI security schemes the requirements below name (registered by lib/api/app.ts). */
export const SECURITY_SCHEMES = { apiKey: "ApiKeyAuth", oauth: "OAuth2", delegation: "OAuth2Delegation", client: "OAuthClientBasic" } as const;

/**
 * An operation's OpenAPI `security`: alternatives, any one of which suffices. API keys need no scope;
 * OAuth tokens (user and delegation alike, both issued by this server) one of the row's scopes. An
 * operation that takes an agent's delegation token but not a user's own token (Call: a user's token
 * does not spend) names the delegation scheme instead, so the document says what the server does.
 */
export function securityOf(access: Access): SecurityRequirement[] {
  switch (access.kind) {
    case "public":
      return [];
    case "oauth_client":
      return access.basic === "required" ? [{ [SECURITY_SCHEMES.client]: [] }] : [{ [SECURITY_SCHEMES.client]: [] }, {}];
    case "bearer": {
      const out: SecurityRequirement[] = [];
      if (access.accepts.includes("api_key")) out.push({ [SECURITY_SCHEMES.apiKey]: [] });
      if (access.accepts.some((c) => c !== "api_key")) {
        const scheme = access.accepts.includes("user_token") ? SECURITY_SCHEMES.oauth : SECURITY_SCHEMES.delegation;
        if (access.scopes.length === 0) out.push({ [scheme]: [] });
        else for (const scope of access.scopes) out.push({ [scheme]: [scope] });
      }
      return out;
    }
  }
}
