import { beforeAll, describe, expect, it } from "vitest";
import { and, eq } from "drizzle-orm";
import { createTestDatabase } from "../testing/database";
import { seedAccount } from "../testing/fixtures";
import { addMember } from "../accounts/members";
import { OPERATOR } from "../accounts/activity";
import { accountActivity } from "../db/schema";
import { setDatabase } from "../db";
import { authorizeCredentials } from "./auth-options";

const database = await createTestDatabase();
const { db } = database;

beforeAll(() => setDatabase(database));

const signIn = (email: string, password: string) => authorizeCredentials({ email, password }, { headers: { "user-agent": "vitest" } });
const failures = (accountId: string) =>
  db.select().from(accountActivity).where(and(eq(accountActivity.accountId, accountId), eq(accountActivity.action, "user.sign_in_failed")));

describe("failed sign-ins in the activity log", () => {
  it("are written once per window in each of the user's accounts, not once per wrong password", { timeout: 120_000 }, async () => {
    const home = await seedAccount(db);
    const other = await seedAccount(db);
    await addMember(db, { accountId: other.accountId, userId: home.userId, role: "member", actor: OPERATOR });

    // Each try costs a bcrypt comparison (seconds on a loaded machine): three show the point.
    for (let i = 0; i < 3; i++) expect(await signIn(home.email, `guess-${i}`)).toBeNull();
    for (const accountId of [home.accountId, other.accountId]) {
      const rows = await failures(accountId);
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ actorLabel: home.email, objectId: home.userId, after: { reason: "wrong password", window_minutes: 15 } });
    }
    // The right password still signs in.
    expect(await signIn(home.email, "correct horse battery")).toMatchObject({ id: home.userId });
  });
});
