// The connection, read once per run, and every request; errors are built from a clean summary,
// never the raw error (it holds the Authorization header).
import { NodeApiError, NodeOperationError } from 'n8n-workflow';
import type {
	Failure,
	IDataObject,
	IExecuteFunctions,
	IHttpRequestMethods,
	IHttpRequestOptions,
	JsonObject,
} from 'n8n-workflow';
import { itemLabel } from '../validation';
import { validateHttpUrl } from '../identifiers';
import type { Pacer } from '../pacer';
import {
	classifyFailure,
	isHttpFailure,
	networkWords,
	normaliseHttpError,
	serviceText,
} from './failure';
import { tokenFailureReason } from '../n8n-compat';
import type { FailureKind, HttpFailure, ServiceField } from './failure';
import { personalMasker, personalValuesOf } from '../personal';
import { credentialSecrets, makeRedactor } from './redact';
import type { LearningRedactor, Redactor } from './redact';
import { parseRetryAfter, releaseBody, retryAfterTooLong, sendWithRetry } from './retry';
import type { RetryPolicy } from './retry';

export type { FailureKind, HttpFailure, ServiceField } from './failure';
export { DEFAULT_RETRY } from './retry';
export type { RetryPolicy } from './retry';

export interface ConnectionSpec {
	credentialType: string;
	/** The credential type's secret fields (typeOptions.password, redact.ts passwordFieldsOf). */
	passwordFields: readonly string[];
	baseUrlHint: string;
	/** A credential field the token endpoint needs, checked before any request: what to fix, or undefined. */
	credentialProblem?: (
		credentials: IDataObject,
	) => { message: string; description: string } | undefined;
}

export interface Connection extends Pick<ConnectionSpec, 'credentialType' | 'passwordFields'> {
	baseUrl: string;
	host: string;
	production: boolean;
	redact: LearningRedactor;
	/** Set by the item runner. */
	pacer?: Pacer;
}

export async function loadConnection(
	ctx: IExecuteFunctions,
	spec: ConnectionSpec,
): Promise<Connection> {
	const credentials = await ctx.getCredentials(spec.credentialType);
	const production = credentials.environment === 'production';
	const refuse = (message: string, description: string) =>
		new NodeOperationError(ctx.getNode(), message, { itemIndex: 0, description });
	const credentialProblem = spec.credentialProblem?.(credentials as IDataObject);
	if (credentialProblem) throw refuse(credentialProblem.message, credentialProblem.description);
	const baseUrl = String(credentials.apiBaseUrl ?? '')
		.trim()
		.replace(/\/+$/, '');
	const problem = baseUrl ? validateHttpUrl(baseUrl, production) : 'is empty';
	if (problem) throw refuse(`The credential's "API Base URL" ${problem}`, spec.baseUrlHint);
	// Production: the client secret never travels in clear text (the credential refuses it too)
	const identityProvider = String(credentials.identityProviderUrl ?? '').trim();
	if (production && identityProvider && !/^https:\/\//i.test(identityProvider)) {
		throw refuse(
			`The credential's "Identity Provider URL" must use https when the credential environment is Production`,
			'In Production the client secret and access tokens are only sent over https. Change the address to https:// (Test may use http).',
		);
	}
	const redact = makeRedactor(credentialSecrets(credentials as IDataObject, spec.passwordFields));
	return {
		credentialType: spec.credentialType,
		passwordFields: spec.passwordFields,
		baseUrl,
		host: new URL(baseUrl).host,
		production,
		redact,
	};
}

export interface ApiRequest {
	method: IHttpRequestMethods;
	path: string;
	body?: IDataObject;
	stream?: boolean;
	accept?: string;
}

/** Everything a node may say about a failure; every text in it is already redacted. */
export interface FailureFacts {
	kind: FailureKind;
	status?: number;
	attempts: number;
	/** `POST /api/flow-definitions/sbl` */
	request: string;
	service?: string;
	fields: ServiceField[];
	code?: string;
	networkWords: string;
	oauthError?: string;
	tokenReason?: string;
	/** The Consent Flow credential's own token request failed: the token endpoint's status, its message. */
	tokenStatus?: number;
	tokenDetail?: string;
	retryAfter?: string;
	retryAfterMs?: number;
	retryAfterTooLong: string;
}

export interface ErrorText {
	message: string;
	description?: string;
	field?: string;
}

export type Wording = (facts: FailureFacts) => ErrorText;

export interface CallOptions {
	itemIndex: number;
	policy: RetryPolicy;
	wording: Wording;
}

const FAILURE_CAUSE: Partial<Record<FailureKind, Failure['cause']>> = {
	'token-refused': 'credential-invalid',
	'not-authenticated': 'credential-invalid',
	forbidden: 'configuration-invalid',
	'not-found': 'configuration-invalid',
	rejected: 'configuration-invalid',
	'rate-limited': 'rate-limited',
	unavailable: 'temporarily-unavailable',
	'server-error': 'temporarily-unavailable',
	'network-not-sent': 'temporarily-unavailable',
	'network-maybe-sent': 'temporarily-unavailable',
};

export function failureFacts(
	failure: HttpFailure,
	request: string,
	policy: Pick<RetryPolicy, 'maxDelayMs'>,
	redact: (text: string) => string,
): FailureFacts {
	const kind = classifyFailure(failure);
	const service = serviceText(failure.body, redact);
	const retryAfter = failure.headers['retry-after'];
	const own = kind === 'token-refused' ? failure.ownToken : undefined;
	const facts: FailureFacts = {
		kind,
		status: failure.status,
		attempts: failure.attempts ?? 1,
		request,
		service: service.text,
		fields: service.fields.map((entry) => ({
			field: redact(entry.field),
			message: redact(entry.message),
		})),
		code: failure.code,
		networkWords: networkWords(failure.code),
		oauthError: failure.oauthError,
		tokenStatus: own?.status,
		tokenDetail: own && redact(own.message),
		retryAfter: retryAfter === undefined ? undefined : redact(retryAfter),
		retryAfterMs: parseRetryAfter(retryAfter),
		retryAfterTooLong: retryAfterTooLong(failure, policy),
	};
	if (kind === 'token-refused' && !own) {
		const reason = facts.service ?? redact(tokenFailureReason(failure.message));
		if (reason) facts.tokenReason = reason;
	}
	return facts;
}

// The service may quote back the identity numbers and names the request body carried.
export function requestRedactor(redact: Redactor, body: unknown): Redactor {
	const mask = personalMasker(personalValuesOf(body));
	return (text: string) => mask(redact(text));
}

export function failureError(
	ctx: IExecuteFunctions,
	redact: Redactor,
	facts: FailureFacts,
	text: ErrorText,
	itemIndex: number,
): NodeApiError {
	const message = redact(`${itemLabel(itemIndex)}: ${text.message}`);
	const description = text.description === undefined ? undefined : redact(text.description);
	const summary: JsonObject = { message, request: facts.request, attempts: facts.attempts };
	if (description) summary.description = description;
	if (facts.status !== undefined) summary.status = facts.status;
	if (facts.service) summary.detail = facts.service;
	if (facts.oauthError) summary.oauthError = facts.oauthError;
	if (facts.code) summary.networkCode = facts.code;
	const cause = FAILURE_CAUSE[facts.kind];
	const failure: Failure | undefined =
		(cause === 'rate-limited' || cause === 'temporarily-unavailable') &&
		facts.retryAfterMs !== undefined
			? { cause, retryAfterMs: facts.retryAfterMs }
			: cause && ({ cause } as Failure);
	const error = new NodeApiError(ctx.getNode(), summary, {
		message,
		description,
		httpCode: facts.status !== undefined ? String(facts.status) : undefined,
		itemIndex,
		...(failure ? { failure } : {}),
	});
	if (text.field) error.context.field = text.field;
	return error;
}

function requestOptions(connection: Connection, request: ApiRequest): IHttpRequestOptions {
	const options: IHttpRequestOptions = {
		method: request.method,
		url: `${connection.baseUrl}${request.path}`,
		json: !request.stream,
		headers: { Accept: request.accept ?? 'application/json' },
	};
	if (request.stream) {
		options.encoding = 'stream';
		options.returnFullResponse = true;
	}
	if (request.body !== undefined) options.body = request.body;
	return options;
}

export async function apiRequest(
	ctx: IExecuteFunctions,
	connection: Connection,
	request: ApiRequest,
	call: CallOptions,
): Promise<unknown> {
	try {
		return await sendWithRetry(
			ctx,
			connection.credentialType,
			requestOptions(connection, request),
			call.policy,
			connection.pacer,
			connection.redact.learn,
		);
	} catch (error) {
		const failure = isHttpFailure(error) ? error : normaliseHttpError(error);
		releaseBody(failure.body);
		// n8n saves a token it fetched or refreshed during the request: read again before any text
		// is written (a credential that cannot be read: the request's headers taught the token sent)
		const saved = await ctx.getCredentials(connection.credentialType).catch(() => undefined);
		connection.redact.learn(...credentialSecrets(saved, connection.passwordFields));
		const redact = requestRedactor(connection.redact, request.body);
		const facts = failureFacts(failure, `${request.method} ${request.path}`, call.policy, redact);
		throw failureError(ctx, redact, facts, call.wording(facts), call.itemIndex);
	}
}
