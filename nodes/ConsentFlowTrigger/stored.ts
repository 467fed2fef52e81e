// What a trigger's delivery memory saves in static data, and how it is read back (dedupe.ts).
import { MAX_KEY_JSON_BYTES } from '../shared/webhook/webhook-id';

export const DEDUPE_KEY = 'consentFlowDeliveries';

export const DEDUPE_VERSION = 3;

export const DEFAULT_REMEMBERED = 1000;

export const MAX_REMEMBERED = 10000;

/** What is saved under DEDUPE_KEY: the keys, oldest first, one per line (no key has a line break). */
export interface StoredDedupe {
	version: typeof DEDUPE_VERSION;
	keys: string;
}

export function storedForm(ids: readonly string[]): StoredDedupe {
	return { version: DEDUPE_VERSION, keys: ids.filter((id) => !id.includes('\n')).join('\n') };
}

function fitsKey(id: string): boolean {
	return (
		id.length <= MAX_KEY_JSON_BYTES && Buffer.byteLength(JSON.stringify(id)) <= MAX_KEY_JSON_BYTES
	);
}

/** The remembered keys of what is stored (or of a DedupeState); anything else reads as none. */
export function readRememberedIds(stored: unknown, known?: ReadonlySet<string>): string[] {
	if (typeof stored !== 'object' || stored === null) return [];
	const { ids, keys, version } = stored as { ids?: unknown; keys?: unknown; version?: unknown };
	if (version !== DEDUPE_VERSION) return [];
	const listed = typeof keys === 'string' ? keys.split('\n') : Array.isArray(ids) ? ids : [];
	return listed.filter(
		(id): id is string =>
			typeof id === 'string' && id !== '' && (known?.has(id) === true || fitsKey(id)),
	);
}

export function clampLimit(limit: unknown): number {
	const n = Number(limit); // a number is itself
	if (!Number.isFinite(n)) return DEFAULT_REMEMBERED;
	return Math.min(MAX_REMEMBERED, Math.max(1, Math.floor(n)));
}
