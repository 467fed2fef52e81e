import { control, simFlows, simRequests, useSimulator } from '../../support/simulator';
import {
	FLOW_PATH,
	NATIONAL_ID,
	ORGANIZATION_ID,
	SIM_OPTIONS,
	apiRequests,
	createParams,
	credentialsFor,
	runNode,
} from './helpers';

const sim = useSimulator({ ...SIM_OPTIONS, beforeEach: 'reset' });

describe('Consent Flow: create', () => {
	test('creates a flow: one bearer POST with exactly the five fields, output is the flow as returned', async () => {
		const { output, error } = await runNode(createParams(), { credentials: credentialsFor(sim) });
		expect(error).toBeUndefined();
		expect(output).toHaveLength(1);
		const flow = output![0].json;
		expect(output![0].pairedItem).toEqual({ item: 0 });
		expect(flow).toEqual(
			expect.objectContaining({
				requestStatus: 'Unopened',
				redirectUrl: 'https://bank.example.com/loan/after-consent',
				webhookUrl: 'https://n8n.example.com/webhook/0b7e/consent',
				coveredBy: ORGANIZATION_ID,
				nationalId: NATIONAL_ID,
				externalId: null,
			}),
		);
		expect(typeof flow.id).toBe('string');
		expect(flow.href).toBe(`${sim.url}/consent/flows/${flow.id}`);

		const log = await simRequests(sim);
		expect(log.map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual([
			'POST /auth/realms/sbl/protocol/openid-connect/token 200',
			`POST ${FLOW_PATH} 201`,
		]);
		const post = log[1];
		expect(post.authScheme).toBe('Bearer');
		expect(post.tokenScope).toBe('sbl');
		expect(post.contentType).toMatch(/^application\/json/);
		expect(post.body).toEqual({
			nationalId: NATIONAL_ID,
			lastName: 'Nordmann',
			organizationId: ORGANIZATION_ID,
			redirectUrl: 'https://bank.example.com/loan/after-consent',
			webhookUrl: 'https://n8n.example.com/webhook/0b7e/consent',
		});

		const flows = await simFlows(sim);
		expect(flows.map((f) => f.id)).toEqual([flow.id]);
		expect(flows[0].lastName).toBe('Nordmann');
	});

	test('sends External ID when set, trims inputs and removes spaces from the two numbers', async () => {
		const { output, error } = await runNode(
			createParams({
				nationalId: ' 018170 00092 ',
				organizationId: '923 456 783',
				lastName: '  Nordmann ',
				redirectUrl: ' https://bank.example.com/done ',
				additionalFields: { externalId: '  loan-4711 ' },
			}),
			{ credentials: credentialsFor(sim) },
		);
		expect(error).toBeUndefined();
		expect(output![0].json.externalId).toBe('loan-4711');
		const [post] = await apiRequests(sim, 'POST');
		expect(post.body).toEqual({
			nationalId: NATIONAL_ID,
			lastName: 'Nordmann',
			organizationId: ORGANIZATION_ID,
			redirectUrl: 'https://bank.example.com/done',
			webhookUrl: 'https://n8n.example.com/webhook/0b7e/consent',
			externalId: 'loan-4711',
		});
	});

	test('an External ID of only spaces is not sent', async () => {
		const { error } = await runNode(createParams({ additionalFields: { externalId: '   ' } }), {
			credentials: credentialsFor(sim),
		});
		expect(error).toBeUndefined();
		const [post] = await apiRequests(sim, 'POST');
		expect(post.body).not.toHaveProperty('externalId');
	});

	test('unwraps a { data: flow } answer so href sits at the top of the item', async () => {
		await control(sim, 'POST', '/config', { consentResponseWrapper: true });
		const { output, error } = await runNode(
			createParams({ additionalFields: { externalId: 'x-1' } }),
			{
				credentials: credentialsFor(sim),
			},
		);
		expect(error).toBeUndefined();
		const flow = output![0].json;
		expect(flow).not.toHaveProperty('data');
		expect(flow.href).toBe(`${sim.url}/consent/flows/${flow.id}`);
		expect(flow.externalId).toBe('x-1');
		const flows = await simFlows(sim);
		expect(flows.map((f) => f.id)).toEqual([flow.id]);
	});

	test('a synthetic test identity (month + 80) and a D-number pass validation and reach the service', async () => {
		const { output, error } = await runNode(
			[createParams({ nationalId: '01810750045' }), createParams({ nationalId: '41817000086' })],
			{ credentials: credentialsFor(sim) },
		);
		expect(error).toBeUndefined();
		expect(output!.map((item) => item.json.nationalId)).toEqual(['01810750045', '41817000086']);
	});

	test('client authentication in the body works the same', async () => {
		const { output, error } = await runNode(createParams(), {
			credentials: credentialsFor(sim, { authentication: 'body' }),
		});
		expect(error).toBeUndefined();
		expect(output![0].json.id).toEqual(expect.any(String));
		const [tokenRequest] = await simRequests(sim);
		expect(tokenRequest.authScheme).toBeNull();
		expect(tokenRequest.body).toEqual(
			expect.objectContaining({ client_id: sim.clients.consent.clientId }),
		);
	});

	test('Production environment accepts https URLs', async () => {
		// Production sends nothing over http, so the simulator (http) cannot answer: an https address
		// that refuses the connection shows that the parameters passed validation and a request was tried.
		const { error } = await runNode(createParams(), {
			credentials: {
				...credentialsFor(sim, { environment: 'production' }),
				apiBaseUrl: 'https://127.0.0.1:1',
				identityProviderUrl: 'https://127.0.0.1:1',
				accessTokenUrl: 'https://127.0.0.1:1/realms/agents-prod/protocol/openid-connect/token',
			},
		});
		expect(error!.message).toBe('Item 1: Could not get an access token from the identity provider');
		expect(error!.description).toMatch(/Identity Provider URL/);
		expect(error!.context.field).toBeUndefined();
	});

	test('several items are sent one after the other, in order, one token for all', async () => {
		const { output, error } = await runNode(
			[1, 2, 3].map((n) => createParams({ additionalFields: { externalId: `loan-${n}` } })),
			{ credentials: credentialsFor(sim) },
		);
		expect(error).toBeUndefined();
		expect(output!.map((item) => [item.json.externalId, item.pairedItem])).toEqual([
			['loan-1', { item: 0 }],
			['loan-2', { item: 1 }],
			['loan-3', { item: 2 }],
		]);
		const log = await simRequests(sim);
		expect(log.filter((r) => r.path.startsWith('/auth/'))).toHaveLength(1);
		const posts = log.filter((r) => r.path === FLOW_PATH);
		expect(posts.map((r) => (r.body as { externalId: string }).externalId)).toEqual([
			'loan-1',
			'loan-2',
			'loan-3',
		]);
		expect(posts.map((r) => r.seq)).toEqual([...posts.map((r) => r.seq)].sort((a, b) => a - b));
	});

	test('with validation switched off, a 10-digit ID reaches the service and its 400 is reported per field', async () => {
		const { error, output } = await runNode(
			createParams({ nationalId: '0181700009', options: { validateNationalId: false } }),
			{ credentials: credentialsFor(sim) },
		);
		expect(output).toBeUndefined();
		expect(error!.name).toBe('NodeApiError');
		expect(error!.message).toMatch(
			/^Item 1: The Consent Flow service rejected the request \(400\): invalid fields: nationalId/,
		);
		expect(error!.description).toMatch(
			/^Fix these fields: National ID: nationalId must be a string of exactly 11 digits/,
		);
		expect(error!.httpCode).toBe('400');
		expect(error!.context.itemIndex).toBe(0);
		expect(error!.context.field).toBe('nationalId');
		const posts = await apiRequests(sim, 'POST');
		expect(posts).toHaveLength(1);
		expect((posts[0].body as { nationalId: string }).nationalId).toBe('0181700009');
		expect(await simFlows(sim)).toHaveLength(0);
	});
});
