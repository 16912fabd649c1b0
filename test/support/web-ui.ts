// The Temporal Web UI in a real browser (V1): Debian's Chromium (scripts/ensure-browser)
// driven by playwright-core, against the jest run's dev server, whose UI global-setup starts.
import { execFileSync } from 'node:child_process';
import * as path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';

export function webUiUrl(): string {
  const url = process.env.REPLANNER_TEST_UI_URL;
  if (!url) {
    throw new Error(
      "REPLANNER_TEST_UI_URL is not set: the jest global setup sets it for the dev server it starts; with your own TEMPORAL_ADDRESS, set it to that server's Web UI (e.g. http://localhost:8233)",
    );
  }
  return url;
}

/** The browser's path; throws with ensure-browser's reason when there is none (never a silent pass). */
export function browserPath(): string {
  const root = path.resolve(__dirname, '../..');
  return execFileSync('bash', [path.join(root, 'scripts/ensure-browser')], { encoding: 'utf8' }).trim();
}

export async function launchBrowser(): Promise<Browser> {
  // --no-sandbox: Chromium's own sandbox needs user namespaces it cannot get as root in a container.
  return chromium.launch({ executablePath: browserPath(), args: ['--no-sandbox', '--disable-dev-shm-usage'] });
}

/**
 * The text a person sees on the page: the page's own text and that of every frame (the Web UI
 * renders Markdown details in sandboxed iframes).
 */
export async function visibleText(page: Page): Promise<string> {
  const parts: string[] = [];
  for (const frame of page.frames()) {
    try {
      // A string expression: the test code is compiled without the DOM's types.
      parts.push(String(await frame.evaluate('document.documentElement.innerText')));
    } catch {
      /* a frame that went away while reading */
    }
  }
  // The UI's Markdown renderer sets "2/2" with a fraction slash (U+2044): read it as a person does.
  return parts.join('\n').replace(/\u2044/g, '/');
}

/** Waits until the page (frames included) shows every one of `texts`; returns the text seen. */
export async function waitForText(page: Page, texts: readonly string[], timeoutMs = 30_000): Promise<string> {
  const end = Date.now() + timeoutMs;
  let seen = '';
  for (;;) {
    seen = await visibleText(page);
    if (texts.every((t) => seen.includes(t))) return seen;
    if (Date.now() > end) {
      const missing = texts.filter((t) => !seen.includes(t));
      throw new Error(`the Web UI page did not show ${JSON.stringify(missing)} within ${timeoutMs} ms; it showed:\n${seen.slice(0, 4000)}`);
    }
    await page.waitForTimeout(500);
  }
}

/** Opens a workflow's page on one of its tabs ("User Metadata", "Memo", …). */
export async function openWorkflowTab(page: Page, workflowId: string, tab: string): Promise<void> {
  await page.goto(`${webUiUrl()}/namespaces/default/workflows/${encodeURIComponent(workflowId)}`, { waitUntil: 'domcontentloaded' });
  await page
    .getByRole('link', { name: tab, exact: true })
    .or(page.getByRole('tab', { name: tab, exact: true }))
    .first()
    .click();
}
