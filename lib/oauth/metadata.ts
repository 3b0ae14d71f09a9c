import { apiAudience, issuer } from "../auth/issuer";
import { grantTypeNames } from "./create-client";
import { SCOPES } from "./scopes";

/** RFC 8414 authorization server metadata, served at `/.well-known/oauth-authorization-server`. */
export function authorizationServerMetadata() {
  const api = apiAudience();
  return {
    issuer: issuer(),
    authorization_endpoint: `${api}/oauth/authorize`,
    token_endpoint: `${api}/oauth/token`,
    device_authorization_endpoint: `${api}/oauth/device/authorize`,
    introspection_endpoint: `${api}/oauth/introspect`,
    revocation_endpoint: `${api}/oauth/revoke`,
    jwks_uri: `${issuer()}/.well-known/jwks.json`,
    scopes_supported: Object.keys(SCOPES),
    response_types_supported: ["code"],
    response_modes_supported: ["query"],
    grant_types_supported: Object.values(grantTypeNames),
    code_challenge_methods_supported: ["S256"],
    token_endpoint_auth_methods_supported: ["client_secret_basic", "none"],
    introspection_endpoint_auth_methods_supported: ["client_secret_basic"],
    revocation_endpoint_auth_methods_supported: ["client_secret_basic", "none"],
    authorization_response_iss_parameter_supported: true,
    service_documentation: `${api}/openapi.json`,
  };
}

export type AuthorizationServerMetadata = ReturnType<typeof authorizationServerMetadata>;
