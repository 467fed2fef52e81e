import { isObject, nonEmptyString } from '../../../nodes/shared/json';

describe('isObject', () => {
	test.each([
		[{}, true],
		[{ a: 1 }, true],
		[Object.create(null), true],
		[[], false],
		[null, false],
		[undefined, false],
		['{}', false],
		[1, false],
	])('%p → %p', (value, expected) => {
		expect(isObject(value)).toBe(expected);
	});
});

describe('nonEmptyString', () => {
	// CloudEvents 1.0: `type` and `source` are non-empty strings, kept exactly as sent.
	test.each([
		['consent.created', 'consent.created'],
		[' spaced ', ' spaced '],
		['  ', '  '],
		['', null],
		[1, null],
		[null, null],
		[undefined, null],
		[['a'], null],
	])('%p → %p', (value, expected) => {
		expect(nonEmptyString(value)).toBe(expected);
	});
});
