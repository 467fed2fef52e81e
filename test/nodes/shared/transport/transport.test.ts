import { NodeApiError } from 'n8n-workflow';
import type { INode } from 'n8n-workflow';
import {
	classifyFailure,
	normaliseHttpError,
	serviceText,
} from '../../../../nodes/shared/transport/failure';
import type { HttpFailure } from '../../../../nodes/shared/transport/failure';
import {
	DEFAULT_RETRY,
	parseRetryAfter,
	retryDelay,
} from '../../../../nodes/shared/transport/retry';

const node: INode = {
	id: 'n',
	name: 'N',
	type: 't',
	typeVersion: 1,
	position: [0, 0],
	parameters: {},
};

function axiosError(status: number, headers: Record<string, string>, data: unknown): Error {
	const error = new Error(`Request failed with status code ${status}`);
	Object.assign(error, {
		isAxiosError: true,
		config: { headers: { Authorization: 'Bearer SECRET-TOKEN' } },
		response: { status, headers, data },
	});
	return error;
}

function failure(partial: Partial<HttpFailure>): HttpFailure {
	return { headers: {}, message: 'x', tokenFailure: false, ...partial };
}

describe('normaliseHttpError', () => {
	test('reads status, headers and body through a NodeApiError wrapper and drops request config', () => {
		const wrapped = new NodeApiError(
			node,
			axiosError(429, { 'Retry-After': '2' }, '{"message":"slow down"}') as never,
		);
		const result = normaliseHttpError(wrapped);
		expect(result.status).toBe(429);
		expect(result.headers['retry-after']).toBe('2');
		expect(result.body).toEqual({ message: 'slow down' });
		expect(result.tokenFailure).toBe(false);
		expect(JSON.stringify(result)).not.toContain('SECRET-TOKEN');
	});

	test('recognises a token failure and its OAuth2 error code', () => {
		const authError = Object.assign(new Error('Client authentication failed'), {
			body: { error: 'invalid_client' },
		});
		const error = Object.assign(
			new Error('Failed to acquire OAuth2 access token: Client authentication failed'),
			{
				cause: authError,
			},
		);
		const result = normaliseHttpError(new NodeApiError(node, error as never));
		expect(result.tokenFailure).toBe(true);
		expect(result.oauthError).toBe('invalid_client');
		expect(result.status).toBeUndefined();
	});

	test('keeps the network error code when there is no response', () => {
		const error = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), {
			code: 'ECONNREFUSED',
		});
		const result = normaliseHttpError(new NodeApiError(node, error as never));
		expect(result.code).toBe('ECONNREFUSED');
		expect(result.status).toBeUndefined();
	});
});

describe('parseRetryAfter', () => {
	test('delta seconds and HTTP dates', () => {
		expect(parseRetryAfter('3')).toBe(3000);
		expect(parseRetryAfter('0.5')).toBeUndefined(); // RFC 9110 §10.2.3: delay-seconds = 1*DIGIT
		const now = Date.parse('2026-11-22T10:00:00Z');
		expect(parseRetryAfter('Sun, 22 Nov 2026 10:00:07 GMT', now)).toBe(7000);
		expect(parseRetryAfter('Sun, 22 Nov 2026 09:00:00 GMT', now)).toBe(0);
		expect(parseRetryAfter('soon')).toBeUndefined();
		expect(parseRetryAfter(undefined)).toBeUndefined();
	});
});

describe('retryDelay', () => {
	const policy = { ...DEFAULT_RETRY, baseDelayMs: 100, maxDelayMs: 5000, maxRetries: 3 };

	test('429 and 503 back off exponentially and stop at the bound', () => {
		expect(retryDelay(failure({ status: 429 }), 0, policy)).toBe(100);
		expect(retryDelay(failure({ status: 503 }), 1, policy)).toBe(200);
		expect(retryDelay(failure({ status: 503 }), 2, policy)).toBe(400);
		expect(retryDelay(failure({ status: 503 }), 3, policy)).toBeUndefined();
	});

	test('Retry-After wins, and a longer pause than the cap is not waited for', () => {
		expect(retryDelay(failure({ status: 429, headers: { 'retry-after': '2' } }), 0, policy)).toBe(
			2000,
		);
		expect(
			retryDelay(failure({ status: 429, headers: { 'retry-after': '60' } }), 0, policy),
		).toBeUndefined();
	});

	test('other statuses are not retried', () => {
		for (const status of [400, 401, 403, 404, 500, 502]) {
			expect(retryDelay(failure({ status }), 0, policy)).toBeUndefined();
		}
	});

	test('a non-idempotent call is retried only when nothing can have been sent', () => {
		const create = { ...policy, idempotent: false };
		expect(retryDelay(failure({ code: 'ECONNREFUSED' }), 0, create)).toBe(100);
		expect(retryDelay(failure({ code: 'ECONNRESET' }), 0, create)).toBeUndefined();
		expect(retryDelay(failure({ code: 'ETIMEDOUT' }), 0, create)).toBeUndefined();
		expect(retryDelay(failure({ code: 'ECONNRESET' }), 0, policy)).toBe(100);
	});

	test('token failures are not retried', () => {
		expect(
			retryDelay(failure({ code: 'ECONNREFUSED', tokenFailure: true }), 0, policy),
		).toBeUndefined();
	});
});

describe('serviceText', () => {
	test('prefers the service message', () => {
		expect(
			serviceText({ error: 'bad_request', message: 'nationalId: must be 11 digits' }).text,
		).toBe('nationalId: must be 11 digits');
		expect(serviceText({ error: 'invalid_client', error_description: 'wrong secret' }).text).toBe(
			'wrong secret',
		);
		expect(serviceText('plain text').text).toBe('plain text');
		expect(serviceText(undefined).text).toBeUndefined();
		expect(serviceText({ other: 1 }).text).toBe('{"other":1}');
	});

	test('reads both field-error forms: fields[] and problem details errors{}', () => {
		expect(
			serviceText({ message: 'bad', fields: [{ field: 'nationalId', message: 'wrong' }] }).fields,
		).toEqual([{ field: 'nationalId', message: 'wrong' }]);
		const problem = serviceText({
			title: 'Bad Request',
			detail: 'Out of range',
			errors: { knr: ['too big', 'odd'] },
		});
		expect(problem.text).toBe('Out of range');
		expect(problem.fields).toEqual([{ field: 'knr', message: 'too big, odd' }]);
	});

	test('a stream or buffer body gives no text', () => {
		expect(serviceText(Buffer.from('x')).text).toBeUndefined();
		class FakeStream {
			message = 'not a body';
			pipe(): void {}
		}
		expect(serviceText(new FakeStream()).text).toBeUndefined();
	});
});

describe('classifyFailure', () => {
	// The kinds each node words: one table, checked status by status.
	const cases: Array<[Partial<HttpFailure>, string]> = [
		[{ tokenFailure: true }, 'token-refused'],
		[{ oauthError: 'invalid_client' }, 'token-refused'],
		[{ status: 401 }, 'not-authenticated'],
		[{ status: 403 }, 'forbidden'],
		[{ status: 404 }, 'not-found'],
		[{ status: 400 }, 'rejected'],
		[{ status: 422 }, 'rejected'],
		[{ status: 429 }, 'rate-limited'],
		[{ status: 502 }, 'unavailable'],
		[{ status: 503 }, 'unavailable'],
		[{ status: 504 }, 'unavailable'],
		[{ status: 500 }, 'server-error'],
		[{ status: 507 }, 'server-error'],
		[{ status: 418 }, 'unexpected-status'],
		[{ code: 'ECONNREFUSED' }, 'network-not-sent'],
		[{ code: 'ENOTFOUND' }, 'network-not-sent'],
		[{ code: 'ECONNRESET' }, 'network-maybe-sent'],
		[{ code: 'ETIMEDOUT' }, 'network-maybe-sent'],
		[{}, 'network-maybe-sent'],
	];
	test.each(cases)('%j → %s', (partial, kind) => {
		expect(classifyFailure(failure(partial))).toBe(kind);
	});
});
