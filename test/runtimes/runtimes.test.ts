/**
 * The runtime matrix: the one smoke suite (smoke.ts) against the built packages in Node, Deno,
 * Bun, workerd and headless Chromium. A runtime that is missing fails its test; none is skipped,
 * because "runs everywhere" is only worth saying when each place is really tried.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildSmokeBundles, outDir, root } from './bundles.js';
import { lastJson, runToEnd, startWorkerd } from './processes.js';
import { bridgeChecks, type SmokeResult } from './smoke.js';

const BIN = `${root}node_modules/.bin/`;
const CHROMIUM = '/usr/bin/chromium';
const RUN_TIMEOUT_MS = 120_000;
const versions: Record<string, string> = {};
let bundles: Awaited<ReturnType<typeof buildSmokeBundles>>;

beforeAll(async () => {
  bundles = await buildSmokeBundles();
}, 120_000);

afterAll(() => {
  // The versions tested, for the README's compatibility table.
  writeFileSync(`${outDir}versions.json`, `${JSON.stringify(versions, null, 2)}\n`);
});

/** Fails with every failed check's name and detail, so the runtime's own error is in the report. */
function expectAllPassed(results: SmokeResult[], minimum: number): void {
  const failed = results.filter((r) => !r.ok).map((r) => `${r.name}: ${r.detail}`);
  expect(failed).toEqual([]);
  expect(results.length).toBeGreaterThanOrEqual(minimum);
}

async function version(command: string, args: string[]): Promise<string> {
  const out = await runToEnd(command, args, { cwd: root, timeoutMs: 60_000 });
  if (out.code !== 0) throw new Error(`${command} ${args.join(' ')} failed (${out.code}): ${out.stderr}`);
  return out.stdout.trim().split('\n')[0] ?? '';
}

describe.concurrent('the smoke suite in each runtime', () => {
  it('Node', { timeout: RUN_TIMEOUT_MS }, async () => {
    versions.node = process.version;
    const out = await runToEnd(process.execPath, [bundles.cli], { cwd: root, timeoutMs: RUN_TIMEOUT_MS });
    expectAllPassed(lastJson<{ results: SmokeResult[] }>(out).results, 7);
  });

  it('Deno', { timeout: RUN_TIMEOUT_MS }, async () => {
    expect(existsSync(`${BIN}deno`), 'the npm package deno is not installed (pnpm install)').toBe(true);
    versions.deno = await version(`${BIN}deno`, ['--version']);
    // No permissions at all: the packages need no file, network or environment access.
    const out = await runToEnd(`${BIN}deno`, ['run', '--no-prompt', '--node-modules-dir=manual', bundles.cli], { cwd: root, timeoutMs: RUN_TIMEOUT_MS, env: { ...process.env, NO_COLOR: '1' } });
    expectAllPassed(lastJson<{ results: SmokeResult[] }>(out).results, 7);
  });

  it('Bun', { timeout: RUN_TIMEOUT_MS }, async () => {
    expect(existsSync(`${BIN}bun`), 'the npm package bun is not installed (pnpm install)').toBe(true);
    versions.bun = await version(`${BIN}bun`, ['--version']);
    const out = await runToEnd(`${BIN}bun`, [bundles.cli], { cwd: root, timeoutMs: RUN_TIMEOUT_MS });
    expectAllPassed(lastJson<{ results: SmokeResult[] }>(out).results, 7);
  });

  it('workerd, with the bridges served as the Worker fetch handler and called from Node', { timeout: RUN_TIMEOUT_MS }, async () => {
    expect(existsSync(`${BIN}workerd`), 'the npm package workerd is not installed (pnpm install)').toBe(true);
    versions.workerd = await version(`${BIN}workerd`, ['--version']);
    // No nodejs_compat flag: the packages must run on the Workers platform alone.
    const config = `${outDir}workerd.capnp`;
    writeFileSync(
      config,
      [
        'using Workerd = import "/workerd/workerd.capnp";',
        'const config :Workerd.Config = (',
        '  services = [ (name = "main", worker = .smokeWorker) ],',
        '  sockets = [ (name = "http", address = "127.0.0.1:0", http = (), service = "main") ],',
        ');',
        'const smokeWorker :Workerd.Worker = (',
        '  modules = [ (name = "worker.mjs", esModule = embed "worker.mjs") ],',
        '  compatibilityDate = "2025-09-01",',
        ');',
      ].join('\n'),
    );
    const server = await startWorkerd(`${BIN}workerd`, config, outDir, 60_000);
    try {
      const base = `http://127.0.0.1:${server.port}`;
      const inWorker = (await (await fetch(`${base}/smoke`)).json()) as { results: SmokeResult[] };
      const overHttp = await bridgeChecks((path, init) => fetch(`${base}${path}`, init));
      expectAllPassed([...inWorker.results, ...overHttp], 7);
    } catch (error) {
      throw new Error(`${String(error)}\nworkerd stderr:\n${server.stderr()}`);
    } finally {
      server.child.kill('SIGTERM');
    }
  });

  it('headless Chromium, the packages bundled by esbuild', { timeout: RUN_TIMEOUT_MS }, async () => {
    // .ci/run installs Debian's chromium; a machine without it must fail here, not skip.
    expect(existsSync(CHROMIUM), `${CHROMIUM} is missing (apt-get install -y chromium)`).toBe(true);
    versions.chromium = await version(CHROMIUM, ['--version']);
    // Served from 127.0.0.1, a secure context, so WebCrypto is there as on a real HTTPS page.
    const script = readFileSync(bundles.browser);
    const server: Server = createServer((request, response) => {
      if (request.url === '/smoke.js') response.writeHead(200, { 'content-type': 'text/javascript' }).end(script);
      else response.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>smoke</title><script src="/smoke.js"></script>');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'] });
    try {
      const page = await browser.newPage();
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(error.message));
      await page.goto(`http://127.0.0.1:${port}/`);
      const results = await page.evaluate(() => (globalThis as unknown as { agdxSmoke: () => Promise<SmokeResult[]> }).agdxSmoke());
      expect(errors).toEqual([]);
      expectAllPassed(results, 7);
    } finally {
      await browser.close();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
