import type { ConsentEvent } from '../../shared/webhook/events';
import { isObject, type JsonObject as Json } from '../../shared/json';

// Create and Wait for Outcome, the pure part; what the wait keeps and which event ends it: docs/architecture.md#flowoutcome

/** The outcome outputs in order; `outcome` is the item's value. */
const OUTCOME_OUTPUTS = [
	{ name: 'Data Received', outcome: 'dataReceived' },
	{ name: 'Rejected', outcome: 'rejected' },
	{ name: 'Deleted', outcome: 'deleted' },
	{ name: 'Failed/Expired', outcome: 'failedOrTimedOut' },
] as const;

export type Outcome = (typeof OUTCOME_OUTPUTS)[number]['outcome'];

// The outcome each event ends the wait on; null: recorded, and the wait goes on.
export const WAIT_EVENTS: Readonly<Record<ConsentEvent, Outcome | null>> = {
	'consent.created': null,
	'consent.accepted': null,
	'consent.data': 'dataReceived',
	'consent.rejected': 'rejected',
	'consent.deleted': 'deleted',
	'consent.timedOut': 'failedOrTimedOut',
	'consent.timedOutDataFailed': 'failedOrTimedOut',
	'user.timedOut': 'failedOrTimedOut',
	'tax.dataFailed': 'failedOrTimedOut',
	'income.dataFailed': 'failedOrTimedOut',
};

export const WAIT_TIME_EXCEEDED = { name: 'Wait Timed Out', outcome: 'waitTimeExceeded' };

/** The output of an outcome, found by its value: a new outcome shifts no other. */
export function outputOf(outcome: Outcome): number {
	return OUTCOME_OUTPUTS.findIndex((output) => output.outcome === outcome);
}

// Also where items of a refused input go with Continue On Fail.
export const FAILED_INDEX = outputOf('failedOrTimedOut');

export const MAX_EVENTS_KEPT = 20;

export function outputNames(limitWaitTime: boolean): string[] {
	const names = OUTCOME_OUTPUTS.map((output) => output.name);
	return limitWaitTime ? [...names, WAIT_TIME_EXCEEDED.name] : names;
}

/** The outcome `event` ends the wait on (null: none); undefined for a name that is no event (own keys only). */
export function waitOutcome(event: unknown): Outcome | null | undefined {
	if (typeof event !== 'string' || !Object.prototype.hasOwnProperty.call(WAIT_EVENTS, event))
		return undefined;
	return WAIT_EVENTS[event as ConsentEvent];
}

export interface SeenEvent {
	event: string | null;
	webhookId: string | null;
	// its keys, as in Match
	key?: string;
	also?: string[];
	timestamp: string | null;
	receivedAt: string | null;
}

export interface WaitState {
	waiting: boolean;
	flowId: string | null;
	externalId: string | null;
	/** The External ID as sent, as a keyed hash (webhook-id.ts matchKey): matched, never shown. */
	externalIdKey: string | null;
	href: string | null;
	events: SeenEvent[];
	// deliveries at the resume URL that were not this wait's (absent until the first)
	notTaken?: NotTaken[];
	startedAt: string;
	deadline: string | null;
}

type NotTaken = Pick<SeenEvent, 'event' | 'webhookId' | 'receivedAt'> & {
	flowId: string | null;
	reason: string;
};

function text(value: unknown): string | null {
	if (typeof value === 'string' && value !== '') return value;
	if (typeof value === 'number' && Number.isFinite(value)) return String(value);
	return null;
}

function seenEvent(delivery: Json, { key, also }: Match): SeenEvent {
	const seen: SeenEvent = {
		event: text(delivery.event),
		webhookId: text(delivery.webhookId),
		timestamp: text(delivery.timestamp),
		receivedAt: text(delivery.receivedAt),
	};
	if (typeof key === 'string' && key !== '') seen.key = key;
	if (seen.key !== undefined && also?.length) seen.also = [...also];
	return seen;
}

export function newWaitState(flow: Json, startedAt: string, deadline: string | null): WaitState {
	return {
		waiting: true,
		flowId: text(flow.id),
		externalId: text(flow.externalId),
		externalIdKey: null,
		href: text(flow.href),
		events: [],
		startedAt,
		deadline,
	};
}

/** The wait this node saved in its context (only this code writes it), while it waits. */
export function readWaitState(stored: unknown): WaitState | undefined {
	return isObject(stored) && stored.waiting === true ? (stored as unknown as WaitState) : undefined;
}

/** What one delivery does to the wait (advanceWait). */
type WaitStep =
	| { kind: 'foreign'; reason: string }
	| { kind: 'duplicate' }
	| { kind: 'intermediate'; state: WaitState }
	| { kind: 'outcome'; output: number; state: WaitState; json: Json };

/** What a delivery is matched by, taken before anything was minimised (webhook()): never a masked value. */
export interface Match {
	flowId: string | null;
	/** The delivery's External ID as keyed hashes, one per signing secret. */
	externalIdKeys: readonly string[];
	/** Its duplicate key from the signed bytes, and its keys under the other active secret (intake.ts). */
	key?: string | null;
	also?: readonly string[];
}

// Whether a delivery is this wait's: by its flow id (createFlow waits only with one); one without
// (the service does not publish `flow` on every event) by External ID, when the wait has one.
/** Why a delivery is not this wait's, or null; `shown` is its flow id as the items show it. */
export function notThisWait(state: WaitState, match: Match, shown: unknown = null): string | null {
	if (match.flowId !== null)
		return match.flowId === state.flowId ? null : `another flow (${text(shown) ?? 'its id'})`;
	if (state.externalIdKey === null)
		return 'no flow id, and this wait has no External ID to match it by';
	if (match.externalIdKeys.includes(state.externalIdKey)) return null;
	return match.externalIdKeys.length === 0
		? 'neither flow id nor External ID'
		: 'no flow id, and another External ID';
}

/** The wait with a delivery it did not take recorded (the latest MAX_EVENTS_KEPT), for the builder to see. */
export function withNotTaken(state: WaitState, delivery: Json, reason: string): WaitState {
	const entry: NotTaken = {
		event: text(delivery.event),
		webhookId: text(delivery.webhookId),
		flowId: text(delivery.flowId),
		reason,
		receivedAt: text(delivery.receivedAt),
	};
	return { ...state, notTaken: [...(state.notTaken ?? []), entry].slice(-MAX_EVENTS_KEPT) };
}

// One delivery whoever signed it: any key in common (issue 41); without keys, the same id.
function sameDelivery(earlier: SeenEvent, seen: SeenEvent): boolean {
	if (seen.key === undefined || earlier.key === undefined) {
		return seen.webhookId !== null && earlier.webhookId === seen.webhookId;
	}
	const incoming = [seen.key, ...(seen.also ?? [])];
	return [earlier.key, ...(earlier.also ?? [])].some((k) => incoming.includes(k));
}

/** Not this wait's, seen before, recorded (the wait goes on), or the outcome that ends it. */
export function advanceWait(state: WaitState, delivery: Json, now: string, match: Match): WaitStep {
	const reason = notThisWait(state, match, delivery.flowId);
	if (reason !== null) return { kind: 'foreign', reason };
	const seen = seenEvent(delivery, match);
	if (state.events.some((earlier) => sameDelivery(earlier, seen))) return { kind: 'duplicate' };
	const ends = waitOutcome(delivery.event);
	if (ends === undefined || ends === null) {
		const events = [...state.events, seen].slice(-MAX_EVENTS_KEPT);
		return { kind: 'intermediate', state: { ...state, events } };
	}
	const output = outputOf(ends);
	const ended: WaitState = { ...state, waiting: false };
	return { kind: 'outcome', output, state: ended, json: outcomeJson(ended, ends, delivery, now) };
}

/** What every item of the wait shows of it (the duplicate keys are the wait's own business). */
function shown(state: WaitState): Json {
	return {
		flowId: state.flowId,
		externalId: state.externalId,
		href: state.href,
		events: state.events.map(({ event, webhookId, timestamp, receivedAt }) => ({
			event,
			webhookId,
			timestamp,
			receivedAt,
		})),
		...(state.notTaken?.length ? { notTaken: state.notTaken } : {}),
		waitStartedAt: state.startedAt,
	};
}

export function outcomeJson(state: WaitState, outcome: Outcome, delivery: Json, now: string): Json {
	const { event } = delivery; // a string: the event that ended the wait
	return { outcome, event, ...shown(state), resumedAt: now, outcomeEvent: delivery };
}

// Prepared at every wait: n8n emits it when the time is up.
export function waitTimeExceededJson(state: WaitState): Json {
	return {
		outcome: WAIT_TIME_EXCEEDED.outcome,
		event: null,
		...shown(state),
		resumedAt: state.deadline ?? '',
		outcomeEvent: null,
		deadline: state.deadline,
	};
}

export function waitingJson(state: WaitState): Json {
	return { status: 'waiting', ...shown(state), deadline: state.deadline };
}

export const LIMIT_UNITS = { seconds: 1, minutes: 60, hours: 3600, days: 86400 } as const;
type LimitUnit = keyof typeof LIMIT_UNITS;

export function limitDeadline(
	amount: unknown,
	unit: unknown,
	nowMs: number,
): { deadline: Date } | { error: string; field: 'limitAmount' | 'limitUnit' } {
	if (typeof unit !== 'string' || !Object.prototype.hasOwnProperty.call(LIMIT_UNITS, unit)) {
		return {
			error: `must be one of ${Object.keys(LIMIT_UNITS).join(', ')}`,
			field: 'limitUnit',
		};
	}
	const value = typeof amount === 'string' && amount.trim() !== '' ? Number(amount) : amount;
	if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
		return { error: 'must be a number greater than 0', field: 'limitAmount' };
	}
	const seconds = value * LIMIT_UNITS[unit as LimitUnit];
	if (seconds > 365 * LIMIT_UNITS.days)
		return { error: 'must be at most 365 days', field: 'limitAmount' };
	return { deadline: new Date(nowMs + Math.ceil(seconds * 1000)) };
}
