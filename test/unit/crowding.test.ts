import { describe, expect, it } from "vitest";
import { Crowding } from "../../client/crowding";

describe("crowding", () => {
  it("never sees others where the quota fell by this process's own requests, however their answers are reordered", () => {
    const crowding = new Crowding();
    // Four requests went at once (seq 0 to 3, none in flight before them); the API counted them 0, 1, 2, 3 and left
    // 9, 8, 7, 6 of 10; their answers come back 3, 0, 2, 1.
    expect(crowding.observe(6, { seq: 3, inFlight: 3 }, 4, 3)).toBe(0);
    expect(crowding.observe(9, { seq: 0, inFlight: 0 }, 4, 2)).toBe(0);
    expect(crowding.observe(7, { seq: 2, inFlight: 2 }, 4, 1)).toBe(0);
    expect(crowding.observe(8, { seq: 1, inFlight: 1 }, 4, 0)).toBe(0);
    // Then one at a time, each answered before the next went, down to a spent quota.
    for (let seq = 4, remaining = 5; seq < 10; seq++, remaining--) {
      expect(crowding.observe(remaining, { seq, inFlight: 0 }, seq + 1, 0)).toBe(0);
    }
  });

  it("counts what the quota fell by beyond every request of this process's that could have been counted", () => {
    const crowding = new Crowding();
    expect(crowding.observe(9, { seq: 0, inFlight: 0 }, 1, 0)).toBe(0);
    // One more request of this process's, and three of somebody else's, counted between the two answers.
    expect(crowding.observe(5, { seq: 1, inFlight: 0 }, 2, 0)).toBe(3);
    // A request of this process's still unanswered could have been counted too: it is never taken for another's.
    expect(crowding.observe(2, { seq: 2, inFlight: 0 }, 4, 1)).toBe(4);
  });

  it("starts counting again when the quota grows by more than this process's requests in flight explain", () => {
    const crowding = new Crowding();
    crowding.observe(9, { seq: 0, inFlight: 0 }, 1, 0);
    expect(crowding.observe(1, { seq: 1, inFlight: 0 }, 2, 0)).toBe(7);
    // The next window: 10 again, less this request and two of another's.
    expect(crowding.observe(7, { seq: 2, inFlight: 0 }, 3, 0)).toBe(0);
    expect(crowding.observe(4, { seq: 3, inFlight: 0 }, 4, 0)).toBe(2);
  });
});
