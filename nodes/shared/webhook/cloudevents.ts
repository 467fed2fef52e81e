// CloudEvents 1.0 onto the envelope's delivery, after the signature check: docs/architecture.md#cloudevents

import {
	CONSENT_EVENTS,
	MAX_DEPTH,
	canonicalEvent,
	parseDelivery,
	type ConsentEvent,
	type ParsedDelivery,
	type UnrecognisedReason,
} from './envelope';
import { exceedsDepth, topLevelMembers, withoutBom } from './json-scan';
import { deliveryIdOfToken, keyOfStringValue, type DeliveryId } from './webhook-id';
import { isObject, nonEmptyString } from '../json';

// Not `subject` nor extensions: their content is not published and could be personal data.
interface CloudEventFacts {
	mode: 'structured' | 'binary';
	specversion: string;
	source: string | null;
	type: string | null;
	/** Binary mode: the attributes read from unsigned `ce-` headers (signed.ts). */
	unsigned?: string[];
}

/** A parsed delivery, with what is known of it as a CloudEvent (absent for the service's envelope). */
export type IncomingDelivery = ParsedDelivery & { cloudEvent?: CloudEventFacts };

export interface IncomingRequest {
	headers?: Record<string, string | string[] | undefined>;
	/** Name, value, name, value… exactly as received: tells a repeated header from a joined one. */
	rawHeaders?: string[];
}

/** The one specversion of CloudEvents 1.0 ("specversion": "1.0" for every 1.0.x release). */
const SPEC_VERSION = '1.0';

const CE_PREFIX = 'ce-';

export function mediaType(contentType: unknown): string {
	const value = Array.isArray(contentType) ? contentType[0] : contentType;
	if (typeof value !== 'string') return '';
	return value.split(';')[0].trim().toLowerCase();
}

// "3.3 Batched Content Mode" MUST NOT be sent unless asked for; the trigger takes one event a request.
export function isCloudEventsBatch(headers: IncomingRequest['headers']): boolean {
	return mediaType(headers?.['content-type']).startsWith('application/cloudevents-batch');
}

/** "3. HTTP Message Mapping": the `application/cloudevents` prefix is structured (or batched). */
function isCloudEventsContentType(headers: IncomingRequest['headers']): boolean {
	return mediaType(headers?.['content-type']).startsWith('application/cloudevents');
}

// rawHeaders where present: Node joins a repeated unknown header with ', ', and `a, b` could be one id.
export function ceHeaders(req: IncomingRequest): Map<string, string[]> {
	const found = new Map<string, string[]>();
	const add = (name: string, value: string) => {
		const lower = name.toLowerCase();
		if (!lower.startsWith(CE_PREFIX)) return;
		const list = found.get(lower) ?? [];
		list.push(value);
		found.set(lower, list);
	};
	if (Array.isArray(req.rawHeaders)) {
		for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) {
			add(String(req.rawHeaders[i]), String(req.rawHeaders[i + 1]));
		}
		return found;
	}
	for (const [name, value] of Object.entries(req.headers ?? {})) {
		if (Array.isArray(value)) value.forEach((v) => add(name, String(v)));
		else if (typeof value === 'string') add(name, value);
	}
	return found;
}

/** "3.1.3.2 HTTP Header Values"; anything invalid (bad `%`, non-ASCII, overlong UTF-8) → null. */
export function decodeHeaderValue(raw: string): string | null {
	let value = raw.trim();
	if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) {
		value = value.slice(1, -1).replace(/\\(.)/g, '$1');
	}
	const bytes: number[] = [];
	for (let i = 0; i < value.length; i++) {
		const code = value.charCodeAt(i);
		if (code === 0x25) {
			const hex = /^[0-9a-fA-F]{2}/.exec(value.slice(i + 1));
			if (hex === null) return null;
			bytes.push(parseInt(hex[0], 16));
			i += 2;
		} else if (code >= 0x20 && code <= 0x7e) {
			bytes.push(code);
		} else {
			return null;
		}
	}
	const buffer = Buffer.from(bytes);
	const text = buffer.toString('utf8');
	return Buffer.from(text).equals(buffer) ? text : null;
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
	mode: CloudEventFacts['mode'],
	attributes: Attributes,
	read: EventData | UnrecognisedReason,
): IncomingDelivery {
	const type = nonEmptyString(attributes.type);
	const cloudEvent: CloudEventFacts = {
		mode,
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
		outputIndex: CONSENT_EVENTS.indexOf(event),
		...fields,
		payload: isObject(data.value) ? data.value : null,
	};
}

/** Structured mode: the whole CloudEvent in the JSON body ("3.2 Structured Content Mode"). */
function parseStructured(bytes: Buffer): IncomingDelivery {
	const token = topLevelMembers(bytes, ['id']).get('id');
	const id = token === undefined ? null : deliveryIdOfToken(token);
	const attributes: Attributes = {
		id,
		idAttribute: undefined,
		specversion: undefined,
		type: undefined,
		source: undefined,
		time: undefined,
	};
	if (exceedsDepth(bytes, MAX_DEPTH)) return fromAttributes('structured', attributes, 'too-deep');
	let parsed: unknown;
	try {
		parsed = JSON.parse(bytes.toString('utf8'));
	} catch {
		return fromAttributes('structured', attributes, 'not-json');
	}
	if (!isObject(parsed)) return fromAttributes('structured', attributes, 'invalid-cloudevent');
	attributes.idAttribute = parsed.id;
	attributes.specversion = parsed.specversion;
	attributes.type = parsed.type;
	attributes.source = parsed.source;
	attributes.time = parsed.time;
	const hasData = 'data' in parsed;
	const hasBase64 = 'data_base64' in parsed;
	// JSON Event Format, "Handling of data": `data` and `data_base64` MUST NOT both be present.
	if (hasData && hasBase64) {
		return fromAttributes('structured', attributes, 'invalid-cloudevent');
	}
	return fromAttributes('structured', attributes, { value: parsed.data, base64: hasBase64 });
}

/** Binary mode: attributes in `ce-` headers, the body is the data ("3.1 Binary Content Mode"). */
function parseBinary(bytes: Buffer, headers: Map<string, string[]>): IncomingDelivery {
	const attribute = (name: string): string | null | undefined => {
		const values = headers.get(`${CE_PREFIX}${name}`);
		return values === undefined ? undefined : decodeHeaderValue(values[0]);
	};
	const idText = attribute('id');
	const id = nonBlankString(idText);
	const attributes: Attributes = {
		id: id === null ? null : { display: id, key: keyOfStringValue(id) },
		idAttribute: idText,
		specversion: attribute('specversion'),
		type: attribute('type'),
		source: attribute('source'),
		time: attribute('time'),
	};
	// A header sent twice (an attribute or an extension) has no one value: the CloudEvent is not valid.
	const repeated = [...headers.values()].some((values) => values.length !== 1);
	const undecodable = [
		attributes.specversion,
		attributes.type,
		attributes.source,
		attributes.time,
	].some((value) => value === null);
	if (repeated || undecodable || idText === null) {
		return fromAttributes('binary', { ...attributes, id: null }, 'invalid-cloudevent');
	}
	if (bytes.length === 0) return fromAttributes('binary', attributes, {});
	if (exceedsDepth(bytes, MAX_DEPTH)) return fromAttributes('binary', attributes, 'too-deep');
	let data: unknown;
	try {
		data = JSON.parse(bytes.toString('utf8'));
	} catch {
		return fromAttributes('binary', attributes, 'not-json');
	}
	return fromAttributes('binary', attributes, { value: data });
}

// Binary mode needs a `ce-specversion` header with a non-CloudEvents Content-Type; else the signed
// body alone decides (the Content-Type never picks a form), so headers cannot change what runs.
export function parseIncoming(rawBody: Buffer, req: IncomingRequest): IncomingDelivery {
	const bytes = withoutBom(rawBody);
	const headers = ceHeaders(req);
	if (headers.has(`${CE_PREFIX}specversion`) && !isCloudEventsContentType(req.headers)) {
		return parseBinary(bytes, headers);
	}
	if (topLevelMembers(bytes, ['specversion']).has('specversion')) return parseStructured(bytes);
	return parseDelivery(rawBody);
}

/** The answer to a batch: 415, nothing run (the body says why, and what to send instead). */
export const BATCH_ANSWER = {
	received: false,
	status: 'unsupported',
	message:
		'Batched CloudEvents (application/cloudevents-batch+json) are not accepted: send one event per request, in binary or structured mode. Nothing was run.',
} as const;
