import { eq } from "drizzle-orm";
import { publicUrl } from "../env";
import { accounts } from "../db/schema";
import type { Db } from "../db/types";
import { inviteMember } from "./members";
import type { Actor } from "./activity";
import { type MailOutcome, sendMail } from "../mail/send";
import type { UserRole } from "../vocab/roles";

/** The page an invitation link opens: the token is the proof, shown once. */
export function invitationUrl(token: string): string {
  return `${publicUrl()}/invite/${encodeURIComponent(token)}`;
}

/** Mails the invitation's link (when SMTP_URL is set); the invitation stands whatever happens here. */
export function mailInvitation(input: { email: string; accountName: string; role: UserRole; invitedBy: string | null; url: string; expiresAt: string }): Promise<MailOutcome> {
  const by = input.invitedBy ? `${input.invitedBy} invited you` : "You are invited";
  return sendMail({
    to: input.email,
    subject: `Join ${input.accountName} on Tollgate`,
    text: [
      `${by} to join the account "${input.accountName}" on Tollgate as ${input.role === "owner" ? "an owner" : "a member"}.`,
      "",
      `Open this link to accept (it works once, until ${input.expiresAt}):`,
      input.url,
      "",
      "If you did not expect this invitation, ignore this mail.",
    ].join("\n"),
  });
}

/**
 * Invites an email to the account (recorded in its activity log) and mails the link when mail is
 * configured. A mail that fails leaves the invitation in place: the link is returned to show.
 */
export async function inviteByMail(db: Db, input: { accountId: string; email: string; role: UserRole; invitedBy: string | null; actor: Actor }) {
  const { invitation, token } = await inviteMember(db, input);
  const url = invitationUrl(token);
  const [account] = await db.select({ name: accounts.name }).from(accounts).where(eq(accounts.id, input.accountId));
  const mail = await mailInvitation({ email: invitation.email, accountName: account?.name ?? input.accountId, role: invitation.role, invitedBy: input.actor.type === "user" ? (input.actor.label ?? null) : null, url, expiresAt: invitation.expires_at });
  return { invitation, invitation_url: url, mail_sent: mail.sent, mail_error: mail.sent ? null : mail.reason };
}
