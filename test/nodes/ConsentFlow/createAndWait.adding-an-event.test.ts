/**
 * Issue 44, an event added later, at the resume URL: with fixtures appended to the trigger's event
 * table (so the parsers recognise them) and to Create and Wait's table (since a version after
 * today's newest), a saved Create and Wait of today's versions answers a signed delivery of the new
 * event as it does today, before the addition: 200 "ignored" (unknown-event, with the body's size),
 * and the execution is not resumed. Only a node of the new version resumes on it.
 */
import { createHmac, randomBytes } from 'node:crypto';
import type { INode, INodeParameters, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';
import type { WaitEvent, WaitEvents } from '../../../nodes/ConsentFlow/flow/outcome';

type TriggerEventEntry = { value: string; outputName: string; description: string };

const RENEWED: TriggerEventEntry = {
	value: 'consent.renewed',
	outputName: 'Renewed',
	description: 'An accepted consent was renewed',
};
/** In the trigger's table only: Create and Wait was not given a line for it. */
const REVOKED: TriggerEventEntry = {
	value: 'consent.revoked',
	outputName: 'Revoked',
	description: 'A consent was revoked',
};
const NEW_VERSION = 1.2;

jest.mock('../../../nodes/shared/webhook/events', () => {
	const actual = jest.requireActual('../../../nodes/shared/webhook/events');
	const table = [...actual.EVENT_TABLE, RENEWED, REVOKED];
	return {
		...actual,
		EVENT_TABLE: table,
		CONSENT_EVENTS: table.map((e: TriggerEventEntry) => e.value),
	};
});

jest.mock('../../../nodes/ConsentFlow/flow/outcome', () => {
	const actual = jest.requireActual('../../../nodes/ConsentFlow/flow/outcome');
	const renewed: WaitEvent = { ends: 'dataReceived', since: NEW_VERSION };
	const table: WaitEvents = { ...actual.WAIT_EVENTS, 'consent.renewed': renewed };
	return {
		...actual,
		WAIT_EVENTS: table,
		waitEventAt: (event: unknown, nodeVersion?: number) =>
			actual.waitEventAt(event, nodeVersion, table),
	};
});

import { ConsentFlow } from '../../../nodes/ConsentFlow/ConsentFlow.node';
import { RESUME_KEY } from '../../../nodes/ConsentFlow/flow/resume-webhook';
import { createParams } from './helpers';

const SIGNATURE_HEADER = 'x-acme-sbl-signature';
const NODE_NAME = 'Consent Flow';

interface Sent {
	status?: number;
	json?: unknown;
}

/** A signed delivery of `body` to the resume URL of a waiting node of `typeVersion`. */
async function deliver(
	body: string,
	typeVersion: number,
): Promise<{ sent: Sent; result: IWebhookResponseData; stillWaiting: boolean }> {
	const secret = randomBytes(24).toString('hex');
	const sent: Sent = {};
	const response = {
		status: (code: number) => ((sent.status = code), response),
		json: (value: unknown) => ((sent.json = value), response),
		send: () => response,
		setHeader: () => response,
		end: () => response,
	};
	const params = createParams({ operation: 'createAndWait' });
	const node: INode = {
		id: 'n1',
		name: NODE_NAME,
		type: 'n8n-nodes-sbl.consentFlow',
		typeVersion,
		position: [0, 0],
		parameters: params as INodeParameters,
		// a credential id of its own: nothing comes from the credential cache of another delivery
		credentials: {
			consentFlowWebhookSigningApi: { id: `signing-${randomBytes(8).toString('hex')}`, name: 'S' },
		},
	};
	const stack = [{ node: { name: NODE_NAME, disabled: true } }];
	const ctx = {
		getNode: () => node,
		getNodeParameter: (name: string, fallback: unknown) => node.parameters[name] ?? fallback,
		getRequestObject: () => ({
			headers: { [SIGNATURE_HEADER]: createHmac('sha256', secret).update(body).digest('hex') },
			rawBody: Buffer.from(body, 'utf8'),
		}),
		getResponseObject: () => response,
		getCredentials: async () => ({ secret, signatureHeader: '' }),
		runExecutionData: { executionData: { nodeExecutionStack: stack } },
	} as unknown as IWebhookFunctions;
	const result = await new ConsentFlow().webhook.call(ctx);
	return { sent, result, stillWaiting: stack[0].node.disabled === true };
}

function envelope(event: string, webhookId: string): string {
	return JSON.stringify({
		webhookId,
		event,
		timestamp: '2030-01-02T00:00:00.000Z',
		payload: { flow: 'flow-1', externalId: 'loan-42' },
	});
}

describe('an event added to Create and Wait for node version 1.2', () => {
	test.each([1, 1.1])(
		'a saved node of version %s answers it 200 "ignored" as an unknown event, and keeps waiting',
		async (typeVersion) => {
			const body = envelope('consent.renewed', 'wh-renewed');
			const { sent, result, stillWaiting } = await deliver(body, typeVersion);
			expect(sent.status).toBe(200);
			expect(sent.json).toEqual({
				received: true,
				event: 'consent.renewed',
				webhookId: 'wh-renewed',
				status: 'ignored',
				reason: 'unknown-event',
				size: body.length,
			});
			expect(result.workflowData).toBeUndefined();
			expect(result.noWebhookResponse).toBe(true);
			expect(stillWaiting).toBe(true);
		},
	);

	test.each([1, 1.1])(
		'a saved node of version %s still resumes on the old events',
		async (typeVersion) => {
			const { result, stillWaiting } = await deliver(
				envelope('consent.data', 'wh-data'),
				typeVersion,
			);
			expect(result.workflowData?.[0][0].json[RESUME_KEY]).toMatchObject({ event: 'consent.data' });
			expect(stillWaiting).toBe(false);
		},
	);

	test('a node of the new version resumes on it', async () => {
		const { sent, result, stillWaiting } = await deliver(
			envelope('consent.renewed', 'wh-new'),
			NEW_VERSION,
		);
		expect(sent.status).toBeUndefined();
		expect(result.workflowData?.[0][0].json[RESUME_KEY]).toMatchObject({
			event: 'consent.renewed',
			webhookId: 'wh-new',
		});
		expect(stillWaiting).toBe(false);
	});

	test('an event of the trigger that Create and Wait has no line for: ignored at every version', async () => {
		for (const typeVersion of [1, 1.1, NEW_VERSION]) {
			const body = envelope('consent.revoked', `wh-revoked-${typeVersion}`);
			const { sent, result, stillWaiting } = await deliver(body, typeVersion);
			expect({ typeVersion, status: sent.status, json: sent.json }).toMatchObject({
				typeVersion,
				status: 200,
				json: { status: 'ignored', reason: 'unknown-event', size: body.length },
			});
			expect(result.workflowData).toBeUndefined();
			expect(stillWaiting).toBe(true);
		}
	});
});
