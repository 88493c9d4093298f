import { describe, expect, it } from "vitest";
import { DEFAULT_PACER_OPTIONS, Pacer } from "../../client/pacer";

const K_SECONDS = Math.cbrt((1 - DEFAULT_PACER_OPTIONS.throttleFactor) / DEFAULT_PACER_OPTIONS.cubicGrowth);

/** Sends as fast as the pacer allows for `ms` from `from`; returns the send times. */
function drain(pacer: Pacer, from: number, ms: number): number[] {
  const sent: number[] = [];
  for (let now = from; now < from + ms; now++) {
    if (pacer.nextAt(now) <= now) {
      pacer.take(now);
      sent.push(now);
    }
  }
  return sent;
}

describe("the pacer", () => {
  it("starts with a window of requests in flight, not a rate, that grows by one per answer (doubling per round trip)", () => {
    const pacer = new Pacer(0);
    const initial = DEFAULT_PACER_OPTIONS.initialRatePerSecond;
    // Requests one after another never wait, however fast.
    for (let now = 0; now < 100; now++) expect(pacer.nextAt(now, 0)).toBe(now);
    expect(pacer.nextAt(0, initial - 1)).toBe(0);
    expect(pacer.nextAt(0, initial)).toBe(Number.POSITIVE_INFINITY);
    for (let i = 0; i < initial; i++) pacer.answered();
    expect(pacer.nextAt(0, 2 * initial - 1)).toBe(0);
    expect(pacer.nextAt(0, 2 * initial)).toBe(Number.POSITIVE_INFINITY);
  });

  it("above the slow start's threshold, grows the window by one per two windows' worth of answers", () => {
    const pacer = new Pacer(0);
    const threshold = DEFAULT_PACER_OPTIONS.slowStartThreshold;
    for (let i = DEFAULT_PACER_OPTIONS.initialRatePerSecond; i < threshold; i++) pacer.answered();
    expect([pacer.nextAt(0, threshold - 1), pacer.nextAt(0, threshold)]).toEqual([0, Number.POSITIVE_INFINITY]);
    // Two windows' worth of answers: one request more (at one per window's worth, it would be two).
    for (let i = 0; i < 2 * threshold; i++) pacer.answered();
    expect([pacer.nextAt(0, threshold), pacer.nextAt(0, threshold + 1)]).toEqual([0, Number.POSITIVE_INFINITY]);
  });

  it("on a shared key (a share below all of it asked for), starts by rate too: the first rate, doubling every 500 ms", () => {
    const shared = new Pacer(0);
    shared.limitShare(0.5);
    const sent = drain(shared, 0, 3000);
    const perSecond = [0, 1, 2].map((s) => sent.filter((t) => t >= s * 1000 && t < (s + 1) * 1000).length);
    // initialRatePerSecond x 4^t integrated over each second (4.3, 17.3, 69.3), the first after a burst of minBurst.
    const { initialRatePerSecond: first, minBurst } = DEFAULT_PACER_OPTIONS;
    const expected = [0, 1, 2].map((s) => (first * (4 ** (s + 1) - 4 ** s)) / Math.log(4) + (s === 0 ? minBurst : 0));
    perSecond.forEach((count, s) => expect(Math.abs(count - expected[s]!)).toBeLessThanOrEqual(1.5));
    // The window still bounds what is in flight, and a key used alone starts as fast as its answers come.
    expect(shared.nextAt(5000, first)).toBe(Number.POSITIVE_INFINITY);
    expect(drain(new Pacer(0), 0, 3000)).toHaveLength(3000);
    // A 429 cuts from the start's rate (what was reported accepted may be more), and the share holds of it.
    const cut = new Pacer(0);
    cut.limitShare(0.5);
    drain(cut, 0, 1000);
    cut.throttled(1000, 40, 1000);
    expect(cut.rate(1000)).toBeCloseTo(first * 2 ** 2 * 0.5, 5);
  });

  it("cuts to 70% of the accepted rate on a 429, once per episode, and is back at it after K seconds", () => {
    const pacer = new Pacer(0);
    drain(pacer, 0, 3500);
    expect(pacer.rate(3500)).toBeGreaterThan(20);
    pacer.throttled(3500, 20, 6000);
    // The 429s of requests already in flight during the pause are the same episode.
    pacer.throttled(5500, 20, 6000);
    expect(pacer.rate(6000)).toBeCloseTo(14, 5);
    expect(pacer.rate(6000 + K_SECONDS * 1000)).toBeCloseTo(20, 5);
    expect(pacer.rate(6000 + (K_SECONDS / 2) * 1000)).toBeGreaterThan(18);
  });

  it("probes above the refused rate, slowly then faster, by the same amount whatever this process's share", () => {
    const small = new Pacer(0);
    const large = new Pacer(0);
    for (const pacer of [small, large]) {
      drain(pacer, 0, 3000);
      pacer.hint(20, 0, 1000, true);
      pacer.throttled(3000, 20, 3000);
    }
    // Later, one process got a small share of the key and the other a large one.
    small.throttled(30_000, 4, 30_000);
    large.throttled(30_000, 14, 30_000);
    const after = 30_000 + (K_SECONDS + 10) * 1000;
    expect(small.rate(after) - 4).toBeCloseTo(large.rate(after) - 14, 5);
    const { probePerSecond, probeGrowth } = DEFAULT_PACER_OPTIONS;
    expect(large.rate(after) - 14).toBeCloseTo(20 * (probePerSecond * 10 + probeGrowth * 10 ** 3), 5);
    // Slow at first, faster later: a neighbour's rate left free is taken within seconds, not minutes.
    expect(large.rate(30_000 + (K_SECONDS + 2) * 1000) - 14).toBeLessThan(1);
  });

  it("without hints, takes back within seconds a key it learned almost nothing of, once no 429 comes", () => {
    // A stack that first met the key while another had all of it: nothing accepted, so W is the least rate.
    const late = new Pacer(0);
    late.throttled(0, 0, 1000);
    const { minRatePerSecond, reclaimAfterSeconds, reclaimDoublingSeconds } = DEFAULT_PACER_OPTIONS;
    const heldFrom = 1000 + (K_SECONDS + reclaimAfterSeconds) * 1000;
    // Until then only the probe, scaled by the little it learned.
    expect(late.rate(heldFrom)).toBeLessThan(minRatePerSecond * 1.1);
    // Then it doubles: 16 times the rate it learned after four doublings, where the probe alone gives 1.4 times.
    expect(late.rate(heldFrom + 4 * reclaimDoublingSeconds * 1000)).toBeCloseTo(minRatePerSecond * 16, 5);
    // A 429 ends it: the cut is from what was accepted, and growth starts again from the cubic.
    late.throttled(heldFrom + 8000, 12, heldFrom + 9000);
    expect(late.rate(heldFrom + 9000)).toBeCloseTo(12 * DEFAULT_PACER_OPTIONS.throttleFactor, 5);

    // With hints the probe is scaled by the key's rate already, and keeps to it: no doubling.
    const hinted = new Pacer(0);
    hinted.hint(20, 0, 1000, true);
    hinted.throttled(0, 0, 1000);
    const held = 1000 + (K_SECONDS + reclaimAfterSeconds + 4 * reclaimDoublingSeconds) * 1000;
    const x = reclaimAfterSeconds + 4 * reclaimDoublingSeconds;
    const { probePerSecond, probeGrowth } = DEFAULT_PACER_OPTIONS;
    expect(hinted.rate(held)).toBeCloseTo(minRatePerSecond + 20 * (probePerSecond * x + probeGrowth * x ** 3), 5);
  });

  it("with hints on every answer, doubles a cut rate once a period, up to half the key's, while every answer of the last two found room", () => {
    /** A pacer that knows the key's rate (10 a second: a period of 1 s) and was cut to the least rate at 0. */
    const cutLow = () => {
      const pacer = new Pacer(0);
      pacer.hint(10, 0, 1000, true);
      pacer.throttled(0, 0, 1000);
      return pacer;
    };
    const least = DEFAULT_PACER_OPTIONS.minRatePerSecond;
    const pacer = cutLow();
    // More than half the quota left in every answer: after a period of them, the rate doubles; then once a period.
    for (let at = 1000; at < 2000; at += 100) pacer.room(at, 10, 8);
    expect(pacer.rate(1900)).toBeLessThan(least * 1.1);
    pacer.room(2000, 10, 8);
    expect(pacer.rate(2000)).toBeCloseTo(2 * least, 1);
    pacer.room(2500, 10, 8);
    expect(pacer.rate(2500)).toBeLessThan(2 * least * 1.1);
    for (let at = 3000; at <= 4000; at += 500) pacer.room(at, 10, 8);
    // Up to half of the hints' share of the key's rate: two processes that find room at once stay within it together.
    const half = (10 * DEFAULT_PACER_OPTIONS.hintShare) / 2;
    expect(pacer.rate(4000)).toBeCloseTo(half, 5);
    for (let at = 4500; at <= 8000; at += 500) pacer.room(at, 10, 8);
    expect(pacer.rate(8000)).toBeLessThan(half + 0.5);
    // The probe takes it on from there.
    expect(pacer.rate(20_000)).toBeGreaterThan(half + 2);

    // One answer of the last two periods found the quota nearly spent: a neighbour is spending it, nothing doubles.
    const shared = cutLow();
    for (let at = 1000; at <= 3000; at += 100) shared.room(at, 10, at === 1500 ? 1 : 8);
    expect(shared.rate(3000)).toBeLessThan(least * 1.1);
    // A 429 forgets the answers before it.
    const refused = cutLow();
    for (let at = 1000; at < 2000; at += 100) refused.room(at, 10, 8);
    refused.throttled(1990, 1, 2000);
    refused.room(2000, 10, 8);
    expect(refused.rate(2000)).toBeLessThan(least * 1.1);
  });

  it("cuts to 85% of what was accepted, without a pause and once a period, when a quota is found spent with others", () => {
    /** A pacer that knows the key's rate (10 a second: a period of 1 s) from a spent quota. */
    const hinted = () => {
      const pacer = new Pacer(0);
      pacer.hint(10, 0, 1000, false);
      return pacer;
    };
    const pacer = hinted();
    pacer.crowded(5000, 10, 6);
    // No pause: a request may go at once, and the rate is 85% of the 6 a second accepted, growing back to 6.
    expect(pacer.nextAt(5000)).toBe(5000);
    expect(pacer.rate(5000)).toBeCloseTo(0.85 * 6, 5);
    expect(pacer.rate(9000)).toBeGreaterThan(0.85 * 6);
    expect(pacer.rate(9000)).toBeLessThan(6);
    // Another mark within the period changes nothing; one a period later cuts again, from what was accepted then.
    pacer.crowded(5500, 10, 2);
    expect(pacer.rate(5500)).toBeGreaterThan(0.85 * 6);
    pacer.crowded(6000, 10, 4);
    expect(pacer.rate(6000)).toBeCloseTo(0.85 * 4, 5);

    // During a 429's pause the cut it made stands, and a stack with a share keeps to its share instead.
    const paused = hinted();
    paused.throttled(5000, 6, 6000);
    paused.crowded(5500, 10, 2);
    expect(paused.rate(6000)).toBeCloseTo(DEFAULT_PACER_OPTIONS.throttleFactor * 6, 5);
    const shared = hinted();
    shared.limitShare(0.5);
    shared.crowded(5000, 10, 4);
    expect(shared.rate(5000)).toBeCloseTo(10 * 0.5, 5);
  });

  it("without hints, holds a rate refused again before it probes above it: 3 s more for each such refusal, up to two", () => {
    const pacer = new Pacer(0);
    drain(pacer, 0, 3000);
    const backAt = (resumed: number) => resumed + K_SECONDS * 1000;
    // The first refusal: back at 20 after K seconds, and above it right after.
    pacer.throttled(3000, 20, 4000);
    expect(pacer.rate(backAt(4000) + 500)).toBeGreaterThan(20);
    // Refused again at about the same rate: held there 3 s, then the probe.
    pacer.throttled(30_000, 21, 31_000);
    expect(pacer.rate(backAt(31_000) + 2900)).toBeCloseTo(21, 5);
    expect(pacer.rate(backAt(31_000) + 3500)).toBeGreaterThan(21);
    // Twice in a row, 6 s; and no longer after more.
    for (const at of [60_000, 90_000]) {
      pacer.throttled(at, 20, at + 1000);
      expect(pacer.rate(backAt(at + 1000) + 5900)).toBeCloseTo(20, 5);
      expect(pacer.rate(backAt(at + 1000) + 6500)).toBeGreaterThan(20);
    }
    // A refusal at another rate (a neighbour came or went) probes at once again.
    pacer.throttled(120_000, 10, 121_000);
    expect(pacer.rate(backAt(121_000) + 500)).toBeGreaterThan(10);

    // With hints the key's rate is known: nothing is held.
    const hinted = new Pacer(0);
    hinted.hint(40, 0, 1000, true);
    for (const at of [0, 30_000]) hinted.throttled(at, 20, at + 1000);
    expect(hinted.rate(backAt(31_000) + 500)).toBeGreaterThan(20);
  });

  it("never goes above the share of the rate the hints imply, and sends no burst after a pause", () => {
    const pacer = new Pacer(0);
    pacer.hint(10, 0, 1000, true);
    drain(pacer, 0, 10_000);
    const later = drain(pacer, 10_000, 5000);
    expect(later.length).toBeLessThanOrEqual(Math.ceil(5 * 10 * DEFAULT_PACER_OPTIONS.hintShare) + DEFAULT_PACER_OPTIONS.initialRatePerSecond);
    pacer.throttled(15_000, 9, 17_000);
    const resumed = drain(pacer, 17_000, 200);
    expect(resumed.length).toBeLessThanOrEqual(2);
  });

  it("ignores hints of a quota that is far from spent", () => {
    const pacer = new Pacer(0);
    pacer.hint(10, 9, 1000, false);
    drain(pacer, 0, 5000);
    expect(pacer.rate(5000)).toBeGreaterThan(10);
  });
});
