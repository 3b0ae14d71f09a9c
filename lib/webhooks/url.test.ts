import { describe, expect, it } from "vitest";
import { checkWebhookUrl } from "./url";

describe("webhook URLs", () => {
  it.for(["http://127.0.0.1:8080/hook", "http://10.1.2.3/", "http://192.168.1.1/", "http://169.254.169.254/latest/meta-data", "https://[::1]/", "http://[::ffff:127.0.0.1]/"])(
    "%s is refused without the operator's private-network flag (the providers' SSRF guard)",
    async (url) => {
      await expect(checkWebhookUrl(url, false)).rejects.toMatchObject({ code: "invalid_input", message: expect.stringMatching(/non-public address/) });
      await expect(checkWebhookUrl(url, true)).resolves.toBeInstanceOf(URL);
    },
  );

  it("a name that resolves to a private address reads like a name that does not resolve: the answer does not say what our DNS knows", async () => {
    const refusal = (url: string) => checkWebhookUrl(url, false).then(
      () => "accepted",
      (err: Error & { code?: string }) => `${err.code}: ${err.message.replace(/host \S+ /, "host HOST ")}`,
    );
    const local = await refusal("http://localhost/hook");
    expect(local).toMatch(/^invalid_input: url's host HOST does not resolve to a public address/);
    expect(local).not.toMatch(/127\.0\.0\.1|::1|loopback/);
    expect(await refusal("http://no-such-host.invalid/hook")).toBe(local);
    await expect(checkWebhookUrl("http://localhost/hook", true)).resolves.toBeInstanceOf(URL);
  });

  it("a public address is accepted; other schemes, credentials and garbage are not", async () => {
    await expect(checkWebhookUrl("https://93.184.215.14/hooks/tollgate", false)).resolves.toMatchObject({ href: "https://93.184.215.14/hooks/tollgate" });
    for (const url of ["ftp://93.184.215.14/", "https://user:pw@93.184.215.14/", "not a url", "file:///etc/passwd"]) {
      await expect(checkWebhookUrl(url, true)).rejects.toMatchObject({ code: "invalid_input" });
    }
  });
});
