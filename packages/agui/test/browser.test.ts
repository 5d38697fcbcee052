import { existsSync, mkdirSync } from 'node:fs';
import { ConversationId } from '@agdx/wire';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import { newLog, writeAnswer } from './support/scenario.js';
import { sleep, startServer } from './support/server.js';

const CHROMIUM = '/usr/bin/chromium';
const LAUNCH_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const RESULTS = new URL('../../../.test-results/', import.meta.url);

let browser: Browser | undefined;
afterAll(async () => {
  await browser?.close();
});

describe('example page in headless Chromium', () => {
  // .ci/run installs it from Debian; a machine without it must fail here, not skip quietly.
  it('finds Chromium', () => {
    expect(existsSync(CHROMIUM), `${CHROMIUM} is missing (Debian package chromium: apt-get install -y chromium)`).toBe(true);
  });

  it('says plainly when a thread id is bad, or the server refuses the thread, and asks for no favicon', { timeout: 60_000 }, async () => {
    const { bridge } = await newLog();
    const refusing = bridge.handler({ topic: 'no.such.topic' });
    const server = await startServer(refusing);
    const notFound: string[] = [];
    try {
      browser = await chromium.launch({ executablePath: CHROMIUM, args: LAUNCH_ARGS });
      const page = await browser.newPage();
      page.on('response', (response) => {
        if (response.status() >= 400 && !response.url().includes('/agui')) notFound.push(response.url());
      });
      // The server decides what a thread id is (400 here); the page shows its answer.
      await page.goto(`${server.url}/?threadId=not-a-thread`);
      await page.waitForFunction(() => document.getElementById('problem')?.classList.contains('shown') === true, undefined, { timeout: 20_000 });
      expect(await page.locator('#problem').innerText()).toBe('The server refused this thread (HTTP 400): threadId must be a conversation id (26 Crockford characters)');
      expect(await page.locator('#run-status').innerText()).toBe('bad thread id');
      expect(await page.locator('#connection').innerText()).toBe('refused');

      // A well-formed id the server refuses (here: the topic does not exist, 404).
      await page.goto(`${server.url}/?threadId=${ConversationId.new()}`);
      await page.waitForFunction(() => document.getElementById('connection')?.textContent === 'refused', undefined, { timeout: 20_000 });
      await page.waitForFunction(() => document.getElementById('problem')?.classList.contains('shown') === true);
      expect(await page.locator('#problem').innerText()).toContain('The server refused this thread (HTTP 404)');
      expect(notFound).toEqual([]);
    } finally {
      await browser?.close();
      browser = undefined;
      await server.close();
    }
  });

  it('renders a live conversation: reasoning, tool call and result, answer, state and run status', { timeout: 60_000 }, async () => {
    const { laser, bridge } = await newLog();
    const server = await startServer(bridge.handler({ keepaliveMs: 1_000 }));
    try {
      browser = await chromium.launch({ executablePath: CHROMIUM, args: LAUNCH_ARGS });
      const page = await browser.newPage({ viewport: { width: 1100, height: 640 } });
      const conversation = ConversationId.new();
      await page.goto(`${server.url}/?threadId=${conversation}`);
      await page.waitForFunction(() => document.getElementById('connection')?.textContent === 'live');
      // The page is already connected: everything below arrives live.
      const { correlation } = await writeAnswer(laser, bridge, conversation, () => sleep(5));
      await page.waitForFunction(() => document.getElementById('run-status')?.textContent === 'finished', undefined, { timeout: 20_000 });
      const conversationText = await page.locator('#messages').innerText();
      expect(conversationText).toContain('The user wants the weather.');
      expect(conversationText).toContain('TOOL CALL: WEATHER');
      expect(conversationText).toContain('{"city":"Oslo"}');
      expect(conversationText).toContain('{"temp":21}');
      expect(conversationText).toContain('It is 21 °C in Oslo.');
      expect(conversationText.indexOf('The user wants')).toBeLessThan(conversationText.indexOf('It is 21 °C'));
      expect(JSON.parse(await page.locator('#state').innerText())).toEqual({ step: 'done', count: 1 });
      expect(await page.locator('.open').count()).toBe(0);
      expect(await page.locator('#thread').innerText()).toBe(conversation.toString());
      expect(correlation).toBeDefined();
      mkdirSync(RESULTS, { recursive: true });
      await page.screenshot({ path: new URL('agui-live.png', RESULTS).pathname, fullPage: true });
      expect(existsSync(new URL('agui-live.png', RESULTS))).toBe(true);
    } finally {
      await browser?.close();
      browser = undefined;
      await server.close();
    }
  });

  it('reconnects after a dropped connection and resumes from Last-Event-ID without repeating text', { timeout: 60_000 }, async () => {
    const { laser, bridge } = await newLog();
    const requests: (string | null)[] = [];
    const handler = bridge.handler({ keepaliveMs: 1_000, retryMs: 100 });
    const server = await startServer(async (request) => {
      requests.push(request.headers.get('last-event-id'));
      return handler(request);
    });
    try {
      browser = await chromium.launch({ executablePath: CHROMIUM, args: LAUNCH_ARGS });
      const page = await browser.newPage({ viewport: { width: 1100, height: 640 } });
      const conversation = ConversationId.new();
      await page.goto(`${server.url}/?threadId=${conversation}`);
      await page.waitForFunction(() => document.getElementById('connection')?.textContent === 'live');
      let step = 0;
      let release: () => void = () => undefined;
      const gate = new Promise<void>((resolve) => (release = resolve));
      const writing = writeAnswer(laser, bridge, conversation, async () => {
        step += 1;
        if (step === 6) await gate; // after the tool call's first argument chunk
      });
      await page.waitForFunction(() => document.getElementById('messages')?.innerText.includes('{"city":') === true);
      server.dropConnections();
      await page.waitForFunction(() => document.getElementById('connection')?.textContent === 'reconnecting');
      release();
      await writing;
      await page.waitForFunction(() => document.getElementById('run-status')?.textContent === 'finished', undefined, { timeout: 20_000 });
      const text = await page.locator('#messages').innerText();
      const count = (needle: string): number => text.split(needle).length - 1;
      expect(count('The user wants the weather.')).toBe(1);
      expect(count('{"city":"Oslo"}')).toBe(1);
      expect(count('It is 21 °C in Oslo.')).toBe(1);
      expect(JSON.parse(await page.locator('#state').innerText())).toEqual({ step: 'done', count: 1 });
      // The page's EventSource came back with the last position it had seen.
      const resumedWith = requests.filter((id) => id !== null);
      expect(resumedWith.length).toBeGreaterThan(0);
      expect(resumedWith[0]).toMatch(/^\d+:\d+$/);
    } finally {
      await browser?.close();
      browser = undefined;
      await server.close();
    }
  });
});

