// esbuild's settings for running our TypeScript on plain Node: one ESM file, packages left to
// node_modules, and `require` defined for the CommonJS packages bundled code calls it for.
export const NODE_BUNDLE = {
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  packages: "external",
  logLevel: "warning",
  banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
};
