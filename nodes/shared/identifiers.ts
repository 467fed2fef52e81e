import { daysInMonth } from './dates';

const K1_WEIGHTS = [3, 7, 6, 1, 8, 9, 4, 5, 2, 1];
const K2_WEIGHTS = [5, 4, 3, 2, 7, 6, 5, 4, 3, 2];
const ORG_WEIGHTS = [3, 2, 7, 6, 5, 4, 3, 2];

function weightedSum(digits: number[], weights: number[]): number {
	return weights.reduce((sum, weight, index) => sum + weight * digits[index], 0);
}

/** mod-11 check digit: 11 − (sum mod 11), 11 → 0; undefined where the result would be 10. */
export function mod11CheckDigit(digits: number[], weights: number[]): number | undefined {
	const check = 11 - (weightedSum(digits, weights) % 11);
	if (check === 11) return 0;
	if (check === 10) return undefined;
	return check;
}

// K1 by the classic rule or the rule from 2032 (Skatteetaten; NAV's fnrvalidator does the same).
export function validateNationalId(value: string): string | undefined {
	if (!/^\d{11}$/.test(value)) {
		return 'must be exactly 11 digits (no spaces or dashes)';
	}
	const digits = value.split('').map(Number);
	let day = Number(value.slice(0, 2));
	let month = Number(value.slice(2, 4));
	const year = Number(value.slice(4, 6));
	// D-number: day + 40 (41–71); synthetic test number: month + 80 (81–92); H-number: month + 40 (41–52)
	if (day >= 41) day -= 40;
	if (month >= 81) month -= 80;
	else if (month >= 41) month -= 40;
	if (month < 1 || month > 12) {
		return 'has no valid month in digits 3–4 (01–12, +40 for H-numbers, +80 for synthetic test numbers)';
	}
	// Of the century table only 29 February of year 00 depends on it: individual numbers 000–499 were
	// born in 1900, no leap year (docs/architecture.md#identifiers); any other year leaps alike in each.
	const fullYear = year === 0 && Number(value.slice(6, 9)) <= 499 ? 1900 : 2000 + year;
	if (day < 1 || day > daysInMonth(fullYear, month)) {
		return 'has no valid day in digits 1–2 for its month (+40 for D-numbers)';
	}
	if (
		weightedSum(digits, K1_WEIGHTS) % 11 > 3 ||
		mod11CheckDigit(digits, K2_WEIGHTS) !== digits[10]
	) {
		return 'has wrong check digits (digits 10–11 fail the mod-11 control)';
	}
	return undefined;
}

export function validateOrganizationNumber(value: string): string | undefined {
	if (!/^\d{9}$/.test(value)) return 'must be exactly 9 digits (no spaces)';
	const digits = value.split('').map(Number);
	// a check digit that would be 10 (undefined) matches no digit: no such number is valid
	if (mod11CheckDigit(digits, ORG_WEIGHTS) !== digits[8]) {
		return 'has a wrong check digit (the 9th digit fails the mod-11 control)';
	}
	return undefined;
}

export function validateHttpUrl(value: string, requireHttps = false): string | undefined {
	let url: URL;
	try {
		url = new URL(value);
	} catch {
		return 'must be an absolute URL such as https://example.com/path';
	}
	if (url.protocol !== 'http:' && url.protocol !== 'https:') {
		return `must use http or https, not ${url.protocol.replace(':', '')}`;
	}
	if (requireHttps && url.protocol !== 'https:') {
		return 'must use https when the credential environment is Production';
	}
	return undefined;
}
