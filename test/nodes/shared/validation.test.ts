/** The shared field rules (nodes/shared/validation.ts); the personal-data side: validation-personal.test.ts. */
import {
	checkInteger,
	checkOrganizationNumber,
	isIsoDateTime,
	toNumber,
} from '../../../nodes/shared/validation';

describe('validation', () => {
	test('integers: inclusive range, numeric strings accepted, fractions and words not', () => {
		expect(checkInteger(1, 1, 9)).toEqual({ value: 1 });
		expect(checkInteger('9', 1, 9)).toEqual({ value: 9 });
		expect(checkInteger(10, 1, 9).error).toBe('must be a whole number from 1 to 9, got 10');
		expect(checkInteger(1.5, 1, 9).error).toBe('must be a whole number from 1 to 9, got 1.5');
		expect(checkInteger('x', 1, 9).error).toBe('must be a whole number from 1 to 9, got "x"');
		expect(checkInteger('', 1, 9).error).toBe('is required (a whole number from 1 to 9)');
	});

	test('organization numbers use the shared mod-11 rule', () => {
		expect(checkOrganizationNumber('987654325')).toEqual({ value: '987654325' });
		expect(checkOrganizationNumber(987654325)).toEqual({ value: '987654325' });
		expect(checkOrganizationNumber('987654321').error).toMatch(/check digit/);
		expect(checkOrganizationNumber('98765432').error).toMatch(/9 digits/);
	});

	test.each([
		'2024-05-31',
		'2024-02-29',
		'2024-05-31T12:00',
		'2024-05-31T12:00:59',
		'2024-05-31T12:00:00.123Z',
		'2024-05-31T12:00:00+02:00',
		'2024-05-31T12:00:00-0530',
	])('%s is ISO 8601', (text) => {
		expect(isIsoDateTime(text)).toBe(true);
	});

	test.each([
		'2023-02-29',
		'2024-04-31',
		'2024-00-10',
		'2024-05-31T24:00',
		'2024-05-31T12:60',
		'2024-05-31T12:00:00+15:00',
		'31.05.2024',
		'2024/05/31',
		'2024-5-31',
		'',
	])('%s is not ISO 8601', (text) => {
		expect(isIsoDateTime(text)).toBe(false);
	});

	test('toNumber accepts numbers and plain numeric strings only', () => {
		expect(toNumber(' 12.5 ')).toBe(12.5);
		expect(toNumber('1e3')).toBe(1000);
		expect(toNumber('0x10')).toBeUndefined();
		expect(toNumber('')).toBeUndefined();
		expect(toNumber(Number.NaN)).toBeUndefined();
	});
});
