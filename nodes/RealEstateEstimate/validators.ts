/**
 * Pure validators for the parameters of the Real Estate Estimate node. Each check returns either
 * the normalised value or a sentence saying which rule the value breaks; the caller adds the
 * field name and the item.
 */
import { validateOrganizationNumber } from '../shared/identifiers';

export const INT32_MAX = 2147483647;
export const INT32_MIN = -2147483648;

export type Check<T> = { value: T; error?: undefined } | { value?: undefined; error: string };

/** A short, quoted rendering of a rejected value for messages. */
export function show(value: unknown): string {
	if (value === undefined) return 'nothing';
	if (value === null) return 'null';
	if (typeof value === 'number') return String(value);
	let text: string;
	try {
		text = JSON.stringify(value) ?? String(value);
	} catch {
		text = String(value);
	}
	return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}

export function isEmpty(value: unknown): boolean {
	return value === undefined || value === null || (typeof value === 'string' && value.trim() === '');
}

/** A number, or a string holding a plain decimal number; anything else is undefined. */
export function toNumber(value: unknown): number | undefined {
	if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
	if (typeof value === 'string' && /^\s*[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?\s*$/.test(value)) {
		return Number(value);
	}
	return undefined;
}

/** A whole number in [min, max] (numbers or numeric strings). */
export function checkInteger(value: unknown, min: number, max: number): Check<number> {
	const rule = `must be a whole number from ${min} to ${max}`;
	if (isEmpty(value)) return { error: `is required (${rule.replace('must be ', '')})` };
	const number = toNumber(value);
	if (number === undefined || !Number.isInteger(number) || number < min || number > max) {
		return { error: `${rule}, got ${show(value)}` };
	}
	return { value: number };
}

/** A positive whole number that fits the API's int32 path parameters. */
export function checkPositiveInteger(value: unknown): Check<number> {
	return checkInteger(value, 1, INT32_MAX);
}

/**
 * Municipality number (kommunenummer): exactly four digits, leading zero kept (0301 is Oslo).
 * A number from an expression is padded (301 → 0301); a string must already have four digits.
 */
export function checkKnr(value: unknown): Check<string> {
	const rule = 'must be exactly 4 digits with its leading zero, such as 0301';
	if (isEmpty(value)) return { error: `is required (${rule.replace('must be ', '')})` };
	let text: string;
	if (typeof value === 'number') {
		if (!Number.isInteger(value) || value < 1 || value > 9999) return { error: `${rule}, got ${show(value)}` };
		text = String(value).padStart(4, '0');
	} else if (typeof value === 'string') {
		text = value.trim();
	} else {
		return { error: `${rule}, got ${show(value)}` };
	}
	if (!/^\d{4}$/.test(text) || text === '0000') return { error: `${rule}, got ${show(value)}` };
	return { value: text };
}

/** Organization number: 9 digits with a valid mod-11 check digit (shared rule). */
export function checkOrganizationNumber(value: unknown): Check<string> {
	if (isEmpty(value)) return { error: 'is required (9 digits)' };
	let text: string;
	if (typeof value === 'number' && Number.isInteger(value) && value > 0) text = String(value);
	else if (typeof value === 'string') text = value.trim();
	else return { error: `must be 9 digits, got ${show(value)}` };
	const error = validateOrganizationNumber(text);
	return error ? { error: `${error}, got ${show(value)}` } : { value: text };
}

function daysInMonth(year: number, month: number): number {
	if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
	return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

const ISO_DATE_TIME =
	/^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:[.,]\d{1,9})?)?(Z|[+-](\d{2}):?(\d{2}))?)?$/;

/**
 * ISO 8601 calendar date or date-time as the API's date-time fields take it: `2024-05-31`,
 * `2024-05-31T12:00`, `2024-05-31T12:00:00.000Z`, `2024-05-31T12:00:00+02:00`. The date must
 * exist (no 2023-02-29), hours 00–23, minutes and seconds 00–59, offsets up to ±14:00.
 */
export function isIsoDateTime(text: string): boolean {
	const match = ISO_DATE_TIME.exec(text);
	if (!match) return false;
	const [, y, mo, d, h, mi, s, zone, oh, om] = match;
	const year = Number(y);
	const month = Number(mo);
	const day = Number(d);
	if (year < 1 || month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return false;
	if (h !== undefined && (Number(h) > 23 || Number(mi) > 59)) return false;
	if (s !== undefined && Number(s) > 59) return false;
	if (zone !== undefined && zone !== 'Z' && (Number(oh) > 14 || Number(om) > 59)) return false;
	return true;
}

/**
 * What n8n may hand over for a date parameter: a string, a JS Date, or a Luxon DateTime from an
 * expression such as `{{ $now }}`. Dates become ISO strings; anything else is returned unchanged.
 */
export function dateInputToString(value: unknown): unknown {
	if (value instanceof Date) return Number.isNaN(value.getTime()) ? String(value) : value.toISOString();
	if (value !== null && typeof value === 'object') {
		const toISO = (value as { toISO?: unknown }).toISO;
		if (typeof toISO === 'function') return (toISO as () => unknown).call(value);
	}
	return typeof value === 'string' ? value.trim() : value;
}

export const ISO_RULE = 'must be an ISO 8601 date or date-time such as 2024-05-31 or 2024-05-31T12:00:00Z';

export function checkIsoDateTime(value: unknown): Check<string> {
	const text = dateInputToString(value);
	if (typeof text !== 'string' || !isIsoDateTime(text)) return { error: `${ISO_RULE}, got ${show(value)}` };
	return { value: text };
}

/** Name of an output binary property: non-empty, no surrounding spaces. */
export function checkBinaryPropertyName(value: unknown): Check<string> {
	if (typeof value !== 'string' || value.trim() === '') return { error: 'must be a non-empty name such as data' };
	return { value: value.trim() };
}
