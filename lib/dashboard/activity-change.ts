import type { ActivityEntry } from "./team";
import { formatCount, formatCreditsUnit, formatPercent, shortId } from "./format";
import type { Locale, MessageKey, Translate } from "./i18n";

export interface ChangeLine {
  /** The field as the log stores it (`scope_id`): for tests and tooltips, never shown as the label. */
  key: string;
  /** The field in words: "Limit", "Applies to". */
  label: string;
  /** Its value: after the change, or the only value the entry kept (what was created, removed or looked at). */
  value: string;
  /** Its value before, when the entry kept both and they differ. */
  was?: string;
}

/** What turning a logged value into words needs: the language, the page's zone, and the names the page knows for ids. */
export interface ChangeContext {
  t: Translate;
  locale: Locale;
  /** An instant in the page's zone. */
  formatInstant: (iso: string) => string;
  /** An API key's name by its id, when the page has the account's keys. */
  keyName?: (id: string) => string | undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})$/;

/** The fields the activity log records (lib/accounts, lib/billing, lib/payments, lib/auth, lib/webhooks, lib/alerts), each with its label. */
const FIELD_LABELS: Record<string, MessageKey> = {
  amount_credits: "activity.field.amount_credits",
  api_keys_kept: "activity.field.api_keys_kept",
  api_keys_revoked: "activity.field.api_keys_revoked",
  api_keys_to_review: "activity.field.api_keys_to_review",
  allow_private_network: "activity.field.allow_private_network",
  balance_after: "activity.field.balance_after",
  budget_percents: "activity.field.budget_percents",
  balance_credits: "activity.field.balance_credits",
  consecutive_failures: "activity.field.consecutive_failures",
  daily_limit_credits: "activity.field.daily_limit_credits",
  debt_cancelled: "activity.field.debt_cancelled",
  email: "activity.field.email",
  enabled: "activity.field.enabled",
  events: "activity.field.events",
  expired_credits: "activity.field.expired_credits",
  expires_at: "activity.field.expires_at",
  ledger_entry_id: "activity.field.ledger_entry_id",
  limit_credits: "activity.field.limit_credits",
  lots: "activity.field.lots",
  low_balance_credits: "activity.field.low_balance_credits",
  method: "activity.field.method",
  name: "activity.field.name",
  period: "activity.field.period",
  prefix: "activity.field.prefix",
  query: "activity.field.query",
  reason: "activity.field.reason",
  recovery_codes: "activity.field.recovery_codes",
  refunded_credits: "activity.field.refunded_credits",
  require_two_factor: "activity.field.require_two_factor",
  resource: "activity.field.resource",
  revoked: "activity.field.revoked",
  role: "activity.field.role",
  scope: "activity.field.scope",
  second_factor: "activity.field.second_factor",
  threshold_credits: "activity.field.threshold_credits",
  time_zone: "activity.field.time_zone",
  type: "activity.field.type",
  url: "activity.field.url",
  value: "activity.field.value",
  via: "activity.field.via",
  with: "activity.field.with",
};

/**
 * The order lines are read in: what the object is, then what was set. The log's JSON keeps no order
 * of its own (jsonb sorts keys by length), so without this a budget's limit came after its zone.
 */
const FIELD_ORDER = [
  "email", "name", "role", "scope", "limit_credits", "period", "time_zone", "amount_credits", "threshold_credits", "daily_limit_credits", "refunded_credits", "expired_credits", "type",
  "expires_at", "balance_after", "lots", "low_balance_credits", "budget_percents", "url", "events", "allow_private_network", "prefix", "revoked",
  "api_keys_revoked", "api_keys_kept", "api_keys_to_review", "via", "method", "with", "second_factor", "recovery_codes", "enabled", "require_two_factor", "reason", "ledger_entry_id",
  "resource", "query", "value",
];
const rank = (key: string) => (FIELD_ORDER.includes(key) ? FIELD_ORDER.indexOf(key) : FIELD_ORDER.length);

const CREDIT_FIELDS = new Set([
  "amount_credits", "balance_after", "expired_credits", "limit_credits", "low_balance_credits", "refunded_credits", "debt_cancelled",
  "threshold_credits", "daily_limit_credits", "balance_credits",
]);
const YES_NO_FIELDS = new Set(["allow_private_network", "enabled", "require_two_factor", "revoked"]);
const ROLES = new Set(["owner", "member", "support"]);
const PERIODS = new Set(["day", "week", "month", "none"]);
const GRANT_TYPES = new Set(["payment_recharge", "welcome_bonus", "invitation_reward"]);
const SECOND_FACTORS = new Set(["totp", "recovery_code"]);
/** Lists of API key ids, shown by the keys' names where the page knows them. */
const KEY_LIST_FIELDS = new Set(["api_keys_kept", "api_keys_revoked", "api_keys_to_review"]);

/** An unknown field still reads as words: `some_new_field` → "Some new field". */
function labelOf(key: string, t: Translate): string {
  const known = FIELD_LABELS[key];
  if (known) return t(known);
  const words = key.replaceAll("_", " ");
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** A budget's scope and its target as one phrase: the whole account, a key by its name, an OAuth client. */
function scopePhrase(side: Record<string, unknown>, ctx: ChangeContext): string {
  const { t } = ctx;
  const id = typeof side.scope_id === "string" ? side.scope_id : null;
  if (side.scope === "account") return t("budgets.scopeAccount");
  if (side.scope === "api_key") return t("budgets.scopeKeyNamed", { name: (id && ctx.keyName?.(id)) ?? shortId(id) });
  if (side.scope === "oauth_client") return t("budgets.scopeClientNamed", { id: id ?? "—" });
  return String(side.scope ?? t("activity.none"));
}

function show(key: string, value: unknown, side: Record<string, unknown>, ctx: ChangeContext): string {
  const { t, locale } = ctx;
  if (key === "scope") return scopePhrase(side, ctx);
  if (value === null || value === undefined) return key === "expires_at" ? t("activity.never") : t("activity.none");
  if (CREDIT_FIELDS.has(key) && (typeof value === "string" || typeof value === "number") && Number.isFinite(Number(value))) {
    return formatCreditsUnit(Number(value), locale, t);
  }
  if (YES_NO_FIELDS.has(key) && typeof value === "boolean") return t(value ? "common.yes" : "common.no");
  if (key === "role" && typeof value === "string" && ROLES.has(value)) return t(`role.${value as "owner"}`);
  if (key === "period" && typeof value === "string" && PERIODS.has(value)) return t(`console.budgetPeriod.${value as "day"}`);
  if (key === "type" && typeof value === "string" && GRANT_TYPES.has(value)) return t(`entry.grant_${value as "welcome_bonus"}`);
  if ((key === "method" || key === "with" || key === "second_factor") && typeof value === "string" && SECOND_FACTORS.has(value)) {
    return t(`activity.secondFactor.${value as "totp"}`);
  }
  if (key === "prefix" && typeof value === "string") return `${value}…`;
  if (key === "budget_percents" && Array.isArray(value)) return value.map((p) => formatPercent(Number(p) / 100, locale)).join(", ") || t("activity.none");
  if (key === "reason" && value === "member_removed") return t("activity.reasonMemberRemoved");
  if (KEY_LIST_FIELDS.has(key) && Array.isArray(value)) {
    return value.map((id) => (typeof id === "string" ? (ctx.keyName?.(id) ?? shortId(id)) : String(id))).join(", ") || t("activity.none");
  }
  if (typeof value === "number") return formatCount(value, locale);
  if (typeof value === "boolean") return t(value ? "common.yes" : "common.no");
  if (typeof value === "string") return ISO_INSTANT.test(value) ? ctx.formatInstant(value) : value;
  if (Array.isArray(value)) return value.map((v) => show(key, v, side, ctx)).join(", ") || t("activity.none");
  if (isRecord(value)) {
    const pairs = Object.entries(value).map(([k, v]) => `${k}=${typeof v === "string" ? v : JSON.stringify(v)}`);
    return pairs.join(", ") || t("activity.none");
  }
  return String(value);
}

/** A readable name for the entry's object, from what the entry kept of it (an email, a key's name). */
export function objectName(entry: Pick<ActivityEntry, "before" | "after">): { field: string; value: string } | null {
  for (const side of [entry.after, entry.before]) {
    if (!isRecord(side)) continue;
    for (const field of ["email", "name"]) {
      const value = side[field];
      if (typeof value === "string") return { field, value };
    }
  }
  return null;
}

const OBJECT_TYPES: Record<string, MessageKey> = {
  account: "activity.objectType.account",
  alert_settings: "activity.objectType.alert_settings",
  api_key: "activity.objectType.api_key",
  budget: "activity.objectType.budget",
  execution: "activity.objectType.execution",
  invitation: "activity.objectType.invitation",
  ledger_entry: "activity.objectType.ledger_entry",
  user: "activity.objectType.user",
  webhook_endpoint: "activity.objectType.webhook_endpoint",
};

/** The kind of object an entry is about, in words ("Budget", "API key"); an unknown kind as the log wrote it. */
export function objectTypeLabel(type: string, t: Translate): string {
  const known = OBJECT_TYPES[type];
  return known ? t(known) : type;
}

/**
 * What to call the entry's object: its email or name, else what it is about in words — a budget
 * by what it applies to ("API key “ci-bot”"), a webhook by its URL; null when the entry kept nothing.
 */
export function objectLabel(entry: Pick<ActivityEntry, "before" | "after" | "object_type">, ctx: ChangeContext): string | null {
  const named = objectName(entry)?.value;
  if (named) return named;
  for (const side of [entry.after, entry.before]) {
    if (!isRecord(side)) continue;
    if (entry.object_type === "budget" && "scope" in side) return scopePhrase(side, ctx);
    if (typeof side.url === "string") return side.url;
  }
  return null;
}

/**
 * An entry's before and after in words, one line per field: "Role: Member → Owner" where it
 * changed, just the value where only one side has it (what was created, removed or revoked). Fields the same on both sides are left out,
 * and so is the object's name (shown as the object) unless it is what changed. A budget's scope
 * and scope id read as one "Applies to" line; null reads "none", amounts as credits, key ids as
 * the keys' names where the page knows them, instants in the page's zone.
 */
export function changeLines(entry: Pick<ActivityEntry, "before" | "after">, ctx: ChangeContext): ChangeLine[] {
  const wrap = (v: unknown): Record<string, unknown> => (isRecord(v) ? v : v === null || v === undefined ? {} : { value: v });
  const b = wrap(entry.before);
  const a = wrap(entry.after);
  const named = objectName(entry)?.field;
  const keys = [...new Set([...Object.keys(b), ...Object.keys(a)])]
    .filter((key) => !(key === "scope_id" && ("scope" in b || "scope" in a)))
    .sort((x, y) => rank(x) - rank(y));
  return keys.flatMap((key) => {
    const inBefore = key in b || (key === "scope" && "scope_id" in b);
    const inAfter = key in a || (key === "scope" && "scope_id" in a);
    const before = inBefore ? show(key, b[key], b, ctx) : undefined;
    const after = inAfter ? show(key, a[key], a, ctx) : undefined;
    if (before === after) return [];
    if (key === named && !(inBefore && inAfter)) return [];
    const label = labelOf(key, ctx.t);
    return before !== undefined && after !== undefined ? [{ key, label, value: after, was: before }] : [{ key, label, value: (after ?? before)! }];
  });
}
