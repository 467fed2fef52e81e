/**
 * Pure checks specific to the Real Estate Estimate node's parameters (the shared ones live in
 * shared/validation.ts). Each returns a `Check<T>`; `Fields.take` names the item and the field.
 */
import { fail, isEmpty, ok, show } from '../shared/validation';
import type { Check } from '../shared/validation';

/**
 * Municipality number (kommunenummer): exactly four digits, leading zero kept (0301 is Oslo).
 * A number from an expression is padded (301 → 0301); a string must already have four digits.
 */
export function checkKnr(value: unknown): Check<string> {
	const rule = 'must be exactly 4 digits with its leading zero, such as 0301';
	if (isEmpty(value)) return fail(`is required (${rule.replace('must be ', '')})`);
	let text: string;
	if (typeof value === 'number') {
		if (!Number.isInteger(value) || value < 1 || value > 9999)
			return fail(`${rule}, got ${show(value)}`);
		text = String(value).padStart(4, '0');
	} else if (typeof value === 'string') {
		text = value.trim();
	} else {
		return fail(`${rule}, got ${show(value)}`);
	}
	if (!/^\d{4}$/.test(text) || text === '0000') return fail(`${rule}, got ${show(value)}`);
	return ok(text);
}

/** Name of an output binary property: non-empty, no surrounding spaces. */
export function checkBinaryPropertyName(value: unknown): Check<string> {
	if (typeof value !== 'string' || value.trim() === '')
		return fail('must be a non-empty name such as data');
	return ok(value.trim());
}
