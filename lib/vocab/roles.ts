/**
 * A dashboard user's role, the vocabulary shared by the users table, the JWT claims, the API's
 * schemas and the dashboard's client components. Like every list in `lib/vocab/`, it imports
 * nothing, so the server and the browser bundle may both take it.
 */
export const userRoles = ["owner", "member", "support"] as const;
export type UserRole = (typeof userRoles)[number];
