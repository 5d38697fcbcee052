/** Small helpers the conformance suite shares. None depends on a particular transport. */

import { expect } from 'vitest';
import type { GroupMember, LogTransport } from '../log-transport.js';

const BRAND = Symbol.for('agdx.error');

/** True when `error` carries the AGDX brand and the given kind (from any package's error class). */
export function isKind(error: unknown, kind: string): boolean {
  return (
    typeof error === 'object' &&
    error !== null &&
    (error as Record<symbol, unknown>)[BRAND] === true &&
    (error as { kind?: unknown }).kind === kind
  );
}

function show(error: unknown): string {
  if (error instanceof Error) return `${error.name} (${String((error as { kind?: unknown }).kind)}): ${error.message}`;
  return String(error);
}

/** Runs `action` and expects it to fail with a branded error of `kind` (a sync throw counts too). */
export async function expectKind(kind: string, action: () => unknown): Promise<unknown> {
  let failure: unknown;
  let failed = false;
  try {
    await action();
  } catch (error) {
    failed = true;
    failure = error;
  }
  expect(failed, `expected a '${kind}' error, but the call succeeded`).toBe(true);
  expect(isKind(failure, kind), `expected a '${kind}' error, got ${show(failure)}`).toBe(true);
  return failure;
}

/** Resolves after `ms` milliseconds. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** A fresh name, so tests never collide on a shared server. */
export function uniqueName(prefix: string): string {
  return `${prefix}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}`;
}

/** Bytes of a short text payload. */
export function text(value: string): Uint8Array {
  return new TextEncoder().encode(value);
}

// One decoder for the suite; ignoreBOM so a payload reads back exactly, a leading U+FEFF included.
const utf8 = new TextDecoder('utf-8', { ignoreBOM: true });

/** A payload's text (a leading U+FEFF is kept). */
export function untext(bytes: Uint8Array): string {
  return utf8.decode(bytes);
}

/** A stream plus a topic with `partitions` partitions, freshly named. */
export async function freshTopic(
  transport: LogTransport,
  partitions: number,
  messageExpiryMicros?: bigint,
): Promise<{ stream: string; topic: string }> {
  const stream = uniqueName('conf');
  const topic = 'events';
  await transport.ensureStream(stream);
  await transport.ensureTopic({ stream, topic }, { partitions, messageExpiryMicros });
  return { stream, topic };
}

/**
 * Reads every member's assignment until they form a partition of `0..count-1` (each partition
 * owned by exactly one member) or `deadlineMs` passes; returns the last assignments seen.
 * Rebalancing may settle asynchronously on a server, so this waits instead of failing at once.
 */
export async function settledAssignments(
  members: readonly GroupMember[],
  count: number,
  deadlineMs = 5000,
): Promise<number[][]> {
  const until = Date.now() + deadlineMs;
  for (;;) {
    const assignments = await Promise.all(members.map(async (m) => [...(await m.assignment())]));
    const all = assignments.flat().sort((a, b) => a - b);
    const exact = all.length === count && all.every((p, i) => p === i);
    if (exact || Date.now() > until) return assignments;
    await sleep(25);
  }
}

/** Expects `assignments` to cover `0..count-1` exactly once. */
export function expectExactCover(assignments: readonly (readonly number[])[], count: number): void {
  const all = assignments.flat().sort((a, b) => a - b);
  expect(all).toEqual(Array.from({ length: count }, (_, i) => i));
}

/** CPU time used by this process so far, in microseconds, when the runtime can tell. */
export function cpuMicros(): number | undefined {
  const proc = (globalThis as { process?: { cpuUsage?: () => { user: number; system: number } } }).process;
  if (typeof proc?.cpuUsage !== 'function') return undefined;
  const usage = proc.cpuUsage();
  return usage.user + usage.system;
}

/** Re-checks `condition` every 25 ms until it holds (`true`) or `deadlineMs` passes (`false`). */
export async function eventually(condition: () => Promise<boolean>, deadlineMs = 5000): Promise<boolean> {
  const until = Date.now() + deadlineMs;
  for (;;) {
    if (await condition()) return true;
    if (Date.now() > until) return false;
    await sleep(25);
  }
}
