/**
 * The shared retry logic, each expectation taken from the published rule:
 * Retry-After = HTTP-date / delay-seconds, delay-seconds = 1*DIGIT (RFC 9110 §10.2.3);
 * an HTTP-date is read in its IMF-fixdate form, the one senders must generate (RFC 9110 §5.6.7);
 * and the module's own contract (bounded exponential backoff, idempotency, cancel signal).
 */
import { sleep } from 'n8n-workflow';
import type { IExecuteFunctions, IHttpRequestOptions } from 'n8n-workflow';
import type { HttpFailure } from '../../../../nodes/shared/transport/failure';
import {
	DEFAULT_RETRY,
	parseRetryAfter,
	releaseBody,
	retryAfterTooLong,
	retryDelay,
	sendWithRetry,
	waitUnlessAborted,
} from '../../../../nodes/shared/transport/retry';
import type { RetryPolicy } from '../../../../nodes/shared/transport/retry';

const failure = (partial: Partial<HttpFailure>): HttpFailure => ({
	headers: {},
	message: 'x',
	tokenFailure: false,
	...partial,
});

describe('HTTP-date: IMF-fixdate only', () => {
	const now = Date.UTC(2026, 10, 23, 10, 0, 0);

	test('the RFC example and any existing date are read; the obsolete forms and impossible dates are not', () => {
		expect(parseRetryAfter('Sun, 06 Nov 1994 08:49:37 GMT', Date.UTC(1994, 10, 6, 8, 49, 7))).toBe(
			30_000,
		);
		expect(parseRetryAfter('Thu, 31 Dec 2026 23:59:59 GMT', Date.UTC(2026, 11, 31, 23, 59))).toBe(
			59_000,
		);
		for (const text of [
			'Sunday, 06-Nov-94 08:49:37 GMT', // rfc850-date
			'Sun Nov  6 08:49:37 1994', // asctime-date
			'Tue, 31 Nov 2026 00:00:00 GMT', // no such day
			'Sun, 29 Feb 2026 00:00:00 GMT',
			'Thu, 31 Dec 2026 24:00:00 GMT',
			'Thu, 31 Dec 2026 23:60:00 GMT',
			'Fri, 31 Dec 2026 10:00:00 GMT', // the wrong weekday
			'Invalid Date',
		]) {
			expect(parseRetryAfter(text, now)).toBeUndefined();
		}
	});
});

describe('parseRetryAfter (RFC 9110 §10.2.3)', () => {
	const now = Date.UTC(2026, 10, 23, 10, 0, 0);
	afterEach(() => jest.restoreAllMocks());

	test.each([
		['0', 0],
		['1', 1000],
		['120', 120_000],
		['007', 7000],
		['9999999999', 9_999_999_999_000], // ten digits
		['\t5 ', 5000], // surrounding whitespace (OWS) is not part of the value
	])('delay-seconds %j is %d ms', (value, ms) => {
		expect(parseRetryAfter(value, now)).toBe(ms);
	});

	test.each([
		['x5', 'a leading letter'],
		['5x', 'a trailing letter'],
		['5 5', 'two numbers'],
		['+5', 'a sign'],
		['٥', 'a non-ASCII digit'],
		['12345678901', 'more than ten digits (over 300 years: the module treats it as unreadable)'],
	])('%j (%s) is not understood', (value) => {
		expect(parseRetryAfter(value, now)).toBeUndefined();
	});

	test('an HTTP-date is the time left until it, never negative', () => {
		expect(parseRetryAfter('Mon, 23 Nov 2026 10:00:30 GMT', now)).toBe(30_000);
		expect(parseRetryAfter(' Mon, 23 Nov 2026 10:00:30 GMT ', now)).toBe(30_000);
		expect(parseRetryAfter('Mon, 23 Nov 2026 10:00:00 GMT', now)).toBe(0);
		expect(parseRetryAfter('Mon, 23 Nov 2026 09:59:59 GMT', now)).toBe(0);
	});

	test('`now` defaults to the current time', () => {
		jest.spyOn(Date, 'now').mockReturnValue(now);
		expect(parseRetryAfter('Mon, 23 Nov 2026 10:00:30 GMT')).toBe(30_000);
	});
});

describe('retryAfterTooLong', () => {
	const at = Date.UTC(2026, 10, 23, 10, 0, 0);
	afterEach(() => jest.restoreAllMocks());
	const asked = (value: string | undefined) =>
		failure({ status: 429, headers: value === undefined ? {} : { 'retry-after': value } });

	test('nothing to say without a readable Retry-After or when it fits the cap', () => {
		expect(retryAfterTooLong(asked(undefined), { maxDelayMs: 30_000 })).toBe('');
		expect(retryAfterTooLong(asked('soon'), { maxDelayMs: 30_000 })).toBe('');
		expect(retryAfterTooLong(asked('0'), { maxDelayMs: 30_000 })).toBe('');
		expect(retryAfterTooLong(asked('30'), { maxDelayMs: 30_000 })).toBe(''); // equal: it waits
	});

	test('a longer pause than the cap is explained with both numbers in seconds', () => {
		expect(retryAfterTooLong(asked('31'), { maxDelayMs: 30_000 })).toBe(
			'The service asked to wait 31 s (Retry-After), longer than the node waits (30 s), so it did not retry.',
		);
		expect(retryAfterTooLong(asked('3600'), { maxDelayMs: 2600 })).toContain(
			'asked to wait 3600 s (Retry-After), longer than the node waits (3 s)',
		);
		expect(retryAfterTooLong(asked('3600'), { maxDelayMs: 2400 })).toContain('waits (2 s)');
	});

	test('an HTTP-date is measured from now and rounded to whole seconds', () => {
		jest.spyOn(Date, 'now').mockReturnValue(at + 400);
		// 60 s after `at`, 59.6 s from now
		expect(
			retryAfterTooLong(asked('Mon, 23 Nov 2026 10:01:00 GMT'), { maxDelayMs: 1000 }),
		).toContain('asked to wait 60 s');
		jest.spyOn(Date, 'now').mockReturnValue(at - 400);
		// 60.4 s from now
		expect(
			retryAfterTooLong(asked('Mon, 23 Nov 2026 10:01:00 GMT'), { maxDelayMs: 1000 }),
		).toContain('asked to wait 60 s');
	});
});

describe('retryDelay', () => {
	const policy: RetryPolicy = {
		maxRetries: 4,
		baseDelayMs: 100,
		maxDelayMs: 500,
		retryStatuses: [429, 503],
		idempotent: true,
	};

	test('backoff doubles from the base delay per retry and is capped by maxDelayMs', () => {
		expect(retryDelay(failure({ status: 503 }), 0, policy)).toBe(100);
		expect(retryDelay(failure({ status: 503 }), 1, policy)).toBe(200);
		expect(retryDelay(failure({ status: 503 }), 2, policy)).toBe(400);
		expect(retryDelay(failure({ status: 503 }), 3, policy)).toBe(500);
		expect(retryDelay(failure({ status: 503 }), 4, policy)).toBeUndefined();
		expect(retryDelay(failure({ status: 503 }), 9, policy)).toBeUndefined();
	});

	test('maxRetries 0 means no retry at all', () => {
		expect(retryDelay(failure({ status: 503 }), 0, { ...policy, maxRetries: 0 })).toBeUndefined();
		expect(retryDelay(failure({ status: 503 }), 0, { ...policy, maxRetries: 1 })).toBe(100);
	});

	test('only the configured statuses are retried', () => {
		const only502 = { ...policy, retryStatuses: [502] };
		expect(retryDelay(failure({ status: 502 }), 0, only502)).toBe(100);
		expect(retryDelay(failure({ status: 503 }), 0, only502)).toBeUndefined();
		expect(retryDelay(failure({ status: 429 }), 0, only502)).toBeUndefined();
	});

	test('an answer with a status is judged by the status alone, whatever code it carries', () => {
		expect(retryDelay(failure({ status: 500, code: 'ECONNREFUSED' }), 0, policy)).toBeUndefined();
		expect(retryDelay(failure({ status: 503, code: 'ECONNRESET' }), 0, policy)).toBe(100);
		expect(
			retryDelay(failure({ status: 503, code: 'ECONNRESET' }), 0, { ...policy, idempotent: false }),
		).toBe(100);
	});

	test('a failure with neither status nor code is not retried', () => {
		expect(retryDelay(failure({}), 0, policy)).toBeUndefined();
		expect(retryDelay(failure({ code: '' }), 0, policy)).toBeUndefined();
	});

	test('connection failures: retried when idempotent, or when provably not sent', () => {
		const create = { ...policy, idempotent: false };
		expect(retryDelay(failure({ code: 'ECONNRESET' }), 1, policy)).toBe(200);
		expect(retryDelay(failure({ code: 'ECONNRESET' }), 1, create)).toBeUndefined();
		expect(retryDelay(failure({ code: 'ENOTFOUND' }), 1, create)).toBe(200);
		expect(retryDelay(failure({ code: 'ECONNREFUSED' }), 4, create)).toBeUndefined();
	});

	test('a token failure is not retried even when nothing was sent', () => {
		expect(
			retryDelay(failure({ code: 'ENOTFOUND', tokenFailure: true }), 0, policy),
		).toBeUndefined();
	});

	test('Retry-After replaces the backoff when it fits the cap, also when shorter', () => {
		const with503 = (value: string) => failure({ status: 503, headers: { 'retry-after': value } });
		expect(retryDelay(with503('0'), 2, policy)).toBe(0); // "retry now"
		expect(retryDelay(with503('0'), 4, policy)).toBeUndefined(); // but not past maxRetries
		expect(retryDelay(failure({ status: 400, headers: { 'retry-after': '0' } }), 0, policy)).toBe(
			undefined,
		);
		expect(
			retryDelay(failure({ code: 'ECONNRESET', headers: { 'retry-after': '0' } }), 0, policy),
		).toBe(0);
		expect(retryDelay(with503('1'), 0, { ...policy, maxDelayMs: 5000 })).toBe(1000);
		expect(retryDelay(with503('5'), 0, { ...policy, maxDelayMs: 5000 })).toBe(5000); // equal: waits
		expect(retryDelay(with503('6'), 0, { ...policy, maxDelayMs: 5000 })).toBeUndefined();
		expect(retryDelay(with503('1'), 0, policy)).toBeUndefined(); // 1000 ms > the 500 ms cap
	});
});

describe('releaseBody', () => {
	test('destroys a stream-like body, with the body as `this`', () => {
		const body = {
			destroyedWith: undefined as unknown,
			destroy() {
				this.destroyedWith = this;
			},
		};
		releaseBody(body);
		expect(body.destroyedWith).toBe(body);
	});

	test.each([
		['undefined', undefined],
		['null', null],
		['a string', 'text'],
		['a number', 3],
		['a plain object', { message: 'x' }],
		['an object whose destroy is not a function', { destroy: 'yes' }],
	])('leaves %s alone without throwing', (_name, body) => {
		expect(() => releaseBody(body)).not.toThrow();
	});
});

describe('waitUnlessAborted', () => {
	test('without a signal it waits the full time', async () => {
		const start = Date.now();
		await waitUnlessAborted(120, undefined);
		expect(Date.now() - start).toBeGreaterThanOrEqual(100);
	});

	test('with a signal that does not abort it waits the full time and removes its listener', async () => {
		const controller = new AbortController();
		const add = jest.spyOn(controller.signal, 'addEventListener');
		const remove = jest.spyOn(controller.signal, 'removeEventListener');
		const start = Date.now();
		await waitUnlessAborted(120, controller.signal);
		expect(Date.now() - start).toBeGreaterThanOrEqual(100);
		expect(add).toHaveBeenCalledTimes(1);
		expect(add.mock.calls[0][0]).toBe('abort');
		expect(remove).toHaveBeenCalledTimes(1);
		expect(remove.mock.calls[0][0]).toBe('abort');
		expect(remove.mock.calls[0][1]).toBe(add.mock.calls[0][1]);
	});

	test('an abort during the wait ends it early', async () => {
		const controller = new AbortController();
		const start = Date.now();
		const waiting = waitUnlessAborted(1000, controller.signal);
		await sleep(20);
		controller.abort();
		await waiting;
		expect(Date.now() - start).toBeLessThan(500);
	});

	test('an already aborted signal does not wait at all', async () => {
		const controller = new AbortController();
		controller.abort();
		const start = Date.now();
		await waitUnlessAborted(1000, controller.signal);
		expect(Date.now() - start).toBeLessThan(500);
	});
});

describe('sendWithRetry', () => {
	const policy: RetryPolicy = {
		maxRetries: 2,
		baseDelayMs: 1,
		maxDelayMs: 1000,
		retryStatuses: [503],
		idempotent: true,
	};

	function httpError(status: number, headers: Record<string, string> = {}, data?: unknown) {
		return Object.assign(new Error(`Request failed with status code ${status}`), {
			response: { status, headers, data },
		});
	}

	interface Call {
		self: unknown;
		credentialType: string;
		request: IHttpRequestOptions;
	}

	/** A context whose helper answers from `answers` in turn (an Error is thrown). */
	function context(
		answers: Array<unknown | (() => unknown)>,
		signal?: AbortSignal,
	): { ctx: IExecuteFunctions; calls: Call[] } {
		const calls: Call[] = [];
		const ctx = {
			...(signal ? { getExecutionCancelSignal: () => signal } : {}),
			helpers: {
				async httpRequestWithAuthentication(
					this: unknown,
					credentialType: string,
					request: IHttpRequestOptions,
				) {
					calls.push({ self: this, credentialType, request });
					const next = answers[Math.min(calls.length - 1, answers.length - 1)];
					const answer = typeof next === 'function' ? (next as () => unknown)() : next;
					if (answer instanceof Error) throw answer;
					return answer;
				},
			},
		} as unknown as IExecuteFunctions;
		return { ctx, calls };
	}

	const options: IHttpRequestOptions = { url: 'http://service/x', method: 'GET' };

	test('an answer on the first attempt is returned as is, sent once through the helper', async () => {
		const { ctx, calls } = context([{ id: 1 }]);
		await expect(sendWithRetry(ctx, 'myCred', options, policy)).resolves.toEqual({ id: 1 });
		expect(calls).toHaveLength(1);
		expect(calls[0].self).toBe(ctx);
		expect(calls[0].credentialType).toBe('myCred');
		expect(calls[0].request).toEqual(options);
		expect(calls[0].request).not.toBe(options); // the caller's options are not handed on
		expect('abortSignal' in calls[0].request).toBe(false);
	});

	test('the cancel signal is handed to the request so it aborts the request in flight', async () => {
		const controller = new AbortController();
		const { ctx, calls } = context([{ ok: true }], controller.signal);
		await sendWithRetry(ctx, 'myCred', options, policy);
		expect(calls[0].request).toEqual({ ...options, abortSignal: controller.signal });
	});

	test('a retryable answer is sent again and the later answer returned', async () => {
		const { ctx, calls } = context([httpError(503), httpError(503), { id: 2 }]);
		await expect(sendWithRetry(ctx, 'c', options, policy)).resolves.toEqual({ id: 2 });
		expect(calls).toHaveLength(3);
		expect(calls[2].request).toEqual(options);
	});

	test('after the last retry the last failure is thrown with the number of attempts', async () => {
		const { ctx, calls } = context([httpError(503, { 'retry-after': '0' }, 'busy')]);
		await expect(sendWithRetry(ctx, 'c', options, policy)).rejects.toMatchObject({
			status: 503,
			attempts: 3,
			body: 'busy',
		});
		expect(calls).toHaveLength(3);
	});

	test('a failure that is not retried is thrown after one attempt, its body kept for the caller', async () => {
		const body = { destroy: jest.fn() };
		const { ctx, calls } = context([httpError(400, {}, body)]);
		const error = (await sendWithRetry(ctx, 'c', options, policy).catch(
			(e: unknown) => e,
		)) as HttpFailure;
		expect(error).toMatchObject({ status: 400, attempts: 1 });
		expect(error.body).toBe(body);
		expect(body.destroy).not.toHaveBeenCalled();
		expect(calls).toHaveLength(1);
	});

	test('it waits the backoff between attempts', async () => {
		const { ctx } = context([httpError(503), { ok: true }]);
		const start = Date.now();
		await sendWithRetry(ctx, 'c', options, { ...policy, baseDelayMs: 150 });
		expect(Date.now() - start).toBeGreaterThanOrEqual(130);
	});

	test('it waits the backoff between attempts also with a cancel signal that stays quiet', async () => {
		const controller = new AbortController();
		const { ctx } = context([httpError(503), { ok: true }], controller.signal);
		const start = Date.now();
		await sendWithRetry(ctx, 'c', options, { ...policy, baseDelayMs: 150 });
		expect(Date.now() - start).toBeGreaterThanOrEqual(130);
	});

	test('a stopped execution sends nothing', async () => {
		const controller = new AbortController();
		controller.abort();
		const { ctx, calls } = context([{ ok: true }], controller.signal);
		await expect(sendWithRetry(ctx, 'c', options, policy)).rejects.toEqual({
			headers: {},
			message: 'The execution was stopped',
			tokenFailure: false,
			cancelled: true,
			attempts: 0,
		});
		expect(calls).toHaveLength(0);
	});

	test('a request aborted in flight is not retried and its body is released', async () => {
		const controller = new AbortController();
		const body = { destroy: jest.fn() };
		const { ctx, calls } = context(
			[
				() => {
					controller.abort();
					return httpError(503, {}, body);
				},
			],
			controller.signal,
		);
		await expect(sendWithRetry(ctx, 'c', options, policy)).rejects.toEqual({
			headers: {},
			message: 'The execution was stopped',
			tokenFailure: false,
			cancelled: true,
			attempts: 1,
		});
		expect(body.destroy).toHaveBeenCalledTimes(1);
		expect(calls).toHaveLength(1);
	});

	test('a stopped execution is reported as stopped even when the answer would not be retried', async () => {
		for (const status of [400, 503]) {
			const controller = new AbortController();
			const body = { destroy: jest.fn() };
			const { ctx, calls } = context(
				[
					() => {
						controller.abort();
						return httpError(status, {}, body);
					},
				],
				controller.signal,
			);
			// 503 on the last allowed attempt: no retry is due either
			const last = { ...policy, maxRetries: 0 };
			await expect(sendWithRetry(ctx, 'c', options, last)).rejects.toEqual({
				headers: {},
				message: 'The execution was stopped',
				tokenFailure: false,
				cancelled: true,
				attempts: 1,
			});
			expect(body.destroy).toHaveBeenCalledTimes(1);
			expect(calls).toHaveLength(1);
		}
	});

	test('a stop during the wait ends the wait at once and sends nothing more', async () => {
		const controller = new AbortController();
		const { ctx, calls } = context([httpError(503), { ok: true }], controller.signal);
		const start = Date.now();
		const sending = sendWithRetry(ctx, 'c', options, { ...policy, baseDelayMs: 1000 });
		await sleep(30);
		controller.abort();
		await expect(sending).rejects.toMatchObject({ cancelled: true, attempts: 1 });
		expect(Date.now() - start).toBeLessThan(500);
		expect(calls).toHaveLength(1);
	});

	test('a retried body is released before the wait', async () => {
		const body = { destroy: jest.fn() };
		const { ctx } = context([httpError(503, {}, body), { ok: true }]);
		await sendWithRetry(ctx, 'c', options, policy);
		expect(body.destroy).toHaveBeenCalledTimes(1);
	});

	test('the default policy retries 429 and 503 three times, and resends nothing that may have acted', async () => {
		expect(DEFAULT_RETRY).toEqual({
			maxRetries: 3,
			baseDelayMs: 500,
			maxDelayMs: 30_000,
			retryStatuses: [429, 503],
			idempotent: false,
		});
		const { ctx, calls } = context([httpError(429, { 'retry-after': '0' })]);
		await expect(sendWithRetry(ctx, 'c', options, DEFAULT_RETRY)).rejects.toMatchObject({
			attempts: 4,
		});
		expect(calls).toHaveLength(4);
	});
});

// Moved from transport.test.ts (named after no module).
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
	const policy = {
		...DEFAULT_RETRY,
		idempotent: true,
		baseDelayMs: 100,
		maxDelayMs: 5000,
		maxRetries: 3,
	};

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
