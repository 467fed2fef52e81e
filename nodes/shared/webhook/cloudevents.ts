// CloudEvents 1.0 onto the envelope's delivery, after the signature check: docs/architecture.md#cloudevents

import { canonicalEvent, type ParsedDelivery, type UnrecognisedReason } from './envelope';
import { CONSENT_EVENTS, type ConsentEvent } from './events';
import type { ScannedBody } from './json-scan';
import { deliveryIdOfToken, type DeliveryId } from './webhook-id';
import { isObject, nonEmptyString } from '../json';

// Not `subject` nor extensions: their content is not published and could be personal data.
interface CloudEventFacts {
	specversion: string;
	source: string | null;
	type: string | null;
}

/** A parsed delivery, with what is known of it as a CloudEvent (absent for the service's envelope). */
export type IncomingDelivery = ParsedDelivery & { cloudEvent?: CloudEventFacts };

export interface IncomingRequest {
	headers?: Record<string, string | string[] | undefined>;
}

/** The one specversion of CloudEvents 1.0 ("specversion": "1.0" for every 1.0.x release). */
const SPEC_VERSION = '1.0';

export function mediaType(contentType: unknown): string {
	const value = Array.isArray(contentType) ? contentType[0] : contentType;
	if (typeof value !== 'string') return '';
	return value.split(';')[0].trim().toLowerCase();
}

// "3.3 Batched Content Mode" MUST NOT be sent unless asked for; the trigger takes one event a request.
export function isCloudEventsBatch(headers: IncomingRequest['headers']): boolean {
	return mediaType(headers?.['content-type']).startsWith('application/cloudevents-batch');
}

const EVENT_SUFFIXES = CONSENT_EVENTS.map((name) => ({ name, suffix: `.${name.toLowerCase()}` }));

/** The spec recommends reverse-DNS types: `com.example.sbl.consent.accepted` is consent.accepted. */
export function eventOfType(type: string): ConsentEvent | null {
	const exact = canonicalEvent(type);
	if (exact !== null) return exact;
	const lower = type.toLowerCase();
	return EVENT_SUFFIXES.find(({ suffix }) => lower.endsWith(suffix))?.name ?? null;
}

/** A string that is not blank, else null. A blank id is no id (as for webhookId, webhook-id.ts). */
function nonBlankString(value: unknown): string | null {
	return typeof value === 'string' && value.trim() !== '' ? value : null;
}

interface Attributes {
	/** The delivery's id (duplicates are detected on it), also when it is no valid CloudEvents id. */
	id: DeliveryId | null;
	/** The `id` attribute as read: valid when a non-blank string, as the spec requires. */
	idAttribute: unknown;
	specversion: unknown;
	type: unknown;
	source: unknown;
	time: unknown;
}

/** The data of a CloudEvent whose attributes were read (`value` undefined: it has none). */
interface EventData {
	value?: unknown;
	base64?: boolean;
}

function fromAttributes(
	attributes: Attributes,
	read: EventData | UnrecognisedReason,
): IncomingDelivery {
	const type = nonEmptyString(attributes.type);
	const cloudEvent: CloudEventFacts = {
		specversion: typeof attributes.specversion === 'string' ? attributes.specversion : '',
		source: nonEmptyString(attributes.source),
		type,
	};
	const fields = {
		webhookId: attributes.id?.display ?? null,
		deliveryKey: attributes.id?.key ?? null,
		timestamp: typeof attributes.time === 'string' ? attributes.time : null,
		hasTimestamp: attributes.time !== undefined && attributes.time !== null,
		cloudEvent,
	};
	const unrecognised = (reason: UnrecognisedReason): IncomingDelivery => ({
		kind: 'unrecognised',
		reason,
		event: type,
		...fields,
	});
	if (typeof read === 'string') return unrecognised(read);
	const data = read;
	const valid =
		attributes.specversion === SPEC_VERSION &&
		nonBlankString(attributes.idAttribute) !== null &&
		type !== null &&
		cloudEvent.source !== null &&
		(attributes.time === undefined || typeof attributes.time === 'string');
	if (!valid) return unrecognised('invalid-cloudevent');
	const event = eventOfType(type);
	if (event === null) return unrecognised('unknown-event');
	if (data.base64 === true) return unrecognised('unsupported-data');
	if (data.value !== undefined && data.value !== null && !isObject(data.value)) {
		return unrecognised('unsupported-data');
	}
	return {
		kind: 'event',
		event,
		...fields,
		payload: isObject(data.value) ? data.value : null,
	};
}

/** Structured mode: the whole CloudEvent in the JSON body ("3.2 Structured Content Mode"). */
export function parseStructured(body: ScannedBody): IncomingDelivery {
	const { bytes } = body;
	const token = body.members.get('id');
	const id = token === undefined ? null : deliveryIdOfToken(token);
	const attributes: Attributes = {
		id,
		idAttribute: undefined,
		specversion: undefined,
		type: undefined,
		source: undefined,
		time: undefined,
	};
	if (body.tooDeep) return fromAttributes(attributes, 'too-deep');
	let parsed: unknown;
	try {
		parsed = JSON.parse(bytes.toString('utf8'));
	} catch {
		return fromAttributes(attributes, 'not-json');
	}
	if (!isObject(parsed)) return fromAttributes(attributes, 'invalid-cloudevent');
	attributes.idAttribute = parsed.id;
	attributes.specversion = parsed.specversion;
	attributes.type = parsed.type;
	attributes.source = parsed.source;
	attributes.time = parsed.time;
	const hasData = 'data' in parsed;
	const hasBase64 = 'data_base64' in parsed;
	// JSON Event Format, "Handling of data": `data` and `data_base64` MUST NOT both be present.
	if (hasData && hasBase64) {
		return fromAttributes(attributes, 'invalid-cloudevent');
	}
	return fromAttributes(attributes, { value: parsed.data, base64: hasBase64 });
}

/** The answer to a batch: 415, nothing run (the body says why, and what to send instead). */
export const BATCH_ANSWER = {
	received: false,
	status: 'unsupported',
	message:
		'Batched CloudEvents (application/cloudevents-batch+json) are not accepted: send one event per request, as a structured CloudEvent. Nothing was run.',
} as const;
