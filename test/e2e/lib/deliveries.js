'use strict';
// Signed webhook deliveries as the consent flow service sends them (HMAC-SHA256 over the exact
// bytes, hex, in an x-<vendor>-sbl-signature header), for the load and fault scenarios: unique
// ids over all ten events, and on request the odd shapes careless senders and attackers produce
// (numeric and unicode ids, deep nesting, bodies of several MB). The expected output of each
// delivery is computed here from the published event list, not by the node's code.
const crypto = require('node:crypto');
const { TRIGGER_OUTPUTS, UNRECOGNISED_INDEX } = require('./loop');

const HEADER = 'x-acme-sbl-signature';
const EVENTS = TRIGGER_OUTPUTS.slice(0, UNRECOGNISED_INDEX);

function sign(secret, bytes) {
	return crypto.createHmac('sha256', secret).update(bytes).digest('hex');
}

function nested(depth, leaf) {
	let v = leaf;
	for (let i = 0; i < depth; i++) v = { n: v };
	return v;
}

/**
 * The body of delivery `i` with id `webhookId` in `shape`:
 *   plain   — { webhookId, event, timestamp, payload: { flow } }
 *   number  — the id as a JSON number (the display is its text)
 *   unicode — an id with non-ASCII letters and an emoji
 *   nested  — a payload nested 60 levels deep (under the trigger's 64-level limit)
 *   deep    — a payload nested 100 levels deep (over it: the trigger does not parse the body,
 *             it goes to Unrecognised with its id read from the raw bytes)
 *   large   — a payload with a string of `largeBytes` bytes
 */
function deliveryBody(i, webhookId, shape, { largeBytes = 1024 * 1024 } = {}) {
	const event = EVENTS[i % EVENTS.length];
	const flow = `flow-${i}`;
	const timestamp = new Date(Date.UTC(2026, 10, 23, 12, 0, i % 60)).toISOString();
	let payload = { flow };
	if (shape === 'nested') payload = { flow, detail: nested(60, { i }) };
	if (shape === 'deep') payload = { flow, detail: nested(100, { i }) };
	if (shape === 'large') payload = { flow, blob: 'x'.repeat(largeBytes) };
	if (shape === 'number') {
		// A JSON number id, written out by hand so that its exact digits are sent.
		const text = `{"webhookId":${webhookId},"event":${JSON.stringify(event)},"timestamp":"${timestamp}","payload":${JSON.stringify(payload)}}`;
		return { text, event, display: String(webhookId) };
	}
	const text = JSON.stringify({ webhookId, event, timestamp, payload });
	return { text, event, display: webhookId };
}

/**
 * `count` signed deliveries with unique ids under `tag`. shapes(i) picks the shape of delivery i
 * (default: plain). Each: { id (as shown by the trigger), event, output (expected trigger output
 * index), shape, body (Buffer), headers }.
 */
function signedDeliveries({
	count,
	secret,
	tag,
	shapes = () => 'plain',
	largeBytes,
	header = HEADER,
}) {
	const out = [];
	for (let i = 0; i < count; i++) {
		const shape = shapes(i);
		const id =
			shape === 'number'
				? `9${String(Date.now()).slice(-8)}${String(i).padStart(6, '0')}`
				: shape === 'unicode'
					? `${tag}-ø-å-😀-${i}`
					: `${tag}-${i}`;
		const { text, event, display } = deliveryBody(i, id, shape, { largeBytes });
		const body = Buffer.from(text, 'utf8');
		out.push({
			id: display,
			event,
			// Too deep to be parsed: Unrecognised, whatever its event (README, Outputs).
			output: shape === 'deep' ? UNRECOGNISED_INDEX : TRIGGER_OUTPUTS.indexOf(event),
			shape,
			body,
			headers: { 'content-type': 'application/json', [header]: sign(secret, body) },
		});
	}
	return out;
}

/** The same delivery with a signature made with another secret (answered 401). */
function withWrongSignature(delivery, wrongSecret) {
	return {
		...delivery,
		headers: { ...delivery.headers, [HEADER]: sign(wrongSecret, delivery.body) },
	};
}

/** Deterministic shuffle (seeded), so that a failing order can be replayed. */
function shuffle(list, seed) {
	const a = [...list];
	let s = seed >>> 0 || 1;
	for (let i = a.length - 1; i > 0; i--) {
		s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
		const j = s % (i + 1);
		[a[i], a[j]] = [a[j], a[i]];
	}
	return a;
}

/** The trigger's acknowledgement status in a sender record ('emitted', 'duplicate', …) or null. */
function ackStatus(record) {
	try {
		return JSON.parse(record.response).status ?? null;
	} catch {
		return null;
	}
}

module.exports = { HEADER, EVENTS, sign, signedDeliveries, withWrongSignature, shuffle, ackStatus };
