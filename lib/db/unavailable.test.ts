import { describe, expect, it } from "vitest";
import { isDatabaseUnavailable } from "./unavailable";

describe("isDatabaseUnavailable", () => {
  it.each([
    ["a refused connection", Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" })],
    ["a server shutting down (57P01)", Object.assign(new Error("terminating connection due to administrator command"), { code: "57P01" })],
    ["a dropped connection", new Error("Connection terminated unexpectedly")],
    ["a pool connect timeout", new Error("timeout exceeded when trying to connect")],
    ["a wrapped driver error", new Error("Failed query: select 1", { cause: Object.assign(new Error("x"), { code: "57P03" }) })],
    ["one refusal per address", new AggregateError([Object.assign(new Error("a"), { code: "ECONNREFUSED" })], "")],
  ])("%s is unavailability", (_, err) => expect(isDatabaseUnavailable(err)).toBe(true));

  it.each([
    ["a unique violation", Object.assign(new Error("duplicate key value"), { code: "23505" })],
    ["a syntax error", Object.assign(new Error('syntax error at or near "selec"'), { code: "42601" })],
    ["a plain bug", new TypeError("x is undefined")],
  ])("%s is not", (_, err) => expect(isDatabaseUnavailable(err)).toBe(false));
});
