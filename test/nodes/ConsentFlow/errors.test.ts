import { NodeApiError, sleep } from 'n8n-workflow';
import { createTokenStore } from '../../support/execute-context';
import { addFault, control, simFlows, simRequests, useSimulator } from '../../support/simulator';
import type { SimulatorHandle } from '../../support/simulator';
import {
	FLOW_PATH,
	SIM_OPTIONS,
	apiRequests,
	createParams,
	credentialsFor,
	deepText,
	deleteParams,
	runNode,
	startSim,
} from './helpers';
import type { RunResult } from './helpers';

const sim = useSimulator({ ...SIM_OPTIONS, beforeEach: 'reset' });
/** A client secret the identity provider does not know. */
const wrongValue = 'wrong-value-Zq81xVb3';
/** Every run of this file, to search them all for secrets at the end. */
const runs: RunResult[] = [];

/** A simulator that was started and closed again: nobody listens at its address. */
let dead: SimulatorHandle;
beforeAll(async () => {
	dead = await startSim();
	await dead.close();
});

async function run(...args: Parameters<typeof runNode>): Promise<RunResult> {
	const result = await runNode(...args);
	runs.push(result);
	return result;
}

function expectApiError(
	result: RunResult,
	message: RegExp,
	httpCode: string | null,
): NonNullable<RunResult['error']> {
	expect(result.output).toBeUndefined();
	expect(result.error).toBeInstanceOf(NodeApiError);
	expect(result.error!.message).toMatch(message);
	expect(result.error!.httpCode ?? null).toBe(httpCode);
	expect(result.error!.context.itemIndex).toBe(0);
	return result.error!;
}

describe('Consent Flow: errors from the API', () => {
	test('401: a token from another realm is refused (after one refresh) → check realm/environment, reconnect', async () => {
		const credentials = credentialsFor(sim, {
			client: 'estimate',
			realm: 'estimate',
			scope: 'estimate:read',
		});
		const error = expectApiError(
			await run(createParams(), { credentials }),
			/^Item 1: The Consent Flow API rejected the access token \(401\)$/,
			'401',
		);
		expect(error.description).toMatch(/Check Environment, Identity Provider URL and Realm/);
		expect(error.description).toMatch(/fetches a new token when one of them changes/);
		expect(error.description).toMatch(/The service said: token issuer .* is not accepted here/);
		const posts = await apiRequests(sim, 'POST');
		expect(posts.map((r) => r.status)).toEqual([401, 401]);
		expect(await simFlows(sim)).toHaveLength(0);
	});

	test('401: tokens that are expired on arrival are refused → same message', async () => {
		const shortLived = await startSim({ tokenLifetimeSeconds: 0 });
		try {
			const error = expectApiError(
				await run(createParams(), { credentials: credentialsFor(shortLived) }),
				/^Item 1: The Consent Flow API rejected the access token \(401\)$/,
				'401',
			);
			expect(error.description).toMatch(/token expired/);
		} finally {
			await shortLived.close();
		}
	});

	test('an expired token is refreshed once and the create succeeds (one flow)', async () => {
		const short = await startSim({ tokenLifetimeSeconds: 1 });
		try {
			const tokenStore = createTokenStore();
			const first = await run(createParams(), { credentials: credentialsFor(short), tokenStore });
			expect(first.error).toBeUndefined();
			const fetchesBefore = tokenStore.fetches;
			await control(short, 'DELETE', '/requests');
			await sleep(1100);
			const second = await run(createParams(), { credentials: credentialsFor(short), tokenStore });
			expect(second.error).toBeUndefined();
			expect(tokenStore.fetches).toBe(fetchesBefore + 1);
			const posts = (await simRequests(short)).filter((r) => r.path === FLOW_PATH);
			expect(posts.map((r) => r.status)).toEqual([401, 201]);
			expect(await simFlows(short)).toHaveLength(2);
		} finally {
			await short.close();
		}
	});

	test('403: a token without scope sbl → check Service and reconnect', async () => {
		const credentials = credentialsFor(sim, {
			client: 'limited',
			scope: 'loan-application:create:es',
		});
		const error = expectApiError(
			await run(createParams(), { credentials }),
			/^Item 1: The Consent Flow API refused the request \(403\)$/,
			'403',
		);
		expect(error.description).toMatch(
			/not published\. If the token lacks scope sbl: check that the credential's Service is Consent Flows and save the credential/,
		);
		const log = await simRequests(sim);
		expect(log.map((r) => r.status)).toEqual([200, 403]);
		expect(log[1].tokenScope).toBe('loan-application:create:es');
	});

	test('403 on delete too', async () => {
		const credentials = credentialsFor(sim, {
			client: 'limited',
			scope: 'loan-application:create:es',
		});
		expectApiError(
			await run(deleteParams('any'), { credentials }),
			/refused the request \(403\)$/,
			'403',
		);
	});

	test('500 via a fault → internal error, not retried, a hint about checking before re-running', async () => {
		await addFault(sim, {
			count: 1,
			status: 500,
			match: { method: 'POST', pathPrefix: FLOW_PATH },
		});
		const error = expectApiError(
			await run(createParams(), { credentials: credentialsFor(sim) }),
			/^Item 1: The Consent Flow service failed with an internal error \(500\)$/,
			'500',
		);
		expect(error.description).toMatch(/check whether the flow exists/);
		expect(error.description).toMatch(/The service said: fault \d+ injected by the simulator/);
		expect(await apiRequests(sim, 'POST')).toHaveLength(1);
	});

	test('500 on delete is not retried either (only busy and gateway answers are)', async () => {
		await addFault(sim, { count: 1, status: 500, match: { method: 'DELETE' } });
		expectApiError(
			await run(deleteParams('x'), { credentials: credentialsFor(sim) }),
			/internal error \(500\)$/,
			'500',
		);
		expect(await apiRequests(sim, 'DELETE')).toHaveLength(1);
	});

	test('404 on create: the API Base URL points to the wrong place', async () => {
		const error = expectApiError(
			await run(createParams(), {
				credentials: credentialsFor(sim, { apiBaseUrl: `${sim.url}/wrong` }),
			}),
			/^Item 1: The flow endpoint was not found at 127\.0\.0\.1:\d+ \(404\)$/,
			'404',
		);
		expect(error.description).toMatch(/API Base URL/);
	});

	test('cannot connect: API Base URL with nobody listening → retried (nothing was sent), then a clear message', async () => {
		const deadUrl = dead.consentBaseUrl;
		const started = Date.now();
		const error = expectApiError(
			await run(createParams({ options: { maxRetries: 2, retryDelayMs: 10 } }), {
				credentials: credentialsFor(sim, { apiBaseUrl: deadUrl }),
			}),
			/^Item 1: Cannot reach the Consent Flow API at 127\.0\.0\.1:\d+: the connection was refused \(3 attempts\)$/,
			null,
		);
		expect(Date.now() - started).toBeLessThan(5000);
		expect(error.description).toMatch(
			/Check the credential's API Base URL .*\(ECONNREFUSED\)\. Nothing was sent\./,
		);
	});
});

describe('Consent Flow: token failures', () => {
	test('wrong client secret → invalid_client: check client ID/secret and client authentication', async () => {
		const credentials = credentialsFor(sim, { clientSecret: wrongValue });
		const error = expectApiError(
			await run(createParams(), { credentials }),
			/^Item 1: The identity provider refused the client credentials \(invalid_client\)$/,
			null,
		);
		expect(error.description).toMatch(
			/Realm .*Client ID and Client Secret .*Environment and Identity Provider URL/,
		);
		expect(error.description).toMatch(/Client Authentication/);
		expect(error.description).toMatch(/unknown client or wrong secret/);
		const log = await simRequests(sim);
		expect(log.map((r) => `${r.path} ${r.status}`)).toEqual([
			'/auth/realms/sbl/protocol/openid-connect/token 401',
		]);
	});

	// Issue 48: as in Keycloak, a realm that exists but does not hold the client refuses it as an
	// unknown client (401 invalid_client): the error names Realm first.
	test('a realm that does not know the client → invalid_client, naming Realm', async () => {
		const credentials = credentialsFor(sim, { realm: 'agents-test' });
		const error = expectApiError(
			await run(createParams(), { credentials }),
			/^Item 1: The identity provider refused the client credentials \(invalid_client\)$/,
			null,
		);
		expect(error.description).toMatch(/^Check in the Consent Flow OAuth2 API credential: Realm/);
		expect((await simRequests(sim)).map((r) => `${r.path} ${r.status}`)).toEqual([
			'/auth/realms/agents-test/protocol/openid-connect/token 401',
		]);
	});

	test('Realm empty, or Service the loan application service → refused before any request', async () => {
		for (const [fields, message] of [
			[{ realm: ' ' }, "The credential's Realm is empty"],
			[{ service: 'loanApplication' }, "The credential's Service is the loan application service"],
		] as const) {
			const { error } = await run(createParams(), {
				credentials: { ...credentialsFor(sim), ...fields },
			});
			expect(error!.message).toMatch(message);
			expect(error!.description).toMatch(/Realm the operator gave you/);
		}
		expect(await simRequests(sim)).toEqual([]);
	});

	test('wrong client secret sent in the body → the same message', async () => {
		const credentials = credentialsFor(sim, { clientSecret: wrongValue, authentication: 'body' });
		expectApiError(await run(createParams(), { credentials }), /\(invalid_client\)$/, null);
	});

	test('a scope the client may not request → invalid_scope, naming Additional Scopes', async () => {
		const credentials = credentialsFor(sim, { client: 'limited', scope: 'sbl' });
		const error = expectApiError(
			await run(createParams(), { credentials }),
			/^Item 1: Could not get an access token from the identity provider \(invalid_scope\)$/,
			null,
		);
		expect(error.description).toMatch(/Additional Scopes/);
		expect(error.description).toMatch(/may not request scope\(s\): sbl/);
		expect(await apiRequests(sim)).toHaveLength(0);
	});

	test('an unknown realm → check identity provider URL and realm', async () => {
		const credentials = credentialsFor(sim, { realm: 'sbl-typo' });
		const error = expectApiError(
			await run(createParams(), { credentials }),
			/^Item 1: Could not get an access token from the identity provider \(realm_not_found\)$/,
			null,
		);
		expect(error.description).toMatch(/Realm .*Identity Provider URL \(without \/realms\/…\)/);
		expect(error.description).toMatch(/realm sbl-typo does not exist/);
		// issue 43: the flow service's realm comes from the operator; never "leave it empty"
		expect(error.description).toMatch(/the realm the operator gave you for the flow service/);
		expect(error.description).not.toMatch(/leave it empty/i);
	});

	test('the token endpoint failing (503) → could not get an access token, with the status', async () => {
		await addFault(sim, { count: 1, status: 503, match: { pathPrefix: '/auth/' } });
		const error = expectApiError(
			await run(createParams(), { credentials: credentialsFor(sim) }),
			/^Item 1: Could not get an access token from the identity provider \(simulated_fault\)$/,
			null,
		);
		expect(error.description).toMatch(
			/Check the credential's Realm .*, Client ID and Client Secret, Environment, Identity Provider URL/,
		);
		expect(error.description).toMatch(/The identity provider said: simulated_fault$/);
		// a token failure is not retried and no API request is made
		expect((await simRequests(sim)).map((r) => r.path)).toEqual([
			'/auth/realms/sbl/protocol/openid-connect/token',
		]);
	});

	test('identity provider unreachable → says so, not "API unreachable"', async () => {
		const credentials = {
			...credentialsFor(sim),
			accessTokenUrl: `${dead.authUrl}/realms/sbl/protocol/openid-connect/token`,
		};
		const { error } = await run(createParams({ options: { maxRetries: 0 } }), { credentials });
		expect(error).toBeInstanceOf(NodeApiError);
		// in n8n the credential's own words follow (own-token-failure.test.ts): "could not be reached"
		expect(error!.message).toBe('Item 1: Could not get an access token from the identity provider');
		expect(error!.description).toMatch(/Identity Provider URL/);
		expect(error!.description).toMatch(/refused the connection/);
		expect(await apiRequests(sim)).toHaveLength(0);
	});
});

describe('Consent Flow: no secret leaks', () => {
	test('no client secret or access token appears in any output or error of this file', async () => {
		// one more run under Continue On Fail, so that error items are searched too
		const coF = await run(
			[
				createParams({ options: { validateNationalId: false }, nationalId: '1' }),
				deleteParams('nope'),
			],
			{
				credentials: credentialsFor(sim),
				continueOnFail: true,
			},
		);
		expect(coF.output).toHaveLength(2);
		expect(runs.length).toBeGreaterThan(10);

		const secrets = new Set<string>(
			Object.values(sim.clients).map((client) => client.clientSecret),
		);
		secrets.add(wrongValue);
		let tokens = 0;
		for (const result of runs) {
			for (const token of result.tokenStore.tokens.values()) {
				secrets.add(token);
				tokens++;
			}
		}
		expect(tokens).toBeGreaterThan(5);
		const text = runs
			.map((result) => deepText({ output: result.output, error: result.error }))
			.join('\n');
		expect(text.length).toBeGreaterThan(1000);
		for (const secret of secrets) expect(text).not.toContain(secret);
		expect(text).not.toMatch(/Bearer\s+ey/i);
		expect(text).not.toMatch(/Basic\s+[A-Za-z0-9+/=]{12,}/);
		expect(text).not.toMatch(/authorization/i);
	});
});
