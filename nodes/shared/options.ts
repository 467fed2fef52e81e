import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { toNumber } from './validation';

export const MAX_CONCURRENCY = 100;

export function concurrencyOption(defaultValue: number): INodeProperties {
	return {
		displayName: 'Concurrent Requests',
		name: 'concurrency',
		type: 'number',
		default: defaultValue,
		typeOptions: { minValue: 1, maxValue: MAX_CONCURRENCY, numberPrecision: 0 },
		description: 'The most requests in flight at once, fewer while the service answers 429 or 503',
	};
}

/** Read from the first item: it applies to the whole run. */
export function concurrencyFrom(ctx: IExecuteFunctions, defaultValue: number): number {
	const value = ctx.getNodeParameter('options.concurrency', 0, defaultValue);
	const number = toNumber(value);
	if (number === undefined) return defaultValue;
	return Math.min(MAX_CONCURRENCY, Math.max(1, Math.floor(number)));
}
