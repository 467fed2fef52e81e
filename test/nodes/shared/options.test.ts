/**
 * The Concurrent Requests option (nodes/shared/options.ts): one description for every node, bounded
 * in the editor as at run time, read once per run from the first item.
 */
import type { IExecuteFunctions } from 'n8n-workflow';
import { MAX_CONCURRENCY, concurrencyFrom, concurrencyOption } from '../../../nodes/shared/options';

const reading = (value: unknown) => {
	const asked: unknown[][] = [];
	const ctx = {
		getNodeParameter: (...args: unknown[]) => {
			asked.push(args);
			return value;
		},
	} as unknown as IExecuteFunctions;
	return { ctx, asked };
};

describe('concurrencyOption', () => {
	test('a whole number from 1 to the pool bound, defaulting to the node default', () => {
		const option = concurrencyOption(5);
		expect(option).toMatchObject({
			displayName: 'Concurrent Requests',
			name: 'concurrency',
			type: 'number',
			default: 5,
			typeOptions: { minValue: 1, maxValue: MAX_CONCURRENCY, numberPrecision: 0 },
		});
		expect(option.description).toMatch(/in flight.*429 or 503/);
	});
});

describe('concurrencyFrom', () => {
	test('read from the first item, with the default as fallback', () => {
		const { ctx, asked } = reading(7);
		expect(concurrencyFrom(ctx, 5)).toBe(7);
		expect(asked).toEqual([['options.concurrency', 0, 5]]);
	});

	test.each([
		[5, 5],
		['3', 3],
		[0, 1],
		[-4, 1],
		[2.7, 2],
		[1000, MAX_CONCURRENCY],
		['many', 5],
		[undefined, 5],
		['', 5],
	])('a value outside the rule (%p) is brought within it (%p)', (value, expected) => {
		expect(concurrencyFrom(reading(value).ctx, 5)).toBe(expected);
	});
});
