/**
 * Every error status with its message, token failures, network failures and the retry policy
 * (429/503 with Retry-After, bounded), over real HTTP against the simulator. No message or error
 * object may carry the client secret or the access token.
 */
import { NodeApiError } from 'n8n-workflow';
import { createTokenStore } from '../../support/execute-context';
import type { TokenStore } from '../../support/execute-context';
import { addFault, resetSim, startSim, useSimulator } from '../../support/simulator';
import {
	cadastre,
	CREDENTIAL,
	estimateCredentials,
	ORG,
	requestLog,
	runNode,
	runNodeError,
	share,
} from './helpers';

const sim = useSimulator({ beforeEach: 'reset' });
let prefix: string;
beforeAll(() => {
	prefix = sim.estimatePrefix;
});

type NodeError = Awaited<ReturnType<typeof runNodeError>> & {
	failure?: { cause: string; retryAfterMs?: number };
};

/** Every string reachable from a value: own properties (also non-enumerable), causes, nested objects. */
function inspect(value: unknown, seen = new Set<unknown>()): string {
	if (typeof value === 'string') return value;
	if (value === null || typeof value !== 'object' || seen.has(value)) return String(value);
	seen.add(value);
	return Object.getOwnPropertyNames(value)
		.map((key) => `${key}: ${inspect((value as Record<string, unknown>)[key], seen)}`)
		.join('\n');
}

/** The error must not reveal the client secret or the access token, anywhere in it. */
function expectNoSecrets(error: unknown, tokens: TokenStore, client = 'estimate') {
	const everything = [
		inspect(error),
		JSON.stringify(error),
		(error as Error).message,
		(error as { description?: string }).description ?? '',
	].join('\n');
	expect(everything).not.toContain(sim.clients[client].clientSecret);
	for (const token of tokens.tokens.values()) expect(everything).not.toContain(token);
	expect(everything).not.toMatch(/Bearer\s+ey/);
	expect(everything).not.toMatch(/authorization/i);
}

async function failWith(
	parameters: Record<string, unknown>,
	options: Parameters<typeof runNode>[2] = {},
) {
	const tokenStore = options.tokenStore ?? createTokenStore();
	const error = (await runNodeError(sim, parameters, { ...options, tokenStore })) as NodeError;
	expect(error).toBeInstanceOf(NodeApiError);
	expect(error.context.itemIndex).toBe(0);
	expectNoSecrets(error, tokenStore, options.credentials ? undefined : 'estimate');
	return error;
}

const basis = { resource: 'estimate', operation: 'getBasis', ...cadastre('0301', 208, 12) };

describe('HTTP statuses', () => {
	test('400: out of range — names what was asked', async () => {
		await addFault(sim, {
			status: 400,
			match: { pathPrefix: `${prefix}/RealEstates/0301/208/12/0/0/EvEstimate` },
		});
		const error = await failWith({
			resource: 'estimate',
			operation: 'get',
			...cadastre('0301', 208, 12),
			overrides: { usableArea: 70 },
		});
		expect(error.message).toBe(
			'Item 1: The estimate API rejected the request (400) while trying to get the estimate for cadastre 0301-208/12/0/0',
		);
		expect(error.description).toContain(
			'Check the values sent with POST /RealEstates/0301/208/12/0/0/EvEstimate.',
		);
		expect(error.httpCode).toBe('400');
		expect(error.failure).toEqual({ cause: 'configuration-invalid' });
	});

	test('400 for a document: the document ID is out of range', async () => {
		await addFault(sim, {
			status: 400,
			match: { pathPrefix: `${prefix}/EvEstimate/Documents/77` },
		});
		const error = await failWith({
			resource: 'document',
			operation: 'download',
			documentId: 77,
			binaryPropertyName: 'data',
		});
		expect(error.message).toBe(
			'Item 1: The estimate API rejected the request (400) while trying to download the estimate document for document 77',
		);
	});

	test('401: not authenticated — check client ID/secret and token URL, reconnect', async () => {
		// a valid token of another realm: the estimate API does not accept its issuer
		const credentials = estimateCredentials(sim, 'consent', {
			accessTokenUrl: `${sim.authUrl}/realms/sbl/protocol/openid-connect/token`,
			scope: 'sbl',
		});
		const tokenStore = createTokenStore();
		const error = (await runNodeError(sim, basis, { credentials, tokenStore })) as NodeError;
		expectNoSecrets(error, tokenStore, 'consent');
		expect(error).toBeInstanceOf(NodeApiError);
		expect(error.message).toBe(
			'Item 1: The estimate API did not accept the access token (401) while trying to get the estimate basis for cadastre 0301-208/12/0/0',
		);
		expect(error.description).toMatch(/Client ID, Client Secret, Scope and Access Token URL/);
		expect(error.description).toMatch(/reconnect/);
		expect(error.httpCode).toBe('401');
		expect(error.failure).toEqual({ cause: 'credential-invalid' });
		// n8n refreshes the token once on 401, then gives up: no 401 retry loop
		const log = await requestLog(sim);
		expect(log.map((r) => r.status)).toEqual([401, 401]);
	});

	test.each([
		['get', { resource: 'estimate', operation: 'get', ...share(ORG.a, 1) }, 'get the estimate'],
		['getBasis', basis, 'get the estimate basis'],
		[
			'getMany',
			{ resource: 'document', operation: 'getMany', ...cadastre('0301', 208, 12) },
			'list the stored estimate documents',
		],
		[
			'getHousingCooperative',
			{ resource: 'estimate', operation: 'getHousingCooperative', organizationNumber: ORG.c },
			'get the housing cooperative estimate',
		],
	])(
		'403 on %s: not authorized — the client lacks access or scope',
		async (_name, parameters, action) => {
			const credentials = estimateCredentials(sim, 'estimateNoScope', { scope: '' });
			const error = await failWith(parameters, { credentials });
			expect(error.message).toMatch(
				new RegExp(
					`^Item 1: The estimate API did not authorize the request \\(403\\) while trying to ${action} for `,
				),
			);
			expect(error.description).toMatch(/Scope/);
			expect(error.httpCode).toBe('403');
			expect(error.failure).toEqual({ cause: 'configuration-invalid' });
		},
	);

	test('market estimate and PDF need no scope (they answer without 401/403)', async () => {
		const credentials = estimateCredentials(sim, 'estimateNoScope', { scope: '' });
		const market = await runNode(
			sim,
			{ resource: 'estimate', operation: 'getMarketEstimate', ...cadastre('0301', 208, 12) },
			{ credentials },
		);
		const pdf = await runNode(
			sim,
			{
				resource: 'document',
				operation: 'download',
				documentId: 900001,
				binaryPropertyName: 'data',
			},
			{ credentials },
		);
		expect(typeof market.output[0].json.estimate).toBe('number');
		expect(pdf.output[0].json.fileSize).toBeGreaterThan(1_000_000);
	});

	test('404 for an estimate in cadastre form: "Estimate could not be retrieved for <object>"', async () => {
		const error = await failWith({
			resource: 'estimate',
			operation: 'get',
			...cadastre('0301', 404, 7, 0, 2),
		});
		expect(error.message).toBe(
			'Item 1: Estimate could not be retrieved for cadastre 0301-404/7/0/2 (404)',
		);
		expect(error.httpCode).toBe('404');
	});

	test('404 for an estimate in share form', async () => {
		const error = await failWith({ resource: 'estimate', operation: 'get', ...share(ORG.b, 404) });
		expect(error.message).toBe(
			`Item 1: Estimate could not be retrieved for housing cooperative ${ORG.b} share 404 (404)`,
		);
	});

	test('404 for a document: "No estimate document <id>"', async () => {
		const error = await failWith({
			resource: 'document',
			operation: 'download',
			documentId: 31337,
			binaryPropertyName: 'data',
		});
		expect(error.message).toBe('Item 1: No estimate document 31337 (404)');
		expect(error.description).toContain('GET /EvEstimate/Documents/31337');
	});

	test('500: the API could not process the request — contact support, with what was asked; not retried', async () => {
		await addFault(sim, {
			status: 500,
			match: { pathPrefix: `${prefix}/RealEstates/0301/208/12/0/0/EvEstimateBasis` },
		});
		const error = await failWith(basis);
		expect(error.message).toBe(
			'Item 1: The estimate API could not process the request (500) while trying to get the estimate basis for cadastre 0301-208/12/0/0 — contact support',
		);
		expect(error.description).toContain('GET /RealEstates/0301/208/12/0/0/EvEstimateBasis');
		expect(error.httpCode).toBe('500');
		expect(await requestLog(sim)).toHaveLength(1);
	});
});

describe('token and network failures', () => {
	test('a wrong client secret: invalid_client from the token endpoint, no API call', async () => {
		const credentials = estimateCredentials(sim, 'estimate', {
			clientSecret: `${sim.clients.estimate.clientSecret}-not-it`,
		});
		const error = await failWith(basis, { credentials });
		expect(error.message).toBe(
			'Item 1: Could not get an access token for the estimate API (invalid_client)',
		);
		expect(error.description).toMatch(/Client ID, Client Secret/);
		expect(error.failure).toEqual({ cause: 'credential-invalid' });
		expect(inspect(error)).not.toContain(`${sim.clients.estimate.clientSecret}-not-it`);
		expect(await requestLog(sim)).toEqual([]); // the API was never called
	});

	test('a scope the client may not have: invalid_scope', async () => {
		const credentials = estimateCredentials(sim, 'estimateNoScope', { scope: 'estimate:read' });
		const error = await failWith(basis, { credentials });
		expect(error.message).toBe(
			'Item 1: Could not get an access token for the estimate API (invalid_scope)',
		);
	});

	test('client authentication in the body works as well as the Basic header', async () => {
		const credentials = estimateCredentials(sim, 'estimate', { authentication: 'body' });
		const { output } = await runNode(sim, basis, { credentials });
		expect(typeof output[0].json.buildYear).toBe('number');
	});

	test('a dropped connection is retried (the calls are idempotent)', async () => {
		await addFault(sim, {
			drop: true,
			count: 1,
			match: { pathPrefix: `${prefix}/RealEstates/0301/208/12/0/0/EvEstimateBasis` },
		});
		const { output } = await runNode(sim, basis);
		expect(output).toHaveLength(1);
		const log = await requestLog(sim);
		expect(log.map((r) => r.status)).toEqual([null, 200]);
	});

	test('the service cannot be reached: a network error naming what was asked, after the retries', async () => {
		const closed = await startSim();
		const deadBaseUrl = closed.estimateBaseUrl;
		await closed.close();
		const credentials = estimateCredentials(sim, 'estimate', { apiBaseUrl: deadBaseUrl });
		const error = await failWith(basis, { credentials });
		expect(error.message).toBe(
			'Item 1: The estimate API did not answer (the connection was refused) while trying to get the estimate basis for cadastre 0301-208/12/0/0',
		);
		expect(error.description).toContain('No answer (ECONNREFUSED) after 4 attempt(s)');
		expect(error.failure).toEqual({ cause: 'temporarily-unavailable' });
	});

	test('an API Base URL that is not a URL fails before any request', async () => {
		const credentials = estimateCredentials(sim, 'estimate', { apiBaseUrl: 'estimate/v1' });
		const error = await runNodeError(sim, basis, { credentials });
		expect(error.message).toMatch(/^The credential's "API Base URL" must be an absolute URL/);
		expect(await requestLog(sim, '')).toEqual([]);
	});
});

describe('retries', () => {
	const path = `${'/estimate/v1'}/RealEstates/0301/208/12/0/0/EvEstimateBasis`;

	test('429 with Retry-After, then success: retried, the output is the eventual answer', async () => {
		await addFault(sim, { status: 429, retryAfter: 0, count: 2, match: { pathPrefix: path } });
		const { output } = await runNode(sim, basis);
		expect(typeof output[0].json.usableArea).toBe('number');
		const log = await requestLog(sim);
		expect(log.map((r) => r.status)).toEqual([429, 429, 200]);
	});

	test('503 beyond the bound: 1 + 3 retries, then a clear error', async () => {
		await addFault(sim, { status: 503, retryAfter: 0, count: 10, match: { pathPrefix: path } });
		const error = await failWith(basis);
		expect(error.message).toBe(
			'Item 1: The estimate API is unavailable (503), gave up after 4 attempt(s) while trying to get the estimate basis for cadastre 0301-208/12/0/0',
		);
		expect(error.failure).toEqual({ cause: 'temporarily-unavailable', retryAfterMs: 0 });
		expect(await requestLog(sim)).toHaveLength(4);
	});

	test('429 beyond the bound', async () => {
		await addFault(sim, { status: 429, retryAfter: 0, count: 10, match: { pathPrefix: path } });
		const error = await failWith(basis);
		expect(error.message).toBe(
			'Item 1: The estimate API kept rate limiting the requests (429), gave up after 4 attempt(s) while trying to get the estimate basis for cadastre 0301-208/12/0/0',
		);
		expect(error.failure).toEqual({ cause: 'rate-limited', retryAfterMs: 0 });
		expect(await requestLog(sim)).toHaveLength(4);
	});

	test('a Retry-After longer than the longest wait is not waited for', async () => {
		await addFault(sim, { status: 429, retryAfter: 3600, count: 1, match: { pathPrefix: path } });
		const error = await failWith(basis);
		expect(error.message).toBe(
			'Item 1: The estimate API kept rate limiting the requests (429), gave up after 1 attempt(s) while trying to get the estimate basis for cadastre 0301-208/12/0/0',
		);
		expect(error.description).toContain(
			'The service asked to wait 3600 s (Retry-After), longer than the node waits (30 s), so it did not retry.',
		);
		expect(error.failure).toEqual({ cause: 'rate-limited', retryAfterMs: 3_600_000 });
		expect(await requestLog(sim)).toHaveLength(1);
	});

	test('an estimate that is not stored is retried like a read (503)', async () => {
		await addFault(sim, { status: 503, retryAfter: 0, count: 1, match: { method: 'POST' } });
		const { output } = await runNode(sim, {
			resource: 'estimate',
			operation: 'get',
			...cadastre('0301', 208, 12),
			dontStoreEstimate: true,
		});
		expect(typeof output[0].json.approvedTotalMarketValue).toBe('number');
		const log = await requestLog(sim);
		expect(log.map((r) => `${r.method} ${r.status}`)).toEqual(['POST 503', 'POST 200']);
		expect(log[1].body).toEqual({ storeEstimate: false }); // the same body again
	});

	// The published API: POST …/EvEstimate stores an estimate document unless storeEstimate is false.
	const storing = { resource: 'estimate', operation: 'get', ...cadastre('0301', 208, 12) };
	const evEstimate = {
		method: 'POST',
		pathPrefix: '/estimate/v1/RealEstates/0301/208/12/0/0/EvEstimate',
	};

	test('a storing estimate whose connection broke after it arrived is sent once, and the error says a document may be stored', async () => {
		await addFault(sim, { drop: true, count: 1, match: evEstimate });
		const error = await failWith(storing);
		expect(error.message).toMatch(
			/^Item 1: The estimate API did not answer \(the connection was reset\) while trying to get the estimate for cadastre 0301-208\/12\/0\/0 — an estimate document may have been stored$/,
		);
		expect(error.description).toContain('does not send this estimate again');
		const log = await requestLog(sim);
		expect(log.map((r) => `${r.method} ${r.status}`)).toEqual(['POST null']);
	});

	test('a storing estimate answered 503 without Retry-After is not sent again; with Retry-After it is', async () => {
		await addFault(sim, { status: 503, count: 1, match: evEstimate });
		const error = await failWith(storing);
		expect(error.message).toBe(
			'Item 1: The estimate API is unavailable (503), gave up after 1 attempt(s) while trying to get the estimate for cadastre 0301-208/12/0/0',
		);
		expect(error.description).toContain('sent again only when the API asks to wait (Retry-After)');
		expect((await requestLog(sim)).map((r) => r.status)).toEqual([503]);

		await resetSim(sim);
		await addFault(sim, { status: 503, retryAfter: 0, count: 1, match: evEstimate });
		await addFault(sim, { status: 429, count: 1, match: evEstimate });
		const { output } = await runNode(sim, storing);
		expect(typeof output[0].json.approvedTotalMarketValue).toBe('number');
		expect((await requestLog(sim)).map((r) => r.status)).toEqual([503, 429, 200]);
	});

	test("with Don't Store Estimate a broken connection is sent again (nothing can be stored twice)", async () => {
		await addFault(sim, { drop: true, count: 1, match: evEstimate });
		const { output } = await runNode(sim, { ...storing, dontStoreEstimate: true });
		expect(output).toHaveLength(1);
		const log = await requestLog(sim);
		expect(log.map((r) => `${r.method} ${r.status}`)).toEqual(['POST null', 'POST 200']);
		expect(log[1].body).toEqual({ storeEstimate: false });
	});

	test('the token is fetched once and reused across items and runs', async () => {
		const tokenStore = createTokenStore();
		await runNode(sim, [basis, basis, basis], { tokenStore });
		await runNode(sim, basis, { tokenStore });
		expect(tokenStore.fetches).toBe(1);
		expect(tokenStore.tokens.has(CREDENTIAL)).toBe(true);
	});
});
