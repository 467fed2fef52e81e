import {
	mod11CheckDigit,
	validateHttpUrl,
	validateNationalId,
	validateOrganizationNumber,
} from '../../../nodes/shared/identifiers';

/** Independent reference: builds a classic-rule number from 9 leading digits, or undefined (check 10). */
function withCheckDigits(first9: string): string | undefined {
	const d = first9.split('').map(Number);
	const k1 = 11 - ([3, 7, 6, 1, 8, 9, 4, 5, 2].reduce((s, w, i) => s + w * d[i], 0) % 11);
	const c1 = k1 === 11 ? 0 : k1;
	if (c1 === 10) return undefined;
	d.push(c1);
	const k2 = 11 - ([5, 4, 3, 2, 7, 6, 5, 4, 3, 2].reduce((s, w, i) => s + w * d[i], 0) % 11);
	const c2 = k2 === 11 ? 0 : k2;
	if (c2 === 10) return undefined;
	return first9 + String(c1) + String(c2);
}

describe('national identity number', () => {
	test.each([
		// published example numbers (classic rule)
		['15076500565', 'birth-number'],
		['01010750160', 'birth-number'],
		// D-number: day + 40
		['41010750073', 'd-number'],
		// H-number: month + 40
		['01410750062', 'h-number'],
		// synthetic test identity: month + 80
		['01810750045', 'synthetic'],
	])('accepts %s (%s)', (value) => {
		expect(validateNationalId(value)).toBeUndefined();
	});

	test('the fixtures above really satisfy the classic rule (reference computation)', () => {
		for (const v of ['15076500565', '01010750160', '41010750073', '01410750062', '01810750045']) {
			expect(withCheckDigits(v.slice(0, 9))).toBe(v);
		}
	});

	test('accepts the 2032 rule: K1 weighted sum with remainder 1–3, K2 the classic check digit', () => {
		// 010107501 + K1 + K2: for each remainder 0–3 the K1 it gives, then K2 from digits 1–10
		const base = '010107501';
		const digits = base.split('').map(Number);
		const k1Sum = [3, 7, 6, 1, 8, 9, 4, 5, 2].reduce((s, w, i) => s + w * digits[i], 0);
		const accepted: number[] = [];
		for (let remainder = 0; remainder <= 3; remainder++) {
			const k1 = (((remainder - k1Sum) % 11) + 11) % 11;
			if (k1 === 10) continue;
			const ten = base + k1;
			const k2Sum = [5, 4, 3, 2, 7, 6, 5, 4, 3, 2].reduce((s, w, i) => s + w * Number(ten[i]), 0);
			const k2 = (11 - (k2Sum % 11)) % 11;
			if (k2 === 10) continue;
			expect(validateNationalId(ten + k2)).toBeUndefined();
			accepted.push(remainder);
		}
		expect(accepted).toEqual([0, 1, 2, 3]);
	});

	// Skatteetaten, "Nytt fødselsnummer fra 2032"
	// (https://skatteetaten.github.io/folkeregisteret-api-dokumentasjon/nytt-fodselsnummer-fra-2032/):
	// only the first control digit K1 is widened (weighted sum with weights 3 7 6 1 8 9 4 5 2 1 has
	// remainder 0, 1, 2 or 3 mod 11). K2 is unchanged: 11 − (sum of the first ten digits with weights
	// 5 4 3 2 7 6 5 4 3 2 mod 11), 11 → 0, 10 → invalid, and must equal digit 11. NAV's fnrvalidator
	// (github.com/navikt/fnrvalidator, src/validator.ts) implements the same: four K1 values, one K2.
	test.each(['07115249954', '07115249955', '07115249956'])(
		'the 2032 rule leaves K2 strict: rejects %s (valid 07115249953 with the last digit changed)',
		(value) => {
			expect(validateNationalId('07115249953')).toBeUndefined();
			expect(validateNationalId(value)).toMatch(/check digits/);
		},
	);

	test.each([
		['', /11 digits/],
		['1507650056', /11 digits/],
		['150765005655', /11 digits/],
		['1507650056a', /11 digits/],
		['150765 00565', /11 digits/],
		['15136500565', /month/], // month 13
		['15006500565', /month/], // month 00
		['32016500565', /day/], // day 32
		['30026500565', /day/], // 30 February
		['29020100000', /day/], // 29 February 2001 is not a date
		['15076500500', /check digits/],
		['15076500510', /check digits/],
	])('rejects %p', (value, reason) => {
		expect(validateNationalId(value)).toMatch(reason);
	});

	test('rejects every single-digit change of a control digit of a valid number', () => {
		// K2 weighs digit 10 by 2 and digit 11 by 1, both prime to 11: changing either one breaks K2,
		// whatever the widened K1 rule would admit
		const valid = '15076500565';
		for (let pos = 9; pos < 11; pos++) {
			for (let d = 0; d <= 9; d++) {
				if (String(d) === valid[pos]) continue;
				const changed = valid.slice(0, pos) + d + valid.slice(pos + 1);
				expect([changed, validateNationalId(changed)]).toEqual([
					changed,
					expect.stringMatching(/check digits/),
				]);
			}
		}
	});
});

describe('national identity number: birth year and calendar', () => {
	test.each([
		['29020050088', 'individual number 500, year 00: 2000 is a leap year'],
		['29020090039', 'individual number 900, year 00: 2000'],
		[
			'29024880026',
			'individual number 800, year 48: no century; 29 February exists in 1848, 1948, 2048',
		],
		['29024870063', 'individual number 700, year 48: no century, leap in every one'],
		['31129920028', '31 December'],
		['30129900063', '30 December'],
		['71129930084', 'D-number on 31 December'],
		['30929900029', 'synthetic test number in December'],
		['41410750056', 'D-number that is also an H-number'],
	])('accepts %s (%s)', (value) => {
		expect(withCheckDigits(value.slice(0, 9))).toBe(value);
		expect(validateNationalId(value)).toBeUndefined();
	});

	test.each([
		['29020010027', 'individual number 100, year 00: 1900 is not a leap year'],
		['29024980047', 'individual number 800, year 49: no century, and no leap year in any'],
		['31049900034', '31 April'],
		['31069900014', '31 June'],
		['31099900094', '31 September'],
		['31119900002', '31 November'],
	])('rejects %s (%s)', (value) => {
		expect(withCheckDigits(value.slice(0, 9))).toBe(value);
		expect(validateNationalId(value)).toMatch(/day/);
	});
});

describe('organization number', () => {
	// 923609040: 11 − (weighted sum mod 11) is 11, so the check digit is 0
	test.each(['974760673', '923609016', '985399077', '889640782', '923609040'])(
		'accepts %s',
		(value) => {
			expect(validateOrganizationNumber(value)).toBeUndefined();
		},
	);

	test.each([
		['97476067', /9 digits/],
		['9747606733', /9 digits/],
		['97476067a', /9 digits/],
		['974760674', /check digit/],
		['923609017', /check digit/],
	])('rejects %p', (value, reason) => {
		expect(validateOrganizationNumber(value)).toMatch(reason);
	});

	test('mod11CheckDigit maps 11 to 0', () => {
		expect(mod11CheckDigit([9, 2, 3, 6, 0, 9, 0, 4], [3, 2, 7, 6, 5, 4, 3, 2])).toBe(0);
	});

	test('a number whose check digit would be 10 is invalid', () => {
		// find eight digits whose check would be 10 and prove none of the ten endings validates
		let prefix = '';
		for (let n = 10000000; n < 10001000; n++) {
			const digits = String(n).split('').map(Number);
			if (mod11CheckDigit(digits, [3, 2, 7, 6, 5, 4, 3, 2]) === undefined) {
				prefix = String(n);
				break;
			}
		}
		expect(prefix).not.toBe('');
		for (let d = 0; d <= 9; d++)
			expect(validateOrganizationNumber(prefix + d)).toMatch(/check digit/);
	});
});

describe('http url', () => {
	test.each([
		['https://bank.example/return', false],
		['http://127.0.0.1:5678/webhook/abc', false],
		['https://bank.example/return', true],
	])('accepts %s (https required: %s)', (value, https) => {
		expect(validateHttpUrl(value, https)).toBeUndefined();
	});

	test.each([
		['bank.example/return', false, /absolute URL/],
		['/relative/path', false, /absolute URL/],
		['ftp://bank.example/x', false, /http or https/],
		['javascript:alert(1)', false, /http or https/],
		['http://bank.example/return', true, /https/],
	])('rejects %s (https required: %s)', (value, https, reason) => {
		expect(validateHttpUrl(value, https)).toMatch(reason);
	});

	test('http is allowed unless https is asked for', () => {
		expect(validateHttpUrl('http://bank.example/return')).toBeUndefined();
	});

	test('names the scheme it refuses, without the colon', () => {
		expect(validateHttpUrl('ftp://bank.example/x')).toBe('must use http or https, not ftp');
	});
});
