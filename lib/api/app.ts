import { OpenAPIHono } from "@hono/zod-openapi";
import type { ApiApp, ApiDeps, ApiEnv } from "../http/context";
import { handleError } from "../http/errors";
import { publicApiError } from "../http/responses";
import { withRequestContext } from "../http/request-context";
import { API_VERSION } from "../version";
import { createRouter, namedOperation } from "./create-router";
import { SECURITY_SCHEMES } from "./access";
import { SCOPES } from "../oauth/scopes";
import { publicUrl } from "../env";
import { registerMeta } from "./routes/meta";
import { registerHealth } from "./routes/health";
import { registerAuthCredits } from "./routes/auth-credits";
import { registerCredits } from "./routes/credits";
import { registerCreditsExpirations } from "./routes/credits-expirations";
import { registerCreditsStatementsList } from "./routes/credits-statements-list";
import { registerCreditsStatementsGet } from "./routes/credits-statements-get";
import { registerCreditsStatementsExport } from "./routes/credits-statements-export";
import { registerVerifyToken } from "./routes/verify-token";
import { WELL_KNOWN_JWKS_PATH, jwksHandler, registerJwks } from "./routes/jwks";
import { registerToolsProbe } from "./routes/tools-probe";
import { registerToolsExecute } from "./routes/tools-execute";
import { registerResultsDownload } from "./routes/results-download";
import { registerOAuthDeviceAuthorize } from "./routes/oauth-device-authorize";
import { registerOAuthAuthorize } from "./routes/oauth-authorize";
import { registerOAuthToken } from "./routes/oauth-token";
import { registerOAuthIntrospect } from "./routes/oauth-introspect";
import { registerOAuthRevoke } from "./routes/oauth-revoke";
import { OAUTH_METADATA_PATH, oauthMetadataHandler, registerOAuthMetadata } from "./routes/oauth-metadata";
import { registerSearch } from "./routes/search";
import { registerToolsByIds } from "./routes/tools-by-ids";
import { registerProviders } from "./routes/providers";
import { registerProvidersCategories } from "./routes/providers-categories";
import { registerApiKeysList } from "./routes/api-keys-list";
import { registerApiKeysCreate } from "./routes/api-keys-create";
import { registerApiKeysRevoke } from "./routes/api-keys-revoke";
import { registerUsageHistoryList } from "./routes/usage-history-list";
import { registerUsageHistorySummary } from "./routes/usage-history-summary";
import { registerUsageHistoryExport } from "./routes/usage-history-export";
import { registerUsageHistoryGet } from "./routes/usage-history-get";
import { registerUsageCreditsSpent } from "./routes/usage-credits-spent";
import { registerLedgerEntriesList } from "./routes/ledger-entries-list";
import { registerLedgerEntriesExport } from "./routes/ledger-entries-export";
import { registerLedgerEntriesGet } from "./routes/ledger-entries-get";
import { registerLedgerReadiness } from "./routes/ledger-readiness";
import { registerSettlementHistory } from "./routes/settlement-history";
import { registerLookup } from "./routes/lookup";
import { registerReviewQueue } from "./routes/review-queue";
import { registerRunsList } from "./routes/runs-list";
import { registerBudgets } from "./routes/budgets";
import { registerExecutionRefundsCreate } from "./routes/execution-refunds-create";
import { registerExecutionRefundsList } from "./routes/execution-refunds-list";
import { registerAlertsGet } from "./routes/alerts-get";
import { registerAlertsPut } from "./routes/alerts-put";
import { registerNotificationsList } from "./routes/notifications-list";
import { registerNotificationsRead } from "./routes/notifications-read";
import { registerWebhooksList } from "./routes/webhooks-list";
import { registerWebhooksCreate } from "./routes/webhooks-create";
import { registerWebhooksRemove } from "./routes/webhooks-remove";
import { registerWebhooksTest } from "./routes/webhooks-test";
import { registerWebhookDeliveriesList } from "./routes/webhook-deliveries-list";
import { registerWebhookDeliveriesResend } from "./routes/webhook-deliveries-resend";
import { registerAccountMembersList } from "./routes/account-members-list";
import { registerAccountSummary } from "./routes/account-summary";
import { registerAccountsByEmail } from "./routes/accounts-by-email";
import { registerAccountMembersUpdate } from "./routes/account-members-update";
import { registerAccountMembersRemove } from "./routes/account-members-remove";
import { registerAccountInvitationsList } from "./routes/account-invitations-list";
import { registerAccountInvitationsCreate } from "./routes/account-invitations-create";
import { registerAccountInvitationsRevoke } from "./routes/account-invitations-revoke";
import { registerAccountActivityList } from "./routes/account-activity-list";
import { registerAccountActivityExport } from "./routes/account-activity-export";
import { registerOpenApiJson } from "./routes/openapi-json";
import { PROTECTED_RESOURCE_PATH, protectedResourceHandler, registerMcp } from "./routes/mcp";
import { registerOpenApiYaml } from "./routes/openapi-yaml";
import { registerUsageBreakdown } from "./routes/usage-breakdown";
import { registerTwoFactorStatus } from "./routes/two-factor-status";
import { registerTwoFactorEnrolment } from "./routes/two-factor-enrolment";
import { registerTwoFactorConfirm } from "./routes/two-factor-confirm";
import { registerTwoFactorDisable } from "./routes/two-factor-disable";
import { registerTwoFactorReset } from "./routes/two-factor-reset";
import { registerTwoFactorRequirement } from "./routes/two-factor-requirement";
import { registerBillingConfig } from "./routes/billing-config";
import { registerBillingCheckout } from "./routes/billing-checkout";
import { registerBillingPaymentsList } from "./routes/billing-payments-list";
import { registerBillingPaymentsGet } from "./routes/billing-payments-get";
import { registerBillingReconciliation } from "./routes/billing-reconciliation";
import { registerBillingAutoTopup } from "./routes/billing-auto-topup";
import { registerStripeWebhook } from "./routes/stripe-webhook";
import { registerConnectionsList } from "./routes/connections-list";
import { registerConnectionsCreate } from "./routes/connections-create";
import { registerConnectionsSharing } from "./routes/connections-sharing";
import { registerConnectionsRemove } from "./routes/connections-remove";
import { registerConnectionsCallback } from "./routes/connections-callback";
import { registerAccountRegion } from "./routes/account-region";

/** Every operation of the public API, in one list: the OpenAPI description is generated from it. */
const operations: ((app: ApiApp) => void)[] = [
  registerMeta,
  registerHealth,
  registerAuthCredits,
  registerCredits,
  registerCreditsExpirations,
  registerVerifyToken,
  registerJwks,
  registerToolsProbe,
  registerToolsExecute,
  registerResultsDownload,
  registerOAuthDeviceAuthorize,
  registerOAuthAuthorize,
  registerOAuthToken,
  registerOAuthIntrospect,
  registerOAuthRevoke,
  registerOAuthMetadata,
  registerApiKeysList,
  registerApiKeysCreate,
  registerApiKeysRevoke,
  registerSearch,
  registerToolsByIds,
  registerProvidersCategories,
  registerProviders,
  // Static paths before parameters: `/summary` and `/export` must not be taken for an {event_id} or {entry_id}.
  registerUsageHistoryList,
  registerUsageHistorySummary,
  registerUsageHistoryExport,
  registerUsageHistoryGet,
  registerUsageCreditsSpent,
  registerUsageBreakdown,
  registerLedgerEntriesList,
  registerLedgerEntriesExport,
  registerLedgerEntriesGet,
  registerCreditsStatementsList,
  registerCreditsStatementsExport,
  registerCreditsStatementsGet,
  registerLedgerReadiness,
  registerSettlementHistory,
  registerLookup,
  registerReviewQueue,
  registerRunsList,
  registerBudgets,
  registerExecutionRefundsCreate,
  registerExecutionRefundsList,
  registerAlertsGet,
  registerAlertsPut,
  registerNotificationsList,
  registerNotificationsRead,
  registerWebhooksList,
  registerWebhooksCreate,
  registerWebhooksRemove,
  registerWebhooksTest,
  registerWebhookDeliveriesList,
  registerWebhookDeliveriesResend,
  registerAccountMembersList,
  registerAccountSummary,
  registerAccountsByEmail,
  registerAccountMembersUpdate,
  registerAccountMembersRemove,
  registerAccountInvitationsList,
  registerAccountInvitationsCreate,
  registerAccountInvitationsRevoke,
  registerAccountActivityList,
  registerAccountActivityExport,
  registerTwoFactorStatus,
  registerTwoFactorEnrolment,
  registerTwoFactorConfirm,
  registerTwoFactorDisable,
  registerTwoFactorReset,
  registerTwoFactorRequirement,
  registerBillingConfig,
  registerBillingCheckout,
  registerBillingPaymentsList,
  registerBillingPaymentsGet,
  registerBillingReconciliation,
  registerBillingAutoTopup,
  registerStripeWebhook,
  registerConnectionsList,
  registerConnectionsCreate,
  // Static before the parameter: `/sharing` is not a {connection_id}.
  registerConnectionsSharing,
  registerConnectionsRemove,
  registerConnectionsCallback,
  registerAccountRegion,
  registerMcp,
];

export const API_BASE_PATH = "/api/v1";

function openApiDocument(api: ApiApp) {
  return api.getOpenAPI31Document({
    openapi: "3.1.0",
    info: {
      title: "Tollgate API",
      version: API_VERSION,
      description: "Discover, Inspect, Probe and Call third-party tools, metered in credits; audit usage and the credits ledger.",
      // `identifier` (an SPDX expression) is OpenAPI 3.1's; the generator's info type predates it.
      license: { name: "Proprietary", ...{ identifier: "LicenseRef-Proprietary" } },
    },
    servers: [{ url: API_BASE_PATH }],
  });
}

/** The credentials the access table (lib/api/access.ts) names in each operation's `security`. */
function registerSecuritySchemes(api: ApiApp) {
  api.openAPIRegistry.registerComponent("securitySchemes", SECURITY_SCHEMES.apiKey, {
    type: "http",
    scheme: "bearer",
    description: "`Authorization: Bearer <API_KEY>`: the account's own credential, needing no scope",
  });
  api.openAPIRegistry.registerComponent("securitySchemes", SECURITY_SCHEMES.oauth, {
    type: "oauth2",
    description:
      "`Authorization: Bearer <ACCESS_TOKEN>`: an ES256 JWT from this server (authorization code with PKCE, the device flow of RFC 8628 at " +
      "/api/v1/oauth/device/authorize, refresh, or the token exchange of RFC 8693 for agents' delegation tokens; the dashboard's own token " +
      "holds every scope and its user's role limits it). Each operation names the scopes that admit it (any one suffices). docs/oauth.md.",
    flows: {
      authorizationCode: {
        authorizationUrl: `${publicUrl()}${API_BASE_PATH}/oauth/authorize`,
        tokenUrl: `${publicUrl()}${API_BASE_PATH}/oauth/token`,
        refreshUrl: `${publicUrl()}${API_BASE_PATH}/oauth/token`,
        scopes: { ...SCOPES },
      },
    },
  });
  api.openAPIRegistry.registerComponent("securitySchemes", SECURITY_SCHEMES.delegation, {
    type: "oauth2",
    description:
      "`Authorization: Bearer <DELEGATION_TOKEN>`: an agent's short-lived delegation token, from the token exchange of RFC 8693 at " +
      "/api/v1/oauth/token (`grant_type=urn:ietf:params:oauth:grant-type:token-exchange`, the user's access token as `subject_token`, " +
      "optionally `max_credits`). Operations that name this scheme refuse a user's own access token with 401, whatever its scopes: " +
      "a user's token does not spend. docs/oauth.md.",
    flows: {
      // OpenAPI has no token-exchange flow; the token endpoint and scopes are those of the exchange.
      clientCredentials: { tokenUrl: `${publicUrl()}${API_BASE_PATH}/oauth/token`, scopes: { ...SCOPES } },
    },
  });
  api.openAPIRegistry.registerComponent("securitySchemes", SECURITY_SCHEMES.client, {
    type: "http",
    scheme: "basic",
    description: "OAuth client authentication: `Authorization: Basic base64(client_id:client_secret)` for confidential clients",
  });
}

/** The whole HTTP API as one Hono app: served by the custom server and by Next's catch-all route. */
export function createApiApp(deps: ApiDeps) {
  const api = createRouter();
  registerSecuritySchemes(api);
  for (const register of operations) register(api);

  let cachedDoc: ReturnType<typeof openApiDocument> | undefined;
  const document = () => (cachedDoc ??= openApiDocument(api));
  registerOpenApiJson(api, document);
  registerOpenApiYaml(api, document);

  const root = new OpenAPIHono<ApiEnv>();
  root.onError(handleError);
  root.notFound((c) => publicApiError(c, 404, `No operation ${c.req.method} ${c.req.path}`));
  root.get(WELL_KNOWN_JWKS_PATH, namedOperation(`GET ${WELL_KNOWN_JWKS_PATH}`, jwksHandler));
  root.get(OAUTH_METADATA_PATH, namedOperation(`GET ${OAUTH_METADATA_PATH}`, oauthMetadataHandler));
  root.get(PROTECTED_RESOURCE_PATH, namedOperation(`GET ${PROTECTED_RESOURCE_PATH}`, protectedResourceHandler));
  root.route(API_BASE_PATH, api);
  return {
    fetch: withRequestContext(root.fetch, deps),
    /** Every operation the app serves under the API prefix (handlers, not middleware). */
    operations: () => [...new Map(root.routes.filter((r) => r.method !== "ALL").map((r) => [`${r.method} ${r.path}`, { method: r.method, path: r.path }])).values()],
  };
}

export type RootApp = ReturnType<typeof createApiApp>;

/** Paths the custom server hands to Hono rather than to Next. */
export function isApiPath(pathname: string): boolean {
  return pathname.startsWith(`${API_BASE_PATH}/`) || pathname === API_BASE_PATH || pathname.startsWith("/.well-known/");
}
