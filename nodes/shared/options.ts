import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { MAX_CONCURRENCY, normaliseConcurrency } from './pool';

export function concurrencyOption(defaultValue: number, extra = ''): INodeProperties {
	const base = `The most requests in flight at the same time. The node starts at ${defaultValue} (or this value if lower), adds one while the service answers fast and halves when it answers 429 or 503, pausing every request for a Retry-After; it never goes above this value. Output order and item pairing stay as in the input.`;
	const description = extra ? `${base} ${extra.trim()}` : base;
	return {
		displayName: 'Concurrent Requests',
		name: 'concurrency',
		type: 'number',
		default: defaultValue,
		typeOptions: { minValue: 1, maxValue: MAX_CONCURRENCY, numberPrecision: 0 },
		description,
	};
}

/** Read from the first item: it applies to the whole run. */
export function concurrencyFrom(ctx: IExecuteFunctions, defaultValue: number): number {
	return normaliseConcurrency(
		ctx.getNodeParameter('options.concurrency', 0, defaultValue),
		defaultValue,
	);
}
