// Bundles the custom server (TypeScript) into dist/server.mjs, and beside it the worker thread that
// converts OpenAPI documents (dist/openapi-worker.mjs, started by lib/catalog/openapi/isolated.ts);
// packages stay external.
import { build } from "esbuild";
import { NODE_BUNDLE } from "./node-bundle.mjs";

await build({
  entryPoints: { server: "lib/server/main.ts", "openapi-worker": "lib/catalog/openapi/convert-worker.ts" },
  outdir: "dist",
  outExtension: { ".js": ".mjs" },
  ...NODE_BUNDLE,
  sourcemap: true,
});
console.log("bundled dist/server.mjs and dist/openapi-worker.mjs");
