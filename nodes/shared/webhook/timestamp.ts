// Only Date.UTC, never Date.parse: freshness must not depend on the server's time zone.

import { daysInMonth } from '../dates';

const DATE_TIME =
	/^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?(?:([Zz])|([+-])(\d{2})(?::?(\d{2}))?)?$/;

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
