import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

export const MAX_CONCURRENCY = 100;

export function concurrencyOption(defaultValue: number, extra = ''): INodeProperties {
	return {
		displayName: 'Concurrent Requests',
		name: 'concurrency',
		type: 'number',
		default: defaultValue,
		typeOptions: { minValue: 1, maxValue: MAX_CONCURRENCY, numberPrecision: 0 },
		description:
			`The most requests in flight at once, fewer while the service answers 429 or 503. ${extra.trim()}`.trim(),
	};
}

/** Read from the first item: it applies to the whole run. */
export function concurrencyFrom(ctx: IExecuteFunctions, defaultValue: number): number {
	const value = ctx.getNodeParameter('options.concurrency', 0, defaultValue);
	const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
	if (typeof number !== 'number' || !Number.isFinite(number)) return defaultValue;
	return Math.min(MAX_CONCURRENCY, Math.max(1, Math.floor(number)));
}
