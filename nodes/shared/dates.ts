/** Calendar facts shared by the validators. */

/** Days in `month` (1–12) of `fullYear`, Gregorian rule (1900 is not a leap year, 2000 is). */
export function daysInMonth(fullYear: number, month: number): number {
	if (month === 2)
		return (fullYear % 4 === 0 && fullYear % 100 !== 0) || fullYear % 400 === 0 ? 29 : 28;
	return [4, 6, 9, 11].includes(month) ? 30 : 31;
}
