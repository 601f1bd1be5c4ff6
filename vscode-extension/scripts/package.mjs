// Builds one platform-specific .vsix per VS Code target: each carries the server and its
// libraries (bundled/libs, filled by scripts/bundle_server.py) with the xxhash binaries of
// that platform for every supported CPython. `node scripts/package.mjs linux-x64` builds one.
// Only platforms the server runs on: on Windows, VS Code runs the Linux package inside WSL.
// Waymark's own compiled core ships only in the package of the build machine's target, for
// its Python (scripts/bundle_server.py says which); the other packages run its pure-Python path.
import { execFileSync } from "node:child_process";
import { readFileSync, statSync } from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";

export const TARGETS = ["linux-x64", "linux-arm64", "darwin-x64", "darwin-arm64"];

const extensionRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const python = process.env.PYTHON ?? "python3";
const requested = process.argv.slice(2);
const unknown = requested.filter((t) => !TARGETS.includes(t));
if (unknown.length > 0) {
  console.error(`unknown target(s) ${unknown.join(", ")}; known: ${TARGETS.join(", ")}`);
  process.exit(2);
}
// The README's pictures live in the repository's docs/images (../docs/images from here): vsce
// turns relative links into links at this folder of the repository, where ".." still resolves.
const repository = JSON.parse(readFileSync(path.join(extensionRoot, "package.json"), "utf8")).repository;
const repoUrl = repository.url.replace(/\.git$/, "");
const links = ["--baseImagesUrl", `${repoUrl}/raw/HEAD/${repository.directory}`, "--baseContentUrl", `${repoUrl}/blob/HEAD/${repository.directory}`];
const run = (command, args) => execFileSync(command, args, { cwd: extensionRoot, stdio: "inherit" });
// Linux libraries are stripped with binutils of their architecture: a machine without the
// other architecture's builds what it can and says what it skipped (and how to build it); a
// target asked for by name fails before anything is built.
const missing = new Map();
for (const target of requested.length > 0 ? requested : TARGETS) {
  try {
    execFileSync(python, ["../scripts/bundle_server.py", "--target", target, "--check-tools"], { cwd: extensionRoot, stdio: ["ignore", "ignore", "pipe"] });
  } catch (error) {
    missing.set(target, String(error.stderr ?? error).trim());
  }
}
if (requested.length > 0 && missing.size > 0) {
  console.error([...missing.values()].join("\n"));
  process.exit(1);
}
for (const target of TARGETS.filter((t) => (requested.length > 0 ? requested.includes(t) : !missing.has(t)))) {
  const out = `dist/waymark-${target}.vsix`;
  run(python, ["../scripts/bundle_server.py", "--target", target]);
  run("npx", ["--no-install", "vsce", "package", "--no-dependencies", "--allow-missing-repository", "--target", target, ...links, "-o", out]);
  console.log(`${out}: ${statSync(path.join(extensionRoot, out)).size} bytes`);
}
for (const reason of missing.values()) {
  console.log(`skipped: ${reason}`);
}
