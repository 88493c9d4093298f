/**
 * Unix times as APIs send them, in seconds or in milliseconds, told apart by size: the rate-limit hints' resets
 * (contract/rate-limit.ts) and the records' times (contract/wire.ts) read them alike.
 */

/** 2001-09-09 in Unix milliseconds; as seconds, the year 33658: a Unix time this large is in milliseconds. */
const UNIX_MS_FROM = 1_000_000_000_000;

/** A Unix time in seconds or milliseconds, in milliseconds. */
export function unixTimeMs(value: number): number {
  return value >= UNIX_MS_FROM ? value : value * 1000;
}
