// The delivery memory, the one owner of remembered keys (docs/architecture.md, "Delivery memory").

import { randomBytes } from 'crypto';
import { sleep } from 'n8n-workflow';
import type {
	IDataObject,
	IExecuteFunctions,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';
import { saveInStaticData, whenAnswered, whenStored } from '../shared/n8n-compat';
import type { ParsedDelivery } from '../shared/webhook/envelope';
import { settle, type AnswerPlan, type Answerer, type RunEvent } from '../shared/webhook/decide';
import type { ResponseLike } from '../shared/webhook/verify';
import { MAX_KEY_JSON_BYTES } from '../shared/webhook/webhook-id';
import { askToSave, saveUrlOf } from './save-request';

export const DEDUPE_KEY = 'consentFlowDeliveries';

export const DEDUPE_VERSION = 3;

export const DEFAULT_REMEMBERED = 1000;

export const MAX_REMEMBERED = 10000;

/** What is saved under DEDUPE_KEY: the keys, oldest first, one per line (no key has a line break). */
export interface StoredDedupe {
	version: typeof DEDUPE_VERSION;
	keys: string;
}

/** The remembered keys of what is stored; anything else reads as none. */
export function readRememberedIds(stored: unknown, known?: ReadonlySet<string>): string[] {
	const { keys, version } = (stored ?? {}) as { keys?: unknown; version?: unknown };
	if (version !== DEDUPE_VERSION || typeof keys !== 'string') return [];
	const fits = (id: string) =>
		id.length <= MAX_KEY_JSON_BYTES && Buffer.byteLength(JSON.stringify(id)) <= MAX_KEY_JSON_BYTES;
	return keys.split('\n').filter((id) => id !== '' && (known?.has(id) === true || fits(id)));
}

export function clampLimit(limit: unknown): number {
	const n = Number(limit);
	if (!Number.isFinite(n)) return DEFAULT_REMEMBERED;
	return Math.min(MAX_REMEMBERED, Math.max(1, Math.floor(n)));
}

/** One trigger's remembered keys in the process, oldest first. */
interface DedupeState {
	ids: string[];
}

/**
 * Assigned to static data by reference: n8n serialises it (JSON.stringify, deepCopy) only when it
 * saves, so every write carries every key this process has by then (docs/architecture.md).
 */
class SavedDeliveries {
	declare readonly memory: Pick<TriggerMemory, 'state' | 'lastSeen'>;

	constructor(memory: SavedDeliveries['memory']) {
		// not enumerable: n8n's ObservableObject walks static data's own keys
		Object.defineProperty(this, 'memory', { value: memory });
	}

	toJSON(): StoredDedupe {
		const keys = this.memory.state.ids.filter((id) => !id.includes('\n')).join('\n');
		this.memory.lastSeen = keys;
		return { version: DEDUPE_VERSION, keys };
	}
}

/** One trigger's deliveries in this process (mode, workflow, node): docs/architecture.md, "Delivery memory". */
interface TriggerMemory {
	state: DedupeState;
	dropped: Set<string>;
	owners: Map<string, string>;
	inFlight: Map<string, Held>;
	/** The stored keys last written or merged here: read back unchanged, there is nothing to merge. */
	lastSeen?: string;
	flushing?: boolean;
	saved: SavedDeliveries;
}

// The one mutable store of deliveries: n8n starts every request with fresh static data (BENCHMARKS.md).
const memories = new Map<string, TriggerMemory>();

const MAX_TRIGGERS_IN_MEMORY = 1000;

function memoryOf(memoryKey: string): TriggerMemory {
	const memory = memories.get(memoryKey);
	if (memory !== undefined) return memory;
	const fresh: Omit<TriggerMemory, 'saved'> = {
		state: { ids: [] },
		dropped: new Set(),
		owners: new Map(),
		inFlight: new Map(),
	};
	const created: TriggerMemory = Object.assign(fresh, { saved: new SavedDeliveries(fresh) });
	addBounded(memories, MAX_TRIGGERS_IN_MEMORY, memoryKey, created);
	return created;
}

function addBounded<T>(
	store: Set<string> | Map<string, T>,
	max: number,
	key: string,
	value?: T,
): void {
	if (store.size >= max && !store.has(key)) {
		const oldest = store.keys().next().value;
		if (oldest !== undefined) store.delete(oldest);
	}
	if (store instanceof Map) store.set(key, value as T);
	else store.add(key);
}

/** Stored keys the process does not have (another webhook process's newest), once each. */
function keysOnlyStored(memory: TriggerMemory, stored: unknown): string[] {
	const keys = (stored as Partial<StoredDedupe> | null | undefined)?.keys;
	if (stored === memory.saved || (typeof keys === 'string' && keys === memory.lastSeen)) return [];
	const { state, dropped } = memory;
	const known = new Set(state.ids);
	const fresh = readRememberedIds(stored, known).filter((id) => !known.has(id) && !dropped.has(id));
	if (typeof keys === 'string') memory.lastSeen = keys;
	return fresh.length === 0 ? fresh : [...new Set(fresh)];
}

/** Merges `stored` into the trigger's memory and records `key` (unless `record` is false). */
export function recordDeliveryShared(
	memoryKey: string,
	stored: unknown,
	key: string,
	limit: number,
	record = true,
): { duplicate: boolean; state: DedupeState } {
	const memory = memoryOf(memoryKey);
	const { state, dropped } = memory;
	// keys only the database has go last, as seen now
	const fromDb = stored === undefined ? [] : keysOnlyStored(memory, stored);
	const merged = fromDb.length === 0 ? state.ids : [...state.ids, ...fromDb];
	const duplicate = state.ids.includes(key) || fromDb.includes(key);
	const adds = record && !duplicate;
	// what is kept is the end of `merged` (and `key`): its front is let go at the limit
	const letGo = Math.max(0, merged.length - clampLimit(limit) + (adds ? 1 : 0));
	for (let i = 0; i < letGo; i++) addBounded(dropped, 2 * MAX_REMEMBERED, merged[i]);
	state.ids = letGo === 0 && !adds ? merged : merged.slice(letGo);
	if (adds) {
		state.ids.push(key);
		dropped.delete(key);
	}
	return { duplicate, state };
}

/** How long a run n8n never reports on holds its copies at 409 (a crashed process, a lost worker). */
export const FLIGHT_BOUND_MS = 10 * 60 * 1000;

/** At most this many runs per trigger are held in flight; a new run beyond it is refused (decide.ts). */
export const MAX_IN_FLIGHT = MAX_REMEMBERED;

/** A held run whose fate is not known yet: its keys answer 409 to copies until it settles. */
export interface Held extends Pick<Slot, 'memoryKey' | 'limit' | 'staticData'> {
	readonly nonce: string;
	readonly keys: readonly string[];
	readonly plan: AnswerPlan;
	readonly until: number;
	settled: boolean;
}

/** Assigns the trigger's saved object to static data (a top-level assignment: n8n-compat.ts, hook 3). */
function save(staticData: IDataObject | undefined, memoryKey: string): void {
	if (staticData !== undefined) saveInStaticData(staticData, DEDUPE_KEY, memoryOf(memoryKey).saved);
}

/** Applies one event of a run (decide.ts `settle`); events after the one that settled it change nothing. */
export function report(held: Held, event: RunEvent): void {
	if (held.settled) return;
	const { memory, release } = settle(held.plan, event);
	const { memoryKey, keys, limit } = held;
	if (memory === 'remember') {
		for (const key of keys) recordDeliveryShared(memoryKey, undefined, key, limit);
		save(held.staticData, memoryKey);
	} else if (memory === 'forget') {
		for (const key of keys) forgetDelivery(memoryKey, key);
	}
	if (!release) return;
	held.settled = true;
	const { inFlight } = memoryOf(memoryKey);
	for (const key of keys) if (inFlight.get(key) === held) inFlight.delete(key);
}

/** The run holding `key` here, if any; one past its bound is settled as expired first. */
function flightOf(memoryKey: string, key: string, now: number): Held | undefined {
	const held = memories.get(memoryKey)?.inFlight.get(key);
	if (held === undefined) return undefined;
	if (now >= held.until) report(held, 'expired');
	return held.settled ? undefined : held;
}

/** Whether no new run can be held; runs past their bound are settled first, oldest first (held in order). */
function flightFull(memoryKey: string, now: number): boolean {
	const inFlight = memories.get(memoryKey)?.inFlight;
	if (inFlight === undefined) return false;
	for (const held of inFlight.values()) {
		if (inFlight.size < MAX_IN_FLIGHT || now < held.until) break;
		report(held, 'expired');
	}
	return inFlight.size >= MAX_IN_FLIGHT;
}

export function ownDelivery(memoryKey: string, key: string, nonce: string): void {
	const { owners } = memoryOf(memoryKey);
	owners.delete(key);
	addBounded(owners, MAX_REMEMBERED, key, nonce);
}

/** Forgets `key` here: its answer was not a 2xx, so the service's retry must run. */
export function forgetDelivery(memoryKey: string, key: string): void {
	const memory = memoryOf(memoryKey);
	memory.owners.delete(key);
	// stored keys are read again: one there now is another process's run that took it (a fact)
	memory.lastSeen = undefined;
	const at = memory.state.ids.lastIndexOf(key);
	if (at >= 0) memory.state.ids.splice(at, 1);
}

function memoryKeyOf(testUrl: boolean, workflowId: string | undefined, nodeName: string): string {
	return [testUrl ? 'test' : 'production', workflowId ?? '', nodeName].join('\u0000');
}

/** Where one delivery's keys are remembered; no static data on a test URL. */
export interface Slot {
	memoryKey: string;
	/** Its key, and the keys it also has (under the other signing secret): all recorded. */
	key: string;
	also: readonly string[];
	limit: number;
	staticData?: IDataObject;
}

/** Where a delivery's keys are remembered, or null when duplicates are not ignored (or it has no key). */
export function slotOf(ctx: IWebhookFunctions, delivery: ParsedDelivery): Slot | null {
	const key = delivery.deliveryKey;
	if (key === null || !ctx.getNodeParameter('ignoreDuplicates', true)) return null;
	// a test URL has its own memory and no static data (n8n does not save it for test webhooks)
	const testUrl = ctx.getMode() === 'manual';
	return {
		memoryKey: memoryKeyOf(testUrl, ctx.getWorkflow().id, ctx.getNode().name),
		key,
		also: delivery.otherKeys?.also ?? [],
		limit: ctx.getNodeParameter('rememberedDeliveries', DEFAULT_REMEMBERED) as number,
		staticData: testUrl ? undefined : ctx.getWorkflowStaticData('node'),
	};
}

export function lookUp(
	slot: Slot,
	now = Date.now(),
): { duplicate: boolean; copyInFlight: boolean; flightFull: boolean } {
	const { memoryKey, key, also, limit } = slot;
	const stored = slot.staticData?.[DEDUPE_KEY];
	let duplicate = recordDeliveryShared(memoryKey, stored, key, limit, false).duplicate;
	for (const other of also) {
		duplicate ||= recordDeliveryShared(memoryKey, undefined, other, limit, false).duplicate;
	}
	const copyInFlight = [key, ...also].some((k) => flightOf(memoryKey, k, now) !== undefined);
	return { duplicate, copyInFlight, flightFull: flightFull(memoryKey, now) };
}

/** Holds an admitted delivery as its plan says; `follow` then tells it what became of its run. */
export function hold(slot: Slot, plan: AnswerPlan, now = Date.now()): Held {
	const { key, also, ...where } = slot;
	const held: Held = {
		...where,
		nonce: randomBytes(9).toString('base64url'),
		keys: [key, ...also],
		plan,
		until: now + FLIGHT_BOUND_MS,
		settled: false,
	};
	if (plan.remember !== 'never')
		for (const k of held.keys) memoryOf(slot.memoryKey).inFlight.set(k, held);
	if (plan.answeredBy !== 'n8n-after-run') ownDelivery(slot.memoryKey, key, held.nonce);
	save(slot.staticData, slot.memoryKey);
	return held;
}

/** How long after a remembered run a process saves its newest keys once more (runs meanwhile join). */
export const FLUSH_AFTER_MS = 1000;

const FLUSH_KEYS = 500;

// Saves of concurrent requests can reach the database out of order: at most a second later, one more.
function flushLater(ctx: IWebhookFunctions, held: Held): void {
	const memory = memoryOf(held.memoryKey);
	if (held.staticData === undefined || memory.flushing === true) return;
	memory.flushing = true;
	void sleep(FLUSH_AFTER_MS)
		.then(async () => {
			memory.flushing = false;
			await askToSave(ctx, saveUrlOf(ctx), memory.state.ids.slice(-FLUSH_KEYS));
		})
		.catch(() => undefined);
}

/** Follows a held run through what n8n reports (n8n-compat.ts, hooks 2, 7 and 8). */
export function follow(
	ctx: IWebhookFunctions,
	held: Held | undefined,
	response: IWebhookResponseData,
): IWebhookResponseData {
	if (held === undefined) return response;
	const res = ctx.getResponseObject() as unknown as ResponseLike;
	whenAnswered(res, (status) => {
		const kept = status >= 200 && status < 300;
		report(held, kept ? 'succeeded' : 'failed');
		if (kept) flushLater(ctx, held);
		// the answer decides the key after n8n's save: it waits for one more (save-request.ts)
		if (kept && held.plan.remember === 'after-2xx' && held.staticData !== undefined) {
			return askToSave(ctx, saveUrlOf(ctx), held.keys);
		}
		return undefined;
	});
	res.once?.('close', () => report(held, 'closed'));
	return whenStored(response, () => report(held, 'stored'));
}

/** Keeps the keys of a save request (save-request.ts); n8n saves them before it answers it. */
export function keepSaved(ctx: IWebhookFunctions, keys: readonly string[]): void {
	const memoryKey = memoryKeyOf(false, ctx.getWorkflow().id, ctx.getNode().name);
	const limit = ctx.getNodeParameter('rememberedDeliveries', DEFAULT_REMEMBERED) as number;
	const staticData = ctx.getWorkflowStaticData('node');
	for (const key of keys) recordDeliveryShared(memoryKey, staticData[DEDUPE_KEY], key, limit);
	save(staticData, memoryKey);
}

/**
 * execute() claims its copy: 'mine' when no other copy owns the key in this process, 'taken'
 * when one does, null when nothing is checked (answered after the run, test URL, no key). The
 * run exists now: answered here, its key is remembered; a queue-mode worker writes no static data.
 */
export function claim(
	ctx: IExecuteFunctions,
	carrier: { key: string | null; nonce: string; answeredBy: Answerer },
	now = Date.now(),
): 'mine' | 'taken' | null {
	const { key, nonce, answeredBy } = carrier;
	if (answeredBy === 'n8n-after-run' || ctx.getMode() === 'manual') return null;
	if (key === null || nonce === '') return null;
	const memoryKey = memoryKeyOf(false, ctx.getWorkflow().id, ctx.getNode().name);
	const owner = memories.get(memoryKey)?.owners.get(key);
	if (owner === undefined) ownDelivery(memoryKey, key, nonce);
	else if (owner !== nonce) return 'taken';
	// a copy this process's webhook() did not accept runs on another process's worker: nothing to settle
	if (owner === undefined) return 'mine';
	if (answeredBy === 'execute') {
		const limit = ctx.getNodeParameter('rememberedDeliveries', 0, DEFAULT_REMEMBERED) as number;
		const staticData = ctx.getWorkflowStaticData('node');
		recordDeliveryShared(memoryKey, staticData[DEDUPE_KEY], key, limit);
		save(staticData, memoryKey);
	}
	// the run exists: a copy of it is a duplicate from now on, whatever its connection does
	const held = flightOf(memoryKey, key, now);
	if (held !== undefined) report(held, 'executed');
	return 'mine';
}
