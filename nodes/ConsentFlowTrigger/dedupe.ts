/**
 * Duplicate-delivery memory kept in the node's workflow static data. Pure functions, no n8n
 * imports.
 *
 * Shape under the node's static data key {@link DEDUPE_KEY}:
 *   { version: 1, ids: string[] }   ids in the order they were first emitted, oldest first,
 *                                   at most `limit` of them.
 *
 * Why the node always assigns the state object to the top-level key instead of pushing into
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

/**
 * Per-process memory shared by all requests to one trigger (key: workflow id + node name).
 *
 * n8n loads the workflow's static data from its database at the start of every webhook request
 * and writes it back (whole) after the node returned — after this node already answered 200. A
 * delivery that arrives within a few milliseconds of the previous answer therefore reads static
 * data without the previous id, and its write drops that id for good (measured: 4 of 20
 * back-to-back deliveries forgotten on n8n 2.41.1, 14 of 20 on 1.123.81). Keeping one state
 * object per trigger in the process, merged with what the database gave and stored by reference
 * in the static data, makes every write carry every id this process has seen: the object is
 * serialised when n8n writes, so an earlier request's late write also includes later ids.
 */
const processMemory = new Map<string, DedupeState>();

const MAX_TRIGGERS_IN_MEMORY = 1000;

/** Merges `stored` into the process memory of `key`, records `webhookId`; returns the decision and the shared state. */
export function recordDeliveryShared(
	key: string,
	stored: unknown,
	webhookId: string,
	limit: number,
): { duplicate: boolean; state: DedupeState } {
	let state = processMemory.get(key);
	if (state === undefined) {
		if (processMemory.size >= MAX_TRIGGERS_IN_MEMORY) {
			const oldest = processMemory.keys().next().value;
			if (oldest !== undefined) processMemory.delete(oldest);
		}
		state = { version: DEDUPE_VERSION, ids: [] };
		processMemory.set(key, state);
	}
	const merged = [...new Set([...readRememberedIds(stored), ...state.ids])];
	const decision = recordDelivery({ ids: merged }, webhookId, limit);
	state.ids = decision.next ? decision.next.ids : merged.slice(-clampLimit(limit));
	return { duplicate: decision.duplicate, state };
}

/** For tests: forget the process memory. */
export function resetProcessMemory(): void {
	processMemory.clear();
}
