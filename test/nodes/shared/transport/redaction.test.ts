/**
 * Issue "Hostile input", item 2: an API error body that quotes the bearer token, a JWT or the
 * client secret (as some gateways do) must not leave either node — not in the NodeApiError's
 * message, description or error response, not in the continue-on-fail item.
 */
import { NodeApiError } from 'n8n-workflow';
import type { INode, INodeExecutionData } from 'n8n-workflow';
import { ConsentFlow } from '../../../../nodes/ConsentFlow/ConsentFlow.node';
import { RealEstateEstimate } from '../../../../nodes/RealEstateEstimate/RealEstateEstimate.node';
import { createExecuteContext } from '../../../support/execute-context';
import { createParams } from '../../ConsentFlow/helpers';

const ECHOED_CLIENT_VALUE = 'cs-7f3a9b2c41d8e6f0';
const ECHOED_BEARER_VALUE = 'at-9d8c7b6a5f4e3d2c1b0a';
const JWT =
	'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJjbGllbnQiLCJzY29wZSI6InNibCJ9.c2lnbmF0dXJlLXBhcnQtb2YtdGhlLWp3dA';
const BASIC = Buffer.from('client:other-secret-value').toString('base64');
const SECRETS = [ECHOED_CLIENT_VALUE, ECHOED_BEARER_VALUE, JWT, BASIC, 'other-secret-value'];

const node: INode = {
	id: 'n',
	name: 'Node',
	type: 't',
	typeVersion: 1,
	position: [0, 0],
	parameters: {},
};

/** A gateway's answer that echoes everything it was given. */
function echoingFailure(status: number): Error {
	const body = {
		message: `rejected Authorization: Bearer ${ECHOED_BEARER_VALUE}; token ${JWT}`,
		detail: `client_secret=${ECHOED_CLIENT_VALUE} Authorization: Basic ${BASIC}`,
		errors: { authorization: [`Bearer ${JWT}`] },
	};
	const error = Object.assign(new Error(`Request failed with status code ${status}`), {
		isAxiosError: true,
		config: { headers: { Authorization: `Bearer ${ECHOED_BEARER_VALUE}` } },
		response: { status, headers: {}, data: JSON.stringify(body) },
	});
	return new NodeApiError(node, error as never);
}

/** Everything reachable from a value as one string (own properties, message, description, cause). */
function deepText(value: unknown, seen = new Set<unknown>(), depth = 0): string {
	if (value === null || value === undefined || depth > 12) return '';
	if (typeof value !== 'object') return typeof value === 'function' ? '' : String(value);
	if (seen.has(value)) return '';
	seen.add(value);
	const parts: string[] = [];
	if (value instanceof Error) parts.push(value.message, String(value.stack));
	for (const key of Object.getOwnPropertyNames(value)) {
		parts.push(key, deepText((value as Record<string, unknown>)[key], seen, depth + 1));
	}
	return parts.join(' ');
}

function expectNoSecret(text: string): void {
	for (const secret of SECRETS) expect(text).not.toContain(secret);
}

const credentials = {
	realEstateEstimateOAuth2Api: {
		apiBaseUrl: 'https://api.example.com/estimate/v1',
		accessTokenUrl: 'https://auth.example.com/token',
		clientId: 'client',
		clientSecret: ECHOED_CLIENT_VALUE,
		oauthTokenData: { access_token: ECHOED_BEARER_VALUE },
	},
	consentFlowOAuth2Api: {
		realm: 'sbl',
		environment: 'test',
		apiBaseUrl: 'https://api.example.com',
		clientId: 'client',
		clientSecret: ECHOED_CLIENT_VALUE,
		oauthTokenData: { access_token: ECHOED_BEARER_VALUE },
	},
};

const cases = [
	{
		name: 'Real Estate Estimate',
		execute: new RealEstateEstimate().execute,
		parameters: {
			resource: 'estimate',
			operation: 'getBasis',
			identifyBy: 'cadastre',
			knr: '0301',
			gnr: 208,
			bnr: 12,
		},
	},
	{
		name: 'Consent Flow',
		execute: new ConsentFlow().execute,
		parameters: createParams(),
	},
];

describe.each(cases)(
	'$name: secrets echoed by the API never leave the node',
	({ execute, parameters }) => {
		test.each([400, 500])('HTTP %d: not in the thrown error', async (status) => {
			const ctx = createExecuteContext({ parameters, credentials: credentials as never });
			ctx.helpers.httpRequestWithAuthentication = async () =>
				await Promise.reject(echoingFailure(status));
			const error = await execute.call(ctx).then(
				() => undefined,
				(e: unknown) => e as NodeApiError,
			);
			expect(error).toBeInstanceOf(NodeApiError);
			expectNoSecret(error!.message);
			expectNoSecret(String(error!.description));
			expectNoSecret(JSON.stringify(error!.errorResponse ?? {}));
			expectNoSecret(deepText(error));
			// the service's words are still there, blanked where they held a secret
			expect(`${error!.message} ${error!.description}`).toMatch(/\*\*\*/);
		});

		test.each([400, 500])('HTTP %d: not in the continue-on-fail item', async (status) => {
			const ctx = createExecuteContext({
				parameters,
				credentials: credentials as never,
				continueOnFail: true,
			});
			ctx.helpers.httpRequestWithAuthentication = async () =>
				await Promise.reject(echoingFailure(status));
			const [items] = (await execute.call(ctx)) as INodeExecutionData[][];
			expect(items).toHaveLength(1);
			expect(items[0].json.error).toBeDefined();
			expectNoSecret(JSON.stringify(items));
		});
	},
);
