// CloudEvents 1.0 onto the envelope's delivery, after the signature check: docs/architecture.md#cloudevents

import { canonicalEvent, type ParsedDelivery, type UnrecognisedReason } from './envelope';
import { CONSENT_EVENTS, type ConsentEvent } from './events';
import type { ScannedBody } from './json-scan';
import type { HeaderBag } from './signature';
import { deliveryIdOfToken } from './webhook-id';
import { isObject, nonEmptyString, type JsonObject } from '../json';

// Not `subject` nor extensions: their content is not published and could be personal data.
interface CloudEventFacts {
	specversion: string;
	source: string | null;
	type: string | null;
}

/** A parsed delivery, with what is known of it as a CloudEvent (absent for the service's envelope). */
export type IncomingDelivery = ParsedDelivery & { cloudEvent?: CloudEventFacts };

/** The one specversion of CloudEvents 1.0 ("specversion": "1.0" for every 1.0.x release). */
const SPEC_VERSION = '1.0';

export function mediaType(contentType: unknown): string {
	const value = Array.isArray(contentType) ? contentType[0] : contentType;
	if (typeof value !== 'string') return '';
	return value.split(';')[0].trim().toLowerCase();
}

// "3.3 Batched Content Mode" MUST NOT be sent unless asked for; the trigger takes one event a request.
export function isCloudEventsBatch(headers: HeaderBag | undefined): boolean {
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

/** Structured mode: the whole CloudEvent in the JSON body ("3.2 Structured Content Mode"). */
export function parseStructured(body: ScannedBody): IncomingDelivery {
	const token = body.members.get('id');
	const id = token === undefined ? null : deliveryIdOfToken(token);
	const { json } = body;
	const ce: JsonObject = typeof json !== 'string' && isObject(json.value) ? json.value : {};
	const type = nonEmptyString(ce.type);
	const cloudEvent: CloudEventFacts = {
		specversion: typeof ce.specversion === 'string' ? ce.specversion : '',
		source: nonEmptyString(ce.source),
		type,
	};
	const fields = {
		webhookId: id?.display ?? null,
		deliveryKey: id?.key ?? null,
		timestamp: typeof ce.time === 'string' ? ce.time : null,
		hasTimestamp: ce.time !== undefined && ce.time !== null,
		cloudEvent,
	};
	const unrecognised = (reason: UnrecognisedReason): IncomingDelivery => ({
		kind: 'unrecognised',
		reason,
		event: type,
		...fields,
	});
	if (typeof json === 'string') return unrecognised(json);
	// a blank id is no id (as for webhookId, webhook-id.ts); JSON Event Format, "Handling of data":
	// `data` and `data_base64` MUST NOT both be present
	const valid =
		ce.specversion === SPEC_VERSION &&
		typeof ce.id === 'string' &&
		ce.id.trim() !== '' &&
		type !== null &&
		cloudEvent.source !== null &&
		(ce.time === undefined || typeof ce.time === 'string') &&
		!('data' in ce && 'data_base64' in ce);
	if (!valid) return unrecognised('invalid-cloudevent');
	const event = eventOfType(type);
	if (event === null) return unrecognised('unknown-event');
	const { data } = ce;
	if ('data_base64' in ce || (data !== undefined && data !== null && !isObject(data))) {
		return unrecognised('unsupported-data');
	}
	return { kind: 'event', event, ...fields, payload: isObject(data) ? data : null };
}

/** The answer to a batch: 415, nothing run (the body says why, and what to send instead). */
export const BATCH_ANSWER = {
	received: false,
	status: 'unsupported',
	message:
		'Batched CloudEvents (application/cloudevents-batch+json) are not accepted: send one event per request, as a structured CloudEvent. Nothing was run.',
} as const;
