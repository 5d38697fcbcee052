/**
 * `agdx demo --serve` and its AG-UI live page in headless Chromium: the whole demo conversation
 * (the user's question, the planner's step, reasoning, the tool call and result, the human
 * approval, the state and the answer) is rendered, and a bad thread id shows the server's error.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { runDemo } from '@agdx/cli';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const CHROMIUM = '/usr/bin/chromium';
const LAUNCH_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const RESULTS = new URL('../../../.test-results/', import.meta.url);

const stop = new AbortController();
let demo: Promise<void> | undefined;
let pageUrl = '';
let browser: Browser | undefined;

/** Runs the demo with --serve on the embedded log until `stop` fires; resolves the page URL once it is served. */
async function serveDemo(): Promise<string> {
  let out = '';
  let found: (url: string) => void = () => undefined;
  const url = new Promise<string>((resolve) => (found = resolve));
  const sink = {
    write(text: string) {
      out += text;
      const match = /AG-UI live page\s+(\S+)/.exec(out);
      if (match?.[1] !== undefined) found(match[1]);
    },
  };
  demo = runDemo({ serve: true }, { out: sink, err: sink, signal: stop.signal, isTty: false });
  return Promise.race([url, demo.then(() => Promise.reject(new Error(`the demo ended without serving:\n${out}`)))]);
}

beforeAll(async () => {
  pageUrl = await serveDemo();
}, 90_000);

afterAll(async () => {
  await browser?.close();
  stop.abort();
  await demo;
});

async function launch(): Promise<Browser> {
  browser ??= await chromium.launch({ executablePath: CHROMIUM, args: LAUNCH_ARGS });
  return browser;
}

describe('agdx demo --serve: the AG-UI live page in headless Chromium', () => {
  // .ci/run installs it from Debian; a machine without it must fail here, not skip quietly.
  it('finds Chromium', () => {
    expect(existsSync(CHROMIUM), `${CHROMIUM} is missing (Debian package chromium: apt-get install -y chromium)`).toBe(true);
  });

  it('renders every turn of the demo conversation and the run as finished', { timeout: 60_000 }, async () => {
    const page = await (await launch()).newPage({ viewport: { width: 1100, height: 900 } });
    const failures: string[] = [];
    page.on('response', (response) => {
      if (response.status() >= 400) failures.push(`${response.status()} ${response.url()}`);
    });
    await page.goto(pageUrl);
    await page.waitForFunction(() => document.getElementById('run-status')?.textContent === 'finished', undefined, { timeout: 30_000 });
    const items = await page.locator('#messages .item').evaluateAll((nodes) =>
      nodes.map((node) => ({ kind: node.className.replace(/\bitem\b/, '').trim(), label: node.querySelector('.label')?.textContent ?? '', text: node.querySelector('.body')?.textContent ?? '' })),
    );
    const at = (kind: string, label: string | RegExp, text: string | RegExp): number => {
      const index = items.findIndex((i) => i.kind === kind && (typeof label === 'string' ? i.label === label : label.test(i.label)) && (typeof text === 'string' ? i.text === text : text.test(i.text)));
      expect(index, `no ${kind} "${String(label)}" with "${String(text)}" in ${JSON.stringify(items, null, 1)}`).toBeGreaterThanOrEqual(0);
      return index;
    };
    // In the conversation's order: question, the planner's step, reasoning, tool call and result,
    // the approval asked and given, the streamed answer, the replies that end the turn.
    const order = [
      at('user', 'user · operator', 'incident 42'),
      at('command', 'step · planner → worker · summarize', 'summarize: incident 42'),
      at('reasoning', 'reasoning', /^Incident 42 mentions login failures; .*before summarizing\.$/),
      at('tool', 'tool call: search_incidents', '{"incident":42}'),
      at('result', 'tool result', /"topHit":"certificate expired on auth-2"/),
      at('approval', 'input requested · worker → approver', 'publish the incident 42 summary to #incidents?'),
      at('approval', 'human input · approver', 'approved'),
      at('text', 'assistant', 'Incident 42 is a login bug caused by an expired certificate; it is fixed and verified.'),
      at('reply', 'reply · worker → planner', /^Incident 42 is a login bug/),
      at('reply', 'reply · planner → operator', /^Incident 42 is a login bug/),
    ];
    expect(order).toEqual([...order].sort((a, b) => a - b));
    expect(JSON.parse(await page.locator('#state').innerText())).toEqual({ incident: 42, status: 'summarized', approvedBy: 'approver' });
    expect(await page.locator('#connection').innerText()).toBe('live');
    expect(await page.locator('#problem').isVisible()).toBe(false);
    expect(await page.locator('.open').count()).toBe(0);
    // The page, its script and the favicon the browser asks for: nothing answered with an error.
    const favicon = await page.request.get(new URL('/favicon.ico', pageUrl).toString());
    expect(favicon.status()).toBe(204);
    expect(failures).toEqual([]);
    mkdirSync(RESULTS, { recursive: true });
    await page.screenshot({ path: new URL('agui-live-demo.png', RESULTS).pathname, fullPage: true });
    await page.close();
  });

  it('shows the server’s error for a bad thread id instead of reconnecting', { timeout: 60_000 }, async () => {
    const page = await (await launch()).newPage();
    const bad = new URL(pageUrl);
    bad.searchParams.set('threadId', 'not-a-thread');
    await page.goto(bad.toString());
    await page.waitForFunction(() => document.getElementById('problem')?.classList.contains('shown') === true, undefined, { timeout: 30_000 });
    expect(await page.locator('#problem').innerText()).toBe('The server refused this thread (HTTP 400): threadId must be a conversation id (26 Crockford characters)');
    expect(await page.locator('#connection').innerText()).toBe('refused');
    expect(await page.locator('#run-status').innerText()).toBe('bad thread id');
    await page.close();
  });
});
