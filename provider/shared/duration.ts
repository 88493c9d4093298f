/**
 * Durations written as Pulumi users write timeouts, with days for renewal windows: "20m", "90s", "1h30m", "7d",
 * "2d12h".
 */

const UNIT_MS: Record<string, number> = { d: 86_400_000, h: 3_600_000, m: 60_000, s: 1_000 };

/** Parses "2d12h", "1h30m", "20m" or "45s" into milliseconds; undefined when the text is not such a duration. */
export function parseDuration(text: string): number | undefined {
  const trimmed = text.trim();
  if (!/^(\d+d)?(\d+h)?(\d+m)?(\d+s)?$/.test(trimmed) || trimmed === "") {
    return undefined;
  }
  let total = 0;
  for (const [, amount, unit] of trimmed.matchAll(/(\d+)([dhms])/g)) {
    total += Number(amount) * (UNIT_MS[unit ?? "s"] ?? 0);
  }
  return total;
}

/** Formats milliseconds as "4m05s", "1h02m" or "6d23h" for progress lines and messages. */
export function formatDuration(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  const d = Math.floor(seconds / 86_400);
  const h = Math.floor((seconds % 86_400) / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  if (d > 0) return `${d}d${String(h).padStart(2, "0")}h`;
  if (h > 0) return `${h}h${String(m).padStart(2, "0")}m`;
  if (m > 0) return `${m}m${String(s).padStart(2, "0")}s`;
  return `${s}s`;
}
