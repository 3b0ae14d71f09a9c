/**
 * The published API contract version: sent as `X-Service-Api-Version` on every response and
 * returned by `GET /api/v1/meta`. We publish the machine-readable description's version
 * (2026-07-30.1) because the contract defines the header as that constant; see docs/api.md.
 */
export const API_VERSION = "2026-07-30.1";
export const API_VERSION_HEADER = "X-Service-Api-Version";
