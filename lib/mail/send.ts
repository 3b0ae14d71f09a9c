import { env, publicUrl } from "../env";
import { lazySdk } from "../lazy-sdk";

const nodemailer = lazySdk(() => import("nodemailer").then((module) => module.default));

export interface Mail {
  to: string;
  subject: string;
  text: string;
}

/** Whether a mail left: false with the reason when no SMTP server is configured or it refused. */
export type MailOutcome = { sent: true } | { sent: false; reason: string };

/** The From address: MAIL_FROM, else tollgate@ the public URL's host. */
export function mailFrom(): string {
  return env().MAIL_FROM ?? `Tollgate <tollgate@${new URL(publicUrl()).hostname}>`;
}

/**
 * Sends one plain-text mail through `SMTP_URL`. Never throws: the caller decides what a failure
 * means (an invitation stays valid, its link shown). Short timeouts, so an unreachable server
 * costs the request seconds, not minutes.
 */
export async function sendMail(mail: Mail): Promise<MailOutcome> {
  const url = env().SMTP_URL;
  if (!url) return { sent: false, reason: "mail is not configured (SMTP_URL)" };
  const transport = (await nodemailer()).createTransport(url, { connectionTimeout: 5_000, greetingTimeout: 5_000, socketTimeout: 10_000 });
  try {
    await transport.sendMail({ from: mailFrom(), to: mail.to, subject: mail.subject, text: mail.text });
    return { sent: true };
  } catch (err) {
    return { sent: false, reason: err instanceof Error ? err.message : String(err) };
  } finally {
    transport.close();
  }
}
