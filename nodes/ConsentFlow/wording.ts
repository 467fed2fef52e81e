import { isNotSent } from '../shared/transport/failure';
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

function attemptsText(attempts: number): string {
	return attempts === 1 ? '1 attempt' : `${attempts} attempts`;
}

function tokenText(facts: FailureFacts): ErrorText {
	const said = facts.tokenReason ? ` The identity provider said: ${facts.tokenReason}` : '';
	switch (facts.oauthError) {
		case 'invalid_client':
			return {
				message: 'The identity provider refused the client credentials (invalid_client)',
				description: `Check in the Consent Flow OAuth2 API credential: Realm (the realm the operator gave you; a realm that does not know this client refuses it the same way), Client ID and Client Secret (test and production have different clients), Environment and Identity Provider URL, and Client Authentication: the identity provider may expect the other method (Basic Auth Header or In Body).${said}`,
			};
		case 'invalid_scope':
			return {
				message: 'The identity provider refused the requested scopes (invalid_scope)',
				description: `This client may not request one of the scopes the credential asks for (sbl, Additional Scopes). For consent flows leave Additional Scopes empty, or ask the operator to grant the scopes to the client.${said}`,
			};
		case 'unauthorized_client':
		case 'unsupported_grant_type':
			return {
				message: `The identity provider does not allow this client the client credentials grant (${facts.oauthError})`,
				description: `Ask the operator to enable the client credentials grant for this client.${said}`,
			};
		case 'realm_not_found':
			return realmText(said);
		default:
			break;
	}
	if (facts.status === 404 || facts.tokenStatus === 404) return realmText(said);
	if (isNotSent(facts.code)) {
		return {
			message: `Cannot reach the identity provider to get an access token: ${facts.networkWords}`,
			description: `Check the credential's Identity Provider URL and that the identity provider is up (${facts.code}).`,
		};
	}
	return {
		message: 'Could not get an access token from the identity provider',
		description: `Check the credential's Realm, Client ID and Client Secret, Environment, Identity Provider URL and Additional Scopes, then save the credential to reconnect.${said}${facts.tokenDetail ? ` (${facts.tokenDetail})` : ''}`,
	};
}

function realmText(said: string): ErrorText {
	return {
		message: 'The token endpoint was not found: unknown realm or wrong identity provider address',
		description: `Check the credential's Identity Provider URL (the base address, without /realms/…) and Realm: consent flows need the realm the operator gave you for the flow service (agents-test and agents-prod are the loan application service's realms).${said}`,
	};
}

/** One wording per failure kind; `undefined` falls back to the status wording below. */
type Describe = (facts: FailureFacts, call: CallContext, said: string) => ErrorText | undefined;

function notFoundText(facts: FailureFacts, call: CallContext, said: string): ErrorText {
	if (call.operation === 'create') {
		return {
			message: `The flow endpoint was not found at ${call.host} (404)`,
			description: `Check the credential's API Base URL: it is the base address of the consent flow API, without /api/….${said}`,
		};
	}
	const earlier =
		facts.attempts > 1
			? ` An earlier attempt of this delete lost its connection (this was attempt ${facts.attempts}) and may have deleted it.`
			: '';
	return {
		message: `No consent flow "${call.flowId ?? ''}" exists (404) — it may already be deleted`,
		description: `Check the Flow ID: use the id returned by Create (also the "flow" field of webhook events).${earlier}${said}`,
		field: 'flowId',
	};
}

function rejectedText(facts: FailureFacts, call: CallContext): ErrorText {
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
}

function busyText(facts: FailureFacts, call: CallContext, said: string): ErrorText | undefined {
	const status = facts.status;
	if (status === undefined || !call.retryStatuses.includes(status)) return undefined; // a gateway failure this call does not retry
	const waited = facts.retryAfter ? `It asked to wait (Retry-After: ${facts.retryAfter})` : '';
	const tooLong = facts.retryAfterTooLong ? ` ${facts.retryAfterTooLong}` : '';
	return {
		message:
			status === 429 || status === 503
				? `The Consent Flow service is busy (${status}) and still refused after ${attemptsText(facts.attempts)} — try again later`
				: `The Consent Flow service's gateway failed (${status}) after ${attemptsText(facts.attempts)} — try again later`,
		description: `${waited ? `${waited}.${tooLong} ` : ''}Run the workflow again later, or send fewer items at a time (for example with a Loop Over Items node and a Wait node).${said}`,
	};
}

function cancelledText(_facts: FailureFacts, call: CallContext): ErrorText {
	return call.operation === 'create'
		? {
				message:
					'The execution was stopped while this flow was being created — it may or may not have been created',
				description:
					"Nothing more was sent. Before running this item again, check whether the flow exists (for example through the Consent Flow Trigger's consent.created event or your External ID).",
			}
		: {
				message: 'The execution was stopped while this flow was being deleted',
				description:
					'Nothing more was sent. If no consent.deleted event arrives for this flow, run the item again.',
			};
}

function maybeSentText(facts: FailureFacts, call: CallContext, said: string): ErrorText {
	if (!facts.code) {
		return {
			message: `The request to the Consent Flow API at ${call.host} failed`,
			description: said.trim() || undefined,
		};
	}
	const how = /TIMEDOUT|TIMEOUT/i.test(facts.code) ? 'timed out' : 'broke';
	return call.operation === 'create'
		? {
				message: `The connection to the Consent Flow API at ${call.host} ${how} after the request was sent — the flow may or may not have been created`,
				description: `The node does not send a create twice, to avoid duplicate flows. Before running this item again, check whether the flow exists (for example through the Consent Flow Trigger's consent.created event or your External ID) (${facts.code}).`,
			}
		: {
				message: `The connection to the Consent Flow API at ${call.host} ${how} (${attemptsText(facts.attempts)}) — the flow may or may not have been deleted`,
				description: `If no consent.deleted event arrives for this flow, run the item again later (${facts.code}).`,
			};
}

const BY_KIND: Partial<Record<FailureKind, Describe>> = {
	'token-refused': (facts) => tokenText(facts),
	'not-authenticated': (_facts, _call, said) => ({
		message: 'The Consent Flow API rejected the access token (401)',
		description: `The token most likely comes from the wrong realm or environment. Check Environment, Identity Provider URL and Realm in the credential (they must belong to the same environment as the API Base URL); the credential fetches a new token when one of them changes or the token it holds expires.${said}`,
	}),
	forbidden: (_facts, _call, said) => ({
		message: 'The Consent Flow API refused the request (403)',
		description: `What a 403 means here is not published. If the token lacks scope sbl: check that the credential's Service is Consent Flows (it then requests scope sbl) and save the credential so n8n fetches a new token; if it is, ask the operator whether this client may start consent flows.${said}`,
	}),
	'not-found': notFoundText,
	rejected: rejectedText,
	'rate-limited': busyText,
	unavailable: busyText,
	cancelled: cancelledText,
	'network-not-sent': (facts, call) => ({
		message: `Cannot reach the Consent Flow API at ${call.host}: ${facts.networkWords} (${attemptsText(facts.attempts)})`,
		description: `Check the credential's API Base URL and that the service is up (${facts.code}). Nothing was sent.`,
	}),
	'network-maybe-sent': maybeSentText,
};

export function describeFailure(facts: FailureFacts, call: CallContext): ErrorText {
	const said = facts.service ? ` The service said: ${facts.service}` : '';
	const known = BY_KIND[facts.kind]?.(facts, call, said);
	if (known) return known;
	const status = facts.status;
	if (status !== undefined && status >= 500) {
		return {
			message: `The Consent Flow service failed with an internal error (${status})`,
			description:
				call.operation === 'create'
					? `The service may have processed part of the request: before running again, check whether the flow exists (for example through the Consent Flow Trigger's events or your External ID). If the problem persists, contact the operator.${said}`
					: `Try again later if no consent.deleted event arrives for this flow. If the problem persists, contact the operator.${said}`,
		};
	}
	return {
		message: `The Consent Flow service answered with HTTP ${status ?? 'no status'}`,
		description: `The node does not know this answer.${said}`,
	};
}
