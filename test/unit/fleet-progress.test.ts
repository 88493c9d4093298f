import { describe, expect, it } from "vitest";
import { FLEET_PROGRESS_EVERY_MS, FleetProgress } from "../../provider/fleet/fleet-progress";
import { recordingClock } from "../helpers/mock-api";

function reporter(size: number) {
  const lines: string[] = [];
  const clock = recordingClock([], 0);
  const progress = new FleetProgress({ info: (m) => lines.push(m), warn: (m) => lines.push(m) }, "the fleet", size, clock);
  return { progress, lines, advance: (ms: number) => void clock.sleep(ms) };
}

describe("a fleet's progress", () => {
  it("speaks for every member in one line at most every interval, naming the counts and the slowest", () => {
    const { progress, lines, advance } = reporter(1000);
    for (let slot = 0; slot < 1000; slot++) progress.update(slot, `ord_${slot}`, "pending");
    expect(lines).toEqual([]);
    advance(FLEET_PROGRESS_EVERY_MS - 1);
    for (let slot = 0; slot < 500; slot++) progress.update(slot, `ord_${slot}`, slot < 400 ? "active" : "provisioning");
    expect(lines).toEqual([]);
    advance(1);
    progress.update(0, "ord_0", "active");
    expect(lines).toEqual([
      "proxy: the fleet: 1000 of 1000 order(s) placed: 500 pending, 100 provisioning, 400 active, 0 failed; slowest ord_400 (provisioning for 10s) (waited 10s)",
    ]);
    progress.update(999, "ord_999", "failed");
    advance(1000);
    progress.update(998, "ord_998", "cancelled");
    expect(lines).toHaveLength(1);
  });

  it("prints fewer lines the longer the wait: about 30 over twenty minutes of member updates every second", () => {
    const { progress, lines, advance } = reporter(3);
    for (let second = 0; second < 20 * 60; second++) {
      advance(1000);
      progress.update(second % 3, `ord_${second % 3}`, "provisioning");
    }
    expect(lines.length).toBeGreaterThan(10);
    expect(lines.length).toBeLessThanOrEqual(35);
  });

  it("closes with one summary that counts the members carried on from an earlier run", () => {
    const { progress, lines, advance } = reporter(2);
    progress.carriedOn();
    progress.update(0, "ord_a", "active");
    progress.update(1, "ord_b", "failed");
    advance(65_000);
    lines.length = 0;
    progress.finish();
    expect(lines).toEqual([
      "proxy: the fleet: 2 of 2 order(s) placed: 0 pending, 0 provisioning, 1 active, 1 failed after 1m05s; 1 bought by an earlier run and carried on (not bought again)",
    ]);
  });

  it("says nothing when no member was waited for", () => {
    const { progress, lines } = reporter(0);
    progress.finish();
    expect(lines).toEqual([]);
  });
});
