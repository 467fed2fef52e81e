// The one module that relies on n8n's internals; why each hook, and its fallback: docs/architecture.md#n8n-compat
import * as hostWorkflow from 'n8n-workflow';
import type { IDataObject, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';

// 1. n8n 2.x resolves description fields through resolvers under this symbol when no parameter
// holds an expression; n8n 1.x evaluates the template. Fallback: the template (execute() answers).

const RESOLVERS = Symbol.for('n8n.webhookDescriptionResolvers');

interface DescriptionField {
	template: string;
	resolve: (parameters: Record<string, unknown>) => unknown;
}

// One n8n process runs one n8n version: set once, never unset (tests reset it).
let nativeResolution = false;

export function resetNativeResolution(): void {
	nativeResolution = false;
}

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

// n8n-workflow 2.x's containsDynamicValue, copied: the host's n8n-workflow may differ, 1.x has none.
function isDynamic(value: unknown): boolean {
	if (typeof value === 'string') return value.startsWith('=');
	if (Array.isArray(value)) return value.some(isDynamic);
	if (value !== null && typeof value === 'object') {
		if ('mode' in value && 'value' in value && '__rl' in value) return true;
		return Object.keys(value).some((key) => isDynamic((value as Record<string, unknown>)[key]));
	}
	return false;
}

export function resolvesNatively(parameters: Record<string, unknown>): boolean {
	return nativeResolution && !isDynamic(parameters);
}

// 2. n8n 2.x (onReceived) reads webhookResponse once, after storing the execution: a getter answers
// then. Used only where (1) showed native resolution; fallback: execute() answers (sendResponse).

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

// 3. n8n saves static data when its root change flag is set, which only a top-level assignment does,
// and serialises it with toJSON (JSON.stringify, deepCopy). Fallback: ids stay remembered in the
// process; a copy arriving after a restart runs again.

export function saveInStaticData(staticData: IDataObject, key: string, value: unknown): void {
	staticData[key] = value as IDataObject;
}

// 4. n8n disables a waiting node before its webhook(): cleared, execute() routes it (else 500, retried).

interface WaitingStack {
	runExecutionData?: {
		executionData?: {
			nodeExecutionStack?: Array<{ node?: { name?: string; disabled?: boolean } }>;
		};
	};
}

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

// n8n >= 2.39 forwards every output on resume (seen via checkNodesApiVersion); else Limit Wait Time is refused.
export function resumesWithAllOutputs(
	workflow: Record<string, unknown> = hostWorkflow as unknown as Record<string, unknown>,
): boolean {
	return typeof workflow.checkNodesApiVersion === 'function';
}

// 5. n8n keeps the exact body as rawBody (readRawBody() on demand); it closes its server on SIGTERM
// while keep-alive requests still arrive. Fallbacks: no body → 401; not seen → taken. Both retried.
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

export function serverClosing(req: unknown): boolean {
	const socket = (req as { socket?: { server?: unknown } } | null | undefined)?.socket;
	const server = socket?.server as { listening?: unknown } | null | undefined;
	return typeof server === 'object' && server !== null && server.listening === false;
}

// 7. n8n ends a webhook's response (res.end, through express's send/json) once it knows the answer,
// also when the sender already hung up: the status is the run's fate, not the connection's.
// Fallback: where n8n never ends it, the delivery memory's bound (dedupe.ts) settles the run.
export function whenAnswered(res: unknown, listener: (status: number) => void): boolean {
	const response = res as { end?: unknown; statusCode?: unknown; writableEnded?: unknown } | null;
	if (response === null || typeof response !== 'object' || typeof response.end !== 'function') {
		return false;
	}
	const status = () => (typeof response.statusCode === 'number' ? response.statusCode : 0);
	if (response.writableEnded === true) {
		listener(status());
		return true;
	}
	const end = response.end as (...args: unknown[]) => unknown;
	let told = false;
	response.end = function (this: unknown, ...args: unknown[]) {
		if (!told) {
			told = true;
			try {
				listener(status());
			} catch {
				// the answer goes out whatever the delivery memory did
			}
		}
		return end.apply(this, args);
	};
	return true;
}

// 6. n8n's OAuth2 client writes Authorization into the options it got, saves fetched tokens into the
// credential, and reports refusals with RFC 6749 §5.2 texts. Fallback: redactor patterns, generic text.
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

function requestHeadersOf(error: unknown, depth = 0): unknown {
	if (error === null || typeof error !== 'object' || depth > 4) return undefined;
	const record = error as Record<string, unknown>;
	const config = record.config as Record<string, unknown> | undefined;
	if (config !== null && typeof config === 'object' && config.headers) return config.headers;
	return requestHeadersOf(record.cause, depth + 1);
}

export function credentialsCarriedBy(request: { headers?: unknown }, error?: unknown): string[] {
	return [...credentialValues(request.headers), ...credentialValues(requestHeadersOf(error))];
}
