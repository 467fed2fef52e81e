import { createHash } from 'crypto';
import type { ICredentialDataDecryptedObject, IHttpRequestHelper } from 'n8n-workflow';
// the transport reads these refusals back: their first words and `(error, HTTP status)`
import { OWN_TOKEN_FAILURE, networkWords } from '../nodes/shared/transport/failure';

// The Consent Flow credential fetches its own token (n8n's preAuthentication), so that a refusal is
// worded by this package and names the fields that decide it, in the credential Test too: a plain
// Error without response or code, whose message n8n's credential Test shows as it is.

type Data = ICredentialDataDecryptedObject;

/** Service decides the realm: the operator's (Realm) for consent flows, agents-<environment> for the loan application service. */
export function realmOf(data: Data): string {
	if (data.service === 'loanApplication') {
		return data.environment === 'production' ? 'agents-prod' : 'agents-test';
	}
	return String(data.realm ?? '').trim();
}

/** sbl (consent flows) or the selected loan application scopes, then Additional Scopes; no duplicates. */
export function scopeOf(data: Data): string {
	const chosen: unknown[] =
		data.service === 'loanApplication'
			? [].concat((data.loanApplicationScopes || []) as [])
			: ['sbl'];
	const all = [...chosen.map(String), ...String(data.additionalScopes ?? '').split(/[\s,]+/)];
	return all.filter((scope, i) => !!scope && all.indexOf(scope) === i).join(' ');
}

function identityProviderUrl(data: Data): string {
	return String(data.identityProviderUrl ?? '')
		.trim()
		.replace(/\/+$/, '');
}

/** What decides whether a consent flow token can be had, in the words of the form. */
export const DECIDES_FLOW_TOKEN =
	'Realm (the realm the operator gave you; a realm that does not know this client answers as for an unknown client), Client ID and Client Secret (test and production have different clients), Environment and Identity Provider URL';

function decides(data: Data): string {
	return data.service === 'loanApplication'
		? 'Service and Environment (the realm is agents-test or agents-prod), Client ID and Client Secret (test and production have different clients) and Identity Provider URL'
		: DECIDES_FLOW_TOKEN;
}

// RFC 6749 §5.2: error is %x20-21 / %x23-5B / %x5D-7E; here also without ( ) , so it reads back
const OAUTH_ERROR = /^[\x20\x21\x23-\x27\x2A\x2B\x2D-\x5B\x5D-\x7E]{1,80}$/;
/** The token endpoint's answer as a JSON object (n8n hands it over parsed or as text), else undefined. */
function answerObject(body: unknown): Record<string, unknown> | undefined {
	let parsed = body;
	if (typeof parsed === 'string') {
		try {
			parsed = JSON.parse(parsed);
		} catch {
			return undefined;
		}
	}
	return parsed !== null && typeof parsed === 'object'
		? (parsed as Record<string, unknown>)
		: undefined;
}

function oauthErrorIn(
	answer: Record<string, unknown> | undefined,
	secrets: string[],
): string | undefined {
	const error = answer?.error;
	if (typeof error !== 'string' || !OAUTH_ERROR.test(error)) return undefined;
	return secrets.some((secret) => secret !== '' && error.includes(secret)) ? undefined : error;
}

/** Refuses, before anything is sent, what would send the secret nowhere useful or in clear text. */
export function checkBeforeSending(data: Data): void {
	if (realmOf(data) === '') {
		throw new Error(
			`${OWN_TOKEN_FAILURE}: the credential's Realm is empty. Enter the realm the operator gave you for the flow service (nothing was sent).`,
		);
	}
	const url = identityProviderUrl(data);
	if (!/^https?:\/\/[^/]/i.test(url)) {
		throw new Error(
			`${OWN_TOKEN_FAILURE}: the credential's Identity Provider URL is not an http(s) address. Enter the base address of the identity provider, without /realms/… (nothing was sent).`,
		);
	}
	if (data.environment === 'production' && !/^https:\/\//i.test(url)) {
		throw new Error(
			`${OWN_TOKEN_FAILURE}: the credential's Identity Provider URL must use https when Environment is Production, so that the client secret is never sent in clear text (nothing was sent).`,
		);
	}
}

function statusAdvice(status: number, error: string | undefined, data: Data): string {
	if (error === 'invalid_scope' || (status === 400 && error === undefined)) {
		return ` This client may not request one of the scopes "${scopeOf(data)}": check Loan Application Scopes and Additional Scopes, or ask the operator.`;
	}
	if (status === 404) {
		return ' No token endpoint at this address: the realm does not exist there, or the Identity Provider URL is wrong (the base address, without /realms/…).';
	}
	if (error === 'unauthorized_client' || error === 'unsupported_grant_type') {
		return ' Ask the operator to allow this client the client credentials grant.';
	}
	return '';
}

/** What a token was fetched for: the values that decide whether it can be had (the secret as a hash). */
function fetchedFor(data: Data): string {
	return JSON.stringify([
		identityProviderUrl(data),
		realmOf(data),
		String(data.clientId ?? ''),
		createHash('sha256')
			.update(String(data.clientSecret ?? ''))
			.digest('base64'),
		scopeOf(data),
		String(data.environment ?? ''),
	]);
}

// n8n calls preAuthentication when Access Token is empty (also in the credential Test), after a 401
// (httpRequestWithAuthentication), and in n8n's HTTP Request node after ANY failed request, which it
// then sends again when a new token comes back. So the token is kept while it is unexpired and was
// fetched for the same values: a write that failed for another reason is not sent again.
function stillValid(data: Data): boolean {
	if (typeof data.accessToken !== 'string' || data.accessToken === '') return false;
	let kept: unknown;
	try {
		kept = JSON.parse(String(data.accessTokenFor ?? ''));
	} catch {
		return false;
	}
	const { forValues, until } = (kept ?? {}) as { forValues?: unknown; until?: unknown };
	return forValues === fetchedFor(data) && typeof until === 'number' && Date.now() < until;
}

/** n8n's preAuthentication: a client credentials token from the token endpoint Service decides. */
export async function fetchAccessToken(
	helper: IHttpRequestHelper,
	data: Data,
): Promise<{ accessToken?: string; accessTokenFor?: string }> {
	if (stillValid(data)) return {};
	checkBeforeSending(data);
	const clientId = String(data.clientId ?? '');
	const clientSecret = String(data.clientSecret ?? '');
	// As the description shows it (and as n8n's OAuth2 client sends it): base64 of clientId:clientSecret
	const basic = Buffer.from(`${clientId}:${clientSecret}`).toString('base64');
	const realm = realmOf(data);
	const fields: Record<string, string> = { grant_type: 'client_credentials' };
	const scope = scopeOf(data);
	if (scope) fields.scope = scope;
	const headers: Record<string, string> = {
		'Content-Type': 'application/x-www-form-urlencoded',
		Accept: 'application/json',
	};
	if (data.authentication === 'body') {
		fields.client_id = clientId;
		fields.client_secret = clientSecret;
	} else {
		headers.Authorization = `Basic ${basic}`;
	}
	const where = `from realm "${realm}"`;
	const asked = Date.now();
	const response = (await helper.helpers
		.httpRequest({
			method: 'POST',
			url: `${identityProviderUrl(data)}/realms/${realm}/protocol/openid-connect/token`,
			headers,
			body: new URLSearchParams(fields).toString(),
			json: true,
			returnFullResponse: true,
			ignoreHttpStatusErrors: true,
		})
		.catch((error: unknown) => {
			const code = String((error as { code?: unknown } | null)?.code ?? '');
			throw new Error(
				`${OWN_TOKEN_FAILURE} ${where}: the identity provider could not be reached (${networkWords(code)}). Check Identity Provider URL and that the identity provider is up.`,
			);
		})) as { statusCode?: number; body?: unknown };
	const status = Number(response.statusCode);
	const answer = answerObject(response.body);
	const token = answer?.access_token;
	if (status >= 200 && status < 300 && typeof token === 'string' && token !== '') {
		const seconds = Number(answer?.expires_in);
		// without a lifetime the token is fetched again whenever n8n asks (as n8n intends)
		const until = Number.isFinite(seconds) && seconds > 0 ? asked + seconds * 1000 : 0;
		return {
			accessToken: token,
			accessTokenFor: JSON.stringify({ forValues: fetchedFor(data), until }),
		};
	}
	const error = oauthErrorIn(answer, [clientSecret, basic]);
	const detail = error === undefined ? `HTTP ${status}` : `${error}, HTTP ${status}`;
	const what = status >= 200 && status < 300 ? ' The answer held no access_token.' : '';
	throw new Error(
		`${OWN_TOKEN_FAILURE} (${detail}) ${where}: check ${decides(data)}.${what}${statusAdvice(status, error, data)}`,
	);
}
