/**
 * Minimise Personal Data (issue 25): the Consent Flow Trigger's option in the n8n-like HTTP
 * harness, every setting for every output (the ten events and Unrecognised with each reason),
 * the defaults per node version as n8n-workflow fills them in, and the pure functions.
 *
 * Oracles written here: what each setting must leave in an item (the issue: mask or leave out
 * nationalId, leave out authorizationCode, leave out the raw body of Unrecognised keeping its
 * length and reason), the mask (all but the last two characters), the version defaults.
 */
import {
	NodeHelpers,
	type INode,
	type INodeParameters,
	type INodeTypeDescription,
} from 'n8n-workflow';

import { ConsentFlow } from '../../../nodes/ConsentFlow/ConsentFlow.node';
import { ConsentFlowTrigger } from '../../../nodes/ConsentFlowTrigger/ConsentFlowTrigger.node';
import {
	maskNationalId,
	minimiseValues,
	minimiseMode,
	minimiseUnrecognisedItem,
} from '../../../nodes/shared/webhook/minimise';
import { syntheticNationalId } from '../../support/synthetic-ids';
import { PUBLISHED_EVENTS, envelope, nextId, postSigned } from './helpers';
import { emitted, useTriggerHarness } from './trigger-harness';

const harness = useTriggerHarness();

const NATIONAL_ID = syntheticNationalId(5);
const MASKED = `*********${NATIONAL_ID.slice(-2)}`;
const CODE = 'authz-4e1d77';
const DATA = { tax: { netIncome: 512000 }, income: { employer: '923609016' } };

/** Every way the option can be set: [label, typeVersion, parameter value or undefined]. */
const SETTINGS = [
	['without the parameter (the default)', 1, undefined, 'mask'],
	['Keep Everything', 1, 'keep', 'keep'],
	['Mask National ID', 1, 'mask', 'mask'],
	['Leave Out National ID', 1, 'leaveOut', 'leaveOut'],
] as const;

function parametersOf(value: string | undefined): Record<string, unknown> {
	return { minimisePersonalData: value };
}

/** The national ID as each mode must show it; undefined: the key must be absent. */
function shownId(mode: string): string | undefined {
	if (mode === 'keep') return NATIONAL_ID;
	if (mode === 'mask') return MASKED;
	return undefined;
}

function expectField(object: Record<string, unknown>, key: string, value: unknown): void {
	if (value === undefined) expect(object).not.toHaveProperty(key);
	else expect(object[key]).toBe(value);
}

describe('the trigger, every setting × every event', () => {
	describe.each(SETTINGS)('%s', (_label, typeVersion, value, mode) => {
		test.each(PUBLISHED_EVENTS.map((event, index) => [event, index]))(
			'%s (output %i)',
			async (event, index) => {
				const h = await harness({ typeVersion, parameters: parametersOf(value) });
				const webhookId = nextId();
				const body = envelope(event, {
					webhookId,
					payload: {
						externalId: 'loan-42',
						flow: 'flow-9',
						nationalId: NATIONAL_ID,
						authorizationCode: CODE,
						data: DATA,
					},
				});
				expect((await postSigned(h.url, body)).status).toBe(200);
				const item = emitted(h);
				expect(item.index).toBe(index);
				const json = item.json as Record<string, unknown>;
				const payload = json.payload as Record<string, unknown>;
				// what every setting keeps
				expect(json).toMatchObject({ event, webhookId, flowId: 'flow-9', externalId: 'loan-42' });
				// an envelope is no CloudEvent, and headers only when asked
				expect(json).not.toHaveProperty('cloudEvent');
				expect(json).not.toHaveProperty('headers');
				expect(payload).toMatchObject({ externalId: 'loan-42', flow: 'flow-9', data: DATA });
				// what the setting decides
				expectField(json, 'nationalId', shownId(mode));
				expectField(payload, 'nationalId', shownId(mode));
				expectField(json, 'authorizationCode', mode === 'keep' ? CODE : undefined);
				expectField(payload, 'authorizationCode', mode === 'keep' ? CODE : undefined);
				if (mode !== 'keep') {
					const text = JSON.stringify(h.executions);
					expect(text).not.toContain(NATIONAL_ID);
					expect(text).not.toContain(CODE);
				}
			},
		);

		const tooDeep = `{"webhookId":"deep-1","payload":${'['.repeat(80)}${']'.repeat(80)},"nationalId":"${NATIONAL_ID}"}`;
		test.each([
			['not-json', `nationalId=${NATIONAL_ID}&code=${CODE}`, 'text/plain; charset=utf-8', null],
			[
				'unknown-event',
				JSON.stringify({
					webhookId: 'u-1',
					event: 'consent.somethingNew',
					payload: { nationalId: NATIONAL_ID, authorizationCode: CODE },
				}),
				'application/json',
				'consent.somethingNew',
			],
			[
				'no-event',
				JSON.stringify({ webhookId: 'n-1', payload: { nationalId: NATIONAL_ID } }),
				'application/json',
				null,
			],
			['too-deep', tooDeep, 'application/json', null],
		])('Unrecognised, %s', async (reason, body, contentType, event) => {
			const h = await harness({ typeVersion, parameters: parametersOf(value) });
			const response = await postSigned(h.url, body, {
				extraHeaders: { 'content-type': contentType },
			});
			expect(response.status).toBe(200);
			const item = emitted(h);
			expect(item.index).toBe(10);
			const json = item.json as Record<string, unknown>;
			expect(json).toMatchObject({ event, reason });
			expect(Date.parse(json.receivedAt as string)).not.toBeNaN();
			if (mode === 'keep') {
				// as before: the body as text (too-deep: its beginning)
				expect(body.startsWith(json.rawBody as string)).toBe(true);
				expect(json).not.toHaveProperty('rawBodyLength');
			} else {
				expect(json).not.toHaveProperty('rawBody');
				expect(json).not.toHaveProperty('rawBodyTruncated');
				expect(json.rawBodyLength).toBe(body.length);
				expect(JSON.stringify(h.executions)).not.toContain(NATIONAL_ID);
			}
		});
	});

	test('an unknown value (an expression with a typo) leaves out the most', async () => {
		const h = await harness({ typeVersion: 1, parameters: { minimisePersonalData: 'masked' } });
		await postSigned(
			h.url,
			envelope('consent.created', {
				payload: { flow: 'f', nationalId: NATIONAL_ID, authorizationCode: CODE },
			}),
		);
		const json = emitted(h).json as Record<string, unknown>;
		expect(json).not.toHaveProperty('nationalId');
		expect(json).not.toHaveProperty('authorizationCode');
		expect(json.payload).toEqual({ flow: 'f' });
	});

	test('Include Headers: a header off the allow-list only when named in Additional Headers', async () => {
		const h = await harness({
			typeVersion: 1,
			parameters: { options: { includeHeaders: true, additionalHeaders: 'X-Request-Id' } },
		});
		await postSigned(h.url, envelope('consent.accepted'), {
			extraHeaders: { 'x-request-id': 'r-1' },
		});
		const json = emitted(h).json as Record<string, unknown>;
		expect(json.headers).toMatchObject({ 'x-request-id': 'r-1' });
	});
});

describe('defaults, as n8n fills them in', () => {
	function filled(
		description: INodeTypeDescription,
		typeVersion: number,
		parameters: INodeParameters,
	): INodeParameters {
		const node: INode = {
			id: 'n',
			name: 'n',
			type: 't',
			typeVersion,
			position: [0, 0],
			parameters,
		};
		return NodeHelpers.getNodeParameters(
			description.properties,
			parameters,
			true,
			false,
			node,
			description,
		) as INodeParameters;
	}

	test('Consent Flow Trigger: masks', () => {
		const description = new ConsentFlowTrigger().description;
		expect(description.version).toBe(1);
		expect(filled(description, 1, {}).minimisePersonalData).toBe('mask');
		expect(filled(description, 1, { minimisePersonalData: 'leaveOut' }).minimisePersonalData).toBe(
			'leaveOut',
		);
	});

	test('Consent Flow: Create and Wait for Outcome has it (mask); Create and Delete do not', () => {
		const description = new ConsentFlow().description;
		expect(description.version).toBe(1);
		const wait = { resource: 'flow', operation: 'createAndWait' };
		expect(filled(description, 1, wait).minimisePersonalData).toBe('mask');
		for (const operation of ['create', 'delete']) {
			expect(filled(description, 1, { resource: 'flow', operation })).not.toHaveProperty(
				'minimisePersonalData',
			);
		}
	});
});

describe('the pure functions', () => {
	test.each([
		[NATIONAL_ID, MASKED],
		['12345', '***45'],
		['1234', '****'],
		['', ''],
		[12345678901, '*********01'],
		[null, null],
		[undefined, undefined],
		[{ id: 1 }, { id: 1 }],
	])('maskNationalId(%p) = %p', (value, masked) => {
		expect(maskNationalId(value)).toEqual(masked);
	});

	test('masking a masked value changes nothing', () => {
		expect(maskNationalId(maskNationalId(NATIONAL_ID))).toBe(MASKED);
	});

	test.each([
		['keep', 'keep'],
		['mask', 'mask'],
		['leaveOut', 'leaveOut'],
		['Mask', 'leaveOut'],
		['', 'leaveOut'],
		[undefined, 'leaveOut'],
		[true, 'leaveOut'],
	])('minimiseMode(%p) = %p', (value, mode) => {
		expect(minimiseMode(value)).toBe(mode);
	});

	test('minimiseValues does not change its input, and keeps the key order otherwise', () => {
		const item = {
			event: 'consent.created',
			nationalId: NATIONAL_ID,
			authorizationCode: CODE,
			payload: { nationalId: NATIONAL_ID, authorizationCode: CODE, flow: 'f' },
			receivedAt: 'now',
		};
		const copy = structuredClone(item);
		expect(minimiseValues(item, 'mask')).toEqual({
			event: 'consent.created',
			nationalId: MASKED,
			payload: { nationalId: MASKED, flow: 'f' },
			receivedAt: 'now',
		});
		expect(Object.keys(minimiseValues(item, 'leaveOut'))).toEqual([
			'event',
			'payload',
			'receivedAt',
		]);
		expect(minimiseValues(item, 'keep')).toBe(item);
		expect(item).toEqual(copy);
	});

	test('an event item whose payload is null keeps it null', () => {
		expect(
			minimiseValues({ event: 'consent.data', nationalId: null, payload: null }, 'mask'),
		).toEqual({ event: 'consent.data', nationalId: null, payload: null });
	});

	test('minimiseUnrecognisedItem: rawBody becomes rawBodyLength in its place, of the whole text', () => {
		const whole = 'x'.repeat(20);
		const item = {
			event: null,
			reason: 'too-deep',
			rawBody: whole.slice(0, 8),
			receivedAt: 'now',
			rawBodyTruncated: true,
			webhookId: 'w',
		};
		expect(minimiseUnrecognisedItem(item, whole, 'leaveOut')).toEqual({
			event: null,
			reason: 'too-deep',
			rawBodyLength: 20,
			receivedAt: 'now',
			webhookId: 'w',
		});
		expect(Object.keys(minimiseUnrecognisedItem(item, whole, 'mask'))).toEqual([
			'event',
			'reason',
			'rawBodyLength',
			'receivedAt',
			'webhookId',
		]);
		expect(minimiseUnrecognisedItem(item, whole, 'keep')).toBe(item);
	});
});
