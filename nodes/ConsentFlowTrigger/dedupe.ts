/**
 * Duplicate-delivery memory kept in the node's workflow static data. Pure functions, no n8n
 * imports.
 *
 * Shape under the node's static data key {@link DEDUPE_KEY}:
 *   { version: 1, ids: string[] }   ids in the order they were first emitted, oldest first,
 *                                   at most `limit` of them.
 *
 * Why the node always assigns a fresh object to the top-level key instead of pushing into
 * the stored array: n8n wraps static data in an ObservableObject whose change flag
 * (`__dataChanged`) lives on the root object only. A child object or array that was *added*
 * during the request is a plain object, so mutating it later does not set the flag; an
 * assignment to a key of the node's own (observable) static data object always does. See
 * the trigger node for why the flag alone is not enough in n8n 2.x webhooks, and how the
 * node makes n8n save it.
 */

export const DEDUPE_KEY = 'consentFlowDeliveries';

export const DEDUPE_VERSION = 1;

export const DEFAULT_REMEMBERED = 1000;

export const MAX_REMEMBERED = 10000;

export interface DedupeState {
	version: number;
	ids: string[];
}

/** Reads the remembered ids from whatever is stored (tolerates absence and junk). */
export function readRememberedIds(stored: unknown): string[] {
	if (typeof stored !== 'object' || stored === null) return [];
	const ids = (stored as { ids?: unknown }).ids;
	if (!Array.isArray(ids)) return [];
	return ids.filter((id): id is string => typeof id === 'string');
}

/** Clamps the configured memory size to 1..MAX_REMEMBERED (defaults on junk). */
export function clampLimit(limit: unknown): number {
	const n = typeof limit === 'number' ? limit : Number(limit);
	if (!Number.isFinite(n)) return DEFAULT_REMEMBERED;
	return Math.min(MAX_REMEMBERED, Math.max(1, Math.floor(n)));
}

export interface DedupeDecision {
	duplicate: boolean;
	/** The state to store when not a duplicate (a new object, never the input). */
	next: DedupeState | null;
}

/**
 * Decides whether `webhookId` was already emitted and, if not, returns the new state with
 * the id appended and the oldest ids dropped beyond `limit`.
 */
export function recordDelivery(stored: unknown, webhookId: string, limit: number): DedupeDecision {
	const ids = readRememberedIds(stored);
	if (ids.includes(webhookId)) return { duplicate: true, next: null };
	const max = clampLimit(limit);
	const kept = ids.length >= max ? ids.slice(ids.length - max + 1) : ids.slice();
	kept.push(webhookId);
	return { duplicate: false, next: { version: DEDUPE_VERSION, ids: kept } };
}
