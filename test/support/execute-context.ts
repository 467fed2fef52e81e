/**
 * A test stand-in for n8n's IExecuteFunctions whose request helper is REAL: it talks HTTP to the
 * simulator with undici, fetches OAuth2 client-credentials tokens the way n8n does (Basic header or
 * body, cached per credential, one refresh on 401) and throws what n8n throws (a NodeApiError
 * wrapping an axios-shaped error). The real-n8n suite (test/e2e) covers n8n's own helpers.
 * The Consent Flow credential fetches its own token in n8n (preAuthentication); here both
 * credentials get theirs as n8n's OAuth2 client would (the credential's own path:
 * test/credentials, test/nodes/ConsentFlow/own-token-failure.test.ts and the e2e suite).
 */
import { request } from 'undici';
import { NodeApiError } from 'n8n-workflow';
import type {
	IBinaryData,
	ICredentialDataDecryptedObject,
	IDataObject,
	IExecuteFunctions,
	IHttpRequestOptions,
	INode,
	INodeExecutionData,
} from 'n8n-workflow';

export type Params = Record<string, unknown>;

export interface ContextOptions {
	/** Node parameters: one object for all items, or one per item (expressions already resolved). */
	parameters: Params | Params[];
	/** Credential data by credential type, as n8n hands it to the node (hidden expressions resolved). */
	credentials: Record<string, ICredentialDataDecryptedObject>;
	/** Input items; default one empty item. */
	items?: INodeExecutionData[];
	continueOnFail?: boolean;
	nodeType?: string;
	nodeName?: string;
	/** Shared token cache: pass the same object to several contexts to mimic n8n's stored token. */
	tokenStore?: TokenStore;
	/** The execution's cancel signal (n8n aborts it when the execution is stopped). */
	signal?: AbortSignal;
	/** The node's own settings as n8n stores them on the node (e.g. retryOnFail, maxTries). */
	nodeSettings?: Partial<INode>;
	/**
	 * Two things n8n's OAuth2 client does that a node can see, each switchable so a test can take
	 * one away: it signs the request by writing `Authorization` into the options object the node
	 * passed (`signInPlace`), and it saves a token it fetched into the credential, so a later
	 * `getCredentials` returns it as `oauthTokenData` (`storeFetchedToken`). Both default to on.
	 */
	oauth?: { signInPlace?: boolean; storeFetchedToken?: boolean };
}

export interface TokenStore {
	tokens: Map<string, string>;
	/** Token requests made through this store (a failed one counts too). */
	fetches: number;
}

export function createTokenStore(): TokenStore {
	return { tokens: new Map(), fetches: 0 };
}

export interface TestContext extends IExecuteFunctions {
	/** Every request the helper made (method + url + status), token requests included. */
	sent: Array<{ method: string; url: string; status?: number; token?: boolean }>;
	logs: Array<{ level: string; message: string; meta?: unknown }>;
}

function get(object: unknown, path: string): unknown {
	return path.split('.').reduce<unknown>((value, key) => {
		if (value === null || value === undefined || typeof value !== 'object') return undefined;
		return (value as Record<string, unknown>)[key];
	}, object);
}

function axiosLikeError(message: string, extra: Record<string, unknown>): Error {
	const error = new Error(message);
	Object.assign(error, { isAxiosError: true }, extra);
	return error;
}

function buildUrl(options: IHttpRequestOptions): string {
	const url = options.baseURL
		? `${options.baseURL.replace(/\/+$/, '')}/${options.url.replace(/^\/+/, '')}`
		: options.url;
	const qs = options.qs as IDataObject | undefined;
	if (!qs || Object.keys(qs).length === 0) return url;
	const target = new URL(url);
	for (const [key, value] of Object.entries(qs)) {
		if (value !== undefined && value !== null) target.searchParams.set(key, String(value));
	}
	return target.toString();
}

export function createExecuteContext(options: ContextOptions): TestContext {
	const items = options.items ?? [{ json: {} }];
	const tokenStore = options.tokenStore ?? createTokenStore();
	const sent: TestContext['sent'] = [];
	const logs: TestContext['logs'] = [];
	const node: INode = {
		id: 'test-node-id',
		name: options.nodeName ?? 'Test Node',
		type: options.nodeType ?? 'n8n-nodes-sbl.test',
		typeVersion: 1,
		position: [0, 0],
		parameters: {},
		credentials: Object.fromEntries(
			Object.keys(options.credentials).map((type) => [
				type,
				{ id: `cred-${type}`, name: `Test ${type}` },
			]),
		),
		...options.nodeSettings,
	};

	const paramsFor = (itemIndex: number): Params =>
		Array.isArray(options.parameters) ? (options.parameters[itemIndex] ?? {}) : options.parameters;

	async function fetchToken(
		type: string,
		credentials: ICredentialDataDecryptedObject,
	): Promise<string> {
		tokenStore.fetches++;
		const form = new URLSearchParams({ grant_type: 'client_credentials' });
		if (credentials.scope) form.set('scope', String(credentials.scope));
		const headers: Record<string, string> = {
			'content-type': 'application/x-www-form-urlencoded',
			accept: 'application/json',
		};
		if (credentials.authentication === 'body') {
			form.set('client_id', String(credentials.clientId));
			form.set('client_secret', String(credentials.clientSecret));
		} else {
			headers.authorization = `Basic ${Buffer.from(`${credentials.clientId}:${credentials.clientSecret}`).toString('base64')}`;
		}
		const url = String(credentials.accessTokenUrl);
		let response;
		try {
			response = await request(url, { method: 'POST', headers, body: form.toString() });
		} catch (error) {
			// n8n wraps every token failure, network errors included, the same way
			sent.push({ method: 'POST', url, token: true });
			const raw = error as { message?: string; code?: string };
			const code = raw.code === 'UND_ERR_SOCKET' || !raw.code ? 'ECONNRESET' : raw.code;
			const networkError = Object.assign(new Error(String(raw.message)), { code, cause: error });
			throw Object.assign(new Error(`Failed to acquire OAuth2 access token: ${raw.message}`), {
				cause: networkError,
			});
		}
		const text = await response.body.text();
		sent.push({ method: 'POST', url, status: response.statusCode, token: true });
		let body: IDataObject = {};
		try {
			body = JSON.parse(text) as IDataObject;
		} catch {
			// not JSON
		}
		if (response.statusCode >= 400 || typeof body.access_token !== 'string') {
			// what n8n throws: "Failed to acquire OAuth2 access token: <description>" with the body in the cause
			const description = String(
				body.error_description ?? body.error ?? `HTTP status ${response.statusCode}`,
			);
			const authError = Object.assign(new Error(description), { body, code: 'EAUTH' });
			throw Object.assign(new Error(`Failed to acquire OAuth2 access token: ${description}`), {
				cause: authError,
			});
		}
		tokenStore.tokens.set(type, body.access_token);
		return body.access_token;
	}

	async function send(
		requestOptions: IHttpRequestOptions,
		token: string | undefined,
	): Promise<{
		status: number;
		headers: Record<string, string>;
		data: unknown;
		statusMessage: string;
	}> {
		const url = buildUrl(requestOptions);
		const method = (requestOptions.method ?? 'GET').toUpperCase();
		const headers: Record<string, string> = {};
		for (const [key, value] of Object.entries(requestOptions.headers ?? {}))
			headers[key.toLowerCase()] = String(value);
		if (token) headers.authorization = `Bearer ${token}`;
		let body: string | Buffer | undefined;
		if (requestOptions.body !== undefined && method !== 'GET') {
			if (typeof requestOptions.body === 'string' || Buffer.isBuffer(requestOptions.body)) {
				body = requestOptions.body as string | Buffer;
			} else {
				body = JSON.stringify(requestOptions.body);
				headers['content-type'] ??= 'application/json';
			}
		}
		if (requestOptions.json) headers.accept ??= 'application/json';
		let response;
		try {
			response = await request(url, {
				method: method as 'GET',
				headers,
				body,
				headersTimeout: requestOptions.timeout ?? 60_000,
				bodyTimeout: requestOptions.timeout ?? 60_000,
				signal: requestOptions.abortSignal as AbortSignal | undefined,
			});
		} catch (error) {
			sent.push({ method, url });
			const code = (error as { code?: string }).code ?? 'ECONNRESET';
			const mapped = code === 'UND_ERR_SOCKET' ? 'ECONNRESET' : code;
			throw axiosLikeError((error as Error).message, { code: mapped, cause: error });
		}
		sent.push({ method, url, status: response.statusCode });
		const responseHeaders: Record<string, string> = {};
		for (const [key, value] of Object.entries(response.headers)) {
			if (value !== undefined)
				responseHeaders[key] = Array.isArray(value) ? value.join(', ') : String(value);
		}
		let data: unknown;
		if (response.statusCode < 400 && requestOptions.encoding === 'stream') {
			data = response.body; // undici's body is a Node Readable, as n8n's stream encoding gives
		} else {
			const buffer = Buffer.from(await response.body.arrayBuffer());
			if (response.statusCode < 400 && requestOptions.encoding === 'arraybuffer') {
				data = buffer;
			} else {
				const text = buffer.toString('utf8');
				const isJson = /json/i.test(responseHeaders['content-type'] ?? '');
				try {
					data = isJson || requestOptions.json ? (text ? JSON.parse(text) : undefined) : text;
				} catch {
					data = text;
				}
			}
		}
		if (response.statusCode >= 400) {
			throw axiosLikeError(`Request failed with status code ${response.statusCode}`, {
				response: { status: response.statusCode, statusText: '', headers: responseHeaders, data },
				name: 'AxiosError',
			});
		}
		return { status: response.statusCode, headers: responseHeaders, data, statusMessage: '' };
	}

	async function httpRequestWithAuthentication(
		this: unknown,
		credentialType: string,
		requestOptions: IHttpRequestOptions,
	): Promise<unknown> {
		const credentials = options.credentials[credentialType];
		if (!credentials) throw new Error(`test context has no credentials of type ${credentialType}`);
		try {
			let token = tokenStore.tokens.get(credentialType);
			if (token === undefined) token = await fetchToken(credentialType, credentials);
			// @n8n/client-oauth2's token.sign(): `headers ??= {}`, then the header on that object
			const sign = (value: string) => {
				if (options.oauth?.signInPlace === false) return;
				requestOptions.headers = requestOptions.headers ?? {};
				requestOptions.headers.Authorization = `Bearer ${value}`;
			};
			sign(token);
			// n8n refreshes a client-credentials token once when the API answers 401
			const isUnauthorized = (error: unknown) =>
				(error as { response?: { status?: number } }).response?.status === 401;
			const result = await send(requestOptions, token).catch(async (error: unknown) => {
				if (!isUnauthorized(error)) return await Promise.reject(error);
				token = await fetchToken(credentialType, credentials);
				sign(token);
				return await send(requestOptions, token);
			});
			if (requestOptions.returnFullResponse) {
				return {
					body: result.data,
					headers: result.headers,
					statusCode: result.status,
					statusMessage: '',
				};
			}
			return result.data;
		} catch (error) {
			throw new NodeApiError(node, error as never);
		}
	}

	const context = {
		sent,
		logs,
		getInputData: () => items,
		getNode: () => node,
		getWorkflow: () => ({ id: 'wf-test', name: 'Test', active: false }),
		continueOnFail: () => options.continueOnFail ?? false,
		getMode: () => 'manual',
		getExecutionCancelSignal: () => options.signal,
		getCredentials: async (type: string) => {
			const data = options.credentials[type];
			if (!data) throw new Error(`no credentials of type ${type}`);
			const stored = tokenStore.tokens.get(type);
			if (stored === undefined || options.oauth?.storeFetchedToken === false) return data;
			return { ...data, oauthTokenData: { access_token: stored, token_type: 'bearer' } };
		},
		getNodeParameter: (...args: unknown[]) => {
			const [name, itemIndex, fallback] = args as [string, number, unknown];
			const value = get(paramsFor(itemIndex), name);
			if (value === undefined) {
				if (args.length >= 3) return fallback;
				throw new Error(`test context: parameter "${name}" is not set`);
			}
			return value;
		},
		logger: {
			debug: (message: string, meta?: unknown) => logs.push({ level: 'debug', message, meta }),
			info: (message: string, meta?: unknown) => logs.push({ level: 'info', message, meta }),
			warn: (message: string, meta?: unknown) => logs.push({ level: 'warn', message, meta }),
			error: (message: string, meta?: unknown) => logs.push({ level: 'error', message, meta }),
		},
		helpers: {
			httpRequestWithAuthentication,
			returnJsonArray: (data: IDataObject | IDataObject[]) =>
				(Array.isArray(data) ? data : [data]).map((json) => ({ json })),
			constructExecutionMetaData: (
				data: INodeExecutionData[],
				meta: { itemData: { item: number } },
			) => data.map((item) => ({ ...item, pairedItem: meta.itemData })),
			prepareBinaryData: async (
				input: Buffer | AsyncIterable<unknown>,
				fileName?: string,
				mimeType?: string,
			): Promise<IBinaryData> => {
				let buffer: Buffer;
				if (Buffer.isBuffer(input)) {
					buffer = input;
				} else {
					const chunks: Buffer[] = [];
					for await (const chunk of input) chunks.push(Buffer.from(chunk as Buffer));
					buffer = Buffer.concat(chunks);
				}
				return {
					data: buffer.toString('base64'),
					mimeType: mimeType ?? 'application/octet-stream',
					fileName,
					fileExtension: fileName?.split('.').pop(),
					fileSize: `${buffer.length} B`,
					// n8n-core's BinaryDataService sets the exact size in bytes too
					bytes: buffer.length,
				};
			},
		},
	};
	return context as unknown as TestContext;
}
