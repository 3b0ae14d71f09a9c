// The conversion worker when Tollgate runs from its TypeScript sources (tests, `npm run cli`):
// tsx's loader, then the worker itself. The bundled server starts dist/openapi-worker.mjs instead.
import { register } from "tsx/esm/api";

register();
await import("./convert-worker.ts");
