// The trigger against the package's consent flow simulator (test/simulator): the simulator signs
// and sends the deliveries, over real HTTP, to the trigger running in the n8n-like harness.
import { sleep, type IDataObject } from 'n8n-workflow';
import { request } from 'undici';

import { freshTrigger } from '../../support/fresh-modules';
import { CONSENT_EVENTS } from '../../../nodes/shared/webhook/events';
import {
	control,
	controlResponse,
	useSimulator,
	type SimulatorHandle,
} from '../../support/simulator';
import { harnessMajor, startHarness, type Harness } from './http-harness';

interface FireAnswer {
	deliveryId: string;
	status: number;
	body: unknown;
	webhookId: string;
}

const sim: SimulatorHandle = useSimulator({ webhookDelayMs: 5 });
let h: Harness;

async function call(
	method: 'GET' | 'POST',
	url: string,
	body?: unknown,
	headers: Record<string, string> = {},
) {
	const response = await request(url, {
		method,
		body: body === undefined ? undefined : JSON.stringify(body),
		headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
	});
	const text = await response.body.text();
	return {
		status: response.statusCode,
		json: text ? (JSON.parse(text) as Record<string, unknown>) : {},
	};
}

async function fire(body: Record<string, unknown>): Promise<FireAnswer> {
	const answer = await controlResponse<FireAnswer>(sim, 'POST', '/fire', { url: h.url, ...body });
	expect(answer.status).toBe(200);
	return answer.body as FireAnswer;
}

const parsed = (body: unknown) =>
	typeof body === 'string' ? (JSON.parse(body) as IDataObject) : (body as IDataObject);

function lastItem() {
	const data = h.executions[h.executions.length - 1].workflowData;
	const index = data.findIndex((items) => items.length > 0);
	return { index, json: data[index][0].json };
}

// the n8n version the harness follows (SBL_HARNESS_N8N) is the one the node sees
const { ConsentFlowTrigger } = freshTrigger(harnessMajor());

beforeEach(async () => {
	h = await startHarness({
		createNode: () => new ConsentFlowTrigger(),
		credentials: { secret: sim.signingSecret, signatureHeader: '' },
	});
});

afterEach(async () => {
	await h.close();
});

it.each(CONSENT_EVENTS.map((event, index) => [event, index] as const))(
	'simulator-signed %s lands on output %i',
	async (event, index) => {
		const answer = await fire({ event, envelope: 'new' });
		expect(answer.status).toBe(200);
		expect(parsed(answer.body)).toMatchObject({
			event,
			webhookId: answer.webhookId,
			status: 'emitted',
		});
		expect(lastItem()).toMatchObject({ index, json: { event, webhookId: answer.webhookId } });
	},
);

it.each([
	['consent.rejected', 2],
	['consent.deleted', 3],
] as const)(
	'the old envelope form of %s (id, type, no timestamp) lands on output %i',
	async (event, index) => {
		const answer = await fire({ event, envelope: 'old' });
		expect(answer.status).toBe(200);
		expect(lastItem()).toMatchObject({
			index,
			json: { event, webhookId: answer.webhookId, timestamp: null },
		});
	},
);

it('a byte-for-byte redelivery is acknowledged as a duplicate and not emitted', async () => {
	const first = await fire({ event: 'consent.accepted' });
	const again = {
		json: await control<FireAnswer>(sim, 'POST', '/redeliver', { deliveryId: first.deliveryId }),
	};
	expect(again.json.status).toBe(200);
	expect(parsed(again.json.body)).toMatchObject({
		status: 'duplicate',
		webhookId: first.webhookId,
	});
	expect(h.executions).toHaveLength(1);
});

it('refuses bad and missing signatures, accepts upper-case hex', async () => {
	expect((await fire({ event: 'consent.data', badSignature: true })).status).toBe(401);
	expect((await fire({ event: 'consent.data', noSignature: true })).status).toBe(401);
	expect(h.executions).toHaveLength(0);
	expect((await fire({ event: 'consent.data', signatureCase: 'upper' })).status).toBe(200);
	expect(h.executions).toHaveLength(1);
});

it('a signed raw body that is not JSON goes to Unrecognised', async () => {
	const answer = await fire({ event: 'consent.data', rawBody: 'ping' });
	expect(answer.status).toBe(200);
	expect(lastItem()).toMatchObject({ index: 10, json: { reason: 'not-json', rawBody: 'ping' } });
});

it('a flow created through the API reports its lifecycle to the trigger, in order', async () => {
	const client = sim.clients.consent;
	const token = await request(client.tokenUrl, {
		method: 'POST',
		headers: { 'content-type': 'application/x-www-form-urlencoded' },
		body: new URLSearchParams({
			grant_type: 'client_credentials',
			client_id: client.clientId,
			client_secret: client.clientSecret,
			scope: 'sbl',
		}).toString(),
	});
	const { access_token: accessToken } = (await token.body.json()) as { access_token: string };
	const created = await call(
		'POST',
		`${sim.consentBaseUrl}/api/flow-definitions/sbl`,
		{
			nationalId: '01817000092', // the simulator's "happy" scenario
			lastName: 'Nordmann',
			organizationId: '923456783',
			redirectUrl: 'https://bank.example/done',
			webhookUrl: h.url,
			externalId: 'loan-17',
		},
		{ authorization: `Bearer ${accessToken}` },
	);
	expect(created.status).toBe(201);

	for (let waited = 0; h.executions.length < 3 && waited < 5000; waited += 25) await sleep(25);
	const items = h.executions.map(({ workflowData }) => {
		const index = workflowData.findIndex((list) => list.length > 0);
		return { index, json: workflowData[index][0].json };
	});
	expect(items.map((i) => i.json.event)).toEqual([
		'consent.created',
		'consent.accepted',
		'consent.data',
	]);
	expect(items.map((i) => i.index)).toEqual([0, 1, 4]);
	for (const item of items) {
		expect(item.json).toMatchObject({
			flowId: created.json.id,
			externalId: 'loan-17',
			nationalId: '01817000092',
		});
	}
	expect(typeof items[0].json.authorizationCode).toBe('string');
});
