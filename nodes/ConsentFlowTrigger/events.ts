/**
 * The trigger's events: the one table the outputs, the output names, the Events option list
 * and its default are generated from. Pure data, no n8n imports.
 *
 * Order is output order (the service description's order); the Events option list is shown
 * sorted by name.
 */

export interface TriggerEventEntry {
	/** Event name as sent by the service; also the Events option value and the output name. */
	value: string;
	/** Name of the Events option. */
	displayName: string;
	/** Description of the Events option. */
	description: string;
}

export const EVENT_TABLE = [
	{
		value: 'consent.created',
		displayName: 'Consent Created',
		description: 'A new consent request was created',
	},
	{
		value: 'consent.accepted',
		displayName: 'Consent Accepted',
		description: 'The user accepted the consent',
	},
	{
		value: 'consent.rejected',
		displayName: 'Consent Rejected',
		description: 'The user rejected the consent',
	},
	{
		value: 'consent.deleted',
		displayName: 'Consent Deleted',
		description: 'A consent was deleted (after a flow was deleted)',
	},
	{
		value: 'consent.data',
		displayName: 'Consent Data',
		description: 'The consent data was delivered (always after Consent Accepted)',
	},
	{
		value: 'consent.timedOut',
		displayName: 'Consent Timed Out',
		description: 'An accepted consent is no longer valid',
	},
	{
		value: 'consent.timedOutDataFailed',
		displayName: 'Consent Timed Out Data Failed',
		description: 'An accepted consent is no longer valid and its data could not be fetched',
	},
	{
		value: 'user.timedOut',
		displayName: 'User Timed Out',
		description: 'The user did not answer the consent request in time (about 10 days)',
	},
	{
		value: 'tax.dataFailed',
		displayName: 'Tax Data Failed',
		description: 'Tax data could not be fetched',
	},
	{
		value: 'income.dataFailed',
		displayName: 'Income Data Failed',
		description: 'Income data could not be fetched',
	},
] as const satisfies readonly TriggerEventEntry[];

export type ConsentEvent = (typeof EVENT_TABLE)[number]['value'];

/** The Events option and the output for correctly signed deliveries that are not a known event. */
export const UNRECOGNISED_ENTRY = {
	value: 'unrecognised',
	displayName: 'Unrecognised Delivery',
	description:
		'A correctly signed delivery that is not JSON or names no known event (Unrecognised output)',
	outputName: 'Unrecognised',
} as const;

/** The ten event names, in output order. */
export const CONSENT_EVENTS: readonly ConsentEvent[] = EVENT_TABLE.map((entry) => entry.value);

/** Output names, in output order: the ten events, then `Unrecognised` (index 10). */
export const OUTPUT_NAMES: readonly string[] = [...CONSENT_EVENTS, UNRECOGNISED_ENTRY.outputName];

export const UNRECOGNISED_INDEX = EVENT_TABLE.length;

/** Every value of the Events option, in output order (its default: everything). */
export const ALL_EVENT_OPTIONS: readonly string[] = [...CONSENT_EVENTS, UNRECOGNISED_ENTRY.value];

/** The Events option list, sorted by name. */
export const EVENT_OPTIONS: Array<{ name: string; value: string; description: string }> = [
	...EVENT_TABLE,
	UNRECOGNISED_ENTRY,
]
	.map((entry) => ({ name: entry.displayName, value: entry.value, description: entry.description }))
	.sort((a, b) => a.name.localeCompare(b.name));

const OPTION_BY_LOWER_VALUE = new Map(
	ALL_EVENT_OPTIONS.map((value) => [value.toLowerCase(), value]),
);

export type EventSelection = { ok: true; values: Set<string> } | { ok: false; message: string };

/**
 * Reads the Events parameter, also when an expression gave it as a string: an array, or one
 * string separated by commas; values are trimmed, matched case-insensitively to the known
 * option values, empty pieces ignored. Anything unknown is a configuration error whose message
 * names the parameter and the value.
 */
export function normaliseEventSelection(value: unknown): EventSelection {
	const known = ALL_EVENT_OPTIONS.join(', ');
	const problem = (what: string): EventSelection => ({
		ok: false,
		message: `The trigger is misconfigured: Events contains ${what}, which is not a known event. Use an array or a comma-separated string of: ${known}.`,
	});
	const items: unknown[] = Array.isArray(value) ? value : [value];
	const values = new Set<string>();
	for (const item of items) {
		if (typeof item !== 'string') return problem(JSON.stringify(item) ?? String(item));
		for (const piece of item.split(',')) {
			const name = piece.trim();
			if (name === '') continue;
			const option = OPTION_BY_LOWER_VALUE.get(name.toLowerCase());
			if (option === undefined) return problem(JSON.stringify(name));
			values.add(option);
		}
	}
	return { ok: true, values };
}
