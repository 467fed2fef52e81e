import { NodeOperationError } from 'n8n-workflow';
import type { INode, INodeProperties, INodePropertyCollection } from 'n8n-workflow';
import { daysInMonth } from './dates';
import { validateOrganizationNumber } from './identifiers';
import { maskIdentityNumbers } from './personal';

export type Check<T> =
	| { value: T; error?: undefined }
	| { value?: undefined; error: string; hint?: string };

export function ok<T>(value: T): Check<T> {
	return { value };
}

export function fail<T>(error: string, hint?: string): Check<T> {
	return hint === undefined ? { error } : { error, hint };
}

export function itemLabel(itemIndex: number): string {
	return `Item ${itemIndex + 1}`;
}

type PropertyLike = INodeProperties | INodePropertyCollection;

// A collection's options and a fixedCollection's groups have a displayName; an options list's entries do not.
function childrenOf(property: PropertyLike): PropertyLike[] {
	if ('values' in property) return property.values;
	const options = (property.options ?? []) as Array<object>;
	return options.filter((option): option is PropertyLike => 'displayName' in option);
}

export function fieldLabel(properties: readonly INodeProperties[], path: string): string {
	const labels: string[] = [];
	let level: readonly PropertyLike[] = properties;
	for (const name of path.split('.')) {
		const found = level.find((property) => property.name === name);
		if (!found) return labels.length ? `${labels.join(' → ')} → ${name}` : path;
		labels.push(found.displayName);
		level = childrenOf(found);
		// a fixedCollection's single group (Valuation → Valuation → Date) is not a level people see
		if (level.length === 1 && 'values' in level[0] && level[0].displayName === found.displayName) {
			level = childrenOf(level[0]);
		}
	}
	return labels.join(' → ');
}

export class Fields {
	constructor(
		private readonly node: INode,
		private readonly properties: readonly INodeProperties[],
	) {}

	label(path: string): string {
		return fieldLabel(this.properties, path);
	}

	error(
		itemIndex: number,
		path: string,
		problem: string,
		description?: string,
	): NodeOperationError {
		const error = new NodeOperationError(
			this.node,
			`${itemLabel(itemIndex)}: "${this.label(path)}" ${problem}`,
			{
				itemIndex,
				description: description ?? 'No request was sent for this item.',
			},
		);
		error.context.field = path;
		return error;
	}

	take<T>(itemIndex: number, path: string, check: Check<T>): T {
		if (check.error !== undefined) throw this.error(itemIndex, path, check.error, check.hint);
		return check.value as T;
	}
}

export function characters(count: number): string {
	return `${count} character${count === 1 ? '' : 's'}`;
}

const SHOWN_TEXT = 32;

// The value may be personal data mapped into the wrong field: identity numbers are masked (10 digits
// too), and a text is quoted only when short and without two letters in a row (as names have).
export function show(value: unknown): string {
	if (value === undefined) return 'nothing';
	if (typeof value === 'string') {
		if (value.length > SHOWN_TEXT || /\p{L}{2}/u.test(value))
			return `a text of ${characters(value.length)}`;
		return maskIdentityNumbers(JSON.stringify(value), true);
	}
	if (value === null || typeof value === 'number' || typeof value === 'boolean') {
		return maskIdentityNumbers(String(value), true);
	}
	if (Array.isArray(value)) return 'an array';
	return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

export function isEmpty(value: unknown): boolean {
	return (
		value === undefined || value === null || (typeof value === 'string' && value.trim() === '')
	);
}

export function asText(value: unknown): string {
	if (value === undefined || value === null) return '';
	if (typeof value === 'string') return value;
	if (typeof value === 'number' || typeof value === 'boolean') return String(value);
	return JSON.stringify(value) ?? '';
}

export function stripSpaces(value: string): string {
	return value.replace(/\s+/g, '');
}

export function toNumber(value: unknown): number | undefined {
	if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
	if (typeof value === 'string' && /^\s*[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?\s*$/.test(value)) {
		return Number(value);
	}
	return undefined;
}

export function checkRequiredText(value: unknown, hint?: string): Check<string> {
	const text = asText(value).trim();
	return text ? ok(text) : fail('is empty', hint);
}

export function checkInteger(value: unknown, min: number, max: number): Check<number> {
	const rule = `must be a whole number from ${min} to ${max}`;
	if (isEmpty(value)) return fail(`is required (${rule.replace('must be ', '')})`);
	const number = toNumber(value);
	if (number === undefined || !Number.isInteger(number) || number < min || number > max) {
		return fail(`${rule}, got ${show(value)}`);
	}
	return ok(number);
}

export function checkOptionalInteger(
	value: unknown,
	fallback: number,
	min: number,
	max: number,
): Check<number> {
	return isEmpty(value) ? ok(fallback) : checkInteger(value, min, max);
}

export const INT32_MAX = 2147483647;
export const INT32_MIN = -2147483648;

export function checkPositiveInteger(value: unknown): Check<number> {
	return checkInteger(value, 1, INT32_MAX);
}

export const NUMBER_HINT =
	'The value arrived as a number, so a leading zero may have been lost: map it as text, not as a number.';

export function checkOrganizationNumber(value: unknown): Check<string> {
	if (isEmpty(value)) return fail('is empty', 'Enter the 9-digit organization number.');
	if (typeof value !== 'string' && typeof value !== 'number')
		return fail(`must be 9 digits, got ${show(value)}`);
	const text = stripSpaces(asText(value));
	const error = validateOrganizationNumber(text);
	if (!error) return ok(text);
	const details = [
		`Got ${show(value)}, ${characters(text.length)} after removing spaces.`,
		typeof value === 'number' ? NUMBER_HINT : undefined,
	];
	return fail(error, details.filter(Boolean).join(' '));
}

const ISO_DATE_TIME =
	/^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:[.,]\d{1,9})?)?(Z|[+-](\d{2}):?(\d{2}))?)?$/;

export function isIsoDateTime(text: string): boolean {
	const match = ISO_DATE_TIME.exec(text);
	if (!match) return false;
	const [, y, mo, d, h, mi, s, zone, oh, om] = match;
	const year = Number(y);
	const month = Number(mo);
	const day = Number(d);
	if (year < 1 || month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month))
		return false;
	if (h !== undefined && (Number(h) > 23 || Number(mi) > 59)) return false;
	if (s !== undefined && Number(s) > 59) return false;
	if (zone !== undefined && zone !== 'Z' && (Number(oh) > 14 || Number(om) > 59)) return false;
	return true;
}

// n8n may hand over a JS Date, or a Luxon DateTime from an expression such as `{{ $now }}`.
export function dateInputToString(value: unknown): unknown {
	if (value instanceof Date)
		return Number.isNaN(value.getTime()) ? String(value) : value.toISOString();
	if (value !== null && typeof value === 'object') {
		const toISO = (value as { toISO?: unknown }).toISO;
		if (typeof toISO === 'function') return (toISO as () => unknown).call(value);
	}
	return typeof value === 'string' ? value.trim() : value;
}

export const ISO_RULE =
	'must be an ISO 8601 date or date-time such as 2024-05-31 or 2024-05-31T12:00:00Z';
