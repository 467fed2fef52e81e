import type { ErrorText, FailureFacts, FailureKind, Wording } from '../shared/transport';

export interface Subject {
	action: string;
	target: string;
	notFound: string;
	badRequestHint: string;
	/** The request may store an estimate document (EvEstimate without storeEstimate false). */
	mayStore?: boolean;
}

const TOKEN_ERRORS: Record<string, string> = {
	invalid_client: 'the token endpoint rejected the client ID or secret (invalid_client)',
	unauthorized_client: 'the client may not use the client credentials grant (unauthorized_client)',
	invalid_scope: 'the requested scope is not allowed for this client (invalid_scope)',
	invalid_grant: 'the token endpoint rejected the grant (invalid_grant)',
	invalid_request: 'the token endpoint rejected the token request (invalid_request)',
};

export function estimateWording(subject: Subject): Wording {
	return (facts) => describeFailure(facts, subject);
}

/** What the texts of one failure share. */
interface Said {
	facts: FailureFacts;
	subject: Subject;
	/** ` The API said: …` or nothing */
	said: string;
	about: string;
	tooLong: string;
}

function unreachable({ facts, about }: Said): ErrorText {
	return {
		message: `Could not reach the estimate API (${facts.networkWords}) ${about}`,
		description: `No answer (${facts.code ?? 'no code'}) after ${facts.attempts} attempt(s). Check API Base URL in the credential and that the service is reachable from n8n.`,
	};
}

// `undefined` falls back to the status wording in describeFailure.
const BY_KIND: Partial<Record<FailureKind, (w: Said) => ErrorText | undefined>> = {
	'token-refused': ({ facts }) => {
		const reason = (facts.oauthError && TOKEN_ERRORS[facts.oauthError]) ?? facts.oauthError;
		return {
			message: `Could not get an access token for the estimate API${reason ? `: ${reason}` : ''}`,
			description:
				"Check Client ID, Client Secret, Client Authentication, Scope and Access Token URL in the credential 'Real Estate Estimate OAuth2 API', then reconnect it.",
		};
	},
	cancelled: ({ about }) => ({
		message: `The execution was stopped ${about}`,
		description: 'Nothing more was sent. Run the node again to get the result.',
	}),
	// A read is sent again, so its error is the one of an unreachable API.
	'network-maybe-sent': (w) =>
		w.subject.mayStore
			? {
					message: `The connection to the estimate API broke after the request was sent ${w.about} — an estimate document may have been stored`,
					description: `The node does not send this estimate again, so that one item never stores two documents (${w.facts.code ?? 'no code'}). Before running the item again, check the object's stored documents (Document → Get Many), or turn on Don't Store Estimate.`,
				}
			: unreachable(w),
	'network-not-sent': unreachable,
	rejected: ({ facts, subject, said }) => ({
		message: `The estimate API rejected the request as out of range (${facts.status}): ${subject.badRequestHint}`,
		description: `${subject.action.charAt(0).toUpperCase()}${subject.action.slice(1)} for ${subject.target} (${facts.request}).${said}`,
	}),
	'not-authenticated': ({ subject }) => ({
		message: `Not authenticated with the estimate API (401) while trying to ${subject.action}`,
		description:
			"The API did not accept the access token. Check Client ID, Client Secret and Access Token URL in the credential 'Real Estate Estimate OAuth2 API', then reconnect it.",
	}),
	forbidden: ({ subject }) => ({
		message: `Not authorized by the estimate API (403) to ${subject.action}`,
		description:
			"The client is authenticated but lacks access to this operation. Check the credential's Scope (the scopes the provider named) and ask the provider to grant the client access.",
	}),
	'not-found': ({ facts, subject, said }) => ({
		message: `${subject.notFound} (404)`,
		description: `The estimate API found nothing for ${facts.request}.${said}`,
	}),
	'rate-limited': ({ facts, subject, tooLong }) => ({
		message: `The estimate API kept rate limiting the requests (429), gave up after ${facts.attempts} attempt(s)`,
		description: `While trying to ${subject.action} for ${subject.target}.${tooLong} Lower Concurrent Requests or retry later.`,
	}),
	unavailable: ({ facts, subject, tooLong }) => {
		if (facts.status !== 503) return undefined;
		const once =
			subject.mayStore && facts.attempts === 1 && !facts.retryAfter
				? ' An estimate that may be stored is sent again only when the API asks to wait (Retry-After), so that one item never stores two documents.'
				: '';
		return {
			message: `The estimate API is unavailable (503), gave up after ${facts.attempts} attempt(s)`,
			description: `While trying to ${subject.action} for ${subject.target}.${tooLong}${once} Retry later.`,
		};
	},
	'server-error': ({ facts, about, said }) =>
		facts.status !== 500
			? undefined
			: {
					message: `The estimate API could not process the request (500) ${about} — contact support`,
					description: `The service documents a 500 as an internal fault to report to its support. The request was ${facts.request} at ${new Date().toISOString()}; give support this request and time.${said}`,
				},
};

export function describeFailure(facts: FailureFacts, subject: Subject): ErrorText {
	const fields = facts.fields.map((entry) => `${entry.field}: ${entry.message}`).join('; ');
	const detail = [facts.service, fields].filter(Boolean).join(' — ');
	const w: Said = {
		facts,
		subject,
		said: detail ? ` The API said: ${detail}` : '',
		about: `while trying to ${subject.action} for ${subject.target}`,
		tooLong: facts.retryAfterTooLong ? ` ${facts.retryAfterTooLong}` : '',
	};
	return (
		BY_KIND[facts.kind]?.(w) ?? {
			message: `The estimate API answered ${facts.status ?? 'nothing'} ${w.about}`,
			description: `${facts.request}.${w.said}`,
		}
	);
}
