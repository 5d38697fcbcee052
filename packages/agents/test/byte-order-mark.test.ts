/**
 * A TextDecoder drops a leading U+FEFF unless it is built with `ignoreBOM`. Agent ids and
 * processed keys are text compared as sent, so one that starts with the mark is another id or key;
 * the JSON layout declaration is still read when a writer put a byte order mark before it.
 */
import { AgdxClient, decodeLayoutDeclaration, encodeLayoutDeclaration, LogProcessedKeyStore, quarantine, readQuarantine, type StreamLayout } from '@agdx/agents';
import { MemoryLog } from '@agdx/transport';
import { AgentId } from '@agdx/wire';
import { describe, expect, it } from 'vitest';
import { harness, STREAM } from './support-runtime/harness.js';

const BOM = '\ufeff';

describe('a leading U+FEFF is kept', () => {
  it('a quarantine fact naming an agent with a leading U+FEFF quarantines that agent, not the one without it', async () => {
    const log = new MemoryLog();
    const laser = AgdxClient.from(log, { stream: 'trust' });
    await laser.bootstrap(2);
    await quarantine(laser, `${BOM}rogue`, { operator: 'ops' });
    await quarantine(laser, AgentId.parse(`mid${BOM}dle`), { operator: 'ops' });
    const view = await readQuarantine(laser);
    expect([...view.quarantined].sort()).toEqual([`${BOM}rogue`, `mid${BOM}dle`].sort());
    expect(view.isQuarantined('rogue')).toBe(false);
    expect(view.isQuarantined(`${BOM}rogue`)).toBe(true);
  });

  it('the log-backed processed-key store folds a key with a leading U+FEFF back as that key', async () => {
    const h = await harness();
    const store = await LogProcessedKeyStore.open(h.log, { stream: STREAM, namespace: 'payer' });
    await store.add(`${BOM}k1`);
    await store.add(`k${BOM}2`);
    const reopened = await LogProcessedKeyStore.open(h.log.connect(), { stream: STREAM, namespace: 'payer' });
    expect([reopened.has(`${BOM}k1`), reopened.has('k1'), reopened.has(`k${BOM}2`)]).toEqual([true, false, true]);
    // a namespace that starts with the mark is another namespace
    const marked = await LogProcessedKeyStore.open(h.log.connect(), { stream: STREAM, namespace: `${BOM}payer` });
    expect(marked.size).toBe(0);
  });
});

describe('the layout declaration (JSON) with and without a byte order mark', () => {
  const layout: StreamLayout = { kind: 'perAgentTopic', topics: new Map([[`${BOM}model`, 'agent.model'], ['tools', 'agent.tools']]) };

  it('round-trips, an agent named with a leading U+FEFF included', () => {
    expect(decodeLayoutDeclaration(encodeLayoutDeclaration(layout))).toEqual(layout);
  });

  it('a document written with a leading byte order mark is read as the same layout', () => {
    const bytes = encodeLayoutDeclaration(layout);
    const marked = new Uint8Array([0xef, 0xbb, 0xbf, ...bytes]);
    expect(decodeLayoutDeclaration(marked)).toEqual(layout);
  });

  it('a U+FEFF before the document that is not its first character is not JSON: the declaration is ignored', () => {
    const marked = new Uint8Array([0x20, 0xef, 0xbb, 0xbf, ...encodeLayoutDeclaration(layout)]);
    expect(decodeLayoutDeclaration(marked)).toBeUndefined();
  });
});
