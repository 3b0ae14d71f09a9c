import type { UserRole } from "@/lib/vocab/roles";

/** Roles an owner can give inside the account; support is Tollgate's own staff, never granted here. */
export const assignableRoles = ["member", "owner"] as const satisfies readonly UserRole[];
export type AssignableRole = (typeof assignableRoles)[number];
