import type { ErrorText, FailureFacts, FailureKind } from '../shared/transport';
import type { Fields } from '../shared/validation';

interface CallContext {
	operation: 'create' | 'delete';
	host: string;
	flowId?: string;
	fields: Fields;
	/** Statuses this call retries (busy answers get the "try again later" wording). */
	retryStatuses: number[];
}

const attemptsText = (n: number) => (n === 1 ? '1 attempt' : `${n} attempts`);
const done = (call: CallContext) => (call.operation === 'create' ? 'created' : 'deleted');

/** What to do before running an item whose request may have acted. */
function beforeAgain(call: CallContext): string {
	return call.operation === 'create'
		? "Before running this item again, check whether the flow exists (for example through the Consent Flow Trigger's consent.created event or your External ID)."
		: 'If no consent.deleted event arrives for this flow, run the item again later.';
}

function tokenText(facts: FailureFacts): ErrorText {
	const said = facts.tokenReason ? ` The identity provider said: ${facts.tokenReason}` : '';
	const error = facts.oauthError;
	if (error === 'invalid_client') {
		return {
			message: 'The identity provider refused the client credentials (invalid_client)',
			description: `Check in the Consent Flow OAuth2 API credential: Realm (a realm that does not know this client refuses it the same way), Client ID and Client Secret (test and production have different clients), Environment and Identity Provider URL, and Client Authentication (the identity provider may expect the other method).${said}`,
		};
	}
	// Any other failure (invalid_scope, unauthorized_client, no token endpoint, unreachable …): the
	// fields that decide it, then the credential's own words (consentFlowToken.ts) or the provider's.
	const status = facts.tokenStatus ?? facts.status;
	const why = error ?? (status === undefined ? undefined : `HTTP ${status}`);
	return {
		message: `Could not get an access token from the identity provider${why ? ` (${why})` : ''}`,
		description: `Check the credential's Realm (the realm the operator gave you for the flow service), Client ID and Client Secret, Environment, Identity Provider URL (without /realms/…) and Additional Scopes, then save it to reconnect; if all are right, ask the operator whether this client may use the client credentials grant.${said}${facts.tokenDetail ? ` (${facts.tokenDetail})` : ''}`,
	};
}

/** One wording per failure kind; `undefined` falls back to the status wording below. */
type Describe = (facts: FailureFacts, call: CallContext, said: string) => ErrorText | undefined;

const BY_KIND: Partial<Record<FailureKind, Describe>> = {
	'token-refused': tokenText,
	'not-authenticated': (_facts, _call, said) => ({
		message: 'The Consent Flow API rejected the access token (401)',
		description: `The token most likely comes from the wrong realm or environment. Check Environment, Identity Provider URL and Realm in the credential (the same environment as the API Base URL); the credential fetches a new token when one of them changes or the token it holds expires.${said}`,
	}),
	forbidden: (_facts, _call, said) => ({
		message: 'The Consent Flow API refused the request (403)',
		description: `What a 403 means here is not published. If the token lacks scope sbl: check that the credential's Service is Consent Flows and save the credential so n8n fetches a new token; if it is, ask the operator whether this client may start consent flows.${said}`,
	}),
	'not-found': (facts, call, said) =>
		call.operation === 'create'
			? {
					message: `The flow endpoint was not found at ${call.host} (404)`,
					description: `Check the credential's API Base URL: the base address of the consent flow API, without /api/….${said}`,
				}
			: {
					message: `No consent flow "${call.flowId ?? ''}" exists (404) — it may already be deleted`,
					description: `Check the Flow ID: use the id returned by Create (also the "flow" field of webhook events).${facts.attempts > 1 ? ` An earlier attempt of this delete lost its connection (this was attempt ${facts.attempts}) and may have deleted it.` : ''}${said}`,
					field: 'flowId',
				},
	rejected: (facts, call) => {
		const named = facts.fields.map(
			(entry) => `${entry.field ? call.fields.label(entry.field) : 'request'}: ${entry.message}`,
		);
		const names = facts.fields.map((entry) => entry.field).filter(Boolean);
		return {
			message: `The Consent Flow service rejected the request (${facts.status})${facts.service ? `: ${facts.service}` : ''}`,
			description: named.length
				? `Fix these fields: ${named.join('; ')}.`
				: 'Check the values sent; the service did not say which field is wrong.',
			field: names.length ? names.join(', ') : undefined,
		};
	},
	'rate-limited': busyText,
	unavailable: busyText,
	cancelled: (_facts, call) => ({
		message: `The execution was stopped while this flow was being ${done(call)}${call.operation === 'create' ? ' — it may or may not have been created' : ''}`,
		description: `Nothing more was sent. ${beforeAgain(call)}`,
	}),
	'network-not-sent': (facts, call) => ({
		message: `Cannot reach the Consent Flow API at ${call.host}: ${facts.networkWords} (${attemptsText(facts.attempts)})`,
		description: `Check the credential's API Base URL and that the service is up (${facts.code}). Nothing was sent.`,
	}),
	// also a failure without status or code: whether the request left is not known
	'network-maybe-sent': (facts, call, said) => {
		const code = facts.code;
		const how = /TIMEDOUT|TIMEOUT/i.test(code ?? '') ? 'timed out' : 'broke';
		const when =
			call.operation === 'create'
				? 'after the request was sent'
				: `(${attemptsText(facts.attempts)})`;
		const what = code
			? `The connection to the Consent Flow API at ${call.host} ${how} ${when}`
			: `The request to the Consent Flow API at ${call.host} failed`;
		return {
			message: `${what} — the flow may or may not have been ${done(call)}`,
			description: `${call.operation === 'create' ? 'The node does not send a create twice, to avoid duplicate flows. ' : ''}${beforeAgain(call)}${code ? ` Connection error: ${code}.` : said}`,
		};
	},
};

function busyText(facts: FailureFacts, call: CallContext, said: string): ErrorText | undefined {
	const status = facts.status;
	if (status === undefined || !call.retryStatuses.includes(status)) return undefined; // a gateway failure this call does not retry
	const waited = facts.retryAfter
		? `It asked to wait (Retry-After: ${facts.retryAfter}).${facts.retryAfterTooLong ? ` ${facts.retryAfterTooLong}` : ''} `
		: '';
	const what =
		status === 429 || status === 503
			? ` is busy (${status}) and still refused`
			: `'s gateway failed (${status})`;
	return {
		message: `The Consent Flow service${what} after ${attemptsText(facts.attempts)} — try again later`,
		description: `${waited}Run the workflow again later, or send fewer items at a time (for example with a Loop Over Items node and a Wait node).${said}`,
	};
}

export function describeFailure(facts: FailureFacts, call: CallContext): ErrorText {
	const said = facts.service ? ` The service said: ${facts.service}` : '';
	const known = BY_KIND[facts.kind]?.(facts, call, said);
	if (known) return known;
	const status = facts.status;
	if (status !== undefined && status >= 500) {
		return {
			message: `The Consent Flow service failed with an internal error (${status})`,
			description: `The service may have processed the request. ${beforeAgain(call)} If the problem persists, contact the operator.${said}`,
		};
	}
	return {
		message: `The Consent Flow service answered with HTTP ${status ?? 'no status'}`,
		description: `The node does not know this answer.${said}`,
	};
}
