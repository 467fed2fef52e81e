import type { IDataObject, INodeProperties } from 'n8n-workflow';
import type { RetryPolicy } from '../../shared/transport';
import type { Fields } from '../../shared/validation';
import { checkOptionalInteger } from '../../shared/validation';
import { concurrencyOption } from '../../shared/options';

const DEFAULT_MAX_RETRIES = 3;
const MAX_RETRIES_LIMIT = 10;
const DEFAULT_RETRY_DELAY_MS = 1000;
const MAX_RETRY_WAIT_MS = 30_000;

/** Default of "Concurrent Requests" (see BENCHMARKS.md, "Side by side in one n8n"). */
export const DEFAULT_CONCURRENCY = 20;

/** displayOptions.show of the flow's `operations`. */
export function showFor(...operation: string[]): Record<string, string[]> {
	return { operation, resource: ['flow'] };
}

/** The Options of an operation: retries, Concurrent Requests (not for Create and Wait's one item), and the creates' Validate switches. */
export function flowOptions(operation: 'create' | 'createAndWait' | 'delete'): INodeProperties {
	const create = operation !== 'delete';
	const options: INodeProperties[] = [
		{
			displayName: 'Max Retries',
			name: 'maxRetries',
			type: 'number',
			typeOptions: { minValue: 0, maxValue: MAX_RETRIES_LIMIT },
			default: DEFAULT_MAX_RETRIES,
			description: create
				? 'How often to retry when the service answers 429 (too many requests) or 503 (unavailable), which mean it did not process the request. A create is never sent again once it may have reached the service.'
				: 'How often to retry when the service is busy (429, 503), its gateway fails (502, 504) or the connection breaks. A Delete is sent again then (set 0 if a second delete could harm).',
		},
		{
			displayName: 'Retry Wait (Ms)',
			name: 'retryDelayMs',
			type: 'number',
			typeOptions: { minValue: 0, maxValue: MAX_RETRY_WAIT_MS },
			default: DEFAULT_RETRY_DELAY_MS,
			description:
				'First wait before a retry, in milliseconds, doubled for each further retry. A Retry-After from the service takes precedence (up to 30 seconds).',
		},
	];
	if (operation !== 'createAndWait') options.unshift(concurrencyOption(DEFAULT_CONCURRENCY));
	if (create) {
		options.push(
			{
				displayName: 'Validate National ID',
				name: 'validateNationalId',
				type: 'boolean',
				default: true,
				description:
					'Whether to check the national identity number (11 digits, a valid date, control digits; D- and test numbers too) before sending',
			},
			{
				displayName: 'Validate Organization Number',
				name: 'validateOrganizationNumber',
				type: 'boolean',
				default: true,
				description:
					'Whether to check the organization number (9 digits, a valid mod-11 check digit) before sending',
			},
		);
	}
	return {
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add option',
		default: {},
		displayOptions: { show: showFor(operation) },
		options,
	};
}

export function retryPolicyFrom(
	fields: Fields,
	itemIndex: number,
	options: IDataObject,
	fixed: Pick<RetryPolicy, 'retryStatuses' | 'idempotent'>,
): RetryPolicy {
	return {
		maxRetries: fields.take(
			itemIndex,
			'options.maxRetries',
			checkOptionalInteger(options.maxRetries, DEFAULT_MAX_RETRIES, 0, MAX_RETRIES_LIMIT),
		),
		baseDelayMs: fields.take(
			itemIndex,
			'options.retryDelayMs',
			checkOptionalInteger(options.retryDelayMs, DEFAULT_RETRY_DELAY_MS, 0, MAX_RETRY_WAIT_MS),
		),
		maxDelayMs: MAX_RETRY_WAIT_MS,
		...fixed,
	};
}

/** What n8n's Retry On Fail would send again (shared/retry-on-fail.ts); Delete is idempotent and runs. */
export function createsAgain(operation: string): string | null {
	return operation === 'create' || operation === 'createAndWait'
		? 'send creates the service already accepted a second time (a person would get two consent flows)'
		: null;
}

export const RETRY_ON_FAIL_HINT =
	'The node retries by itself, and only what the service did not take: answers 429 or 503 and requests that never left (Options → Max Retries, Retry Wait). To run again after other failures, use Continue On Fail (error output) and handle those items in the workflow.';
