/**
 * Issue 27: a token n8n's OAuth2 client fetches *during* the node's request (the credential had
 * none yet, or it expired) is known to nobody before the call. When the service echoes it, bare
 * or prefixed, in a 400 or a 500, it must still not appear in anything the node produces.
 *
 * The simulator issues the token and echoes it (its `body` fault template, test/simulator
 * README); the test context signs the request in place and stores the fetched token in the
 * credential, as n8n does (test/support/execute-context.ts). Each of those two ways the
 * package learns the token is switched off in turn: either alone must be enough. With both
 * off the package cannot know the bare token, and the control case shows the echo really
 * reaches the error — so the other cases can fail.
 */
import type {
	ICredentialDataDecryptedObject,
	INodeExecutionData,
	NodeApiError,
} from 'n8n-workflow';
import { ConsentFlow } from '../../../../nodes/ConsentFlow/ConsentFlow.node';
import { RealEstateEstimate } from '../../../../nodes/RealEstateEstimate/RealEstateEstimate.node';
import { createExecuteContext, createTokenStore } from '../../../support/execute-context';
import type { ContextOptions, Params } from '../../../support/execute-context';
import { addFault, useSimulator } from '../../../support/simulator';
import type { SimulatorHandle } from '../../../support/simulator';
import { createParams, credentialsFor, deepText, deleteParams } from '../../ConsentFlow/helpers';
import { estimateCredentials } from '../../RealEstateEstimate/helpers';

// opaque tokens: a JWT would be caught by the redactor's JWT pattern whoever fetched it
const sim = useSimulator({ autoLifecycle: false, opaqueTokens: true, beforeEach: 'reset' });

interface NodeCase {
	name: string;
	credentialType: string;
	credentials: (sim: SimulatorHandle) => ICredentialDataDecryptedObject;
	execute: (typeof ConsentFlow.prototype)['execute'];
	parameters: Params;
	pathPrefix: (sim: SimulatorHandle) => string;
}

const NODES: NodeCase[] = [
	{
		name: 'Real Estate Estimate, Get Basis',
		credentialType: 'realEstateEstimateOAuth2Api',
		credentials: (s) => estimateCredentials(s).realEstateEstimateOAuth2Api,
		execute: new RealEstateEstimate().execute,
		parameters: {
			resource: 'estimate',
			operation: 'getBasis',
			identifyBy: 'cadastre',
			knr: '0301',
			gnr: 208,
			bnr: 12,
			options: { retryDelayMs: 1 },
		},
		pathPrefix: (s) => s.estimatePrefix,
	},
	{
		name: 'Consent Flow, Create',
		credentialType: 'consentFlowOAuth2Api',
		credentials: (s) => credentialsFor(s) as ICredentialDataDecryptedObject,
		execute: new ConsentFlow().execute,
		parameters: createParams({ options: { retryDelayMs: 1, concurrency: 1 } }),
		pathPrefix: () => '/consent/',
	},
	{
		name: 'Consent Flow, Delete',
		credentialType: 'consentFlowOAuth2Api',
		credentials: (s) => credentialsFor(s) as ICredentialDataDecryptedObject,
		execute: new ConsentFlow().execute,
		parameters: deleteParams('7f1c2d3e-0000-4000-8000-000000000001', {
			options: { retryDelayMs: 1, concurrency: 1 },
		}),
		pathPrefix: () => '/consent/',
	},
];

/**
 * How the gateway echoes the bare token: JSON fields, nested values, HTML, plain text. Each body
 * carries the word `upstream`; `shown` marks the bodies every node quotes in its error (the
 * Consent Flow node words a 500 without the service's field list, for example).
 */
const ECHOES: Array<{ name: string; body: string; contentType?: string; shown: boolean }> = [
	{
		name: 'JSON, bare and prefixed',
		body: '{"message":"upstream rejected Bearer {{token}}","detail":"upstream {{token}}"}',
		shown: true,
	},
	{ name: 'JSON, nested', body: '{"detail":{"upstream":[{"why":["{{token}}"]}]}}', shown: true },
	{
		name: 'JSON, field list',
		body: '{"errors":{"authorization":["upstream {{token}}"]},"fields":[{"field":"{{token}}","message":"upstream {{token}}"}]}',
		shown: false,
	},
	{
		name: 'HTML',
		// not `token={{token}}`: that form is found by its name (redact.ts), also in the control
		body: '<html><body><h1>Bad gateway</h1><p>upstream rejected {{token}}</p></body></html>',
		contentType: 'text/html',
		shown: true,
	},
	{ name: 'plain text', body: 'upstream said no to {{token}}', shown: true },
];

const MODES: Array<{
	name: string;
	oauth: NonNullable<ContextOptions['oauth']>;
	redacted: boolean;
}> = [
	{ name: 'as n8n does (signs in place, stores the token)', oauth: {}, redacted: true },
	{
		name: 'known only from the request that failed',
		oauth: { storeFetchedToken: false },
		redacted: true,
	},
	{
		name: 'known only from the credential n8n updated',
		oauth: { signInPlace: false },
		redacted: true,
	},
	{
		name: 'control: neither (the package cannot know it)',
		oauth: { signInPlace: false, storeFetchedToken: false },
		redacted: false,
	},
];

async function run(
	node: NodeCase,
	oauth: ContextOptions['oauth'],
	continueOnFail: boolean,
): Promise<{ token: string; error?: NodeApiError; items?: INodeExecutionData[] }> {
	const tokenStore = createTokenStore(); // no token yet: n8n fetches one during the request
	const ctx = createExecuteContext({
		parameters: node.parameters,
		credentials: { [node.credentialType]: node.credentials(sim) },
		continueOnFail,
		tokenStore,
		oauth,
	});
	let error: NodeApiError | undefined;
	let items: INodeExecutionData[] | undefined;
	try {
		[items] = await node.execute.call(ctx);
	} catch (thrown) {
		error = thrown as NodeApiError;
	}
	const token = tokenStore.tokens.get(node.credentialType);
	if (!token) throw new Error('the simulator issued no token');
	expect(tokenStore.fetches).toBe(1);
	return { token, error, items };
}

describe.each(NODES)('$name: a token fetched during the call and echoed by the service', (node) => {
	describe.each(MODES)('$name', ({ oauth, redacted }) => {
		test.each(ECHOES.flatMap((echo) => [400, 500].map((status) => ({ ...echo, status }))))(
			'$status, $name: the thrown error and the Continue On Fail item',
			async ({ status, body, contentType, shown }) => {
				// 500 is retried: every attempt echoes
				await addFault(sim, {
					status,
					body,
					contentType,
					count: 10,
					match: { pathPrefix: node.pathPrefix(sim) },
				});
				const thrown = await run(node, oauth, false);
				expect(thrown.error).toBeDefined();
				expect(thrown.error!.httpCode).toBe(String(status));
				const errorText = [
					thrown.error!.message,
					thrown.error!.description,
					JSON.stringify(thrown.error!.errorResponse),
					deepText(thrown.error),
				].join('\n');

				await addFault(sim, {
					status,
					body,
					contentType,
					count: 10,
					match: { pathPrefix: node.pathPrefix(sim) },
				});
				const kept = await run(node, oauth, true);
				expect(kept.items).toHaveLength(1);
				expect(kept.items![0].pairedItem).toEqual({ item: 0 });
				const itemText = JSON.stringify(kept.items);

				// the service's words reach the error (so a leak would show)
				if (shown) expect(errorText).toContain('upstream');
				const quoted = errorText.includes('upstream');
				if (redacted) {
					expect(errorText).not.toContain(thrown.token);
					expect(itemText).not.toContain(kept.token);
					// the service's words are kept, the token blanked
					if (quoted) expect(errorText).toContain('***');
				} else if (quoted) {
					expect(errorText).toContain(thrown.token);
					expect(itemText).toContain(kept.token);
				}
			},
		);
	});
});

test('the echo of a refreshed token: n8n refreshes once on 401 and the second token is echoed', async () => {
	const node = NODES[0];
	// first answer 401 (n8n fetches a new token and sends again), then a 500 echoing the new one
	await addFault(sim, { status: 401, count: 1, match: { pathPrefix: node.pathPrefix(sim) } });
	await addFault(sim, {
		status: 500,
		body: '{"detail":"{{token}}"}',
		count: 10,
		match: { pathPrefix: node.pathPrefix(sim) },
	});
	const tokenStore = createTokenStore();
	tokenStore.tokens.set(node.credentialType, 'stale-token-from-before-0001');
	const ctx = createExecuteContext({
		parameters: node.parameters,
		credentials: { [node.credentialType]: node.credentials(sim) },
		tokenStore,
		oauth: { storeFetchedToken: false },
	});
	const error = await node.execute.call(ctx).then(
		() => undefined,
		(e: unknown) => e as NodeApiError,
	);
	const fresh = tokenStore.tokens.get(node.credentialType)!;
	expect(fresh).not.toBe('stale-token-from-before-0001');
	expect(error?.httpCode).toBe('500');
	expect(deepText(error)).not.toContain(fresh);
	expect(JSON.stringify(error!.errorResponse)).toContain('***');
});
