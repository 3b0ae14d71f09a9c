/**
 * A dashboard user's role, the vocabulary shared by the users table, the JWT claims and the
 * dashboard's client components (which must not import the database schema).
 */
export const userRoles = ["owner", "member", "support"] as const;
export type UserRole = (typeof userRoles)[number];
