import { SearchError } from '../errors.js';

/** The metadata name under which every pushed document carries the time of its PUT. */
export const RECEIVED_TIME_METADATA = 'X-Service-Push-Received-Time';

const PATTERN = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})\.(\d{3})Z$/;

/**
 * Formats the received time: UTC `yyyyMMddHHmmss.SSS` followed by `Z`, always 19 characters
 * (e.g. `20240131235959.123Z`). Years outside 0000–9999 cannot be written in 4 digits and
 * throw, as does an invalid date.
 */
export function formatReceivedTime(date: Date): string {
  const t = date.getTime();
  if (Number.isNaN(t)) throw new SearchError('INTERNAL', 'cannot format an invalid date as a received time');
  const year = date.getUTCFullYear();
  if (year < 0 || year > 9999) {
    throw new SearchError('INTERNAL', `year ${year} cannot be written as a received time (0000-9999)`);
  }
  return (
    pad(year, 4) +
    pad(date.getUTCMonth() + 1, 2) +
    pad(date.getUTCDate(), 2) +
    pad(date.getUTCHours(), 2) +
    pad(date.getUTCMinutes(), 2) +
    pad(date.getUTCSeconds(), 2) +
    '.' +
    pad(date.getUTCMilliseconds(), 3) +
    'Z'
  );
}

/**
 * Reads a received time written by {@link formatReceivedTime}. Strict: exactly 19 characters,
 * and every field in range (no 31 February); anything else throws `METADATA_INVALID`.
 */
export function parseReceivedTime(text: string): Date {
  const m = PATTERN.exec(text);
  const fail = (): never => {
    throw new SearchError(
      'METADATA_INVALID',
      `${JSON.stringify(text)} is not a received time: expected UTC yyyyMMddHHmmss.SSSZ, e.g. 20240131235959.123Z`,
    );
  };
  if (m === null) return fail();
  // PATTERN has seven groups, none optional.
  const [year = NaN, month = NaN, day = NaN, hour = NaN, minute = NaN, second = NaN, ms = NaN] = m
    .slice(1)
    .map(Number);
  const date = new Date(0);
  // setUTCFullYear, not Date.UTC: Date.UTC maps years 0-99 to 1900-1999.
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, ms);
  // Out-of-range fields roll over (month 13 → next January); a round trip catches them.
  if (formatReceivedTime(date) !== text) return fail();
  return date;
}

function pad(n: number, width: number): string {
  return String(n).padStart(width, '0');
}
