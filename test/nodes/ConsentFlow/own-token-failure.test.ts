/**
 * Issue 48: the Consent Flow credential fetches its own token (preAuthentication). Its refusal
 * reaches the node from n8n's httpRequestWithAuthentication as a NodeApiError around the
 * credential's Error (n8n 2.x keeps it as `cause`; 1.123's NodeApiError drops the cause and keeps
 * the message). Either way the node's error names what decides it and retries nothing.
 */
import { NodeApiError } from 'n8n-workflow';
import type { IHttpRequestHelper, INode } from 'n8n-workflow';
import { fetchAccessToken } from '../../../credentials/consentFlowToken';
import { ConsentFlow } from '../../../nodes/ConsentFlow/ConsentFlow.node';
import { describeFailure } from '../../../nodes/ConsentFlow/wording';
import { failureFacts } from '../../../nodes/shared/transport';
import { classifyFailure, normaliseHttpError } from '../../../nodes/shared/transport/failure';
import { retryDelay } from '../../../nodes/shared/transport/retry';
import { makeRedactor } from '../../../nodes/shared/transport/redact';
import { Fields } from '../../../nodes/shared/validation';

const node: INode = {
	id: 'n',
	name: 'Consent Flow',
	type: 'consentFlow',
	typeVersion: 1,
	position: [0, 0],
	parameters: {},
};
const credentials = {
	service: 'consentFlow',
	environment: 'test',
	identityProviderUrl: 'https://auth.example',
	realm: 'flows',
	clientId: 'client-1',
	clientSecret: ['secret', 'value', '1234'].join('-'),
	authentication: 'header',
	additionalScopes: '',
};

async function refusal(answer: unknown): Promise<Error> {
	const helper = {
		helpers: {
			httpRequest: async () => {
				if (answer instanceof Error) throw answer;
				return answer;
			},
		},
	} as unknown as IHttpRequestHelper;
	return await fetchAccessToken(helper, credentials).then(
		() => {
			throw new Error('expected a refusal');
		},
		(error: Error) => error,
	);
}

/** As n8n 2.x throws it, and as 1.123 does (its NodeApiError drops the cause). */
function thrownBy(major: '2' | '1', error: Error): NodeApiError {
	const wrapped = new NodeApiError(node, error as never);
	if (major === '1') Object.defineProperty(wrapped, 'cause', { value: undefined });
	return wrapped;
}

const call = {
	operation: 'create' as const,
	host: 'api.example.com',
	fields: new Fields(node, new ConsentFlow().description.properties),
	retryStatuses: [429, 503],
};

function nodeText(thrown: unknown) {
	const failure = normaliseHttpError(thrown);
	const redact = makeRedactor([credentials.clientSecret]);
	const facts = failureFacts(
		failure,
		'POST /api/flow-definitions/sbl',
		{ maxDelayMs: 30_000 },
		redact,
	);
	return { failure, facts, text: describeFailure(facts, call) };
}

describe.each(['2', '1'] as const)('n8n %s.x', (major) => {
	test('a realm that does not know the client: invalid_client, naming Realm, Client ID and Client Secret, Environment and Identity Provider URL', async () => {
		const error = await refusal({ statusCode: 401, body: { error: 'invalid_client' } });
		const thrown = thrownBy(major, error);
		// what n8n's credential Test shows: NodeApiError keeps the credential's message as it is
		expect(thrown.message).toBe(error.message);
		const { failure, facts, text } = nodeText(thrown);
		expect(classifyFailure(failure)).toBe('token-refused');
		expect(failure.oauthError).toBe('invalid_client');
		expect(failure.status).toBeUndefined();
		expect(
			retryDelay(failure, 0, {
				maxRetries: 3,
				baseDelayMs: 1,
				maxDelayMs: 1,
				retryStatuses: [429, 503],
				idempotent: true,
			}),
		).toBeUndefined();
		expect(facts.tokenReason).toBeUndefined();
		expect(text.message).toBe(
			'The identity provider refused the client credentials (invalid_client)',
		);
		expect(text.description).toMatch(
			/Realm .*Client ID and Client Secret .*Environment and Identity Provider URL/,
		);
		expect(JSON.stringify(text)).not.toContain(credentials.clientSecret);
	});

	test('no token endpoint (404 without an OAuth2 error): the realm text', async () => {
		const { text } = nodeText(thrownBy(major, await refusal({ statusCode: 404, body: '' })));
		expect(text.message).toBe(
			'Could not get an access token from the identity provider (HTTP 404)',
		);
		expect(text.description).toMatch(/Realm .*Identity Provider URL \(without \/realms\/…\)/);
		// the credential's own words for a 404
		expect(text.description).toMatch(/No token endpoint at this address/);
	});

	test("an unreachable identity provider: the generic token text with the credential's words", async () => {
		const network = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), {
			code: 'ECONNREFUSED',
		});
		const thrown = thrownBy(major, await refusal(network));
		// n8n would replace a message holding ECONNREFUSED with its own words
		expect(thrown.message).toMatch(/could not be reached \(the connection was refused\)/);
		const { failure, text } = nodeText(thrown);
		expect(failure.code).toBeUndefined();
		expect(text.message).toBe('Could not get an access token from the identity provider');
		expect(text.description).toMatch(
			/Realm .*, Client ID and Client Secret, Environment, Identity Provider URL/,
		);
		expect(text.description).toMatch(/the connection was refused/);
	});
});
