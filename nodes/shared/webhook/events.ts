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

interface OutputEntry {
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

/** A node knows the events with since <= its version; no version: every event. */
const known = (since: number, nodeVersion?: number) =>
	nodeVersion === undefined || since <= nodeVersion;

/** An output as n8n draws it. */
interface OutputSpec {
	type: string;
	displayName: string;
}

// Stryker disable all: n8n evaluates these functions' source, where a mutant's switch does not exist
/**
 * Reads Events, the one reader for the outputs and the deliveries: an array or comma-separated
 * string of option values in any case; what matches no option is returned as is, in order.
 */
export function readEvents(
	value: unknown,
	options: readonly string[],
): { chosen: string[]; unknown: unknown[] } {
	const chosen: string[] = [];
	const unknown: unknown[] = [];
	const lower = options.map((option) => option.toLowerCase());
	(Array.isArray(value) ? value : [value]).forEach((item) => {
		if (typeof item !== 'string') return void unknown.push(item);
		item.split(',').forEach((piece) => {
			const name = piece.trim();
			if (name === '') return;
			const at = lower.indexOf(name.toLowerCase());
			if (at === -1) unknown.push(name);
			else if (chosen.indexOf(options[at]) === -1) chosen.push(options[at]);
		});
	});
	return { chosen, unknown };
}

/**
 * The output rule, written once (as n8n's Webhook node does): n8n evaluates its source as the
 * outputs expression, so it closes over nothing (`read` is readEvents, passed in); execute() calls
 * it on the saved parameters. Nothing chosen shows every output.
 */
export function outputsOf(
	parameters: { events?: unknown; outputMode?: unknown } | undefined,
	version: unknown,
	every: readonly OutputEntry[],
	single: string,
	read: typeof readEvents,
): OutputSpec[] {
	const all = every.filter((output) => typeof version !== 'number' || output.since <= version);
	if (parameters && parameters.outputMode === 'single')
		return [{ type: 'main', displayName: single }];
	const events = parameters ? parameters.events : undefined;
	const chosen = read(
		events,
		all.map((output) => output.value),
	).chosen;
	const shown = all.filter((output) => chosen.indexOf(output.value) !== -1);
	return (shown.length > 0 ? shown : all).map((output) => ({
		type: 'main',
		displayName: output.name,
	}));
}
// Stryker restore all

/** The Events options a node of `since` offers, by display name. */
function eventOptionsOf(table: readonly TriggerEventEntry[], nodeVersion?: number) {
	return [...table, { ...UNRECOGNISED_ENTRY, since: 1 }]
		.filter((entry) => known(entry.since, nodeVersion))
		.map((entry) => ({
			name: entry.displayName,
			value: entry.value,
			description: `${entry.description} (${entry.value === UNRECOGNISED_ENTRY.value ? 'any other event' : entry.value}; output ${entry.outputName})`,
		}))
		.sort((a, b) => a.name.localeCompare(b.name));
}

/** The Events property once per set of known events, each shown for its versions only. */
function eventsPropertiesOf(
	table: readonly TriggerEventEntry[],
	every: readonly OutputEntry[],
	description: string,
): INodeProperties[] {
	const sinces = [...new Set(every.map((output) => output.since))].sort((a, b) => a - b);
	return sinces.map((since, index) => ({
		displayName: 'Events',
		name: 'events',
		type: 'multiOptions',
		options: eventOptionsOf(table, since),
		default: [...every.filter((output) => known(output.since, since)).map((o) => o.value)],
		description,
		...(sinces.length > 1 ? { displayOptions: versionRange(since, sinces[index + 1]) } : {}),
	}));
}

/** The deliveries Events lets through; anything it names that is no option is an error. */
function selectionOf(value: unknown, options: readonly string[]): EventSelection {
	const { chosen, unknown } = readEvents(value, options);
	if (unknown.length === 0) return { ok: true, values: new Set(chosen) };
	const what = JSON.stringify(unknown[0]) ?? String(unknown[0]);
	return {
		ok: false,
		message: `The trigger is misconfigured: Events contains ${what}, which is not a known event. Use an array or a comma-separated string of: ${options.join(', ')}.`,
	};
}

// Everything derived from a table (tests pass a fixture).
export function eventCatalogue(table: readonly TriggerEventEntry[]) {
	const every: readonly OutputEntry[] = [
		...table.map((entry) => ({ value: entry.value, name: entry.outputName, since: entry.since })),
		{ value: UNRECOGNISED_ENTRY.value, name: UNRECOGNISED_ENTRY.outputName, since: 1 },
	];
	const outputTable = (nodeVersion?: number): OutputEntry[] =>
		every.filter((output) => known(output.since, nodeVersion));
	const allOptions = (nodeVersion?: number): string[] =>
		outputTable(nodeVersion).map((output) => output.value);
	// `}}` would end n8n's expression early: every's objects are flat, so it holds none
	const configuredOutputs: `={{${string}}}` = `={{(${outputsOf})($parameter, $nodeVersion, ${JSON.stringify(every)}, ${JSON.stringify(SINGLE_OUTPUT_NAME)}, ${readEvents})}}`;
	const entryByValue = new Map(table.map((entry) => [entry.value, entry]));
	return {
		outputTable,
		allOptions,
		eventsProperties: (description: string) => eventsPropertiesOf(table, every, description),
		configuredOutputs,
		/** The outputs of saved parameters without expressions: the rule n8n evaluates, called as is. */
		outputsOf: (parameters: Record<string, unknown> | undefined, nodeVersion?: number) =>
			outputsOf(parameters, nodeVersion, every, SINGLE_OUTPUT_NAME, readEvents),
		normaliseEventSelection: (value: unknown, nodeVersion?: number): EventSelection =>
			selectionOf(value, allOptions(nodeVersion)),
		eventOption: (event: string | null, nodeVersion: number): string => {
			const entry = event === null ? undefined : entryByValue.get(event);
			const knownHere = entry !== undefined && known(entry.since, nodeVersion);
			return knownHere ? entry.value : UNRECOGNISED_ENTRY.value;
		},
		outputNameOf: (optionValue: string): string =>
			every.find((output) => output.value === optionValue)?.name ?? UNRECOGNISED_ENTRY.outputName,
	};
}

export type EventCatalogue = ReturnType<typeof eventCatalogue>;

// The exports below are the newest node version's view of the real table.
export const EVENTS: EventCatalogue = eventCatalogue(EVENT_TABLE);

export const CONSENT_EVENTS: readonly ConsentEvent[] = EVENT_TABLE.map((entry) => entry.value);

export const ALL_EVENT_OPTIONS: readonly string[] = EVENTS.allOptions();

// `normaliseEventSelection` without a version: the events of the newest node version.
// `eventOption`: the Events option a delivery belongs to on a node of a version (its event, else Unrecognised).
export const {
	configuredOutputs: CONFIGURED_OUTPUTS,
	eventsProperties,
	outputNameOf,
	normaliseEventSelection,
	eventOption,
} = EVENTS;
