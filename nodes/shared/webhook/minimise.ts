// What the nodes leave out of their items, and why: docs/architecture.md#minimise
import type { INodeProperties } from 'n8n-workflow';
import { IDENTITY_FIELDS, maskIdentityNumbers } from '../personal';
import { MAX_DEPTH } from './envelope';

export type MinimiseMode = 'keep' | 'mask' | 'leaveOut';

export const MINIMISE_PARAMETER = 'minimisePersonalData';

// What saved workflows without the parameter mean: what the nodes always did.
export const MINIMISE_KEEP: MinimiseMode = 'keep';
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

// Anything unknown minimises the most: a wrong setting must not put more personal data into executions.
export function minimiseMode(value: unknown): MinimiseMode {
	return value === 'keep' || value === 'mask' ? value : 'leaveOut';
}

const SHOWN = 2;

// The last two are check digits: enough to tell applicants apart by eye, not to find a person.
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

const AUTHORIZATION_CODE = 'authorizationcode';

// Anything deeper could not be checked, so it is left out (an empty object or array in its place).
export const MINIMISE_DEPTH = MAX_DEPTH + 1;

function maskedIdentity(value: unknown): unknown {
	return value === null || typeof value === 'string' || typeof value === 'number'
		? maskNationalId(value)
		: undefined;
}

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

export function minimiseEventItem(item: JsonObject, mode: MinimiseMode): JsonObject {
	if (mode === 'keep') return item;
	return minimiseValue(item, mode, 0) as JsonObject;
}

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

// Absent in version 1 workflows: n8n fills in that version's default (keep); new nodes minimise.
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

const PUBLIC_CE_HEADERS = new Set([
	'ce-specversion',
	'ce-type',
	'ce-source',
	'ce-id',
	'ce-time',
	'ce-datacontenttype',
	'ce-dataschema',
]);

// `ce-subject` and CloudEvents extensions are left out: their content is not published.
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
