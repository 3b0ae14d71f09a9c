import { describe, expect, it } from "vitest";
import { shortUserAgent } from "./user-agent";

describe("shortUserAgent", () => {
  it("names the browser and its major version, then the system", () => {
    expect(shortUserAgent("Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36")).toBe("Chrome 131 · macOS");
    expect(shortUserAgent("Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36 Edg/120.0.2210.91")).toBe("Edge 120 · Windows");
    expect(shortUserAgent("Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0")).toBe("Firefox 128 · Linux");
    expect(shortUserAgent("Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1")).toBe("Safari 17 · iOS");
    expect(shortUserAgent("Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/131.0.6778.85 Safari/537.36")).toBe("Headless Chrome 131 · Linux");
  });

  it("keeps the first word of an agent it does not know, and nothing of an empty one", () => {
    expect(shortUserAgent("curl/8.5.0")).toBe("curl 8");
    expect(shortUserAgent("tollgate-cli/1.2")).toBe("tollgate-cli");
    expect(shortUserAgent("")).toBeNull();
    expect(shortUserAgent(null)).toBeNull();
  });
});
