/**
 * One `session_id` per browser tab for the Playground and Console (contract 1: "one stable
 * session_id per user task"), so a search, its inspections and the Calls made from it are
 * traced together on the Executions page. Kept in sessionStorage: a new tab is a new task.
 */
const STORAGE_KEY = "tollgate.session-id";

function newSessionId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(10));
  return `dash_${Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("")}`;
}

export function dashboardSessionId(): string {
  try {
    const existing = window.sessionStorage.getItem(STORAGE_KEY);
    if (existing) return existing;
    const id = newSessionId();
    window.sessionStorage.setItem(STORAGE_KEY, id);
    return id;
  } catch {
    return newSessionId();
  }
}

/** A fresh Idempotency-Key for one Call: a double click or a network retry is charged once. */
export function newIdempotencyKey(): string {
  // crypto.randomUUID exists only in secure contexts; a dashboard served over plain http on a LAN
  // address still needs keys.
  const b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const hex = Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
