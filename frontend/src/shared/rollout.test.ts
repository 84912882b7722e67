import { describe, expect, it } from "vitest";
import { formatGateValue, waveStateInfo } from "./rollout";

describe("formatGateValue", () => {
  it.each([
    [0.0042, "0.0042"],
    [1.2e-7, "1.2e-7"],
    [0.023, "0.023"],
    [0.1 + 0.2, "0.3"],
    [0.004237891, "0.004238"],
    [2 / 3, "0.6667"],
    [200, "200"],
    [1, "1"],
    [0, "0"],
    [-0.5, "-0.5"],
    [12345.678, "1.235e+4"],
    [1e6, "1e+6"],
  ])("writes %s as %s", (v, want) => {
    expect(formatGateValue(v)).toBe(want);
  });
});

describe("waveStateInfo", () => {
  it("tells an empty wave from a skipped one", () => {
    expect(waveStateInfo("EMPTY").label).toBe("Empty");
    expect(waveStateInfo("EMPTY").glyph).not.toBe(waveStateInfo("SKIPPED").glyph);
  });
});
