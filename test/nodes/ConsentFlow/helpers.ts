/**
 * Helpers for the Consent Flow node tests: the simulator as they run it, the credential as n8n
 * hands it to the node, and a runner that executes the node with the real-HTTP test context.
 * Nothing here answers a request itself: every response comes from the simulator
 * (test/support/simulator).
 */
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';
import { ConsentFlow } from '../../../nodes/ConsentFlow/ConsentFlow.node';
import { createExecuteContext, createTokenStore } from '../../support/execute-context';
import type {
	ContextOptions,
	Params,
	TestContext,
	TokenStore,
} from '../../support/execute-context';
import { clearLog, simRequests, startSim as startSimOnFreePort } from '../../support/simulator';
import type { SimulatorHandle, SimulatorOptions, SimulatorRequest } from '../../support/simulator';

/**
 * A valid synthetic national identity number (month + 80: no person has it; its digit sum picks
 * the simulator's "happy" scenario, test/support/synthetic-ids.js) and organization number.
 */
export const NATIONAL_ID = '01817000092';
export const ORGANIZATION_ID = '923456783';
export const FLOW_PATH = '/consent/api/flow-definitions/sbl';

/** No lifecycle webhooks: the webhook URLs these tests send are never called. */
export const SIM_OPTIONS: SimulatorOptions = { autoLifecycle: false };

export async function startSim(options: SimulatorOptions = {}): Promise<SimulatorHandle> {
	return await startSimOnFreePort({ ...SIM_OPTIONS, ...options });
}

/** Requests to the consent API only (no token requests). */
export async function apiRequests(
	sim: SimulatorHandle,
	method?: string,
): Promise<SimulatorRequest[]> {
	return await simRequests(sim, { pathPrefix: '/consent/', method });
}

export interface CredentialOptions {
	client?: string;
	clientSecret?: string;
	realm?: string;
	scope?: string;
	environment?: 'test' | 'production';
	authentication?: 'header' | 'body';
	apiBaseUrl?: string;
}

/** The credential as n8n hands it to the node: hidden accessTokenUrl and scope already resolved. */
export function credentialsFor(sim: SimulatorHandle, options: CredentialOptions = {}): IDataObject {
	const client = sim.clients[options.client ?? 'consent'];
	return {
		service: 'consentFlow',
		environment: options.environment ?? 'test',
		identityProviderUrl: sim.authUrl,
		realm: options.realm ?? 'sbl',
		apiBaseUrl: options.apiBaseUrl ?? sim.consentBaseUrl,
		clientId: client.clientId,
		clientSecret: options.clientSecret ?? client.clientSecret,
		authentication: options.authentication ?? 'header',
		additionalScopes: '',
		accessTokenUrl: `${sim.authUrl}/realms/${options.realm ?? 'sbl'}/protocol/openid-connect/token`,
		scope: options.scope ?? 'sbl',
		grantType: 'clientCredentials',
	};
}

/** Parameters of a valid create item (URLs are never called: autoLifecycle is off). */
export function createParams(overrides: Params = {}): Params {
	return {
		resource: 'flow',
		operation: 'create',
		nationalId: NATIONAL_ID,
		lastName: 'Nordmann',
		organizationId: ORGANIZATION_ID,
		redirectUrl: 'https://bank.example.com/loan/after-consent',
		webhookUrl: 'https://n8n.example.com/webhook/0b7e/consent',
		additionalFields: {},
		// one at a time unless a test asks for more: many tests pin the order requests reach the service
		options: { retryDelayMs: 10, concurrency: 1 },
		...overrides,
	};
}

export function deleteParams(flowId: string, overrides: Params = {}): Params {
	return {
		resource: 'flow',
		operation: 'delete',
		flowId,
		options: { retryDelayMs: 10, concurrency: 1 },
		...overrides,
	};
}

export interface RunOptions {
	credentials: IDataObject;
	continueOnFail?: boolean;
	items?: number;
	tokenStore?: TokenStore;
	nodeSettings?: ContextOptions['nodeSettings'];
}

export interface RunResult {
	output?: INodeExecutionData[];
	error?: Error & { description?: string; httpCode?: string | null; context: IDataObject };
	ctx: TestContext;
	tokenStore: TokenStore;
}

/** Executes the node once; parameters are one object for all items or one per item. */
export async function runNode(
	parameters: Params | Params[],
	options: RunOptions,
): Promise<RunResult> {
	const tokenStore = options.tokenStore ?? createTokenStore();
	const count = options.items ?? (Array.isArray(parameters) ? parameters.length : 1);
	const ctx = createExecuteContext({
		parameters,
		credentials: { consentFlowOAuth2Api: options.credentials as never },
		items: Array.from({ length: count }, (_, i) => ({ json: { row: i } })),
		continueOnFail: options.continueOnFail,
		nodeType: 'n8n-nodes-sbl.consentFlow',
		nodeName: 'Consent Flow',
		tokenStore,
		nodeSettings: options.nodeSettings,
	});
	const node = new ConsentFlow();
	try {
		const result = await node.execute.call(ctx);
		return { output: result[0], ctx, tokenStore };
	} catch (error) {
		return { error: error as RunResult['error'], ctx, tokenStore };
	}
}

/** Everything reachable from a value (own properties, message, stack, description, cause) as one string. */
export function deepText(value: unknown): string {
	const seen = new Set<unknown>();
	const parts: string[] = [];
	const walk = (current: unknown, depth: number): void => {
		if (current === null || current === undefined || depth > 12) return;
		if (typeof current === 'function') return;
		if (typeof current !== 'object') {
			parts.push(String(current));
			return;
		}
		if (seen.has(current)) return;
		seen.add(current);
		if (current instanceof Error) {
			parts.push(current.message, String(current.stack));
			walk((current as { cause?: unknown }).cause, depth + 1);
		}
		if (current instanceof Map) {
			for (const [key, entry] of current) {
				walk(key, depth + 1);
				walk(entry, depth + 1);
			}
			return;
		}
		for (const key of Object.getOwnPropertyNames(current)) {
			parts.push(key);
			walk((current as Record<string, unknown>)[key], depth + 1);
		}
	};
	walk(value, 0);
	return parts.join('\n');
}

/** Creates a flow through the node and clears the request log; returns the flow id. */
export async function createFlowFor(sim: SimulatorHandle): Promise<string> {
	const { output, error } = await runNode(createParams(), { credentials: credentialsFor(sim) });
	if (error) throw error;
	await clearLog(sim);
	return String(output![0].json.id);
}
