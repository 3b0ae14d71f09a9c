import type { z } from "zod";
import type {
  ActivityEntrySchema,
  ActivityPageSchema,
  ChangeRoleBodySchema,
  CreatedInvitationSchema,
  InvitationSchema,
  MemberSchema,
  RemovedMemberSchema,
  RoleChangedSchema,
} from "../api/routes/account-members-schemas";
import type { RegionAnswer } from "../api/routes/account-region";
import { apiData } from "./api-client";

/**
 * The Members and Activity pages' calls to `/api/v1/auth/account/…` (JWT; changes are the
 * owner's). Types come from the API's own schemas (type-only: nothing of the server ships).
 */
export type Member = z.infer<typeof MemberSchema>;
export type Invitation = z.infer<typeof InvitationSchema>;
export type CreatedInvitation = z.infer<typeof CreatedInvitationSchema>;
export type RemovedMember = z.infer<typeof RemovedMemberSchema>;
export type ActivityEntry = z.infer<typeof ActivityEntrySchema>;
export type ActivityPage = z.infer<typeof ActivityPageSchema>;
export type AccountRegion = z.infer<typeof RegionAnswer>;
type AssignableRole = z.infer<typeof ChangeRoleBodySchema>["role"];

export const membersQueryKey = ["auth", "account", "members"] as const;
export const invitationsQueryKey = ["auth", "account", "invitations"] as const;
export const activityQueryKey = ["auth", "account", "activity"] as const;
export const accountRegionQueryKey = ["auth", "account", "region"] as const;

export async function fetchMembers(signal?: AbortSignal): Promise<Member[]> {
  return (await apiData<{ items: Member[] }>("/auth/account/members", { signal })).items;
}

export async function fetchInvitations(signal?: AbortSignal): Promise<Invitation[]> {
  return (await apiData<{ items: Invitation[] }>("/auth/account/invitations", { signal })).items;
}

export function createInvitation(input: { email: string; role: AssignableRole }): Promise<CreatedInvitation> {
  return apiData<CreatedInvitation>("/auth/account/invitations", { method: "POST", body: input });
}

export function revokeInvitation(invitationId: string): Promise<Invitation> {
  return apiData<Invitation>(`/auth/account/invitations/${encodeURIComponent(invitationId)}`, { method: "DELETE" });
}

export function changeMemberRole(userId: string, role: AssignableRole): Promise<z.infer<typeof RoleChangedSchema>> {
  return apiData(`/auth/account/members/${encodeURIComponent(userId)}`, { method: "PATCH", body: { role } });
}

/** Removes a member; the API keys they created are revoked with them unless `keepKeys`. */
export function removeMember(userId: string, keepKeys: boolean): Promise<RemovedMember> {
  return apiData<RemovedMember>(`/auth/account/members/${encodeURIComponent(userId)}${keepKeys ? "?keep_keys=true" : ""}`, { method: "DELETE" });
}

export function fetchAccountRegion(signal?: AbortSignal): Promise<AccountRegion> {
  return apiData<AccountRegion>("/auth/account/region", { signal });
}

/** Sets (or, with null, clears) the region tools that declare regions are called from; the API checks the code. */
export function setAccountRegion(region: string | null): Promise<AccountRegion> {
  return apiData<AccountRegion>("/auth/account/region", { method: "PUT", body: { region } });
}

/** The filters the Activity page keeps in its URL, under the API's own names. */
export type ActivityFilter = Partial<Record<"action" | "actor_type" | "actor_id" | "object_type" | "object_id" | "start_date" | "end_date" | "tz" | "account_id", string>>;

export const ACTIVITY_PAGE_SIZE = 50;

export function fetchActivity(filter: ActivityFilter, cursor: string | undefined, signal?: AbortSignal): Promise<ActivityPage> {
  return apiData<ActivityPage>("/auth/account/activity", { query: { ...filter, cursor, page_size: ACTIVITY_PAGE_SIZE }, signal });
}
