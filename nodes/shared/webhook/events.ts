// The trigger's events: one table generates outputs, output names and the Events option.
// Each entry says which node version introduced it (docs/architecture.md, "Adding an event").
import type { INodeProperties } from 'n8n-workflow';

export interface TriggerEventEntry {
	/** Event name as sent by the service; also the Events option value. */
	value: string;
	/** Short enough for the canvas (the event name stays in the item). */
	outputName: string;
	displayName: string;
	description: string;
	/** The node version that introduced the event. */
	since: number;
}

export const EVENT_TABLE = [
	{
		value: 'consent.created',
		outputName: 'Created',
		displayName: 'Consent Created',
		description: 'A new consent request was created',
		since: 1,
	},
	{
		value: 'consent.accepted',
		outputName: 'Accepted',
		displayName: 'Consent Accepted',
		description: 'The user accepted the consent',
		since: 1,
	},
	{
		value: 'consent.rejected',
		outputName: 'Rejected',
		displayName: 'Consent Rejected',
		description: 'The user rejected the consent',
		since: 1,
	},
	{
		value: 'consent.deleted',
		outputName: 'Deleted',
		displayName: 'Consent Deleted',
		description: 'A consent was deleted (after a flow was deleted)',
		since: 1,
	},
	{
		value: 'consent.data',
		outputName: 'Data',
		displayName: 'Consent Data',
		description: 'The consent data was delivered (always after Consent Accepted)',
		since: 1,
	},
	{
		value: 'consent.timedOut',
		outputName: 'Expired',
		displayName: 'Consent Timed Out',
		description: 'An accepted consent is no longer valid',
		since: 1,
	},
	{
		value: 'consent.timedOutDataFailed',
		outputName: 'Expired No Data',
		displayName: 'Consent Timed Out Data Failed',
		description: 'An accepted consent is no longer valid and its data could not be fetched',
		since: 1,
	},
	{
		value: 'user.timedOut',
		outputName: 'User Timed Out',
		displayName: 'User Timed Out',
		description: 'The user did not answer the consent request in time (about 10 days)',
		since: 1,
	},
	{
		value: 'tax.dataFailed',
		outputName: 'No Tax Data',
		displayName: 'Tax Data Failed',
		description: 'Tax data could not be fetched',
		since: 1,
	},
	{
		value: 'income.dataFailed',
		outputName: 'No Income Data',
		displayName: 'Income Data Failed',
		description: 'Income data could not be fetched',
		since: 1,
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

export interface OutputEntry {
	value: string;
	name: string;
	since: number;
}

export type EventSelection = { ok: true; values: Set<string> } | { ok: false; message: string };

/** Which versions see a property: from one `since` up to (not including) the next. */
function versionRange(from: number, until: number | undefined): INodeProperties['displayOptions'] {
	const show = { '@version': [{ _cnd: { gte: from } }] };
	const hide = until === undefined ? undefined : { '@version': [{ _cnd: { gte: until } }] };
	return hide === undefined ? { show } : { show, hide };
}

// Everything derived from a table (tests pass a fixture). A node knows the events with
// since <= its version; no version: every event.
export function eventCatalogue(table: readonly TriggerEventEntry[]) {
	const every: readonly OutputEntry[] = [
		...table.map((entry) => ({ value: entry.value, name: entry.outputName, since: entry.since })),
		{ value: UNRECOGNISED_ENTRY.value, name: UNRECOGNISED_ENTRY.outputName, since: 1 },
	];
	const known = (since: number, nodeVersion?: number) =>
		nodeVersion === undefined || since <= nodeVersion;

	const outputTable = (nodeVersion?: number): OutputEntry[] =>
		every.filter((output) => known(output.since, nodeVersion));

	const allOptions = (nodeVersion?: number): string[] =>
		outputTable(nodeVersion).map((output) => output.value);

	const eventOptions = (nodeVersion?: number) =>
		[...table, { ...UNRECOGNISED_ENTRY, since: 1 }]
			.filter((entry) => known(entry.since, nodeVersion))
			.map((entry) => ({
				name: entry.displayName,
				value: entry.value,
				description: `${entry.description} (${entry.value === UNRECOGNISED_ENTRY.value ? 'any other event' : entry.value}; output ${entry.outputName})`,
			}))
			.sort((a, b) => a.name.localeCompare(b.name));

	/** The Events property once per set of known events, each shown for its versions only. */
	const eventsProperties = (description: string): INodeProperties[] => {
		const sinces = [...new Set(every.map((output) => output.since))].sort((a, b) => a - b);
		return sinces.map((since, index) => ({
			displayName: 'Events',
			name: 'events',
			type: 'multiOptions',
			options: eventOptions(since),
			default: [...allOptions(since)],
			description,
			...(sinces.length > 1 ? { displayOptions: versionRange(since, sinces[index + 1]) } : {}),
		}));
	};

	// Evaluated by n8n (editor and runtime); output-layout.ts is the same rule in TypeScript.
	const configuredOutputs: `={{${string}}}` = `={{(function (events, mode, version) {
	var all = ${JSON.stringify(every)}.filter(function (output) { return typeof version !== 'number' || output.since <= version; });
	if (mode === 'single') return [{ type: 'main', displayName: ${JSON.stringify(SINGLE_OUTPUT_NAME)} }];
	var picked = Array.isArray(events) ? events : typeof events === 'string' && events.charAt(0) !== '=' ? events.split(',') : [];
	var wanted = picked.map(function (value) { return String(value).trim().toLowerCase(); });
	var chosen = all.filter(function (output) { return wanted.indexOf(output.value.toLowerCase()) !== -1; });
	return (chosen.length > 0 ? chosen : all).map(function (output) { return { type: 'main', displayName: output.name }; });
})($parameter.events, $parameter.outputMode, $nodeVersion)}}`;

	const lookups = new Map<number | undefined, Map<string, string>>();
	/** Reads Events (an array, or a comma-separated string; case-insensitive); unknown is an error. */
	const normaliseEventSelection = (value: unknown, nodeVersion?: number): EventSelection => {
		let byLowerValue = lookups.get(nodeVersion);
		if (byLowerValue === undefined) {
			byLowerValue = new Map(
				allOptions(nodeVersion).map((option) => [option.toLowerCase(), option]),
			);
			lookups.set(nodeVersion, byLowerValue);
		}
		const problem = (what: string): EventSelection => ({
			ok: false,
			message: `The trigger is misconfigured: Events contains ${what}, which is not a known event. Use an array or a comma-separated string of: ${allOptions(nodeVersion).join(', ')}.`,
		});
		const values = new Set<string>();
		for (const item of Array.isArray(value) ? value : [value]) {
			if (typeof item !== 'string') return problem(JSON.stringify(item) ?? String(item));
			for (const piece of item.split(',')) {
				const name = piece.trim();
				if (name === '') continue;
				const option = byLowerValue.get(name.toLowerCase());
				if (option === undefined) return problem(JSON.stringify(name));
				values.add(option);
			}
		}
		return { ok: true, values };
	};

	const entryByValue = new Map(table.map((entry) => [entry.value, entry]));
	const eventOption = (event: string | null, nodeVersion: number): string => {
		const entry = event === null ? undefined : entryByValue.get(event);
		return entry !== undefined && known(entry.since, nodeVersion)
			? entry.value
			: UNRECOGNISED_ENTRY.value;
	};

	const outputNameOf = (optionValue: string): string =>
		every.find((output) => output.value === optionValue)?.name ?? UNRECOGNISED_ENTRY.outputName;

	return {
		outputTable,
		allOptions,
		eventOptions,
		eventsProperties,
		configuredOutputs,
		normaliseEventSelection,
		eventOption,
		outputNameOf,
	};
}

export type EventCatalogue = ReturnType<typeof eventCatalogue>;

// The exports below are the newest node version's view of the real table.
export const EVENTS: EventCatalogue = eventCatalogue(EVENT_TABLE);

export const CONSENT_EVENTS: readonly ConsentEvent[] = EVENT_TABLE.map((entry) => entry.value);

/** Every possible output, in output order: the events, then Unrecognised. */
export const OUTPUT_TABLE: readonly OutputEntry[] = EVENTS.outputTable();

export const OUTPUT_NAMES: readonly string[] = OUTPUT_TABLE.map((output) => output.name);

export const CONFIGURED_OUTPUTS = EVENTS.configuredOutputs;

export const UNRECOGNISED_INDEX = EVENT_TABLE.length;

export const ALL_EVENT_OPTIONS: readonly string[] = EVENTS.allOptions();

export const EVENT_OPTIONS = EVENTS.eventOptions();

export const eventsProperties = EVENTS.eventsProperties;

export const outputNameOf = EVENTS.outputNameOf;

/** Without `nodeVersion`: the events of the newest node version. */
export function normaliseEventSelection(value: unknown, nodeVersion?: number): EventSelection {
	return EVENTS.normaliseEventSelection(value, nodeVersion);
}

/** The Events option a delivery belongs to on a node of this version: its event, else Unrecognised. */
export function eventOption(event: string | null, nodeVersion: number): string {
	return EVENTS.eventOption(event, nodeVersion);
}
