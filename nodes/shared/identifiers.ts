/**
 * Pure validators for Norwegian identifiers. Each returns `undefined` when the value is valid,
 * otherwise a sentence saying which rule it breaks (the caller adds item and field).
 */

import { daysInMonth } from './dates';

/** Weights for the first control digit K1 over digits 1–10, K1 itself included (weight 1). */
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

/**
 * Birth year of a national ID from its two-digit year (digits 5–6) and individual number
 * (digits 7–9), by the published century table: 000–499 → 1900–1999; 500–749 with year 54–99 →
 * 1854–1899; 500–999 with year 00–39 → 2000–2039; 900–999 with year 40–99 → 1940–1999.
 * Undefined where the table gives no century (500–749 with year 40–53, 750–899 with year 40–99).
 */
export function nationalIdBirthYear(
	individualNumber: number,
	twoDigitYear: number,
): number | undefined {
	if (individualNumber <= 499) return 1900 + twoDigitYear;
	if (twoDigitYear <= 39) return 2000 + twoDigitYear;
	if (individualNumber >= 900) return 1900 + twoDigitYear;
	if (individualNumber <= 749 && twoDigitYear >= 54) return 1800 + twoDigitYear;
	return undefined;
}

export interface NationalIdInfo {
	kind: 'birth-number' | 'd-number' | 'h-number' | 'synthetic';
	/** 'classic': K1 as the computed check digit (remainder 0); '2032': K1 by the widened rule (remainder 1–3). */
	controlRule: 'classic' | '2032';
}

/**
 * Checks a national identity number (fødselsnummer) and its variants: D-number (day + 40),
 * H-number (month + 40), synthetic test identities (month + 80). The first control digit K1 is
 * accepted by the classic rule and by the rule from 2032 (weighted sum including K1, mod 11, in
 * 0–3); the second, K2, is the same under both: the mod-11 check digit of digits 1–10.
 * (Skatteetaten, "Nytt fødselsnummer fra 2032"; NAV's fnrvalidator does the same.)
 */
export function checkNationalId(value: string): { error?: string; info?: NationalIdInfo } {
	if (!/^\d{11}$/.test(value)) {
		return { error: 'must be exactly 11 digits (no spaces or dashes)' };
	}
	const digits = value.split('').map(Number);
	let day = Number(value.slice(0, 2));
	let month = Number(value.slice(2, 4));
	const year = Number(value.slice(4, 6));
	let kind: NationalIdInfo['kind'] = 'birth-number';
	// D-number: day + 40 (41–71); synthetic test number: month + 80 (81–92); H-number: month + 40 (41–52)
	if (day >= 41) {
		day -= 40;
		kind = 'd-number';
	}
	if (month >= 81) {
		month -= 80;
		kind = 'synthetic';
	} else if (month >= 41) {
		month -= 40;
		kind = kind === 'd-number' ? 'd-number' : 'h-number';
	}
	if (month < 1 || month > 12) {
		return {
			error:
				'has no valid month in digits 3–4 (01–12, +40 for H-numbers, +80 for synthetic test numbers)',
		};
	}
	// Where the table gives no century, accept the date if it exists in any possible century
	// (such numbers, e.g. synthetic test identities, must not be rejected for it). Only years 40–99
	// get here, and none of 18yy, 19yy, 20yy is a century year, so they are all leap years or none
	// is: 20yy stands for all three.
	const fullYear = nationalIdBirthYear(Number(value.slice(6, 9)), year) ?? 2000 + year;
	if (day < 1 || day > daysInMonth(fullYear, month)) {
		return { error: 'has no valid day in digits 1–2 for its month (+40 for D-numbers)' };
	}
	const k1Remainder = weightedSum(digits, K1_WEIGHTS) % 11;
	if (k1Remainder > 3 || mod11CheckDigit(digits, K2_WEIGHTS) !== digits[10]) {
		return { error: 'has wrong check digits (digits 10–11 fail the mod-11 control)' };
	}
	return { info: { kind, controlRule: k1Remainder === 0 ? 'classic' : '2032' } };
}

export function validateNationalId(value: string): string | undefined {
	return checkNationalId(value).error;
}

/** Organization number (organisasjonsnummer): 9 digits, mod-11 check digit with weights 3,2,7,6,5,4,3,2. */
export function validateOrganizationNumber(value: string): string | undefined {
	if (!/^\d{9}$/.test(value)) return 'must be exactly 9 digits (no spaces)';
	const digits = value.split('').map(Number);
	// a check digit that would be 10 (undefined) matches no digit: no such number is valid
	if (mod11CheckDigit(digits, ORG_WEIGHTS) !== digits[8]) {
		return 'has a wrong check digit (the 9th digit fails the mod-11 control)';
	}
	return undefined;
}

/** Absolute http(s) URL; `requireHttps` for production. */
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
	if (!url.hostname) return 'must name a host';
	if (requireHttps && url.protocol !== 'https:') {
		return 'must use https when the credential environment is Production';
	}
	return undefined;
}
