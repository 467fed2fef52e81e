// The service's envelope, read tolerantly; its forms and why: docs/architecture.md#envelope

import { CONSENT_EVENTS, type ConsentEvent } from './events';
import { scanBody, withoutBom } from './json-scan';
import { deliveryIdOfToken } from './webhook-id';
import { isObject, nonEmptyString, type JsonObject } from '../json';
import { daysInMonth } from '../dates';

export type UnrecognisedReason = 'not-json' | 'unknown-event' | 'no-event' | 'too-deep';

// Not parsed deeper: n8n's serialiser recurses and could not save the item (Unrecognised, `too-deep`).
export const MAX_DEPTH = 64;

export const TOO_DEEP_RAW_LIMIT = 8192;

interface DeliveryFields {
	webhookId: string | null;
	/** The exact duplicate key of the id (see webhook-id.ts); null: never remembered. */
	deliveryKey: string | null;
	/** Keyed on its signed bytes: its keys under the other active secret. */
	otherKeys?: { also: string[] };
	timestamp: string | null;
	hasTimestamp: boolean;
}

export interface RecognisedDelivery extends DeliveryFields {
	kind: 'event';
	event: ConsentEvent;
	payload: JsonObject | null;
}

export interface UnrecognisedDelivery extends DeliveryFields {
	kind: 'unrecognised';
	reason: UnrecognisedReason;
	event: string | null;
}

export type ParsedDelivery = RecognisedDelivery | UnrecognisedDelivery;

const EVENT_BY_LOWER_NAME = new Map<string, ConsentEvent>(
	CONSENT_EVENTS.map((name) => [name.toLowerCase(), name]),
);

export function canonicalEvent(name: string): ConsentEvent | null {
	return EVENT_BY_LOWER_NAME.get(name.toLowerCase()) ?? null;
}

export function bodyText(rawBody: Buffer): string {
	return withoutBom(rawBody).toString('utf8');
}

/** The one parser of a (verified) body, whose bytes are scanned once. Never throws. */
export function parseEnvelope(rawBody: Buffer): ParsedDelivery {
	const { members, json } = scanBody(rawBody, ['webhookId', 'id'], MAX_DEPTH);
	// `webhookId`, else `id` (one that is no usable id counts as absent); an unparsed body's id is
	// still remembered, so that a copy does not run again (issue 26)
	const token = (name: string) => members.get(name) ?? Buffer.alloc(0);
	const id = deliveryIdOfToken(token('webhookId')) ?? deliveryIdOfToken(token('id'));
	const parsed: JsonObject = typeof json !== 'string' && isObject(json.value) ? json.value : {};
	const fields: DeliveryFields = {
		webhookId: id?.display ?? null,
		deliveryKey: id?.key ?? null,
		timestamp: typeof parsed.timestamp === 'string' ? parsed.timestamp : null,
		hasTimestamp: parsed.timestamp !== undefined && parsed.timestamp !== null,
	};
	const unrecognised = (
		reason: UnrecognisedReason,
		event: string | null = null,
	): UnrecognisedDelivery => ({ kind: 'unrecognised', reason, event, ...fields });
	if (typeof json === 'string') return unrecognised(json);
	// matched without surrounding spaces (a blank name counts as absent)
	const trimmed = (value: unknown) => (typeof value === 'string' ? value.trim() : value);
	const name = nonEmptyString(trimmed(parsed.event)) ?? nonEmptyString(trimmed(parsed.type));
	if (name === null) return unrecognised('no-event');
	const event = canonicalEvent(name);
	if (event === null) return unrecognised('unknown-event', name);
	return {
		kind: 'event',
		event,
		...fields,
		payload: isObject(parsed.payload) ? parsed.payload : null,
	};
}

function optionalString(value: unknown): string | null {
	if (typeof value === 'string') return value;
	if (typeof value === 'number' && Number.isFinite(value)) return String(value);
	return null;
}

export function eventItem(delivery: RecognisedDelivery, receivedAt: string): JsonObject {
	const payload = delivery.payload;
	const item: JsonObject = {
		event: delivery.event,
		webhookId: delivery.webhookId,
		timestamp: delivery.timestamp,
		flowId: optionalString(payload?.flow),
		externalId: optionalString(payload?.externalId),
		nationalId: optionalString(payload?.nationalId),
	};
	const authorizationCode = optionalString(payload?.authorizationCode);
	if (authorizationCode !== null) item.authorizationCode = authorizationCode;
	item.payload = payload;
	item.receivedAt = receivedAt;
	return item;
}

export function unrecognisedItem(
	delivery: UnrecognisedDelivery,
	rawText: string,
	receivedAt: string,
): JsonObject {
	const item: JsonObject = {
		event: delivery.event,
		reason: delivery.reason,
		rawBody: rawText,
		receivedAt,
	};
	if (delivery.reason === 'too-deep') {
		let kept = rawText.slice(0, TOO_DEEP_RAW_LIMIT);
		// Do not end on half a surrogate pair.
		if (kept.length < rawText.length && /[\ud800-\udbff]$/.test(kept)) kept = kept.slice(0, -1);
		item.rawBody = kept;
		item.rawBodyTruncated = kept.length < rawText.length;
	}
	if (delivery.webhookId !== null) item.webhookId = delivery.webhookId;
	return item;
}

// Only Date.UTC, never Date.parse: freshness must not depend on the server's time zone.
const DATE_TIME =
	/^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?(?:([Zz])|([+-])(\d{2})(?::?(\d{2}))?)?$/;

export function parseTimestamp(text: string): number | null {
	const m = DATE_TIME.exec(text);
	if (m === null) return null;
	const [year, month, day, hour, minute] = [m[1], m[2], m[3], m[4], m[5]].map(Number);
	const second = m[6] === undefined ? 0 : Number(m[6]);
	const millis = m[7] === undefined ? 0 : Number(m[7].slice(0, 3).padEnd(3, '0'));
	if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return null;
	if (hour > 23 || minute > 59 || second > 60) return null;
	let offsetMinutes = 0;
	if (m[9] !== undefined) {
		const offsetHours = Number(m[10]);
		const offsetMins = m[11] === undefined ? 0 : Number(m[11]);
		if (offsetHours > 23 || offsetMins > 59) return null;
		offsetMinutes = (m[9] === '-' ? -1 : 1) * (offsetHours * 60 + offsetMins);
	}
	// Date.UTC maps years 0-99 to 1900-1999; setUTCFullYear does not.
	const date = new Date(Date.UTC(2000, month - 1, day, hour, minute, second, millis));
	date.setUTCFullYear(year);
	return date.getTime() - offsetMinutes * 60000;
}

// Only the signed `timestamp` counts: stale further than maxAgeSeconds in the past or the future,
// or present but not an RFC 3339 / ISO 8601 date-time (no zone = UTC; bare numbers, free text).
export function isStale(
	delivery: Pick<ParsedDelivery, 'timestamp' | 'hasTimestamp'>,
	maxAgeSeconds: number,
	nowMs: number,
): boolean {
	if (!(maxAgeSeconds > 0) || !delivery.hasTimestamp) return false;
	const sentMs = delivery.timestamp === null ? null : parseTimestamp(delivery.timestamp);
	return sentMs === null || Math.abs(nowMs - sentMs) > maxAgeSeconds * 1000;
}
