// The transport's pure parts: what a node may say about a failure (failureFacts), the redactor that
// also masks the request's own personal values (requestRedactor), and the NodeApiError built from a
// clean summary (failureError). Rules: docs/reference.md, Errors.
import { NodeApiError } from 'n8n-workflow';
import { failureError, failureFacts, requestRedactor } from '../../../../nodes/shared/transport';
import type { FailureFacts, HttpFailure } from '../../../../nodes/shared/transport';
import { createExecuteContext } from '../../../support/execute-context';
import { syntheticNationalId } from '../../../support/synthetic-ids';

// built from parts: a literal would read as a hard-coded secret to the linter
const TOKEN = ['eyJhbGciOiJSUzI1NiJ9', 'secret-access-token'].join('.');
const hideToken = (text: string) => text.split(TOKEN).join('***');
const POLICY = { maxDelayMs: 10_000 };

function failure(extra: Partial<HttpFailure>): HttpFailure {
	return { headers: {}, message: 'failed', tokenFailure: false, ...extra };
}

describe('failureFacts', () => {
	test('a 400 with field errors: kind, status, request, service text and fields, redacted', () => {
		const facts = failureFacts(
			failure({
				status: 400,
				attempts: 1,
				body: {
					message: `bad token ${TOKEN}`,
					fields: [{ field: 'lastName', message: `not ${TOKEN}` }],
				},
			}),
			'POST /api/flow-definitions/sbl',
			POLICY,
			hideToken,
		);
		expect(facts.kind).toBe('rejected');
		expect(facts.status).toBe(400);
		expect(facts.request).toBe('POST /api/flow-definitions/sbl');
		expect(facts.attempts).toBe(1);
		expect(facts.fields).toEqual([{ field: 'lastName', message: 'not ***' }]);
		expect(JSON.stringify(facts)).not.toContain(TOKEN);
	});

	test('one attempt when the failure does not count them', () => {
		expect(failureFacts(failure({ status: 500 }), 'GET /x', POLICY, hideToken).attempts).toBe(1);
	});

	test('Retry-After is quoted, in milliseconds too, and said to be too long past the node’s wait', () => {
		const facts = failureFacts(
			failure({ status: 429, attempts: 3, headers: { 'retry-after': '120' } }),
			'POST /x',
			POLICY,
			hideToken,
		);
		expect(facts.kind).toBe('rate-limited');
		expect(facts.retryAfter).toBe('120');
		expect(facts.retryAfterMs).toBe(120_000);
		expect(facts.retryAfterTooLong).toMatch(/120 s .*10 s/);
	});

	test('a refused token gives the identity provider’s reason, redacted', () => {
		const facts = failureFacts(
			failure({
				tokenFailure: true,
				message: `Failed to acquire OAuth2 access token: client rejected ${TOKEN}`,
			}),
			'POST /x',
			POLICY,
			hideToken,
		);
		expect(facts.kind).toBe('token-refused');
		expect(facts.tokenReason).toBe('client rejected ***');
	});

	test('a connection refused before sending is "not sent"', () => {
		const facts = failureFacts(failure({ code: 'ECONNREFUSED' }), 'POST /x', POLICY, hideToken);
		expect(facts.kind).toBe('network-not-sent');
		expect(facts.code).toBe('ECONNREFUSED');
		expect(facts.status).toBeUndefined();
	});
});

describe('requestRedactor', () => {
	test('masks the identity number and name the request carried, after the base redactor', () => {
		const id = syntheticNationalId();
		const redact = requestRedactor(hideToken, { nationalId: id, lastName: 'Haugstveit' });
		const text = redact(`person ${id} Haugstveit token ${TOKEN}`);
		expect(text).not.toContain(id);
		expect(text).not.toContain('Haugstveit');
		expect(text).not.toContain(TOKEN);
	});

	test('a body without personal values changes nothing the base redactor gives', () => {
		const text = `flow abc Haugstveit token ${TOKEN}`;
		expect(requestRedactor(hideToken, { flowId: 'abc' })(text)).toBe(hideToken(text));
		expect(requestRedactor(hideToken, undefined)(text)).toBe(hideToken(text));
	});
});

describe('failureError', () => {
	const ctx = createExecuteContext({ parameters: {}, credentials: {} });
	const facts: FailureFacts = {
		kind: 'rejected',
		status: 400,
		attempts: 1,
		request: 'POST /api/flow-definitions/sbl',
		service: 'lastName is required',
		fields: [],
		networkWords: '',
		retryAfterTooLong: '',
	};

	test('a NodeApiError naming the item, with itemIndex, httpCode, field and a redacted text', () => {
		const error = failureError(
			ctx,
			hideToken,
			facts,
			{ message: `rejected ${TOKEN}`, description: `see ${TOKEN}`, field: 'lastName' },
			2,
		);
		expect(error).toBeInstanceOf(NodeApiError);
		expect(error.message).toBe('Item 3: rejected ***');
		expect(error.description).toBe('see ***');
		expect(error.httpCode).toBe('400');
		expect(error.context.itemIndex).toBe(2);
		expect(error.context.field).toBe('lastName');
		expect(JSON.stringify(error)).not.toContain(TOKEN);
	});

	test('no httpCode when the service did not answer', () => {
		const error = failureError(
			ctx,
			hideToken,
			{ ...facts, kind: 'network-not-sent', status: undefined, service: undefined },
			{ message: 'cannot reach' },
			0,
		);
		expect(error.httpCode ?? undefined).toBeUndefined();
		expect(error.description ?? undefined).toBeUndefined();
		expect(error.context.itemIndex).toBe(0);
	});
});
