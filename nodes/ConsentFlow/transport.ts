/**
 * Transport of the Consent Flow node: reads the credential's API Base URL and environment, sends
 * one request through n8n's OAuth2 helper (shared/http.ts: token handling, 429/503 retries) and
 * turns any failure into a NodeApiError that says what happened and what to do.
 *
 * Errors are built from a clean object (message, description, httpCode): never from the raw
 * error, which carries the request configuration with the Authorization header.
 */
import { NodeApiError, NodeOperationError } from 'n8n-workflow';
import type {
	ICredentialDataDecryptedObject,
	IDataObject,
	IExecuteFunctions,
	IHttpRequestMethods,
	IHttpRequestOptions,
	JsonObject,
} from 'n8n-workflow';
import { describeBody, isHttpFailure, parseRetryAfter, requestWithRetry } from '../shared/http';
import type { HttpFailure, RetryPolicy } from '../shared/http';
import { validateHttpUrl } from '../shared/identifiers';
import { FIELD_LABELS, itemLabel } from './validation';

export const CREDENTIAL_TYPE = 'consentFlowOAuth2Api';

/** The parts of the credential the node needs, plus the values that must never be shown. */
export interface Connection {
	/** API Base URL without trailing slashes. */
	baseUrl: string;
	/** Host (and port) of the API, for messages. */
	host: string;
	production: boolean;
	/** Secret strings to blank out of any message (client secret, a stored access token). */
	secrets: string[];
}

/** Reads and checks the credential (no request). */
export async function loadConnection(
	this: IExecuteFunctions,
	itemIndex: number,
): Promise<Connection> {
	const credentials = (await this.getCredentials(
		CREDENTIAL_TYPE,
		itemIndex,
	)) as ICredentialDataDecryptedObject;
	const baseUrl = String(credentials.apiBaseUrl ?? '')
		.trim()
		.replace(/\/+$/, '');
	const problem = baseUrl ? validateHttpUrl(baseUrl) : 'is empty';
	if (problem) {
		throw new NodeOperationError(
			this.getNode(),
			`${itemLabel(itemIndex)}: the credential's "API Base URL" ${problem}`,
			{
				itemIndex,
				description:
					'Open the Consent Flow OAuth2 API credential and enter the base address of the consent flow API, for example https://api.example.com (without /api/…).',
			},
		);
	}
	const secrets: string[] = [];
	if (typeof credentials.clientSecret === 'string' && credentials.clientSecret)
		secrets.push(credentials.clientSecret);
	const tokenData = credentials.oauthTokenData as IDataObject | undefined;
	for (const key of ['access_token', 'refresh_token']) {
		const value = tokenData?.[key];
		if (typeof value === 'string' && value) secrets.push(value);
	}
	return {
		baseUrl,
		host: new URL(baseUrl).host,
		production: credentials.environment === 'production',
		secrets,
	};
}

/** What the error messages need to know about the call. */
export interface CallContext {
	itemIndex: number;
	operation: 'create' | 'delete';
	flowId?: string;
}

export interface ConsentFlowRequest {
	method: IHttpRequestMethods;
	/** Path below the API Base URL, starting with /api/. */
	path: string;
	body?: IDataObject;
}

/** Sends one request; resolves with the parsed response body or throws a NodeApiError. */
export async function consentFlowRequest(
	this: IExecuteFunctions,
	connection: Connection,
	request: ConsentFlowRequest,
	policy: RetryPolicy,
	call: CallContext,
): Promise<unknown> {
	const options: IHttpRequestOptions = {
		method: request.method,
		url: `${connection.baseUrl}${request.path}`,
		headers: { Accept: 'application/json' },
		json: true,
	};
	if (request.body !== undefined) options.body = request.body;
	try {
		const { response } = await requestWithRetry(this, CREDENTIAL_TYPE, options, policy);
		return response;
	} catch (error) {
		throw toNodeApiError(this, connection, policy, call, error);
	}
}

/** `{ data: {...} }` → the inner object, when the outer one carries nothing else of the flow. */
export function unwrapData(response: unknown): IDataObject {
	if (!isObject(response)) {
		return response === undefined || response === null || response === ''
			? {}
			: { data: response as string };
	}
	const data = response.data;
	if (isObject(data) && !('id' in response) && !('href' in response)) return data;
	return response;
}

function isObject(value: unknown): value is IDataObject {
	return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** Blanks out secrets and anything that looks like a bearer token or JWT. */
export function redact(text: string, secrets: string[]): string {
	let out = text;
	for (const secret of secrets) {
		if (secret.length >= 4) out = out.split(secret).join('***');
	}
	return out
		.replace(/(bearer|basic)\s+[A-Za-z0-9._~+/=-]{8,}/gi, '$1 ***')
		.replace(/eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*/g, '***');
}

const NOT_SENT: Record<string, string> = {
	ECONNREFUSED: 'the connection was refused',
	ENOTFOUND: 'the host name was not found',
	EAI_AGAIN: 'the host name could not be resolved',
	EHOSTUNREACH: 'the host is unreachable',
	ENETUNREACH: 'the network is unreachable',
};

const TIMEOUT_CODES = /TIMEDOUT|TIMEOUT/i;

interface ErrorText {
	message: string;
	description?: string;
	field?: string;
}

function attemptsText(attempts: number): string {
	return attempts === 1 ? '1 attempt' : `${attempts} attempts`;
}

/** Service error fields (`fields: [{field, message}]`) as "National ID: …; Last Name: …". */
function serviceFields(body: unknown): { text?: string; names?: string } {
	if (!isObject(body) || !Array.isArray(body.fields)) return {};
	const entries = (body.fields as unknown[]).filter(isObject).map((entry) => {
		const name = typeof entry.field === 'string' ? entry.field : '';
		const label = (FIELD_LABELS as Record<string, string>)[name] ?? name;
		return {
			name,
			text: `${label || 'request'}: ${typeof entry.message === 'string' ? entry.message : 'invalid'}`,
		};
	});
	if (!entries.length) return {};
	return {
		text: entries.map((entry) => entry.text).join('; '),
		names: entries
			.map((entry) => entry.name)
			.filter(Boolean)
			.join(', '),
	};
}

function tokenFailureText(failure: HttpFailure, service: string | undefined): ErrorText {
	const said = service ? ` The identity provider said: ${service}` : '';
	switch (failure.oauthError) {
		case 'invalid_client':
			return {
				message: 'The identity provider refused the client credentials (invalid_client)',
				description: `Check Client ID and Client Secret in the Consent Flow OAuth2 API credential (test and production have different clients), and Client Authentication: the identity provider may expect the other method (Basic Auth Header or In Body).${said}`,
			};
		case 'invalid_scope':
			return {
				message: 'The identity provider refused the requested scopes (invalid_scope)',
				description: `This client may not request one of the scopes selected in the credential (Scopes, Additional Scopes). For consent flows select only "Sbl (Consent Flows)", or ask the operator to grant the scopes to the client.${said}`,
			};
		case 'unauthorized_client':
		case 'unsupported_grant_type':
			return {
				message: `The identity provider does not allow this client the client credentials grant (${failure.oauthError})`,
				description: `Ask the operator to enable the client credentials grant for this client.${said}`,
			};
		case 'realm_not_found':
			return realmText(said);
		default:
			break;
	}
	if (failure.status === 404) return realmText(said);
	if (failure.code && NOT_SENT[failure.code]) {
		return {
			message: `Cannot reach the identity provider to get an access token: ${NOT_SENT[failure.code]}`,
			description: `Check the credential's Identity Provider URL and that the identity provider is up (${failure.code}).`,
		};
	}
	return {
		message: 'Could not get an access token from the identity provider',
		description: `Check the credential's Identity Provider URL, Realm, Client ID, Client Secret and Scopes, then save the credential to reconnect.${said}`,
	};
}

function realmText(said: string): ErrorText {
	return {
		message: 'The token endpoint was not found: unknown realm or wrong identity provider address',
		description: `Check the credential's Identity Provider URL (the base address, without /realms/…) and Realm (leave it empty for agents-test or agents-prod, following Environment).${said}`,
	};
}

/** Decides message and description for a failure; exported for unit tests. */
export function describeFailure(
	failure: HttpFailure & { attempts?: number },
	connection: Pick<Connection, 'host'>,
	policy: Pick<RetryPolicy, 'maxDelayMs' | 'retryStatuses'>,
	call: CallContext,
): ErrorText {
	const attempts = failure.attempts ?? 1;
	const service = describeBody(failure.body);
	const said = service ? ` The service said: ${service}` : '';
	const status = failure.status;
	const creating = call.operation === 'create';

	if (failure.tokenFailure || failure.oauthError) {
		const reason =
			service ?? failure.message.replace(/^.*failed to acquire oauth2 access token:\s*/i, '');
		return tokenFailureText(failure, reason || undefined);
	}

	if (status === 401) {
		return {
			message: 'The Consent Flow API rejected the access token (401)',
			description: `n8n fetched a new token and the API still refused it, so the token most likely comes from the wrong realm or environment. Check Environment, Identity Provider URL and Realm in the credential (they must belong to the same environment as the API Base URL), then save the credential to reconnect.${said}`,
		};
	}
	if (status === 403) {
		return {
			message: 'The access token lacks the "sbl" scope needed for consent flows (403)',
			description: `Select "Sbl (Consent Flows)" in the credential's Scopes and save the credential so n8n fetches a new token. If it is already selected, ask the operator to grant scope sbl to this client.${said}`,
		};
	}
	if (status === 404) {
		if (!creating) {
			const earlier =
				attempts > 1
					? ` An earlier attempt of this delete lost its connection (this was attempt ${attempts}) and may have deleted it.`
					: '';
			return {
				message: `No consent flow "${call.flowId ?? ''}" exists (404) — it may already be deleted`,
				description: `Check the Flow ID: use the id returned by Create (also the "flow" field of webhook events).${earlier}${said}`,
				field: 'flowId',
			};
		}
		return {
			message: `The flow endpoint was not found at ${connection.host} (404)`,
			description: `Check the credential's API Base URL: it is the base address of the consent flow API, without /api/….${said}`,
		};
	}
	if (status === 400 || status === 422) {
		const fields = serviceFields(failure.body);
		return {
			message: `The Consent Flow service rejected the request (${status})${service ? `: ${service}` : ''}`,
			description: fields.text
				? `Fix these fields: ${fields.text}.`
				: 'Check the values sent; the service did not say which field is wrong.',
			field: fields.names || undefined,
		};
	}
	if (status !== undefined && policy.retryStatuses.includes(status)) {
		const retryAfter = failure.headers['retry-after'];
		const waited = retryAfter ? ` It asked to wait (Retry-After: ${retryAfter})` : '';
		const askedMs = parseRetryAfter(retryAfter);
		const tooLong =
			askedMs !== undefined && askedMs > policy.maxDelayMs
				? `; that is longer than the node waits (${Math.round(policy.maxDelayMs / 1000)} s), so it did not retry`
				: '';
		const busy = status === 429 || status === 503;
		return {
			message: busy
				? `The Consent Flow service is busy (${status}) and still refused after ${attemptsText(attempts)} — try again later`
				: `The Consent Flow service's gateway failed (${status}) after ${attemptsText(attempts)} — try again later`,
			description: `${waited ? `${waited.trim()}${tooLong}. ` : ''}Run the workflow again later, or send fewer items at a time (for example with a Loop Over Items node and a Wait node).${said}`,
		};
	}
	if (status !== undefined && status >= 500) {
		return {
			message: `The Consent Flow service failed with an internal error (${status})`,
			description: creating
				? `The service may have processed part of the request: before running again, check whether the flow exists (for example through the Consent Flow Trigger's events or your External ID). If the problem persists, contact the operator.${said}`
				: `Try again later; deleting again is safe. If the problem persists, contact the operator.${said}`,
		};
	}
	if (status !== undefined) {
		return {
			message: `The Consent Flow service answered with HTTP ${status}`,
			description: `The node does not know this answer.${said}`,
		};
	}
	if (failure.code && NOT_SENT[failure.code]) {
		return {
			message: `Cannot reach the Consent Flow API at ${connection.host}: ${NOT_SENT[failure.code]} (${attemptsText(attempts)})`,
			description: `Check the credential's API Base URL and that the service is up (${failure.code}). Nothing was sent.`,
		};
	}
	if (failure.code) {
		const how = TIMEOUT_CODES.test(failure.code) ? 'timed out' : 'broke';
		return creating
			? {
					message: `The connection to the Consent Flow API at ${connection.host} ${how} after the request was sent — the flow may or may not have been created`,
					description: `The node does not send a create twice, to avoid duplicate flows. Before running this item again, check whether the flow exists (for example through the Consent Flow Trigger's consent.created event or your External ID) (${failure.code}).`,
				}
			: {
					message: `The connection to the Consent Flow API at ${connection.host} ${how} (${attemptsText(attempts)}) — the flow may or may not have been deleted`,
					description: `Deleting again is safe: run the item again later (${failure.code}).`,
				};
	}
	return {
		message: `The request to the Consent Flow API at ${connection.host} failed`,
		description: failure.message,
	};
}

function toNodeApiError(
	ctx: IExecuteFunctions,
	connection: Connection,
	policy: RetryPolicy,
	call: CallContext,
	error: unknown,
): NodeApiError {
	const failure: HttpFailure & { attempts?: number } = isHttpFailure(error)
		? error
		: {
				headers: {},
				message: error instanceof Error ? error.message : String(error),
				tokenFailure: false,
			};
	const text = describeFailure(failure, connection, policy, call);
	const message = redact(`${itemLabel(call.itemIndex)}: ${text.message}`, connection.secrets);
	const description = text.description ? redact(text.description, connection.secrets) : undefined;
	const httpCode = failure.status !== undefined ? String(failure.status) : undefined;
	const clean: JsonObject = { message };
	if (description) clean.description = description;
	if (httpCode) clean.httpCode = httpCode;
	const apiError = new NodeApiError(ctx.getNode(), clean, {
		message,
		description,
		httpCode,
		itemIndex: call.itemIndex,
	});
	if (text.field) apiError.context.field = text.field;
	return apiError;
}
