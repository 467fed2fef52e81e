import { daysInMonth } from '../../../nodes/shared/dates';

describe('daysInMonth (Gregorian calendar)', () => {
	test.each([1, 3, 5, 7, 8, 10, 12])('month %i has 31 days', (month) => {
		expect(daysInMonth(2023, month)).toBe(31);
	});

	test.each([4, 6, 9, 11])('month %i has 30 days', (month) => {
		expect(daysInMonth(2023, month)).toBe(30);
	});

	test.each([
		[2024, 29], // divisible by 4
		[2023, 28], // not divisible by 4
		[1900, 28], // divisible by 100 but not by 400
		[2100, 28],
		[2000, 29], // divisible by 400
		[1600, 29],
		[1854, 28],
		[1896, 29],
	])('February %i has %i days', (year, days) => {
		expect(daysInMonth(year, 2)).toBe(days);
	});

	test('agrees with the JavaScript calendar for every month of 1850–2100', () => {
		for (let year = 1850; year <= 2100; year++) {
			for (let month = 1; month <= 12; month++) {
				// day 0 of the next month is the last day of this one
				expect([year, month, daysInMonth(year, month)]).toEqual([
					year,
					month,
					new Date(Date.UTC(year, month, 0)).getUTCDate(),
				]);
			}
		}
	});
});
