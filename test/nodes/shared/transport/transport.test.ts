import { NodeApiError } from 'n8n-workflow';
import type { INode } from 'n8n-workflow';
import {
	DEFAULT_RETRY,
	describeBody,
	normalizeHttpError,
	parseRetryAfter,
	retryDelay,
} from '../../../nodes/shared/http';
import type { HttpFailure } from '../../../nodes/shared/http';

const node: INode = { id: 'n', name: 'N', type: 't', typeVersion: 1, position: [0, 0], parameters: {} };

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

describe('normalizeHttpError', () => {
	test('reads status, headers and body through a NodeApiError wrapper and drops request config', () => {
		const wrapped = new NodeApiError(node, axiosError(429, { 'Retry-After': '2' }, '{"message":"slow down"}') as never);
		const result = normalizeHttpError(wrapped);
		expect(result.status).toBe(429);
		expect(result.headers['retry-after']).toBe('2');
		expect(result.body).toEqual({ message: 'slow down' });
		expect(result.tokenFailure).toBe(false);
		expect(JSON.stringify(result)).not.toContain('SECRET-TOKEN');
	});

	test('recognises a token failure and its OAuth2 error code', () => {
		const authError = Object.assign(new Error('Client authentication failed'), { body: { error: 'invalid_client' } });
		const error = Object.assign(new Error('Failed to acquire OAuth2 access token: Client authentication failed'), {
			cause: authError,
		});
		const result = normalizeHttpError(new NodeApiError(node, error as never));
		expect(result.tokenFailure).toBe(true);
		expect(result.oauthError).toBe('invalid_client');
		expect(result.status).toBeUndefined();
	});

	test('keeps the network error code when there is no response', () => {
		const error = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' });
		const result = normalizeHttpError(new NodeApiError(node, error as never));
		expect(result.code).toBe('ECONNREFUSED');
		expect(result.status).toBeUndefined();
	});
});

describe('parseRetryAfter', () => {
	test('delta seconds and HTTP dates', () => {
		expect(parseRetryAfter('3')).toBe(3000);
		expect(parseRetryAfter('0.5')).toBe(500);
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
		expect(retryDelay(failure({ status: 429, headers: { 'retry-after': '2' } }), 0, policy)).toBe(2000);
		expect(retryDelay(failure({ status: 429, headers: { 'retry-after': '60' } }), 0, policy)).toBeUndefined();
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
		expect(retryDelay(failure({ code: 'ECONNREFUSED', tokenFailure: true }), 0, policy)).toBeUndefined();
	});
});

describe('describeBody', () => {
	test('prefers the service message', () => {
		expect(describeBody({ error: 'bad_request', message: 'nationalId: must be 11 digits' })).toBe(
			'nationalId: must be 11 digits',
		);
		expect(describeBody({ error: 'invalid_client', error_description: 'wrong secret' })).toBe('wrong secret');
		expect(describeBody('plain text')).toBe('plain text');
		expect(describeBody(undefined)).toBeUndefined();
		expect(describeBody({ other: 1 })).toBe('{"other":1}');
	});
});
