import { describe, expect, it } from 'vitest';
import { connect } from 'node:net';
import { CommandCode, initChecksums } from '@agdx/iggy-protocol';
import { DevServerError, LIMIT_FLAGS, limitOptionsFromFlags, startDevServer } from '@agdx/iggy-dev-server';
import type { DevServerOptions } from '@agdx/iggy-dev-server';
import { RawClient } from './helpers/raw-client.js';

describe('startDevServer options', () => {
  it.each<[string, DevServerOptions]>([
    ['a negative port', { port: -1 }],
    ['a port above 65535', { port: 70_000 }],
    ['a fractional port', { port: 1.5 }],
    ['a short user name', { user: 'ab' }],
    ['a long password', { password: 'x'.repeat(101) }],
    ['an unknown fsync policy', { fsync: 'sometimes' as never }],
    ['an empty data path', { data: '' }],
    ['a zero in-flight limit', { maxInFlight: 0 }],
    ['an empty token', { tokens: [''] }],
    ['a zero pre-login timeout', { preLoginTimeoutMs: 0 }],
    ['a negative idle timeout', { idleTimeoutMs: -1 }],
    ['a pre-login buffer below 512 bytes', { preLoginBufferBytes: 100 }],
    ['zero login failures per connection', { loginFailuresPerConnection: 0 }],
    ['a fractional login failures per address', { loginFailuresPerAddress: 2.5 }],
    ['a zero lockout', { loginLockoutMs: 0 }],
    ['a negative failure delay', { loginFailureDelayMs: -5 }],
  ])('refuses %s with an invalid DevServerError', async (_, options) => {
    await expect(startDevServer(options)).rejects.toSatisfy((e: unknown) => DevServerError.is(e, 'invalid') && e instanceof DevServerError);
  });

  it('listens on an ephemeral loopback port by default, with iggy/iggy, and closes idempotently with await using', async () => {
    await initChecksums();
    let port = 0;
    {
      await using server = await startDevServer();
      port = server.port;
      expect(server.host).toBe('127.0.0.1');
      expect(server.port).toBeGreaterThan(0);
      expect(server.url).toBe(`iggy://iggy:iggy@127.0.0.1:${server.port}`);
      expect(server.storage).toBe('memory');
      const c = await RawClient.connect(server.port, 'vsr');
      expect((await c.login('iggy', 'iggy')).ok).toBe(true);
      c.close();
      await server.close();
    }
    const refused = await new Promise<boolean>((resolve) => {
      const s = connect({ host: '127.0.0.1', port }, () => {
        s.destroy();
        resolve(false);
      });
      s.once('error', () => resolve(true));
    });
    expect(refused).toBe(true);
  });

  it('accepts configured credentials and personal access tokens, and encodes them in the URL', async () => {
    await using server = await startDevServer({ user: 'dev@team', password: 'p:ss/word', tokens: ['token-abc'] });
    expect(server.url).toBe(`iggy://dev%40team:p%3Ass%2Fword@127.0.0.1:${server.port}`);
    const classic = await RawClient.connect(server.port, 'classic');
    expect((await classic.login('iggy', 'iggy')).ok).toBe(false);
    expect((await classic.login('dev@team', 'p:ss/word')).ok).toBe(true);
    classic.close();
    const pat = await RawClient.connect(server.port, 'classic');
    pat.write(pat.classic.login({ token: 'token-abc' }).frame);
    const reply = await pat.nextFrame();
    expect(typeof reply).not.toBe('string');
    expect(pat.classic.handleFrame(reply as Uint8Array).ok).toBe(true);
    await pat.ok(CommandCode.GetStreams);
    pat.close();
    const vsrPat = await RawClient.connect(server.port, 'vsr');
    vsrPat.write(vsrPat.vsr.register({ token: 'token-abc' }).frame);
    const registered = await vsrPat.nextFrame();
    expect(vsrPat.vsr.handleFrame(registered as Uint8Array).ok).toBe(true);
    await vsrPat.ok(CommandCode.GetStreams);
    vsrPat.close();
  });

  it('refuses to listen on a port in use', async () => {
    await using first = await startDevServer();
    await expect(startDevServer({ port: first.port })).rejects.toMatchObject({ code: 'EADDRINUSE' });
  });

  it('reads the limit flags shared by agdx-iggy-dev and agdx dev, and names a flag with a bad value', async () => {
    expect(limitOptionsFromFlags({ 'max-connections': '10', 'idle-timeout': '0', 'login-lockout': '5000' })).toEqual({ options: { maxConnections: 10, idleTimeoutMs: 0, loginLockoutMs: 5000 } });
    expect(limitOptionsFromFlags({ 'pre-login-buffer': '4k' })).toEqual({ error: '--pre-login-buffer must be a whole number, got 4k' });
    expect(limitOptionsFromFlags({ 'login-failure-delay': '-1' })).toMatchObject({ error: expect.stringContaining('--login-failure-delay') });
    // Every flag sets an option startDevServer checks.
    const all = Object.fromEntries(LIMIT_FLAGS.map((f) => [f.flag, '0']));
    const parsed = limitOptionsFromFlags(all);
    expect('options' in parsed && Object.keys(parsed.options).sort()).toEqual(LIMIT_FLAGS.map((f) => f.option).sort());
    await expect(startDevServer({ maxConnections: 0 })).rejects.toSatisfy((e: unknown) => DevServerError.is(e, 'invalid'));
  });
});
