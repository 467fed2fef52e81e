/**
 * Reads the envelope's `timestamp` (ISO 8601 / RFC 3339 date-time) as milliseconds since the
 * epoch. Pure, and independent of the server's time zone: only `Date.UTC` is used, never
 * `Date.parse` or another local-time API.
 *
 * Accepted: `YYYY-MM-DD` then `T`, `t` or one space (RFC 3339 §5.6 and its note), `hh:mm`
 * with optional `:ss` and fraction, then `Z`, `z`, `±hh:mm`, `±hhmm`, `±hh` or nothing. Without
 * a zone the time is UTC (the service's timestamps are UTC; reading them as the server's local
 * time would make freshness depend on where n8n runs). Fields are range-checked (month 1-12,
 * the day exists in its month, hour 0-23, minute 0-59, second 0-60, offset below 24:00).
 */

import { daysInMonth } from '../dates';

const DATE_TIME =
	/^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?(?:([Zz])|([+-])(\d{2})(?::?(\d{2}))?)?$/;

/** Milliseconds since the epoch, or null when `text` is not such a date-time. */
export function parseTimestamp(text: string): number | null {
	const m = DATE_TIME.exec(text);
	if (m === null) return null;
	const [year, month, day, hour, minute] = [m[1], m[2], m[3], m[4], m[5]].map(Number);
	const second = m[6] === undefined ? 0 : Number(m[6]);
	const millis = m[7] === undefined ? 0 : Number(m[7].slice(0, 3).padEnd(3, '0'));
	if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return null;
	if (hour > 23 || minute > 59 || second > 60) return null;
	let offsetMinutes = 0;
	if (m[9] !== undefined) {
		const offsetHours = Number(m[10]);
		const offsetMins = m[11] === undefined ? 0 : Number(m[11]);
		if (offsetHours > 23 || offsetMins > 59) return null;
		offsetMinutes = (m[9] === '-' ? -1 : 1) * (offsetHours * 60 + offsetMins);
	}
	// Date.UTC maps years 0-99 to 1900-1999; setUTCFullYear does not.
	const date = new Date(Date.UTC(2000, month - 1, day, hour, minute, second, millis));
	date.setUTCFullYear(year);
	return date.getTime() - offsetMinutes * 60000;
}
