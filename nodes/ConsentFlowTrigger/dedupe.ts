/**
 * Duplicate-delivery memory kept in the node's workflow static data. Pure functions, no n8n
 * imports.
 *
 * Shape under the node's static data key {@link DEDUPE_KEY}:
 *   { version: 2, ids: string[] }   delivery keys (see webhook-id.ts) in the order they were
 *                                   first emitted, oldest first, at most `limit` of them; each
 *                                   at most MAX_KEY_JSON_BYTES of JSON, so the whole state at
 *                                   most {@link maxStateBytes}.
 * Version 1 stored the ids themselves (numbers as String(n), strings trimmed); they are read as
 * string ids and turned into keys, so ids remembered before an upgrade still match (except a
 * numeric id, which version 1 could not tell from its string).
 *
 * The node stores the state through n8n-compat.ts `saveInStaticData`, which says why n8n then
 * saves it; respond.ts says when.
 */

import { MAX_KEY_JSON_BYTES, keyOfStringValue } from '../shared/webhook/webhook-id';

export const DEDUPE_KEY = 'consentFlowDeliveries';

export const DEDUPE_VERSION = 2;

export const DEFAULT_REMEMBERED = 1000;

export const MAX_REMEMBERED = 10000;

export interface DedupeState {
	version: number;
	ids: string[];
}

/** Upper bound of the JSON size of a stored state of `limit` ids (bytes, UTF-8). */
export function maxStateBytes(limit: number): number {
	const wrapper = JSON.stringify({ version: DEDUPE_VERSION, ids: [] }).length;
	return wrapper + limit * (MAX_KEY_JSON_BYTES + 1) - 1;
}

/** Printable ASCII without `"` and `\\`: JSON text of the same length. */
const PLAIN_ASCII = /^[ !#-[\]-~]*$/;

/** Whether a stored string can be a key: its JSON text is at most MAX_KEY_JSON_BYTES. */
function fitsKey(id: string): boolean {
	if (id.length > MAX_KEY_JSON_BYTES - 2) return false;
	if (PLAIN_ASCII.test(id)) return true;
	return Buffer.byteLength(JSON.stringify(id)) <= MAX_KEY_JSON_BYTES;
}

/**
 * Reads the remembered keys from whatever is stored (tolerates absence and junk): version 1
 * ids are turned into keys; anything longer than a key is not one and is dropped (`known`
 * keys are not checked again).
 */
export function readRememberedIds(stored: unknown, known?: ReadonlySet<string>): string[] {
	if (typeof stored !== 'object' || stored === null) return [];
	const { ids, version } = stored as { ids?: unknown; version?: unknown };
	if (!Array.isArray(ids)) return [];
	const strings = ids.filter((id): id is string => typeof id === 'string');
	if (version === 1) return strings.map(keyOfStringValue);
	return strings.filter((id) => known?.has(id) === true || fitsKey(id));
}

/** Clamps the configured memory size to 1..MAX_REMEMBERED (defaults on junk). */
export function clampLimit(limit: unknown): number {
	const n = Number(limit); // a number is itself
	if (!Number.isFinite(n)) return DEFAULT_REMEMBERED;
	return Math.min(MAX_REMEMBERED, Math.max(1, Math.floor(n)));
}

export interface DedupeDecision {
	duplicate: boolean;
	/** The state to store when not a duplicate (a new object, never the input). */
	next: DedupeState | null;
}

/** Appends `key` to (clean, distinct) `ids` unless present, keeping the last `limit`. */
function recordKey(
	ids: string[],
	key: string,
	limit: number,
	present = ids.includes(key),
): DedupeDecision {
	if (present) return { duplicate: true, next: null };
	const max = clampLimit(limit);
	const kept = ids.length >= max ? ids.slice(ids.length - max + 1) : ids.slice();
	kept.push(key);
	return { duplicate: false, next: { version: DEDUPE_VERSION, ids: kept } };
}

/**
 * Decides whether the delivery key was already emitted and, if not, returns the new state
 * with the key appended and the oldest keys dropped beyond `limit`.
 */
export function recordDelivery(stored: unknown, key: string, limit: number): DedupeDecision {
	return recordKey(readRememberedIds(stored), key, limit);
}

/**
 * Per-process memory shared by all requests to one trigger (key: workflow id + node name).
 *
 * n8n loads the workflow's static data from its database at the start of every webhook request
 * and writes it back (whole) after the node returned — after this node already answered 200. A
 * delivery that arrives within a few milliseconds of the previous answer therefore reads static
 * data without the previous id, and its write drops that id for good (BENCHMARKS.md, "Figures
 * behind the code's choices"). Keeping one state
 * object per trigger in the process, merged with what the database gave and stored by reference
 * in the static data, makes every write carry every id this process has seen: the object is
 * serialised when n8n writes, so an earlier request's late write also includes later ids.
 */
const processMemory = new Map<string, DedupeState>();

/** Ids forgotten after a failed answer (memory key + NUL + key): not read back from the database. */
const forgotten = new Set<string>();

/** Per memory key: ids this process dropped at the limit (not read back from the database). */
const droppedKeys = new Map<string, Set<string>>();

const MAX_TRIGGERS_IN_MEMORY = 1000;

/**
 * Merges `stored` into the process memory `memoryKey` and records `key` (unless `record` is
 * false: then only whether it is remembered); returns the decision and the shared state.
 */
export function recordDeliveryShared(
	memoryKey: string,
	stored: unknown,
	key: string,
	limit: number,
	record = true,
): { duplicate: boolean; state: DedupeState } {
	let state = processMemory.get(memoryKey);
	if (state === undefined) {
		if (processMemory.size >= MAX_TRIGGERS_IN_MEMORY) {
			const oldest = processMemory.keys().next().value;
			if (oldest !== undefined) {
				processMemory.delete(oldest);
				droppedKeys.delete(oldest);
			}
		}
		state = { version: DEDUPE_VERSION, ids: [] };
		processMemory.set(memoryKey, state);
	}
	// One set of the process's keys; only keys the database has and the process lacks are
	// checked and added — at the end, as seen now: in queue mode they are the newest ids of
	// another webhook process (put in front, the oldest, they were the first dropped at the
	// limit after a burst over two processes; BENCHMARKS.md). Keys this process
	// dropped at the limit are not taken back from a database copy that still has them. After
	// a restart the memory is empty and the database's order is kept.
	let dropped = droppedKeys.get(memoryKey);
	if (dropped === undefined) {
		dropped = new Set<string>();
		droppedKeys.set(memoryKey, dropped);
	}
	const known = new Set(state.ids);
	const fromDb = [
		...new Set(
			readRememberedIds(stored, known).filter(
				(id) => !known.has(id) && !dropped.has(id) && !forgotten.has(`${memoryKey}\u0000${id}`),
			),
		),
	];
	const merged = fromDb.length === 0 ? state.ids : [...state.ids, ...fromDb];
	const present = known.has(key) || fromDb.includes(key);
	const decision = record
		? recordKey(merged, key, limit, present)
		: { duplicate: present, next: null };
	state.ids = decision.next ? decision.next.ids : merged.slice(-clampLimit(limit));
	if (decision.next) {
		forgotten.delete(`${memoryKey}\u0000${key}`);
		dropped.delete(key);
	}
	if (state.ids.length < merged.length + (decision.next ? 1 : 0)) {
		const kept = new Set(state.ids);
		for (const id of merged) {
			if (kept.has(id)) continue;
			if (dropped.size >= 2 * MAX_REMEMBERED) {
				const oldest = dropped.values().next().value;
				if (oldest !== undefined) dropped.delete(oldest);
			}
			dropped.add(id);
		}
	}
	return { duplicate: decision.duplicate, state };
}

/** For tests: forget the process memory (remembered ids and the owners of accepted copies). */
export function resetProcessMemory(): void {
	processMemory.clear();
	owners.clear();
	forgotten.clear();
	droppedKeys.clear();
}

/**
 * Which accepted copy of a delivery owns its key in this process (memory key + NUL + delivery
 * key → the nonce `webhook()` gave that copy). The check in `execute()` uses it to tell "the
 * copy this process already let through" from "another copy of the same delivery".
 */
const owners = new Map<string, string>();

export type ClaimVerdict = 'mine' | 'taken';

/** Makes the copy `nonce` the owner of `key` in this process (webhook() accepted it). */
export function ownDelivery(memoryKey: string, key: string, nonce: string): void {
	const id = `${memoryKey}\u0000${key}`;
	owners.delete(id);
	if (owners.size >= MAX_REMEMBERED) {
		const oldest = owners.keys().next().value;
		if (oldest !== undefined) owners.delete(oldest);
	}
	owners.set(id, nonce);
}

/**
 * Whether this process's webhook() accepted the copy `nonce` of `key`: the execution then runs in
 * the process that took the delivery (not on a queue-mode worker).
 */
export function acceptedHere(memoryKey: string, key: string, nonce: string): boolean {
	return owners.get(`${memoryKey}\u0000${key}`) === nonce;
}

/**
 * Claims `key` for the copy `nonce` in this process: 'mine' when no other copy owns it here
 * (it is then this copy's), else 'taken'.
 */
export function claimDelivery(memoryKey: string, key: string, nonce: string): ClaimVerdict {
	const id = `${memoryKey}\u0000${key}`;
	const owner = owners.get(id);
	if (owner !== undefined) return owner === nonce ? 'mine' : 'taken';
	ownDelivery(memoryKey, key, nonce);
	return 'mine';
}

/**
 * Forgets `key` in this process (remembered ids and owner): the delivery was accepted but its
 * answer was not a 2xx (n8n could not store the execution), so the service's retry must run.
 */
export function forgetDelivery(memoryKey: string, key: string): void {
	owners.delete(`${memoryKey}\u0000${key}`);
	// The id may already be in the database (n8n saved static data before it failed to store
	// the execution): ignore it there until it is accepted again; this process's next save then
	// writes the ids without it.
	if (forgotten.size >= MAX_REMEMBERED) {
		const oldest = forgotten.values().next().value;
		if (oldest !== undefined) forgotten.delete(oldest);
	}
	forgotten.add(`${memoryKey}\u0000${key}`);
	const state = processMemory.get(memoryKey);
	if (state === undefined) return;
	const at = state.ids.lastIndexOf(key);
	if (at >= 0) state.ids.splice(at, 1);
}
