/**
 * The one module that relies on n8n's internals: behaviour of n8n that community nodes cannot
 * read in n8n-workflow's interfaces, but that the package needs to answer webhooks exactly once
 * and to keep secrets out of error texts. Nothing else in the package touches them.
 *
 * Each hook is feature-detected where it is used. Where a hook is missing, its fallback may run
 * a delivery twice (the service's retry finds no remembered id) but never answers a delivery and
 * loses it: every fallback either answers later (after the execution exists) or answers with a
 * status the service retries.
 *
 * Checked on n8n 1.123.81 and 2.41.1 (every `npm test`) and on the releases listed in
 * docs/compatibility.md (`npm run test:compat`). When n8n changes one of these, this file and
 * its tests (test/nodes/shared/n8n-compat.test.ts) are the place to look.
 */
import * as hostWorkflow from 'n8n-workflow';
import type { IDataObject, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';

// ---- 1. Webhook descriptions n8n resolves without its expression engine ------------------------
//
// n8n-workflow 2.x (`resolveWebhookDescriptionField`) reads a webhook description field through a
// native resolver found under this symbol, when the node's parameters hold no expression; n8n
// 1.x ignores the symbol and evaluates the field's template with its expression engine.
// Fallback when the symbol is not honoured: the templates are used, which answer after the
// execution has started (see the trigger's respond.ts).

const RESOLVERS = Symbol.for('n8n.webhookDescriptionResolvers');

/** A webhook description field: the expression n8n 1.x evaluates and what n8n 2.x calls instead. */
export interface DescriptionField {
	template: string;
	resolve: (parameters: Record<string, unknown>) => unknown;
}

/**
 * Set once n8n resolved one of these fields natively in this process. One n8n process runs one
 * n8n version, so it never has to be unset (tests reset it).
 */
let nativeResolution = false;

/** For tests: forget that n8n resolved a description natively in this process. */
export function resetNativeResolution(): void {
	nativeResolution = false;
}

/**
 * The description fields as n8n reads them: the templates as the fields' values, and the
 * resolvers under n8n 2.x's symbol. A resolver call records that this n8n resolves natively.
 */
export function withNativeResolvers<K extends string>(
	fields: Record<K, DescriptionField>,
): Record<K, string> {
	const described = {} as Record<K, string>;
	const resolvers = {} as Record<K, DescriptionField>;
	for (const name of Object.keys(fields) as K[]) {
		described[name] = fields[name].template;
		resolvers[name] = {
			template: fields[name].template,
			resolve: (parameters) => {
				nativeResolution = true;
				return fields[name].resolve(parameters);
			},
		};
	}
	Object.defineProperty(described, RESOLVERS, { value: resolvers, enumerable: true });
	return described;
}

/**
 * Whether a parameter value holds an expression or a resource locator: n8n-workflow 2.x's
 * `containsDynamicValue` (behind `nodeParametersAreStatic`), copied because the n8n-workflow a
 * community node resolves is not guaranteed to be the host's, and n8n 1.x has no such export.
 * A resource locator is any object with `mode`, `value` and `__rl` keys (`isResourceLocatorValue`).
 * test/nodes/ConsentFlowTrigger/answers-at-enqueue.property.test.ts holds it to n8n's own.
 */
function isDynamic(value: unknown): boolean {
	if (typeof value === 'string') return value.startsWith('=');
	if (Array.isArray(value)) return value.some(isDynamic);
	if (value !== null && typeof value === 'object') {
		if ('mode' in value && 'value' in value && '__rl' in value) return true;
		return Object.keys(value).some((key) => isDynamic((value as Record<string, unknown>)[key]));
	}
	return false;
}

/**
 * Whether n8n resolves this node's description fields natively (and so takes the resolvers'
 * answers): it did so in this process, and does it for these parameters (none dynamic).
 */
export function resolvesNatively(parameters: Record<string, unknown>): boolean {
	return nativeResolution && !isDynamic(parameters);
}

// ---- 2. Answering once n8n has stored the execution ---------------------------------------------
//
// n8n 2.x, in response mode `onReceived`, reads `webhookResponse` of webhook()'s result after
// `WorkflowRunner.run` has stored the execution (in queue mode: enqueued it), then saves the
// workflow's static data and answers. A getter there runs at that moment, once. It is used only
// where (1) showed that n8n resolves natively (n8n 2.x). Fallback elsewhere: the answer comes from
// the node's execute() (`sendResponse`), after the execution exists.

/**
 * A webhook() result whose answer is `answer()`, called when n8n reads it after storing the
 * execution (and only then; the result is read once).
 */
export function answerWhenStored(
	result: IWebhookResponseData,
	answer: () => unknown,
): IWebhookResponseData {
	let pending: (() => unknown) | undefined = answer;
	let value: unknown;
	Object.defineProperty(result, 'webhookResponse', {
		enumerable: true,
		get: () => {
			if (pending) {
				value = pending();
				pending = undefined;
			}
			return value;
		},
	});
	return result;
}

// ---- 3. Static data n8n saves -----------------------------------------------------------------
//
// n8n wraps a node's workflow static data in an ObservableObject whose change flag
// (`__dataChanged`) lives on the root object only: a child object or array added during the
// request is a plain object, so changing it later does not set the flag, while an assignment to a
// key of the node's own static data always does (even of the same object). n8n saves static data
// whose flag is set (webhooks: before the execution is created, or after `webhookResponse` was
// read in (2)). Fallback if a release stopped saving it: ids are still remembered in the process,
// and a copy arriving after a restart runs again (a duplicate, not a loss).

/** Stores `value` under `key` of a node's static data so that n8n saves it. */
export function saveInStaticData(staticData: IDataObject, key: string, value: unknown): void {
	staticData[key] = value as IDataObject;
}

// ---- 4. Resuming a waiting node ---------------------------------------------------------------
//
// When a delivery reaches the resume URL of a waiting execution, n8n marks the waiting node
// `disabled` in `runExecutionData.executionData.nodeExecutionStack[0]` before it calls webhook(),
// so that the node would only pass the webhook's data through (n8n 1.x: to its first output).
// Clearing the mark lets execute() run again and put the delivery on its outcome's output.
// Fallback when the stack is not as expected: the caller answers 500 and the service retries
// (the execution keeps waiting).

interface WaitingStack {
	runExecutionData?: {
		executionData?: {
			nodeExecutionStack?: Array<{ node?: { name?: string; disabled?: boolean } }>;
		};
	};
}

/** Makes n8n run this waiting node's execute() on resume; false when n8n's stack is not as known. */
export function runWaitingNodeAgain(ctx: IWebhookFunctions): boolean {
	const entry = waitingEntry(ctx);
	if (entry === undefined) return false;
	delete entry.disabled;
	return true;
}

/** Whether runWaitingNodeAgain would succeed (decided before anything is changed). */
export function canRunWaitingNodeAgain(ctx: IWebhookFunctions): boolean {
	return waitingEntry(ctx) !== undefined;
}

function waitingEntry(ctx: IWebhookFunctions): { name?: string; disabled?: boolean } | undefined {
	const entry = (ctx as unknown as WaitingStack).runExecutionData?.executionData
		?.nodeExecutionStack?.[0];
	return entry?.node && entry.node.name === ctx.getNode().name ? entry.node : undefined;
}

/**
 * Whether n8n forwards every output of a waiting node its wait tracker resumes (the task
 * metadata `forwardAllOutputs`, n8n 2.39 and newer). Older n8n forwards only the first output,
 * where Create and Wait's Wait Timed Out item is not, so it would be lost. The flag itself cannot
 * be seen from a node; n8n-workflow 2.39, the release that brought it, also brought the export
 * `checkNodesApiVersion`, and a community node's `n8n-workflow` is the host's own at run time.
 * Fallback when absent: the option is refused before any flow is created.
 */
export function resumesWithAllOutputs(
	workflow: Record<string, unknown> = hostWorkflow as unknown as Record<string, unknown>,
): boolean {
	return typeof workflow.checkNodesApiVersion === 'function';
}

// ---- 5. The request n8n hands to webhook() ------------------------------------------------------
//
// n8n's express request keeps the exact bytes of the body as `rawBody` (read on demand through
// `readRawBody()` where n8n did not read it yet). Fallback: no raw body → nothing can be
// verified → 401, which the service retries.

/** The exact bytes of the request body, or undefined when they cannot be had. */
export async function requestRawBody(req: unknown): Promise<Buffer | undefined> {
	const request = req as
		| { rawBody?: unknown; readRawBody?: () => Promise<void> }
		| null
		| undefined;
	if (!request) return undefined;
	if (request.rawBody === undefined && typeof request.readRawBody === 'function') {
		try {
			await request.readRawBody();
		} catch {
			return undefined;
		}
	}
	const raw = request.rawBody;
	if (Buffer.isBuffer(raw)) return raw;
	if (typeof raw === 'string') return Buffer.from(raw, 'utf8');
	return undefined;
}

/**
 * Whether the HTTP server that accepted this request has stopped listening: n8n closes it first
 * when the process is told to stop (SIGTERM), while requests on connections already open (HTTP
 * keep-alive) still arrive. Node sets `socket.server` on every connection a `net.Server`
 * accepted, and `server.listening` is false once `close()` was called. Fallback when it cannot be
 * seen: false (the delivery is taken; one cut off by the stop is retried by the service).
 */
export function serverClosing(req: unknown): boolean {
	const socket = (req as { socket?: { server?: unknown } } | null | undefined)?.socket;
	const server = socket?.server as { listening?: unknown } | null | undefined;
	return typeof server === 'object' && server !== null && server.listening === false;
}

// ---- 6. n8n's OAuth2 client -------------------------------------------------------------------
//
// n8n's OAuth2 helper (n8n-core, @n8n/client-oauth2) signs a request by writing `Authorization`
// into the options object it was given, saves a token it fetched or refreshed into the credential
// (so `getCredentials` afterwards returns it as `oauthTokenData`), and reports a token endpoint's
// refusal as "Failed to acquire OAuth2 access token: <RFC 6749 text>". n8n 1.x wraps that error
// in a NodeApiError whose `cause` is reset after construction, so only the text is left.
// Fallbacks: a token not learned from either place is still caught by the redactor's patterns
// when it is prefixed (`Bearer …`) or a JWT; a text that is not recognised gets the generic
// wording of a token failure.

/** The RFC 6749 §5.2 error descriptions @n8n/client-oauth2 uses in place of the error code. */
const OAUTH_ERROR_TEXTS: Array<[RegExp, string]> = [
	[/^Client authentication failed \(e\.g\., unknown client/, 'invalid_client'],
	[/^The requested scope is invalid, unknown, or malformed/, 'invalid_scope'],
	[/^The provided authorization grant \(e\.g\., authorization code/, 'invalid_grant'],
	[
		/^The client is not authorized to request an authorization code using this method/,
		'unauthorized_client',
	],
	[
		/^The authorization grant type is not supported by the authorization server/,
		'unsupported_grant_type',
	],
	[
		/^The request is missing a required parameter, includes an invalid parameter value/,
		'invalid_request',
	],
];

const TOKEN_PREFIX = /^.*failed to acquire oauth2 access token:\s*/i;
const TOKEN_WORDS = /access token|oauth2|invalid_client|invalid_scope|token endpoint/i;

/** The text of a token failure without n8n's "failed to acquire oauth2 access token:" prefix. */
export function tokenFailureReason(message: string): string {
	return message.replace(TOKEN_PREFIX, '').trim();
}

/** The OAuth2 error code n8n's client put into one of these texts as words, if any. */
export function oauthErrorFromText(messages: unknown[]): string | undefined {
	for (const message of messages) {
		if (typeof message !== 'string') continue;
		const text = tokenFailureReason(message);
		for (const [pattern, code] of OAUTH_ERROR_TEXTS) if (pattern.test(text)) return code;
	}
	return undefined;
}

/** Whether these texts speak of getting a token (n8n's wording of a token failure). */
export function mentionsTokenFailure(messages: unknown[]): boolean {
	return TOKEN_WORDS.test(messages.filter((m) => typeof m === 'string').join(' '));
}

/** Header names whose values are credentials. */
const CREDENTIAL_HEADERS = new Set(['authorization', 'proxy-authorization']);

function credentialValues(headers: unknown): string[] {
	if (headers === null || typeof headers !== 'object') return [];
	const record = headers as Record<string, unknown>;
	// axios keeps headers as an AxiosHeaders object with toJSON()
	const plain = typeof record.toJSON === 'function' ? (record.toJSON as () => unknown)() : record;
	if (plain === null || typeof plain !== 'object') return [];
	const out: string[] = [];
	for (const [name, value] of Object.entries(plain as Record<string, unknown>)) {
		if (!CREDENTIAL_HEADERS.has(name.toLowerCase()) || typeof value !== 'string') continue;
		out.push(value);
		const bare = /^\s*\S+\s+(\S+)\s*$/.exec(value);
		if (bare) out.push(bare[1]);
	}
	return out;
}

/** The request headers an error carries (axios keeps them in `config.headers`), anywhere in its causes. */
function requestHeadersOf(error: unknown, depth = 0): unknown {
	if (error === null || typeof error !== 'object' || depth > 4) return undefined;
	const record = error as Record<string, unknown>;
	const config = record.config as Record<string, unknown> | undefined;
	if (config !== null && typeof config === 'object' && config.headers) return config.headers;
	return requestHeadersOf(record.cause, depth + 1);
}

/**
 * The credential values (`Bearer <token>` and the bare token) a request carried, read after n8n
 * sent it: from the options n8n signed in place, and from the failed request n8n's HTTP client
 * kept in the error.
 */
export function credentialsCarriedBy(request: { headers?: unknown }, error?: unknown): string[] {
	return [...credentialValues(request.headers), ...credentialValues(requestHeadersOf(error))];
}
