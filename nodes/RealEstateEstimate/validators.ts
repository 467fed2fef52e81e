import { fail, isEmpty, ok, show } from '../shared/validation';
import type { Check } from '../shared/validation';

// Leading zero kept (0301 is Oslo): a number is padded, a string must already have four digits.
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

export function checkBinaryPropertyName(value: unknown): Check<string> {
	if (typeof value !== 'string' || value.trim() === '')
		return fail('must be a non-empty name such as data');
	return ok(value.trim());
}
