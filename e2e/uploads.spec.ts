import crypto from "node:crypto";
import fs from "node:fs/promises";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { adminCommand, seedUser } from "./admin";
import { expect, screenshotBoth, signIn, test } from "./fixtures";

/**
 * A developer tries a file upload in the browser: an OpenAPI operation with a multipart body,
 * imported as a customer would (`providers import --openapi`), Called from the Console with a file
 * chosen from disk. A local receiver plays the provider and records the bytes it gets.
 */
interface Received {
  contentType: string;
  body: Buffer;
}

function startReceiver(): Promise<{ url: string; received: Received[]; close(): Promise<void> }> {
  const received: Received[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      received.push({ contentType: req.headers["content-type"] ?? "", body: Buffer.concat(chunks) });
      res.writeHead(201, { "content-type": "application/json" }).end(JSON.stringify({ id: "file_1", status: "uploaded" }));
    });
  });
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () =>
      resolve({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, received, close: () => new Promise<void>((done) => server.close(() => done())) }),
    ),
  );
}

const uploadDocument = (serverUrl: string) => ({
  openapi: "3.0.3",
  info: { title: "E2E Files", version: "1" },
  servers: [{ url: serverUrl }],
  paths: {
    "/files": {
      post: {
        operationId: "uploadFile",
        summary: "Upload a file",
        requestBody: {
          required: true,
          content: {
            "multipart/form-data": {
              schema: { type: "object", required: ["file", "purpose"], properties: { file: { type: "string", format: "binary", description: "The file to upload." }, purpose: { type: "string", enum: ["assistants", "batch"] } } },
            },
          },
        },
        responses: { 201: { description: "Uploaded", content: { "application/json": { schema: { type: "object" } } } } },
      },
    },
  },
});

test.describe("Console: a file parameter", () => {
  test("a file chosen in the browser reaches the provider byte for byte as a multipart part", async ({ page }) => {
    const receiver = await startReceiver();
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), "tollgate-e2e-upload-"));
    try {
      const providerId = `e2e-files-${crypto.randomBytes(3).toString("hex")}`;
      const documentFile = path.join(dir, "files.json");
      await fs.writeFile(documentFile, JSON.stringify(uploadDocument(receiver.url)));
      await adminCommand(["providers", "import", "--openapi", documentFile, "--id", providerId, "--price", "1", "--allow-private-network"]);
      const upload = path.join(dir, "notes.txt");
      const content = Buffer.from("line one\nline two: ünïcode ✓\n", "utf8");
      await fs.writeFile(upload, content);

      await signIn(page, await seedUser({ label: "uploads", credits: 10 }));
      await page.goto(`/console?tool_id=${providerId}:uploadFile`);
      await page.getByRole("button", { name: "Create a playground key" }).click();
      await expect(page.getByTestId("key-picker-prefix")).toContainText("tg_");
      await expect(page.getByTestId("console-tool-name")).toHaveText("Upload a file");

      await page.getByLabel(/^file/).setInputFiles(upload);
      await expect(page.getByTestId("file-chosen")).toContainText("notes.txt · text/plain");
      await page.getByLabel(/^purpose/).selectOption("assistants");
      await page.getByRole("button", { name: "Probe" }).click();
      await expect(page.getByTestId("probe-verdict")).toContainText("The parameters are valid");
      expect(receiver.received).toHaveLength(0);
      await screenshotBoth(page, "console-file-upload");

      await page.getByRole("button", { name: "Call", exact: true }).click();
      await page.getByTestId("confirm-call").getByRole("button", { name: "Call and pay" }).click();
      const result = page.getByTestId("call-result");
      await expect(result.getByTestId("call-status")).toContainText("Succeeded");
      await expect(result.getByTestId("call-charge")).toHaveText("1 credit");
      await screenshotBoth(page, "console-file-upload-result");

      expect(receiver.received).toHaveLength(1);
      const [sent] = receiver.received;
      expect(sent.contentType).toMatch(/^multipart\/form-data; boundary=/);
      const form = await new Request("http://receiver/", { method: "POST", headers: { "content-type": sent.contentType }, body: new Uint8Array(sent.body) }).formData();
      const file = form.get("file") as File;
      expect({ name: file.name, type: file.type }).toEqual({ name: "notes.txt", type: "text/plain" });
      expect(Buffer.from(await file.arrayBuffer())).toEqual(content);
      expect(form.get("purpose")).toBe("assistants");

      // The same form in Chinese: the chosen file is still named, with its type and size.
      await page.getByRole("button", { name: "中文" }).click();
      await expect(page.getByText("未选择文件")).toBeVisible();
      await page.getByLabel(/^file/).setInputFiles(upload);
      await expect(page.getByTestId("file-chosen")).toContainText("notes.txt · text/plain");
      await expect(page.getByTestId("file-chosen")).toContainText("以 data: URI 发送");
      await screenshotBoth(page, "console-file-upload-zh");
    } finally {
      await receiver.close();
      await fs.rm(dir, { recursive: true, force: true });
    }
  });
});
