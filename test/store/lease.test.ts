import { describe, expect, it } from 'vitest';
import { decideLease, isPidAlive, type LeaseHolder, type LeaseIdentity } from '../../src/store/lease.ts';

const me: LeaseIdentity = { token: 'me', pid: 100, hostname: 'host-a', bootId: 'boot-1' };
const holder = (over: Partial<LeaseHolder>): LeaseHolder => ({
  token: 'other',
  pid: 200,
  hostname: 'host-a',
  bootId: 'boot-1',
  acquiredAt: 0,
  heartbeatAt: 1_000,
  ...over,
});
const ctx = (over: Partial<Parameters<typeof decideLease>[2]> = {}) => ({
  now: 2_000,
  staleMs: 60_000,
  isPidAlive: () => true,
  liveTokens: new Set<string>(),
  ...over,
});

describe('decideLease', () => {
  it('acquires a free store', () => {
    expect(decideLease(undefined, me, ctx()).kind).toBe('acquire');
  });
  it('refuses when a live process on this host holds it, naming the pid', () => {
    const d = decideLease(holder({}), me, ctx());
    expect(d).toEqual({ kind: 'refuse', reason: expect.stringContaining('pid 200 on host-a') });
  });
  it('refuses when another store of this very process holds it', () => {
    expect(
      decideLease(holder({ pid: 100, token: 'open' }), me, ctx({ liveTokens: new Set(['open']) })).kind,
    ).toBe('refuse');
  });
  it('takes over from a dead pid on this host', () => {
    expect(decideLease(holder({}), me, ctx({ isPidAlive: () => false })).kind).toBe('takeover');
  });
  it('takes over from an earlier boot even if the pid number is alive now', () => {
    expect(decideLease(holder({ bootId: 'boot-0' }), me, ctx()).kind).toBe('takeover');
  });
  it('takes over from an earlier process that had our pid', () => {
    expect(decideLease(holder({ pid: 100 }), me, ctx()).kind).toBe('takeover');
  });
  it('judges a holder on another host by its heartbeat only', () => {
    const remote = holder({ hostname: 'host-b' });
    expect(decideLease(remote, me, ctx({ isPidAlive: () => false })).kind).toBe('refuse');
    expect(decideLease(remote, me, ctx({ now: 61_001 })).kind).toBe('takeover');
  });
});

describe('isPidAlive', () => {
  it('sees this process and rejects nonsense pids', () => {
    expect(isPidAlive(process.pid)).toBe(true);
    expect(isPidAlive(0)).toBe(false);
    expect(isPidAlive(-5)).toBe(false);
  });
});
