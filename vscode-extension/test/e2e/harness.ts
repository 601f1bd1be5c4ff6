/** What both code-server e2e runs share: paths, the step log, and small waits. */
import { copyFileSync, existsSync, readdirSync, readFileSync } from "node:fs";
import { createServer } from "node:net";
import * as path from "node:path";

import type { Page } from "playwright-core";

import { resolveExecutable } from "../../src/launchCheck";

export const EXTENSION_ROOT = path.resolve(__dirname, "../../..");
export const ARTIFACTS = path.join(EXTENSION_ROOT, "test-artifacts");
export const VSIX = path.join(EXTENSION_ROOT, `dist/waymark-${process.platform}-${process.arch}.vsix`);
export const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
];
export interface Step {
  name: string;
  ok: boolean;
  ms: number;
  detail?: string;
}

export const steps: Step[] = [];
export const started = Date.now();

export async function step<T>(name: string, work: () => Promise<T>): Promise<T> {
  const begin = Date.now();
  try {
    const value = await work();
    steps.push({ name, ok: true, ms: Date.now() - begin });
    console.log(`  ✔ ${name} (${Date.now() - begin} ms)`);
    return value;
  } catch (error) {
    const detail = error instanceof Error ? error.message.split("\n")[0] : String(error);
    steps.push({ name, ok: false, ms: Date.now() - begin, detail });
    console.log(`  ✘ ${name}: ${detail}`);
    throw error;
  }
}

export function requireTool(command: string, why: string): string {
  const found = resolveExecutable(command, process.env.PATH);
  if (!found) {
    throw new Error(`${command} is not on PATH: ${why}`);
  }
  return found;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => (typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port"))));
    });
  });
}

export async function waitFor(what: string, check: () => boolean | Promise<boolean>, timeout: number): Promise<void> {
  const deadline = Date.now() + timeout;
  while (Date.now() < deadline) {
    if (await check()) {
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`timed out after ${timeout} ms waiting for ${what}`);
}

/** The repository's docs/images: pictures the docs and the extension README show. */
export const DOCS_IMAGES = path.resolve(EXTENSION_ROOT, "../docs/images");

/** Set to 1 to refresh the docs' pictures from a run; otherwise a run leaves the tree clean. */
export const UPDATE_DOCS_IMAGES = "WAYMARK_UPDATE_DOCS_IMAGES";

/**
 * Saves `name` in the test artifacts (gitignored) and, given `docsName` and only when
 * WAYMARK_UPDATE_DOCS_IMAGES=1, as docs/images/`docsName` too.
 */
export async function screenshot(page: Page, name: string, docsName?: string): Promise<string> {
  const file = path.join(ARTIFACTS, name);
  await page.screenshot({ path: file });
  if (docsName && process.env[UPDATE_DOCS_IMAGES] === "1") {
    copyFileSync(file, path.join(DOCS_IMAGES, docsName));
  }
  return file;
}

export function waymarkLogs(userDataDir: string): string {
  const found: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        walk(full);
      } else if (/Waymark\.log$/.test(entry.name)) {
        found.push(readFileSync(full, "utf8"));
      }
    }
  };
  if (existsSync(path.join(userDataDir, "logs"))) {
    walk(path.join(userDataDir, "logs"));
  }
  return found.join("\n");
}

