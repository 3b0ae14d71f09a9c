import { z } from "@hono/zod-openapi";
import { userRoles } from "../../vocab/roles";
import { activityActions, actorTypes } from "../../vocab/activity";
import { TZ_DESCRIPTION } from "../../audit/query-schemas";
import { PublicApiErrorSchema } from "../../http/schemas";

/**
 * The shapes of the members, invitations and activity operations (issue 43), written once: the
 * routes validate and describe with them, the dashboard types with the domain rows they mirror.
 */
export const TEAM_EXTENSION = "Extension (not in the published contract): members, invitations and the account activity log (docs/team.md).";

export const error = (description: string) => ({ description, content: { "application/json": { schema: PublicApiErrorSchema } } });

export const SupportAccountQuery = z.object({
  account_id: z
    .string()
    .max(64)
    .optional()
    .openapi({ description: "Support users only: the account to read (`acc_…`); the read is recorded in the support access log and in that account's activity log. Other users get 403." }),
});

export const MemberSchema = z
  .object({
    user_id: z.string(),
    email: z.string(),
    role: z.enum(userRoles),
    joined_at: z.string().openapi({ description: "ISO-8601: when the membership began" }),
    last_signed_in_at: z.string().nullable().openapi({ description: "ISO-8601: the last dashboard sign-in to this account" }),
    invited_by: z.string().nullable().openapi({ description: "The user id of whoever invited them, if anyone" }),
    two_factor: z.boolean().openapi({ description: "Whether the user signs in with a second factor (TOTP)" }),
    api_keys: z
      .array(z.object({ api_key_id: z.string(), name: z.string(), prefix: z.string(), revoked: z.boolean() }))
      .openapi({ description: "API keys this member created in the account, oldest first" }),
  })
  .openapi("AccountMember");

export const MemberParams = z.object({ user_id: z.string().min(1).max(100).openapi({ param: { name: "user_id", in: "path" }, example: "usr_01jd…" }) });

/** Roles a member can be given: support staff belong to the operator, never to a customer's account. */
export const assignableRoles = ["owner", "member"] as const;

export const ChangeRoleBodySchema = z.object({ role: z.enum(assignableRoles) }).openapi("ChangeMemberRoleRequest");

export const RoleChangedSchema = z
  .object({ user_id: z.string(), role: z.enum(userRoles), changed: z.boolean().openapi({ description: "false when the member already had this role" }) })
  .openapi("MemberRoleChanged");

const RemovedMemberKeySchema = z.object({ api_key_id: z.string(), name: z.string(), prefix: z.string() });

export const RemovedMemberSchema = z
  .object({
    user_id: z.string(),
    removed: z.literal(true),
    api_keys_revoked: z
      .array(RemovedMemberKeySchema)
      .openapi({ description: "The member's live API keys, revoked with the removal (empty with keep_keys=true)" }),
    api_keys_kept: z
      .array(RemovedMemberKeySchema)
      .openapi({ description: "With keep_keys=true: the member's live API keys, which stay with the account and keep working; review them" }),
  })
  .openapi("RemovedMember");

export const RemoveMemberQuery = z.object({
  keep_keys: z
    .stringbool({ truthy: ["true", "1"], falsy: ["false", "0"] })
    .optional()
    .openapi({
      type: "boolean",
      description: "true keeps the API keys the member created working (listed in api_keys_kept); by default they are revoked with the removal",
      param: { name: "keep_keys", in: "query" },
    }),
});

export const InvitationSchema = z
  .object({
    invitation_id: z.string(),
    email: z.string(),
    role: z.enum(userRoles),
    invited_by: z.string().nullable(),
    created_at: z.string(),
    expires_at: z.string(),
    status: z.enum(["pending", "accepted", "revoked", "expired"]),
    accepted_at: z.string().nullable(),
  })
  .openapi("AccountInvitation");

export const InvitationParams = z.object({ invitation_id: z.string().min(1).max(100).openapi({ param: { name: "invitation_id", in: "path" }, example: "inv_01jd…" }) });

export const CreateInvitationBodySchema = z
  .object({
    email: z.string().min(3).max(254).openapi({ example: "colleague@example.com" }),
    role: z.enum(assignableRoles).default("member"),
  })
  .openapi("CreateInvitationRequest");

export const CreatedInvitationSchema = z
  .object({
    invitation: InvitationSchema,
    invitation_url: z.string().openapi({ description: "The single-use link (valid 7 days): shown only in this response; copy it if the mail does not arrive" }),
    mail_sent: z.boolean().openapi({ description: "Whether the link was mailed (SMTP_URL configured and the server accepted it)" }),
    mail_error: z.string().nullable().openapi({ description: "Why it was not mailed; the invitation stands either way" }),
  })
  .openapi("CreatedInvitation");

const date = (what: string) => z.string().max(64).optional().openapi({ description: `${what}: YYYY-MM-DD or an ISO-8601 datetime (a datetime without offset is read in tz)` });

const activityFilterFields = {
  start_date: date("Entries at or after"),
  end_date: date("Entries at or before (a date-only end_date covers that whole day)"),
  tz: z.string().max(64).optional().openapi({ description: TZ_DESCRIPTION }),
  action: z.enum(activityActions).optional(),
  actor_type: z.enum(actorTypes).optional(),
  actor_id: z.string().min(1).max(200).optional().openapi({ description: "A user id, API key id, …" }),
  object_type: z.string().min(1).max(64).optional().openapi({ description: "e.g. api_key, budget, webhook_endpoint, user, invitation, execution, account" }),
  object_id: z.string().min(1).max(200).optional(),
  ...SupportAccountQuery.shape,
};

export const ActivityExportQuery = z.object(activityFilterFields);

export const ActivityListQuery = z.object({
  ...activityFilterFields,
  cursor: z.string().max(512).optional().openapi({ description: "next_cursor of the previous page" }),
  page_size: z.coerce.number().int().min(1).max(500).default(50),
});

export const ActivityEntrySchema = z
  .object({
    activity_id: z.string(),
    seq: z.number().int().openapi({ description: "The entry's number in the account's log: 1, 2, 3, … without gaps" }),
    created_at: z.string(),
    actor_type: z.enum(actorTypes),
    actor_id: z.string().nullable(),
    actor_label: z.string().nullable().openapi({ description: "The actor's email or key name when the entry was written" }),
    action: z.enum(activityActions),
    object_type: z.string().nullable(),
    object_id: z.string().nullable(),
    before: z.unknown().openapi({ description: "The object's relevant values before the change (JSON), or null" }),
    after: z.unknown().openapi({ description: "… and after it" }),
    ip_address: z.string().nullable(),
    user_agent: z.string().nullable(),
  })
  .openapi("AccountActivityEntry");

export const ActivityPageSchema = z.object({ items: z.array(ActivityEntrySchema), next_cursor: z.string().nullable() }).openapi("AccountActivityPage");

export function activityFilters(q: z.infer<typeof ActivityExportQuery>) {
  return {
    startDate: q.start_date,
    endDate: q.end_date,
    tz: q.tz,
    action: q.action,
    actorType: q.actor_type,
    actorId: q.actor_id,
    objectType: q.object_type,
    objectId: q.object_id,
  };
}
