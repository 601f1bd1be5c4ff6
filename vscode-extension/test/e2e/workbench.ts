/** Driving the VS Code workbench in a browser page: the palette, quick picks, editors. */
import type { Locator, Page } from "playwright-core";

export const QUICK_INPUT = ".quick-input-widget";

/**
 * Contributed commands reach the palette only once the extension host has registered the
 * extension, some seconds after the workbench is visible, so the palette is retried.
 */
export async function runPaletteCommand(page: Page, title: string, timeout = 60_000): Promise<void> {
  const deadline = Date.now() + timeout;
  const input = page.locator(`${QUICK_INPUT} .quick-input-box input`);
  for (;;) {
    await page.keyboard.press("F1");
    await input.waitFor({ state: "visible", timeout: 15_000 });
    await page.keyboard.type(title, { delay: 5 });
    const row = quickPickRow(page, title);
    try {
      await row.waitFor({ state: "visible", timeout: 3_000 });
      await row.click();
      return;
    } catch (error) {
      if (Date.now() > deadline) {
        throw error;
      }
      await page.keyboard.press("Escape");
    }
  }
}

/** Waits for a quick-pick row containing `text`, then selects it with the keyboard. */
export async function pickRow(page: Page, text: string, timeout = 30_000): Promise<void> {
  const row = quickPickRow(page, text);
  await row.waitFor({ state: "visible", timeout });
  await row.click();
}

export function quickPickRow(page: Page, text: string): Locator {
  return page.locator(`${QUICK_INPUT} .monaco-list-row`).filter({ hasText: text }).first();
}

export async function waitForQuickInputClosed(page: Page): Promise<void> {
  await page.locator(QUICK_INPUT).waitFor({ state: "hidden", timeout: 15_000 });
}

export async function waitForWorkbench(page: Page): Promise<void> {
  await page.locator(".monaco-workbench").waitFor({ state: "visible", timeout: 90_000 });
  await page.locator(".statusbar").waitFor({ state: "visible", timeout: 90_000 });
}

export async function notificationText(page: Page, contains: string, timeout = 30_000): Promise<string> {
  const toast = page.locator(".notification-toast").filter({ hasText: contains }).first();
  await toast.waitFor({ state: "visible", timeout });
  return (await toast.innerText()).trim();
}
