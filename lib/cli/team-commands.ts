import { OPERATOR } from "../accounts/activity";
import { listActivity } from "../accounts/activity-log";
import { inviteByMail } from "../accounts/invitation-mail";
import { changeMemberRole, listMembers, removeMember, revokeInvitation } from "../accounts/members";
import { requireAccount } from "../accounts/require-account";
import { oneOf, optStr, str, UsageError, type CommandSpec } from "./command-kit";

const ROLES = ["owner", "member"] as const;

/** `members …`, `invitations revoke`, `activity list`: an account's team for operators (docs/team.md); every change is the operator's in the log. */
export const teamCommands: Record<string, CommandSpec> = {
  "members list": {
    usage: "members list --account ID",
    options: { account: { type: "string" } },
    run: async (db, v) => {
      const accountId = str(v, "account");
      await requireAccount(db, accountId);
      return { members: await listMembers(db, accountId) };
    },
  },
  "members invite": {
    usage: "members invite --account ID --email E [--role owner|member]   (prints the single-use link; mailed too when SMTP_URL is set)",
    options: { account: { type: "string" }, email: { type: "string" }, role: { type: "string" } },
    run: async (db, v) => {
      const accountId = str(v, "account");
      await requireAccount(db, accountId);
      return inviteByMail(db, { accountId, email: str(v, "email"), role: oneOf(optStr(v, "role") ?? "member", ROLES, "role"), invitedBy: null, actor: OPERATOR });
    },
  },
  "members role": {
    usage: "members role --account ID --user USER_ID --role owner|member",
    options: { account: { type: "string" }, user: { type: "string" }, role: { type: "string" } },
    run: (db, v) => changeMemberRole(db, { accountId: str(v, "account"), userId: str(v, "user"), role: oneOf(str(v, "role"), ROLES, "role"), actor: OPERATOR }),
  },
  "members remove": {
    usage: "members remove --account ID --user USER_ID [--keep-keys]   (revokes the API keys they created; --keep-keys keeps them working, listed for review)",
    options: { account: { type: "string" }, user: { type: "string" }, "keep-keys": { type: "boolean" } },
    run: (db, v) => removeMember(db, { accountId: str(v, "account"), userId: str(v, "user"), actor: OPERATOR, keepKeys: v["keep-keys"] === true }),
  },
  "invitations revoke": {
    usage: "invitations revoke --account ID --invitation INVITATION_ID",
    options: { account: { type: "string" }, invitation: { type: "string" } },
    run: (db, v) => revokeInvitation(db, { accountId: str(v, "account"), invitationId: str(v, "invitation"), actor: OPERATOR }),
  },
  "activity list": {
    usage: "activity list --account ID [--limit N (default 50, at most 1000)]",
    options: { account: { type: "string" }, limit: { type: "string" } },
    run: async (db, v) => {
      const accountId = str(v, "account");
      const limit = Number(optStr(v, "limit") ?? "50");
      if (!Number.isInteger(limit) || limit < 1 || limit > 1000) throw new UsageError("--limit must be an integer from 1 to 1000");
      await requireAccount(db, accountId);
      return { items: (await listActivity(db, accountId, { filters: {}, pageSize: limit })).items };
    },
  },
};
