// What a dashboard session carries, so session and token fields are typed everywhere.
import type { DefaultSession } from "next-auth";
import type { UserRole } from "../vocab/roles";

declare module "next-auth" {
  interface User {
    id: string;
    email: string;
    accountId: string;
    role: UserRole;
  }

  interface Session {
    user: {
      id: string;
      email: string;
      accountId: string;
      role: UserRole;
    } & Omit<NonNullable<DefaultSession["user"]>, "email">;
  }
}

declare module "next-auth/jwt" {
  interface JWT {
    userId?: string;
    accountId?: string;
    role?: UserRole;
  }
}
