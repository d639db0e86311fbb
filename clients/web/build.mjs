/**
 * Builds the web client into bundle/ (or the folder given as the first argument): one
 * JavaScript and one CSS file named by their content's hash, and index.html naming them.
 * The output is committed and served by `genial serve`; with the versions pinned in
 * package-lock.json the same sources always give the same bytes, which
 * tests/web/test_bundle.py checks.
 */
import { readFile, rm, writeFile, mkdir } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";

import * as esbuild from "esbuild";

const here = path.dirname(fileURLToPath(import.meta.url));
const out = path.resolve(process.argv[2] ?? path.join(here, "bundle"));

await rm(out, { recursive: true, force: true });
await mkdir(path.join(out, "assets"), { recursive: true });
const result = await esbuild.build({
  absWorkingDir: here,
  entryPoints: { app: "src/main.tsx" },
  outdir: path.join(out, "assets"),
  entryNames: "[name]-[hash]",
  bundle: true,
  minify: true,
  format: "esm",
  target: "es2022",
  jsx: "automatic",
  jsxImportSource: "preact",
  tsconfig: "tsconfig.json",
  legalComments: "none",
  metafile: true,
  logLevel: "warning",
});
const written = Object.keys(result.metafile.outputs).map((file) =>
  path.basename(file),
);
const named = (ext) => written.find((file) => file.endsWith(ext));
const page = (await readFile(path.join(here, "src/index.html"), "utf8"))
  .replace("{{css}}", named(".css"))
  .replace("{{js}}", named(".js"));
await writeFile(path.join(out, "index.html"), page);
