import type { INodeProperties } from 'n8n-workflow';
import { ConsentFlow } from '../../../nodes/ConsentFlow/ConsentFlow.node';
import codex from '../../../nodes/ConsentFlow/ConsentFlow.node.json';
import { unwrapData } from '../../../nodes/ConsentFlow/api';
import { describeFailure } from '../../../nodes/ConsentFlow/wording';
import { failureFacts } from '../../../nodes/shared/transport';
import type { HttpFailure } from '../../../nodes/shared/transport';
import { makeRedactor } from '../../../nodes/shared/transport/redact';
import { Fields } from '../../../nodes/shared/validation';

const { description } = new ConsentFlow();
const byName = (name: string, operation: string): INodeProperties => {
	const found = description.properties.find(
		(p) =>
			p.name === name &&
			(p.displayOptions?.show?.operation as string[] | undefined)?.includes(operation),
	);
	if (!found) throw new Error(`no property ${name} for ${operation}`);
	return found;
};

describe('Consent Flow: description', () => {
	test('identity, icon, tool use, subtitle and credential', () => {
		expect(description.name).toBe('consentFlow');
		expect(description.displayName).toBe('Consent Flow');
		expect(description.usableAsTool).toBe(true);
		expect(description.icon).toEqual({
			light: 'file:../../icons/sbl.svg',
			dark: 'file:../../icons/sbl.dark.svg',
		});
		expect(description.subtitle).toBe(
			'={{$parameter["operation"] + ": " + $parameter["resource"]}}',
		);
		// The signing credential only for Create and Wait for Outcome, which verifies deliveries itself.
		expect(description.credentials).toEqual([
			{ name: 'consentFlowOAuth2Api', required: true },
			{
				name: 'consentFlowWebhookSigningApi',
				required: true,
				displayOptions: { show: { operation: ['createAndWait'] } },
			},
		]);
	});

	test('resource flow with operations create, create and wait, and delete', () => {
		const resource = description.properties.find((p) => p.name === 'resource')!;
		expect(resource.options).toEqual([{ name: 'Flow', value: 'flow' }]);
		const operation = description.properties.find((p) => p.name === 'operation')!;
		expect((operation.options as Array<{ value: string }>).map((o) => o.value)).toEqual([
			'create',
			'createAndWait',
			'delete',
		]);
	});

	test('create has the five required fields, External ID and the national ID switch', () => {
		for (const name of ['nationalId', 'lastName', 'organizationId', 'redirectUrl', 'webhookUrl']) {
			const property = byName(name, 'create');
			expect(property.required).toBe(true);
			expect(String(property.description).length).toBeGreaterThan(30);
		}
		expect(byName('webhookUrl', 'create').description).toMatch(
			/Consent Flow Trigger's Production URL/,
		);
		const additional = byName('additionalFields', 'create');
		expect((additional.options as INodeProperties[]).map((o) => o.name)).toEqual(['externalId']);
		const options = byName('options', 'create').options as INodeProperties[];
		expect(options.find((o) => o.name === 'validateNationalId')).toEqual(
			expect.objectContaining({ type: 'boolean', default: true }),
		);
		expect(byName('flowId', 'delete').required).toBe(true);
	});

	test('codex: categories and documentation links to the package README', () => {
		expect(codex.node).toBe('n8n-nodes-sbl.consentFlow');
		expect(codex.categories.length).toBeGreaterThan(0);
		expect(codex.resources.primaryDocumentation[0].url).toMatch(
			/^https:\/\/www\.npmjs\.com\/package\/n8n-nodes-sbl#/,
		);
		expect(codex.resources.credentialDocumentation[0].url).toMatch(/#credentials$/);
	});
});

describe('Consent Flow: pure helpers', () => {
	test('unwrapData unwraps { data: flow } but leaves flows that happen to have a data field', () => {
		expect(unwrapData({ data: { id: 'f', href: 'h' } })).toEqual({ id: 'f', href: 'h' });
		expect(unwrapData({ id: 'f', data: { x: 1 } })).toEqual({ id: 'f', data: { x: 1 } });
		expect(unwrapData(undefined)).toEqual({});
		expect(unwrapData('created')).toEqual({ data: 'created' });
	});

	test('redact blanks out secrets, bearer/basic credentials and JWT-looking strings', () => {
		const text = makeRedactor(['s3cr3t-value'])(
			'secret s3cr3t-value, Authorization: Bearer abc.def-ghi_jkl, Basic c2JsOnNlY3JldA==, token eyJhbGciOi.eyJzdWIiOiJ4.sig_part',
		);
		expect(text).not.toMatch(/s3cr3t|abc\.def|c2JsOnNlY3JldA|eyJ/);
		expect(text).toContain('Bearer ***');
	});

	const node = {
		id: 'n',
		name: 'Consent Flow',
		type: 'consentFlow',
		typeVersion: 1,
		position: [0, 0] as [number, number],
		parameters: {},
	};
	const call = {
		host: 'api.example.com',
		fields: new Fields(node, description.properties),
		retryStatuses: [429, 503],
	};
	const facts = (extra: Partial<HttpFailure>) =>
		failureFacts(
			{ headers: {}, message: 'x', tokenFailure: false, ...extra },
			'POST /x',
			{ maxDelayMs: 30_000 },
			(t) => t,
		);

	test('a timeout on create is reported like a broken connection: maybe created', () => {
		const text = describeFailure(facts({ code: 'ETIMEDOUT' }), { ...call, operation: 'create' });
		expect(text.message).toBe(
			'The connection to the Consent Flow API at api.example.com timed out after the request was sent — the flow may or may not have been created',
		);
	});

	test('a create that failed without status or code may have acted: said so, with what to check', () => {
		const text = describeFailure(facts({}), { ...call, operation: 'create' });
		expect(text.message).toBe(
			'The request to the Consent Flow API at api.example.com failed — the flow may or may not have been created',
		);
		expect(text.description).toMatch(/does not send a create twice.*check whether the flow exists/);
	});

	test('unauthorized_client is named with the grant to ask for; an unknown status has its own message', () => {
		const grant = describeFailure(
			facts({ tokenFailure: true, oauthError: 'unauthorized_client' }),
			{
				...call,
				operation: 'create',
			},
		);
		expect(grant.message).toBe(
			'Could not get an access token from the identity provider (unauthorized_client)',
		);
		expect(grant.description).toMatch(
			/ask the operator whether this client may use the client credentials grant/,
		);
		expect(
			describeFailure(facts({ status: 418 }), { ...call, operation: 'delete', flowId: 'f' })
				.message,
		).toBe('The Consent Flow service answered with HTTP 418');
	});

	test("the service's field names are shown with the node's own labels", () => {
		const text = describeFailure(
			facts({
				status: 400,
				body: { message: 'invalid', fields: [{ field: 'nationalId', message: 'unknown person' }] },
			}),
			{ ...call, operation: 'create' },
		);
		expect(text.description).toBe('Fix these fields: National ID: unknown person.');
		expect(text.field).toBe('nationalId');
	});
});
