// The trigger's events: one table generates outputs, output names and the Events option.
import type { INodeProperties } from 'n8n-workflow';

/** `value`: the event name as sent by the service; `outputName`: short enough for the canvas. */
export const EVENT_TABLE = [
	{
		value: 'consent.created',
		outputName: 'Created',
		description: 'A new consent request was created',
	},
	{
		value: 'consent.accepted',
		outputName: 'Accepted',
		description: 'The user accepted the consent',
	},
	{
		value: 'consent.rejected',
		outputName: 'Rejected',
		description: 'The user rejected the consent',
	},
	{
		value: 'consent.deleted',
		outputName: 'Deleted',
		description: 'A consent was deleted (after a flow was deleted)',
	},
	{
		value: 'consent.data',
		outputName: 'Data',
		description: 'The consent data was delivered (always after Consent Accepted)',
	},
	{
		value: 'consent.timedOut',
		outputName: 'Expired',
		description: 'An accepted consent is no longer valid',
	},
	{
		value: 'consent.timedOutDataFailed',
		outputName: 'Expired No Data',
		description: 'An accepted consent is no longer valid and its data could not be fetched',
	},
	{
		value: 'user.timedOut',
		outputName: 'User Timed Out',
		description: 'The user did not answer the consent request in time (about 10 days)',
	},
	{
		value: 'tax.dataFailed',
		outputName: 'No Tax Data',
		description: 'Tax data could not be fetched',
	},
	{
		value: 'income.dataFailed',
		outputName: 'No Income Data',
		description: 'Income data could not be fetched',
	},
] as const;

export type ConsentEvent = (typeof EVENT_TABLE)[number]['value'];

/** The Events option and the output for correctly signed deliveries that are not a known event. */
export const UNRECOGNISED_ENTRY = {
	value: 'unrecognised',
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

export type EventSelection = { ok: true; values: Set<string> } | { ok: false; message: string };

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
	all: ReadonlyArray<{ value: string; name: string }>,
	single: string,
	read: typeof readEvents,
): Array<{ type: string; displayName: string }> {
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

/** Every output in order: the events, then Unrecognised (n8n stores connections by index). */
export const OUTPUT_TABLE = [...EVENT_TABLE, UNRECOGNISED_ENTRY].map((entry) => ({
	value: entry.value,
	name: entry.outputName,
}));

export const CONSENT_EVENTS: readonly ConsentEvent[] = EVENT_TABLE.map((entry) => entry.value);

export const ALL_EVENT_OPTIONS: readonly string[] = OUTPUT_TABLE.map((output) => output.value);

// `}}` would end n8n's expression early: the table's objects are flat, so it holds none
export const CONFIGURED_OUTPUTS: `={{${string}}}` = `={{(${outputsOf})($parameter, ${JSON.stringify(OUTPUT_TABLE)}, ${JSON.stringify(SINGLE_OUTPUT_NAME)}, ${readEvents})}}`;

const isExpression = (value: unknown): boolean =>
	typeof value === 'string'
		? value.startsWith('=')
		: typeof value === 'object' && value !== null && Object.values(value).some(isExpression);

/** The output names of saved parameters, by the rule n8n evaluates (so execute() evaluates no expression); null if one holds an expression. */
export function staticOutputNames(
	parameters: Record<string, unknown> | undefined,
): string[] | null {
	if (isExpression(parameters?.events) || isExpression(parameters?.outputMode)) return null;
	return outputsOf(parameters, OUTPUT_TABLE, SINGLE_OUTPUT_NAME, readEvents).map(
		(o) => o.displayName,
	);
}

/** `consent.timedOut` is shown as Consent Timed Out. */
const displayNameOf = (value: string): string =>
	value.replace(/\.|(?=[A-Z])/g, ' ').replace(/\b[a-z]/g, (letter) => letter.toUpperCase());

/** The Events property: every event and Unrecognised, all selected by default. */
export function eventsProperty(): INodeProperties {
	return {
		displayName: 'Events',
		name: 'events',
		type: 'multiOptions',
		options: [...EVENT_TABLE, UNRECOGNISED_ENTRY]
			.map((entry) => ({
				name: entry === UNRECOGNISED_ENTRY ? 'Unrecognised Delivery' : displayNameOf(entry.value),
				value: entry.value,
				description: `${entry.description} (${entry === UNRECOGNISED_ENTRY ? 'any other event' : entry.value}; output ${entry.outputName})`,
			}))
			.sort((a, b) => a.name.localeCompare(b.name)),
		default: [...ALL_EVENT_OPTIONS],
		description: 'Deliveries that start the workflow; others are acknowledged and dropped',
	};
}

/** The deliveries Events lets through; anything it names that is no option is an error. */
export function normaliseEventSelection(value: unknown): EventSelection {
	const { chosen, unknown } = readEvents(value, ALL_EVENT_OPTIONS);
	if (unknown.length === 0) return { ok: true, values: new Set(chosen) };
	const what = JSON.stringify(unknown[0]) ?? String(unknown[0]);
	return {
		ok: false,
		message: `The trigger is misconfigured: Events contains ${what}, which is not a known event. Use an array or a comma-separated string of: ${ALL_EVENT_OPTIONS.join(', ')}.`,
	};
}

/** The Events option a delivery belongs to: its event, else Unrecognised. */
export const eventOption = (event: string | null): string =>
	CONSENT_EVENTS.find((known) => known === event) ?? UNRECOGNISED_ENTRY.value;

export const outputNameOf = (optionValue: string): string =>
	OUTPUT_TABLE.find((output) => output.value === optionValue)?.name ??
	UNRECOGNISED_ENTRY.outputName;
