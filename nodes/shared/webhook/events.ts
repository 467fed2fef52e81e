/**
 * The trigger's events: the one table the outputs, the output names, the Events option list
 * and its default are generated from. Pure data, no n8n imports.
 *
 * Order is output order (the service description's order); the Events option list is shown
 * sorted by name.
 */

export interface TriggerEventEntry {
	/** Event name as sent by the service; also the Events option value. */
	value: string;
	/** Name of the event's output on the canvas: short enough to be read there (the event name stays in the item). */
	outputName: string;
	/** Name of the Events option. */
	displayName: string;
	/** Description of the Events option. */
	description: string;
}

export const EVENT_TABLE = [
	{
		value: 'consent.created',
		outputName: 'Created',
		displayName: 'Consent Created',
		description: 'A new consent request was created',
	},
	{
		value: 'consent.accepted',
		outputName: 'Accepted',
		displayName: 'Consent Accepted',
		description: 'The user accepted the consent',
	},
	{
		value: 'consent.rejected',
		outputName: 'Rejected',
		displayName: 'Consent Rejected',
		description: 'The user rejected the consent',
	},
	{
		value: 'consent.deleted',
		outputName: 'Deleted',
		displayName: 'Consent Deleted',
		description: 'A consent was deleted (after a flow was deleted)',
	},
	{
		value: 'consent.data',
		outputName: 'Data',
		displayName: 'Consent Data',
		description: 'The consent data was delivered (always after Consent Accepted)',
	},
	{
		value: 'consent.timedOut',
		outputName: 'Expired',
		displayName: 'Consent Timed Out',
		description: 'An accepted consent is no longer valid',
	},
	{
		value: 'consent.timedOutDataFailed',
		outputName: 'Expired No Data',
		displayName: 'Consent Timed Out Data Failed',
		description: 'An accepted consent is no longer valid and its data could not be fetched',
	},
	{
		value: 'user.timedOut',
		outputName: 'User Timed Out',
		displayName: 'User Timed Out',
		description: 'The user did not answer the consent request in time (about 10 days)',
	},
	{
		value: 'tax.dataFailed',
		outputName: 'No Tax Data',
		displayName: 'Tax Data Failed',
		description: 'Tax data could not be fetched',
	},
	{
		value: 'income.dataFailed',
		outputName: 'No Income Data',
		displayName: 'Income Data Failed',
		description: 'Income data could not be fetched',
	},
] as const satisfies readonly TriggerEventEntry[];

export type ConsentEvent = (typeof EVENT_TABLE)[number]['value'];

/** The Events option and the output for correctly signed deliveries that are not a known event. */
export const UNRECOGNISED_ENTRY = {
	value: 'unrecognised',
	displayName: 'Unrecognised Delivery',
	description: 'A correctly signed delivery that is not JSON or names no known event',
	outputName: 'Unrecognised',
} as const;

/** The ten event names, in output order. */
export const CONSENT_EVENTS: readonly ConsentEvent[] = EVENT_TABLE.map((entry) => entry.value);

/** Events option value and output name of every possible output, in output order: the ten events, then Unrecognised (index 10). */
export const OUTPUT_TABLE: ReadonlyArray<{ value: string; name: string }> = [
	...EVENT_TABLE.map((entry) => ({ value: entry.value, name: entry.outputName })),
	{ value: UNRECOGNISED_ENTRY.value, name: UNRECOGNISED_ENTRY.outputName },
];

/** Output names with every event selected, in output order. */
export const OUTPUT_NAMES: readonly string[] = OUTPUT_TABLE.map((output) => output.name);

/** The one output of the "One for All Events" mode. */
export const SINGLE_OUTPUT_NAME = 'Event';

export const OUTPUT_MODES = [
	{
		name: 'One Per Event',
		value: 'perEvent',
		description: 'Each selected event gets an output of its own',
	},
	{
		name: 'One for All Events',
		value: 'single',
		description: 'Every selected event goes to one output, to do the same for each',
	},
] as const;

export type OutputMode = (typeof OUTPUT_MODES)[number]['value'];

/**
 * The node's outputs, computed by n8n from the parameters as the editor holds them
 * (`$parameter`): One for All Events → one output "Event"; otherwise one output per selected
 * event in output order. A selection n8n cannot read here (an expression resolved only at run
 * time, or nothing selected) keeps every output. The tests evaluate this expression with
 * n8n-workflow and compare it with the same rule written once more in plain TypeScript.
 */
export const CONFIGURED_OUTPUTS: `={{${string}}}` = `={{(function (events, mode) {
	var all = ${JSON.stringify(OUTPUT_TABLE)};
	if (mode === 'single') return [{ type: 'main', displayName: ${JSON.stringify(SINGLE_OUTPUT_NAME)} }];
	var picked = Array.isArray(events) ? events : typeof events === 'string' && events.charAt(0) !== '=' ? events.split(',') : [];
	var wanted = picked.map(function (value) { return String(value).trim().toLowerCase(); });
	var chosen = all.filter(function (output) { return wanted.indexOf(output.value.toLowerCase()) !== -1; });
	return (chosen.length > 0 ? chosen : all).map(function (output) { return { type: 'main', displayName: output.name }; });
})($parameter.events, $parameter.outputMode)}}`;

/** The output name of an Events option value (an event name, or `unrecognised`). */
export function outputNameOf(optionValue: string): string {
	return (
		OUTPUT_TABLE.find((output) => output.value === optionValue)?.name ??
		UNRECOGNISED_ENTRY.outputName
	);
}

export const UNRECOGNISED_INDEX = EVENT_TABLE.length;

/** Every value of the Events option, in output order (its default: everything). */
export const ALL_EVENT_OPTIONS: readonly string[] = OUTPUT_TABLE.map((output) => output.value);

/** The Events option list, sorted by name. */
export const EVENT_OPTIONS: Array<{ name: string; value: string; description: string }> = [
	...EVENT_TABLE,
	UNRECOGNISED_ENTRY,
]
	// The event name as the service sends it and as it stays in the item, and the output it opens.
	.map((entry) => ({
		name: entry.displayName,
		value: entry.value,
		description: `${entry.description} (${entry.value === UNRECOGNISED_ENTRY.value ? 'any other event' : entry.value}; output ${entry.outputName})`,
	}))
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

/** The Events option a delivery belongs to on a node of this version: its event, else Unrecognised. */
export function eventOption(event: string | null, nodeVersion: number): string {
	// placeholder until the event table knows versions (issue 32, adding an event)
	return event !== null && !(nodeVersion < 1) ? event : UNRECOGNISED_ENTRY.value;
}
