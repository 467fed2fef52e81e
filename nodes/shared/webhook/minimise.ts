/**
 * Minimise Personal Data: what the Consent Flow Trigger and Create and Wait for Outcome leave out
 * of their items. Pure functions (n8n-workflow only for a type).
 *
 * Every item a node emits is saved with the execution (unless the workflow's settings say
 * otherwise) and shown to everyone who can open the workflow, so an item should hold only what
 * the workflow needs. The lender already knows the applicant's national ID (it started the flow,
 * and `externalId` and `flowId` tie an event to its application); the authorization code is not
 * needed to act on an event; the raw body of a delivery the node does not understand can hold
 * anything.
 */
import type { INodeProperties } from 'n8n-workflow';
import { IDENTITY_FIELDS, maskIdentityNumbers } from '../personal';
import { MAX_DEPTH } from './envelope';

/**
 * - keep: everything as received (version 1 of both nodes, where the parameter is absent);
 * - mask: the national ID masked, the authorization code and an unrecognised raw body left out;
 * - leaveOut: the national ID left out as well.
 */
export type MinimiseMode = 'keep' | 'mask' | 'leaveOut';

export const MINIMISE_PARAMETER = 'minimisePersonalData';

/** The value saved workflows without the parameter mean: what the nodes always did. */
export const MINIMISE_KEEP: MinimiseMode = 'keep';
/** The default of new nodes (version 1.1): see the README, "Personal data". */
export const MINIMISE_DEFAULT: MinimiseMode = 'mask';

export const MINIMISE_OPTIONS: Array<{ name: string; value: MinimiseMode; description: string }> =
	[
		{
			name: 'Keep Everything',
			value: 'keep',
			description: 'Every field as the service sent it, including national ID and authorization code',
		},
		{
			name: 'Leave Out National ID',
			value: 'leaveOut',
			description:
				'National ID, authorization code and the raw body of unrecognised deliveries left out',
		},
		{
			name: 'Mask National ID',
			value: 'mask',
			description:
				'National ID shown as *********NN (the last two digits only); authorization code and the raw body of unrecognised deliveries left out',
		},
	];

/**
 * The mode a parameter value stands for. Anything unknown (e.g. an expression giving a typo)
 * minimises the most: a wrong setting must not put more personal data into executions.
 */
export function minimiseMode(value: unknown): MinimiseMode {
	return value === 'keep' || value === 'mask' ? value : 'leaveOut';
}

/** How many trailing characters a masked national ID shows. */
const SHOWN = 2;

/**
 * A national ID with all but its last two characters replaced by `*`, the length kept. The last
 * two of an 11-digit number are its check digits, computed from the others: enough to tell two
 * applicants apart by eye, not enough to find a person. Masking a masked value changes nothing.
 */
export function maskNationalId(value: unknown): unknown {
	if (Number.isFinite(value)) value = String(value);
	if (typeof value !== 'string') return value;
	const shown = value.length > SHOWN * 2 ? SHOWN : 0;
	return '*'.repeat(value.length - shown) + value.slice(value.length - shown);
}

type JsonObject = { [key: string]: unknown };

function isObject(value: unknown): value is JsonObject {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The authorization code's field name, lower-cased (field names are matched in any case). */
const AUTHORIZATION_CODE = 'authorizationcode';

/**
 * Levels walked: a parsed body has at most MAX_DEPTH (envelope.ts), the item adds one. Anything
 * deeper could not be checked, so it is left out (an empty object or array in its place).
 */
export const MINIMISE_DEPTH = MAX_DEPTH + 1;

/** An identity field's value under 'mask': a text or number masked, null kept, any other form left out. */
function maskedIdentity(value: unknown): unknown {
	return value === null || typeof value === 'string' || typeof value === 'number'
		? maskNationalId(value)
		: undefined;
}

/**
 * A copy of `value` with every identity field (personal.ts IDENTITY_FIELDS, any case) masked or
 * left out and every authorization code left out, in objects and arrays at any level.
 */
function minimiseValue(value: unknown, mode: MinimiseMode, depth: number): unknown {
	if (Array.isArray(value)) {
		return depth < MINIMISE_DEPTH ? value.map((entry) => minimiseValue(entry, mode, depth + 1)) : [];
	}
	if (!isObject(value)) return value;
	const entries: Array<[string, unknown]> = [];
	for (const [key, entry] of depth < MINIMISE_DEPTH ? Object.entries(value) : []) {
		const name = key.toLowerCase();
		const kept = IDENTITY_FIELDS.has(name)
			? mode === 'mask'
				? maskedIdentity(entry)
				: undefined
			: name === AUTHORIZATION_CODE
				? undefined
				: minimiseValue(entry, mode, depth + 1);
		if (kept !== undefined) entries.push([key, kept]);
	}
	// fromEntries defines own properties: a `__proto__` key stays a key
	return Object.fromEntries(entries);
}

/**
 * An event item (as envelope.ts's eventItem builds it) under `mode`: identity fields masked or
 * left out and authorization codes left out wherever they are in the item and its payload; the
 * rest (the data of consent.data) as received, which the workflow needs.
 */
export function minimiseEventItem(item: JsonObject, mode: MinimiseMode): JsonObject {
	if (mode === 'keep') return item;
	return minimiseValue(item, mode, 0) as JsonObject;
}

/**
 * An Unrecognised item (envelope.ts's unrecognisedItem) under `mode`: without `rawBody` (and
 * `rawBodyTruncated`), with `rawBodyLength`, the length of the whole body as text, so that the
 * workflow still sees that something arrived and how much.
 */
export function minimiseUnrecognisedItem(
	item: JsonObject,
	rawText: string,
	mode: MinimiseMode,
): JsonObject {
	if (mode === 'keep') return item;
	const minimised: JsonObject = {};
	for (const [key, value] of Object.entries(item)) {
		if (key === 'rawBody') minimised.rawBodyLength = rawText.length;
		else if (key !== 'rawBodyTruncated') minimised[key] = value;
	}
	return minimised;
}

/**
 * The parameter, once per node version: absent in a workflow saved with version 1, n8n fills in
 * that version's default, so such workflows keep their items as they were; new nodes (1.1)
 * minimise.
 */
export function minimiseProperties(
	show: { [parameter: string]: string[] },
	description: string,
): INodeProperties[] {
	const property = {
		displayName: 'Minimise Personal Data',
		name: MINIMISE_PARAMETER,
		type: 'options' as const,
		options: MINIMISE_OPTIONS,
		description,
	};
	return [
		{ ...property, default: MINIMISE_KEEP, displayOptions: { show: { ...show, '@version': [1] } } },
		{
			...property,
			default: MINIMISE_DEFAULT,
			displayOptions: { show: { ...show, '@version': [{ _cnd: { gte: 1.1 } }] } },
		},
	];
}

/** CloudEvents context attributes whose content is not personal: kept by Include Headers. */
const PUBLIC_CE_HEADERS = new Set([
	'ce-specversion',
	'ce-type',
	'ce-source',
	'ce-id',
	'ce-time',
	'ce-datacontenttype',
	'ce-dataschema',
]);

/**
 * The request headers Include Headers copies into an item, under `mode`: `ce-subject` and every
 * CloudEvents extension (`ce-` headers not listed above) left out — their content is not
 * published — and identity numbers masked in every value kept.
 */
export function minimiseHeaders(
	headers: Record<string, unknown>,
	mode: MinimiseMode,
): Record<string, unknown> {
	if (mode === 'keep') return headers;
	const entries: Array<[string, unknown]> = [];
	for (const [name, value] of Object.entries(headers)) {
		const lower = name.toLowerCase();
		if (lower.startsWith('ce-') && !PUBLIC_CE_HEADERS.has(lower)) continue;
		entries.push([name, maskHeaderValue(value)]);
	}
	return Object.fromEntries(entries);
}

function maskHeaderValue(value: unknown): unknown {
	if (typeof value === 'string') return maskIdentityNumbers(value);
	return Array.isArray(value) ? value.map(maskHeaderValue) : value;
}
