// n8n internals, each hook with why no public API does: docs/architecture.md#n8n-internals-for-reviewers
import * as hostWorkflow from 'n8n-workflow';
import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';
import { findInCauses, isObject, plainHeaders } from './json';

// 1. n8n-workflow 2.41's public webhook-description resolvers (WEBHOOK_RESOLVERS, by Symbol.for),
// feature-detected: n8n resolves a field with the host's resolveWebhookDescriptionField where it
// has one (no parameter dynamic), else evaluates the template (the fallback); the trigger asks the same.

const RESOLVERS = Symbol.for('n8n.webhookDescriptionResolvers');

interface DescriptionField {
	template: string;
	resolve: (parameters: Record<string, unknown>) => unknown;
}

export function withNativeResolvers<K extends string>(
	fields: Record<K, DescriptionField>,
): Record<K, string> {
	const described = {} as Record<K, string>;
	for (const name of Object.keys(fields) as K[]) described[name] = fields[name].template;
	Object.defineProperty(described, RESOLVERS, { value: fields, enumerable: true });
	return described;
}

type Resolve = (
	node: { parameters: Record<string, unknown> },
	description: object,
	field: string,
) => { resolved: boolean; value?: unknown };

export function nativelyResolved(
	parameters: Record<string, unknown>,
	description: object,
	field: string,
	workflow: Record<string, unknown> = hostWorkflow as unknown as Record<string, unknown>,
): unknown {
	const resolve = workflow.resolveWebhookDescriptionField as Resolve | undefined;
	if (typeof resolve !== 'function') return undefined;
	const native = resolve({ parameters }, description, field);
	return native.resolved ? native.value : undefined;
}

// 2. No API tells a node its execution is stored: n8n 2.x (onReceived) reads webhookResponse then,
// once, so a getter answers. Only where (1) resolved natively; fallback: execute() answers.

export function answerWhenStored(
	result: IWebhookResponseData,
	answer: () => unknown,
): IWebhookResponseData {
	let pending: (() => unknown) | undefined = answer;
	let value: unknown;
	Object.defineProperty(result, 'webhookResponse', {
		enumerable: true,
		configurable: true,
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

/** Tells `listener` once, before the answer is taken, that n8n read what answerWhenStored gave. */
export function whenStored(
	result: IWebhookResponseData,
	listener: () => void,
): IWebhookResponseData {
	const read = Object.getOwnPropertyDescriptor(result, 'webhookResponse')?.get;
	if (read === undefined) return result;
	return answerWhenStored(result, () => {
		listener();
		return read();
	});
}

// 3. getWorkflowStaticData is saved when its root is changed: a top-level assignment (toJSON on
// save). Fallback: ids remembered in the process only; a copy after a restart runs again.

export function saveInStaticData(staticData: IDataObject, key: string, value: unknown): void {
	staticData[key] = value as IDataObject;
}

// 4. No public way. n8n resumes a waiting node disabled: it passes on webhook()'s workflowData,
// enough for its Wait and send-and-wait nodes. Here the answer needs the wait state (flow id,
// events seen) in the node context: only execute() can read it (getContext) and wait again
// (putExecutionToWait). So for a delivery that runs the mark is cleared and execute() routes it.
// n8n 1.x to 2.41.1. Detected first (canRunWaitingNodeAgain); fallback: 500 `unsupported`, the
// execution keeps waiting.

interface WaitingStack {
	runExecutionData?: {
		executionData?: {
			nodeExecutionStack?: Array<{ node?: { name?: string; disabled?: boolean } }>;
		};
	};
}

export function runWaitingNodeAgain(ctx: IWebhookFunctions): void {
	const entry = waitingEntry(ctx);
	if (entry) delete entry.disabled;
}

export function canRunWaitingNodeAgain(ctx: IWebhookFunctions): boolean {
	return waitingEntry(ctx) !== undefined;
}

function waitingEntry(ctx: IWebhookFunctions): { name?: string; disabled?: boolean } | undefined {
	const entry = (ctx as unknown as WaitingStack).runExecutionData?.executionData
		?.nodeExecutionStack?.[0];
	return entry?.node && entry.node.name === ctx.getNode().name ? entry.node : undefined;
}

// 4b. A timed-out wait resumes disabled too: n8n forwards the saved input (every output with the
// public task metadata forwardAllOutputs, 2.39+), which no API sets, so it becomes Wait Timed Out.
// n8n's version is not public: checkNodesApiVersion came with 2.39 (the host's n8n-workflow).
// Fallback: Limit Wait Time is refused before any flow is created.
export function resumesWithAllOutputs(
	workflow: Record<string, unknown> = hostWorkflow as unknown as Record<string, unknown>,
): boolean {
	return typeof workflow.checkNodesApiVersion === 'function';
}

export function keepAsWaitingInput(
	ctx: IExecuteFunctions,
	main: INodeExecutionData[][],
	forwardAll: boolean,
): void {
	if (forwardAll) ctx.setMetadata({ forwardAllOutputs: true });
	ctx.getExecuteData().data = { ...ctx.getExecuteData().data, main };
}

// 5. getBodyData() is parsed, not the signed bytes: n8n's rawBody (readRawBody()), as its Webhook
// node reads them. No API says n8n is stopping (it closes its server on SIGTERM). Fallbacks: no
// body → 401; not seen → taken.
export async function requestRawBody(req: unknown): Promise<Buffer | undefined> {
	const request = req as { rawBody?: unknown; readRawBody?: () => Promise<void> } | undefined;
	if (request?.rawBody === undefined && typeof request?.readRawBody === 'function') {
		try {
			await request.readRawBody();
		} catch {
			return undefined;
		}
	}
	const raw = request?.rawBody;
	if (Buffer.isBuffer(raw)) return raw;
	if (typeof raw === 'string') return Buffer.from(raw, 'utf8');
	return undefined;
}

export function serverClosing(req: unknown): boolean {
	const socket = (req as { socket?: { server?: { listening?: unknown } } } | null)?.socket;
	return socket?.server?.listening === false;
}

// 7. No API gives n8n's answer: 'finish' misses hung-up senders, 'close' comes first; n8n calls
// res.end always. Fallback (no res.end): the memory's bound settles. A promise holds the answer.
// 8. No API saves static data: the trigger calls its own URL (save-request.ts), answered after
// n8n saved. Fallback: unanswered in SAVE_TIMEOUT_MS, the key is saved with the next delivery.
export function whenAnswered(
	res: unknown,
	listener: (status: number) => Promise<unknown> | void,
): boolean {
	const response = res as { end?: unknown; statusCode?: unknown; writableEnded?: unknown } | null;
	if (typeof response?.end !== 'function') return false;
	const status = () => (typeof response.statusCode === 'number' ? response.statusCode : 0);
	if (response.writableEnded === true) {
		void listener(status());
		return true;
	}
	const end = response.end as (...args: unknown[]) => unknown;
	let told = false;
	response.end = function (this: unknown, ...args: unknown[]) {
		if (told) return end.apply(this, args);
		told = true;
		let held: Promise<unknown> | void = undefined;
		try {
			held = listener(status());
		} catch {
			// the answer goes out whatever the delivery memory did
		}
		if (held === undefined) return end.apply(this, args);
		const finish = () => end.apply(this, args);
		held.then(finish, finish);
		return this;
	};
	return true;
}

// 6. httpRequestWithAuthentication gives a token refusal as an RFC 6749 §5.2 text only; n8n's
// OAuth2 client signs options in place, saves tokens. Fallback: redactor patterns, generic text.
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

export function tokenFailureReason(message: string): string {
	return message.replace(TOKEN_PREFIX, '').trim();
}

export function oauthErrorFromText(messages: unknown[]): string | undefined {
	for (const message of messages) {
		if (typeof message !== 'string') continue;
		const text = tokenFailureReason(message);
		for (const [pattern, code] of OAUTH_ERROR_TEXTS) if (pattern.test(text)) return code;
	}
	return undefined;
}

export function mentionsTokenFailure(messages: unknown[]): boolean {
	return TOKEN_WORDS.test(messages.filter((m) => typeof m === 'string').join(' '));
}

const CREDENTIAL_HEADERS = new Set(['authorization', 'proxy-authorization']);

function credentialValues(headers: unknown): string[] {
	const out: string[] = [];
	for (const [name, value] of Object.entries(plainHeaders(headers))) {
		if (!CREDENTIAL_HEADERS.has(name.toLowerCase()) || typeof value !== 'string') continue;
		out.push(value);
		const bare = /^\s*\S+\s+(\S+)\s*$/.exec(value);
		if (bare) out.push(bare[1]);
	}
	return out;
}

export function credentialsCarriedBy(request: { headers?: unknown }, error?: unknown): string[] {
	const sent = findInCauses(error, ({ config }) =>
		isObject(config) && config.headers ? config.headers : undefined,
	);
	return [...credentialValues(request.headers), ...credentialValues(sent)];
}
