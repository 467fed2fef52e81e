/**
 * Shared set-up for the Real Estate Estimate tests: credentials, running the node through the
 * test execute context, the estimate part of the simulator's request log and direct calls to the
 * estimate API (the simulator itself: test/support/simulator).
 */
import type { ICredentialDataDecryptedObject, INodeExecutionData } from 'n8n-workflow';
import { RealEstateEstimate } from '../../../nodes/RealEstateEstimate/RealEstateEstimate.node';
import { createExecuteContext, createTokenStore } from '../../support/execute-context';
import type {
	Params,
	TestContext,
	ContextOptions,
	TokenStore,
} from '../../support/execute-context';
import { simRequests } from '../../support/simulator';
import type { SimulatorHandle, SimulatorRequest } from '../../support/simulator';

export const CREDENTIAL = 'realEstateEstimateOAuth2Api';

export function estimateCredentials(
	sim: SimulatorHandle,
	client = 'estimate',
	overrides: Partial<ICredentialDataDecryptedObject> = {},
): Record<string, ICredentialDataDecryptedObject> {
	return {
		[CREDENTIAL]: {
			accessTokenUrl: `${sim.authUrl}/realms/estimate/protocol/openid-connect/token`,
			apiBaseUrl: sim.estimateBaseUrl,
			clientId: sim.clients[client].clientId,
			clientSecret: sim.clients[client].clientSecret,
			authentication: 'header',
			scope: 'estimate:read',
			grantType: 'clientCredentials',
			...overrides,
		},
	};
}

export interface RunOptions {
	items?: number | INodeExecutionData[];
	continueOnFail?: boolean;
	/** The node's own settings as n8n stores them (e.g. retryOnFail, maxTries). */
	nodeSettings?: ContextOptions['nodeSettings'];
	credentials?: Record<string, ICredentialDataDecryptedObject>;
	tokenStore?: TokenStore;
	/** Called with the context before the node runs (to wrap helpers). */
	prepare?: (ctx: TestContext) => void;
}

export interface RunResult {
	output: INodeExecutionData[];
	ctx: TestContext;
}

let sharedTokens: TokenStore | undefined;

/** Runs the node with the parameters (one object for all items, or one per item). */
export async function runNode(
	sim: SimulatorHandle,
	parameters: Params | Params[],
	options: RunOptions = {},
): Promise<RunResult> {
	let items: INodeExecutionData[];
	if (Array.isArray(options.items)) items = options.items;
	else {
		const count = options.items ?? (Array.isArray(parameters) ? parameters.length : 1);
		items = Array.from({ length: count }, (_, index) => ({ json: { index } }));
	}
	// one token store per test file mimics n8n's cached token (custom credentials get their own)
	sharedTokens ??= createTokenStore();
	const ctx = createExecuteContext({
		parameters,
		credentials: options.credentials ?? estimateCredentials(sim),
		items,
		continueOnFail: options.continueOnFail,
		nodeSettings: options.nodeSettings,
		nodeType: 'n8n-nodes-sbl.realEstateEstimate',
		nodeName: 'Real Estate Estimate',
		tokenStore: options.tokenStore ?? (options.credentials ? createTokenStore() : sharedTokens),
	});
	options.prepare?.(ctx);
	const [output] = await new RealEstateEstimate().execute.call(ctx);
	return { output, ctx };
}

/** Runs the node and returns the error it throws (fails the test when it does not throw). */
export async function runNodeError(
	sim: SimulatorHandle,
	parameters: Params | Params[],
	options: RunOptions = {},
) {
	let result: RunResult | undefined;
	try {
		result = await runNode(sim, parameters, options);
	} catch (error) {
		return error as Error & {
			description?: string;
			httpCode?: string | null;
			context: Record<string, unknown>;
		};
	}
	throw new Error(`expected the node to fail, got ${JSON.stringify(result?.output).slice(0, 300)}`);
}

/** The simulator's request log under a path prefix: by default the estimate API; '' for all. */
export async function requestLog(
	sim: SimulatorHandle,
	pathPrefix = sim.estimatePrefix,
): Promise<SimulatorRequest[]> {
	return await simRequests(sim, { pathPrefix });
}

/** Node parameters for an object identified by cadastre. */
export function cadastre(knr: string, gnr: number, bnr: number, fnr = 0, snr = 0): Params {
	return { identifyBy: 'cadastre', knr, gnr, bnr, fnr, snr };
}

/** Node parameters for an object identified as a housing cooperative share. */
export function share(organizationNumber: string, shareNumber: number): Params {
	return { identifyBy: 'share', organizationNumber, shareNumber };
}

/** Valid organization numbers (mod 11) for the tests. */
export const ORG = { a: '987654325', b: '923609016', c: '974760673' };

/** A token fetched directly from the simulator's token endpoint (independent of the node). */
export async function directToken(sim: SimulatorHandle, client = 'estimate'): Promise<string> {
	const { clientId, clientSecret } = sim.clients[client];
	const response = await fetch(`${sim.authUrl}/realms/estimate/protocol/openid-connect/token`, {
		method: 'POST',
		headers: {
			'content-type': 'application/x-www-form-urlencoded',
			authorization: `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`,
		},
		body: 'grant_type=client_credentials&scope=estimate%3Aread',
	});
	const json = (await response.json()) as { access_token: string };
	return json.access_token;
}

/** Calls the estimate API directly (not through the node) and returns status and parsed body. */
export async function directCall(
	sim: SimulatorHandle,
	method: string,
	path: string,
	body?: unknown,
): Promise<{ status: number; json: { data?: unknown } }> {
	const token = await directToken(sim);
	const response = await fetch(`${sim.estimateBaseUrl}${path}`, {
		method,
		headers: {
			authorization: `Bearer ${token}`,
			accept: 'application/json',
			...(body === undefined ? {} : { 'content-type': 'application/json' }),
		},
		body: body === undefined ? undefined : JSON.stringify(body),
	});
	return { status: response.status, json: (await response.json()) as { data?: unknown } };
}

/** The PDF bytes the simulator serves for a document id, fetched directly. */
export async function directPdf(sim: SimulatorHandle, documentId: number): Promise<Buffer> {
	const response = await fetch(`${sim.estimateBaseUrl}/EvEstimate/Documents/${documentId}`);
	if (response.status !== 200) throw new Error(`direct PDF ${documentId}: ${response.status}`);
	return Buffer.from(await response.arrayBuffer());
}
