import { createHmac } from 'crypto';
import type { IDataObject } from 'n8n-workflow';
import { request } from 'undici';

import {
	DEDUPE_KEY,
	DEDUPE_VERSION,
	recordDeliveryShared,
} from '../../../nodes/ConsentFlowTrigger/dedupe';
import type { Dedupe } from '../../support/fresh-modules';
import { MAX_KEY_JSON_BYTES } from '../../../nodes/shared/webhook/webhook-id';
import { answerPlan } from '../../../nodes/shared/webhook/decide';

// A test fixture, not a real key ('dummy' keeps the hardcoded-secret lint rule quiet).
export const SIGNING_KEY = 'dummy-signing-key-0123456789';

/** Independent oracle: hex HMAC-SHA256 of the exact bytes (not the code under test). */
export function sign(body: string | Buffer, secret = SIGNING_KEY): string {
	return createHmac('sha256', secret).update(body).digest('hex');
}

export interface PostResult {
	status: number;
	contentType: string;
	text: string;
	json: unknown;
}

/** POSTs exactly `body` (string bytes as UTF-8) with the given headers over real HTTP. */
export async function post(
	url: string,
	body: string | Buffer,
	headers: Record<string, string> = {},
): Promise<PostResult> {
	const response = await request(url, {
		method: 'POST',
		body,
		headers: { 'content-type': 'application/json', ...headers },
	});
	const text = await response.body.text();
	let json: unknown = undefined;
	try {
		json = JSON.parse(text);
	} catch {
		json = undefined;
	}
	const contentType = response.headers['content-type'];
	return {
		status: response.statusCode,
		contentType: Array.isArray(contentType) ? contentType.join(',') : (contentType ?? ''),
		text,
		json,
	};
}

/** POSTs `body` signed with `secret` in `header` (default x-acme-sbl-signature). */
export async function postSigned(
	url: string,
	body: string | Buffer,
	options: { header?: string; secret?: string; extraHeaders?: Record<string, string> } = {},
): Promise<PostResult> {
	const header = options.header ?? 'x-acme-sbl-signature';
	return await post(url, body, {
		[header]: sign(body, options.secret ?? SIGNING_KEY),
		...(options.extraHeaders ?? {}),
	});
}

/**
 * The service description's ten events (consent-flow-service.md, "Events"), in its order:
 * the oracle the trigger's event table and outputs are checked against.
 */
export const PUBLISHED_EVENTS: readonly string[] = (
	'consent.created consent.accepted consent.rejected consent.deleted consent.data ' +
	'consent.timedOut consent.timedOutDataFailed user.timedOut tax.dataFailed income.dataFailed'
).split(' ');

/** Deepest bracket nesting outside strings (an oracle, written independently of the node). */
export function nestingDepth(body: string | Buffer): number {
	const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
	let depth = 0;
	let max = 0;
	let inString = false;
	for (let i = 0; i < bytes.length; i++) {
		const b = bytes[i];
		if (inString) {
			if (b === 0x5c) i++;
			else if (b === 0x22) inString = false;
		} else if (b === 0x22) inString = true;
		else if (b === 0x7b || b === 0x5b) max = Math.max(max, ++depth);
		else if (b === 0x7d || b === 0x5d) depth--;
	}
	return max;
}

let counter = 0;

/** A unique delivery id per call. */
export function nextId(prefix = 'wh'): string {
	counter += 1;
	return `${prefix}-${Date.now().toString(36)}-${counter}`;
}

/** A current-form envelope (`event`, `webhookId`, `timestamp`, `payload`) as compact JSON. */
export function envelope(
	event: string,
	fields: { webhookId?: string; timestamp?: string | null; payload?: Record<string, unknown> } = {},
): string {
	const body: Record<string, unknown> = {
		webhookId: fields.webhookId ?? nextId(),
		event,
	};
	if (fields.timestamp !== null) body.timestamp = fields.timestamp ?? new Date().toISOString();
	body.payload = fields.payload ?? {
		externalId: 'loan-42',
		flow: 'flow-123',
		nationalId: '01817000173',
	};
	return JSON.stringify(body);
}

/** The keys saved under DEDUPE_KEY, read by the documented format (version 3: one per line). */
export function savedKeys(saved: unknown): string[] {
	if (saved === undefined || saved === null) return [];
	const plain = JSON.parse(JSON.stringify(saved)) as { version?: unknown; keys?: unknown };
	if (plain.version !== 3 || typeof plain.keys !== 'string') {
		throw new Error(`not the version 3 format: ${JSON.stringify(plain).slice(0, 80)}`);
	}
	return plain.keys === '' ? [] : plain.keys.split('\n');
}

let freshMemory = 0;

/** One record by a process that has nothing in memory yet: what it keeps of `stored` and `key`. */
export function recordDelivery(
	stored: unknown,
	key: string,
	limit: number,
): { duplicate: boolean; next: { version: number; keys: string } | null } {
	const memoryKey = `fresh-${++freshMemory}`;
	const { duplicate, state } = recordDeliveryShared(memoryKey, stored, key, limit);
	return { duplicate, next: duplicate ? null : storedKeys(state.ids) };
}

/** The documented stored shape (version 3): the keys, oldest first, one per line. */
export const storedKeys = (ids: readonly string[]) => ({
	version: DEDUPE_VERSION,
	keys: ids.join('\n'),
});

/**
 * Records `key` against `stored` in `memory` (one process's copy of dedupe.ts, from
 * test/support/fresh-modules.ts); returns what hold() assigns to static data for n8n to save.
 */
export function recordForSave(
	memory: Dedupe,
	memoryKey: string,
	stored: unknown,
	key: string,
	limit: number,
) {
	memory.recordDeliveryShared(memoryKey, stored, key, limit);
	const staticData: IDataObject = {};
	const slot = { memoryKey, key, also: [], limit, staticData };
	memory.hold(slot, answerPlan('n8n-after-run', false));
	return staticData[DEDUPE_KEY] as object;
}

/** The most a trigger's stored memory of `limit` keys can take: each key at most MAX_KEY_JSON_BYTES - 2 inside the string, each line break 2 (`\n`). */
export const maxStateBytes = (limit: number): number =>
	JSON.stringify({ version: DEDUPE_VERSION, keys: '' }).length + limit * MAX_KEY_JSON_BYTES - 2;
