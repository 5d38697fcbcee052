/**
 * The login-failure accounting on a hand-driven clock: delays, the per-connection limit, the
 * per-address lockout window, and the bound on remembered addresses.
 */
import { describe, expect, it } from 'vitest';
import { LoginGuard } from '../src/server/login-guard.js';

function guard(now: { t: number }, overrides: Partial<ConstructorParameters<typeof LoginGuard>[0]> = {}): LoginGuard {
  return new LoginGuard({ perConnection: 3, perAddress: 5, lockoutMs: 1000, failureDelayMs: 10, maxAddresses: 100, ...overrides }, () => now.t);
}

describe('LoginGuard', () => {
  it('doubles the delay per recent failure of the address, up to 16 times the base', () => {
    const now = { t: 0 };
    const g = guard(now, { perAddress: 100, perConnection: 100 });
    const a = g.forConnection('10.0.0.1');
    const delays = Array.from({ length: 7 }, () => a.failed().delayMs);
    expect(delays).toEqual([10, 20, 40, 80, 160, 160, 160]);
    // Failures of one address do not slow another.
    expect(g.forConnection('10.0.0.2').failed().delayMs).toBe(10);
  });

  it('closes a connection at its failure limit, counting per connection', () => {
    const g = guard({ t: 0 }, { perAddress: 100 });
    const first = g.forConnection('10.0.0.1');
    expect([first.failed().close, first.failed().close, first.failed().close]).toEqual([false, false, true]);
    expect(g.forConnection('10.0.0.1').failed().close).toBe(false);
  });

  it('locks an address out at perAddress failures within the window, until the window passes', () => {
    const now = { t: 0 };
    const g = guard(now);
    for (let i = 0; i < 4; i++) {
      expect(g.admit('10.0.0.1')).toEqual({ action: 'check' });
      g.forConnection('10.0.0.1').failed();
      now.t += 100;
    }
    expect(g.admit('10.0.0.1')).toEqual({ action: 'check' });
    g.forConnection('10.0.0.1').failed();
    expect(g.admit('10.0.0.1')).toMatchObject({ action: 'refuse' });
    expect(g.admit('10.0.0.9')).toEqual({ action: 'check' });
    now.t += 999;
    expect(g.admit('10.0.0.1')).toMatchObject({ action: 'refuse' });
    now.t += 2;
    expect(g.admit('10.0.0.1')).toEqual({ action: 'check' });
    // The old failures have left the window: one more failure does not lock it out again.
    g.forConnection('10.0.0.1').failed();
    expect(g.admit('10.0.0.1')).toEqual({ action: 'check' });
  });

  it('forgets failures older than the window, so slow guessing is never locked out but stays delayed', () => {
    const now = { t: 0 };
    const g = guard(now);
    for (let i = 0; i < 20; i++) {
      g.forConnection('10.0.0.1').failed();
      expect(g.admit('10.0.0.1')).toEqual({ action: 'check' });
      now.t += 300;
    }
  });

  it('remembers at most maxAddresses addresses, forgetting the least recently failing first', () => {
    const now = { t: 0 };
    const g = guard(now, { maxAddresses: 50, perAddress: 1 });
    for (let i = 0; i < 500; i++) {
      g.forConnection(`10.0.${i >> 8}.${i & 255}`).failed();
      now.t += 1;
      expect(g.trackedAddresses).toBeLessThanOrEqual(50);
    }
    // The newest ones are still locked out, the oldest forgotten.
    expect(g.admit('10.0.1.243')).toMatchObject({ action: 'refuse' });
    expect(g.admit('10.0.0.0')).toEqual({ action: 'check' });
  });

  it('an address that fails again becomes the most recently failing, and outlives older ones', () => {
    const now = { t: 0 };
    const g = guard(now, { maxAddresses: 50, perAddress: 1, lockoutMs: 1_000_000 });
    g.forConnection('10.0.9.9').failed();
    for (let i = 0; i < 49; i++) g.forConnection(`10.0.0.${i}`).failed();
    g.forConnection('10.0.9.9').failed();
    // one new address: the least recently failing is now 10.0.0.0, not 10.0.9.9
    g.forConnection('10.0.1.0').failed();
    expect(g.trackedAddresses).toBe(50);
    expect(g.admit('10.0.0.0')).toEqual({ action: 'check' });
    expect(g.admit('10.0.9.9')).toMatchObject({ action: 'refuse' });
    for (let i = 1; i < 48; i++) g.forConnection(`10.0.2.${i}`).failed();
    expect([g.admit('10.0.0.48'), g.admit('10.0.9.9')]).toEqual([{ action: 'refuse', delayMs: 10 }, { action: 'refuse', delayMs: 10 }]);
    g.forConnection('10.0.2.100').failed();
    expect([g.admit('10.0.0.48'), g.admit('10.0.9.9')]).toEqual([{ action: 'check' }, { action: 'refuse', delayMs: 10 }]);
  });

  it('drops the least recently failing address once its window has passed, one per failure', () => {
    const now = { t: 0 };
    const g = guard(now, { perAddress: 100 });
    for (let i = 0; i < 5; i++) g.forConnection(`10.0.0.${i}`).failed();
    now.t += 500;
    g.forConnection('10.0.0.0').failed();
    now.t += 600;
    // 10.0.0.1 to .4 are past the window, 10.0.0.0 failed 600 ms ago: each failure drops one expired
    expect(g.trackedAddresses).toBe(5);
    g.forConnection('10.0.1.0').failed();
    expect(g.trackedAddresses).toBe(5);
    g.forConnection('10.0.1.0').failed();
    g.forConnection('10.0.1.0').failed();
    g.forConnection('10.0.1.0').failed();
    // .1 to .4 are gone; .0 (still inside its window) is the oldest now and stays
    expect(g.trackedAddresses).toBe(2);
    g.forConnection('10.0.1.0').failed();
    expect(g.trackedAddresses).toBe(2);
  });
});
