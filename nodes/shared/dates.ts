export function daysInMonth(fullYear: number, month: number): number {
	if (month === 2)
		return (fullYear % 4 === 0 && fullYear % 100 !== 0) || fullYear % 400 === 0 ? 29 : 28;
	return [4, 6, 9, 11].includes(month) ? 30 : 31;
}
