/**
 * Create and Wait for Outcome (nodes/ConsentFlow/flow/createAndWait.ts), execute() and webhook()
 * with hand-made n8n contexts: the test execute context (real HTTP to the simulator, every
 * request recorded in `ctx.sent`) plus the waiting-execution methods n8n gives a node
 * (evaluateExpression for the resume URL, the node context, putExecutionToWait, the execute
 * data, setMetadata), and a webhook context holding n8n's waiting-execution stack. The real n8n
 * behaviour (resuming, forwarding outputs) is judged by test/e2e/create-and-wait.test.js.
 *
 * Oracles written here: the output names and the event → output rule (from the issue), the
 * HMAC-SHA256 of the raw body (node:crypto), the deadline arithmetic.
 */
import fc from 'fast-check';
import { createHmac, randomBytes } from 'node:crypto';
import { NodeOperationError, WAIT_INDEFINITELY } from 'n8n-workflow';
import type {
	IDataObject,
	INode,
	INodeExecutionData,
	INodeParameters,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';
import { ConsentFlow } from '../../../nodes/ConsentFlow/ConsentFlow.node';
import { matchKey } from '../../../nodes/shared/webhook/webhook-id';
import {
	CONFIGURED_OUTPUTS,
	STATE_KEY,
	executeCreateAndWait,
} from '../../../nodes/ConsentFlow/flow/createAndWait';
import {
	RESUME_KEY,
	RESUME_MATCH_KEY,
	createAndWaitWebhook,
} from '../../../nodes/ConsentFlow/flow/resume-webhook';
import {
	newWaitState,
	readWaitState,
	type SeenEvent,
	type WaitState,
} from '../../../nodes/ConsentFlow/flow/outcome';
import { createExecuteContext } from '../../support/execute-context';
import { n8nComputedOutputs } from '../../support/computed-outputs';
import type { Params, TestContext } from '../../support/execute-context';
import { addFault, simFlows, simRequests, useSimulator } from '../../support/simulator';
import { PUBLISHED_EVENTS } from '../ConsentFlowTrigger/helpers';
import {
	FLOW_PATH,
	NATIONAL_ID,
	SIM_OPTIONS,
	createParams,
	credentialsFor,
	deepText,
} from './helpers';
import { syntheticNationalId } from '../../support/synthetic-ids';

const sim = useSimulator({ ...SIM_OPTIONS, beforeEach: 'reset' });

// ---------- the rule, from the issue ----------

const OUTPUTS = ['Data Received', 'Rejected', 'Deleted', 'Failed/Expired'];
const WITH_LIMIT = [...OUTPUTS, 'Wait Timed Out'];
const FAILED = OUTPUTS.indexOf('Failed/Expired');
const OUTPUT_OF: Record<string, number | null> = {
	'consent.created': null,
	'consent.accepted': null,
	'consent.data': 0,
	'consent.rejected': 1,
	'consent.deleted': 2,
	'consent.timedOut': 3,
	'consent.timedOutDataFailed': 3,
	'user.timedOut': 3,
	'tax.dataFailed': 3,
	'income.dataFailed': 3,
};
const OUTCOME_EVENTS = PUBLISHED_EVENTS.filter((event) => OUTPUT_OF[event] !== null);
const INTERMEDIATE_EVENTS = PUBLISHED_EVENTS.filter((event) => OUTPUT_OF[event] === null);

// ---------- secrets and URLs, made at run time ----------

const signingSecret = (): string => randomBytes(24).toString('hex');
const resumeToken = (): string => randomBytes(16).toString('hex');
const NODE_NAME = 'Consent Flow';

function resumeUrl2x(token = resumeToken(), base = 'http://127.0.0.1:5678'): string {
	return `${base}/webhook-waiting/4711?signature=${token}`;
}
const RESUME_URL_1X = 'http://127.0.0.1:5678/webhook-waiting/4711';

function waitParams(overrides: Params = {}): Params {
	// Create and Wait for Outcome has no Webhook URL parameter: the resume URL takes its place
	const create = createParams({ operation: 'createAndWait' });
	delete create.webhookUrl;
	// Keep Everything: most tests compare the event as sent; Minimise Personal Data has its own below
	return { ...create, options: { retryDelayMs: 10 }, minimisePersonalData: 'keep', ...overrides };
}

// ---------- the execute context ----------

interface WaitContext extends TestContext {
	nodeContext: IDataObject;
	executeData: { node: INode; data: { main: Array<INodeExecutionData[] | null> }; source: null };
	putExecutionToWait: jest.Mock;
	setMetadata: jest.Mock;
	evaluateExpression: jest.Mock;
}

interface WaitContextOptions {
	parameters?: Params;
	items?: INodeExecutionData[];
	continueOnFail?: boolean;
	resumeUrl?: string;
	oauth?: IDataObject;
	/** The signing credential's data; null: the node has none. */
	signing?: IDataObject | null;
	nodeContext?: IDataObject;
}

function waitContext(options: WaitContextOptions = {}): WaitContext {
	const items = options.items ?? [{ json: { applicant: 1 } }];
	const credentials: Record<string, IDataObject> = {
		consentFlowOAuth2Api: options.oauth ?? credentialsFor(sim),
	};
	if (options.signing !== null) {
		credentials.consentFlowWebhookSigningApi = options.signing ?? {
			secret: signingSecret(),
			signatureHeader: '',
		};
	}
	const ctx = createExecuteContext({
		parameters: options.parameters ?? waitParams(),
		credentials: credentials as never,
		items,
		continueOnFail: options.continueOnFail,
		nodeType: 'n8n-nodes-sbl.consentFlow',
		nodeName: NODE_NAME,
	}) as WaitContext;
	const nodeContext = options.nodeContext ?? {};
	const executeData = { node: ctx.getNode(), data: { main: [items] }, source: null };
	const resumeUrl = options.resumeUrl ?? resumeUrl2x();
	Object.assign(ctx, {
		nodeContext,
		executeData,
		evaluateExpression: jest.fn((expression: string) => {
			if (expression.replace(/\s+/g, '') === '{{$execution.resumeUrl}}') return resumeUrl;
			throw new Error(`test context: unexpected expression ${expression}`);
		}),
		getContext: (type: string) => {
			if (type !== 'node') throw new Error(`test context: unexpected context ${type}`);
			return nodeContext;
		},
		putExecutionToWait: jest.fn(async () => undefined),
		getExecuteData: () => executeData,
		setMetadata: jest.fn(),
	});
	return ctx;
}

async function execute(ctx: WaitContext): Promise<INodeExecutionData[][]> {
	return await new ConsentFlow().execute.call(ctx);
}

async function executeError(ctx: WaitContext): Promise<NodeOperationError> {
	let caught: unknown;
	try {
		await execute(ctx);
	} catch (error) {
		caught = error;
	}
	expect(caught).toBeInstanceOf(NodeOperationError);
	return caught as NodeOperationError;
}

/** No request at all: none recorded by the context, none logged by the simulator. */
async function expectNoRequest(ctx: WaitContext): Promise<void> {
	expect(ctx.sent).toEqual([]);
	expect(await simRequests(sim)).toEqual([]);
	expect(ctx.putExecutionToWait).not.toHaveBeenCalled();
}

/** The indexes of the outputs that hold items. */
function filled(outputs: INodeExecutionData[][]): number[] {
	return outputs.flatMap((items, index) => (items.length > 0 ? [index] : []));
}

// ---------- first run ----------

describe('first run: create the flow and wait', () => {
	test('creates the flow with the resume URL as webhookUrl, stores the state and waits indefinitely', async () => {
		const token = resumeToken();
		const url = resumeUrl2x(token);
		const ctx = waitContext({ resumeUrl: url });
		const outputs = await execute(ctx);

		const log = await simRequests(sim);
		expect(log.map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual([
			'POST /auth/realms/sbl/protocol/openid-connect/token 200',
			`POST ${FLOW_PATH} 201`,
		]);
		expect(log[1].body).toMatchObject({ webhookUrl: url });
		const [created] = await simFlows(sim);

		expect(ctx.putExecutionToWait).toHaveBeenCalledTimes(1);
		expect(ctx.putExecutionToWait).toHaveBeenCalledWith(WAIT_INDEFINITELY);
		expect(ctx.setMetadata).not.toHaveBeenCalled();
		const state = readWaitState(ctx.nodeContext[STATE_KEY]);
		expect(state).toMatchObject({ waiting: true, flowId: created.id, events: [], deadline: null });

		expect(outputs).toHaveLength(OUTPUTS.length);
		expect(filled(outputs)).toEqual([0]);
		expect(outputs[0]).toHaveLength(1);
		expect(outputs[0][0].pairedItem).toEqual({ item: 0 });
		expect(outputs[0][0].json).toMatchObject({
			status: 'waiting',
			flowId: created.id,
			events: [],
			deadline: null,
		});
		expect(outputs[0][0].json.href).toBe(created.href);
	});

	// issue 25: what the waiting execution keeps (node context, the waiting node's saved input,
	// its output) is what resuming needs: no national ID, no resume URL with its signature
	test('the stored state and the saved data hold the ids and href only: no national ID, no resume signature', async () => {
		const token = resumeToken();
		const ctx = waitContext({
			resumeUrl: resumeUrl2x(token),
			items: [{ json: { applicant: { nationalId: NATIONAL_ID, lastName: 'Nordmann' } } }],
		});
		const outputs = await execute(ctx);
		const [created] = await simFlows(sim);
		expect(created.webhookUrl).toContain(token);
		expect(ctx.nodeContext).toEqual({
			[STATE_KEY]: {
				waiting: true,
				flowId: created.id,
				externalId: created.externalId ?? null,
				externalIdKey: null,
				href: created.href,
				events: [],
				startedAt: expect.any(String),
				deadline: null,
			},
		});
		for (const saved of [ctx.nodeContext, outputs, ctx.executeData.data.main]) {
			const text = JSON.stringify(saved);
			expect(text).not.toContain(NATIONAL_ID);
			expect(text).not.toContain(token);
			expect(text).not.toContain('signature');
			expect(text).not.toContain('webhookUrl');
		}
		// the waiting node's saved input no longer holds the applicant's item
		expect(ctx.executeData.data.main).toEqual([[], [], [], []]);
		expect(outputs[0][0].json).toEqual({
			status: 'waiting',
			flowId: created.id,
			externalId: created.externalId ?? null,
			href: created.href,
			events: [],
			waitStartedAt: expect.any(String),
			deadline: null,
		});
	});

	test('Limit Wait Time: waits until the deadline, with Wait Timed Out prepared on its own output', async () => {
		const ctx = waitContext({
			parameters: waitParams({ limitWaitTime: true, limitAmount: 2, limitUnit: 'hours' }),
		});
		const before = Date.now();
		const outputs = await execute(ctx);
		const after = Date.now();

		expect(ctx.putExecutionToWait).toHaveBeenCalledTimes(1);
		const until = ctx.putExecutionToWait.mock.calls[0][0] as Date;
		expect(until).toBeInstanceOf(Date);
		expect(until.getTime()).toBeGreaterThanOrEqual(before + 2 * 3600 * 1000);
		expect(until.getTime()).toBeLessThanOrEqual(after + 2 * 3600 * 1000);
		const state = readWaitState(ctx.nodeContext[STATE_KEY])!;
		expect(state.deadline).toBe(until.toISOString());

		const main = ctx.executeData.data.main;
		expect(main).toHaveLength(WITH_LIMIT.length);
		expect(main.slice(0, 4).every((items) => items !== null && items.length === 0)).toBe(true);
		expect(main[4]).toEqual([
			{
				json: expect.objectContaining({
					outcome: 'waitTimeExceeded',
					deadline: state.deadline,
					outcomeEvent: null,
					flowId: state.flowId,
				}),
				pairedItem: { item: 0 },
			},
		]);
		expect(ctx.setMetadata).toHaveBeenCalledWith(
			expect.objectContaining({ forwardAllOutputs: true }),
		);
		expect(outputs).toHaveLength(WITH_LIMIT.length);
		expect(filled(outputs)).toEqual([0]);
	});

	test('the service refuses the create: no wait; with Continue On Fail the error item on "Failed/Expired", without the resume token', async () => {
		const token = resumeToken();
		await addFault(sim, {
			status: 400,
			count: 1,
			match: { method: 'POST', pathPrefix: FLOW_PATH },
		});
		const ctx = waitContext({ resumeUrl: resumeUrl2x(token), continueOnFail: true });
		const outputs = await execute(ctx);
		expect(ctx.putExecutionToWait).not.toHaveBeenCalled();
		expect(ctx.nodeContext[STATE_KEY]).toBeUndefined();
		expect(filled(outputs)).toEqual([FAILED]);
		expect(outputs[FAILED]).toEqual([
			{ json: expect.objectContaining({ httpCode: 400 }), pairedItem: { item: 0 } },
		]);
		expect(JSON.stringify(outputs)).not.toContain(token);
		expect((await simRequests(sim, { pathPrefix: FLOW_PATH })).map((r) => r.status)).toEqual([400]);
	});

	test('the service refuses the create, no Continue On Fail: the error is thrown, no wait', async () => {
		await addFault(sim, {
			status: 400,
			count: 1,
			match: { method: 'POST', pathPrefix: FLOW_PATH },
		});
		const ctx = waitContext();
		await expect(execute(ctx)).rejects.toThrow(/400/);
		expect(ctx.putExecutionToWait).not.toHaveBeenCalled();
	});
});

// issue 31, item 5: on f259bcd a create answer without a usable id waited, and then any flow's
// outcome ended the wait (no delivery counted as foreign)
// issue 42: an externalId holding the applicant's identity number (any form) or last name is
// masked in the saved wait state and in the items, under Mask and Leave Out; Keep keeps it
describe('the saved wait state and the items, minimised by value', () => {
	const ID = NATIONAL_ID;
	const written = `${ID.slice(0, 6)}  ${ID.slice(6)}`;
	test.each([
		['mask', `loan *** *********${ID.slice(9)}`],
		['leaveOut', 'loan *** ******  *****'],
		['keep', `loan Østby ${written}`],
	])('%s', async (minimisePersonalData, externalId) => {
		const parameters = waitParams({
			minimisePersonalData,
			lastName: 'Østby',
			additionalFields: { externalId: `loan Østby ${written}` },
		});
		const ctx = waitContext({ parameters });
		const outputs = await execute(ctx);
		expect(readWaitState(ctx.nodeContext[STATE_KEY])?.externalId).toBe(externalId);
		expect(outputs[0][0].json.externalId).toBe(externalId);
	});
});

describe('the create answer has no usable flow id: refused before waiting', () => {
	test.each([
		['no id', { href: 'https://consent.example/flows/x' }],
		['an empty id', { id: '', href: 'https://consent.example/flows/x' }],
		['an object id', { id: { value: 'f' }, href: 'https://consent.example/flows/x' }],
	])('%s: the error names the missing flow ID; no wait, no state', async (_label, answer) => {
		await addFault(sim, {
			status: 201,
			count: 1,
			body: JSON.stringify(answer),
			match: { method: 'POST', pathPrefix: FLOW_PATH },
		});
		const ctx = waitContext();
		await expect(execute(ctx)).rejects.toThrow(/no usable flow ID.*does not wait/);
		expect(ctx.putExecutionToWait).not.toHaveBeenCalled();
		expect(ctx.nodeContext[STATE_KEY]).toBeUndefined();
	});

	test('Continue On Fail: one error item on Failed/Expired, no wait', async () => {
		await addFault(sim, {
			status: 201,
			count: 1,
			body: '{"href":"https://consent.example/f"}',
			match: { method: 'POST', pathPrefix: FLOW_PATH },
		});
		const ctx = waitContext({ continueOnFail: true });
		const outputs = await execute(ctx);
		expect(ctx.putExecutionToWait).not.toHaveBeenCalled();
		expect(filled(outputs)).toEqual([FAILED]);
		expect(JSON.stringify(outputs[FAILED][0].json)).toMatch(/no usable flow ID/);
	});
});

// ---------- refused before any request ----------

describe('refused before any request', () => {
	test('more than one input item: one applicant per execution, with the count', async () => {
		const items = [1, 2, 3].map((applicant) => ({ json: { applicant } }));
		const ctx = waitContext({ items });
		const error = await executeError(ctx);
		expect(error.message).toMatch(/one applicant per execution/);
		expect(error.message).toMatch(/\b3 items\b/);
		await expectNoRequest(ctx);
	});

	test.each([false, true])(
		'more than one item with Continue On Fail (Limit Wait Time %s): one error item per input item on "Failed/Expired"',
		async (limitWaitTime) => {
			const items = [1, 2].map((applicant) => ({ json: { applicant } }));
			const ctx = waitContext({
				items,
				continueOnFail: true,
				parameters: waitParams({ limitWaitTime, limitAmount: 1, limitUnit: 'days' }),
			});
			const outputs = await execute(ctx);
			expect(outputs).toHaveLength(limitWaitTime ? WITH_LIMIT.length : OUTPUTS.length);
			expect(filled(outputs)).toEqual([FAILED]);
			expect(outputs[FAILED].map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }]);
			for (const item of outputs[FAILED]) {
				expect(String(item.json.error)).toMatch(/one applicant per execution.*\b2 items\b/);
			}
			await expectNoRequest(ctx);
		},
	);

	test('the signing credential with an empty secret', async () => {
		const ctx = waitContext({ signing: { secret: '', signatureHeader: '' } });
		const error = await executeError(ctx);
		expect(error.message).toMatch(/Webhook Signing credential/);
		expect(error.message).toMatch(/Signing Secret must be filled in/);
		await expectNoRequest(ctx);
	});

	test('the signing credential with a secret too short to be a key', async () => {
		const ctx = waitContext({ signing: { secret: 'x'.repeat(5), signatureHeader: '' } });
		const error = await executeError(ctx);
		expect(error.message).toMatch(/Webhook Signing credential/);
		await expectNoRequest(ctx);
	});

	test('the signing credential with a malformed previous secret (rotation), never shown', async () => {
		const previous = ` ${signingSecret()}`;
		const ctx = waitContext({
			signing: { secret: signingSecret(), signatureHeader: '', previousSecret: previous },
		});
		const error = await executeError(ctx);
		expect(error.message).toMatch(/Previous Signing Secret must not start or end with whitespace/);
		expect(error.message).not.toContain(previous.trim());
		await expectNoRequest(ctx);
	});

	test('no signing credential at all', async () => {
		const ctx = waitContext({ signing: null });
		await executeError(ctx);
		await expectNoRequest(ctx);
	});

	test('the signing credential refused, Continue On Fail: the error item on "Failed/Expired"', async () => {
		const ctx = waitContext({ signing: { secret: '', signatureHeader: '' }, continueOnFail: true });
		const outputs = await execute(ctx);
		expect(filled(outputs)).toEqual([FAILED]);
		expect(outputs[FAILED]).toEqual([
			{
				json: expect.objectContaining({
					error: expect.stringMatching(/Webhook Signing credential/),
				}),
				pairedItem: { item: 0 },
			},
		]);
		await expectNoRequest(ctx);
	});

	describe('Production and an http resume URL', () => {
		const production = (): IDataObject => ({
			...credentialsFor(sim),
			environment: 'production',
			apiBaseUrl: 'https://consent.example.invalid/consent',
			identityProviderUrl: 'https://auth.example.invalid',
			accessTokenUrl: 'https://auth.example.invalid/realms/sbl/protocol/openid-connect/token',
		});

		test('names the resume URL and WEBHOOK_URL, never the resume token', async () => {
			const token = resumeToken();
			const ctx = waitContext({
				oauth: production(),
				resumeUrl: resumeUrl2x(token, 'http://n8n.internal:5678'),
			});
			const error = await executeError(ctx);
			expect(error.message).toMatch(/resume URL/);
			expect(error.message).toContain('http://n8n.internal:5678/webhook-waiting/4711');
			expect(`${error.message} ${error.description}`).toMatch(/WEBHOOK_URL/);
			expect(deepText(error)).not.toContain(token);
			await expectNoRequest(ctx);
		});

		test('Continue On Fail: the error item carries no resume token either', async () => {
			const token = resumeToken();
			const ctx = waitContext({
				oauth: production(),
				resumeUrl: resumeUrl2x(token, 'http://n8n.internal:5678'),
				continueOnFail: true,
			});
			const outputs = await execute(ctx);
			expect(filled(outputs)).toEqual([FAILED]);
			expect(JSON.stringify(outputs)).toMatch(/WEBHOOK_URL/);
			expect(JSON.stringify(outputs)).not.toContain(token);
			await expectNoRequest(ctx);
		});
	});

	test('Limit Wait Time with an n8n 1.x resume URL (no signature): needs n8n 2.39 or newer', async () => {
		const ctx = waitContext({
			resumeUrl: RESUME_URL_1X,
			parameters: waitParams({ limitWaitTime: true, limitAmount: 3, limitUnit: 'days' }),
		});
		const error = await executeError(ctx);
		expect(error.message).toMatch(/Limit Wait Time needs n8n 2\.39 or newer/);
		await expectNoRequest(ctx);
	});

	test('without Limit Wait Time an n8n 1.x resume URL is fine', async () => {
		const ctx = waitContext({ resumeUrl: RESUME_URL_1X });
		const outputs = await execute(ctx);
		expect(filled(outputs)).toEqual([0]);
		expect(ctx.putExecutionToWait).toHaveBeenCalledWith(WAIT_INDEFINITELY);
	});

	test.each([0, -1, 'soon', 366 * 24])(
		'Limit Wait Time with Amount %s: names Amount',
		async (limitAmount) => {
			const ctx = waitContext({
				parameters: waitParams({
					limitWaitTime: true,
					limitAmount,
					limitUnit: limitAmount === 366 * 24 ? 'days' : 'hours',
				}),
			});
			const error = await executeError(ctx);
			expect(error.message).toMatch(/Amount/);
			await expectNoRequest(ctx);
		},
	);

	// An unknown unit (e.g. from an expression) blames Unit, not Amount (was a bug: every limit
	// error was prefixed "Limit Wait Time → Amount").
	test('Limit Wait Time with an unknown Unit: names Unit, not Amount', async () => {
		const ctx = waitContext({
			parameters: waitParams({ limitWaitTime: true, limitAmount: 2, limitUnit: 'weeks' }),
		});
		const error = await executeError(ctx);
		await expectNoRequest(ctx);
		expect(error.message).toMatch(/Unit/);
		expect(error.message).not.toMatch(/Amount/);
	});
});

// ---------- resumed by a delivery ----------

const FLOW = { id: 'flow-1', externalId: 'loan-42', href: 'https://consent.example/flows/flow-1' };
const STARTED = '2030-01-01T00:00:00.000Z';

const APPLICANT_ID = syntheticNationalId(3);
const AUTHORIZATION_CODE = 'authz-7f3a9c';

let deliveries = 0;
/** A delivery as webhook() carries it (the trigger's item json). */
function carried(event: string, overrides: IDataObject = {}): IDataObject {
	deliveries += 1;
	return {
		event,
		webhookId: `wh-${deliveries}`,
		timestamp: STARTED,
		flowId: FLOW.id,
		externalId: FLOW.externalId,
		nationalId: APPLICANT_ID,
		authorizationCode: AUTHORIZATION_CODE,
		payload: {
			flow: FLOW.id,
			externalId: FLOW.externalId,
			nationalId: APPLICANT_ID,
			authorizationCode: AUTHORIZATION_CODE,
		},
		receivedAt: STARTED,
		...overrides,
	};
}

/** What the wait may keep of a delivery (issue 25): which event, its id and its times. */
function seen(delivery: IDataObject): SeenEvent {
	const field = (value: unknown) => (typeof value === 'string' ? value : null);
	return {
		event: field(delivery.event),
		webhookId: field(delivery.webhookId),
		timestamp: field(delivery.timestamp),
		receivedAt: field(delivery.receivedAt),
	};
}

/** Fails when the serialised value holds the applicant's ID, the code, a payload or a resume signature. */
function expectNothingPersonal(value: unknown, signature?: string): void {
	const text = JSON.stringify(value) ?? '';
	expect(text).not.toContain(APPLICANT_ID);
	expect(text).not.toContain(AUTHORIZATION_CODE);
	expect(text).not.toContain('"payload"');
	expect(text).not.toContain('nationalId');
	expect(text).not.toContain('authorizationCode');
	expect(text).not.toContain('signature=');
	if (signature !== undefined) expect(text).not.toContain(signature);
}

const MATCH_SECRET = randomBytes(16).toString('hex');

/** What webhook() carries beside a delivery to match it: the values as sent (External ID hashed). */
function matchOf(delivery: IDataObject): IDataObject {
	const externalId = typeof delivery.externalId === 'string' ? delivery.externalId : null;
	return {
		flowId: typeof delivery.flowId === 'string' ? delivery.flowId : null,
		externalIdKeys: externalId === null ? [] : [matchKey(externalId, MATCH_SECRET)],
	};
}

/** A context resumed with `delivery`, the stored state as n8n saved it (JSON). */
function resumed(
	delivery: IDataObject,
	state: WaitState = newWaitState(FLOW, STARTED, null),
	parameters: Params = waitParams(),
): WaitContext {
	return waitContext({
		parameters,
		items: [{ json: { [RESUME_KEY]: delivery, [RESUME_MATCH_KEY]: matchOf(delivery) } }],
		nodeContext: { [STATE_KEY]: JSON.parse(JSON.stringify(state)) },
		// a resumed run never creates: nothing listens here
		oauth: { ...credentialsFor(sim), apiBaseUrl: 'http://127.0.0.1:9/consent' },
	});
}

describe('resumed by a delivery', () => {
	test.each(INTERMEDIATE_EVENTS)('%s: recorded, and the execution waits again', async (event) => {
		const earlier = carried('consent.created');
		const state = { ...newWaitState(FLOW, STARTED, null), events: [seen(earlier)] };
		const delivery = carried(event);
		const ctx = resumed(delivery, state);
		const outputs = await execute(ctx);

		expect(ctx.putExecutionToWait).toHaveBeenCalledTimes(1);
		expect(ctx.putExecutionToWait).toHaveBeenCalledWith(WAIT_INDEFINITELY);
		const stored = readWaitState(ctx.nodeContext[STATE_KEY])!;
		expect(stored.waiting).toBe(true);
		expect(stored.events).toEqual([seen(earlier), seen(delivery)]);
		// issue 25: neither the state nor what n8n saves as the waiting node's input keeps the event
		expectNothingPersonal(ctx.nodeContext);
		expectNothingPersonal(ctx.executeData.data.main);
		expect(outputs).toHaveLength(OUTPUTS.length);
		expect(filled(outputs)).toEqual([0]);
		expect(outputs[0]).toEqual([
			{
				json: expect.objectContaining({
					status: 'waiting',
					flowId: FLOW.id,
					events: [seen(earlier), seen(delivery)],
				}),
				pairedItem: { item: 0 },
			},
		]);
		expectNothingPersonal(outputs);
		expect(ctx.sent).toEqual([]);
	});

	test.each(OUTCOME_EVENTS)('%s: the wait ends on its output', async (event) => {
		const earlier = carried('consent.accepted');
		const state = { ...newWaitState(FLOW, STARTED, null), events: [seen(earlier)] };
		const delivery = carried(event);
		const ctx = resumed(delivery, state);
		const outputs = await execute(ctx);

		expect(ctx.putExecutionToWait).not.toHaveBeenCalled();
		expect(outputs).toHaveLength(OUTPUTS.length);
		expect(filled(outputs)).toEqual([OUTPUT_OF[event]]);
		const out = outputs[OUTPUT_OF[event]!];
		expect(out).toHaveLength(1);
		expect(out[0].pairedItem).toEqual({ item: 0 });
		expect(out[0].json).toMatchObject({
			event,
			flowId: FLOW.id,
			externalId: FLOW.externalId,
			href: FLOW.href,
			events: [seen(earlier)],
			outcomeEvent: delivery,
			waitStartedAt: STARTED,
		});
		// issue 25: no flow (it held the resume URL); the wait state is gone once the wait is over
		expect(out[0].json).not.toHaveProperty('flow');
		expect(ctx.nodeContext).not.toHaveProperty(STATE_KEY);
		expect(ctx.sent).toEqual([]);
	});

	// Issue 43: a delivery the wait does not take is not silently ignored: the waiting item lists it
	// (names, ids, the reason; never the payload) and n8n's log says so.
	test('another flow’s outcome: the execution keeps waiting; the delivery is listed as not taken and logged', async () => {
		const state = newWaitState(FLOW, STARTED, null);
		const other = carried('consent.data', { flowId: 'flow-other' });
		const ctx = resumed(other, state);
		const outputs = await execute(ctx);
		expect(ctx.putExecutionToWait).toHaveBeenCalledTimes(1);
		const stored = readWaitState(ctx.nodeContext[STATE_KEY])!;
		expect({ ...stored, notTaken: undefined }).toEqual({ ...state, notTaken: undefined });
		const listed = {
			event: 'consent.data',
			webhookId: other.webhookId,
			flowId: 'flow-other',
			reason: 'another flow (flow-other)',
			receivedAt: other.receivedAt,
		};
		expect(stored.notTaken).toEqual([listed]);
		expect(filled(outputs)).toEqual([0]);
		expect(outputs[0][0].json).toMatchObject({ status: 'waiting', events: [], notTaken: [listed] });
		const warned = ctx.logs.filter((entry) => entry.level === 'warn');
		expect(warned).toHaveLength(1);
		expect(warned[0].message).toMatch(
			/in workflow wf-test: .*was not taken: another flow \(flow-other\)/,
		);
		expect(JSON.stringify(warned)).not.toContain(APPLICANT_ID);
	});

	test('an outcome without a flow id ends the wait by External ID', async () => {
		const state = {
			...newWaitState(FLOW, STARTED, null),
			externalIdKey: matchKey(FLOW.externalId, MATCH_SECRET),
		};
		const ctx = resumed(
			carried('consent.data', { flowId: null, externalId: FLOW.externalId }),
			state,
		);
		const outputs = await execute(ctx);
		expect(ctx.putExecutionToWait).not.toHaveBeenCalled();
		expect(filled(outputs)).toEqual([0]);
		expect(outputs[0][0].json).toMatchObject({ outcome: 'dataReceived', flowId: FLOW.id });
	});

	test('a delivery seen before: waits again, nothing recorded twice', async () => {
		const earlier = carried('consent.accepted');
		const state = { ...newWaitState(FLOW, STARTED, null), events: [seen(earlier)] };
		const ctx = resumed(carried('consent.rejected', { webhookId: earlier.webhookId }), state);
		const outputs = await execute(ctx);
		expect(ctx.putExecutionToWait).toHaveBeenCalledTimes(1);
		expect(readWaitState(ctx.nodeContext[STATE_KEY])?.events).toEqual([seen(earlier)]);
		expect(filled(outputs)).toEqual([0]);
	});

	test('Limit Wait Time: waiting again keeps the first deadline and prepares Wait Timed Out again', async () => {
		const deadline = '2030-01-15T00:00:00.000Z';
		const parameters = waitParams({ limitWaitTime: true, limitAmount: 14, limitUnit: 'days' });
		const delivery = carried('consent.accepted');
		const ctx = resumed(delivery, newWaitState(FLOW, STARTED, deadline), parameters);
		const outputs = await execute(ctx);
		expect(ctx.putExecutionToWait).toHaveBeenCalledTimes(1);
		expect((ctx.putExecutionToWait.mock.calls[0][0] as Date).toISOString()).toBe(deadline);
		expect(ctx.executeData.data.main).toHaveLength(WITH_LIMIT.length);
		expect(ctx.executeData.data.main[4]).toEqual([
			{
				json: expect.objectContaining({
					outcome: 'waitTimeExceeded',
					deadline,
					events: [seen(delivery)],
				}),
				pairedItem: { item: 0 },
			},
		]);
		expect(ctx.setMetadata).toHaveBeenCalledWith(
			expect.objectContaining({ forwardAllOutputs: true }),
		);
		expect(outputs).toHaveLength(WITH_LIMIT.length);
		expect(filled(outputs)).toEqual([0]);
	});

	test('Limit Wait Time: an outcome before the deadline goes to its own output, not Wait Timed Out', async () => {
		const parameters = waitParams({ limitWaitTime: true, limitAmount: 14, limitUnit: 'days' });
		const ctx = resumed(
			carried('user.timedOut'),
			newWaitState(FLOW, STARTED, '2030-01-15T00:00:00.000Z'),
			parameters,
		);
		const outputs = await execute(ctx);
		expect(outputs).toHaveLength(WITH_LIMIT.length);
		expect(filled(outputs)).toEqual([FAILED]);
		expect(ctx.putExecutionToWait).not.toHaveBeenCalled();
	});
});

// ---------- webhook() ----------

const SIGNATURE_HEADER = 'x-acme-sbl-signature';

function hmac(body: string | Buffer, secret: string): string {
	return createHmac('sha256', secret).update(body).digest('hex');
}

interface Recorded {
	status?: number;
	json?: unknown;
	sent?: unknown;
	ended: boolean;
}

interface StackEntry {
	node?: { name?: string; disabled?: boolean };
}

function webhookContext(options: {
	body: string | Buffer;
	headers: Record<string, string>;
	secret: string;
	/** The credential's previous secret (rotation); absent: a credential saved before the field. */
	previousSecret?: string;
	stack?: StackEntry[];
	parameters?: Params;
}): { ctx: IWebhookFunctions; res: Recorded } {
	const res: Recorded = { ended: false };
	const response = {
		status(code: number) {
			res.status = code;
			return response;
		},
		json(body: unknown) {
			res.json = body;
			res.ended = true;
			return response;
		},
		send(body: unknown) {
			res.sent = body;
			return response;
		},
		end() {
			res.ended = true;
			return response;
		},
	};
	const node: INode = {
		id: 'n1',
		name: NODE_NAME,
		type: 'n8n-nodes-sbl.consentFlow',
		typeVersion: 1,
		position: [0, 0],
		parameters: (options.parameters ?? waitParams()) as INodeParameters,
		// a credential id of its own: nothing comes from the credential cache of another delivery
		credentials: {
			consentFlowWebhookSigningApi: { id: `signing-${resumeToken()}`, name: 'Signing' },
		},
	};
	const ctx = {
		getNode: () => node,
		getNodeParameter: (name: string, fallback: unknown) => node.parameters[name] ?? fallback,
		getRequestObject: () => ({
			headers: options.headers,
			rawBody: Buffer.isBuffer(options.body) ? options.body : Buffer.from(options.body, 'utf8'),
		}),
		getResponseObject: () => response,
		getCredentials: async (type: string) => {
			if (type !== 'consentFlowWebhookSigningApi')
				throw new Error(`no credentials of type ${type}`);
			return {
				secret: options.secret,
				signatureHeader: '',
				...(options.previousSecret === undefined ? {} : { previousSecret: options.previousSecret }),
			};
		},
		runExecutionData: { executionData: { nodeExecutionStack: options.stack ?? waitingStack() } },
	};
	return { ctx: ctx as unknown as IWebhookFunctions, res };
}

function waitingStack(name = NODE_NAME): StackEntry[] {
	return [{ node: { name, disabled: true } }];
}

/** A delivery of `body` signed with a fresh secret, through webhook(). */
async function signedWebhook(
	body: string,
	stack: StackEntry[],
	parameters?: Params,
): Promise<{ res: Recorded; result: IWebhookResponseData }> {
	const secret = signingSecret();
	const { ctx, res } = webhookContext({
		body,
		secret,
		stack,
		parameters,
		headers: { [SIGNATURE_HEADER]: hmac(body, secret) },
	});
	return { res, result: await callWebhook(ctx) };
}

function envelopeOf(event: string, overrides: IDataObject = {}): string {
	return JSON.stringify({
		webhookId: `wh-${resumeToken()}`,
		event,
		timestamp: '2030-01-02T00:00:00.000Z',
		payload: {
			externalId: 'loan-42',
			flow: 'flow-1',
			nationalId: APPLICANT_ID,
			...(event === 'consent.created' ? { authorizationCode: AUTHORIZATION_CODE } : {}),
		},
		...overrides,
	});
}

async function callWebhook(ctx: IWebhookFunctions): Promise<IWebhookResponseData> {
	return await new ConsentFlow().webhook.call(ctx);
}

describe('webhook(): a delivery to the resume URL', () => {
	test('a bad signature: 401, the execution is not resumed', async () => {
		const secret = signingSecret();
		const body = envelopeOf('consent.data');
		const stack = waitingStack();
		const { ctx, res } = webhookContext({
			body,
			secret,
			stack,
			headers: { [SIGNATURE_HEADER]: hmac(body, signingSecret()) },
		});
		const result = await callWebhook(ctx);
		expect(res.status).toBe(401);
		expect(result.workflowData).toBeUndefined();
		expect(result.noWebhookResponse).toBe(true);
		expect(stack[0].node?.disabled).toBe(true);
	});

	test('rotation: signed with the previous secret resumes; after it is removed, 401', async () => {
		const current = signingSecret();
		const previous = signingSecret();
		const body = envelopeOf('consent.data');
		const during = webhookContext({
			body,
			secret: current,
			previousSecret: previous,
			headers: { [SIGNATURE_HEADER]: hmac(body, previous) },
		});
		const resumedResult = await callWebhook(during.ctx);
		expect(during.res.status).toBeUndefined();
		expect(resumedResult.workflowData).toHaveLength(1);
		const withCurrent = webhookContext({
			body,
			secret: current,
			previousSecret: previous,
			headers: { [SIGNATURE_HEADER]: hmac(body, current) },
		});
		expect((await callWebhook(withCurrent.ctx)).workflowData).toHaveLength(1);
		// Another credential id: not served from the few-second credential cache.
		const after = webhookContext({
			body,
			secret: current,
			previousSecret: '',
			headers: { [SIGNATURE_HEADER]: hmac(body, previous) },
		});
		const refused = await callWebhook(after.ctx);
		expect(after.res.status).toBe(401);
		expect(refused.workflowData).toBeUndefined();
	});

	test('rotation: a previous secret without a current one verifies nothing (fails closed)', async () => {
		const previous = signingSecret();
		const body = envelopeOf('consent.data');
		const { ctx, res } = webhookContext({
			body,
			secret: '',
			previousSecret: previous,
			headers: { [SIGNATURE_HEADER]: hmac(body, previous) },
		});
		await callWebhook(ctx);
		expect(res.status).toBe(401);
	});

	test('a CloudEvent (structured mode, a format not published): 200 "ignored", not resumed', async () => {
		const body = JSON.stringify({
			specversion: '1.0',
			id: 'ce-resume-1',
			source: '/sbl',
			type: 'com.example.consent.data',
			time: '2030-01-02T00:00:00Z',
			data: { externalId: 'loan-42', flow: 'flow-1', nationalId: APPLICANT_ID },
		});
		const stack = waitingStack();
		const { res, result } = await signedWebhook(body, stack);
		expect(res.status).toBe(200);
		expect(res.json).toMatchObject({ status: 'ignored', reason: 'unknown-event' });
		expect(result.workflowData).toBeUndefined();
		expect(stack[0].node?.disabled).toBe(true);
	});

	test('a CloudEvents batch is no envelope: 200 ignored, the execution keeps waiting', async () => {
		const secret = signingSecret();
		const body = '[]';
		const stack = waitingStack();
		const { ctx, res } = webhookContext({
			body,
			secret,
			stack,
			headers: {
				'content-type': 'application/cloudevents-batch+json',
				[SIGNATURE_HEADER]: hmac(body, secret),
			},
		});
		const result = await callWebhook(ctx);
		expect(res.status).toBe(200);
		expect(res.json).toMatchObject({ status: 'ignored', reason: 'no-event' });
		expect(result.workflowData).toBeUndefined();
		expect(stack[0].node?.disabled).toBe(true);
	});

	test('issue 41: a body without a signed id carries keys that are no signature, the same under either secret', async () => {
		const current = signingSecret();
		const previous = `${current}-old`;
		const data = JSON.stringify({ event: 'consent.accepted', payload: { flow: 'flow-1' } });
		const keysUnder = async (signer: string) => {
			const { ctx } = webhookContext({
				body: data,
				secret: current,
				previousSecret: previous,
				stack: waitingStack(),
				headers: { [SIGNATURE_HEADER]: hmac(data, signer) },
			});
			const item = (await callWebhook(ctx)).workflowData![0][0].json;
			const { key, also } = item[RESUME_MATCH_KEY] as IDataObject;
			return { key, also };
		};
		const [byCurrent, byPrevious] = [await keysUnder(current), await keysUnder(previous)];
		expect(byPrevious).toEqual(byCurrent);
		const saved = JSON.stringify(byCurrent);
		for (const signer of [current, previous]) expect(saved).not.toContain(hmac(data, signer));
		expect(byCurrent.key).toMatch(/^~k:[0-9a-f]{64}$/);
	});

	test('no signature header: 401', async () => {
		const { ctx, res } = webhookContext({
			body: envelopeOf('consent.data'),
			secret: signingSecret(),
			headers: {},
		});
		const result = await callWebhook(ctx);
		expect(res.status).toBe(401);
		expect(result.workflowData).toBeUndefined();
	});

	test('a signature over other bytes (the body changed after signing): 401', async () => {
		const secret = signingSecret();
		const body = envelopeOf('consent.data');
		const { ctx, res } = webhookContext({
			body: `${body} `,
			secret,
			headers: { [SIGNATURE_HEADER]: hmac(body, secret) },
		});
		const result = await callWebhook(ctx);
		expect(res.status).toBe(401);
		expect(result.workflowData).toBeUndefined();
	});

	test('an empty signing secret: 401 even for a body "signed" with it', async () => {
		const body = envelopeOf('consent.data');
		const { ctx, res } = webhookContext({
			body,
			secret: '',
			headers: { [SIGNATURE_HEADER]: hmac(body, '') },
		});
		const result = await callWebhook(ctx);
		expect(res.status).toBe(401);
		expect(result.workflowData).toBeUndefined();
	});

	test('a correctly signed consent.data: resumes with one item carrying the delivery, the node runs again', async () => {
		const secret = signingSecret();
		const webhookId = `wh-${resumeToken()}`;
		const body = envelopeOf('consent.data', { webhookId });
		const stack = waitingStack();
		const { ctx, res } = webhookContext({
			body,
			secret,
			stack,
			headers: { [SIGNATURE_HEADER]: hmac(body, secret) },
		});
		const result = await callWebhook(ctx);
		expect(res.status).toBeUndefined();
		expect(result.workflowData).toHaveLength(1);
		expect(result.workflowData![0]).toHaveLength(1);
		const item = result.workflowData![0][0].json;
		// the delivery, and its Match: with its duplicate key from the signed bytes (here: the signed webhookId)
		expect(Object.keys(item)).toEqual([RESUME_KEY, RESUME_MATCH_KEY]);
		// matched by the values as sent: the flow id, the External ID only as keyed hashes
		const match = item[RESUME_MATCH_KEY] as IDataObject;
		expect(match.flowId).toBe((item[RESUME_KEY] as IDataObject).flowId);
		expect(match.externalIdKeys).toEqual(
			expect.arrayContaining([expect.stringMatching(/^~m:[0-9a-f]{64}$/)]),
		);
		expect(match.key).toBe(webhookId);
		expect(item[RESUME_KEY]).toMatchObject({
			event: 'consent.data',
			webhookId,
			signedWith: 'current',
			flowId: 'flow-1',
			externalId: 'loan-42',
			payload: { externalId: 'loan-42', flow: 'flow-1', nationalId: APPLICANT_ID },
		});
		expect(stack[0].node).toEqual({ name: NODE_NAME });
		expect(stack[0].node?.disabled).toBeUndefined();
	});

	test('the published rejected form (webhookId, type, payload): resumes with the event', async () => {
		const secret = signingSecret();
		const body = JSON.stringify({
			webhookId: 'w-r',
			type: 'consent.rejected',
			payload: { flow: 'flow-1', nationalId: APPLICANT_ID },
		});
		const { ctx } = webhookContext({
			body,
			secret,
			headers: { [SIGNATURE_HEADER]: hmac(body, secret) },
		});
		const result = await callWebhook(ctx);
		expect(result.workflowData?.[0][0].json[RESUME_KEY]).toMatchObject({
			event: 'consent.rejected',
			webhookId: 'w-r',
			flowId: 'flow-1',
		});
	});

	test('another node first on the waiting stack: 500, not resumed, that node left as it was', async () => {
		const body = envelopeOf('consent.data');
		const stack = waitingStack('Wait');
		const { res, result } = await signedWebhook(body, stack);
		expect(res.status).toBe(500);
		expect(res.json).toMatchObject({ received: false, status: 'unsupported' });
		expect(result.workflowData).toBeUndefined();
		expect(result.noWebhookResponse).toBe(true);
		expect(stack[0].node?.disabled).toBe(true);
	});

	test('no waiting stack at all: 500, not resumed', async () => {
		const body = envelopeOf('consent.data');
		const { res, result } = await signedWebhook(body, []);
		expect(res.status).toBe(500);
		expect(result.workflowData).toBeUndefined();
	});

	test.each([
		['an array', '[]'],
		['an object without event', '{"foo":1}'],
		[
			'an unknown event',
			JSON.stringify({ webhookId: 'w-u', event: 'consent.unknownThing', payload: {} }),
		],
		['not JSON', 'hello'],
	])('signed, but %s: 200 "ignored", not resumed', async (_label, body) => {
		const stack = waitingStack();
		const { res, result } = await signedWebhook(body, stack);
		expect(res.status).toBe(200);
		// size: the characters of the body as text, which the resume URL's answer reports
		expect(res.json).toMatchObject({ received: true, status: 'ignored', size: body.length });
		expect(result.workflowData).toBeUndefined();
		expect(result.noWebhookResponse).toBe(true);
		expect(stack[0].node?.disabled).toBe(true);
	});

	test('webhook() then execute(): every published event lands where the rule says', async () => {
		for (const event of PUBLISHED_EVENTS) {
			const secret = signingSecret();
			const body = envelopeOf(event);
			const { ctx: hook } = webhookContext({
				body,
				secret,
				headers: { [SIGNATURE_HEADER]: hmac(body, secret) },
			});
			const { workflowData } = await createAndWaitWebhook.call(hook);
			expect(workflowData).toHaveLength(1);
			const ctx = waitContext({
				items: workflowData![0],
				nodeContext: { [STATE_KEY]: newWaitState(FLOW, STARTED, null) },
				oauth: { ...credentialsFor(sim), apiBaseUrl: 'http://127.0.0.1:9/consent' },
			});
			const outputs = await executeCreateAndWait(ctx, new ConsentFlow().description.properties);
			const expected = OUTPUT_OF[event];
			expect({ event, filled: filled(outputs) }).toEqual({ event, filled: [expected ?? 0] });
			if (expected === null) {
				expect(ctx.putExecutionToWait).toHaveBeenCalledTimes(1);
				expect(outputs[0][0].json.status).toBe('waiting');
			} else {
				expect(ctx.putExecutionToWait).not.toHaveBeenCalled();
				expect(outputs[expected][0].json.event).toBe(event);
			}
			expect(ctx.sent).toEqual([]);
		}
	});
});

// ---------- issue 25: what a delivery leaves in the execution ----------

describe('personal data in what resumes the execution (Minimise Personal Data)', () => {
	const DATA = { tax: { grossIncome: 650000 }, income: { source: 'employer' } };
	const TIMESTAMP = '2030-01-02T00:00:00.000Z';

	/** The item webhook() resumes the execution with, for a signed delivery of `event`. */
	async function resumeItem(
		event: string,
		minimise: string | undefined,
		payload: IDataObject = {},
	): Promise<IDataObject> {
		const body = envelopeOf(event, {
			webhookId: 'w-1',
			payload: {
				externalId: 'loan-42',
				flow: 'flow-1',
				nationalId: APPLICANT_ID,
				authorizationCode: AUTHORIZATION_CODE,
				...payload,
			},
		});
		const parameters = waitParams({ minimisePersonalData: minimise });
		const { result } = await signedWebhook(body, waitingStack(), parameters);
		return result.workflowData![0][0].json[RESUME_KEY] as IDataObject;
	}

	test.each(INTERMEDIATE_EVENTS)(
		'%s (continues the wait): only its name, id, times, flow and External ID, whatever the setting',
		async (event) => {
			for (const minimise of [undefined, 'keep', 'mask', 'leaveOut']) {
				const item = await resumeItem(event, minimise);
				expect(item).toEqual({
					event,
					webhookId: 'w-1',
					timestamp: TIMESTAMP,
					flowId: 'flow-1',
					externalId: 'loan-42',
					receivedAt: expect.any(String),
				});
			}
		},
	);

	const masked = `*********${APPLICANT_ID.slice(-2)}`;

	test.each(OUTCOME_EVENTS)('%s, Keep Everything: as received', async (event) => {
		for (const minimise of ['keep']) {
			const item = await resumeItem(event, minimise, { data: DATA });
			expect(item).toMatchObject({
				event,
				nationalId: APPLICANT_ID,
				authorizationCode: AUTHORIZATION_CODE,
				payload: {
					nationalId: APPLICANT_ID,
					authorizationCode: AUTHORIZATION_CODE,
					data: DATA,
				},
			});
		}
	});

	test.each(OUTCOME_EVENTS)(
		'%s, Mask National ID (and the default): the last two digits, no authorization code, the data kept',
		async (event) => {
			for (const minimise of [undefined, 'mask']) {
				const item = await resumeItem(event, minimise, { data: DATA });
				expect(item).toEqual({
					event,
					webhookId: 'w-1',
					timestamp: TIMESTAMP,
					flowId: 'flow-1',
					externalId: 'loan-42',
					nationalId: masked,
					payload: { externalId: 'loan-42', flow: 'flow-1', nationalId: masked, data: DATA },
					receivedAt: expect.any(String),
					signedWith: 'current',
				});
			}
		},
	);

	test.each(OUTCOME_EVENTS)(
		'%s, Leave Out National ID: neither the ID nor the code, the data kept',
		async (event) => {
			const item = await resumeItem(event, 'leaveOut', { data: DATA });
			expect(item).toEqual({
				event,
				webhookId: 'w-1',
				timestamp: TIMESTAMP,
				flowId: 'flow-1',
				externalId: 'loan-42',
				payload: { externalId: 'loan-42', flow: 'flow-1', data: DATA },
				receivedAt: expect.any(String),
				signedWith: 'current',
			});
		},
	);

	// issue 42: found by value anywhere in the data, and the Last Name (Nordmann) as a word
	test.each([
		['mask', `*********${APPLICANT_ID.slice(-2)}`],
		['leaveOut', '******  *****'],
	])(
		'%s: an identity number anywhere in the data, in any form, and the last name are masked',
		async (minimise, shown) => {
			const note = `NORDMANN, fnr ${APPLICANT_ID.slice(0, 6)}  ${APPLICANT_ID.slice(6)}`;
			const item = await resumeItem('consent.data', minimise, { data: { ...DATA, note } });
			expect((item.payload as IDataObject).data).toEqual({ ...DATA, note: `***, fnr ${shown}` });
		},
	);

	test('at the resume URL only a Last Name in text is masked; a number or a failing expression masks no name, and IDs still are', async () => {
		const note = `NORDMANN, fnr ${APPLICANT_ID}`;
		const body = envelopeOf('consent.data', {
			payload: { externalId: 'loan-42', flow: 'flow-1', data: { note } },
		});
		const failing = waitParams({ minimisePersonalData: 'mask' });
		Object.defineProperty(failing, 'lastName', {
			get: () => {
				throw new Error('expression failed');
			},
		});
		for (const parameters of [
			waitParams({ minimisePersonalData: 'mask', lastName: 42 }),
			failing,
		]) {
			const { result } = await signedWebhook(body, waitingStack(), parameters);
			const item = result.workflowData![0][0].json[RESUME_KEY] as IDataObject;
			expect((item.payload as IDataObject).data).toEqual({
				note: `NORDMANN, fnr *********${APPLICANT_ID.slice(-2)}`,
			});
		}
		const named = waitParams({ minimisePersonalData: 'mask', lastName: '  Nordmann ' });
		const { result } = await signedWebhook(body, waitingStack(), named);
		const item = result.workflowData![0][0].json[RESUME_KEY] as IDataObject;
		expect((item.payload as IDataObject).data).toEqual({
			note: `***, fnr *********${APPLICANT_ID.slice(-2)}`,
		});
	});

	test('an unknown setting (e.g. an expression with a typo) leaves out the most', async () => {
		const item = await resumeItem('consent.data', 'Mask');
		expect(JSON.stringify(item)).not.toContain(APPLICANT_ID.slice(0, 6));
		expect(item).not.toHaveProperty('nationalId');
		expect(item.payload).not.toHaveProperty('nationalId');
	});

	test('webhook() then execute(), masked: the outcome item carries the masked event and no wait state stays', async () => {
		const secret = signingSecret();
		const body = envelopeOf('consent.data', {
			payload: { externalId: 'loan-42', flow: 'flow-1', nationalId: APPLICANT_ID, data: DATA },
		});
		const { ctx: hook } = webhookContext({
			body,
			secret,
			parameters: waitParams({ minimisePersonalData: 'mask' }),
			headers: { [SIGNATURE_HEADER]: hmac(body, secret) },
		});
		const { workflowData } = await createAndWaitWebhook.call(hook);
		const earlier = carried('consent.accepted');
		const ctx = waitContext({
			items: workflowData![0],
			nodeContext: {
				[STATE_KEY]: { ...newWaitState(FLOW, STARTED, null), events: [seen(earlier)] },
			},
			oauth: { ...credentialsFor(sim), apiBaseUrl: 'http://127.0.0.1:9/consent' },
		});
		const outputs = await executeCreateAndWait(ctx, new ConsentFlow().description.properties);
		expect(filled(outputs)).toEqual([0]);
		const json = outputs[0][0].json;
		expect(json).toEqual({
			outcome: 'dataReceived',
			event: 'consent.data',
			flowId: FLOW.id,
			externalId: FLOW.externalId,
			href: FLOW.href,
			events: [seen(earlier)],
			waitStartedAt: STARTED,
			resumedAt: expect.any(String),
			outcomeEvent: expect.objectContaining({
				nationalId: masked,
				payload: { externalId: 'loan-42', flow: 'flow-1', nationalId: masked, data: DATA },
			}),
		});
		expect(JSON.stringify(json)).not.toContain(APPLICANT_ID);
		expect(ctx.nodeContext).toEqual({});
	});
});

// ---------- the outputs expression ----------

describe('the node outputs (CONFIGURED_OUTPUTS) through n8n-workflow', () => {
	const nodeType = new ConsentFlow();

	/** What n8n computes for a node with these parameters: NodeHelpers.getNodeOutputs over a Workflow. */
	function outputsFor(parameters: INodeParameters): unknown {
		return n8nComputedOutputs(nodeType, 'n8n-nodes-sbl.consentFlow', parameters);
	}

	const named = (names: string[]) => names.map((displayName) => ({ type: 'main', displayName }));

	test('the description uses the expression', () => {
		expect(nodeType.description.outputs).toBe(CONFIGURED_OUTPUTS);
	});

	test.each([
		['create', { resource: 'flow', operation: 'create' }],
		['delete', { resource: 'flow', operation: 'delete' }],
		['no operation (the default, create)', { resource: 'flow' }],
		[
			'create with a stray limitWaitTime',
			{ resource: 'flow', operation: 'create', limitWaitTime: true },
		],
	])('%s: one main output', (_label, parameters) => {
		expect(outputsFor(parameters as INodeParameters)).toEqual(['main']);
	});

	test('createAndWait: the four outcome outputs', () => {
		expect(outputsFor({ resource: 'flow', operation: 'createAndWait' })).toEqual(named(OUTPUTS));
		expect(
			outputsFor({ resource: 'flow', operation: 'createAndWait', limitWaitTime: false }),
		).toEqual(named(OUTPUTS));
	});

	test('createAndWait with Limit Wait Time: five, the last Wait Timed Out', () => {
		expect(
			outputsFor({ resource: 'flow', operation: 'createAndWait', limitWaitTime: true }),
		).toEqual(named(WITH_LIMIT));
	});

	test('Limit Wait Time set by an expression: n8n resolves it for the outputs too', () => {
		expect(
			outputsFor({ resource: 'flow', operation: 'createAndWait', limitWaitTime: '={{ 1 === 1 }}' }),
		).toEqual(named(WITH_LIMIT));
		expect(
			outputsFor({ resource: 'flow', operation: 'createAndWait', limitWaitTime: '={{ false }}' }),
		).toEqual(named(OUTPUTS));
	});

	test('the signing credential is asked for by createAndWait only', () => {
		const signing = nodeType.description.credentials?.find(
			(c) => c.name === 'consentFlowWebhookSigningApi',
		);
		expect(signing?.displayOptions?.show?.operation).toEqual(['createAndWait']);
		const oauth = nodeType.description.credentials?.find((c) => c.name === 'consentFlowOAuth2Api');
		expect(oauth?.displayOptions).toBeUndefined();
	});
});

// ---------- Mapping Mode (issue 28) ----------

describe('Map Automatically: the applicant from the input item', () => {
	const autoWaitParams = (): Params => ({
		resource: 'flow',
		operation: 'createAndWait',
		mappingMode: 'autoMapInputData',
		options: { retryDelayMs: 10 },
	});
	const applicantJson = (extra: IDataObject = {}): IDataObject => ({
		nationalId: syntheticNationalId(40),
		lastName: 'Nordmann',
		organizationId: '923456783',
		redirectUrl: 'https://bank.example.com/loan/after-consent',
		externalId: 'loan-40',
		...extra,
	});

	test('creates the flow from the item with the resume URL as webhookUrl (an item webhookUrl is ignored) and waits', async () => {
		const url = resumeUrl2x();
		const ctx = waitContext({
			parameters: autoWaitParams(),
			items: [{ json: applicantJson({ webhookUrl: 'https://elsewhere.example.com/hook' }) }],
			resumeUrl: url,
		});
		const outputs = await execute(ctx);
		const [post] = await simRequests(sim, { pathPrefix: FLOW_PATH });
		expect(post.body).toEqual({
			nationalId: syntheticNationalId(40),
			lastName: 'Nordmann',
			organizationId: '923456783',
			redirectUrl: 'https://bank.example.com/loan/after-consent',
			webhookUrl: url,
			externalId: 'loan-40',
		});
		expect(ctx.putExecutionToWait).toHaveBeenCalledTimes(1);
		expect(filled(outputs)).toEqual([0]);
		expect(outputs[0][0].json).toMatchObject({ status: 'waiting', externalId: 'loan-40' });
	});

	test('a mistyped field: refused before any request, naming the input field; with Continue On Fail one error item on Failed/Expired', async () => {
		const items = [{ json: applicantJson({ nationalId: Number(syntheticNationalId(41)) }) }];
		const error = await executeError(waitContext({ parameters: autoWaitParams(), items }));
		expect(error.message).toBe('Item 1: input field "nationalId" must be text, got a number');
		expect(deepText(error)).not.toContain(syntheticNationalId(41));

		const ctx = waitContext({ parameters: autoWaitParams(), items, continueOnFail: true });
		const outputs = await execute(ctx);
		await expectNoRequest(ctx);
		expect(filled(outputs)).toEqual([FAILED]);
		expect(outputs[FAILED]).toEqual([
			{
				json: expect.objectContaining({
					error: 'Item 1: input field "nationalId" must be text, got a number',
					field: 'nationalId',
				}),
				pairedItem: { item: 0 },
			},
		]);
	});
});

// ---------- issue 49: a decision never compares what minimising made of a value ----------

describe('a delivery is matched to its wait by the values as sent, never by masked ones', () => {
	const NAMES = ['Da Silva', 'De Souza', 'De', 'Abe', 'Bae', 'Hansen'];
	// a flow id the value search would alter: a group of 11 digits that is a valid identity number
	const idLike = fc.integer({ min: 1, max: 300 }).map((i) => `flow-${syntheticNationalId(i)}`);

	test('property: under Mask, with the last name anywhere, the outcome ends its wait (with or without a flow id) and shows the flow id as given', async () => {
		await fc.assert(
			fc.asyncProperty(
				fc.oneof(fc.uuid(), idLike),
				fc.constantFrom(...NAMES),
				fc.boolean(),
				fc.stringMatching(/^[a-z0-9-]{0,8}$/),
				async (flowId, lastName, withFlow, suffix) => {
					const externalId = `${lastName.toLowerCase()}-${suffix}`;
					const secret = signingSecret();
					const parameters = waitParams({ minimisePersonalData: 'mask', lastName });
					const payload = {
						externalId,
						nationalId: APPLICANT_ID,
						...(withFlow && { flow: flowId }),
					};
					const body = JSON.stringify({
						webhookId: `wh-${resumeToken()}`,
						event: 'consent.data',
						timestamp: STARTED,
						payload,
					});
					const { ctx: hook } = webhookContext({
						body,
						secret,
						parameters,
						headers: { [SIGNATURE_HEADER]: hmac(body, secret) },
					});
					const [[item]] = (await callWebhook(hook)).workflowData!;
					// the wait as createFlow keeps it: the flow id as given, the External ID as its keyed hash
					const state = {
						...newWaitState(
							{ id: flowId, externalId, href: 'https://consent.example/x' },
							STARTED,
							null,
						),
						externalIdKey: matchKey(externalId, secret),
					};
					const ctx = waitContext({
						parameters,
						items: [item],
						nodeContext: { [STATE_KEY]: JSON.parse(JSON.stringify(state)) },
						signing: { secret, signatureHeader: '' },
						oauth: { ...credentialsFor(sim), apiBaseUrl: 'http://127.0.0.1:9/consent' },
					});
					const outputs = await execute(ctx);
					expect(filled(outputs)).toEqual([0]);
					expect(ctx.putExecutionToWait).not.toHaveBeenCalled();
					// the flow's id as the service gave it: what Delete takes and rejections are matched on
					expect(outputs[0][0].json.flowId).toBe(flowId);
				},
			),
			{ numRuns: 150 },
		);
	});
});
